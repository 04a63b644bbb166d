#!/usr/bin/env bash
# The station on a Pi's budget, briefly: Tools/pi-budget --short runs the release kiosk (built by 05-architecture,
# the board's build) under the Raspberry Pi Zero 2 W profile's CPU quota and memory limit when a cgroup can be made
# (root), else without a quota: the camera fed 1280x720 frames at 30 fps, 20 taps at a person's pace, the page
# polled, two codes held up, speech asked twice. Fails only on a hang, a kiosk that died or a missed code, never on a
# time: a change that starves the station shows up here; the numbers are for BENCHMARKS.md ("A Pi's budget").
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
say() { printf '55-pi-budget: %s\n' "$*" >&2; }

. Tests/scripts/install-missing.sh
install_missing sysbench

kiosk="$(swift build -c release --show-bin-path)/kiosk"
if [ ! -x "$kiosk" ]; then
    swift build -c release --product kiosk --static-swift-stdlib -q
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! Tools/pi-budget/pi-budget --profile pi-zero-2w --short --kiosk "$kiosk" > "$log" 2>&1; then
    cat "$log" >&2
    say "FAILED"
    exit 1
fi
sed 's/^/  /' "$log" >&2
say "passed"
