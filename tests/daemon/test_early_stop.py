"""SIGTERM during a slow start is a clean stop: ``bornes run`` installs its handlers first.

On a Pi Zero 2 W the start takes seconds (imports of the referee, screens and PIL, the journal
check); systemd may stop the unit at any moment of it, and a death by signal would skip the
clean shutdown.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.daemon.test_sd_notify import _config

SIGTERM_BIT = 1 << (signal.SIGTERM - 1)


def _catches_sigterm(pid: int) -> bool:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) & SIGTERM_BIT)
    return False


def test_the_handlers_are_installed_before_the_slow_imports(tmp_path: Path) -> None:
    probe = (
        "import signal, sys\n"
        "def record(signum, handler):\n"
        "    if signum == signal.SIGTERM:\n"
        "        print(' '.join(sorted(sys.modules)))\n"
        "        raise SystemExit(0)\n"
        "signal.signal = record\n"
        "from bornes.firmware import cli\n"
        f"cli.main(['run', '--config', {str(_config(tmp_path))!r}, '--no-reader'])\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    loaded = set(out.stdout.split())
    assert "bornes.firmware.commands.run" in loaded  # the probe really ran up to the handler
    for slow in (
        "PIL",
        "bornes.firmware.appliance.referee",
        "bornes.firmware.table.flow",
        "bornes.firmware.storage.journal",
        "sqlite3",
        "gpiozero",
        "serial",
    ):
        assert slow not in loaded, f"{slow} is imported before SIGTERM is handled"


def test_sigterm_as_soon_as_it_is_handled_stops_cleanly_before_the_referee_is_up(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "bornes.firmware.cli", "run", "--config", str(_config(tmp_path)), "--no-reader"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        deadline = time.monotonic() + 20
        while not _catches_sigterm(proc.pid):
            assert proc.poll() is None and time.monotonic() < deadline, "SIGTERM was never handled"
            time.sleep(0.001)
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out
    assert "Traceback" not in out
    assert "referee up" not in out, "the signal came only after the start"
