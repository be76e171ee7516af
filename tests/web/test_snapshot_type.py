"""The live snapshot's type (firmware/storage/live.py) is the shape every reader gets: the follower's
snapshots have exactly its keys, and the club board's check of a live message covers the same fields."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NotRequired, get_origin, get_type_hints

from bornes.engine import Game, GameSetup, parse_action, write_header
from bornes.firmware.club import topics
from bornes.firmware.storage.journal import Journal
from bornes.firmware.storage.live import JournalFollower, LiveSafety, LiveSide, LiveSnapshot, ToldAction

#: The bridge adds the game's start; only the MQTT message has the wire's version, type and time.
BRIDGE_ONLY = {"created"}
WIRE_ONLY = {"v", "type", "at"}


def _keys(kind: Any) -> set[str]:
    return set(get_type_hints(kind))


def _required(kind: Any) -> set[str]:
    # From the hints, not __required_keys__: under postponed annotations Python 3.11 cannot see NotRequired.
    hints = get_type_hints(kind, include_extras=True)
    return {key for key, hint in hints.items() if get_origin(hint) is not NotRequired}


def test_no_game_has_exactly_the_required_keys(tmp_path: Path) -> None:
    with JournalFollower(tmp_path) as follower:
        snap = follower.snapshot()
    assert set(snap) == _required(LiveSnapshot) and snap["status"] == "none"


def test_a_game_has_every_key_but_the_bridges(tmp_path: Path) -> None:
    with Journal.open(tmp_path) as journal:
        setup = GameSetup.create("winning-moves", ["Ann", "Bob", "Cleo"], dealer=2)
        game_id, game = journal.new_game(write_header(setup)), Game(setup)
        for line in ("A play MB-ROLL-01", "B play MB-ROLL-02", "C play MB-RIGHTOFWAY-01"):
            action = parse_action(line)
            journal.append(game_id, len(game.log), action.notation())
            game.push(action)
        with JournalFollower(tmp_path) as follower:
            snap = follower.snapshot()
    assert set(snap) == _keys(LiveSnapshot) - BRIDGE_ONLY
    assert all(set(side) == _keys(LiveSide) for side in snap["sides"])
    safeties = [safety for side in snap["sides"] for safety in side["safeties"]]
    assert safeties and all(set(safety) == _keys(LiveSafety) for safety in safeties)
    assert snap["last_actions"] and all(set(told) == _keys(ToldAction) - {"pad"} for told in snap["last_actions"])


def test_the_boards_check_covers_the_snapshot_field_by_field() -> None:
    # A field added to the snapshot and forgotten here would be dropped by the board without a word.
    assert set(topics.LIVE_SCHEMA) == _keys(LiveSnapshot) | WIRE_ONLY
    side = topics.LIVE_SCHEMA["sides"][0][0]
    assert set(side) == _keys(LiveSide)
    assert set(side["safeties"][0][0]) == _keys(LiveSafety)
    # The pad a card was laid on is already in the action's words; the board keeps only the words.
    assert set(topics.LIVE_SCHEMA["last_actions"][0][0]) == _keys(ToldAction) - {"pad"}
