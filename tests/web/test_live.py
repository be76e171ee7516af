"""The live follower: a read-only reader of the real journal that wakes on commits, not on a timer."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

from bornes.engine.actions import Play, parse_action
from bornes.engine.cards import Card, CardKind
from bornes.engine.game import Game
from bornes.engine.record import write_header
from bornes.engine.state import GameSetup
from bornes.firmware.storage.journal import FILENAME, Journal
from bornes.firmware.storage.live import JournalFollower, card_name, describe, replay

GAMES = Path(__file__).resolve().parents[1] / "flow" / "games"


def _game(journal: Journal) -> tuple[int, Game]:
    setup = GameSetup.create("winning-moves", ["Ann", "Bob"], dealer=1)
    return journal.new_game(write_header(setup)), Game(setup)


def _push(journal: Journal, game_id: int, game: Game, line: str) -> None:
    action = parse_action(line)
    journal.append(game_id, len(game.log), action.notation())
    game.push(action)


def test_no_journal_yet_then_a_game_appears(tmp_path: Path) -> None:
    with JournalFollower(tmp_path) as follower:
        assert follower.snapshot()["status"] == "none"
        with Journal.open(tmp_path) as journal:
            game_id = _game(journal)[0]
            assert follower.wait(timeout=2.0)
            snap = follower.snapshot()
            assert snap["game_id"] == game_id and snap["action_count"] == 0
            assert [side["name"] for side in snap["sides"]] == ["Ann", "Bob"]


def test_each_commit_wakes_the_follower_and_undo_shows(tmp_path: Path) -> None:
    with Journal.open(tmp_path) as journal:
        game_id, game = _game(journal)
        with JournalFollower(tmp_path) as follower:
            _push(journal, game_id, game, "A play MB-ROLL-01")
            assert follower.wait(timeout=2.0)
            snap = follower.snapshot()
            assert snap["action_count"] == 1
            assert snap["sides"][0]["battle"] == "rolling"
            assert snap["last_actions"] == [{"n": 1, "text": "Ann plays Roll"}]
            _push(journal, game_id, game, "B play MB-STOP-01 > A")
            assert follower.wait(timeout=2.0)
            assert follower.snapshot()["sides"][0]["battle"] == "STOP"
            assert follower.snapshot()["last_actions"][-1]["text"] == "Bob plays Stop on Ann"
            journal.truncate(game_id, 1)  # undo
            assert follower.wait(timeout=2.0)
            assert follower.snapshot()["action_count"] == 1
            assert follower.snapshot()["sides"][0]["battle"] == "rolling"
            # No commit, no wake-up: waiting with nothing written returns False.
            assert not follower.wait(timeout=0.2)
            assert follower.reads == 4  # the first read, then one per commit


def test_a_change_that_is_not_a_commit_is_not_read(tmp_path: Path) -> None:
    """The referee checkpoints after every commit, which moves data_version a second time: one read per
    commit, not two (bench web: journal reads per commit)."""
    with Journal.open(tmp_path) as journal:
        game_id, game = _game(journal)
        with JournalFollower(tmp_path) as follower:
            _push(journal, game_id, game, "A play MB-ROLL-01")
            assert follower.refresh(recheck=True)
            reads = follower.reads
            with sqlite3.connect(tmp_path / FILENAME) as other:  # a write that changes no row
                other.execute("CREATE TABLE scratch (x)")
                other.execute("DROP TABLE scratch")
                other.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            assert not follower.refresh(recheck=True)
            assert follower.reads == reads
            _push(journal, game_id, game, "B play MB-STOP-01 > A")
            assert follower.refresh(recheck=True)
            assert follower.reads == reads + 1


def test_snapshot_of_a_fed_game_is_json_with_every_field(tmp_path: Path) -> None:
    from bornes.firmware.commands.feed import feed
    from bornes.firmware.storage.store import JournalStore
    from bornes.firmware.table.flow import TableFlow

    with Journal.open(tmp_path) as journal:
        flow = TableFlow(store=JournalStore(journal))
        feed((GAMES / "two-players-classic.feed").read_text(), flow)
    with JournalFollower(tmp_path, language="fr") as follower:
        snap = json.loads(json.dumps(follower.snapshot()))
    for key in ("sides", "turn", "last_actions", "game_id", "action_count", "hand", "turn_text"):
        assert key in snap
    ann, bob = snap["sides"]
    assert (ann["total"], bob["total"]) == (2375, 1600)  # tests/flow/games/two-players-classic.feed
    assert (ann["hand_points"], bob["hand_points"]) == (75, 1600)
    for side in snap["sides"]:
        assert {"miles", "battle", "limit", "safeties", "hand_points", "total", "turn"} <= set(side)


def test_a_reader_thread_follows_a_writer_without_errors(tmp_path: Path) -> None:
    """The journal written while it is read: every snapshot is whole, and the last one is final."""
    plays = ["A play MB-ROLL-01", "B play MB-ROLL-02", "A play MB-D25-01", "B play MB-D25-02", "A play MB-D50-01"]
    with Journal.open(tmp_path) as journal:
        game_id, game = _game(journal)
        seen: list[int] = []
        errors: list[str] = []
        stop = threading.Event()
        started = threading.Event()

        def reader() -> None:
            with JournalFollower(tmp_path) as follower:
                started.set()
                while True:
                    if follower.wait(timeout=0.1):
                        seen.append(follower.snapshot()["action_count"])
                    elif stop.is_set():
                        break
                    if follower.error:
                        errors.append(follower.error)

        thread = threading.Thread(target=reader)
        thread.start()
        assert started.wait(5)
        for line in plays:
            _push(journal, game_id, game, line)
        stop.set()
        thread.join(5)
        assert not errors
        assert seen == sorted(seen) and seen[-1] == len(plays)


def test_card_names_are_the_printed_ones() -> None:
    assert card_name(CardKind.ROLL, "fr") == "Feu Vert"
    assert card_name(CardKind.RIGHT_OF_WAY, "fr") == "Véhicule Prioritaire"
    assert card_name(CardKind.D100, "fr") == "100 km"
    assert card_name(CardKind.ROLL, "en") == "Roll"
    game, states = replay(write_header(GameSetup.create("dujardin", ["Zoé", "Élie"])), ["B play MB-ROLL-01"])
    assert describe(states[0], Play(1, Card(CardKind.ROLL, 1)), "fr") == "Élie joue Feu Vert"
    assert len(game.log) == 1


def test_the_2016_edition_names_its_cards_as_it_printed_them() -> None:
    """Rulebook 001: "Drive (aka Roll)", "Emergency Vehicle", "Fuel Truck", "Gas"."""
    assert card_name(CardKind.ROLL, "en", "hasbro-2016") == "Drive"
    assert card_name(CardKind.RIGHT_OF_WAY, "en", "hasbro-2016") == "Emergency Vehicle"
    assert card_name(CardKind.EXTRA_TANK, "en", "hasbro-2016") == "Fuel Truck"
    assert card_name(CardKind.ROLL, "en", "winning-moves") == "Roll"
    assert card_name(CardKind.ROLL, "fr", "hasbro-2016") == "Feu Vert"
