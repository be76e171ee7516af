"""Resuming from the journal: a game stopped between its last card and being marked finished."""

from __future__ import annotations

from pathlib import Path

from bornes.engine.record import write_header
from bornes.engine.simulate import simulate
from bornes.engine.state import GameSetup
from bornes.firmware.storage.journal import Journal
from bornes.firmware.storage.store import JournalStore


def test_a_finished_game_left_in_progress_is_marked_finished_on_resume(tmp_path: Path) -> None:
    setup = GameSetup.create("winning-moves", ["Ann", "Bob"])
    report = simulate(setup, hands=40, seed=2)
    game = next(g for g in report.games_played if g.state.over)  # a whole game, to 5000
    with Journal.open(tmp_path) as journal:
        game_id = journal.new_game(write_header(setup))
        for seq, action in enumerate(game.log):
            journal.append(game_id, seq, action.notation())
        # The power went off here: the last card is stored, the game is not marked finished.
    with Journal.open(tmp_path) as journal:
        resumed = JournalStore(journal).resume()
        assert resumed is not None and resumed.state == game.state
        assert journal.current_game() is None
        [info] = journal.history()
        assert info.status == "finished"


def test_a_game_that_no_longer_replays_is_kept_and_set_aside_on_a_held_ok(tmp_path: Path) -> None:
    """Rather than restart forever with a blank panel, the daemon says so and waits for a person."""
    import subprocess
    import sys

    state = tmp_path / "state"
    state.mkdir()
    with Journal.open(state) as journal:
        game_id = journal.new_game(write_header(GameSetup.create("winning-moves", ["Ann", "Bob"])))
        journal.append(game_id, 0, "B play MB-D100-01")  # miles before any Roll: refused on replay
    config = tmp_path / "config.toml"
    config.write_text(f'[display]\npanel = "dummy"\n[pins]\nfactory = "mock"\n[state]\ndir = "{state}"\n')
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "bornes.firmware.cli",
            "run",
            "--emulate",
            "--display",
            "dummy",
            "--config",
            str(config),
        ],
        input="long ok\nok\n",
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "does not replay" in run.stdout and "kept in history as abandoned" in run.stdout
    assert "referee up" in run.stdout and "Traceback" not in run.stdout + run.stderr
    with Journal.open(state) as journal:
        assert journal.current_game() is None
        [info] = journal.history()
        assert info.status == "abandoned" and info.actions == 1
