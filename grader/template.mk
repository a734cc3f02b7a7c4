# grader/template.mk -- `make template`: the student's repository for the
# template repository (GitHub Actions, GitLab), in $(DIST)/student_template/
# (docs/CLASSROOM.md).
#
# Included by the top Makefile; it also works alone, from the repository's
# root: `make -f grader/template.mk template [DIST=dir]`.
#
# The tree holds the student's files, the public and written specs, the
# grader's sources for a student build (GRADER_STAFF=0: no reference linked
# in, hidden specs refused) and the workflow grade.yml. It never holds the
# reference solution, the hidden spec or impl_local.c (which links a local
# implementation into the grader), nor oracle/trusted.c (the staff build's
# double-precision math: an answer key); the recipe refuses to finish if
# one of them got in. Instead it ships specs/public.golden: every expected
# value of the public tests and the catalogue's known mistakes, recorded by
# the staff grader from the reference and the catalogue (tests/submissions/
# as the build makes it whole, $(BUILD)/catalogue/submissions/) at this very
# step (so it always matches specs/public.yaml; the student grader checks
# the spec's hash and the seed too). It serves `make check-written` as well,
# which loads specs/written.yaml after the public spec (specs/README.md,
# "Golden data"). tests/template.sh commits the tree with git, clones it
# and checks the clone and a grader built there.

# Whatever the including Makefile's default goal is, this file must not
# become it: an empty .DEFAULT_GOAL makes make take the next target it reads.
TPL_SAVED_GOAL := $(.DEFAULT_GOAL)

DIST ?= dist
TPL_OUT := $(DIST)/student_template
TPL_STAFF_ONLY := grader/sandbox/impl_local.c grader/oracle/trusted.c grader/oracle/trusted.h
TPL_GRADER := $(filter-out $(TPL_STAFF_ONLY) grader/deps.sh, \
                $(wildcard grader/*/*.c grader/*/*.h))
TPL_STUDENT := $(addprefix student_template/, attention.h attention.c answers.yaml)
TPL_SPECS := specs/public.yaml specs/written.yaml
TPL_SRC := grader/template
# The staff grader that records the golden data (built by the including
# Makefile's rules when BUILD is set; `make all` first otherwise).
TPL_BUILD := $(or $(BUILD),build)
TPL_STAFF_GRADER := $(TPL_BUILD)/grader
# (expanded when the recipe runs, once the catalogue is made)
TPL_CATALOGUE = $(sort $(wildcard $(TPL_BUILD)/catalogue/submissions/*.c))
# The student build needs no Criterion, xmllint or prove (only our own
# tests do): deps.sh marks their lines "course only".
TPL_NO_CRITERION := -e '/^\# >>> course only/,/^\# <<< course only/d'
# The course's student Makefile, made standalone: the grader is a
# prerequisite (Makefile.head) instead of `make -C ..`, and check takes
# CHECK_FLAGS.
TPL_MAKEFILE_SED := -e "/then \$$(MAKE) -C \.\. all; fi/d" \
    -e 's/\$$(GRADER) grade --require-pass/$$(GRADER) grade $$(CHECK_FLAGS) --require-pass/'

# Quiet like the rest of the build (V=1 shows the commands): the copies
# are a hundred lines of cp no one reads; what takes time, the recording,
# says how far it is every 10 s (grader golden --progress).
TPL_Q := $(if $(filter 1,$(V)),,@)
.PHONY: template
template: $(if $(BUILD),$(TPL_STAFF_GRADER) $(TPL_BUILD)/runner_main.o catalogue)
	$(TPL_Q)rm -rf '$(TPL_OUT)'
	$(TPL_Q)mkdir -p '$(TPL_OUT)/grader' '$(TPL_OUT)/specs' '$(TPL_OUT)/.github/workflows'
	$(TPL_Q)$(foreach d,$(sort $(dir $(TPL_GRADER))),mkdir -p '$(TPL_OUT)/$(d)' &&) true
	$(TPL_Q)cp $(TPL_STUDENT) '$(TPL_OUT)/'
	$(TPL_Q)cat student_template/README.md $(TPL_SRC)/README.ci.md > '$(TPL_OUT)/README.md'
	$(TPL_Q)cp $(TPL_SPECS) '$(TPL_OUT)/specs/'
	@echo "template: recording the public tests' expected values and the catalogue's" \
	    "$(words $(TPL_CATALOGUE)) mistakes (minutes; a line every 10 s)"
	$(TPL_Q)$(TPL_STAFF_GRADER) golden --jobs 2 --progress --spec specs/public.yaml \
	    --out '$(TPL_OUT)/specs/public.golden' reference/attention.c $(TPL_CATALOGUE)
	$(TPL_Q)$(foreach f,$(TPL_GRADER),cp '$(f)' '$(TPL_OUT)/$(f)' &&) true
	$(TPL_Q)cp student_template/attention.h '$(TPL_OUT)/grader/attention.h'
	$(TPL_Q)cp LICENSE '$(TPL_OUT)/grader/LICENSE'
	$(TPL_Q)sed $(TPL_NO_CRITERION) grader/deps.sh > '$(TPL_OUT)/grader/deps.sh'
	$(TPL_Q){ cat $(TPL_SRC)/Makefile.head && \
	  sed $(TPL_MAKEFILE_SED) student_template/Makefile; } > '$(TPL_OUT)/Makefile'
	$(TPL_Q)cp $(TPL_SRC)/grade.yml '$(TPL_OUT)/.github/workflows/grade.yml'
	$(TPL_Q)cp $(TPL_SRC)/gitignore '$(TPL_OUT)/.gitignore'
	$(TPL_Q)mkdir -p '$(TPL_OUT)/.devcontainer'
	$(TPL_Q)cp $(TPL_SRC)/devcontainer/devcontainer.json '$(TPL_OUT)/.devcontainer/devcontainer.json'
	@sh $(TPL_SRC)/guard.sh '$(TPL_OUT)'
	@echo "template: wrote $(TPL_OUT) (push it as the template repository: docs/CLASSROOM.md)"

.DEFAULT_GOAL := $(TPL_SAVED_GOAL)
