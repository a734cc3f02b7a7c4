#!/bin/sh
# The manual page grader(1), written from the grader's own help text so the
# two never drift: `grader --help` for the synopsis and the command list,
# `grader help CMD` for each command's section.
# Usage: sh grader/manpage.sh PATH/TO/grader > grader.1
set -eu
g=$1
# roff: a backslash is written \e; a line may not begin with . or '.
esc() { sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"; }
version=$("$g" --version | sed -n 's/^attention-grader \([^ ]*\).*/\1/p')
cat <<HEAD
.TH GRADER 1 "" "attention-grader $version" "User Commands"
.SH NAME
grader \- grade attention.c submissions of the "Sequences and attention" assignment
.SH SYNOPSIS
.B grader
.I command
.RI [ options ]
.br
.B grader
.BR --version " | " --help " | " "help \fIcommand\fP"
.SH DESCRIPTION
The grader compiles a student's attention.c against the assignment's fixed
header, checks and contains it, runs property tests driven by YAML specs and
prints a rubric.
.PP
.nf
HEAD
"$g" --help | esc
echo ".fi"
echo ".SH COMMANDS"
for c in $("$g" --help | sed -n 's/^  \([a-z][a-z0-9]*\)  .*/\1/p'); do
    [ "$c" = help ] && continue
    echo ".SS $c"
    echo ".nf"
    "$g" help "$c" 2>&1 | esc
    echo ".fi"
done
cat <<'TAIL'
.SH EXIT STATUS
0 done; 1 with --require-pass, a test did not pass; 2 a usage, spec or
environment error (one line on standard error), or the grader could not grade.
.SH FILES
.TP
.I PREFIX/share/attention-grader/
the runner's trusted half (runner_main.o), the header, the specs and the
diagnosis data, found from the directory of the grader itself
.SH SEE ALSO
README.md, docs/TA.md and docs/CLASSROOM.md in the attention-grader sources.
TAIL
