#!/usr/bin/env bash
# A visitor's own session on the simulated kiosk's page in a real browser (Debian's chromium and chromium-driver,
# driven by Selenium), then the same scenario with the two physical buttons only: Tests/browser/visitor_session.py
# says what it checks. Screenshots of every view are kept in .build/test-artefacts/visitor-session/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

for tool in chromium chromedriver zbarimg; do
    command -v "$tool" >/dev/null || { echo "60-visitor-session-browser: FAIL: $tool is missing (board/kiosk-dev test installs it)" >&2; exit 1; }
done
/usr/bin/python3 -c 'import selenium, cryptography' 2>/dev/null \
    || { echo "60-visitor-session-browser: FAIL: python3-selenium or python3-cryptography is missing" >&2; exit 1; }

swift build --product kiosk -q
# The health authority's command signs the warnings package the browser test loads from a "USB stick".
swift build --product kiosk-authority -q
kiosk="$(swift build --show-bin-path)/kiosk"
artefacts=.build/test-artefacts/visitor-session
rm -rf "$artefacts"
mkdir -p "$artefacts"
/usr/bin/python3 Tests/browser/visitor_session.py "$kiosk" "$artefacts"
