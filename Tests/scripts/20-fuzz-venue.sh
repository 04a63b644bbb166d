#!/usr/bin/env bash
# Fuzzes the venue code parser with libFuzzer + AddressSanitizer for a bounded time; any crash, sanitizer report or
# broken invariant (see Tests/Helpers/kiosk-fuzz-venue) fails the step.
#
#   Tests/scripts/20-fuzz-venue.sh [seconds]     default 75; FUZZ_CONFIGURATION=release for a faster fuzzer
#                                                (slower build: ~8 min instead of ~4 on 2 cores)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

seconds=${1:-${FUZZ_SECONDS:-75}}
configuration=${FUZZ_CONFIGURATION:-debug}
flags=(-c "$configuration" --scratch-path .build-fuzz --product kiosk-fuzz-venue
       -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -DKIOSK_FUZZ)

echo "20-fuzz-venue: building the fuzz target ($configuration, .build-fuzz/)" >&2
# gold warns about every ASan helper symbol it cannot export; that noise is not a problem.
swift build "${flags[@]}" -q 2> >(grep -v "Cannot export local symbol" >&2)
fuzzer="$(swift build "${flags[@]}" --show-bin-path)/kiosk-fuzz-venue"
[ -x "$fuzzer" ] || { echo "20-fuzz-venue: FAIL: no fuzzer binary at $fuzzer" >&2; exit 1; }

work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir "$work/corpus"
# The committed corpus is read only; new inputs go to the temporary corpus, crash reproducers to $work.
set +e
(cd "$work" && "$fuzzer" -max_total_time="$seconds" -max_len=4096 -timeout=5 -print_final_stats=1 \
    "$work/corpus" "$OLDPWD/Tests/Fuzz/venue-corpus" > "$work/log.txt" 2>&1)
rc=$?
set -e
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log.txt")
if [ $rc -ne 0 ] || ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* >/dev/null 2>&1; then
    tail -n 60 "$work/log.txt" >&2
    for reproducer in "$work"/crash-* "$work"/leak-* "$work"/timeout-*; do
        [ -e "$reproducer" ] || continue
        mkdir -p .build-fuzz/reproducers && cp "$reproducer" .build-fuzz/reproducers/
        echo "20-fuzz-venue: reproducer kept in .build-fuzz/reproducers/$(basename "$reproducer")" >&2
    done
    echo "20-fuzz-venue: FAIL (libFuzzer exit $rc after ${runs:-?} inputs)" >&2
    exit 1
fi
[ -n "$runs" ] && [ "$runs" -gt 0 ] || { tail -n 20 "$work/log.txt" >&2; echo "20-fuzz-venue: FAIL: the fuzzer ran no input" >&2; exit 1; }
echo "20-fuzz-venue: ok, $runs inputs in ${seconds}s without a crash"
