#!/bin/sh
# Make sure the libraries the grader builds against are present.
# Installs Debian's packages when run as root with apt-get; otherwise prints
# the exact command for the user's system and fails.
set -u
pkgs_pc="criterion yaml-0.1 libpcre2-8"
case "$(uname -s)" in Linux) pkgs_pc="$pkgs_pc libseccomp" ;; esac

missing=""
for p in $pkgs_pc; do
    pkg-config --exists "$p" 2>/dev/null || missing="$missing $p"
done
command -v pkg-config >/dev/null 2>&1 || missing="pkg-config$missing"
# Tools: objcopy rewrites submissions; xmllint and prove check our reports
# in the project's own test suite (absent from the student template).
tools=objcopy
[ -d "$(dirname "$0")/../tests" ] && tools="$tools xmllint prove"
for t in $tools; do
    command -v "$t" >/dev/null 2>&1 || missing="$missing $t"
done
[ -z "$missing" ] && exit 0

deb="pkg-config libcriterion-dev libyaml-dev libpcre2-dev libseccomp-dev binutils libxml2-utils perl"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
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
  Debian/Ubuntu:   sudo apt-get install -y $deb
  Fedora:          sudo dnf install -y pkgconf criterion-devel libyaml-devel pcre2-devel libseccomp-devel binutils libxml2 perl-Test-Harness
  macOS/Homebrew:  brew install pkg-config criterion libyaml pcre2 binutils libxml2   (no seccomp: the sandbox is reduced)
MSG
exit 1
