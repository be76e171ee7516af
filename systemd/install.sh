#!/usr/bin/env bash
# Install bornes as an appliance on Raspberry Pi OS (Bookworm): the referee starts at boot,
# restarts if it fails, and keeps its games in /var/lib/bornes.
#
#   sudo systemd/install.sh              install or upgrade (safe to run again)
#   sudo systemd/install.sh --uart       also enable the header UART for an RDM6300/PN532 reader
#   sudo systemd/install.sh --web        also serve the phone pages (bornes-web.service, docs/web.md)
#   sudo systemd/install.sh --bridge     also publish this table to the club's broker (docs/club.md)
#   sudo systemd/install.sh --club       also run the club's tournament board here (docs/club.md)
#   sudo systemd/install.sh --hid VVVV:PPPP  also give the referee this keyboard-mode USB reader
#                                        (repeat for several pads; docs/readers.md, Keyboard mode)
#   systemd/install.sh --dry-run         print every step without changing anything
#   sudo systemd/install.sh --uninstall  stop and remove the service (keeps config and games)
#
# It never overwrites /etc/bornes/config.toml or /etc/bornes/pins.toml, and never touches the
# game journal in /var/lib/bornes.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PREFIX=/opt/bornes
VENV="$PREFIX/venv"
ETC=/etc/bornes
UNIT=/etc/systemd/system/bornes.service
WEB_UNIT=/etc/systemd/system/bornes-web.service
WEB_USER=bornes-web
RULE=/etc/udev/rules.d/99-bornes-reader.rules
HID_RULE=/etc/udev/rules.d/99-bornes-hid.rules
HID_IDS=()
USER_NAME=bornes
GROUPS_WANTED=(gpio i2c dialout)
# What Pillow (via luma.oled), lgpio and the venv need; python3-lgpio gives lgpio without a compiler.
# python3-evdev: keyboard-mode readers; PyPI has evdev as source only, Debian builds it for the Pi.
APT_PACKAGES=(python3-venv python3-dev python3-lgpio python3-evdev libopenjp2-7 libjpeg62-turbo libtiff6 i2c-tools)

DRY_RUN=0
UNINSTALL=0
UART=0
BRIDGE=0
CLUB=0
WEB=0

usage() {
    sed -n '2,17s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
}

while [[ $# -gt 0 ]]; do
    case "$1" in
        --dry-run) DRY_RUN=1 ;;
        --uninstall) UNINSTALL=1 ;;
        --uart) UART=1 ;;
        --bridge) BRIDGE=1 ;;
        --club) CLUB=1 ;;
        --web) WEB=1 ;;
        --hid)
            if [[ $# -lt 2 || ! $2 =~ ^[0-9a-fA-F]{4}:[0-9a-fA-F]{4}$ ]]; then
                echo "install.sh: --hid takes the reader's USB vendor:product, like 0c2e:0b61" >&2
                exit 64
            fi
            HID_IDS+=("${2,,}")
            shift
            ;;
        -h | --help) usage; exit 0 ;;
        *) echo "install.sh: unknown option $1 (try --help)" >&2; exit 64 ;;
    esac
    shift
done

step() { printf '==> %s\n' "$*"; }

# Run a command, or in a dry run only show it.
run() {
    if [[ $DRY_RUN -eq 1 ]]; then
        local word line='    would run:'
        for word in "$@"; do
            if [[ $word =~ ^[A-Za-z0-9_./:=,@+%-]+$ ]]; then
                line+=" $word"
            else
                line+=" $(printf '%q' "$word")"
            fi
        done
        printf '%s\n' "$line"
    else
        "$@"
    fi
}

# Copy a file only if the target does not exist: a person's edits are never overwritten.
copy_once() {
    local source="$1" target="$2" mode="$3"
    if [[ -e "$target" ]]; then
        printf '    keeping existing %s\n' "$target"
    else
        run install -D -m "$mode" "$source" "$target"
    fi
}

if [[ $DRY_RUN -eq 0 && $EUID -ne 0 ]]; then
    echo "install.sh: run as root (sudo $0), or with --dry-run to see what it would do" >&2
    exit 77
fi

have() { command -v "$1" >/dev/null 2>&1; }

