"""Round-robin and Swiss pairings, and the standings they feed on."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from bornes.firmware.club.pairing import PairingError, round_robin, swiss
from bornes.firmware.club.store import TournamentError, seating, standings_from_results


@pytest.mark.parametrize("count", [2, 3, 4, 7, 8, 16])
def test_round_robin_meets_everyone_exactly_once(count: int) -> None:
    names = [f"E{i}" for i in range(count)]
    rounds = count - 1 if count % 2 == 0 else count
    met: list[frozenset[str]] = []
    for number in range(1, rounds + 1):
        pairs = round_robin(names, number)
        seated = [name for pair in pairs for name in pair if name is not None]
        assert sorted(seated) == sorted(names), "everyone plays or sits out once per round"
        met += [frozenset((one, other)) for one, other in pairs if other is not None]
    assert sorted(met, key=sorted) == sorted((frozenset(p) for p in itertools.combinations(names, 2)), key=sorted)


def test_swiss_pairs_neighbours_and_avoids_rematches() -> None:
    ranked = ["A", "B", "C", "D"]
    assert swiss(ranked, set()) == [("A", "B"), ("C", "D")]
    assert swiss(ranked, {frozenset("AB"), frozenset("CD")}) == [("A", "C"), ("B", "D")]
    everyone = {frozenset(p) for p in itertools.combinations(ranked, 2)}
    assert len(swiss(ranked, everyone)) == 2, "a rematch rather than no round at all"


def test_swiss_bye_goes_to_the_lowest_without_one() -> None:
    pairs = swiss(["A", "B", "C"], set(), had_bye={"C"})
    assert pairs[-1] == ("B", None)
    assert pairs[0] == ("A", "C")


def test_too_few_entrants() -> None:
    with pytest.raises(PairingError):
        round_robin(["A"], 1)
    with pytest.raises(PairingError):
        swiss(["A"], set())


def test_team_seating_puts_partners_opposite() -> None:
    # With two sides, seats 0 and 2 are partners (engine/state.py: seat i and i+k).
    assert seating("winning-moves", [["Ann", "Cat"], ["Bob", "Dan"]], True) == ["Ann", "Bob", "Cat", "Dan"]
    with pytest.raises(TournamentError):
        seating("winning-moves", [["Ann"], ["Bob", "Dan"]], False)


def test_standings_count_wins_ties_and_points() -> None:
    results: list[dict[str, Any]] = [
        {"sides": [{"players": ["A"], "total": 700}, {"players": ["B"], "total": 300}], "winner": 0, "tie": False},
        {"sides": [{"players": ["A"], "total": 400}, {"players": ["C"], "total": 400}], "winner": None, "tie": True},
        {"sides": [{"players": ["B", "D"], "total": 900}, {"players": ["A", "C"], "total": 100}], "winner": 0,
         "tie": False},
    ]
    table = standings_from_results(results, byes=[["D"]])
    players = {line.name: line for line in table["players"]}
    assert (players["A"].match_points, players["A"].points, players["A"].played) == (3, 1200, 3)
    assert (players["D"].wins, players["D"].byes, players["D"].match_points) == (1, 1, 4)
    assert [line.name for line in table["teams"]] == ["B & D", "A & C"]
