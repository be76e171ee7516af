#!/usr/bin/env bash
# The arm64 check: bornes on a Raspberry Pi's architecture, Debian 13 trixie (Python 3.13) on
# arm64, emulated by qemu-user on an x86-64 machine. Not part of every CI run (it takes about
# half an hour on two cores); run it after changing dependencies or systemd/pi-constraints.txt.
#
#   sudo nice -n 15 tools/arm64-check.sh [--root DIR] [--rebuild] [--mirror URL] [--keep]
#
# It (1) builds a trixie arm64 root with debootstrap (first stage natively, second stage under
# emulation), (2) downloads on this machine, wheels only, the aarch64 cp313 wheels that
# systemd/pi-constraints.txt pins, (3) installs them in a venv in the root with
# `pip install --no-index --find-links` (no network in the root, no compiler), (4) runs the
# engine tests, a demo and a short simulate there, and prints how long each step took.
#
# How it emulates: `chroot ROOT` alone runs only its first process under qemu, and proot does
# not translate stat/access into the guest tree. So the script enters a user namespace with a
# full uid map (0-65535 -> 0-65535, so the root's files keep their owners), mounts a private
# binfmt_misc there and registers /usr/bin/qemu-aarch64-static with the F flag: every aarch64
# program started inside runs under qemu, and the machine's own binfmt_misc is not touched.
# Needs Linux >= 6.7 (binfmt_misc per user namespace), root, and the Debian packages
# debootstrap and qemu-user-static.
#
# The root is kept in /var/cache/bornes-ci/ (keyed by its package list) for the next run;
# --rebuild makes a new one. --keep leaves the venv in it for a look afterwards.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SUITE=trixie
PYTHON=3.13
MIRROR=http://deb.debian.org/debian
PACKAGES=python3,python3-venv
CACHE=/var/cache/bornes-ci
ROOT=""
REBUILD=0
KEEP=0

while [[ $# -gt 0 ]]; do
    case "$1" in
        --root) ROOT="$2"; shift ;;
        --rebuild) REBUILD=1 ;;
        --mirror) MIRROR="$2"; shift ;;
        --keep) KEEP=1 ;;
        -h | --help) sed -n '2,24s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "arm64-check: unknown option $1 (try --help)" >&2; exit 64 ;;
    esac
    shift
done

fail() { echo "arm64-check: $*" >&2; exit 1; }
[[ $EUID -eq 0 ]] || fail "run as root (it builds a root file system and mounts in a namespace)"
QEMU=/usr/bin/qemu-aarch64-static
[[ -x $QEMU ]] || fail "$QEMU not found: apt-get install qemu-user-static"
command -v debootstrap >/dev/null || fail "debootstrap not found: apt-get install debootstrap"
command -v unshare >/dev/null || fail "unshare not found (util-linux)"

KEY="$(printf '%s %s %s arm64' "$SUITE" "$PACKAGES" "$MIRROR" | sha256sum | cut -c1-12)"
ROOT="${ROOT:-$CACHE/$SUITE-arm64-$KEY}"
WORK="$(mktemp -d /tmp/bornes-arm64.XXXXXX)"
TIMINGS="$WORK/timings"
: > "$TIMINGS"
cleanup() { rm -rf "$WORK"; }
trap cleanup EXIT

# Time a step: "timed NAME command..." appends "NAME seconds" to the timings.
# Its exit status is the command's: a failed step is never timed as a success.
timed() {
    local name="$1" start end status=0
    shift
    start=$(date +%s.%N)
    "$@" || status=$?
    end=$(date +%s.%N)
    printf '%-30s %7.1f s%s\n' "$name" "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')" \
        "$([[ $status -eq 0 ]] || echo "   FAILED (exit $status)")" >> "$TIMINGS"
    return "$status"
}