if [[ $UNINSTALL -eq 1 ]]; then
    step "stop and disable the bornes and bornes-web services"
    if have systemctl; then
        run systemctl disable --now bornes-web.service || true
        run systemctl disable --now bornes.service || true
        run systemctl disable --now bornes-bridge.service bornes-club.service 2>/dev/null || true
    fi
    run rm -f /etc/systemd/system/bornes-bridge.service /etc/systemd/system/bornes-club.service
    step "remove the units $UNIT, $WEB_UNIT and the udev rule $RULE"
    run rm -f "$UNIT" "$WEB_UNIT" "$RULE" "$HID_RULE"
    if have systemctl; then run systemctl daemon-reload; fi
    if have udevadm; then run udevadm control --reload; fi
    step "remove the program in $PREFIX"
    run rm -rf "$VENV"
    step "kept: $ETC (config) and /var/lib/bornes (games); delete them by hand if you want"
    exit 0
fi

step "install system packages: ${APT_PACKAGES[*]}"
if have apt-get; then
    run apt-get update
    run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${APT_PACKAGES[@]}"
else
    printf '    apt-get not found: install %s yourself\n' "${APT_PACKAGES[*]}"
fi

step "create the system user $USER_NAME with groups ${GROUPS_WANTED[*]}"
for group in "${GROUPS_WANTED[@]}"; do
    if ! getent group "$group" >/dev/null; then
        run groupadd --system "$group"
    fi
done
if id "$USER_NAME" >/dev/null 2>&1; then
    printf '    user %s exists\n' "$USER_NAME"
else
    run useradd --system --user-group --home-dir /var/lib/bornes --no-create-home \
        --shell /usr/sbin/nologin --comment "Mille Bornes referee" "$USER_NAME"
fi
run usermod --append --groups "$(IFS=,; echo "${GROUPS_WANTED[*]}")" "$USER_NAME"

step "create the venv $VENV and pip install $REPO"
# --system-site-packages lets the venv use the apt python3-lgpio.
if [[ ! -x "$VENV/bin/python" ]]; then
    run python3 -m venv --system-site-packages "$VENV"
fi
run "$VENV/bin/pip" install --upgrade pip
# smbus2 lets `bornes doctor` probe the OLED on the I2C bus. The web extra adds Starlette,
# uvicorn (pure Python), segno (the QR code on the panel) and reportlab (PDF score sheets).
if [[ $WEB -eq 1 ]]; then
    run "$VENV/bin/pip" install --upgrade "$REPO[web]" smbus2
else
    run "$VENV/bin/pip" install --upgrade "$REPO" smbus2
fi

step "install the sample config as $ETC/config.toml (only if absent)"
run install -d -m 0755 "$ETC"
copy_once "$REPO/config/bornes.sample.toml" "$ETC/config.toml" 0644
step "install the pin map as $ETC/pins.toml (only if absent)"
if [[ -f "$REPO/wiring/pins.toml" ]]; then
    copy_once "$REPO/wiring/pins.toml" "$ETC/pins.toml" 0644
else
    printf '    %s/wiring/pins.toml not found; set pins.map in %s/config.toml\n' "$REPO" "$ETC"
fi

step "install the udev rule $RULE for /dev/bornes-reader and reload udev"
if [[ $UART -eq 1 ]]; then
    # the header-UART line ships commented out so it cannot claim the name from a USB reader
    if [[ $DRY_RUN -eq 1 ]]; then
        printf '    would run: sed "s/^#UART# //" %s > %s\n' "$REPO/systemd/99-bornes-reader.rules" "$RULE"
    else
        sed 's/^#UART# //' "$REPO/systemd/99-bornes-reader.rules" > "$RULE.tmp"
        chmod 0644 "$RULE.tmp"
        mv "$RULE.tmp" "$RULE"
    fi
else
    run install -D -m 0644 "$REPO/systemd/99-bornes-reader.rules" "$RULE"
fi
if have udevadm; then
    run udevadm control --reload
    run udevadm trigger --subsystem-match=tty --action=add
fi

