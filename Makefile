# attention-grader -- one Makefile for the grader, the reference and the tests.
#
#   make            build everything into $(BUILD)/ (installs deps if it can)
#   make demo       a table of the sample submissions, then one whole rubric
#                   (a quiet build first; V=1 shows its commands)
#   make check      grade student_template/attention.c (SUB=file, ONLY=regex)
#   make test       run the project's own test suite (tests/README.md)
#   make unit       the unit suites alone (single modules, no submission graded)
#   make bench      benchmarks (medians and ratios, never timed tests)
#   make audit      the mutation score of public + hidden specs on every correct solution
#                   (AUDIT_JOBS=N mutants at once, AUDIT_FORMAT=text|json|markdown)
#   make test-slurm the Slurm array recipe on a one-node cluster (opt-in; tests/slurm/)
#   make template   the student repository in dist/student_template
#   make readme-examples  rewrite student_template/README.md's example
#                   outputs from the reference (make test checks them)
#   make diag-data  $(BUILD)/diag.golden: the catalogue's mistakes, for diagnoses
#                   (the shipped tests/diag.golden when its inputs are today's)
#   make diag-ship  record them again into tests/diag.golden (commit it and
#                   its .inputs: make test fails on a stale one); diag-verify
#                   records afresh and compares with the shipped file
#   make gradescope the Gradescope autograder: dist/gradescope/autograder.zip
#   make classroom50  the Classroom 50 bundle: dist/classroom50/attention/
#   make install    PREFIX=/usr/local DESTDIR= : bin/grader, its data in
#                   share/attention-grader/, the manual grader.1; make uninstall
#   make check-macos SDK=/path/to/MacOSX.sdk  the portable sources against
#                   Apple's SDK (clang -fsyntax-only; opt-in, never in CI)
#   make clean
#
# BUILD=dir puts the build elsewhere; STAFF=0 builds the student-side grader
# (no reference solution linked in; hidden specs refused). CI=1 adds -Werror.
# CPPFLAGS, CFLAGS and LDFLAGS are yours, as make users expect (the runner
# object, linked with student code at grading time, takes no -fsanitize).
# SANITIZE=address,undefined builds the grader and the tests with those
# sanitizers. NO_DEPS=1: never install packages (print the command instead).
# PORTABLE=1 compiles out ELF and seccomp (the default off Linux, e.g. macOS):
# objects are checked from `nm -P`, the sandbox keeps deadlines, rlimits and
# process isolation; `make test` builds this way too (tests/portable.sh).

BUILD ?= build
STAFF ?= 1
CC ?= cc
export LC_ALL := C

WARN := -std=c11 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
        -Wmissing-prototypes -Wwrite-strings
ifneq ($(strip $(CI)),)
WARN += -Werror
endif
OPT ?= -O2 -g
DEFS := -D_GNU_SOURCE -DGRADER_STAFF=$(STAFF)
PKGS := yaml-0.1 libpcre2-8
ifneq ($(shell uname -s),Linux)
PORTABLE ?= 1
endif
PORTABLE ?= 0
ifeq ($(PORTABLE),1)
DEFS += -DGRADER_PORTABLE=1
else
PKGS += libseccomp
DEFS += -DGRADER_SECCOMP=1
endif
# Recursive (=) so that pkg-config runs only after the deps step.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS))
PKG_LIBS = $(shell pkg-config --libs $(PKGS)) -lm -pthread
CRIT_CFLAGS = $(shell pkg-config --cflags criterion)
CRIT_LIBS = $(shell pkg-config --libs criterion)
ifneq ($(strip $(SANITIZE)),)
SAN_FLAGS := -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
# Criterion's own 48 bytes are not ours (tests/lsan.supp); a user's own
# LSAN_OPTIONS wins.
LSAN_OPTIONS ?= suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0
export LSAN_OPTIONS
endif
BASE_CFLAGS = $(WARN) $(OPT) $(DEFS) -pthread -Igrader -Istudent_template $(PKG_CFLAGS) \
              $(CPPFLAGS)
ALL_CFLAGS = $(BASE_CFLAGS) $(SAN_FLAGS) $(CFLAGS)
ALL_LDFLAGS = $(OPT) $(SAN_FLAGS) $(CFLAGS) $(LDFLAGS)
# Header dependencies, written by the compiler beside each object.
DEPFLAGS = -MMD -MP