# Run a script inside a new user + mount + pid namespace, with the full uid/gid map and a private
# binfmt_misc that sends aarch64 ELF programs to qemu. The namespace's uid 0 is the real root,
# so files keep their owners; the map is written from outside (newuidmap would want /etc/subuid).
in_namespace() {
    local script="$1" gate="$WORK/gate" pid mine
    cat > "$WORK/enter.sh" <<EOF
set -euo pipefail
mount -t proc proc /proc
mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
printf '%s' ':qemu-aarch64:M::\x7f\x45\x4c\x46\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00:\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff:$QEMU:F' > /proc/sys/fs/binfmt_misc/register
mount -t proc proc "$ROOT/proc"
mount --rbind /dev "$ROOT/dev"
mount -t tmpfs tmpfs "$ROOT/tmp"
export container=lxc LC_ALL=C.UTF-8 PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
source "$script"
EOF
    rm -f "$gate"
    mkfifo "$gate"
    unshare --user --mount --pid --fork --kill-child -- bash -c 'read -r _ < "$0"; exec bash "$1"' \
        "$gate" "$WORK/enter.sh" &
    pid=$!
    mine="$(readlink /proc/self/ns/user)"
    for _ in $(seq 100); do
        [[ "$(readlink "/proc/$pid/ns/user" 2>/dev/null)" != "$mine" ]] && break
        sleep 0.05
    done
    echo '0 0 65536' > "/proc/$pid/uid_map"
    echo '0 0 65536' > "/proc/$pid/gid_map"
    echo go > "$gate"
    wait "$pid"
}

echo "== arm64 check: Debian $SUITE arm64, Python $PYTHON, root $ROOT"
if [[ $REBUILD -eq 1 || ! -e "$ROOT/.bornes-root-complete" ]]; then
    rm -rf "$ROOT"
    mkdir -p "$ROOT"
    echo "-- debootstrap, first stage (native): $SUITE arm64 minbase + $PACKAGES"
    timed "debootstrap first stage" debootstrap --arch=arm64 --foreign --variant=minbase \
        --include="$PACKAGES" "$SUITE" "$ROOT" "$MIRROR" > "$WORK/stage1.log" \
        || { tail -20 "$WORK/stage1.log"; fail "first stage failed"; }
    echo "-- debootstrap, second stage (emulated; about 20 minutes on two cores)"
    cat > "$WORK/stage2.sh" <<EOF
chroot "$ROOT" /debootstrap/debootstrap --second-stage
EOF
    timed "debootstrap second stage" in_namespace "$WORK/stage2.sh" > "$WORK/stage2.log" 2>&1 \
        || { tail -20 "$WORK/stage2.log"; fail "second stage failed"; }
    cp "$TIMINGS" "$ROOT/.bornes-root-timings"
    touch "$ROOT/.bornes-root-complete"
else
    echo "-- reusing the root built before (--rebuild for a new one)"
    if [[ -f "$ROOT/.bornes-root-timings" ]]; then
        sed 's/$/   (when the root was built)/' "$ROOT/.bornes-root-timings" >> "$TIMINGS"
    fi
fi

echo "-- pip download on this machine: aarch64 cp313 wheels pinned by systemd/pi-constraints.txt"
WHEELS="$ROOT/opt/bornes-check/wheels"
rm -rf "$ROOT/opt/bornes-check"
mkdir -p "$WHEELS"
# The project is the only thing built (here, natively, pure Python); the rest are wheels only.
HOST_PYTHON=python3
if [[ -x "$REPO/.venv/bin/python" ]]; then HOST_PYTHON="$REPO/.venv/bin/python"; fi
timed "pip download (host)" bash -c '
    "$4" -m pip wheel -q --disable-pip-version-check --no-deps -w "$1" "$2" &&
    "$4" -m pip download -q --disable-pip-version-check --only-binary :all: \
        --platform manylinux_2_17_aarch64 --python-version "$3" --implementation cp \
        -c "$2/systemd/pi-constraints.txt" -d "$1" "$(ls "$1"/bornes-*.whl)[web,club]" pytest hypothesis
' _ "$WHEELS" "$REPO" "$PYTHON" "$HOST_PYTHON" > "$WORK/download.log" 2>&1 \
    || { tail -20 "$WORK/download.log"; fail "pip download failed"; }
echo "   $(ls "$WHEELS" | wc -l) wheels, $(du -sh "$WHEELS" | cut -f1)"
# The checkout (the tests read docs and sources as well as their records), without venv or caches;
# the code the tests import is the installed wheel's (bornes.*), not these folders.
mkdir -p "$ROOT/opt/bornes-check/src"
tar -C "$REPO" --exclude=.git --exclude=.venv --exclude=.mypy --exclude=__pycache__ --exclude='*.egg-info' \
    --exclude=build --exclude=dist --exclude='.*_cache' --exclude=.hypothesis -cf - . \
    | tar -C "$ROOT/opt/bornes-check/src" -xf -

cat > "$WORK/check.sh" <<EOF
chroot "$ROOT" /bin/bash -euo pipefail -c '
    uname -m > /opt/bornes-check/arch
    python3 -c "import sys, platform; print(platform.machine(), sys.version.split()[0])" > /opt/bornes-check/python