if [[ ${#HID_IDS[@]} -gt 0 ]]; then
    step "install the udev rule $HID_RULE for the keyboard-mode reader(s) ${HID_IDS[*]}"
    # One copy of the template's #HID# line per reader; the template itself matches nothing.
    hid_rules="$(grep -v '^#HID# ' "$REPO/systemd/99-bornes-hid.rules")"
    for id in "${HID_IDS[@]}"; do
        line="$(grep '^#HID# ' "$REPO/systemd/99-bornes-hid.rules" | sed "s/^#HID# //; s/VVVV/${id%%:*}/g; s/PPPP/${id##*:}/g")"
        hid_rules="$(printf '%s\n' "$hid_rules" | sed "/^LABEL=\"bornes_hid_end\"/i $line")"
    done
    if [[ $DRY_RUN -eq 1 ]]; then
        printf '    would write %s with:\n%s\n' "$HID_RULE" "$(printf '%s\n' "$hid_rules" | grep '^ATTRS')"
    else
        printf '%s\n' "$hid_rules" > "$HID_RULE.tmp"
        chmod 0644 "$HID_RULE.tmp"
        mv "$HID_RULE.tmp" "$HID_RULE"
    fi
    if have udevadm; then
        run udevadm control --reload
        run udevadm trigger --subsystem-match=input --action=add
    fi
fi

step "enable I2C for the OLED"
if have raspi-config; then
    run raspi-config nonint do_i2c 0
else
    printf '    raspi-config not found: enable I2C yourself (dtparam=i2c_arm=on in config.txt)\n'
fi
if [[ $UART -eq 1 ]]; then
    step "enable the header UART for the reader and free it from the login console"
    if have raspi-config; then
        run raspi-config nonint do_serial_hw 0
        run raspi-config nonint do_serial_cons 1
    else
        printf '    raspi-config not found: enable_uart=1 in config.txt, remove console=serial0 from cmdline.txt\n'
    fi
fi

step "install, enable and start the unit $UNIT"
run install -D -m 0644 "$REPO/systemd/bornes.service" "$UNIT"
if have systemctl; then
    run systemctl daemon-reload
    run systemctl enable bornes.service
    run systemctl restart bornes.service
else
    printf '    systemctl not found: enable bornes.service yourself\n'
fi

if [[ $WEB -eq 1 ]]; then
    step "create the system user $WEB_USER (group bornes: reads the journal, reaches the control socket)"
    if id "$WEB_USER" >/dev/null 2>&1; then
        printf '    user %s exists\n' "$WEB_USER"
    else
        run useradd --system --user-group --no-create-home --home-dir /nonexistent \
            --shell /usr/sbin/nologin --comment "Mille Bornes phone pages" "$WEB_USER"
    fi
    run usermod --append --groups "$USER_NAME" "$WEB_USER"
    step "install, enable and start the phone pages $WEB_UNIT (read-only; see docs/web.md)"
    run install -D -m 0644 "$REPO/systemd/bornes-web.service" "$WEB_UNIT"
    if have systemctl; then
        run systemctl daemon-reload
        run systemctl enable --now bornes-web.service
        run systemctl restart bornes-web.service
    else
        printf '    systemctl not found: enable bornes-web.service yourself\n'
    fi
fi

# Club nights (docs/club.md): both off unless asked for.
for part in bridge club; do
    if [[ $part == bridge && $BRIDGE -eq 0 ]] || [[ $part == club && $CLUB -eq 0 ]]; then
        continue
    fi
    step "install the club extra, $ETC/$part.toml (only if absent) and bornes-$part.service"
    run "$VENV/bin/pip" install --upgrade "$REPO[club]"
    copy_once "$REPO/config/$part.sample.toml" "$ETC/$part.toml" 0644  # no secret in it: see $part.secret
    # The passwords: root's files, handed to the unit as systemd credentials (empty until filled in).
    secrets=("$ETC/$part.secret")
    if [[ $part == club ]]; then secrets+=("$ETC/organiser.secret"); fi
    for secret in "${secrets[@]}"; do
        if [[ ! -e "$secret" ]]; then run install -m 0600 /dev/null "$secret"; fi
    done
    run install -D -m 0644 "$REPO/systemd/bornes-$part.service" "/etc/systemd/system/bornes-$part.service"
    if have systemctl; then
        run systemctl daemon-reload
        run systemctl enable "bornes-$part.service"
        run systemctl restart "bornes-$part.service"
    fi
    printf '    put the password(s) in %s and edit %s (docs/club.md)\n' "${secrets[*]}" "$ETC/$part.toml"
done

step "done: check the hardware with  sudo -u $USER_NAME $VENV/bin/bornes doctor"
if [[ $UART -eq 1 ]]; then
    step "reboot for the UART and I2C settings to take effect"
fi
