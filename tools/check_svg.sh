#!/usr/bin/env bash
# Look at DGL's tape drawings as a person would: renders SVG files (by default the golden
# drawing tests/autodiff/tape_draw.svg) in headless Chromium and writes a PNG beside each
# in /tmp, to open with an image viewer. Needs Debian's `chromium` package
# (apt-get install -y chromium); the project's tests do not.
#
#   tools/check_svg.sh [file.svg ...]
#
# Exits 0 having rendered every file, 1 when Chromium fails or draws nothing, 2 when
# Chromium is not installed (the check is skipped, not failed silently).
set -euo pipefail
cd "$(dirname "$0")/.."
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then
    echo "check_svg: no chromium installed (apt-get install -y chromium); skipped" >&2
    exit 2
fi
[ $# -gt 0 ] || set -- tests/autodiff/tape_draw.svg
status=0
for svg in "$@"; do
    case "$svg" in /*) full="$svg" ;; *) full="$PWD/$svg" ;; esac
    png="/tmp/$(basename "${svg%.svg}").png"
    rm -f "$png"
    # The size of the drawing, from its svg element, so nothing is cut off.
    w=$(grep -o -m1 'width="[0-9.]*"' "$svg" | grep -o '[0-9.]*' | cut -d. -f1)
    h=$(grep -o -m1 'height="[0-9.]*"' "$svg" | grep -o '[0-9.]*' | cut -d. -f1)
    timeout 60 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --window-size="${w:-1000},${h:-800}" --screenshot="$png" "file://$full" >/dev/null 2>&1 || true
    # A drawing that rendered is more than a blank page: its PNG holds some kilobytes.
    if [ -s "$png" ] && [ "$(stat -c %s "$png")" -gt 2000 ]; then
        echo "check_svg: $svg -> $png"
    else
        echo "check_svg: $svg did not render" >&2
        status=1
    fi
done
exit $status
