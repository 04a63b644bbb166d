#!/usr/bin/env bash
# Installs the check-in kiosk on Raspberry Pi OS bookworm (or any Debian 12): the kiosk user, the binary, the
# systemd unit, udev rules, the kernel NFC driver blacklist, libnfc's configuration, the default configuration and
# a staff code, then enables the unit. Safe to run again: what is already in place is left alone, and a
# configuration you changed is never overwritten (the new default is put beside it as kiosk.json.new).
#
#   sudo board/install.sh [--binary PATH] [--start] [--dry-run] [--root DIR]
#
#   --binary PATH  the kiosk binary to install (default: .build/release/kiosk, from `swift build -c release`)
#   --start        also (re)start the daemon now
#   --dry-run      print what would be done, change nothing
#   --root DIR     install the files under DIR instead of / (for packaging and tests); users, udev and systemd
#                  are not touched then
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)

binary="$repo/.build/release/kiosk"
start=false
dry_run=false
root=""

usage() { sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --binary) [ $# -ge 2 ] || usage; binary=$2; shift 2 ;;
        --start) start=true; shift ;;
        --dry-run) dry_run=true; shift ;;
        --root) [ $# -ge 2 ] || usage; root=${2%/}; shift 2 ;;
        -h|--help) usage ;;
        *) echo "install.sh: unknown option $1" >&2; usage ;;
    esac
done

say() { printf 'install.sh: %s\n' "$*"; }
fail() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }

# Runs a command, or prints it with --dry-run.
run() {
    if $dry_run; then
        printf 'would run: %s\n' "$*"
    else
        "$@"
    fi
}

if [ -z "$root" ] && ! $dry_run && [ "$(id -u)" -ne 0 ]; then
    fail "run as root (sudo board/install.sh), or with --dry-run to see what it would do"
fi
[ -f "$binary" ] || fail "no kiosk binary at $binary: build it with 'swift build -c release --product kiosk' or pass --binary"
[ -x "$binary" ] || fail "$binary is not executable"

changed=false

# Installs $1 as $2 with mode $3 unless an identical file is there.
put() {
    local source=$1 target=$root$2 mode=$3
    if [ -f "$target" ] && cmp -s "$source" "$target"; then
        return 0
    fi
    say "installing $2"
    run install -D -m "$mode" "$source" "$target"
    changed=true
}

# --- The kiosk user and its device groups ---
if [ -z "$root" ]; then
    if ! getent group kiosk >/dev/null; then
        say "creating group kiosk"
        run groupadd --system kiosk
    fi
    if ! getent passwd kiosk >/dev/null; then
        say "creating user kiosk"
        run useradd --system --gid kiosk --no-create-home --home-dir /var/lib/kiosk --shell /usr/sbin/nologin \
            --comment "check-in kiosk" kiosk
    fi
    # Devices that udev gives to other groups: the board's UART (dialout), cameras (video), sound cards (audio),
    # and on Raspberry Pi OS gpio, i2c and spi. Only groups that exist here.
    for group in dialout video audio gpio i2c spi lp; do
        getent group "$group" >/dev/null || continue
        if ! id -nG kiosk 2>/dev/null | tr ' ' '\n' | grep -qx "$group"; then
            say "adding kiosk to group $group"
            run usermod -a -G "$group" kiosk
        fi
    done
fi

# --- Files ---
put "$binary" /usr/local/bin/kiosk 0755
put "$repo/board/systemd/kiosk.service" /etc/systemd/system/kiosk.service 0644
put "$repo/board/systemd/journald@kiosk.conf" /etc/systemd/journald@kiosk.conf 0644
put "$repo/board/udev/60-kiosk.rules" /etc/udev/rules.d/60-kiosk.rules 0644
put "$repo/board/modprobe.d/blacklist-nfc.conf" /etc/modprobe.d/blacklist-nfc.conf 0644
put "$repo/docs/configuration.md" /usr/local/share/doc/kiosk/configuration.md 0644
put "$repo/docs/board.md" /usr/local/share/doc/kiosk/board.md 0644

# libnfc's configuration: Debian ships its own /etc/nfc/libnfc.conf; keep a copy of one that is not ours.
nfc_conf=$root/etc/nfc/libnfc.conf
if [ -f "$nfc_conf" ] && ! cmp -s "$repo/board/nfc/libnfc.conf" "$nfc_conf" && [ ! -f "$nfc_conf.kiosk-orig" ]; then
    say "keeping the previous /etc/nfc/libnfc.conf as libnfc.conf.kiosk-orig"
    run cp -p "$nfc_conf" "$nfc_conf.kiosk-orig"
fi
put "$repo/board/nfc/libnfc.conf" /etc/nfc/libnfc.conf 0644

