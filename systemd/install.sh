#!/usr/bin/env bash
# Install bornes as an appliance on Raspberry Pi OS trixie (Debian 13, Python 3.13) or bookworm
# (Debian 12, Python 3.11), on a Pi Zero 2 W, 3, 4 or 5: the referee starts at boot, restarts if
# it fails, and keeps its games in /var/lib/bornes.
#
#   sudo systemd/install.sh              install or upgrade (safe to run again)
#   sudo systemd/install.sh --uart       also enable the header UART for an RDM6300/PN532 reader
#   sudo systemd/install.sh --web        also serve the phone pages (bornes-web.service, docs/web.md)
#   sudo systemd/install.sh --bridge     also publish this table to the club's broker (docs/club.md)
#   sudo systemd/install.sh --club       also run the club's tournament board here (docs/club.md)
#   sudo systemd/install.sh --camera     also read unmarked cards with a camera (docs/camera.md): numpy and
#                                        OpenCV (about 130 MB on arm64), python3-picamera2 for the Pi's
#                                        camera module where the system has it, and the video devices
#   sudo systemd/install.sh --spi        also turn SPI0 on for RC522 readers (dtparam=spi=on, raspi-config where
#                                        present) and put the referee's user in group spi (docs/readers.md, RC522)
#   sudo systemd/install.sh --spi1       the same, and SPI1 with three chip selects (dtoverlay=spi1-3cs): the
#                                        third and fourth RC522 (implies --spi)
#   sudo systemd/install.sh --no-pi      not a Pi (an image builder, a container): skip GPIO, I2C, raspi-config
#   sudo systemd/install.sh --wheels DIR install the Python packages from wheels in DIR only (no network)
#   sudo systemd/install.sh --compile-engine  build the rules engine as C with mypyc: about 3 times
#                                        faster simulate, same games; takes gcc and the Python headers
#                                        from apt and mypy from PyPI (with --wheels: its wheels in DIR);
#                                        gcc needs about 450 MB of memory (docs/engine-speed.md)
#   sudo systemd/install.sh --hid VVVV:PPPP  also give the referee this keyboard-mode USB reader
#                                        (repeat for several pads; docs/readers.md, Keyboard mode)
#   sudo systemd/install.sh --keypad VVVV:PPPP  also give the referee this USB keypad as its buttons
#                                        ([buttons] source = "hid"; docs/keypad.md)
#   sudo systemd/install.sh --tv         also show the table on the Pi's HDMI screen: the TV page full
#                                        screen (cage + Chromium, bornes-kiosk.service; implies --web;
#                                        [display] panel = "tv" turns it on; docs/tv.md)
#   sudo systemd/install.sh --kit        the table without a soldering iron: a USB scanner, a USB keypad
#                                        and a TV (--tv, the Pi's audio, the kit's config); asks you to
#                                        scan a label and press a key to find the two, unless --hid and
#                                        --keypad name them (wiring/README.md, No-solder kit)
#   systemd/install.sh --dry-run         print every step without changing anything
#   sudo systemd/install.sh --uninstall  stop and remove the services (keeps config and games)
#
# Python packages come as wheels only (a Pi never compiles unless --compile-engine asks), at the
# versions pinned in systemd/pi-constraints.txt (refresh: python -m tools.lock). It never overwrites
# /etc/bornes/config.toml or /etc/bornes/pins.toml, and never touches the game journal in
# /var/lib/bornes.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PREFIX=/opt/bornes
VENV="$PREFIX/venv"
ETC=/etc/bornes
UNIT=/etc/systemd/system/bornes.service
WEB_UNIT=/etc/systemd/system/bornes-web.service
WEB_USER=bornes-web
CAMERA_DROPIN=/etc/systemd/system/bornes.service.d/camera.conf
CAMERA_MODULES=/etc/modules-load.d/bornes-camera.conf
RULE=/etc/udev/rules.d/99-bornes-reader.rules
HID_RULE=/etc/udev/rules.d/99-bornes-hid.rules
GPIO_RULE=/etc/udev/rules.d/99-bornes-gpio.rules
SPI_RULE=/etc/udev/rules.d/99-bornes-spi.rules
HID_IDS=()
SCANNER_ID=""
KEYPAD_ID=""
USER_NAME=bornes
KIOSK_USER=bornes-kiosk
KIOSK_UNIT=/etc/systemd/system/bornes-kiosk.service
KIOSK_PAM=/etc/pam.d/bornes-kiosk
# audio: /dev/snd for the chirps through the Pi's sound output ([sound] output = "audio").
GROUPS_WANTED=(gpio i2c dialout audio)
CONSTRAINTS="$REPO/systemd/pi-constraints.txt"
# The venv needs python3-venv; i2c-tools gives i2cdetect for checking the OLED's wiring. Pillow's
# wheels carry their own image libraries, so nothing else is needed from apt.
# python3-evdev: keyboard-mode readers; PyPI has evdev as source only, Debian builds it for the Pi.
APT_PACKAGES=(python3-venv python3-evdev)
APT_PI_PACKAGES=(i2c-tools)
# gpiozero drives the pins through lgpio. PyPI's lgpio has no wheel for Python 3.13 on arm64, so it
# comes from apt (the Raspberry Pi archive); the venv sees it through --system-site-packages.
LGPIO_PACKAGE=python3-lgpio
# Only for --camera, on a Pi: the camera module's Python library (libcamera), from the Raspberry Pi archive;
# the venv sees it through --system-site-packages, as it sees python3-lgpio. A webcam needs nothing from apt.
PICAMERA_PACKAGE=python3-picamera2
# Only for --compile-engine: mypyc's C needs a compiler, the C library's headers and Python's.
APT_COMPILE_PACKAGES=(gcc libc6-dev python3-dev)
# Only for --tv: cage shows one application full screen on the HDMI screen (no desktop), and will not
# start without Xwayland; the browser is Debian's chromium (Raspberry Pi OS's older images call it
# chromium-browser: tried below).
APT_TV_PACKAGES=(cage xwayland)
# Only for --kit: ALSA's aplay plays the chirps through the TV's speakers (HDMI) or the jack.
APT_KIT_PACKAGES=(alsa-utils)
BOOT=/boot/firmware

