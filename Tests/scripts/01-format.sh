#!/usr/bin/env bash
# Every Swift file of the project is formatted as `.swift-format` says (120 columns, ordered imports, …): fails, naming
# each place, when one is not. The generated protobuf messages (Sources/KioskProto) are left as protoc wrote them.
# To fix: swift format format -i -p $(Tests/scripts/01-format.sh --list)
set -euo pipefail
cd "$(dirname "$0")/../.."

files=()
while IFS= read -r -d '' file; do files+=("$file"); done < <(
    find Package.swift Sources Tests Tools -name '*.swift' -not -path 'Sources/KioskProto/*' -print0 | sort -z)
if [ "${1:-}" = "--list" ]; then
    printf '%s\n' "${files[@]}"
    exit 0
fi
if ! swift format --version >/dev/null 2>&1; then
    echo "01-format: FAILED: 'swift format' is not available (it ships with the Swift toolchain since 6.0)" >&2
    exit 1
fi
if ! swift format lint --strict --parallel "${files[@]}"; then
    echo "01-format: FAILED: the files above are not formatted (swift format format -i -p \$(Tests/scripts/01-format.sh --list))" >&2
    exit 1
fi
echo "01-format: ${#files[@]} Swift files formatted as .swift-format says"
