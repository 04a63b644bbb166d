#!/usr/bin/env bash
# The files in board/ as a board would use them: the systemd unit passes `systemd-analyze verify` (with a stub
# binary in place of /usr/local/bin/kiosk) and keeps its hardening, the udev rules parse, every shell script parses,
# board/config/kiosk.json passes `kiosk config check` (and bad files and variables fail it, by key), and
# board/install.sh installs into a scratch root, changes nothing the second time and keeps a changed configuration.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

fail() { echo "50-board-files: FAILED: $*" >&2; exit 1; }
for tool in systemd-analyze sha256sum cmp; do
    command -v "$tool" >/dev/null || fail "$tool is not installed (board/kiosk-dev installs systemd)"
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# --- systemd unit ---
unit=board/systemd/kiosk.service
mkdir -p "$work/unit" "$work/bin"
printf '#!/bin/sh\nexit 0\n' > "$work/bin/kiosk"
chmod +x "$work/bin/kiosk"
grep -q '^ExecStart=/usr/local/bin/kiosk run --config /etc/kiosk/kiosk.json$' "$unit" || fail "ExecStart is not the documented command"
sed "s#^ExecStart=/usr/local/bin/kiosk #ExecStart=$work/bin/kiosk #" "$unit" > "$work/unit/kiosk.service"
# systemd-analyze exits 0 on unknown keys and bad values ("…, ignoring."), so any output is a failure too.
if ! systemd-analyze verify "$work/unit/kiosk.service" > "$work/verify.out" 2>&1; then
    fail "systemd-analyze verify refused the unit: $(cat "$work/verify.out")"
fi
if [ -s "$work/verify.out" ]; then
    # systemd-analyze needs /proc and /sys; in a container without them it says so here rather than passing.
    fail "systemd-analyze verify printed warnings: $(cat "$work/verify.out")"
fi
for directive in Type=notify NotifyAccess=main WatchdogSec= User=kiosk StateDirectory=kiosk ConfigurationDirectory=kiosk \
    LoadCredential=staff-code: DevicePolicy=closed DeviceAllow=char-gpiochip DeviceAllow=char-video4linux \
    DeviceAllow=char-usb ProtectSystem=strict ProtectHome=yes PrivateTmp=yes NoNewPrivileges=yes \
    'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6' CapabilityBoundingSet= SystemCallFilter=@system-service \
    MemoryDenyWriteExecute=yes LimitCORE=0 MemorySwapMax=0 ReadWritePaths=-/media/kiosk-usb Restart=on-failure LogNamespace=kiosk; do
    grep -q "^$directive" "$unit" || fail "the unit lacks $directive"
done
# The exposure score systemd computes for the unit (0 = fully confined, 10 = unconfined).
exposure=$(systemd-analyze security --offline=yes "$work/unit/kiosk.service" 2>/dev/null \
    | sed -n 's/.*Overall exposure level for kiosk.service: \([0-9.]*\).*/\1/p')
[ -n "$exposure" ] || fail "systemd-analyze security gave no exposure level"
awk -v e="$exposure" 'BEGIN { exit !(e <= 3.0) }' || fail "the unit's exposure level is $exposure (more than 3.0)"
echo "50-board-files: systemd-analyze verify passes; exposure level $exposure"

# --- udev rules ---
rules=board/udev/60-kiosk.rules
if udevadm verify --help >/dev/null 2>&1; then
    udevadm verify --no-style "$rules" > "$work/udev.out" 2>&1 || fail "udevadm verify: $(cat "$work/udev.out")"
    echo "50-board-files: udevadm verify passes"
