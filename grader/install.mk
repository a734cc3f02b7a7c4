# grader/install.mk -- `make install`, `make uninstall`, the manual page and
# `make check-macos`, included by the top Makefile.
#
#   make install [PREFIX=/usr/local] [DESTDIR=]
#     $(DESTDIR)$(BINDIR)/grader                 the staff grader
#     $(DESTDIR)$(GRADER_DATA)/runner_main.o    the runner's trusted half
#     $(DESTDIR)$(GRADER_DATA)/include/attention.h, diag.golden, specs/*.yaml
#     $(DESTDIR)$(MANDIR)/man1/grader.1         the manual, from the help text
#
# The grader finds its data from where it runs (bin/../share/attention-grader,
# grader/cli/cli.h), so a DESTDIR staging tree grades as the final install
# does. One directory holds the data and the runner object: the object is
# read by the linker at grading time, never run by itself.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
GRADER_DATA ?= $(PREFIX)/share/attention-grader
INSTALL ?= install

.PHONY: install uninstall man check-macos
man: $(BUILD)/grader.1
$(BUILD)/grader.1: $(BUILD)/grader grader/manpage.sh
	sh grader/manpage.sh $(BUILD)/grader >$@.tmp && mv $@.tmp $@

# INSTALL_DEPS= (empty) installs what is built without rebuilding anything:
# tests/install.sh runs beside suites that use the build.
INSTALL_DEPS ?= all $(BUILD)/diag.golden
install: $(INSTALL_DEPS) $(BUILD)/grader.1
	$(INSTALL) -d '$(DESTDIR)$(BINDIR)' '$(DESTDIR)$(GRADER_DATA)/include' \
	    '$(DESTDIR)$(GRADER_DATA)/specs' '$(DESTDIR)$(MANDIR)/man1'
	$(INSTALL) -m 755 $(BUILD)/grader '$(DESTDIR)$(BINDIR)/grader'
	$(INSTALL) -m 644 $(BUILD)/runner_main.o $(BUILD)/diag.golden '$(DESTDIR)$(GRADER_DATA)/'
	$(INSTALL) -m 644 $(BUILD)/include/attention.h '$(DESTDIR)$(GRADER_DATA)/include/'
	$(INSTALL) -m 644 $(wildcard specs/*.yaml) '$(DESTDIR)$(GRADER_DATA)/specs/'
	$(INSTALL) -m 644 $(BUILD)/grader.1 '$(DESTDIR)$(MANDIR)/man1/grader.1'

uninstall:
	rm -f '$(DESTDIR)$(BINDIR)/grader' '$(DESTDIR)$(MANDIR)/man1/grader.1'
	rm -rf '$(DESTDIR)$(GRADER_DATA)'

# The portable build's sources against Apple's SDK, without a Mac: syntax
# and declarations only (no link). Opt-in: SDK is a MacOSX.sdk you provide
# (never shipped here); MACOS_CFLAGS adds include paths for libyaml and
# PCRE2 (e.g. -I/opt/homebrew/include).
MACOS_TARGET ?= arm64-apple-macos12
MACOS_SRCS = $(filter-out $(TPL_STAFF_ONLY),$(wildcard grader/*/*.c))
check-macos:
	@test -n '$(SDK)' || { echo "usage: make check-macos SDK=/path/to/MacOSX.sdk" \
	    "[MACOS_CFLAGS=-I/opt/homebrew/include]" >&2; exit 2; }
	@for f in $(MACOS_SRCS); do \
	    clang -target $(MACOS_TARGET) -isysroot '$(SDK)' -fsyntax-only $(WARN) \
	        -D_GNU_SOURCE -DGRADER_STAFF=0 -DGRADER_PORTABLE=1 -Igrader -Istudent_template \
	        $(MACOS_CFLAGS) "$$f" || exit 1; \
	done; echo "check-macos: $(words $(MACOS_SRCS)) files parse against $(SDK)"
