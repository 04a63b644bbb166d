#!/usr/bin/env bash
# Power cuts for real, five of them: the store on an ext4 disk image inside the test VM, the VM (QEMU's process)
# killed at random moments during a burst of taps (the fifth from the boot on), then booted again to check the store's
# integrity and that every tap acknowledged before the cut is there (board/tools/power-cut; the 100-cut run is in
# BENCHMARKS.md). About a minute on an idle machine (six boots under software emulation), 2–3 minutes under load.
# Fails loudly when QEMU, busybox, e2fsprogs or a test kernel cannot be had; never passes without the cuts.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
say() { printf '45-power-cut: %s\n' "$*" >&2; }

. Tests/scripts/install-missing.sh
install_missing qemu-system-x86 busybox-static e2fsprogs

swift build --product kiosk-store-stress -q
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
board/tools/power-cut --cuts "${KIOSK_POWER_CUTS:-5}" --burst 1 \
    --stress "$(swift build --show-bin-path)/kiosk-store-stress" > "$log" 2>&1 || status=$?
result=$(grep -a '^POWER-CUT:' "$log" | tail -n 1 || true)
if [ "$status" -ne 0 ] || [ "${result#POWER-CUT: PASS}" = "$result" ]; then
    cat "$log" >&2
    say "FAILED (exit $status): ${result:-no result line; see above}"
    exit 1
fi
grep -a '^power-cut: cut ' "$log" >&2 || true
say "$result"
