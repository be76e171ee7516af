"""The referee and damage it does not need at start, and a journal held by another program (issue 11, items 1-2)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from bench.driver import REPO, bornes_command
from bench.journal import build
from bornes.firmware.appliance import assembly as appliance
from bornes.firmware.storage.journal import FILENAME, Journal
from bornes.firmware.table.flow import TableFlow


def test_the_idle_check_finds_damage_the_open_check_leaves_for_later(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    build(tmp_path, 3)
    with sqlite3.connect(tmp_path / FILENAME) as db:
        db.execute("UPDATE actions SET line = 'A play MB-ROLL-02' WHERE game_id = 1 AND seq = 5")
    db.close()
    Journal.open(tmp_path).close()  # start stays O(game in progress): it opens
    monkeypatch.setattr(appliance.IntegrityWatch, "FIRST_DELAY", 0.01)
    flow = TableFlow()
    watch = appliance.IntegrityWatch(tmp_path, flow)
    try:
        deadline = time.monotonic() + 20
        while watch.checks == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        watch.close()
    assert watch.problem is not None and "game 1 action 5 fails its checksum" in watch.problem
    assert flow.ui.status == "Journal damaged"  # it fits the 128x64 header (issue 19)


HOLD = textwrap.dedent(
    """
    import sqlite3, sys, time
    db = sqlite3.connect(sys.argv[1], isolation_level=None)
    db.execute("PRAGMA locking_mode=EXCLUSIVE")
    db.execute("BEGIN EXCLUSIVE")
    print("held", flush=True)
    time.sleep(60)
    """
)


def test_a_locked_journal_stops_the_referee_as_busy_and_is_never_set_aside(tmp_path: Path) -> None:
    state = tmp_path / "state"
    with Journal.open(state) as journal:
        journal.new_game("[Edition dujardin]")
    config = tmp_path / "config.toml"
    config.write_text(f'[display]\npanel = "dummy"\n[pins]\nfactory = "mock"\n[state]\ndir = "{state}"\n')
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(state / FILENAME)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        run = subprocess.run([*bornes_command(), "run", "--emulate", "--display", "dummy", "--config", str(config)],
                             input="long ok\n", capture_output=True, text=True, timeout=60, cwd=REPO)
    finally:
        holder.kill()
        holder.wait()
    assert run.returncode == 75, run.stdout + run.stderr
    [line] = run.stderr.splitlines()
    assert f"the journal is in use by another program (PID {holder.pid})" in line
    assert "damaged" not in run.stdout + run.stderr and "Hold OK" not in run.stdout
    assert sorted(p.name for p in state.iterdir() if "corrupt" in p.name) == []
    with Journal.open(state) as journal:
        assert journal.current_game() is not None
