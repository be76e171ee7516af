"""A Debian trixie root booted with ``systemd-nspawn -b``: the machinery of the system test.

The root is built once with debootstrap from Debian's packages and kept in
``/var/cache/bornes-ci/`` (``$BORNES_CI_CACHE``) under a hash of its package list; each run boots
a copy of it, so the cached root stays clean. The Python packages a Pi would download are
fetched here, on the host, with ``pip download`` (wheels only, the versions of
``systemd/pi-constraints.txt``): the container has a private network with nothing but loopback,
as an image builder's root would, and ``install.sh --wheels`` installs from them.

Commands run inside the booted container through ``nsenter`` into its init's namespaces (the
container is not registered with machined: ``--register=no``, so ``machinectl`` cannot reach it).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from tools.checkout import copy_source

REPO = Path(__file__).resolve().parents[2]
CONSTRAINTS = REPO / "systemd" / "pi-constraints.txt"
SUITE = "trixie"
PYTHON = "3.13"
MIRROR = os.environ.get("BORNES_CI_MIRROR", "http://deb.debian.org/debian")
CACHE = Path(os.environ.get("BORNES_CI_CACHE", "/var/cache/bornes-ci"))
#: What the root has besides minbase: systemd as init, Python, what install.sh takes from apt (so
#: it needs no network; gcc, libc6-dev and python3-dev for its --compile-engine), and a broker for the bridge.
PACKAGES = ("systemd", "systemd-sysv", "dbus", "python3", "python3-venv", "python3-evdev", "i2c-tools", "mosquitto",
            "mosquitto-clients", "gcc", "libc6-dev", "python3-dev")
#: Bump when the way the root is prepared changes, so cached roots are rebuilt.
RECIPE = "1"
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
        for stale in CACHE.glob(f"{SUITE}-amd64-*"):  # roots of an older package list: keep the cache small
            if stale != root:
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


class Machine:
    """A booted copy of the cached root. ``start()``/``stop()`` may be repeated (a reboot)."""

    def __init__(self, pristine: Path, wheels: Path) -> None:
        self.workdir = Path(tempfile.mkdtemp(prefix="bornes-system-", dir="/var/tmp"))
        self.root = self.workdir / "root"
        self.name = f"bornes-test-{os.getpid()}"
        self.log_path = self.workdir / "nspawn.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.leader = 0
        try:
            done = subprocess.run(["cp", "-a", "--reflink=auto", str(pristine), str(self.root)],
                                  capture_output=True, text=True, timeout=300, check=False)
            if done.returncode != 0:
                raise CannotBoot(f"could not copy the root: {done.stderr.strip()}")
            # The checkout where a Pi would have it (the units' Documentation= points there).
            # Its source only: never a checkout's runtime state (the emulator's .bornes-desktop/, .venv/).
            copy_source(self.root / "opt/bornes/src")
            shutil.copytree(wheels, self.root / "var/cache/bornes-wheels")
            (self.root / "etc/hostname").write_text("bornes-test\n")
        except BaseException:
            shutil.rmtree(self.workdir, ignore_errors=True)
            raise

    # -- life cycle ---------------------------------------------------------------------------

    def start(self, timeout: float = 60.0) -> None:
        """Boot; return once systemd says the boot is over (``running`` or ``degraded``)."""
        log = open(self.log_path, "ab")  # noqa: SIM115 - kept open for the container's life
        self.process = subprocess.Popen(
            ["systemd-nspawn", "--boot", "--directory", str(self.root), "--machine", self.name,
             "--register=no", "--keep-unit", "--private-network", "--console=passive"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        deadline = time.monotonic() + timeout
        self.leader = 0
        while time.monotonic() < deadline and self.process.poll() is None:
            children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
            with contextlib.suppress(OSError):
                pids = children.read_text().split()
                if pids and Path(f"/proc/{pids[0]}/root/usr").exists():
                    self.leader = int(pids[0])
                    state = self.run("systemctl", "is-system-running", "--wait", timeout=max(1.0, deadline -
                                     time.monotonic()), check=False)
                    if state.stdout.strip() in ("running", "degraded"):
                        return
            time.sleep(0.2)
        reason = self.log_tail() or "no output"
        self.stop()
        raise CannotBoot(f"systemd-nspawn -b did not boot {SUITE} here: {reason}")

    def stop(self, timeout: float = 30.0) -> None:
        """Power off (SIGTERM to nspawn asks the container's systemd to shut down), then make sure."""
        process, self.process = self.process, None
        if process is None:
            return
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)
        self.leader = 0
        self._unmount()

    def close(self) -> None:
        """Stop, and remove the copy (never the cached root)."""
        try:
            self.stop()
        finally:
            if not self.mounts():
                shutil.rmtree(self.workdir, ignore_errors=True)

    def mounts(self) -> list[str]:
        """Mount points left under this machine's copy (there should be none once stopped)."""
        found = []
        with open("/proc/self/mountinfo") as table:
            for line in table:
                point = line.split()[4].encode().decode("unicode_escape")
                if point == str(self.workdir) or point.startswith(f"{self.workdir}/"):
                    found.append(point)
        return found

    def _unmount(self) -> None:
        for point in sorted(self.mounts(), key=len, reverse=True):
            subprocess.run(["umount", "--lazy", point], capture_output=True, timeout=30, check=False)

    def log_tail(self) -> str:
        try:
            lines = [line for line in self.log_path.read_text(errors="replace").splitlines() if line.strip()]
        except OSError:
            return ""
        return lines[-1].strip() if lines else ""

    # -- inside ---------------------------------------------------------------------------------

    def run(self, *command: str, timeout: float = 60.0, check: bool = True,
            input: str | None = None) -> subprocess.CompletedProcess[str]:
        """Run a command inside the container (all of its init's namespaces), with a clean environment."""
        assert self.leader, "the machine is not running"
        done = subprocess.run(
            ["nsenter", "--target", str(self.leader), "--all", "--", "env", "-i", f"PATH={PATH}", "LANG=C.UTF-8",
             *command],
            capture_output=True, text=True, timeout=timeout, check=False, input=input)
        if check and done.returncode != 0:
            raise AssertionError(f"{' '.join(command)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
        return done

    def path(self, inside: str) -> Path:
        """A path of the running container, seen from the host."""
        return Path(f"/proc/{self.leader}/root{inside}")

    def show(self, unit: str, *properties: str) -> dict[str, str]:
        done = self.run("systemctl", "show", unit, "--property=" + ",".join(properties))
        return dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)

    def journal(self, unit: str) -> list[str]:
        """The unit's lines in the systemd journal, message text only."""
        return self.run("journalctl", "--unit", unit, "--output=cat", "--no-pager", "--quiet").stdout.splitlines()

    def wait(self, what: str, ready: Callable[[], bool], timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while not ready():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
            time.sleep(0.2)

    def tap(self, *payloads: str) -> None:
        """Tap cards (or the reader's command cards) on the emulated reader."""
        with open(self.path(FEED), "w") as feed:
            for payload in payloads:
                feed.write(payload + "\n")
                feed.flush()