# The configuration: installed when absent; replaced by a newer default only if nobody changed it (the checksum of
# the default installed last is kept beside it); otherwise left alone, with the new default as kiosk.json.new.
config=$root/etc/kiosk/kiosk.json
stamp=$root/etc/kiosk/.kiosk.json.installed-sha256
default="$repo/board/config/kiosk.json"
default_sum=$(sha256sum "$default" | cut -d' ' -f1)
if [ ! -f "$config" ]; then
    say "installing the default configuration /etc/kiosk/kiosk.json"
    run install -D -m 0644 "$default" "$config"
    if ! $dry_run; then echo "$default_sum" > "$stamp"; fi
    changed=true
else
    current_sum=$(sha256sum "$config" | cut -d' ' -f1)
    installed_sum=$(cat "$stamp" 2>/dev/null || true)
    if [ "$current_sum" = "$default_sum" ]; then
        :
    elif [ -n "$installed_sum" ] && [ "$current_sum" = "$installed_sum" ]; then
        say "updating the unchanged default configuration /etc/kiosk/kiosk.json"
        run install -m 0644 "$default" "$config"
        if ! $dry_run; then echo "$default_sum" > "$stamp"; fi
        changed=true
    else
        say "/etc/kiosk/kiosk.json was changed locally: not overwriting it"
        if [ ! -f "$config.new" ] || ! cmp -s "$default" "$config.new"; then
            say "the new default is /etc/kiosk/kiosk.json.new; compare with: diff /etc/kiosk/kiosk.json /etc/kiosk/kiosk.json.new"
            run install -m 0644 "$default" "$config.new"
        fi
    fi
fi

# Credentials: root-only files handed to the daemon by systemd (LoadCredential=). A staff code is made once.
credentials=$root/etc/kiosk/credentials
if [ ! -d "$credentials" ]; then
    say "creating /etc/kiosk/credentials (root only)"
    run install -d -m 0700 "$credentials"
fi
if [ ! -f "$credentials/staff-code" ]; then
    say "creating a random staff code in /etc/kiosk/credentials/staff-code"
    if $dry_run; then
        printf 'would write: 24 random characters to %s\n' "$credentials/staff-code"
    else
        # Without pipefail here: tr ends on SIGPIPE once head has its 24 characters.
        (umask 077; set +o pipefail; LC_ALL=C tr -dc 'A-HJ-NP-Z2-9' < /dev/urandom | head -c 24 > "$credentials/staff-code")
    fi
    changed=true
fi

# The mount point reports are exported to (ReadWritePaths= in the unit).
if [ ! -d "$root/media/kiosk-usb" ]; then
    say "creating the export mount point /media/kiosk-usb"
    run install -d -m 0755 "$root/media/kiosk-usb"
fi

# --- Check, then activate ---
if ! $dry_run; then
    credential_args=(--credentials "$credentials")
    if ! "$root/usr/local/bin/kiosk" config check --config "$config" "${credential_args[@]}"; then
        fail "the configuration has problems (above); fix /etc/kiosk/kiosk.json and run this again"
    fi
fi

if [ -n "$root" ]; then
    if $dry_run; then say "dry run: nothing was changed under $root"
    elif $changed; then say "files installed under $root (users, udev and systemd left alone)"
    else say "already installed under $root; nothing changed"; fi
    exit 0
fi
if $changed || $dry_run; then
    run udevadm control --reload
    run udevadm trigger --action=add --subsystem-match=tty --subsystem-match=usb --subsystem-match=usbmisc \
        --subsystem-match=gpio --subsystem-match=i2c-dev --subsystem-match=spidev --subsystem-match=video4linux
    run systemctl daemon-reload
fi
# No swap on the SD card: memory that held decrypted stays, card secrets or a typed PIN would stay on disk beyond the
# 14 days (the unit also keeps the daemon's own memory out of any swap). Raspberry Pi OS swaps to a file through
# dphys-swapfile: it is turned off and its file removed. zram (compressed memory, never on disk) may stay.
if systemctl is-enabled --quiet dphys-swapfile.service 2>/dev/null || [ -e /var/swap ]; then
    say "turning off the swap file on the SD card (dphys-swapfile)"
    run systemctl disable --now dphys-swapfile.service
    if command -v dphys-swapfile >/dev/null; then run dphys-swapfile uninstall; fi
fi
if swapon --noheadings --show=NAME 2>/dev/null | grep -qv '^/dev/zram'; then
    say "warning: a swap area other than zram is on: $(swapon --noheadings --show=NAME | tr '\n' ' ')— turn it off (swapoff) or encrypt it"
fi
if ! systemctl is-enabled --quiet kiosk.service 2>/dev/null; then
    say "enabling kiosk.service"
    run systemctl enable kiosk.service
fi
if $start; then
    run systemctl restart kiosk.service
fi
if $dry_run; then say "dry run: nothing was changed"
elif $changed; then say "done"
else say "already installed; nothing changed"; fi
