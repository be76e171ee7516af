"""The daemon talks to systemd: READY once the referee is up, WATCHDOG from the loop, STOPPING on SIGTERM.

A real AF_UNIX datagram socket stands in for systemd's NOTIFY_SOCKET, and the real
``bornes run`` process runs with mock pins, the dummy display and no reader.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path


def _config(tmp_path: Path) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(
        f"""
[display]
panel = "dummy"
[pins]
factory = "mock"
[state]
dir = "{tmp_path / 'state'}"
[game]
players = 2
"""
    )
    return path


def test_ready_watchdog_and_stopping_reach_systemd(tmp_path: Path) -> None:
    address = str(tmp_path / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(address)
    sock.settimeout(60)  # until READY: a loaded machine starts Python slowly; reached only on a failure
    env = {**os.environ, "NOTIFY_SOCKET": address, "WATCHDOG_USEC": "400000"}  # ping every 0.2 s
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "bornes.firmware.cli", "run", "--config", str(_config(tmp_path)), "--no-reader"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        messages: list[bytes] = []
        while sum(m == b"WATCHDOG=1" for m in messages) < 3:
            messages.append(sock.recv(256))
        ready_at = time.monotonic() - started
        assert messages[0].startswith(b"READY=1"), messages
        assert ready_at < 60  # TimeoutStartSec in systemd/bornes.service (the start-to-READY figure is bench's)
        proc.send_signal(signal.SIGTERM)
        while not messages[-1].startswith(b"STOPPING=1"):
            messages.append(sock.recv(256))
        out, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
        sock.close()
    assert proc.returncode == 0, out
    assert "Traceback" not in out
    assert "signal SIGTERM: shutting down" in out


def test_no_watchdog_pings_without_a_watchdog(tmp_path: Path) -> None:
    """Without WATCHDOG_USEC the loop only blocks on its queue: READY, then nothing until SIGTERM."""
    address = str(tmp_path / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(address)
    sock.settimeout(60)  # until READY: a loaded machine starts Python slowly; reached only on a failure
    env = {k: v for k, v in os.environ.items() if k != "WATCHDOG_USEC"}
    env["NOTIFY_SOCKET"] = address
    proc = subprocess.Popen(
        [sys.executable, "-m", "bornes.firmware.cli", "run", "--config", str(_config(tmp_path)), "--no-reader"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert sock.recv(256).startswith(b"READY=1")
        sock.settimeout(1.0)
        try:
            extra = sock.recv(256)
        except TimeoutError:
            extra = b""
        assert extra == b""
        proc.send_signal(signal.SIGTERM)
        sock.settimeout(60)  # until STOPPING
        assert sock.recv(256).startswith(b"STOPPING=1")
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
        sock.close()
    assert proc.returncode == 0
