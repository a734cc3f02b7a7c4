#!/bin/sh
# Make sure the libraries the grader builds against are present.
# Installs Debian's packages when run as root with apt-get; otherwise prints
# the exact command for the user's system and fails.
# Usage: deps.sh [--print]   (--print: only list the Debian packages needed)
# PORTABLE=1 (a build without seccomp) does not ask for libseccomp.
# NO_DEPS=1 never installs: it prints the command, as for a user who is not root.
set -u
# The student build (the template: no tests/ beside grader/) needs a C
# compiler, libyaml, PCRE2, binutils and, on Linux, libseccomp. Only the
# course's own test suite adds Criterion, xmllint and prove.
# (`make template` deletes the lines between the "course only" marks.)
here=$(dirname "$0")
course=0
pkgs_pc="yaml-0.1 libpcre2-8"
# >>> course only
[ -d "$here/../tests" ] && course=1
[ "$course" = 1 ] && pkgs_pc="criterion $pkgs_pc"
# <<< course only
portable=${PORTABLE:-0}
[ "$portable" = 1 ] || case "$(uname -s)" in
    Linux) pkgs_pc="$pkgs_pc libseccomp" ;;
esac

missing=""
for p in $pkgs_pc; do
    pkg-config --exists "$p" 2>/dev/null || missing="$missing $p"
done
command -v pkg-config >/dev/null 2>&1 || missing="pkg-config$missing"
# Tools: objcopy rewrites submissions; xmllint and prove check our reports
# in the project's own test suite (absent from the student template).
tools="${OBJCOPY:-objcopy}"
[ "$course" = 1 ] && tools="$tools xmllint prove python3"
for t in $tools; do
    command -v "$t" >/dev/null 2>&1 || missing="$missing $t"
done

deb="gcc make pkg-config libyaml-dev libpcre2-dev binutils"
[ "$portable" = 1 ] || deb="$deb libseccomp-dev"
rpm="gcc make pkgconf libyaml-devel pcre2-devel libseccomp-devel binutils"
brew="pkg-config libyaml pcre2 llvm"
# >>> course only
if [ "$course" = 1 ]; then
    deb="$deb libcriterion-dev libxml2-utils perl python3"
    rpm="$rpm criterion-devel libxml2 perl-Test-Harness"
    brew="$brew criterion"
fi
# <<< course only
if [ "${1:-}" = --print ]; then
    echo "$deb"
    exit 0
fi
# >>> course only
# Chromium opens report.html in the suite's browser test. It is optional: a
# machine without it builds and tests, and that one test says it skipped.
if [ "$course" = 1 ] && [ "${NO_DEPS:-0}" != 1 ] && [ "$(id -u)" = 0 ] &&
   ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    echo "deps: installing chromium for the report's browser test" >&2
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } \
        >&2 || echo "deps: no chromium: the browser test of report.html will be skipped" >&2
fi
# <<< course only
[ -z "$missing" ] && exit 0
# NO_DEPS=1 (make NO_DEPS=1): never install, only say what is missing.
if [ "${NO_DEPS:-0}" != 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps: missing:$missing; installing Debian packages: $deb" >&2
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq $deb; } >&2 || {
        echo "deps: apt-get failed; run: apt-get update && apt-get install -y $deb" >&2
        exit 1
    }
    exit 0
fi
cat >&2 <<MSG
deps: missing:$missing
Install the libraries, then run make again:
  Debian/Ubuntu/WSL: sudo apt-get install -y $deb
  Fedora:            sudo dnf install -y $rpm
  macOS/Homebrew:    brew install $brew
                     (then build with: make PORTABLE=1 OBJCOPY=llvm-objcopy;
                     no seccomp: the sandbox is reduced, see README.md)
MSG
exit 1
