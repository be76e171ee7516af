"""The Debian trixie root and the pinned wheels the booted tiers start from, cached on this machine.

:func:`cached_root` builds the root once with debootstrap from Debian's packages and keeps it in
``/var/cache/bornes-ci/`` (``$BORNES_CI_CACHE``) under a hash of its package list;
:func:`cached_wheels` fetches the Python packages a Pi would download, on the host, with ``pip
download`` (wheels only, the versions of ``systemd/pi-constraints.txt``), so ``install.sh --wheels``
installs offline. tests/system boots a copy of the root with systemd-nspawn; tools/kernel boots it
under Debian's kernel in qemu (the kernel tier, and ``python -m bench.kernel``). Both use it as it
is: the cached root stays clean. It lives in ``tools/`` because the bench uses it too.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CONSTRAINTS = REPO / "systemd" / "pi-constraints.txt"
SUITE = "trixie"
PYTHON = "3.13"
MIRROR = os.environ.get("BORNES_CI_MIRROR", "http://deb.debian.org/debian")
CACHE = Path(os.environ.get("BORNES_CI_CACHE", "/var/cache/bornes-ci"))
#: What the root has besides minbase: systemd as init, Python, what install.sh takes from apt (so
#: it needs no network; gcc, libc6-dev and python3-dev for its --compile-engine), and a broker for the bridge;
#: the kernel tier's power-cut sweep makes ext4 as a Pi's root is made (e2fsprogs) on a device-mapper
#: log-writes target (dmsetup), whose module it loads (kmod's modprobe).
PACKAGES = ("systemd", "systemd-sysv", "dbus", "python3", "python3-venv", "python3-evdev", "i2c-tools", "mosquitto",
            "mosquitto-clients", "gcc", "libc6-dev", "python3-dev", "e2fsprogs", "dmsetup", "kmod")
#: Bump when the way the root is prepared changes, so cached roots are rebuilt.
RECIPE = "1"
#: Roots kept in the cache, this one with them (branches with other package lists tested on one machine).
ROOTS_KEPT = 2
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#: The emulated reader: a pty behind /dev/bornes-reader, fed one tap per line written to the FIFO.
FEED = "/run/bornes-test/taps"
FEEDER = f'''\
"""The test's card reader: a pty named /dev/bornes-reader (as udev names a USB reader), fed from a FIFO."""
import grp
import os

os.makedirs("/run/bornes-test", exist_ok=True)
if not os.path.exists("{FEED}"):
    os.mkfifo("{FEED}", 0o600)
master, slave = os.openpty()  # our slave stays open: the referee's reopen never sees a hangup
name = os.ttyname(slave)
os.chown(name, 0, grp.getgrnam("dialout").gr_gid)
os.chmod(name, 0o660)
if os.path.lexists("/dev/bornes-reader.new"):
    os.unlink("/dev/bornes-reader.new")
os.symlink(name, "/dev/bornes-reader.new")
os.replace("/dev/bornes-reader.new", "/dev/bornes-reader")
feed = os.open("{FEED}", os.O_RDWR)  # read-write: no EOF when a writer closes
pending = b""
while True:
    pending += os.read(feed, 4096)
    while b"\\n" in pending:
        line, pending = pending.split(b"\\n", 1)
        os.write(master, line.strip() + b"\\r\\n")
'''
FEEDER_UNIT = """\
[Unit]
Description=The system test's emulated card reader (a pty at /dev/bornes-reader)
Before=bornes.service

[Service]
ExecStart=/usr/bin/python3 /usr/local/lib/bornes-test/feeder.py

[Install]
WantedBy=multi-user.target
"""


class CannotBoot(RuntimeError):
    """This machine cannot build or boot the root; the message is the one-line reason."""


def _key(*parts: str) -> str:
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:12]


@contextlib.contextmanager
def _locked(name: str) -> Iterator[None]:
    """One builder at a time across processes (several test runs may share the cache)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def cached_root() -> Path:
    """The pristine trixie root, built by debootstrap on first use (about a minute)."""
    root = CACHE / f"{SUITE}-amd64-{_key(SUITE, MIRROR, RECIPE, *PACKAGES)}"
    with _locked("root"):
        if (root / ".bornes-root-complete").exists():
            return root
        partial = root.with_name(root.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        command = ["debootstrap", "--variant=minbase", f"--include={','.join(PACKAGES)}", SUITE, str(partial), MIRROR]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False)
        except subprocess.TimeoutExpired as timeout:
            raise CannotBoot(f"debootstrap {SUITE} took more than {timeout.timeout:.0f} s") from None
        if done.returncode != 0:
            shutil.rmtree(partial, ignore_errors=True)
            last = (done.stdout + done.stderr).strip().splitlines()[-1:] or ["no output"]
            raise CannotBoot(f"debootstrap {SUITE} failed: {last[0]}")
        # The container's own card reader and its unit, enabled as `systemctl enable` would.
        (partial / "usr/local/lib/bornes-test").mkdir(parents=True)
        (partial / "usr/local/lib/bornes-test/feeder.py").write_text(FEEDER)
        (partial / "etc/systemd/system/bornes-test-reader.service").write_text(FEEDER_UNIT)
        wants = partial / "etc/systemd/system/multi-user.target.wants"
        wants.mkdir(parents=True, exist_ok=True)
        (wants / "bornes-test-reader.service").symlink_to("/etc/systemd/system/bornes-test-reader.service")
        (partial / ".bornes-root-complete").touch()
        partial.rename(root)
        # Roots of another package list: the newest kept (a branch that adds a package shares the cache with
        # branches that do not, and a root in use is an overlay's lower folder), the older ones removed.
        others = sorted((p for p in CACHE.glob(f"{SUITE}-amd64-*") if p != root and not p.name.endswith(".partial")),
                        key=lambda p: p.stat().st_mtime, reverse=True)
        for stale in others[ROOTS_KEPT - 1:]:
            shutil.rmtree(stale, ignore_errors=True)
        return root


def cached_wheels() -> Path:
    """The pinned wheels for CPython 3.13 on x86-64, downloaded here as an image builder would."""
    text = CONSTRAINTS.read_text()
    folder = CACHE / f"wheels-cp{PYTHON.replace('.', '')}-x86_64-{_key(text)}"
    with _locked("wheels"):
        if (folder / ".complete").exists():
            return folder
        shutil.rmtree(folder, ignore_errors=True)
        command = [sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check", "--no-deps",
                   "--only-binary", ":all:", "--platform", "manylinux_2_17_x86_64", "--python-version", PYTHON,
                   "--implementation", "cp", "-d", str(folder), "-r", str(CONSTRAINTS)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
        if done.returncode != 0:
            shutil.rmtree(folder, ignore_errors=True)
            raise CannotBoot(f"pip download of the pinned wheels failed: {done.stderr.strip().splitlines()[-1:]}")
        (folder / ".complete").touch()
        for stale in CACHE.glob(f"wheels-cp{PYTHON.replace('.', '')}-x86_64-*"):
            if stale != folder:
                shutil.rmtree(stale, ignore_errors=True)
        return folder
