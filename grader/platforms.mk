# grader/platforms.mk -- the bundles for the platforms that grade courses
# today (docs/CLASSROOM.md):
#
#   make gradescope    $(DIST)/gradescope/autograder.zip: the STAFF bundle
#                      for a Gradescope programming assignment (setup.sh,
#                      run_autograder, the grader's sources, the reference,
#                      every spec). Gradescope never shows it to students.
#   make classroom50   $(DIST)/classroom50/$(C50_ASSIGNMENT)/: autograder.py,
#                      the student-build grader's sources and the public
#                      spec, to copy into a Classroom 50 config repository as
#                      CLASSROOM/autograders/ASSIGNMENT/. That bundle is
#                      publicly readable: no reference, no hidden spec
#                      (the recipe refuses to finish if one got in).
#
# Included by the top Makefile. tests/test_platforms.c builds both and runs
# them as their platform would (tests/platforms.py).

PLAT_SAVED_GOAL := $(.DEFAULT_GOAL)

DIST ?= dist
PLAT_SRC := grader/platforms
GS_OUT := $(DIST)/gradescope
GS_STAGE := $(GS_OUT)/autograder
C50_ASSIGNMENT ?= attention
C50_OUT := $(DIST)/classroom50/$(C50_ASSIGNMENT)
# Everything under grader/ that builds the grader; the bundle has its own
# Makefile (grader/platforms/gradescope/Makefile), which only builds.
PLAT_GRADER := $(wildcard grader/*/*.c grader/*/*.h) grader/deps.sh
PLAT_SPECS := specs/public.yaml specs/hidden.yaml specs/written.yaml

.PHONY: gradescope classroom50
gradescope:
	rm -rf '$(GS_OUT)'
	mkdir -p '$(GS_STAGE)/reference' '$(GS_STAGE)/student_template' '$(GS_STAGE)/specs'
	$(foreach d,$(sort $(dir $(PLAT_GRADER))),mkdir -p '$(GS_STAGE)/$(d)' &&) true
	$(foreach f,$(PLAT_GRADER),cp '$(f)' '$(GS_STAGE)/$(f)' &&) true
	cp $(PLAT_SRC)/gradescope/Makefile '$(GS_STAGE)/Makefile'
	cp reference/attention.c '$(GS_STAGE)/reference/'
	cp student_template/attention.h '$(GS_STAGE)/student_template/'
	cp $(PLAT_SPECS) '$(GS_STAGE)/specs/'
	cp $(PLAT_SRC)/gradescope/setup.sh $(PLAT_SRC)/gradescope/run_autograder '$(GS_STAGE)/'
	chmod 755 '$(GS_STAGE)/setup.sh' '$(GS_STAGE)/run_autograder'
	cd '$(GS_STAGE)' && rm -f ../autograder.zip && python3 -m zipfile -c ../autograder.zip *
	@echo "gradescope: wrote $(GS_OUT)/autograder.zip (upload it as the assignment's autograder: docs/CLASSROOM.md)"

# The student build of the grader, as the template ships it (no
# impl_local.c, no oracle/trusted.[ch]: golden data instead, see
# grader/template.mk; deps.sh without the course-only lines), plus
# autograder.py.
C50_GRADER := $(filter-out grader/sandbox/impl_local.c grader/oracle/trusted.c \
                grader/oracle/trusted.h, $(wildcard grader/*/*.c grader/*/*.h))
classroom50: $(TPL_STAFF_GRADER) $(TPL_BUILD)/runner_main.o
	rm -rf '$(C50_OUT)'
	mkdir -p '$(C50_OUT)/specs'
	$(foreach d,$(sort $(dir $(C50_GRADER))),mkdir -p '$(C50_OUT)/$(d)' &&) true
	$(foreach f,$(C50_GRADER),cp '$(f)' '$(C50_OUT)/$(f)' &&) true
	cp student_template/attention.h '$(C50_OUT)/grader/attention.h'
	sed '/^# >>> course only/,/^# <<< course only/d' grader/deps.sh > '$(C50_OUT)/grader/deps.sh'
	cp grader/template/Makefile.head '$(C50_OUT)/Makefile'
	cp specs/public.yaml '$(C50_OUT)/specs/'
	$(TPL_STAFF_GRADER) golden --jobs 2 --spec specs/public.yaml \
	    --out '$(C50_OUT)/specs/public.golden' reference/attention.c $(TPL_CATALOGUE)
	cp $(PLAT_SRC)/classroom50/autograder.py '$(C50_OUT)/'
	@sh $(PLAT_SRC)/public_guard.sh '$(C50_OUT)'
	@echo "classroom50: wrote $(C50_OUT) (copy it to CLASSROOM/autograders/$(C50_ASSIGNMENT)/ of the config repository: docs/CLASSROOM.md)"

.DEFAULT_GOAL := $(PLAT_SAVED_GOAL)
