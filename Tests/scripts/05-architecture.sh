#!/usr/bin/env bash
# The package's dependency rules (docs/ARCHITECTURE.md): the core imports no C and no I/O module, a device module
# (KioskOpenSSL, KioskSodium, KioskNFC, KioskGPIO, KioskStore, KioskZip, KioskCamera, KioskPrinter, KioskHTTP,
# KioskSpeech, KioskPKCS11: the list is DEVICE_OWNERS in check-architecture.py) imports only the core and its own C module, the daemon never reaches the simulation, the authority, Hummingbird or
# NIO, production code never links test support; then the release `kiosk` executable is built and must contain no
# Hummingbird or NIO symbol (the debug `kiosk-authority`, which serves with Hummingbird, must: the symbol check
# itself is checked).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

fail() { echo "05-architecture: FAILED: $*" >&2; exit 1; }
command -v nm >/dev/null || fail "nm is not installed (binutils)"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

swift package describe --type json > "$work/describe.json" 2> "$work/describe.err" \
    || { cat "$work/describe.err" >&2; fail "swift package describe did not run"; }
python3 Tests/scripts/check-architecture.py "$work/describe.json" . || fail "a dependency rule is broken (above)"

frameworks='7NIOCore|8NIOPosix|9NIOHTTP1|11Hummingbird|15AsyncHTTPClient'
swift build --product kiosk-authority -q
authority="$(swift build --show-bin-path)/kiosk-authority"
# grep reads all of nm's output (no -q: an early exit would end nm with SIGPIPE, which pipefail reports as no match).
nm "$authority" > "$work/authority-symbols" 2>/dev/null || fail "nm cannot read $authority"
[ "$(grep -Ec "$frameworks" "$work/authority-symbols" || true)" -gt 0 ] \
    || fail "the symbol check finds no Hummingbird or NIO symbol even in kiosk-authority: the check is broken"

echo "05-architecture: building the release kiosk (the board's build, docs/board.md)" >&2
swift build -c release --product kiosk --static-swift-stdlib -q
kiosk="$(swift build -c release --show-bin-path)/kiosk"
[ -x "$kiosk" ] || fail "no release kiosk at $kiosk"
nm "$kiosk" > "$work/kiosk-symbols" 2>/dev/null || fail "nm cannot read $kiosk"
if grep -E "$frameworks" "$work/kiosk-symbols" > "$work/symbols"; then
    head -n 5 "$work/symbols" >&2
    fail "the release kiosk contains $(wc -l < "$work/symbols") Hummingbird or NIO symbols (first above)"
fi
echo "05-architecture: passed (release kiosk: $(du -h "$kiosk" | cut -f1), no Hummingbird or NIO symbol)"
