#!/usr/bin/env bash
# docs/PRIVACY.md maps every requirement of the Off-Device Venue Check-Ins specification to its code and the tests
# that prove it. This step fails when a test it names (`Suite/test`) is not among the package's tests, when a script
# it names (`Tests/scripts/NN-name.sh`) or a source file (`Sources/…`) does not exist, or when a requirement row has
# no status or neither a test nor a reason.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

fail() { echo "06-privacy-conformance: FAILED: $*" >&2; exit 1; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

swift test list --skip-build > "$work/tests" 2> "$work/list.err" \
    || { cat "$work/list.err" >&2; fail "swift test list did not run (build the tests first)"; }
[ -s "$work/tests" ] || fail "swift test list listed no tests"

cat > "$work/check.py" <<'PY'
import os, re, sys

doc, listing, minimum = sys.argv[1], sys.argv[2], int(sys.argv[3])
tests = set()
for line in open(listing, encoding="utf-8"):
    line = line.strip()
    # "Module.Suite/test(arguments:)" → "Suite/test"; a nested suite ("Module.Outer/Inner/test(…)") by its own name
    match = re.match(r"^[A-Za-z0-9_]+\.(?:[A-Za-z0-9_]+/)*([A-Za-z0-9_]+)/([A-Za-z0-9_]+)\(", line)
    if match:
        tests.add(match.group(1) + "/" + match.group(2))

text = open(doc, encoding="utf-8").read()
problems = []
named_tests = set(re.findall(r"`([A-Z][A-Za-z0-9_]*Tests/[a-z][A-Za-z0-9_]*)`", text))
for name in sorted(named_tests - tests):
    problems.append(f"no test {name}")
for path in sorted(set(re.findall(r"`((?:Tests/scripts|Sources|board|docs)/[^`\s]+)`", text))):
    if not os.path.exists(path.split(":")[0]):
        problems.append(f"no file {path}")

statuses = {"met", "partly met", "not met", "does not apply"}
rows = 0
for line in text.splitlines():
    cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("| ") else []
    if len(cells) != 4 or cells[0] in ("requirement", "") or set(cells[0]) <= {"-"}:
        continue
    rows += 1
    requirement, status, where, proof = cells
    if status.strip("*") not in statuses:
        problems.append(f"{requirement}: status \"{status}\" is not one of {sorted(statuses)}")
    if not re.search(r"`[A-Z][A-Za-z0-9_]*Tests/[a-z]", proof) and "Tests/scripts/" not in proof \
            and status.strip("*") not in ("does not apply", "not met"):
        problems.append(f"{requirement}: no test named")
if rows < minimum:
    problems.append(f"only {rows} requirement rows (every numbered requirement has one)")
for problem in problems:
    print(f"06-privacy-conformance: {doc}:", problem, file=sys.stderr)
if problems:
    sys.exit(1)
print(f"06-privacy-conformance: {doc}: {rows} requirements, {len(named_tests)} named tests, all present")
PY
python3 "$work/check.py" docs/PRIVACY.md "$work/tests" 40 || fail "docs/PRIVACY.md names what does not exist (above)"
# The same form for the accessibility rules a self-service terminal must meet (EN 301 549 clause 5 and the rest).
python3 "$work/check.py" docs/ACCESSIBILITY.md "$work/tests" 20 \
    || fail "docs/ACCESSIBILITY.md names what does not exist (above)"