else
    # udevadm verify came with systemd 254; Debian 12 has 252. Check the syntax here: every rule is a list of
    # KEY[{attr}]OP"value" separated by commas, with known keys and the operators valid for each.
    cat > "$work/udev-check.awk" <<'AWK'
        function bad(msg) { printf "%s:%d: %s\n", FILENAME, NR, msg; errors++ }
        /^[[:space:]]*(#|$)/ { next }
        {
            line = $0; n = 0
            while (length(line) > 0) {
                if (!match(line, /^[[:space:]]*[A-Z_]+(\{[^}]+\})?(==|!=|\+=|-=|:=|=)"[^"]*"[[:space:]]*(,|$)/)) {
                    bad("cannot parse: " line); break
                }
                token = substr(line, 1, RLENGTH); line = substr(line, RLENGTH + 1); n++
                match(token, /[A-Z_]+/); key = substr(token, RSTART, RLENGTH)
                match(token, /(==|!=|\+=|-=|:=|=)"/); op = substr(token, RSTART, RLENGTH - 1)
                match_keys = "ACTION DEVPATH KERNEL KERNELS NAME SYMLINK SUBSYSTEM SUBSYSTEMS DRIVER DRIVERS ATTR ATTRS ENV TAG TAGS TEST PROGRAM RESULT"
                assign_keys = "NAME SYMLINK OWNER GROUP MODE TAG ENV ATTR RUN LABEL GOTO IMPORT OPTIONS SECLABEL"
                if (op == "==" || op == "!=") {
                    if (index(" " match_keys " ", " " key " ") == 0) bad("\"" key "\" cannot be matched")
                } else if (index(" " assign_keys " ", " " key " ") == 0) {
                    bad("\"" key "\" cannot be assigned")
                }
                if (key == "GOTO") gotos[substr(token, index(token, "\"") + 1)] = NR
                if (key == "LABEL") { l = substr(token, index(token, "\"") + 1); sub(/".*/, "", l); labels[l] = 1 }
                if (key == "MODE" && token !~ /"0[0-7][0-7][0-7]"/) bad("MODE must be four octal digits")
            }
        }
        END {
            for (g in gotos) { l = g; sub(/".*/, "", l); if (!(l in labels)) { printf "GOTO \"%s\" has no LABEL\n", l; errors++ } }
            exit errors > 0
        }
AWK
    awk -f "$work/udev-check.awk" "$rules" > "$work/udev.out" 2>&1 || fail "udev rules: $(cat "$work/udev.out")"
    # The checker must catch broken rules: a match on an assign-only key, a missing comma, a bad mode, a lost GOTO.
    for broken in 'SUBSYSTEM=="tty", GROUP=="kiosk"' 'KERNEL=="ttyS0" GROUP="kiosk"' 'KERNEL=="ttyS0", MODE="660"' \
        'ACTION=="remove", GOTO="nowhere"' 'SUBSYSTEM=="tty", GROUP="kiosk' 'FOO=="bar"'; do
        printf '%s\n' "$broken" > "$work/broken.rules"
        if awk -f "$work/udev-check.awk" "$work/broken.rules" >/dev/null 2>&1; then
            fail "the udev syntax check accepts a broken rule: $broken"
        fi
    done
    echo "50-board-files: udev rules parse (udevadm verify is not in this systemd; syntax checked here)"
fi
for link in kiosk-nfc kiosk-printer kiosk-camera; do
    grep -q "SYMLINK+=\"$link\"" "$rules" || fail "the udev rules do not create /dev/$link"
done

# --- shell scripts ---
for script in board/install.sh board/kiosk-dev board/tools/regenerate-proto board/tools/run-in-test-vm \
    board/tools/power-cut board/tools/test-kernel Tests/scripts/*.sh .ci/run; do
    bash -n "$script" || fail "$script does not parse"
done
echo "50-board-files: shell scripts parse"

# --- kiosk config check ---
swift build --product kiosk -q
kiosk="$(swift build --show-bin-path)/kiosk"
mkdir -m 0700 "$work/credentials"
printf 'board-files-test-staff-code\n' > "$work/credentials/staff-code"
env -u CREDENTIALS_DIRECTORY "$kiosk" config check --config board/config/kiosk.json --credentials "$work/credentials" \
    > "$work/check.out" 2>&1 || fail "kiosk config check refused board/config/kiosk.json: $(cat "$work/check.out")"
grep -q 'configuration OK' "$work/check.out" || fail "kiosk config check did not say OK: $(cat "$work/check.out")"

expect_refusal() {  # expect_refusal NAME EXPECTED-TEXT COMMAND…
    local name=$1 expected=$2; shift 2
    set +e
    "$@" > "$work/$name.out" 2>&1
    local rc=$?
    set -e
    [ $rc -eq 2 ] || fail "$name: expected exit 2, got $rc: $(cat "$work/$name.out")"
    grep -qF -- "$expected" "$work/$name.out" || fail "$name: no \"$expected\" in: $(cat "$work/$name.out")"
}
sed -e 's#"pn532_uart:/dev/serial0"#"/dev/serial0"#' -e 's#"logLevel": "info"#"logLevel": "info", "loglevel": "debug"#' \
    board/config/kiosk.json > "$work/bad.json"
expect_refusal bad-file 'nfc.connection: expected "driver:port", got "/dev/serial0"' \
    "$kiosk" config check --config "$work/bad.json" --credentials "$work/credentials"
grep -qF 'loglevel: unknown key (did you mean "logLevel"?)' "$work/bad-file.out" || fail "the unknown key is not reported: $(cat "$work/bad-file.out")"
expect_refusal bad-env 'metrics.listen (from KIOSK_METRICS_LISTEN): "0.0.0.0:9464" is not a loopback address' \
    env KIOSK_METRICS_LISTEN=0.0.0.0:9464 "$kiosk" config check --config board/config/kiosk.json --credentials "$work/credentials"
expect_refusal no-credential 'credential staff-code: missing (needed by staff.codeCredential)' \
    "$kiosk" config check --config board/config/kiosk.json --credentials "$work/bin"
expect_refusal no-file 'cannot read /nonexistent/kiosk.json' "$kiosk" config check --config /nonexistent/kiosk.json --no-credentials

# `config show` prints every key; what it prints passes the check and gives the same output again.
KIOSK_NFC_CONNECTION=pn532_i2c:/dev/i2c-1 "$kiosk" config show --config board/config/kiosk.json > "$work/shown.json"
grep -q '"connection": "pn532_i2c:/dev/i2c-1"' "$work/shown.json" || fail "config show lacks the environment override"
grep -q '"message": ' "$work/shown.json" || fail "config show does not print defaults"
"$kiosk" config show --config "$work/shown.json" > "$work/shown-again.json"
cmp -s "$work/shown.json" "$work/shown-again.json" || fail "config show of its own output differs: $(diff "$work/shown.json" "$work/shown-again.json")"
echo "50-board-files: kiosk config check accepts board/config/kiosk.json and refuses bad files, variables and credentials"

# --- install.sh into a scratch root ---
target="$work/root"
bash board/install.sh --root "$target" --binary "$kiosk" > "$work/install1.out" 2>&1 || fail "install.sh failed: $(cat "$work/install1.out")"
# The kiosk's journal keeps no line longer than 14 days: files rotate daily, and go once their newest line is older
# than the retention (so retention + one file's span <= 14 days).
journal=board/systemd/journald@kiosk.conf
seconds() {  # a journald time span (Ns, Nmin, Nh, Nday) in seconds
    case "$1" in
        *day) echo $(( ${1%day} * 86400 )) ;; *h) echo $(( ${1%h} * 3600 )) ;;
        *min) echo $(( ${1%min} * 60 )) ;; *s) echo "${1%s}" ;; *) fail "unknown time span $1" ;;
    esac
}
retention=$(sed -n 's/^MaxRetentionSec=//p' "$journal")
file_span=$(sed -n 's/^MaxFileSec=//p' "$journal")
[ -n "$retention" ] && [ -n "$file_span" ] || fail "$journal sets no MaxRetentionSec or MaxFileSec"
[ $(( $(seconds "$retention") + $(seconds "$file_span") )) -le $(( 14 * 86400 )) ] \
    || fail "$journal keeps lines longer than 14 days ($retention + $file_span)"
echo "50-board-files: the kiosk's journal keeps lines at most 14 days ($retention + $file_span)"

for file in usr/local/bin/kiosk etc/systemd/system/kiosk.service etc/systemd/journald@kiosk.conf etc/udev/rules.d/60-kiosk.rules \
    etc/modprobe.d/blacklist-nfc.conf etc/nfc/libnfc.conf etc/kiosk/kiosk.json etc/kiosk/credentials/staff-code; do
    [ -f "$target/$file" ] || fail "install.sh did not install /$file"
done
[ -d "$target/media/kiosk-usb" ] || fail "install.sh did not create /media/kiosk-usb"
[ "$(stat -c %a "$target/etc/kiosk/credentials")" = 700 ] || fail "the credentials directory is not root-only"
[ "$(wc -c < "$target/etc/kiosk/credentials/staff-code")" -eq 24 ] || fail "the staff code is not 24 characters"
listing() { (cd "$target" && find . -printf '%p %s %m\n' | sort && find . -type f -exec sha256sum {} + | sort); }
listing > "$work/tree1"
bash board/install.sh --root "$target" --binary "$kiosk" > "$work/install2.out" 2>&1 || fail "second install.sh failed: $(cat "$work/install2.out")"
grep -q 'nothing changed' "$work/install2.out" || fail "the second run changed something: $(cat "$work/install2.out")"
listing > "$work/tree2"
cmp -s "$work/tree1" "$work/tree2" || fail "the second run changed files: $(diff "$work/tree1" "$work/tree2")"
# A changed configuration is kept; the new default goes beside it.
sed -i 's/"logLevel": "info"/"logLevel": "notice"/' "$target/etc/kiosk/kiosk.json"
cp "$target/etc/kiosk/kiosk.json" "$work/changed.json"
bash board/install.sh --root "$target" --binary "$kiosk" > "$work/install3.out" 2>&1 || fail "third install.sh failed: $(cat "$work/install3.out")"
cmp -s "$target/etc/kiosk/kiosk.json" "$work/changed.json" || fail "install.sh overwrote a changed configuration"
grep -q 'changed locally: not overwriting' "$work/install3.out" || fail "install.sh did not say it kept the configuration"
[ -f "$target/etc/kiosk/kiosk.json.new" ] || fail "install.sh did not put the new default beside the changed configuration"
# --dry-run changes nothing.
listing > "$work/tree3"
bash board/install.sh --root "$target" --binary "$kiosk" --dry-run > "$work/dry.out" 2>&1 || fail "install.sh --dry-run failed: $(cat "$work/dry.out")"
listing > "$work/tree4"
cmp -s "$work/tree3" "$work/tree4" || fail "--dry-run changed files"
fresh="$work/fresh"
bash board/install.sh --root "$fresh" --binary "$kiosk" --dry-run > "$work/dry-fresh.out" 2>&1 || fail "install.sh --dry-run failed: $(cat "$work/dry-fresh.out")"
[ ! -e "$fresh" ] || fail "--dry-run created $fresh"
grep -q "would run: install -D -m 0755 $kiosk $fresh/usr/local/bin/kiosk" "$work/dry-fresh.out" || fail "--dry-run does not print what it would do: $(cat "$work/dry-fresh.out")"
echo "50-board-files: install.sh installs, is idempotent, keeps a changed configuration, and --dry-run changes nothing"
echo "50-board-files: passed"
