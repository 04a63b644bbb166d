#!/usr/bin/env bash
# The kiosk's CrowdNotifier matching against an independent oracle: Tests/oracle/crowdnotifier_oracle.py (hashlib,
# PyNaCl and python3-cryptography, written from the specification) makes 200 random scenarios over NotifyMe v2, v3,
# v4 and SwissCovid v4 venues with signed event packages (and packages signed by another key, with a bad signature,
# or with tampered ciphertexts); CrowdNotifierOracleTests must find exactly the oracle's matches.
#
#   Tests/scripts/25-crowdnotifier-oracle.sh [scenarios [seed]]
#
# PyNaCl comes from a hash-pinned PyPI wheel, downloaded once and cached per user (as the browser step pins
# axe-core); its C part needs Debian's python3-cffi-backend.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

fail() { echo "25-crowdnotifier-oracle: FAIL: $*" >&2; exit 1; }
/usr/bin/python3 -c 'import cryptography, _cffi_backend' 2>/dev/null \
    || fail "python3-cryptography or python3-cffi-backend is missing (board/kiosk-dev test installs them)"

# PyNaCl 1.5.0, one wheel per board architecture, each pinned by its sha256.
pynacl_version=1.5.0
case "$(uname -m)" in
    x86_64) pynacl_hash=0c84947a22519e013607c9be43706dd42513f9e6ae5d39d3613ca1e142fba44d ;;
    aarch64) pynacl_hash=a36d4a9dda1f19ce6e03c9a784a2921a4b726b02e1c736600ca9c22029474394 ;;
    *) fail "no pinned PyNaCl wheel for $(uname -m)" ;;
esac
cache="${XDG_CACHE_HOME:-$HOME/.cache}/kiosk/pynacl-$pynacl_version-$(uname -m)"
if ! PYTHONPATH="$cache" /usr/bin/python3 -c 'import nacl.secret' 2>/dev/null; then
    work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
    echo "PyNaCl==$pynacl_version --hash=sha256:$pynacl_hash" > "$work/requirements.txt"
    /usr/bin/python3 -m pip download --no-deps --only-binary=:all: --require-hashes -q -d "$work/wheels" \
        -r "$work/requirements.txt" || fail "the pinned PyNaCl wheel could not be downloaded"
    rm -rf "$cache"
    /usr/bin/python3 -m pip install --no-deps --no-index --target "$cache" -q "$work"/wheels/*.whl \
        || fail "the pinned PyNaCl wheel could not be unpacked"
fi

out=.build/test-artefacts/crowdnotifier-oracle
rm -rf "$out"
mkdir -p "$out"
PYTHONPATH="$cache" /usr/bin/python3 Tests/oracle/crowdnotifier_oracle.py "$out" --scenarios "${1:-200}" \
    ${2:+--seed "$2"}

swift build --build-tests -q
KIOSK_CROWDNOTIFIER_ORACLE="$PWD/$out" swift test --skip-build --filter CrowdNotifierOracleTests 2>&1 \
    | tee "$out/swift-test.log" | grep -E "CrowdNotifierOracleTests|passed|failed|error" || true
grep -q "0 missed, 0 false matches" "$out/swift-test.log" || fail "the kiosk's matches differ from the oracle's ($out/swift-test.log)"
grep -qE "Test run with [0-9]+ tests? (in [0-9]+ suites? )?passed" "$out/swift-test.log" \
    || fail "CrowdNotifierOracleTests did not pass ($out/swift-test.log)"
echo "25-crowdnotifier-oracle: passed"
