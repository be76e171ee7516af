"""Retention (issue 11, item 8): old games leave the journal only after they are written out as records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.journal import build
from bornes.firmware.cli import main
from bornes.firmware.storage.journal import Journal


def test_archive_writes_records_then_keeps_the_newest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "state"
    build(state, 5)
    with Journal.open(state) as journal:
        journal.new_game("[Edition dujardin]")  # a game in progress is never archived
        before = [journal.load(i) for i in range(1, 6)]
    config = tmp_path / "config.toml"
    config.write_text(f'[state]\ndir = "{state}"\nkeep_games = 3\n')
    assert main(["archive", "--config", str(config)]) == 0
    assert "archived 3 games" in capsys.readouterr().out
    out = state / "archive"
    index = [json.loads(line) for line in (out / "index.jsonl").read_text().splitlines()]
    assert [entry["game"] for entry in index] == [1, 2, 3]
    with Journal.open(state) as journal:
        assert [g.game_id for g in journal.history()] == [4, 5, 6]
        assert journal.verify() == 3 and journal.load(1) is None
        assert journal.current_game() is not None
    for entry, record in zip(index, before[:3], strict=True):
        assert record is not None and entry["actions"] == len(record.lines) and entry["status"] == "finished"
        assert main(["replay", str(out / entry["record"])]) == 0  # an archived record replays as it was played
        replayed = capsys.readouterr().out
        assert replayed.count(" ok ") == len(record.lines)
    assert main(["archive", "--config", str(config)]) == 0  # nothing more to do
    assert "archived 0 games" in capsys.readouterr().out
    assert main(["history", "--config", str(config), "--last", "2"]) == 0
    assert "(the newest 2 of 3 games" in capsys.readouterr().out


def test_keep_games_is_a_bounded_whole_number(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'[state]\ndir = "{tmp_path}"\nkeep_games = -1\n')
    assert main(["archive", "--config", str(config)]) == 78
    assert "state.keep_games = -1 is out of range" in capsys.readouterr().err


def test_the_referee_applies_keep_games_at_start(tmp_path: Path) -> None:
    from bench.driver import Daemon, Pty, write_config

    state = tmp_path / "state"
    build(state, 4)
    pty = Pty(tmp_path / "reader")
    config = write_config(tmp_path, pty.link, state=state, extra="")
    config.write_text(config.read_text().replace(f'dir = "{state}"', f'dir = "{state}"\nkeep_games = 1'))
    daemon = Daemon(config)
    try:
        daemon.wait_for(lambda line: "archived 3 old games" in line)
        daemon.wait_up()
    finally:
        daemon.stop()
        pty.close()
    with Journal.open(state, readonly=True) as journal:
        assert [g.game_id for g in journal.history()] == [4]
    assert len(list((state / "archive").glob("game-*.record"))) == 3