'
EOF
in_namespace "$WORK/check.sh"
echo "   inside: $(cat "$ROOT/opt/bornes-check/arch") (uname -m), Python $(cat "$ROOT/opt/bornes-check/python")"

cat > "$WORK/install.sh" <<EOF
chroot "$ROOT" /bin/bash -euo pipefail -c '
    python3 -m venv /opt/bornes-check/venv
    cd /opt/bornes-check/wheels
    /opt/bornes-check/venv/bin/pip install -q --disable-pip-version-check --no-index \
        --find-links /opt/bornes-check/wheels --only-binary :all: \
        -c /opt/bornes-check/src/systemd/pi-constraints.txt "\$(ls bornes-*.whl)[web,club]" pytest hypothesis
    /opt/bornes-check/venv/bin/pip list --format=freeze > /opt/bornes-check/installed
'
EOF
echo "-- pip install --no-index --find-links (emulated)"
timed "pip install (emulated)" in_namespace "$WORK/install.sh" > "$WORK/install.log" 2>&1 \
    || { tail -20 "$WORK/install.log"; fail "pip install failed"; }
echo "   $(wc -l < "$ROOT/opt/bornes-check/installed") packages installed, none built from source"

cat > "$WORK/tests.sh" <<EOF
chroot "$ROOT" /bin/bash -euo pipefail -c '
    cd /opt/bornes-check/src
    /opt/bornes-check/venv/bin/python -m pytest tests/engine -q -o addopts= -p no:cacheprovider
'
EOF
echo "-- pytest tests/engine (emulated)"
status=0
timed "engine tests (emulated)" in_namespace "$WORK/tests.sh" > "$WORK/tests.log" 2>&1 || status=1
tail -3 "$WORK/tests.log"

cat > "$WORK/demo.sh" <<EOF
chroot "$ROOT" /bin/bash -euo pipefail -c '
    cd /tmp
    /opt/bornes-check/venv/bin/bornes demo --display dummy --hands 1 --seed 7
'
EOF
echo "-- bornes demo --display dummy --hands 1 --seed 7 (emulated)"
timed "demo, 1 hand (emulated)" in_namespace "$WORK/demo.sh" > "$WORK/demo.log" 2>&1 || status=1
tail -3 "$WORK/demo.log"

cat > "$WORK/simulate.sh" <<EOF
chroot "$ROOT" /bin/bash -euo pipefail -c '
    /opt/bornes-check/venv/bin/bornes simulate --hands 100 --seed 1 --json
'
EOF
echo "-- bornes simulate --hands 100 --seed 1 (emulated, then natively for comparison)"
timed "simulate, 100 hands (emulated)" in_namespace "$WORK/simulate.sh" > "$WORK/simulate.json" 2>"$WORK/simulate.err" \
    || { cat "$WORK/simulate.err"; status=1; }
if python3 -c 'import bornes' 2>/dev/null || [[ -x "$REPO/.venv/bin/bornes" ]]; then
    native="$REPO/.venv/bin/bornes"
    [[ -x $native ]] || native=bornes
    "$native" simulate --hands 100 --seed 1 --json > "$WORK/native.json" 2>/dev/null || true
    python3 - "$WORK/simulate.json" "$WORK/native.json" <<'EOF' || status=1
import json, sys
emulated, native = (json.load(open(path)) if open(path).read().strip() else None for path in sys.argv[1:])
def strip(summary):
    return {k: v for k, v in summary.items() if "second" not in k and "rate" not in k and "time" not in k}
if emulated is None:
    print("   simulate produced nothing")
elif native is None:
    print("   (no native run to compare with)")
else:
    same = strip(emulated) == strip(native)
    print(f"   {emulated['hands']} hands, {emulated['actions']} actions, {emulated['invariant_failures']} invariant"
          f" failures; {emulated['hands_per_second']} hands/s emulated, {native['hands_per_second']} native")
    print(f"   results {'identical to' if same else 'DIFFERENT from'} the native x86-64 run")
    sys.exit(0 if same else 1)
EOF
fi

if [[ $KEEP -eq 0 ]]; then rm -rf "$ROOT/opt/bornes-check"; fi

echo "== timings (this machine: $(nproc) cores, $(uname -m), qemu $($QEMU --version | head -1 | awk '{print $3}'))"
cat "$TIMINGS"
if [[ $status -ne 0 ]]; then fail "a step failed (logs above)"; fi
echo "== arm64 check passed"