DRY_RUN=0
UNINSTALL=0
UART=0
SPI=0
SPI1=0
BRIDGE=0
CLUB=0
WEB=0
CAMERA=0
PI=1
WHEELS=""
COMPILE=0
TV=0
KIT=0

usage() {
    sed -n '/^set -euo pipefail/q; 2,$s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"  # the comment block above
}

while [[ $# -gt 0 ]]; do
    case "$1" in
        --dry-run) DRY_RUN=1 ;;
        --uninstall) UNINSTALL=1 ;;
        --uart) UART=1 ;;
        --spi) SPI=1 ;;
        --spi1) SPI=1; SPI1=1 ;;
        --bridge) BRIDGE=1 ;;
        --club) CLUB=1 ;;
        --web) WEB=1 ;;
        --camera) CAMERA=1 ;;
        --no-pi) PI=0 ;;
        --compile-engine) COMPILE=1 ;;
        --wheels)
            [[ $# -ge 2 && -d $2 ]] || { echo "install.sh: --wheels needs a folder of wheels" >&2; exit 64; }
            WHEELS="$(cd "$2" && pwd)"
            shift ;;
        --hid | --keypad)
            if [[ $# -lt 2 || ! $2 =~ ^[0-9a-fA-F]{4}:[0-9a-fA-F]{4}$ ]]; then
                what="reader"; [[ $1 == --keypad ]] && what="keypad"
                echo "install.sh: $1 takes the $what's USB vendor:product, like 0c2e:0b61" >&2
                exit 64
            fi
            HID_IDS+=("${2,,}")
            if [[ $1 == --keypad ]]; then KEYPAD_ID="${2,,}"; elif [[ -z $SCANNER_ID ]]; then SCANNER_ID="${2,,}"; fi
            shift
            ;;
        --tv) TV=1; WEB=1 ;;
        --kit) KIT=1; TV=1; WEB=1 ;;
        -h | --help) usage; exit 0 ;;
        *) echo "install.sh: unknown option $1 (try --help)" >&2; exit 64 ;;
    esac
    shift
