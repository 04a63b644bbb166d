#!/usr/bin/env bash
# libnfc's own tools (Debian's libnfc-bin) against the PN532 emulator on a pseudo-terminal: nfc-list must list the
# emulated NTAG215's UID and nfc-mfultralight must read all of its 135 pages. That is the proof the emulator behaves
# like a PN532 as far as libnfc is concerned.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

fail() { echo "30-nfc-tools: FAILED: $*" >&2; exit 1; }
for tool in nfc-list nfc-mfultralight timeout xxd; do
    command -v "$tool" >/dev/null || fail "$tool is not installed (board/kiosk-dev installs libnfc-bin and xxd)"
done

swift build --product pn532-emulator -q
emulator="$(swift build --show-bin-path)/pn532-emulator"
[ -x "$emulator" ] || fail "pn532-emulator was not built"

work=$(mktemp -d)
pid=""
cleanup() {
    exec 3>&- 2>/dev/null || true
    [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

uid=04a1b2c3d4e5f6
mkfifo "$work/control"
timeout -s KILL 120 "$emulator" --link "$work/pn532" --card ntag215 --uid "$uid" --exit-after 110 \
    < "$work/control" > "$work/emulator.out" 2> "$work/emulator.err" &
pid=$!
exec 3> "$work/control"
for _ in $(seq 100); do
    grep -q '^ready ' "$work/emulator.out" 2>/dev/null && break
    sleep 0.1
done
grep -q '^ready ' "$work/emulator.out" || fail "the emulator did not start: $(cat "$work/emulator.err")"

# libnfc reads /etc/nfc/libnfc.conf, but these variables override it: exactly this device, no scanning.
export LIBNFC_DEFAULT_DEVICE="pn532_uart:$work/pn532" LIBNFC_AUTO_SCAN=false LIBNFC_INTRUSIVE_SCAN=false

timeout -s KILL 20 nfc-list > "$work/list.txt" 2>&1 || fail "nfc-list failed: $(cat "$work/list.txt")"
grep -q 'UID (NFCID1): 04  a1  b2  c3  d4  e5  f6' "$work/list.txt" || fail "nfc-list did not list the card: $(cat "$work/list.txt")"
echo "30-nfc-tools: nfc-list lists the emulated NTAG215"

timeout -s KILL 30 nfc-mfultralight r "$work/dump.mfd" > "$work/read.txt" 2>&1 || fail "nfc-mfultralight failed: $(cat "$work/read.txt")"
grep -q 'NTAG215' "$work/read.txt" || fail "nfc-mfultralight did not identify an NTAG215: $(cat "$work/read.txt")"
grep -q '135 of 135 pages read' "$work/read.txt" || fail "nfc-mfultralight did not read every page: $(cat "$work/read.txt")"
dump=$(xxd -p -l 16 "$work/dump.mfd")
# Pages 0-1 hold UID0-2, BCC0, UID3-6; page 3 the NTAG215 capability container E1 10 3E 00.
[ "${dump:0:6}${dump:8:8}" = "$uid" ] || fail "the dump does not start with the UID: $dump"
[ "${dump:24:8}" = "e1103e00" ] || fail "the dump has no NTAG215 capability container: $dump"
echo "30-nfc-tools: nfc-mfultralight read 135 pages with the right UID"

# With the card taken away, nfc-list finds nothing.
echo remove >&3
sleep 0.2
timeout -s KILL 20 nfc-list > "$work/empty.txt" 2>&1 || fail "nfc-list failed without a card: $(cat "$work/empty.txt")"
if grep -q 'UID (NFCID1)' "$work/empty.txt"; then fail "nfc-list listed a card that was removed"; fi
echo "30-nfc-tools: passed"