# Sources are found by folder: grader/<module>/*.c (docs/DESIGN.md maps
# the folders). The CLI layer, the only code that prints, is grader/cli/.
CLI_SRCS := $(wildcard grader/cli/*.c)
CLI_OBJS := $(CLI_SRCS:grader/%.c=$(BUILD)/obj/%.o)
GRADER_HDRS := $(wildcard grader/*/*.h)
RUNNER_SRCS := grader/sandbox/runner_main.c grader/sandbox/runner_heap.c \
               grader/sandbox/runner_seccomp.c
LIB_SRCS := $(filter-out $(CLI_SRCS) $(RUNNER_SRCS) \
              grader/sandbox/impl_local.c, $(wildcard grader/*/*.c))
LIB_OBJS := $(LIB_SRCS:grader/%.c=$(BUILD)/obj/%.o)
REF_OBJS := $(BUILD)/obj/reference.o $(BUILD)/obj/sandbox/impl_local.o
ifeq ($(STAFF),1)
GRADER_EXTRA := $(REF_OBJS)
endif
TEST_SRCS := $(wildcard tests/test_*.c)
TEST_BINS := $(TEST_SRCS:tests/%.c=$(BUILD)/tests/%)
DEPS_OK := $(BUILD)/.deps-ok

.PHONY: all deps demo test unit bench clean fuzz check diag-data diag-ship diag-check \
        diag-verify audit catalogue
# The staff grader diagnoses with the catalogue's known mistakes: `make`
# records them (build/diag.golden) with the grader.
all: $(BUILD)/grader $(BUILD)/runner_main.o $(BUILD)/include/attention.h $(BUILD)/diag.golden \
     catalogue

deps: $(DEPS_OK)
$(DEPS_OK):
	@mkdir -p $(BUILD)
	@PORTABLE=$(PORTABLE) NO_DEPS=$(NO_DEPS) sh grader/deps.sh
	@touch $@

$(BUILD)/obj/%.o: grader/%.c $(BUILD)/obj/%.d | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c $< -o $@

# The runner's trusted half is linked with a student's object by the grader
# with plain cc: no sanitizer runtime may be asked of that link.
RUNNER_OBJS := $(RUNNER_SRCS:grader/%.c=$(BUILD)/obj/%.o)
$(RUNNER_OBJS): $(BUILD)/obj/%.o: grader/%.c $(BUILD)/obj/%.d | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(filter-out -fsanitize%,$(CFLAGS)) $(DEPFLAGS) -c $< -o $@

$(BUILD)/obj/reference.o: reference/attention.c $(BUILD)/obj/reference.d | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c $< -o $@


$(BUILD)/libgrader.a: $(LIB_OBJS)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/grader: $(CLI_OBJS) $(BUILD)/libgrader.a $(GRADER_EXTRA) | $(BUILD)/runner_main.o $(BUILD)/include/attention.h
	$(CC) $(ALL_LDFLAGS) -o $@ $(CLI_OBJS) $(GRADER_EXTRA) $(BUILD)/libgrader.a $(PKG_LIBS)

# The trusted half of the student's runner; linked with the submission at
# grading time, so it ships as an object beside the grader.
$(BUILD)/runner_main.o: $(RUNNER_OBJS)
	$(LD) -r -o $@ $^

$(BUILD)/include/attention.h: student_template/attention.h
	@mkdir -p $(@D)
	cp $< $@

# Code only the tests use (tests/support/: the JSON reader, base64
# decoding): linked into the test binaries, never into the grader.
TEST_SUPPORT_SRCS := $(wildcard tests/support/*.c)
TEST_SUPPORT_OBJS := $(TEST_SUPPORT_SRCS:tests/%.c=$(BUILD)/tests/%.o)
$(TEST_SUPPORT_OBJS): $(BUILD)/tests/%.o: tests/%.c $(BUILD)/tests/%.d | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -Itests -c $< -o $@
$(BUILD)/tests/libsupport.a: $(TEST_SUPPORT_OBJS)
	rm -f $@ && ar rcs $@ $^

# The catalogue's assembler (tests/catalogue/assemble.c): an entry stored as
# its differences from the reference, made whole (tests/README.md, "The
# catalogue as differences"). A tool of the tests, never part of the grader.
$(BUILD)/tools/assemble: tests/catalogue/assemble.c
	@mkdir -p $(@D)
	$(CC) $(WARN) $(OPT) -D_GNU_SOURCE $(CFLAGS) $< -o $@ $(LDFLAGS)
$(BUILD)/tests/test_assemble: $(BUILD)/tools/assemble

# The catalogue, made whole in $(CAT_DIR)/<folder>/<name>.c: each entry
# tests/<folder>/<name>.entry assembled with its base (the reference, or
# CAT_BASE_<folder>), each whole tests/<folder>/<name>.c copied. Every
# consumer reads $(CAT_DIR) (the suites as TEST_CATDIR); a file whose source
# is gone is removed, so a folder's listing is the catalogue's.
CAT_DIR := $(BUILD)/catalogue
CAT_FOLDERS := submissions heldout diag_heldout diag_unseen hint_premises wrong_causes
CAT_BASE := reference/attention.c
CAT_BASE_heldout := tests/solutions/plain_double.c
CAT_SRCS := $(sort $(foreach d,$(CAT_FOLDERS),$(wildcard tests/$(d)/*.entry tests/$(d)/*.c)))
CAT_FILES := $(patsubst tests/%.entry,$(CAT_DIR)/%.c,$(CAT_SRCS:tests/%.c=$(CAT_DIR)/%.c))
catalogue: $(CAT_FILES)
	@find $(CAT_DIR) -name '*.c' | while read -r f; do \
	    case " $(CAT_FILES) " in *" $$f "*) ;; *) rm -f "$$f";; esac; done
$(CAT_DIR)/%.c: tests/%.entry $(BUILD)/tools/assemble $(CAT_BASE) $(CAT_BASE_heldout)
	@mkdir -p $(@D)
	@$(BUILD)/tools/assemble $(or $(CAT_BASE_$(notdir $(*D))),$(CAT_BASE)) $< -o $@
$(CAT_DIR)/%.c: tests/%.c
	@mkdir -p $(@D)
	@cp $< $@

$(BUILD)/tests/%: tests/%.c $(BUILD)/tests/%.d $(BUILD)/tests/libsupport.a $(BUILD)/libgrader.a \
                  $(REF_OBJS) | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -Itests $(CRIT_CFLAGS) -DTEST_SRCDIR='"$(CURDIR)"' \
	    -DTEST_BUILDDIR='"$(abspath $(BUILD))"' \
	    -DTEST_CATDIR='"$(abspath $(CAT_DIR))"' \
	    -DTEST_CATREL='"$(patsubst $(CURDIR)/%,%,$(abspath $(CAT_DIR)))"' $< -o $@ \
	    $(REF_OBJS) $(BUILD)/tests/libsupport.a $(BUILD)/libgrader.a $(LDFLAGS) $(CRIT_LIBS) \
	    $(PKG_LIBS)

# The header dependencies the compiler wrote. Named as targets of their own
# (not a pattern, which make would take for intermediate files), so that an
# object without its .d, from a build before -MMD, is made again once.
DEP_FILES := $(patsubst %.o,%.d,$(CLI_OBJS) $(LIB_OBJS) $(REF_OBJS) \
               $(RUNNER_OBJS) $(TEST_SUPPORT_OBJS)) $(TEST_BINS:=.d)
$(DEP_FILES):
-include $(wildcard $(DEP_FILES))

# The catalogue's known mistakes as data, for the staff rubric's diagnosis
# (grade/diag.h, recorded by grade/diag_record.c; the template ships its own,
# public-only, specs/public.golden).
DIAG_SUBS := $(filter tests/submissions/%,$(CAT_SRCS))
# What it is recorded from: the catalogue, the specs, the reference, the
# recording code (and, in the hash, the grader's version). Recording grades
# the whole catalogue (3 min of an idle 2-CPU machine), so the recording is
# shipped (tests/diag.golden) with the hash of these inputs beside it
# (tests/diag.golden.inputs): the build copies it when the hash is today's
# and records only when an input changed; `make diag-ship` ships a new
# recording, `make test` fails on a stale one (tests/diag-data.sh).
# It is remade when an input changes, not on every relink of the grader.
DIAG_INPUTS := reference/attention.c specs/public.yaml specs/hidden.yaml $(DIAG_SUBS) \
               grader/grade/diag.c grader/grade/diag_record.c grader/oracle/golden.c \
               grader/oracle/golden_io.c $(sort $(wildcard grader/props/*.c)) grader/cli/cmd_golden.c \
               grader/sandbox/runner_heap.c grader/sandbox/runner_proto.h tests/diag-data.sh \
               tests/catalogue/assemble.c
$(BUILD)/diag.golden: $(DIAG_INPUTS) tests/diag.golden tests/diag.golden.inputs \
                      | $(BUILD)/grader $(BUILD)/runner_main.o catalogue
	@sh tests/diag-data.sh use $(BUILD) $(DIAG_INPUTS)
diag-ship: $(BUILD)/grader $(BUILD)/runner_main.o catalogue
	@sh tests/diag-data.sh ship $(BUILD) $(DIAG_INPUTS)
diag-check:
	@sh tests/diag-data.sh check $(BUILD) $(DIAG_INPUTS)
diag-verify: $(BUILD)/grader $(BUILD)/runner_main.o catalogue
	@sh tests/diag-data.sh verify $(BUILD) $(DIAG_INPUTS)
diag-data: $(BUILD)/diag.golden

# The fuzz harnesses run first and count as one suite, so that the suite's
# own "tests: N passed, N failed" is the last line (what CI reads).
test: diag-check all $(TEST_BINS) $(BUILD)/diag.golden
	@if command -v $(FUZZ_CC) >/dev/null 2>&1; then \
	    $(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(FUZZ_TEST_SECONDS); \
	    echo $$? >$(BUILD)/fuzz.status; \
	else echo "fuzz: no $(FUZZ_CC): the fuzz harnesses were not run"; \
	    echo skipped >$(BUILD)/fuzz.status; fi
	@FUZZ_STATUS=$$(cat $(BUILD)/fuzz.status) sh tests/run.sh $(BUILD) $(TEST_BINS) \
	    tests/bench_guard.sh tests/diag-data.sh

# The suites of single modules that compile and grade no whole submission:
# seconds where `make test` takes minutes (tests/README.md).
UNIT_SUITES := json strbuf util sha256 layout assign spec srcrules ledger gates points report \
               export summary answers selfcheck reference assemble
UNIT_BINS := $(UNIT_SUITES:%=$(BUILD)/tests/test_%)
unit: $(BUILD)/grader $(UNIT_BINS)
	@sh tests/run.sh $(BUILD) $(UNIT_BINS) tests/bench_guard.sh tests/diag-data.sh

# make fuzz [FUZZ_SECONDS=N]: libFuzzer (clang, ASan + UBSan) on every parser
# of hostile bytes (tests/fuzz/): the spec loader, the answers loader, the
# source rules, the ELF reader, the VECTORS parser, the roster CSV reader and
# the golden data reader and the similarity tokeniser, each for N seconds. The library code they need is built again, instrumented.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_TEST_SECONDS ?= 3
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_LIB := $(wildcard grader/core/*.c grader/spec/*.c grader/assign/*.c) grader/build/srcrules.c \
            grader/selfcheck/answers.c
# what each harness needs beyond FUZZ_LIB
FUZZ_LIB_objcheck := grader/build/objcheck.c
FUZZ_LIB_vectors := grader/selfcheck/selfcheck.c grader/props/prop_util.c \
                    grader/sandbox/impl.c
FUZZ_LIB_roster := grader/batch/export.c
FUZZ_LIB_golden := grader/oracle/golden.c grader/oracle/golden_io.c
FUZZ_LIB_similar := grader/similar/sim_tokens.c
FUZZ_LIB_ALL := $(FUZZ_LIB) $(FUZZ_LIB_objcheck) $(FUZZ_LIB_vectors) \
                $(FUZZ_LIB_roster) $(FUZZ_LIB_golden) $(FUZZ_LIB_similar)
FUZZ_NAMES := spec answers srcrules objcheck vectors roster golden similar
# Seeds: the project's own inputs, so the corpus follows them as they change
# (libFuzzer reads these folders recursively and writes only the first,
# build/fuzz/corpus_NAME).
FUZZ_SEEDS_spec := specs tests/specs_bad
FUZZ_SEEDS_answers := tests/answers_fixtures student_template
FUZZ_SEEDS_srcrules := tests/hostile $(CAT_DIR)/submissions
FUZZ_SEEDS_objcheck := $(BUILD)/obj/build $(BUILD)/obj/core
FUZZ_SEEDS_vectors := tests/answers_fixtures
FUZZ_SEEDS_roster := tests/fuzz/seeds_roster
FUZZ_SEEDS_golden := tests/fuzz/seeds_golden
FUZZ_SEEDS_similar := tests/hostile $(CAT_DIR)/submissions
FUZZ_BINS := $(FUZZ_NAMES:%=$(BUILD)/fuzz/fuzz_%)

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB_ALL) $(GRADER_HDRS) | $(DEPS_OK)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(DEFS) -Igrader -Istudent_template $(PKG_CFLAGS) \
	    $< $(FUZZ_LIB) $(FUZZ_LIB_$*) -o $@ $(PKG_LIBS)

fuzz: $(FUZZ_NAMES:%=fuzz-run-%)
.PHONY: $(FUZZ_NAMES:%=fuzz-run-%)
$(FUZZ_NAMES:%=fuzz-run-%): fuzz-run-%: $(BUILD)/fuzz/fuzz_% | catalogue
	@mkdir -p $(BUILD)/fuzz/corpus_$*
	@echo "fuzz_$*: $(FUZZ_SECONDS) s"
	@$< -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
	    -timeout=10 -rss_limit_mb=2048 -print_final_stats=0 \
	    -artifact_prefix=$(BUILD)/fuzz/ $(BUILD)/fuzz/corpus_$* \
	    $(FUZZ_SEEDS_$*) 2>$(BUILD)/fuzz/fuzz_$*.log || \
	    { tail -40 $(BUILD)/fuzz/fuzz_$*.log; exit 1; }
	@tail -1 $(BUILD)/fuzz/fuzz_$*.log

# A quiet build first (one line; V=1 shows its commands), the diagnosis
# data included (its recording is one long command line), then the demo.
demo:
ifeq ($(V),1)
	@$(MAKE) --no-print-directory all diag-data
else
	@sh tests/quiet-build.sh $(BUILD) $(MAKE) all diag-data
endif
	@sh tests/demo.sh $(BUILD)

# make check [SUB=file.c] [ONLY=regex]: grade one file with the public tests,
# as a student's `make check` does (default: the template's attention.c).
# The rubric's reproduce lines name this target, with SUB= when one was given.
SUB ?= student_template/attention.c
CHECK_REPRO = make check$(if $(filter-out student_template/attention.c,$(SUB)), SUB='$(SUB)')
# CHECK_DEPS= (empty) grades with the grader as built: tests/test_cli.c runs
# make check beside suites that run build/grader, which must not be relinked.
CHECK_DEPS ?= all
check: $(CHECK_DEPS)
	@$(BUILD)/grader grade --require-pass --repro "$(CHECK_REPRO)" \
	    $(if $(ONLY),--only '$(ONLY)') --spec specs/public.yaml '$(SUB)'

# Exit 1 when a mutant survives or an equivalent one is not in specs/equivalent.txt.
# The reference and every correct solution of the catalogue and of
# tests/solutions/ (issue 36): each mutant is judged against its own source,
# and a last table gives the survivors per source. Not part of make test (it
# grades about 8,000 mutants); one source: make audit AUDIT_SOURCES=reference/attention.c
AUDIT_JOBS ?= 2
AUDIT_FORMAT ?= text
AUDIT_SOURCES ?= reference/attention.c $(sort $(wildcard $(CAT_DIR)/submissions/correct_*.c) \
                 $(shell grep -l '^ \* bug: none' $(CAT_DIR)/submissions/*.c 2>/dev/null) \
                 $(wildcard tests/solutions/*.c))
audit: all
	$(BUILD)/grader audit --spec specs/public.yaml --spec specs/hidden.yaml \
	  --jobs $(AUDIT_JOBS) --format $(AUDIT_FORMAT) $(AUDIT_SOURCES)

bench: all
	@sh tests/bench.sh $(BUILD)

.PHONY: readme-examples
readme-examples: all
	@python3 tests/readme_examples.py . $(BUILD) --update

clean:
	rm -rf $(BUILD) dist

include grader/template.mk
include grader/platforms.mk
include grader/install.mk
include tests/slurm/slurm.mk