done

# Offline, the compiling build's own requirement (mypy, with its dependencies) must be in the folder too.
if [[ $COMPILE -eq 1 && -n $WHEELS ]] && ! compgen -G "$WHEELS/mypy-*.whl" >/dev/null; then
    echo "install.sh: --compile-engine with --wheels needs mypy's wheel and its dependencies in $WHEELS" \
        "(pip download --only-binary :all: -c systemd/pi-constraints.txt -d DIR mypy)" >&2
    exit 64
fi

step() { printf '==> %s\n' "$*"; }
# A step that cannot be done here, said once and clearly; the install goes on.
skipped() { printf '    skipped: %s\n' "$*"; }

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
# systemd runs here (not an image being built in a chroot): units can be started now.
systemd_running() { [[ -d /run/systemd/system ]] && have systemctl; }
# udevd runs here (not in a chroot or a container): rules can be reloaded and devices re-triggered.
udev_running() { have udevadm && [[ -S /run/udev/control ]]; }

# Reload udev, or say why not: without udevd (image builders, containers) the rule is read at boot.
udev_reload() {
    local trigger="$1"
    if [[ $DRY_RUN -eq 1 ]] || udev_running; then
        run udevadm control --reload
        if [[ -n $trigger ]]; then run udevadm trigger --subsystem-match="$trigger" --action=add; fi
    else
        skipped "udevd is not running here; the rule takes effect at the next boot"
    fi
}

if [[ $UNINSTALL -eq 1 ]]; then
    step "stop and disable the bornes services"
    for unit in bornes-kiosk bornes-web bornes-bridge bornes-club bornes; do
        if [[ $DRY_RUN -eq 1 || -e /etc/systemd/system/$unit.service ]] && have systemctl; then
            if systemd_running || [[ $DRY_RUN -eq 1 ]]; then
                run systemctl disable --now "$unit.service" || true
            else
                run systemctl disable "$unit.service" || true
            fi
        fi
    done
    step "remove the units and the udev rules $RULE, $HID_RULE, $GPIO_RULE and $SPI_RULE"
    run rm -f "$UNIT" "$WEB_UNIT" /etc/systemd/system/bornes-bridge.service \
        /etc/systemd/system/bornes-club.service "$KIOSK_UNIT" "$KIOSK_PAM" "$RULE" "$HID_RULE" "$GPIO_RULE" \
        "$SPI_RULE" "$CAMERA_DROPIN" "$CAMERA_MODULES"
    if systemd_running || [[ $DRY_RUN -eq 1 ]]; then run systemctl daemon-reload; fi
    udev_reload ""
    step "remove the program in $VENV"
    run rm -rf "$VENV"
    step "kept: $ETC (config) and /var/lib/bornes (games); delete them by hand if you want"
    exit 0
fi

step "check the system: Raspberry Pi OS trixie or bookworm"
release="unknown"
if [[ -r /etc/os-release ]]; then
    release="$(. /etc/os-release && echo "${VERSION_CODENAME:-unknown}")"
fi
python="$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || echo none)"
case "$release" in
    trixie | bookworm) printf '    Debian %s, Python %s\n' "$release" "$python" ;;
    *) printf '    %s is neither trixie nor bookworm (the releases bornes is tested on); going on\n' "$release" ;;
esac
if [[ $python == none ]] || ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    echo "install.sh: bornes needs Python 3.11 or newer (found: $python)" >&2
    exit 69
