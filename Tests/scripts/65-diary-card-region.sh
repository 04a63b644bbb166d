#!/usr/bin/env bash
# One diary card walking through three simulated kiosks of a region (docs/diary-card.md), each `kiosk run
# --simulate` with its own SoftHSM2 token holding the region's keys (set up at A with `kiosk region`, exported,
# imported at B and C) and its own venue. The card's memory is a file the three share (`--cards-dir`).
#
# Made a diary card at A and checked in there; checked in at B (which ends A's stay); at C, which loaded a warning
# about A's venue from the authority's folder (a USB stick), the tap checks in, says there is news for the card and
# nothing more, and the holder's session shows the three stays and the warning, then deletes B's stay. Afterwards
# no state directory holds a byte of the card's stays: no other kiosk's venue name, not the card's UID (the
# forensic scan reads every file, the logs included).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
name=65-diary-card-region
fail() { echo "$name: FAIL: $*" >&2; exit 1; }

for tool in softhsm2-util openssl zbarimg; do
    command -v "$tool" >/dev/null || fail "$tool is missing (board/kiosk-dev test installs it)"
done
swift build --product kiosk -q
swift build --product kiosk-authority -q
bin="$(swift build --show-bin-path)"
kiosk="$bin/kiosk"
authority="$bin/kiosk-authority"

work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

# The authority, and the custodians' two components of the region's wrapping key.
"$authority" init --dir "$work/authority" > "$work/authority-public-key.pem"
openssl rand -hex 16 > "$work/component-1"
openssl rand -hex 16 > "$work/component-2"
mkdir -p "$work/cards"

# Each kiosk: a SoftHSM2 token of its own, the PINs as credentials, a configuration with the region.
for k in a b c; do
    dir="$work/$k"
    mkdir -p "$dir/tokens" "$dir/credentials"
    printf 'directories.tokendir = %s\nobjectstore.backend = file\nlog.level = ERROR\n' "$dir/tokens" > "$dir/softhsm2.conf"
    SOFTHSM2_CONF="$dir/softhsm2.conf" softhsm2-util --init-token --free --label kiosk-region \
        --so-pin 87654321 --pin 123456 >/dev/null
    printf 123456 > "$dir/credentials/region-pin"
    printf 87654321 > "$dir/so-pin"
    cp "$work/authority-public-key.pem" "$dir/credentials/authority-public-key.pem"
    cat > "$dir/kiosk.json" <<JSON
{"region": {"name": "Ticino"},
 "warnings": {"baseURL": "http://127.0.0.1:9/warnings", "keepRegion": true}}
JSON
    SOFTHSM2_CONF="$dir/softhsm2.conf" "$kiosk" region install-wrapping-key --config "$dir/kiosk.json" \
        --credentials "$dir/credentials" --component "$work/component-1" --component "$work/component-2" \
        --so-pin-file "$dir/so-pin" >/dev/null
done
SOFTHSM2_CONF="$work/a/softhsm2.conf" "$kiosk" region init --config "$work/a/kiosk.json" \
    --credentials "$work/a/credentials" >/dev/null
SOFTHSM2_CONF="$work/a/softhsm2.conf" "$kiosk" region export --config "$work/a/kiosk.json" \
    --credentials "$work/a/credentials" --to "$work/ticino.keys" >/dev/null
for k in b c; do
    SOFTHSM2_CONF="$work/$k/softhsm2.conf" "$kiosk" region import --config "$work/$k/kiosk.json" \
        --credentials "$work/$k/credentials" "$work/ticino.keys" >/dev/null
done

for k in a b c; do
    dir="$work/$k"
    SOFTHSM2_CONF="$dir/softhsm2.conf" CREDENTIALS_DIRECTORY="$dir/credentials" \
        "$kiosk" run --simulate --config "$dir/kiosk.json" --state-dir "$dir/state" --web off --metrics off \
        --log-level info > "$dir/log" 2>&1 &
    pids+=($!)
    declare "pid_$k=$!"
done
# Each kiosk answers once it is up: waited for as long as its process lives (no deadline a slow board could miss).
for k in a b c; do
    pid="pid_$k"
    until "$kiosk" simulate status --state-dir "$work/$k/state" >/dev/null 2>&1; do
        kill -0 "${!pid}" 2>/dev/null || fail "kiosk $k exited: $(tail -5 "$work/$k/log")"
        sleep 0.1
    done
    "$kiosk" simulate status --state-dir "$work/$k/state" | grep -q "region: ok" \
        || fail "kiosk $k did not open its region's token: $("$kiosk" simulate status --state-dir "$work/$k/state")"
done

