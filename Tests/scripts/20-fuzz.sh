#!/usr/bin/env bash
# Fuzzes every parser of outside input with libFuzzer + AddressSanitizer, each target for a bounded time: builds
# `kiosk-fuzz` once (Tests/Helpers/kiosk-fuzz; KIOSK_FUZZ_TARGET picks the parser), then runs each target from its
# committed corpus `Tests/Fuzz/<target>-corpus`. Any crash, sanitizer report, leak, timeout or broken invariant fails
# the step; reproducers are kept in .build-fuzz/reproducers/.
#
#   Tests/scripts/20-fuzz.sh [seconds-per-target [target…]]
#       default 10 s for each of the 15 targets (about 3 minutes after the build); FUZZ_SECONDS sets it too.
#       FUZZ_CONFIGURATION=release for a faster fuzzer (slower build: ~20 min cold instead of ~10 on a loaded
#       2-core machine).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

seconds=${1:-${FUZZ_SECONDS:-10}}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(venue card card-code batch ckpr upload ckpw crowdnotifier warnings-index zip cwa control http config region-keys)
configuration=${FUZZ_CONFIGURATION:-debug}
flags=(-c "$configuration" --scratch-path .build-fuzz --product kiosk-fuzz
       -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -DKIOSK_FUZZ)

echo "20-fuzz: building the fuzz targets ($configuration, .build-fuzz/)" >&2
# gold warns about every ASan helper symbol it cannot export; that noise is not a problem.
swift build "${flags[@]}" -q 2> >(grep -v "Cannot export local symbol" >&2)
fuzzer="$(swift build "${flags[@]}" --show-bin-path)/kiosk-fuzz"
[ -x "$fuzzer" ] || { echo "20-fuzz: FAIL: no fuzzer binary at $fuzzer" >&2; exit 1; }

work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
failed=()
total=0
for target in "${targets[@]}"; do
    corpus="Tests/Fuzz/$target-corpus"
    [ -d "$corpus" ] || { echo "20-fuzz: FAIL: no corpus $corpus" >&2; exit 1; }
    run="$work/$target"
    mkdir -p "$run/corpus"
    # The committed corpus is read only; new inputs go to the temporary corpus, crash reproducers to $run.
    set +e
    (cd "$run" && KIOSK_FUZZ_TARGET="$target" "$fuzzer" -max_total_time="$seconds" -timeout=5 -print_final_stats=1 \
        "$run/corpus" "$OLDPWD/$corpus" > "$run/log.txt" 2>&1)
    rc=$?
    set -e
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$run/log.txt")
    if [ $rc -ne 0 ] || ls "$run"/crash-* "$run"/leak-* "$run"/timeout-* "$run"/oom-* >/dev/null 2>&1; then
        tail -n 60 "$run/log.txt" >&2
        for reproducer in "$run"/crash-* "$run"/leak-* "$run"/timeout-* "$run"/oom-*; do
            [ -e "$reproducer" ] || continue
            mkdir -p .build-fuzz/reproducers && cp "$reproducer" ".build-fuzz/reproducers/$target-$(basename "$reproducer")"
            echo "20-fuzz: reproducer kept in .build-fuzz/reproducers/$target-$(basename "$reproducer")" >&2
        done
        echo "20-fuzz: $target FAILED (libFuzzer exit $rc after ${runs:-?} inputs)" >&2
        failed+=("$target")
        continue
    fi
    if [ -z "$runs" ] || [ "$runs" -eq 0 ]; then
        tail -n 20 "$run/log.txt" >&2
        echo "20-fuzz: $target FAILED: the fuzzer ran no input" >&2
        failed+=("$target")
        continue
    fi
    total=$((total + runs))
    echo "20-fuzz: $target ok, $runs inputs in ${seconds}s"
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "20-fuzz: FAIL: ${failed[*]} (replay a reproducer: swift run kiosk-fuzz TARGET FILE)" >&2
    exit 1
fi
echo "20-fuzz: ok, ${#targets[@]} targets, $total inputs without a crash"
