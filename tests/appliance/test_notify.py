"""sd_notify datagrams reach a real AF_UNIX socket standing in for systemd's."""

from __future__ import annotations

import itertools
import os
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bornes.firmware.appliance import notify

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def listener(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[socket.socket]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    path = tmp_path / "notify.sock"
    sock.bind(str(path))
    sock.settimeout(2)
    monkeypatch.setenv("NOTIFY_SOCKET", str(path))
    yield sock
    sock.close()


def test_each_message_arrives_as_one_datagram(listener: socket.socket) -> None:
    assert notify.ready("referee up: 4 players")
    assert listener.recv(4096) == b"READY=1\nSTATUS=referee up: 4 players"
    assert notify.status("waiting for\nthe reader")
    assert listener.recv(4096) == b"STATUS=waiting for the reader", "a STATUS stays one assignment"
    assert notify.watchdog()
    assert listener.recv(4096) == b"WATCHDOG=1"
    assert notify.stopping()
    assert listener.recv(4096) == b"STOPPING=1"


def test_abstract_socket_name(monkeypatch: pytest.MonkeyPatch) -> None:
    name = f"bornes-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        sock.settimeout(2)
        monkeypatch.setenv("NOTIFY_SOCKET", "@" + name)
        assert notify.ready()
        assert sock.recv(4096) == b"READY=1"


def test_no_socket_is_a_quiet_no_op(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    assert notify.ready() is False and notify.watchdog() is False
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "gone.sock"))
    assert notify.watchdog() is False, "a dead socket is logged, never raised"


def test_watchdog_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    monkeypatch.delenv("WATCHDOG_USEC", raising=False)
    assert notify.watchdog_interval() is None
    monkeypatch.setenv("WATCHDOG_USEC", "10000000")
    assert notify.watchdog_interval() == 5.0
    monkeypatch.setenv("WATCHDOG_USEC", "junk")
    assert notify.watchdog_interval() is None
    monkeypatch.setenv("WATCHDOG_USEC", "0")
    assert notify.watchdog_interval() is None
    monkeypatch.setenv("WATCHDOG_USEC", "400000")
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    assert notify.watchdog_interval() == 0.2
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid() + 1))
    assert notify.watchdog_interval() is None, "the watchdog belongs to another process"


LOOP = textwrap.dedent(
    """
    import sys, time
    sys.path.insert(0, sys.argv[1])
    from bornes.firmware.appliance import notify
    interval = notify.watchdog_interval()
    notify.ready("up")
    for _ in range(4):
        time.sleep(interval)
        notify.watchdog()
    notify.stopping()
    """
)


def test_a_service_process_sends_ready_then_watchdog_pings_in_time(listener: socket.socket) -> None:
    """What systemd sees from a Type=notify service with WatchdogSec: READY, then a ping every half period."""
    env = {**os.environ, "WATCHDOG_USEC": "400000"}
    env.pop("WATCHDOG_PID", None)
    child = subprocess.Popen([sys.executable, "-c", LOOP, str(REPO)], env=env)
    try:
        received = [listener.recv(4096)]
        stamps = [time.monotonic()]
        while received[-1] != b"STOPPING=1":
            received.append(listener.recv(4096))
            stamps.append(time.monotonic())
    finally:
        child.wait(timeout=10)
    assert received == [b"READY=1\nSTATUS=up", *[b"WATCHDOG=1"] * 4, b"STOPPING=1"]
    gaps = [b - a for a, b in itertools.pairwise(stamps[:-1])]  # READY and the pings, not STOPPING
    assert all(0.15 < gap < 0.4 for gap in gaps), f"pings must come within WatchdogSec: {gaps}"
    assert child.returncode == 0
