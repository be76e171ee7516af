"""A full or failing disk reaches players as the truth about storage, never as "Internal error" (issue 11, item 5)."""

from __future__ import annotations

import queue
from collections.abc import Iterator
from pathlib import Path

import pytest

from bornes.firmware.appliance.referee import Referee
from bornes.firmware.storage.journal import Journal, JournalFull
from bornes.firmware.storage.store import JournalStore
from bornes.firmware.table.flow import TableFlow
from tests.flow.helpers import event
from tests.tmpfs import fill, mounted_tmpfs


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    with mounted_tmpfs(tmp_path / "mnt", "512k") as where:
        yield where


def test_disk_full_tells_the_table_storage_full_and_loses_nothing(tiny_disk: Path) -> None:
    journal = Journal.open(tiny_disk)
    flow = TableFlow(edition="winning-moves", players=2, names=("Ann", "Bob"), store=JournalStore(journal))
    referee = Referee(flow, queue.Queue(), watchdog=False)
    for _ in range(6):
        referee.step(event("press OK"))  # setup menus on the defaults
    assert referee.step(event("scan MB-ROLL-01")).verdict == "accepted"
    filler = fill(tiny_disk)
    outcome = referee.step(event("scan MB-ROLL-02"))
    assert outcome.verdict == "refused" and outcome.reason == "storage"
    assert outcome.message == "Storage full: card not recorded, ask for help"
    assert "Internal error" not in outcome.message
    assert flow.game is not None and len(flow.game.log) == 1  # the table did not move on without the journal
    filler.unlink()
    assert referee.step(event("scan MB-ROLL-02")).verdict == "accepted"  # space again: the same tap works
    journal.close()
    with Journal.open(tiny_disk, readonly=True) as reread:
        current = reread.current_game()
        assert current is not None and current.lines == [a.notation() for a in flow.game.log]


def test_sqlite_full_without_a_mount_also_says_storage_full(tmp_path: Path) -> None:
    """The same, where no tmpfs can be mounted: the journal may not grow past its pages (SQLITE_FULL)."""
    from bench.driver import NAMES, script_games
    from bornes.drivers.readers.resolver import CardResolver

    script = script_games(players=2, seed=1, games=1)
    journal = Journal.open(tmp_path)
    flow = TableFlow(edition=script.setup.edition, players=2, names=NAMES[:2], store=JournalStore(journal))
    referee = Referee(flow, queue.Queue(), watchdog=False)
    resolver = CardResolver()
    db = journal._connection()
    db.execute(f"PRAGMA max_page_count = {db.execute('PRAGMA page_count').fetchone()[0] + 2}")
    outcomes = []
    for step in script.steps:
        outcomes += [referee.step(resolver.resolve(tap)) for tap in step.taps]
        if outcomes[-1].reason == "storage":
            break
    last = outcomes[-1]
    assert last.verdict == "refused" and last.message == "Storage full: card not recorded, ask for help"
    assert not any("Internal error" in o.message for o in outcomes)
    assert flow.game is not None and len(flow.game.log) > 10
    stored = journal.current_game()
    assert stored is not None and stored.lines == [a.notation() for a in flow.game.log]
    journal.close()


def test_on_a_nearly_full_disk_the_wal_is_emptied_after_every_card(tiny_disk: Path) -> None:
    """The WAL keeps a few cards until it holds 64 KiB (issue 34); below 4 MiB free (the panel warns)
    the upkeep after the chirp empties it after every card, so the last free bytes take cards."""
    journal = Journal.open(tiny_disk)
    game = journal.new_game('[Edition "winning-moves"]')
    for seq in range(5):
        journal.append(game, seq, f"A play MB-D100-{seq:02d}")
        assert journal.upkeep()
        assert (tiny_disk / "bornes.sqlite3-wal").stat().st_size == 32 + 24 + 4096  # the primer alone
    journal.close()


def test_a_disk_that_fills_between_upkeeps_makes_the_next_one_empty_the_wal(
    tiny_disk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another program fills the disk while the WAL holds a few cards: a card refused for space makes
    the next upkeep empty the WAL whatever its size, and the space it held takes the next card, without
    anyone freeing space. (The disk is told to look roomy, as it did when the upkeep last looked.)"""
    journal = Journal.open(tiny_disk)
    monkeypatch.setattr(journal, "_nearly_full", lambda: False)
    game = journal.new_game('[Edition "winning-moves"]')
    seq = 0
    journal.append(game, seq, "A play MB-ROLL-01")
    filler = fill(tiny_disk)
    import os

    os.truncate(filler, max(0, filler.stat().st_size - 12 * 1024))  # room for a card or two in the WAL
    refused = None
    for seq in range(1, 200):
        try:
            journal.append(game, seq, f"A play MB-D100-{seq % 100:02d}")
        except JournalFull as error:
            refused = error
            break
        journal.upkeep()  # the referee's, when the table is quiet: the WAL is small, so it waits
    assert refused is not None and seq < 199, "the disk never filled"
    assert (tiny_disk / "bornes.sqlite3-wal").stat().st_size < 64 * 1024  # below the upkeep's own threshold
    assert journal.upkeep()  # the refusal makes it empty the WAL now
    journal.append(game, seq, f"A play MB-D100-{seq % 100:02d}")  # the same card, tapped again, fits
    journal.close()
    with Journal.open(tiny_disk, readonly=True) as reread:
        current = reread.current_game()
    assert current is not None and len(current.lines) == seq + 1
