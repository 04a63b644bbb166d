#!/usr/bin/env bash
# A day at a venue on a simulated kiosk, in about a minute: staff sets the kiosk up, visitors check in and out with
# their cards, one forgets to check out, the clock moves on, and after 14 days everything is gone.
#
#   board/demo/full-day.sh PATH/TO/kiosk [STATE_DIR]
#
# The kiosk keeps running afterwards (Ctrl-C stops it); drive it further with
#   kiosk simulate tap --card 1 --state-dir STATE_DIR
set -euo pipefail

kiosk=${1:?usage: full-day.sh PATH/TO/kiosk [STATE_DIR]}
state=${2:-${XDG_STATE_HOME:-$HOME/.local/state}/kiosk-demo}
rm -rf "$state"
mkdir -p "$state"

"$kiosk" run --simulate --state-dir "$state" --log-level warning &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null' INT TERM

sim() { local command=$1; shift; "$kiosk" simulate "$command" --state-dir "$state" "$@" || true; }
step() { printf '\n\033[1m%s\033[0m\n' "$*"; }
pause() { sleep "${DEMO_PAUSE:-1}"; }

for _ in $(seq 1 100); do
    "$kiosk" simulate status --state-dir "$state" >/dev/null 2>&1 && break
    sleep 0.1
done

step "07:30  Staff opens staff mode with the staff code, and shows the venue's QR poster (a CWA code)"
sim staff
sim show-code 'https://e.coronawarn.app?v=1#CAESEwgBEgdGcmlzZXVyGgZCZXJsaW4adggBEmCDAszMTXne1DAA5_YxmhRdd_NZN2VKl9L32Jl9-ZybE4b2eNIrhFOKYU4XAOHq3RPLDxdHTW6ANiO24rCOO4rj06HzcVZy3pel58-L1KSPG-_PneL2BoyZQRz3qlu2hoAaEATXwzyyIshzBHREtsdmc6kiBggBEAUYeA'
pause
step "07:35  Staff enrols three cards for visitors without smartphones (each gets a personal QR card too);"
step "       each new holder answers on the screen whether the kiosk may check their stays against warnings"
sim enrol --card 1 --matching yes --pin 2580
sim enrol --card 2 --matching yes
sim enrol --card 3 --matching no
sim staff-menu leave
pause
step "08:00  Anna (card 1), Ben (card 2) and Carla (card 3) arrive and tap"
for card in 1 2 3; do sim tap --card "$card"; done
sim remove
pause
step "08:05  Someone shows the venue's poster again: it is not a check-in"
sim show-code 'https://e.coronawarn.app?v=1#CAESEwgBEgdGcmlzZXVyGgZCZXJsaW4adggBEmCDAszMTXne1DAA5_YxmhRdd_NZN2VKl9L32Jl9-ZybE4b2eNIrhFOKYU4XAOHq3RPLDxdHTW6ANiO24rCOO4rj06HzcVZy3pel58-L1KSPG-_PneL2BoyZQRz3qlu2hoAaEATXwzyyIshzBHREtsdmc6kiBggBEAUYeA'
step "08:06  A bank card is not a kiosk card"
sim tap --foreign
pause
step "09:30  Anna and Ben leave and tap again; Carla forgets"
sim advance 90m
for card in 1 2; do sim tap --card "$card"; done
sim remove
pause
step "09:32  Ben keeps his card on the reader and chooses “My check-ins”: only he sees his stays"
sim tap --card 2
sim choose session
sim choose done
sim remove
step "09:33  Anna opens her check-ins with her PIN and deletes her stay"
sim choose session
sim tap --card 1
sim type 2580
sim choose delete
sim choose delete-all
sim choose delete
sim choose done
sim remove
pause
step "Later: the venue's rule ends Carla's stay by itself"
sim advance 8h
sim status
pause
step "Fifteen days later: every stay has been deleted"
sim advance 15d
sim status
step "Lights and sounds shown today"
sim lights | tail -n 5
step "Receipts printed (as files)"
sim receipts | head -n 20

printf '\nThe simulated kiosk keeps running. In another terminal, try:\n'
printf '  %s simulate tap --card 1 --state-dir %s\n' "$kiosk" "$state"
printf '  %s simulate choose session --state-dir %s   (then tap a card: its holder'"'"'s own check-ins)\n' "$kiosk" "$state"
printf 'Ctrl-C stops it.\n'
wait $pid
