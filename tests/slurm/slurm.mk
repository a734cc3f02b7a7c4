# make test-slurm: the Slurm array recipe of docs/TA.md run by a real
# scheduler (a one-node cluster started in a temporary folder; installs
# slurm-wlm and munge as root, else skips). Opt-in: not part of `make test`.
.PHONY: test-slurm
test-slurm: all
	@sh tests/slurm/test-slurm.sh $(BUILD)
