"""Every edition × every player count it allows: bots play real hidden hands with zero invariant failures.

Seat counts come from the rulebooks (docs/rules.md §2, "Who sits at the table"): 000/003 2, 3 solo and
4, 6 in partnerships; 001 2–6 solo and 4, 6 in teams; 004 2–4 solo and 4, 6, 8 in teams; 002 2–6 solo.
"""

from __future__ import annotations

import pytest

from bornes.engine.options import EDITIONS
from bornes.engine.simulate import simulate
from bornes.engine.state import GameSetup, SetupError

HANDS = 30

TABLES = [
    *[("winning-moves", n, t) for n, t in ((2, False), (3, False), (4, True), (6, True))],
    *[("parker-1988", n, t) for n, t in ((2, False), (3, False), (4, True), (6, True))],
    *[("hasbro-2016", n, False) for n in range(2, 7)],
    ("hasbro-2016", 4, True),
    ("hasbro-2016", 6, True),
    *[("dujardin", n, False) for n in (2, 3, 4)],
    *[("dujardin", n, True) for n in (4, 6, 8)],
    *[("1000-bornes", n, False) for n in range(2, 7)],
]


def test_the_matrix_is_every_allowed_table() -> None:
    allowed = {
        (name, n, teams)
        for name, ed in EDITIONS.items()
        for n in ed.seat_counts
        for teams in (False, True)
        if (n in ed.team_seats if teams else n in ed.solo_seats)
    }
    assert allowed == set(TABLES)


@pytest.mark.parametrize(
    ("edition", "players", "teams"), TABLES, ids=[f"{e}-{n}{'T' if t else ''}" for e, n, t in TABLES]
)
def test_simulated_hands_have_no_failures(edition: str, players: int, teams: bool) -> None:
    setup = GameSetup.create(edition, [f"P{i}" for i in range(players)], teams=teams)
    report = simulate(setup, HANDS, seed=players * 101 + len(edition), verify_replay=True)
    assert report.failures == []
    assert report.hands == HANDS
    assert report.actions > HANDS * 10


def test_simulator_youngest_variant_has_no_invariant_failures_004_pour_les_plus_jeunes() -> None:
    """004 "Pour les plus jeunes": each player gets a Feu Vert besides his 6 cards. The simulator takes
    those Rolls out of the shuffled deck before dealing but its card-conservation check only finds them
    once they are on the table, so `simulate` reports a failure after every `start` and `next`."""
    options = EDITIONS["dujardin"].options.replace(youngest_start_rolling=True)
    setup = GameSetup.create("dujardin", ["Ann", "Bob"], options=options)
    report = simulate(setup, 5, seed=1)
    assert report.failures == []


@pytest.mark.parametrize(
    ("edition", "players", "teams"),
    [
        ("winning-moves", 5, None),
        ("winning-moves", 4, False),
        ("winning-moves", 3, True),
        ("dujardin", 5, None),
        ("dujardin", 2, True),
        ("1000-bornes", 4, True),
        ("1000-bornes", 7, None),
        ("hasbro-2016", 5, True),
        ("parker-1988", 8, None),
    ],
)
def test_tables_the_rulebooks_do_not_allow_are_refused(edition: str, players: int, teams: bool | None) -> None:
    with pytest.raises(SetupError):
        GameSetup.create(edition, [f"P{i}" for i in range(players)], teams=teams)


@pytest.mark.parametrize(
    ("edition", "players", "teams"),
    [
        ("winning-moves", 4, True),
        ("winning-moves", 6, True),
        ("winning-moves", 2, False),
        ("hasbro-2016", 4, False),
        ("dujardin", 4, False),
        ("dujardin", 6, True),
        ("dujardin", 8, True),
    ],
)
def test_default_partnerships(edition: str, players: int, teams: bool) -> None:
    """docs/rules.md §2a "partnerships by default": a count played only in teams is teams by default."""
    assert GameSetup.create(edition, [f"P{i}" for i in range(players)]).teams is teams
