#!/bin/sh
# report.html in a real browser, run by tests/test_summary.c: a class of 30
# from the catalogue (the reference, the template, catalogue entries, a
# compile error, an empty folder and a hostile folder name) is graded with
# --similarity, then
# headless Chromium opens the report from disk inside tests/report_harness.html,
# which sorts, filters and opens a student as a TA would. Also checked: no
# console message (a CSP violation is one), every bar of every chart drawn
# in a Chromium screenshot (tests/chart_pixels.py: report.html's charts and
# summary.svg), and screenshots at 1280x800 and 390x844 are left in
# BUILD_DIR for a person to look at.
# Usage: sh tests/report_browser.sh SRCDIR BUILD_DIR
# Exits 0 when every check holds, 1 otherwise, 77 when there is no Chromium.
set -u
src=$1
build=$2
chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$chrome" ]; then
    echo "skip: no Chromium here, so report.html was not opened in a browser" \
         "(Debian: apt-get install chromium)"
    exit 77
fi
tmp=$(mktemp -d /tmp/grader-report.XXXXXX) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
cd "$src" || exit 2

# ---- the class ----
hostile='<svg onload=parent.pwned=1>"'"'"'x'
add() { mkdir -p "$tmp/class/$1" && cp "$2" "$tmp/class/$1/attention.c"; }
add reference reference/attention.c
add template student_template/attention.c
add broken tests/batch_fixtures/broken.c
add "$hostile" reference/attention.c
mkdir -p "$tmp/class/empty_folder"
add sdpa_no_scale "$build"/catalogue/submissions/sdpa_no_scale.c
for f in $(ls "$build"/catalogue/submissions/*.c | grep -v '/sdpa_no_scale\.c$' | head -n 24); do
    add "$(basename "$f" .c)" "$f"
done
n=$(ls "$tmp/class" | wc -l)
# (the hostile folder holds a copy of the reference: a similar pair)
if ! "$build/grader" batch --jobs 2 --similarity --out "$tmp/out" "$tmp/class" \
    >"$tmp/batch.log" 2>&1; then
    bad "grader batch failed:"; tail -n 5 "$tmp/batch.log"; exit 1
fi
[ -s "$tmp/out/report.html" ] && ok "batch wrote report.html ($(wc -c <"$tmp/out/report.html") bytes for $n folders)" ||
    { bad "no report.html"; exit 1; }

# ---- each chart as Chromium draws it: every bar of every row ----
mkdir -p "$tmp/charts"
if python3 tests/chart_pixels.py "$chrome" "$tmp/charts" "$tmp/out/report.html" \
    "$tmp/out/summary.svg" >"$tmp/charts.log" 2>&1; then
    cat "$tmp/charts.log"
else
    cat "$tmp/charts.log"; bad "a chart is not drawn whole (tests/chart_pixels.py)"
fi

# ---- in the browser ----
cp tests/report_harness.html "$tmp/out/harness.html"
url="file://$tmp/out/harness.html?rows=$n&missing=1&failing=sdpa_no_scale&hostile=$(
    printf '%s' "$hostile" | od -An -v -tx1 | tr -d ' \n' | sed 's/../%&/g')"
flags="--headless --no-sandbox --disable-gpu --no-first-run --disable-extensions"
flags="$flags --user-data-dir=$tmp/profile"
# shellcheck disable=SC2086
timeout 120 "$chrome" $flags --allow-file-access-from-files --enable-logging=stderr --v=0 \
    --virtual-time-budget=10000 --dump-dom "$url" >"$tmp/dom.html" 2>"$tmp/chrome.log"
if ! sed 's/<[^>]*>//g' "$tmp/dom.html" | grep -q '^DONE'; then
    bad "the harness did not finish:"; tail -n 20 "$tmp/chrome.log"
fi
sed 's/<[^>]*>//g' "$tmp/dom.html" >"$tmp/lines.txt"
grep -E '^(ok|FAIL): ' "$tmp/lines.txt" | sed 's/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&amp;/\&/g'
fails=$((fails + $(grep -c '^FAIL: ' "$tmp/lines.txt")))
# A console message of the report's (a script error, a CSP refusal) fails.
if grep 'CONSOLE' "$tmp/chrome.log" | grep -q 'report.html'; then
    bad "the report wrote to the console:"; grep 'CONSOLE' "$tmp/chrome.log" | head -n 5
else
    ok "no console message from report.html"
fi
for size in 1280x800 390x844; do
    # shellcheck disable=SC2086
    timeout 120 "$chrome" $flags --hide-scrollbars --window-size="${size%x*},${size#*x}" \
        --screenshot="$build/report-$size.png" "file://$tmp/out/report.html" \
        >/dev/null 2>&1 && [ -s "$build/report-$size.png" ] &&
        ok "screenshot $build/report-$size.png" || bad "no screenshot at $size"
done

[ "$fails" -eq 0 ] || { echo "report browser: $fails check(s) failed"; exit 1; }
echo "report browser: all checks passed"
