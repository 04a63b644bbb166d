#!/usr/bin/env bash
# `kiosk decode` end to end: a PNG that qrencode makes from CWA's example URL gives the same locationIdHex as the
# URL itself; no code, garbage text and multi-code images behave as documented.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

for tool in qrencode pngtopnm; do
    command -v "$tool" >/dev/null || { echo "10-kiosk-decode: $tool is missing (install qrencode and netpbm)" >&2; exit 1; }
done
swift build --product kiosk -q
kiosk="$(swift build --show-bin-path)/kiosk"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "10-kiosk-decode: FAIL: $*" >&2; exit 1; }

url='https://e.coronawarn.app?v=1#CAESEwgBEgdGcmlzZXVyGgZCZXJsaW4adggBEmCDAszMTXne1DAA5_YxmhRdd_NZN2VKl9L32Jl9-ZybE4b2eNIrhFOKYU4XAOHq3RPLDxdHTW6ANiO24rCOO4rj06HzcVZy3pel58-L1KSPG-_PneL2BoyZQRz3qlu2hoAaEATXwzyyIshzBHREtsdmc6kiBggBEAUYeA'
qrencode -o "$tmp/seed.png" -s 4 "$url"
pngtopnm "$tmp/seed.png" > "$tmp/seed.pgm"

id_of() { sed -n 's/^ *"locationIdHex" : "\([0-9a-f]*\)",*$/\1/p'; }
from_url=$("$kiosk" decode --json "$url" | id_of)
from_png=$("$kiosk" decode --json "$tmp/seed.png" | id_of)
from_pgm=$("$kiosk" decode --json "$tmp/seed.pgm" | id_of)
[ ${#from_url} -eq 64 ] || fail "no locationIdHex for the URL"
[ "$from_png" = "$from_url" ] || fail "PNG gives $from_png, URL gives $from_url"
[ "$from_pgm" = "$from_url" ] || fail "PGM gives $from_pgm, URL gives $from_url"

text=$("$kiosk" decode "$tmp/seed.png")
for expected in "Corona-Warn-App" "Friseur" "Berlin" "Craft business" "120 minutes" "$from_url"; do
    grep -qF "$expected" <<<"$text" || fail "human output lacks '$expected'"
done

# Two codes in one image: both are printed.
qrencode -o "$tmp/other.png" -s 4 'https://example.org/not-a-venue'
pngtopnm "$tmp/other.png" > "$tmp/other.pgm"
pnmcat -lr -white "$tmp/seed.pgm" "$tmp/other.pgm" > "$tmp/two.pgm"
set +e
two=$("$kiosk" decode "$tmp/two.pgm"); rc=$?
set -e
[ $rc -eq 2 ] || fail "an image with a non-venue code should exit 2, got $rc"
grep -qF "Code 2 of 2" <<<"$two" || fail "both codes of an image are not printed"
grep -qF "$from_url" <<<"$two" || fail "the venue of a two-code image is missing"
grep -qF "not a venue code" <<<"$two" || fail "the non-venue code is not explained"

# No code at all: says so, exits 1.
pgmmake 1 100 100 > "$tmp/blank.pgm"
set +e
msg=$("$kiosk" decode "$tmp/blank.pgm" 2>&1); rc=$?
set -e
[ $rc -eq 1 ] || fail "an image without a code should exit 1, got $rc"
grep -qiF "No QR code" <<<"$msg" || fail "no-code message missing"

# Unknown text: clear message, non-zero.
set +e
msg=$("$kiosk" decode 'hello world' 2>&1); rc=$?
set -e
[ $rc -eq 2 ] || fail "unknown text should exit 2, got $rc"
grep -qF "not a venue code" <<<"$msg" || fail "unknown-text message missing"

echo "10-kiosk-decode: ok (locationIdHex $from_url from URL, PNG and PGM)"
