"""Every accepted action is in the journal before the flow's game shows it.

A store whose append (or undo) fails on the Nth call stands in for a full disk or a power
cut at the worst moment: the game must not have moved, and the journal must hold exactly
the actions the game shows.
"""

from __future__ import annotations

import queue
from pathlib import Path

import pytest

from bornes.engine.actions import Action
from bornes.engine.game import Game
from bornes.engine.rules import Accepted
from bornes.firmware.appliance.referee import Referee
from bornes.firmware.storage.journal import Journal, JournalError
from bornes.firmware.storage.store import JournalStore
from bornes.firmware.table.flow import TableFlow
from tests.flow.helpers import drive, event, table

# A 4-player hand that goes through every kind of acceptance: plain plays, a discard,
# a coup fourré answered through the partner prompt, a target-free hazard, and undo.
SCRIPT = (
    "scan MB-ROLL-01",  # 1: A play
    "scan MB-ROLL-02",  # 2: B play
    "press DISCARD",
    "scan MB-D25-01",  # 3: C discard
    "scan MB-STOP-01",  # 4: D play (Stop on A & C)
    "press CF",
    "scan MB-RIGHTOFWAY-01",  # partner prompt
    "press NEXT",
    "press OK",  # 5: C coup
    "scan MB-D100-01",  # 6: C play (extra turn)
    "scan MB-D100-02",  # 7: D play
)


class FailingStore(JournalStore):
    """A JournalStore that fails on its Nth append and checks the order of every call."""

    def __init__(self, journal: Journal, fail_on: int | None = None, fail_undo: bool = False) -> None:
        super().__init__(journal)
        self.fail_on = fail_on
        self.fail_undo = fail_undo
        self.calls = 0

    def append(self, game: Game, action: Action, pad: str | None = None) -> None:
        self.calls += 1
        # Not applied yet: the engine would still accept it (an applied card is on the table).
        assert isinstance(game.check(action), Accepted), "the game shows the action already"
        assert self.journal.current_game().lines == [a.notation() for a in game.log]  # type: ignore[union-attr]
        if self.calls == self.fail_on:
            raise JournalError("disk full")
        super().append(game, action)

    def undo(self, game: Game) -> None:
        if self.fail_undo:
            raise JournalError("disk full")
        super().undo(game)


def journal_lines(journal: Journal) -> list[str]:
    current = journal.current_game()
    assert current is not None
    return current.lines


@pytest.mark.parametrize("fail_on", range(1, 8))
def test_a_failed_append_leaves_the_game_where_it_was(tmp_path: Path, fail_on: int) -> None:
    with Journal.open(tmp_path) as journal:
        store = FailingStore(journal, fail_on)
        flow = table(names="Ann,Bob,Cid,Dee", store=store)
        assert flow.game is not None
        failed = False
        for line in SCRIPT:
            before, log = flow.game.state, list(flow.game.log)
            try:
                drive(flow, line)
            except JournalError:
                failed = True
                assert flow.game.state is before and flow.game.log == log
                break
            assert journal_lines(journal) == [a.notation() for a in flow.game.log]
        assert failed
        assert len(flow.game.log) == fail_on - 1
        assert journal_lines(journal) == [a.notation() for a in flow.game.log]
        # What is on disk replays to exactly what the table shows.
        resumed = JournalStore(journal).resume()
        assert resumed is not None and resumed.state == flow.game.state


def test_the_referee_reports_a_failed_append_and_the_table_goes_on(tmp_path: Path) -> None:
    with Journal.open(tmp_path) as journal:
        store = FailingStore(journal, fail_on=2)
        flow = table(store=store)
        referee = Referee(flow, queue.Queue(), watchdog=False)
        assert referee.step(event("scan MB-ROLL-01")).verdict == "accepted"  # type: ignore[arg-type]
        out = referee.step(event("scan MB-ROLL-02"))  # type: ignore[arg-type]
        assert (out.verdict, out.reason) == ("refused", "storage")  # the storage, never "Internal error"
        assert [a.notation() for a in flow.game.log] == ["A play MB-ROLL-01"]  # type: ignore[union-attr]
        out = referee.step(event("scan MB-ROLL-02"))  # type: ignore[arg-type]
        assert out.verdict == "accepted"
        assert journal_lines(journal) == ["A play MB-ROLL-01", "B play MB-ROLL-02"]


def test_a_failed_undo_undoes_nothing(tmp_path: Path) -> None:
    with Journal.open(tmp_path) as journal:
        store = FailingStore(journal, fail_undo=True)
        flow = table(store=store)
        drive(flow, "scan MB-ROLL-01", "scan MB-ROLL-02", "press UNDO")
        before = flow.game.state  # type: ignore[union-attr]
        with pytest.raises(JournalError):
            drive(flow, "press OK")
        assert flow.game.state is before and len(flow.game.log) == 2  # type: ignore[union-attr]
        assert journal_lines(journal) == ["A play MB-ROLL-01", "B play MB-ROLL-02"]


def test_a_new_game_from_the_menus_abandons_the_one_in_progress(tmp_path: Path) -> None:
    with Journal.open(tmp_path) as journal:
        store = JournalStore(journal)
        flow = table(store=store)
        drive(flow, "scan MB-ROLL-01")
        fresh = TableFlow(store=store, players=2)
        drive(fresh, *["press OK"] * 6)
        assert fresh.game is not None and fresh.game.log == []
        statuses = [g.status for g in journal.history()]
        assert statuses == ["abandoned", "in-progress"]
        assert journal_lines(journal) == []
