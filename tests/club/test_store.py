"""The board's database on its own: repeats, undos, assignment matching, rounds and their refusals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bornes.firmware.club.store import ClubStore, TournamentError

CREATED = "2026-11-24T20:00:00+00:00"


def result(names: tuple[str, str], totals: tuple[int, int], game: int = 1) -> dict[str, Any]:
    return {"game": game, "created": CREATED, "edition": "winning-moves", "teams": False, "tie": totals[0] == totals[1],
            "winner": None if totals[0] == totals[1] else (0 if totals[0] > totals[1] else 1), "record": "r",
            "sides": [{"name": n, "players": [n], "total": t} for n, t in zip(names, totals, strict=True)]}


@pytest.fixture
def store(tmp_path: Path) -> ClubStore:
    club = ClubStore(tmp_path / "club.sqlite3")
    for name in ("Anne", "Bruno", "Chloé", "David"):
        club.add_entrant(name)
    return club


def test_actions_repeat_and_undo(store: ClubStore) -> None:
    assert store.add_action("t1", 1, CREATED, 0, "B play MB-ROLL-01") == "new"
    assert store.add_action("t1", 1, CREATED, 1, "A play MB-ROLL-02") == "new"
    assert store.add_action("t1", 1, CREATED, 0, "B play MB-ROLL-01") == "repeat"
    assert store.add_action("t1", 1, CREATED, 0, "B play MB-D25-01") == "replaced", "undone and played again"
    assert store.action_count() == 1, "what followed the undone action went with it"
    assert store.add_action("t1", 1, "another journal", 0, "B play MB-ROLL-01") == "new"


def test_results_count_once_and_only_when_assigned(store: ClubStore) -> None:
    store.configure(options={"game_target": "0"})
    number = store.new_round("round-robin", ["t1", "t2"])
    with pytest.raises(TournamentError, match="still open"):
        store.new_round("swiss", ["t1", "t2"])
    assignments = {a["table"]: a for a in store.publish_round(number)}
    assert assignments["t1"]["options"] == {"game_target": "0"}
    t1 = tuple(assignments["t1"]["names"])
    assert store.add_result("t1", result(t1, (700, 300))) is True
    assert store.add_result("t1", result(t1, (700, 300))) is False, "a repeat"
    assert store.add_result("t2", result(("Anne", "Zoé"), (500, 0), game=7)) is True, "stored, but not scheduled"
    counted = [r for r in store.results() if r["assignment"]]
    assert len(counted) == 1 and counted[0]["round"] == 1
    lines = {line.name: line for line in store.standings()["players"]}
    assert lines[t1[0]].match_points == 2 and "Zoé" not in lines


def test_swiss_second_round_avoids_the_first(store: ClubStore) -> None:
    first = store.new_round("round-robin", ["t1", "t2"])
    published = store.publish_round(first)
    for a in published:
        store.add_result(a["table"], result(tuple(a["names"]), (700, 100), game=1))
    store.close_round(first)
    second = store.new_round("swiss", ["t1", "t2"])
    met = {frozenset(a["entrants"]) for r in store.rounds() if r["number"] == first for a in r["assignments"]}
    again = {frozenset(a["entrants"]) for r in store.rounds() if r["number"] == second for a in r["assignments"]}
    assert not met & again
    winners = [a["names"][0] for a in published]
    top = next(a for r in store.rounds() if r["number"] == second for a in r["assignments"] if a["table"] == "t1")
    assert set(top["entrants"]) == set(winners), "the two winners meet at the first table"


@pytest.mark.parametrize("call, words", [
    (lambda s: s.add_entrant("Anne"), "already plays"),
    (lambda s: s.add_entrant("Team", ["Zoé", "x" * 13]), "1–12 printable"),
    (lambda s: s.new_round("knockout", ["t1"]), "pairing must be"),
    (lambda s: s.new_round("round-robin", ["t1"]), "needs 2 tables"),
    (lambda s: s.new_round("manual", ["t1"], [["Anne", "Nobody"]]), "two known entrants"),
    (lambda s: s.configure(edition="monopoly"), "unknown edition"),
    (lambda s: s.configure(options={"no_such_option": "1"}), "no_such_option"),
    (lambda s: s.publish_round(9), "no open round 9"),
])
def test_organiser_mistakes_are_one_line(store: ClubStore, call: Any, words: str) -> None:
    with pytest.raises(TournamentError, match=words):
        call(store)


def test_teams_are_seated_as_partners(tmp_path: Path) -> None:
    club = ClubStore(tmp_path / "teams.sqlite3")
    club.add_entrant("Lions", ["Anne", "Chloé"])
    club.add_entrant("Tigres", ["Bruno", "David"])
    number = club.new_round("manual", ["t1"], [["Lions", "Tigres"]])
    (assignment,) = club.publish_round(number)
    assert assignment["names"] == ["Anne", "Bruno", "Chloé", "David"] and assignment["teams"] is True
    body = {"game": 1, "created": CREATED, "edition": "winning-moves", "teams": True, "tie": False, "winner": 1,
            "record": "r", "sides": [{"name": "Anne & Chloé", "players": ["Anne", "Chloé"], "total": 400},
                                     {"name": "Bruno & David", "players": ["Bruno", "David"], "total": 900}]}
    assert club.add_result("t1", body)
    teams = club.standings()["teams"]
    assert [(t.name, t.match_points) for t in teams] == [("Tigres", 2), ("Lions", 0)]
