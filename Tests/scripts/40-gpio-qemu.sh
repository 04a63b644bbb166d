#!/usr/bin/env bash
# Runs the libgpiod owner (KioskGPIO) for real against a simulated GPIO chip (gpio-sim) in a QEMU VM: outputs driven
# and read back, input edges, button debounce, error paths. See Tests/Helpers/kiosk-gpio-check/main.swift for the checks.
# Fails loudly when QEMU, busybox or a test kernel cannot be had; never passes without running the checks.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
say() { printf '40-gpio-qemu: %s\n' "$*" >&2; }

. Tests/scripts/install-missing.sh
install_missing qemu-system-x86 busybox-static

swift build --product kiosk-gpio-check -q
check="$(swift build --show-bin-path)/kiosk-gpio-check"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
board/tools/run-in-test-vm --timeout 300 "$check" > "$log" 2>&1 || status=$?
result=$(grep -a '^KIOSK-GPIO-CHECK:' "$log" | tail -n 1 || true)
if [ "$status" -ne 0 ] || [ "${result#KIOSK-GPIO-CHECK: PASS}" = "$result" ]; then
    cat "$log" >&2
    say "FAILED (exit $status): ${result:-no result line from the VM; QEMU could not run the check, see above}"
    exit 1
fi
say "$result"