sim() { local k=$1 command=$2; shift 2; "$kiosk" simulate "$command" --state-dir "$work/$k/state" "$@"; }
expect() { # expect WHAT OUTPUT PATTERN
    grep -q -- "$3" <<< "$2" || fail "$1: expected '$3' in: $2"
}

# Below, the kiosks' clocks run up to an hour and a quarter ahead of the real time, each its own way; a stay at one and
# its report at another must not straddle midnight UTC (the pieces of a split stay fall on two days, each with its
# own risk by the report's day): near midnight, every kiosk starts a few minutes after it.
skew=0
minute=$(( $(date -u +%s) % 86400 / 60 ))
if [ "$minute" -ge $((22 * 60 + 30)) ]; then skew=$((24 * 60 + 5 - minute)); fi
if [ "$skew" -gt 0 ]; then for k in a b c; do sim "$k" advance "${skew}m" >/dev/null; done; fi

cwa_a='https://e.coronawarn.app?v=1#CAESEwgBEgdGcmlzZXVyGgZCZXJsaW4adggBEmCDAszMTXne1DAA5_YxmhRdd_NZN2VKl9L32Jl9-ZybE4b2eNIrhFOKYU4XAOHq3RPLDxdHTW6ANiO24rCOO4rj06HzcVZy3pel58-L1KSPG-_PneL2BoyZQRz3qlu2hoAaEATXwzyyIshzBHREtsdmc6kiBggBEAUYeA'
sim a staff >/dev/null
expect "A bound" "$(sim a show-code "$cwa_a")" "Venue bound"
sim a staff-menu leave >/dev/null
sim b staff >/dev/null
expect "B's venue" "$(sim b staff-menu create --description 'Biblioteca Cantonale' --address 'Viale Cattaneo 6' --type 3 --length 60)" "Biblioteca"
sim b staff-menu leave >/dev/null
sim c staff >/dev/null
expect "C's venue" "$(sim c staff-menu create --description 'Panetteria Sole' --address 'Piazza Grande 1' --type 4 --length 30)" "Panetteria"
sim c staff-menu leave >/dev/null

# A: the card is made a diary card of the region (its holder allows matching), and checks in.
cards=(--cards-dir "$work/cards")
expect "made at A" "$(sim a make-diary-card --card 1 "${cards[@]}" --matching yes)" "Diary card 1 made"
expect "tap at A" "$(sim a tap --card 1 --diary "${cards[@]}")" "Checked in"
sim a remove >/dev/null
# B, 20 minutes later (on B's clock; the simulated kiosks' clocks move apart): checked in there, A's stay ended.
sim b advance 20m >/dev/null
sim c advance 40m >/dev/null
expect "tap at B" "$(sim b tap --card 1 --diary "${cards[@]}")" "Checked in"
sim b remove >/dev/null
# Beside them at B, a visitor with B's own card (an NTAG card enrolled there).
sim b staff >/dev/null
expect "card 2 enrolled at B" "$(sim b enrol --card 2 --matching yes)" "enrolled"
sim b staff-menu leave >/dev/null
expect "card 2 at B" "$(sim b tap --card 2)" "Checked in"
sim b remove >/dev/null
# Staff at B make a factory-new DESFire card (DES master key) a diary card at the station, as on a board: staff mode,
# "enrol a card", the card on the reader. It then checks in at C.
sim b staff >/dev/null
sim b staff-menu enrol >/dev/null
expect "card 3 made at B's station" "$(sim b tap --card 3 --diary "${cards[@]}")" "Diary card made"
sim b remove >/dev/null
sim b staff-menu leave >/dev/null

# The authority warns about A's venue for the hours around the stay there; C loads it from the authority's folder.
now=$(( $(date -u +%s) + skew * 60 ))
"$authority" warn-venue --dir "$work/authority" --code "$cwa_a" --from $((now - 7200)) --to $((now + 3600)) >/dev/null
"$authority" publish --dir "$work/authority" >/dev/null
expect "C loads the warning" "$(sim c load-warnings "$work/authority/www")" "1 record\|record"

expect "card 3 at C" "$(sim c tap --card 3 --diary "${cards[@]}")" "Checked in"
sim c remove >/dev/null

# C: the tap checks in and says only that there is news for the card; the session shows the warning.
tap_c=$(sim c tap --card 1 --diary "${cards[@]}")
expect "tap at C" "$tap_c" "Checked in"
expect "news at C" "$tap_c" "news"
grep -q "Friseur" <<< "$tap_c" && fail "the public screen named the warned venue: $tap_c"
session=$(sim c choose session)
expect "session at C" "$session" "This card holds 3 stays."
expect "the warning at C" "$(sim c choose warning)" "You were at a place on a day when someone there later tested positive"
sim c choose acknowledge >/dev/null
sim c choose back >/dev/null

