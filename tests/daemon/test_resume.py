"""Resuming from the journal: a game stopped between its last card and being marked finished."""

from __future__ import annotations

from pathlib import Path

from engine.record import write_header
from engine.simulate import simulate
from engine.state import GameSetup
from firmware.journal import Journal
from firmware.store import JournalStore


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
