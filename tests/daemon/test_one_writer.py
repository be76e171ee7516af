"""One writer per state directory (issue 11, item 3): a second referee, feed or enroll is refused by name."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from bench.driver import Daemon, Pty, write_config
from bornes.firmware.storage.journal import Journal

REPO = Path(__file__).resolve().parents[2]


def bornes(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bornes.firmware.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
    )


def settled(state: Path, quiet: float = 0.6, timeout: float = 10.0) -> None:
    """Wait until the referee has done what it does after the chirp (Journal.upkeep, when the table is
    quiet): its files stay unchanged for ``quiet`` seconds."""
    deadline = time.monotonic() + timeout

    def seen() -> list[tuple[int, int]]:
        return [(p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(state.glob("bornes.sqlite3*"))]

    last, since = seen(), time.monotonic()
    while time.monotonic() - since < quiet:
        assert time.monotonic() < deadline, "the referee never went quiet after the chirp"
        time.sleep(0.05)
        now = seen()
        if now != last:
            last, since = now, time.monotonic()


def test_a_second_writer_is_refused_and_readers_keep_working(tmp_path: Path) -> None:
    pty = Pty(tmp_path / "reader")
    config = write_config(tmp_path, pty.link)
    state = tmp_path / "state"
    daemon = Daemon(config)
    try:
        daemon.wait_up()
        for payload in ("MB-CMD-OK",) * 6 + ("MB-ROLL-01",):  # setup menus, then Anne's Roll
            pty.tap(payload)
        daemon.wait_accepted()
        settled(state)  # the referee's own checkpoint after the chirp is done
        before = (state / "bornes.sqlite3").stat().st_mtime_ns
        second = bornes("run", "--config", str(config))
        feed_script = tmp_path / "script.txt"
        feed_script.write_text("scan MB-ROLL-02\n")
        feed = bornes("feed", "--state-dir", str(state), str(feed_script))
        enroll = bornes("enroll", "--config", str(config), "--forget", "04A1B2C3")
        for refused in (second, feed, enroll):
            assert refused.returncode == 75, refused.stdout + refused.stderr
            [line] = refused.stderr.splitlines()
            assert f"is in use by bornes run (PID {daemon.pid})" in line
        assert "Traceback" not in second.stdout + second.stderr
        history = bornes("history", "--config", str(config))  # readers work beside the referee
        assert history.returncode == 0 and "in progress, 1 action)" in history.stdout, history.stdout
        doctor = bornes("doctor", "--config", str(config))
        assert "game 1 in progress (1 action)" in doctor.stdout
        listing = bornes("enroll", "--config", str(config), "--list")
        assert listing.returncode == 0, listing.stderr
        assert (state / "bornes.sqlite3").stat().st_mtime_ns == before  # nobody else wrote
    finally:
        daemon.stop()
        pty.close()
    with Journal.open(state, readonly=True) as journal:
        current = journal.current_game()
        assert current is not None and len(current.lines) == 1
    feed = bornes("feed", "--state-dir", str(state), str(feed_script))  # the referee is gone: now it may
    assert feed.returncode == 0, feed.stderr