# The holder tests positive and shares B's stay from C, printed as QR codes.
screen=$(sim c choose share)
for _ in 1 2 3; do
    grep -q "Biblioteca" <<< "$screen" && break
    screen=$(sim c choose next-page)
done
toggle=$(grep "Biblioteca" <<< "$screen" | grep -o 'toggle:[0-9a-f]*' | head -1)
[ -n "$toggle" ] || fail "B's stay is not offered for sharing at C: $screen"
expect "B's stay chosen" "$(sim c choose "$toggle")" "1 of 3 selected"
sim c choose continue >/dev/null
sim c choose none >/dev/null
sim c choose print >/dev/null
sim c choose continue >/dev/null
expect "shared from C" "$(sim c choose yes)" "Printed on the receipt"
sim c choose done >/dev/null
sim c remove >/dev/null
# Its holder acknowledged the warning at C: the card says so, and C tells it no more.
sim c advance 5m >/dev/null
again_c=$(sim c tap --card 1 --diary "${cards[@]}")
expect "tap at C again" "$again_c" "Checked out"
grep -q "news" <<< "$again_c" && fail "an acknowledged warning was told again: $again_c"
sim c remove >/dev/null

# The receipt goes to the test centre (its codes scanned, accepted, published); at B the package opens with B's
# venue: card 2, there at the same time, is warned.
receipt=$(sim c receipts | grep -o '/[^ ]*\.png' | tail -1)
mapfile -t codes < <(zbarimg --raw -q "$receipt" 2>/dev/null)
[ "${#codes[@]}" -gt 0 ] && [[ ${codes[0]} == CKPB1:* ]] || fail "the receipt's codes are no CKPB/1 batches: ${codes[*]:-none}"
"$authority" accept --dir "$work/authority" "${codes[@]}" >/dev/null
"$authority" publish --dir "$work/authority" >/dev/null
sim b load-warnings "$work/authority/www" >/dev/null
# Card 2 checks out half an hour after it checked in, so that its stay holds all of card 1's window at B however the
# report's window was aligned to 10-minute intervals (a 5-minute stay could fall beside it).
sim b advance 30m >/dev/null
expect "card 2 warned at B" "$(sim b tap --card 2)" "news"
sim b remove >/dev/null
# B now holds the warning about A's venue too; card 1's holder acknowledged it at C, and the card carries that: B,
# which never saw the card's session, does not tell it again.
tap_b=$(sim b tap --card 1 --diary "${cards[@]}")
expect "card 1 at B again" "$tap_b" "Checked in"
grep -q "news" <<< "$tap_b" && fail "a warning acknowledged at C was told again at B: $tap_b"
sim b remove >/dev/null

# The forensic scan: each kiosk's state directory (database, journal, settings, simulation files, its log) holds no
# other kiosk's venue and not the card's UID (04 44 49 00 00 00 01), in bytes or in hex.
uid_hex=04444900000001
for k in a b c; do
    case $k in
    a) own=Friseur others=("Biblioteca" "Panetteria") ;;
    b) own=Biblioteca others=("Friseur" "Panetteria") ;;
    c) own=Panetteria others=("Friseur" "Biblioteca") ;;
    esac
    files=("$work/$k/log")
    while IFS= read -r -d '' file; do files+=("$file"); done < <(find "$work/$k/state" -type f -print0)
    # The scan sees what a kiosk keeps: its own venue, to which it is bound, is there.
    grep -l -a -F -- "$own" "${files[@]}" >/dev/null 2>&1 || fail "the scan of kiosk $k does not find its own venue"
    for word in "${others[@]}"; do
        if grep -l -a -F -- "$word" "${files[@]}" >/dev/null 2>&1; then
            fail "kiosk $k keeps '$word' (another kiosk's venue): $(grep -l -a -F -- "$word" "${files[@]}")"
        fi
    done
    grep -l -a -i -F -- "$uid_hex" "${files[@]}" >/dev/null 2>&1 && fail "kiosk $k keeps the card's UID in hex"
    for file in "${files[@]}"; do
        od -An -tx1 -v "$file" | tr -d ' \n' | grep -q "$uid_hex" && fail "kiosk $k keeps the card's UID in $file"
    done
done
echo "$name: one diary card through three kiosks of a region: made and checked in at A, checked in at B, warned privately at C about A (3 stays in its session), B's stay shared from C and warning B's own card; no state directory keeps its stays or UID"
