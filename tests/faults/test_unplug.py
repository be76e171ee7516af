"""Reader unplug: 50 unplugs and replugs of the reader during a game, through the daemon.

The reader's port is a symlink (like udev's ``/dev/bornes-reader``) to a pty. Unplugging closes
the pty and removes the link; replugging makes a new pty and links it. The reconnect is seen
from outside, as the daemon opening the new pty (its /proc fd table); with ``max_backoff = 2.0``
it comes within 2 s on an idle machine (the test prints the figures). The test fails only past
2 s + 3 s of slack: a loaded CI machine may pause the daemon, and the ceiling itself is checked
without a stopwatch in tests/readers/test_serial_reader.py (the waits the reader asks for).
Taps resume once the daemon logs "reader back". The scan tapped right after each reconnect must
be accepted, and the daemon must neither crash nor log an internal error.
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

import pytest

from bench.driver import Daemon, Pty, script_games, write_config

CYCLES = 50
LIMIT = 2.0  # seconds from replug to the reader reading the new port, on an idle machine
SLACK = 3.0  # what a loaded machine may add before a late reconnect is a failure
LONG_UNPLUGS = {12, 31, 44}  # unplugged long enough for the reader's backoff to reach its ceiling
FAST_CYCLES, FAST_LONG_UNPLUGS = 4, set[int]()  # the fast tier: short unplugs only (the ceiling has its own test)


def _holds(pid: int, device: str) -> bool:
    """Whether process ``pid`` has ``device`` open."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except FileNotFoundError:
        return False
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") == device:
                return True
        except OSError:
            continue
    return False


def _wait_open(pid: int, device: str, limit: float) -> float:
    started = time.monotonic()
    while time.monotonic() - started < limit + SLACK:
        if _holds(pid, device):
            return time.monotonic() - started
        time.sleep(0.002)
    return float("inf")


@pytest.mark.parametrize(("cycles", "long_unplugs"), [
    pytest.param(CYCLES, LONG_UNPLUGS, marks=pytest.mark.slow, id="50"),
    pytest.param(FAST_CYCLES, FAST_LONG_UNPLUGS, id="4"),
])
def test_unplugs_reconnect_within_2_s_and_lose_no_scan(tmp_path: Path, cycles: int, long_unplugs: set[int]) -> None:
    script = script_games(players=2, seed=5, games=2)
    rng = random.Random(50)
    pty = Pty(tmp_path / "reader")
    config = write_config(tmp_path, pty.link, players=2, max_backoff=2.0)
    daemon = Daemon(config)
    reconnects: list[float] = []
    step = 0
    try:
        daemon.wait_up()
        assert pty.slave is not None
        assert _wait_open(daemon.pid, os.ttyname(pty.slave), LIMIT) < LIMIT + SLACK
        for cycle in range(cycles):
            for _ in range(rng.randint(1, 4)):  # play a little
                for payload in script.steps[step].taps:
                    pty.tap(payload)
                assert daemon.wait_accepted() == script.steps[step].notation
                step += 1
            pty.unplug()
            time.sleep(3.0 if cycle in long_unplugs else rng.uniform(0.0, 0.5))
            pty.plug()
            assert pty.slave is not None
            reconnects.append(_wait_open(daemon.pid, os.ttyname(pty.slave), LIMIT))
            # pyserial flushes the input right after opening the device: a tap is safe once the
            # reader says it is back, which the daemon logs.
            daemon.wait_for(lambda line: "reader back" in line)
            # the first scan after the reconnect must count
            for payload in script.steps[step].taps:
                pty.tap(payload)
            assert daemon.wait_accepted() == script.steps[step].notation, f"cycle {cycle}: scan after replug"
            step += 1
        assert daemon.process.poll() is None, "the daemon died"
    finally:
        code = daemon.stop()
        pty.close()
    late = [r for r in reconnects if r > LIMIT]
    print(f"\nunplug: {len(reconnects)} replugs, slowest reconnect {max(reconnects):.3f} s, "
          f"median {sorted(reconnects)[len(reconnects) // 2]:.3f} s, over {LIMIT:g} s: {len(late)}, "
          f"{step} actions accepted, exit status {code}")
    assert code == 0
    assert not [line for line in daemon.log if "Traceback" in line or "internal error" in line]
    assert max(reconnects) < LIMIT + SLACK, f"reconnects over {LIMIT} s: {late}"