fi
if [[ $PI -eq 1 && -r /proc/device-tree/model ]] && ! grep -qa 'Raspberry Pi' /proc/device-tree/model; then
    printf '    this is not a Raspberry Pi (%s): --no-pi skips the Pi-only steps\n' \
        "$(tr -d '\0' < /proc/device-tree/model)"
fi

wanted=("${APT_PACKAGES[@]}")
if [[ $PI -eq 1 ]]; then wanted+=("${APT_PI_PACKAGES[@]}"); fi
if [[ $COMPILE -eq 1 ]]; then wanted+=("${APT_COMPILE_PACKAGES[@]}"); fi
if [[ $TV -eq 1 ]]; then wanted+=("${APT_TV_PACKAGES[@]}"); fi
if [[ $KIT -eq 1 ]]; then wanted+=("${APT_KIT_PACKAGES[@]}"); fi
step "install system packages: ${wanted[*]}"
missing=()
for package in "${wanted[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'ok installed'; then
        missing+=("$package")
    fi
done
if [[ $DRY_RUN -eq 1 ]]; then missing=("${wanted[@]}"); fi
if [[ ${#missing[@]} -eq 0 ]]; then
    printf '    already installed\n'
elif have apt-get; then
    run apt-get update
    run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
else
    printf '    apt-get not found: install %s yourself\n' "${missing[*]}"
fi

step "install $LGPIO_PACKAGE (GPIO for the buttons, LEDs and buzzer)"
if [[ $PI -eq 0 ]]; then
    skipped "not a Pi (--no-pi): no GPIO; use [pins] factory = \"mock\" in $ETC/config.toml"
elif dpkg-query -W -f='${Status}' "$LGPIO_PACKAGE" 2>/dev/null | grep -q 'ok installed'; then
    printf '    already installed\n'
elif [[ $DRY_RUN -eq 1 ]]; then
    run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$LGPIO_PACKAGE"
elif have apt-cache && [[ -n "$(apt-cache policy "$LGPIO_PACKAGE" 2>/dev/null | sed -n 's/^ *Candidate: //p' | grep -v '(none)')" ]]; then
    run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$LGPIO_PACKAGE"
else
    skipped "$LGPIO_PACKAGE is not in this system's apt sources (it comes from the Raspberry Pi archive," \
        "archive.raspberrypi.com, which Raspberry Pi OS has). Buttons, LEDs and buzzer need it:" \
        "install it, then run this again; until then bornes stops at start with \"no GPIO here\"."
fi

if [[ $SPI -eq 1 ]]; then
    GROUPS_WANTED+=(spi)  # /dev/spidev*: Raspberry Pi OS's group; made below where the system has none
fi
if [[ $CAMERA -eq 1 ]]; then
    GROUPS_WANTED+=(video)
    step "install $PICAMERA_PACKAGE (the Pi's camera module; a USB webcam needs none)"
    if [[ $PI -eq 0 ]]; then
        skipped "not a Pi (--no-pi): a USB webcam works through V4L2 ([camera] source = \"v4l2\")"
    elif dpkg-query -W -f='${Status}' "$PICAMERA_PACKAGE" 2>/dev/null | grep -q 'ok installed'; then
        printf '    already installed\n'
    elif [[ $DRY_RUN -eq 1 ]]; then
        run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$PICAMERA_PACKAGE"
    elif have apt-cache && [[ -n "$(apt-cache policy "$PICAMERA_PACKAGE" 2>/dev/null | sed -n 's/^ *Candidate: //p' | grep -v '(none)')" ]]; then
        run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$PICAMERA_PACKAGE"
    else
        skipped "$PICAMERA_PACKAGE is not in this system's apt sources (Raspberry Pi OS has it): a USB webcam" \
            "still works; the camera module needs it ([camera] source = \"picamera2\")"
    fi
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

# One pip run for the program and every extra asked for: the web extra adds Starlette, uvicorn
# (pure Python), segno (the QR code on the panel) and reportlab (PDF score sheets); the club extra
# adds paho-mqtt.
extras=()
if [[ $WEB -eq 1 ]]; then extras+=(web); fi
if [[ $BRIDGE -eq 1 || $CLUB -eq 1 ]]; then extras+=(club); fi
# The camera extra: numpy and opencv-python-headless (wheels for arm64, Python 3.11 and 3.13).
if [[ $CAMERA -eq 1 ]]; then extras+=(camera); fi
target="$REPO"
if [[ ${#extras[@]} -gt 0 ]]; then target="$REPO[$(IFS=,; echo "${extras[*]}")]"; fi
# Wheels only, at the pinned versions; only the program itself is built (pure Python, unless
# --compile-engine: then its engine is compiled by mypyc, docs/engine-speed.md).
pip_options=(--disable-pip-version-check --only-binary :all: --no-binary bornes -c "$CONSTRAINTS")
pip_command=("$VENV/bin/pip")
if [[ $COMPILE -eq 1 ]]; then
    # The build asks for mypy in its isolated environment; pip passes that install the index and
    # wheels-only options but not -c, so the pins reach it as PIP_CONSTRAINT (read by every pip run).
    pip_command=(env BORNES_COMPILE=1 PIP_CONSTRAINT="$CONSTRAINTS" "$VENV/bin/pip")
fi
if [[ -n $WHEELS ]]; then
    pip_options+=(--no-index --find-links "$WHEELS")
    step "create the venv $VENV and pip install $REPO from the wheels in $WHEELS"
else
    step "create the venv $VENV and pip install $REPO (wheels from PyPI, versions of $CONSTRAINTS)"
fi
if [[ $COMPILE -eq 1 ]]; then
    printf '    the engine is built as C with mypyc (--compile-engine, docs/engine-speed.md)\n'
fi
# --system-site-packages lets the venv use the apt python3-lgpio.
if [[ ! -x "$VENV/bin/python" ]]; then
    run python3 -m venv --system-site-packages "$VENV"
fi
run "${pip_command[@]}" install --upgrade "$target" "${pip_options[@]}"

# --kit without the two devices named: ask the person to show them (scan a label, press a key), when
# there is a person at a terminal to ask; the answer names each by its stable /dev/input/by-id path.
SCANNER_PORT=""
KEYPAD_PORT=""
if [[ $KIT -eq 1 && ( -z $SCANNER_ID || -z $KEYPAD_ID ) ]]; then
    step "find the scanner and the keypad"
    if [[ $DRY_RUN -eq 1 ]]; then
        printf '    would run: %s scan-test --identify (scan a label, then press a key on the keypad)\n' "$VENV/bin/bornes"
    elif [[ -t 0 && -t 1 ]]; then
        found="$("$VENV/bin/bornes" scan-test --identify --seconds 120 | tee /dev/stderr | grep -E '^(scanner|keypad) ')" || true
        while read -r part id port; do
            if [[ $part == scanner ]]; then SCANNER_ID="$id"; SCANNER_PORT="$port"; fi
            if [[ $part == keypad ]]; then KEYPAD_ID="$id"; KEYPAD_PORT="$port"; fi
        done <<< "$found"
        for id in "$SCANNER_ID" "$KEYPAD_ID"; do
            if [[ -n $id && ! " ${HID_IDS[*]} " =~ " $id " ]]; then HID_IDS+=("$id"); fi
        done
    fi
    if [[ -z $SCANNER_ID || -z $KEYPAD_ID ]]; then
        skipped "the scanner and the keypad are not both known: plug them in and run this again, or name them" \
            "with --hid VVVV:PPPP --keypad VVVV:PPPP (bornes scan-test --devices lists them)"
    fi
fi

step "install the sample config as $ETC/config.toml (only if absent)"
run install -d -m 0755 "$ETC"
if [[ $KIT -eq 1 && ! -e "$ETC/config.toml" ]]; then
    # The kit's config: the scanner and the keypad by their stable names (or their ids), the TV, the audio.
    scanner="${SCANNER_PORT:-${SCANNER_ID:-vvvv:pppp}}"
    keypad="${KEYPAD_PORT:-${KEYPAD_ID:-vvvv:pppp}}"
    if [[ $DRY_RUN -eq 1 ]]; then
        printf '    would write %s from config/kit.sample.toml with reader.port = "%s", buttons.port = "%s"\n' \
            "$ETC/config.toml" "$scanner" "$keypad"
    else
        sed "s|@SCANNER@|$scanner|; s|@KEYPAD@|$keypad|" "$REPO/config/kit.sample.toml" > "$ETC/config.toml.tmp"
        chmod 0644 "$ETC/config.toml.tmp"
        mv "$ETC/config.toml.tmp" "$ETC/config.toml"
    fi
else
    copy_once "$REPO/config/bornes.sample.toml" "$ETC/config.toml" 0644
fi
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
        install -d -m 0755 "$(dirname "$RULE")"
        sed 's/^#UART# //' "$REPO/systemd/99-bornes-reader.rules" > "$RULE.tmp"
        chmod 0644 "$RULE.tmp"
        mv "$RULE.tmp" "$RULE"
    fi
else
    run install -D -m 0644 "$REPO/systemd/99-bornes-reader.rules" "$RULE"
fi
udev_reload tty

# Raspberry Pi OS gives the gpio group the header's chip; plain Debian or Ubuntu and a USB GPIO bridge need this.
step "install the udev rule $GPIO_RULE (the GPIO chips to the gpio group)"
run install -D -m 0644 "$REPO/systemd/99-bornes-gpio.rules" "$GPIO_RULE"
udev_reload gpio

if [[ ${#HID_IDS[@]} -gt 0 ]]; then
    step "install the udev rule $HID_RULE for the keyboard-mode reader(s) and keypad ${HID_IDS[*]}"
    # One copy of the template's #HID# lines per device; the template itself matches nothing.
    hid_rules="$(grep -v '^#HID# ' "$REPO/systemd/99-bornes-hid.rules")"
    for id in "${HID_IDS[@]}"; do
        while IFS= read -r line; do
            line="$(printf '%s' "$line" | sed "s/VVVV/${id%%:*}/g; s/PPPP/${id##*:}/g")"
            hid_rules="$(printf '%s\n' "$hid_rules" | sed "/^LABEL=\"bornes_hid_end\"/i $line")"
        done < <(grep '^#HID# ' "$REPO/systemd/99-bornes-hid.rules" | sed 's/^#HID# //')
    done
    if [[ $DRY_RUN -eq 1 ]]; then
        printf '    would write %s with:\n%s\n' "$HID_RULE" "$(printf '%s\n' "$hid_rules" | grep '^ATTRS')"
    else
        printf '%s\n' "$hid_rules" > "$HID_RULE.tmp"
        chmod 0644 "$HID_RULE.tmp"
        mv "$HID_RULE.tmp" "$HID_RULE"
    fi
    udev_reload input
fi

if [[ $SPI -eq 1 ]]; then
    step "install the udev rule $SPI_RULE (the SPI devices for group spi) and reload udev"
    run install -D -m 0644 "$REPO/systemd/99-bornes-spi.rules" "$SPI_RULE"
    udev_reload spidev
    step "enable SPI for the RC522 reader(s)"
    # A line of config.txt, added once: the firmware reads it at the next boot.
    boot_line() {
        local line="$1"
        if [[ ! -f "$BOOT/config.txt" ]]; then
            skipped "$BOOT/config.txt not found: add \"$line\" to the firmware's config.txt yourself"
        elif grep -qx "$line" "$BOOT/config.txt"; then
            printf '    %s is already in %s\n' "$line" "$BOOT/config.txt"
        elif [[ $DRY_RUN -eq 1 ]]; then
            printf '    would add "%s" to %s\n' "$line" "$BOOT/config.txt"
        else
            printf '%s\n' "$line" >> "$BOOT/config.txt"
            printf '    added "%s" to %s\n' "$line" "$BOOT/config.txt"
        fi
    }
    if [[ $PI -eq 0 ]]; then
        skipped "not a Pi (--no-pi): no SPI header here; the group and the udev rule are in place"
    elif have raspi-config; then
        run raspi-config nonint do_spi 0
    else
        boot_line "dtparam=spi=on"
    fi
    if [[ $SPI1 -eq 1 && $PI -eq 1 ]]; then
        boot_line "dtoverlay=spi1-3cs"  # SPI1 with CE0-CE2 on GPIO18, 17, 16; raspi-config has no switch for it
    fi
fi

step "enable I2C for the OLED"
if [[ $PI -eq 0 ]]; then
    skipped "not a Pi (--no-pi): no I2C; use [display] panel = \"dummy\" in $ETC/config.toml"
elif have raspi-config; then
    run raspi-config nonint do_i2c 0
    # raspi-config leaves the bus at the Pi's 100 kHz, where a whole 128x64 frame takes 93 ms; at 400 kHz,
    # which every SSD1306 and SH1106 takes, 23 ms (docs/system.md: tap to light on the bus).
    if grep -q '^dtparam=i2c_arm_baudrate=' "$BOOT/config.txt" 2>/dev/null; then
        printf '    the I2C bus speed is already set in %s: kept\n' "$BOOT/config.txt"
    else
        run sed -i '$a dtparam=i2c_arm_baudrate=400000' "$BOOT/config.txt"
    fi
else
    skipped "raspi-config not found: enable I2C yourself (dtparam=i2c_arm=on and" \
        "dtparam=i2c_arm_baudrate=400000 in $BOOT/config.txt)"
fi
if [[ $UART -eq 1 ]]; then
    step "enable the header UART for the reader and free it from the login console"
    if [[ $PI -eq 0 ]]; then
        skipped "not a Pi (--no-pi): no header UART"
    elif have raspi-config; then
        run raspi-config nonint do_serial_hw 0
        run raspi-config nonint do_serial_cons 1
    else
        skipped "raspi-config not found: enable_uart=1 in $BOOT/config.txt, remove console=serial0 from $BOOT/cmdline.txt"
    fi
fi

# Enable a unit, and start (or restart, for an upgrade) it where systemd runs.
enable_unit() {
    local unit="$1"
    if ! have systemctl; then
        printf '    systemctl not found: enable %s yourself\n' "$unit"
    elif [[ $DRY_RUN -eq 1 ]] || systemd_running; then
        run systemctl daemon-reload
        run systemctl enable "$unit"
        run systemctl restart "$unit"
    else
        run systemctl enable "$unit"
        skipped "systemd is not running here (an image being built): $unit starts at the next boot"
    fi
}

step "install, enable and start the unit $UNIT"
run install -D -m 0644 "$REPO/systemd/bornes.service" "$UNIT"
if [[ $CAMERA -eq 1 ]]; then
    printf '    with %s: the video group and the camera devices in its sandbox\n' "$CAMERA_DROPIN"
    run install -D -m 0644 "$REPO/systemd/bornes-camera.conf" "$CAMERA_DROPIN"
    # Its DeviceAllow=char-video4linux is resolved as the service starts: the V4L2 core must be loaded by then,
    # at every boot (a webcam plugged in later) and now (the restart below).
    printf '    with %s: the V4L2 core (videodev) loaded at boot, before the referee starts\n' "$CAMERA_MODULES"
    run install -D -m 0644 "$REPO/systemd/bornes-camera-modules.conf" "$CAMERA_MODULES"
    if systemd_running || [[ $DRY_RUN -eq 1 ]]; then
        run modprobe videodev || printf '    modprobe videodev failed: a V4L2 camera may need a reboot\n'
    fi
fi
enable_unit bornes.service

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
    enable_unit bornes-web.service
fi

if [[ $TV -eq 1 ]]; then
    step "install the browser for the TV page (chromium, or chromium-browser on older Raspberry Pi OS)"
    browser=chromium
    if have apt-cache && [[ -z "$(apt-cache policy chromium 2>/dev/null | sed -n 's/^ *Candidate: //p' | grep -v '(none)')" ]] \
        && [[ -n "$(apt-cache policy chromium-browser 2>/dev/null | sed -n 's/^ *Candidate: //p' | grep -v '(none)')" ]]; then
        browser=chromium-browser
    fi
    if dpkg-query -W -f='${Status}' "$browser" 2>/dev/null | grep -q 'ok installed'; then
        printf '    already installed\n'
    elif have apt-get || [[ $DRY_RUN -eq 1 ]]; then
        run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$browser"
    else
        printf '    apt-get not found: install %s yourself\n' "$browser"
    fi
    step "create the system user $KIOSK_USER (the kiosk's session on tty1: the HDMI screen)"
    if id "$KIOSK_USER" >/dev/null 2>&1; then
        printf '    user %s exists\n' "$KIOSK_USER"
    else
        run useradd --system --user-group --no-create-home --home-dir /var/lib/bornes-kiosk \
            --shell /usr/sbin/nologin --comment "Mille Bornes TV page" "$KIOSK_USER"
    fi
    for group in video render audio; do  # the screen, the GPU, and the page's sounds
        if getent group "$group" >/dev/null; then run usermod --append --groups "$group" "$KIOSK_USER"; fi
    done
    step "install, enable and start the kiosk $KIOSK_UNIT (it shows /tv when [display] panel = \"tv\")"
    run install -D -m 0644 "$REPO/systemd/bornes-kiosk.pam" "$KIOSK_PAM"
    run install -D -m 0644 "$REPO/systemd/bornes-kiosk.service" "$KIOSK_UNIT"
    enable_unit bornes-kiosk.service
fi

# Club nights (docs/club.md): both off unless asked for.
for part in bridge club; do
    if [[ $part == bridge && $BRIDGE -eq 0 ]] || [[ $part == club && $CLUB -eq 0 ]]; then
        continue
    fi
    step "install $ETC/$part.toml (only if absent) and bornes-$part.service"
    copy_once "$REPO/config/$part.sample.toml" "$ETC/$part.toml" 0644  # no secret in it: see $part.secret
    # The passwords: root's files, handed to the unit as systemd credentials (empty until filled in).
    secrets=("$ETC/$part.secret")
    if [[ $part == club ]]; then secrets+=("$ETC/organiser.secret"); fi
    for secret in "${secrets[@]}"; do
        if [[ ! -e "$secret" ]]; then run install -m 0600 /dev/null "$secret"; fi
    done
    run install -D -m 0644 "$REPO/systemd/bornes-$part.service" "/etc/systemd/system/bornes-$part.service"
    enable_unit "bornes-$part.service"
    printf '    put the password(s) in %s and edit %s (docs/club.md)\n' "${secrets[*]}" "$ETC/$part.toml"
done

step "done: check the hardware with  sudo -u $USER_NAME $VENV/bin/bornes doctor"
if [[ $CAMERA -eq 1 ]]; then
    step "add a [camera] section to $ETC/config.toml, then teach it the cards: Teach the camera in the panel's" \
        "menu, or sudo systemctl stop bornes; sudo -u $USER_NAME $VENV/bin/bornes enroll --camera (docs/camera.md)"
fi
if [[ ( $UART -eq 1 || $SPI -eq 1 ) && $PI -eq 1 ]]; then
    step "reboot for the UART, SPI and I2C settings to take effect"
fi
