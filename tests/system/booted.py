"""A Debian trixie root booted with ``systemd-nspawn -b``: the machinery of the system test.

The root and the wheels are tools/trixie.py's (built once, cached in ``/var/cache/bornes-ci/``);
each run boots a copy of the root, so the cached root stays clean. The container has a private
network with nothing but loopback, as an image builder's root would, and ``install.sh --wheels``
installs from the wheels fetched on the host.

Commands run inside the booted container through ``nsenter`` into its init's namespaces (the
container is not registered with machined: ``--register=no``, so ``machinectl`` cannot reach it).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tools.checkout import copy_source
from tools.trixie import FEED, PATH, REPO, SUITE, CannotBoot, cached_root, cached_wheels

__all__ = ["REPO", "CannotBoot", "Machine", "cached_root", "cached_wheels"]


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
