#!/usr/bin/env bash
# No user-facing text in code: every sentence the station shows, speaks or prints comes from a language catalog
# (Sources/KioskCore/Language/catalogs/*.json). Fails on a string literal that reads as prose (two words or more) in
# the code that makes screens, speech and receipts. Not user-facing, and so not checked: key-derivation labels
# ("CheckInKiosk … v1"), log lines, and the files named in `english_only` with the reason (text for logs, the staff
# terminal and systemd only; the screen takes its words from the catalogs).
# Then the catalogs' plain words: the consent and session texts must read at least "fairly easy" in every language
# (Tools/readability/readability.py: Flesch, Amstad, Kandel-Moles and Gulpease; its thresholds and their published
# scales are written there).
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 - <<'PY'
import glob, re, sys
files = sorted(
    glob.glob("Sources/KioskCore/Station/*.swift") + glob.glob("Sources/KioskCore/Session/*.swift")
    + glob.glob("Sources/KioskCore/Language/*.swift")
    + ["Sources/KioskPrinter/StationReceipts.swift", "Sources/KioskPrinter/ReportReceipt.swift",
       "Sources/KioskDaemon/StorageWait.swift"])
# (The page, Sources/KioskDaemon/Screen, draws the screen model only: its own strings are markup and HTTP answers.)
literal = re.compile(r'"((?:[^"\\]|\\.)*)"')
prose = re.compile(r"[A-Za-zÀ-ÿ]{2,}[ ,.:;!?]+[A-Za-zÀ-ÿ]{2,}")
key = re.compile(r"^[a-z][A-Za-z]*(\.[A-Za-z]+)+$")
english_only = {
    # StationFailure's descriptions: logs and `kiosk` on the staff terminal (the screen: StationTexts.failure).
    "Sources/KioskCore/Station/StationEvent.swift",
    # venue.code refused at start: the operator's terminal and the journal.
    "Sources/KioskCore/Station/StationState+ConfiguredVenue.swift",
    # A venue draft's field rules: `kiosk` staff commands (the screen names the rules as the detail of a
    # catalog sentence).
    "Sources/KioskCore/Station/VenueDraft.swift",
}
found = []
for path in files:
    if path in english_only:
        continue
    in_block = False
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        stripped = line.strip()
        if stripped.startswith("//") or "not user-facing:" in line:
            continue
        if '"""' in line:
            in_block = not in_block if line.count('"""') == 1 else in_block
        code = line.split(" //")[0]
        if "logger." in code or "Logger(" in code or "notifier." in code:
            continue
        for match in literal.finditer(code):
            text = re.sub(r"\\\(.*?\)", "", match.group(1))
            if key.match(text) or text.startswith("key:") or re.match(r"^CheckInKiosk .* v\d+$", text):
                continue
            if prose.search(text):
                found.append(f"{path}:{number}: {match.group(1)[:80]}")
if found:
    print("07-texts: user-facing text in code (move it to the catalogs, or say why it is not user-facing):")
    print("\n".join(found))
    sys.exit(1)
print(f"07-texts: {len(files)} files make screens, speech and receipts from the catalogs only")
PY
# Plain words: a consent or session group below its language's threshold fails (python3's standard library only).
python3 Tools/readability/readability.py --check --lowest 0
