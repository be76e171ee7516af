"""Score sheets: the worked examples of the rulebooks, every bonus, and how a game ends.

Scoring-only tests build a finished ``HandState`` and call ``bornes.engine.scoring.score_hand``; the
end-to-end ones push a real hand through the referee.
"""

from __future__ import annotations

import itertools
import random

import pytest

from bornes.engine.cards import Card, CardKind
from bornes.engine.game import Game
from bornes.engine.options import EDITIONS
from bornes.engine.scoring import game_result, score_hand
from bornes.engine.simulate import Simulation
from bornes.engine.state import GameSetup, HandState, Phase, ScoreSheet, SideState
from tests.engine.helpers import miles, new_game, play, run_down, side, until

RoW, TANK, PP, ACE = CardKind.RIGHT_OF_WAY, CardKind.EXTRA_TANK, CardKind.PUNCTURE_PROOF, CardKind.DRIVING_ACE


def setup_for(edition: str, players: int = 2, teams: bool | None = None, **options: str) -> GameSetup:
    opts = EDITIONS[edition].options.with_strings(options) if options else EDITIONS[edition].options
    return GameSetup.create(edition, [f"P{i}" for i in range(players)], teams=teams, options=opts)


def car(
    distance: tuple[int, ...] = (), safeties: tuple[CardKind, ...] = (), coups: tuple[CardKind, ...] = ()
) -> SideState:
    """A side's piles: distance cards by miles, safeties (the coups are among them)."""
    kinds = {25: CardKind.D25, 50: CardKind.D50, 75: CardKind.D75, 100: CardKind.D100, 200: CardKind.D200}
    used: dict[CardKind, int] = {}
    cards = []
    for m in distance:
        kind = kinds[m]
        used[kind] = used.get(kind, 0) + 1
        cards.append(Card(kind, used[kind]))
    return SideState(
        distance=tuple(cards),
        miles=sum(distance),
        safeties=tuple(Card(k, 1) for k in safeties),
        coups=coups,
    )


def finished(
    setup: GameSetup,
    *sides: SideState,
    finisher: int | None = None,
    delayed: bool = False,
    extension_by: int | None = None,
    trip: int | None = None,
    leftovers: tuple[tuple[Card, ...], ...] | None = None,
) -> HandState:
    return HandState(
        number=1,
        dealer=0,
        sides=tuple(sides),
        hands=(0,) * setup.seats,
        draw_pile=0,
        phase=Phase.HAND_OVER,
        trip=trip or setup.options.trip_length(setup.seats),
        finisher=finisher,
        delayed=delayed,
        extension_by=extension_by,
        leftovers=leftovers if leftovers is not None else ((),) * setup.seats,
    )


def sheet_of(setup: GameSetup, hand: HandState, brought: tuple[int, ...] | None = None) -> ScoreSheet:
    return score_hand(setup, hand, brought or (0,) * setup.side_count)


# -- safeties and coups fourrés ----------------------------------------------------------------


def test_000_12G_two_preventions_two_coups_fourres() -> None:
    """000 §12G: "if one player or team plays two Safety Cards as preventions and two as Coup Fourrés,
    he scores 400 points for playing Safety Cards, a bonus of 300 points because he played all four, and
    600 points for playing two Coup Fourrés." """
    setup = setup_for("winning-moves", 4)
    sheet = sheet_of(setup, finished(setup, car((100,), (RoW, TANK, PP, ACE), (RoW, ACE)), car()))
    assert sheet.row("Safeties") == (700, 0)
    assert sheet.row("Coups fourrés") == (600, 0)
    assert sheet.total_for_deal == (100 + 1300, 0)


def test_same_four_safeties_on_the_2016_and_1000_bornes_sheets() -> None:
    """001 "Safety cards (not played for Coup Fourre): 100 points / Coup Fourre : 200 points": 600.
    002 "100 points for each boot card played + 300 points for each foul": 1000. Neither has the
    all-four bonus."""
    four = car((), (RoW, TANK, PP, ACE), (RoW, ACE))
    s2016 = setup_for("hasbro-2016")
    sheet = sheet_of(s2016, finished(s2016, four, car()))
    assert (sheet.row("Safeties")[0], sheet.row("Coups fourrés")[0]) == (200, 400)
    s002 = setup_for("1000-bornes")
    sheet = sheet_of(s002, finished(s002, four, car((25,))))
    assert (sheet.row("Safeties")[0], sheet.row("Coups fourrés")[0]) == (400, 600)


def test_001_scoring_example_1300() -> None:
    """001 "Scoring in Mille Bornes": 1000 miles + 100 for Emergency Vehicle + 200 for the Fuel Truck
    played as a coup fourré = 1300."""
    setup = setup_for("hasbro-2016")
    winner = car((200, 200, 100, 100, 100, 100, 100, 100), (RoW, TANK), (TANK,))
    hand = finished(setup, winner, car(), finisher=0)
    assert sheet_of(setup, hand).total_for_deal == (1300, 0)


def test_safety_in_hand_scores_nothing_000_12C() -> None:
    """000 §12C: "you get no credit for them if they are still in your hand" — only played safeties count."""
    setup = setup_for("winning-moves")
    sheet = sheet_of(setup, finished(setup, car((100,), (TANK,)), car((50,))))
    assert sheet.row("Safeties") == (100, 0)


# -- trip bonuses ---------------------------------------------------------------------------------


def test_trip_completed_safe_trip_and_shut_out_000_8() -> None:
    """000 §8: trip 400, Safe Trip 300 ("without playing any 200 Mile Cards"), Shut-out 500 ("before
    opponents have played any Distance Cards")."""
    setup = setup_for("winning-moves", 4)
    sheet = sheet_of(setup, finished(setup, car((100,) * 10), car(), finisher=0))
    assert sheet.row("Trip completed") == (400, 0)
    assert sheet.row("Safe trip") == (300, 0)
    assert sheet.row("Shut-out") == (500, 0)
    assert sheet.total_for_deal == (1000 + 400 + 300 + 500, 0)
    sheet = sheet_of(setup, finished(setup, car((200, 200, 100, 100, 100, 100, 100, 75, 25)), car((25,)), finisher=0))
    assert sheet.row("Safe trip") == (0, 0) and sheet.row("Shut-out") == (0, 0)
    assert sheet.total_for_deal == (1400, 25)


def test_no_trip_bonus_without_a_finisher_000_8() -> None:
    """000 §8: miles and safeties score "whether or not a trip of 1000 miles was completed"; the trip
    bonuses only for the side that completed it."""
    setup = setup_for("winning-moves", 4)
    sheet = sheet_of(setup, finished(setup, car((100, 100)), car(), delayed=True))
    assert sheet.total_for_deal == (200, 0)


def test_delayed_action_000_8() -> None:
    """000 §8: "Additional bonus if trip is completed after all cards have been played from the draw
    pile (Delayed Action)...300" """
    setup = setup_for("winning-moves", 4)
    sheet = sheet_of(setup, finished(setup, car((200,) + (100,) * 8), car((50,)), finisher=0, delayed=True))
    assert sheet.row("Delayed action") == (300, 0)


def test_safe_trip_is_200_in_1000_bornes_002() -> None:
    """002 "Keeping score": "200 points for winning without laying down a "200 kilometer" card"."""
    setup = setup_for("1000-bornes")
    sheet = sheet_of(setup, finished(setup, car((100,) * 10), car((50,)), finisher=0))
    assert sheet.row("Safe trip") == (200, 0) and sheet.row("Trip completed") == (400, 0)
    assert "Shut-out" not in dict(sheet.rows) and "Delayed action" not in dict(sheet.rows)


@pytest.mark.parametrize(
    ("mode", "b", "c", "bonus"),
    [
        ("all-opponents", (), (), 500),
        ("all-opponents", (), (50,), 0),
        ("per-opponent", (), (), 1000),
        ("per-opponent", (), (50,), 500),
        ("per-opponent", (25,), (50,), 0),
    ],
)
def test_shut_out_with_three_sides_D4(mode: str, b: tuple[int, ...], c: tuple[int, ...], bonus: int) -> None:
    """D4: "all-opponents" — 500 once, only if no opponent has distance; "per-opponent" — 500 for each
    opponent without distance (001's summary of the older rules)."""
    setup = setup_for("winning-moves", 3, shut_out=mode)
    sheet = sheet_of(setup, finished(setup, car((200, 200, 100, 100, 100)), car(b), car(c), finisher=0))
    assert sheet.row("Shut-out") == (bonus, 0, 0)


# -- extension --------------------------------------------------------------------------------------


def test_extension_caller_reaches_1000_000_10C() -> None:
    """000 §10C: "a bonus of 200 points is granted to the player who calls "Extension" and succeeds in
    reaching 1000 miles"; 003 C2 "add 200 bonus points to the 400 points"."""
    for edition in ("winning-moves", "parker-1988"):
        setup = setup_for(edition, 3)
        hand = finished(setup, car((200, 200, 100) * 2), car((50,)), car(), finisher=0, extension_by=0, trip=1000)
        sheet = sheet_of(setup, hand)
        assert sheet.row("Extension") == (200, 0, 0)
        assert sheet.row("Trip completed") == (400, 0, 0)


def test_extension_opponent_reaches_1000_000_10C_003_C2() -> None:
    """000 §10C "If he fails, the bonus is given to his opponent or opponents" and the caller "does not
    get the 400 points"; 003 C2 "200 bonus points are given to each opponent"."""
    for edition in ("winning-moves", "parker-1988"):
        setup = setup_for(edition, 3)
        hand = finished(setup, car((200, 200, 100, 100, 100)), car((200, 200) + (100,) * 6), car((25,)),
                        finisher=1, extension_by=0, trip=1000)
        sheet = sheet_of(setup, hand)
        assert sheet.row("Extension") == (0, 200, 200)
        assert sheet.row("Trip completed") == (0, 400, 0)


@pytest.mark.parametrize(("edition", "bonus"), [("winning-moves", 200), ("parker-1988", 0)])
def test_extension_nobody_reaches_1000(edition: str, bonus: int) -> None:
    """000 §10C: "If he fails, the bonus is given to his opponent or opponents" (also when the hand
    ends with nobody at 1000, `opponents-always`); 003 C1/C2 only pay the opponents when "someone
    else reaches 1,000 miles" (`opponents-if-another-finishes`). Nobody gets the 400 (003 C1)."""
    setup = setup_for(edition, 2)
    hand = finished(setup, car((200, 200, 100, 100, 100, 50)), car((100,)), extension_by=0, trip=1000)
    sheet = sheet_of(setup, hand)
    assert sheet.row("Extension") == (0, bonus)
    assert sheet.row("Trip completed") == (0, 0)


def test_extension_in_partnerships_counts_for_the_side() -> None:
    """6 players (000 §11C uses the extension): the caller's side scores; E (side B–E) called it."""
    setup = setup_for("winning-moves", 6)
    hand = finished(setup, car((25,)), car((200, 200, 100, 100, 100, 100, 100, 100)), car(),
                    finisher=1, extension_by=4, trip=1000)
    sheet = sheet_of(setup, hand)
    assert sheet.row("Extension") == (0, 200, 0)
    assert sheet.row("Shut-out") == (0, 0, 0)


# -- end to end ----------------------------------------------------------------------------------------


def _to_600(edition: str = "winning-moves", **options: object) -> Game:
    game = new_game(edition, rule_options=options)
    play(game, "A play MB-ROLL-01")
    for code in ("MB-D200-01", "MB-D200-02", "MB-D100-01", "MB-D100-02"):
        until(game, "A")
        play(game, f"A play {code}")
    return game


def test_delayed_action_end_to_end_000_6C() -> None:
    """000 §6C: "If the trip of 1000 miles is completed after all the cards in the tray are exhausted,
    the play is referred to as DELAYED ACTION" — 300 on the sheet (here the 700 trip, not extended)."""
    game = _to_600()
    run_down(game, 0, before="A", keep=("MB-D100-03",))
    play(game, "A play MB-D100-03", "A extension no")
    sheet = game.state.sheets[-1]
    assert sheet.row("Delayed action") == (300, 0)
    assert sheet.row("Trip completed") == (400, 0)
    assert sheet.row("Safe trip") == (0, 0)
    assert sheet.row("Shut-out") == (0, 0) or miles(game, "B") == 0


@pytest.mark.parametrize(("option", "bonus"), [(True, 300), (False, 0)])
def test_delayed_action_on_the_last_draw_D3(option: bool, bonus: int) -> None:
    """D3: the finishing turn that drew the last card of the pile counts as delayed action when
    `delayed_action_on_last_draw=yes` (the literal reading of 000 §6C), not when `no`."""
    game = _to_600(delayed_action_on_last_draw=option)
    run_down(game, 1, before="A", keep=("MB-D100-03",))
    play(game, "A play MB-D100-03")
    assert game.state.hand.draw_pile == 0
    play(game, "A extension no")
    assert game.state.sheets[-1].row("Delayed action") == (bonus, 0)


def test_no_delayed_action_while_the_pile_has_cards() -> None:
    game = _to_600()
    until(game, "A")
    play(game, "A play MB-D100-03", "A extension no")
    assert game.state.sheets[-1].row("Delayed action") == (0, 0)


def test_extension_end_to_end_caller_succeeds_000_10C() -> None:
    """A reaches 700, calls the extension, goes on to exactly 1000: 400 + 200, and B had no distance."""
    game = _to_600()
    until(game, "A")
    play(game, "A play MB-D100-03", "A extension yes")
    for code in ("MB-D100-04", "MB-D100-05", "MB-D100-06"):
        until(game, "A")
        play(game, f"A play {code}")
    state = game.state
    assert state.hand.phase is Phase.HAND_OVER
    sheet = state.sheets[-1]
    assert sheet.row("Extension") == (200, 0)
    assert sheet.total_for_deal == (1000 + 400 + 200 + 500, 0)


def test_extension_end_to_end_opponent_finishes_000_10C() -> None:
    """After A's extension, B reaches 1000 first: B scores the 400 and the 200 extension bonus."""
    game = new_game("parker-1988")
    play(game, "A play MB-ROLL-01", "B play MB-ROLL-02")
    a_cards = ["MB-D200-01", "MB-D200-02", "MB-D100-01", "MB-D100-02", "MB-D100-03"]
    b_cards = ["MB-D200-03", "MB-D200-04", "MB-D100-04", "MB-D100-05", "MB-D75-01"]
    for a, b in zip(a_cards, b_cards, strict=True):
        play(game, f"A play {a}")
        if a == a_cards[-1]:
            play(game, "A extension yes")
        play(game, f"B play {b}")
    for b in ("MB-D100-06", "MB-D100-07", "MB-D100-08", "MB-D25-01"):
        until(game, "B")
        play(game, f"B play {b}")
    assert miles(game, "B") == 1000
    sheet = game.state.sheets[-1]
    assert sheet.row("Extension") == (0, 200)
    assert sheet.row("Trip completed") == (0, 400)
    assert sheet.total_for_deal == (700, 1000 + 400 + 200)


def test_2016_game_won_at_1050_with_a_coup_fourre_001() -> None:
    """001: a hand won "1,000 or more" is the game; score = miles + 100 per safety + 200 per coup fourré."""
    game = new_game("hasbro-2016")
    play(game, "A play MB-ROLL-01", "B play MB-STOP-01 > A", "A coup MB-RIGHTOFWAY-01", "A play MB-D200-01")
    play(game, "B discard MB-D25-10", "A play MB-EXTRATANK-01", "A play MB-D200-02")
    for code in ("MB-D100-01", "MB-D100-02", "MB-D100-03", "MB-D100-04", "MB-D100-05", "MB-D50-01", "MB-D100-06"):
        until(game, "A")
        play(game, f"A play {code}")
    state = game.state
    assert miles(game, "A") == 1050 and side(game, "A").coups == (CardKind.RIGHT_OF_WAY,)
    assert state.over and state.winner == 0
    sheet = state.sheets[-1]
    assert sheet.row("Safeties") == (100, 0) and sheet.row("Coups fourrés") == (200, 0)
    assert sheet.total_for_deal == (1050 + 100 + 200, 0)
    assert [name for name, _ in sheet.rows] == ["Milestones", "Safeties", "Coups fourrés"]


# -- the end of the game -----------------------------------------------------------------------------


def _sheets(setup: GameSetup, *totals: tuple[int, ...]) -> list[ScoreSheet]:
    sheets: list[ScoreSheet] = []
    brought = (0,) * len(totals[0])
    for number, total in enumerate(totals, 1):
        rows = (("Milestones", tuple(t - b for t, b in zip(total, brought, strict=True))),)
        sheets.append(ScoreSheet(number, rows, brought))
        brought = total
    return sheets


def test_game_ends_at_5000_000_9() -> None:
    """000 §9: "The team that first scores 5000 points wins, or if both sides exceed 5000 points on
    the same hand, the team with the highest total points wins the game." (D13 for equal totals)"""
    setup = setup_for("winning-moves", 4)
    hand = finished(setup, car(), car())
    assert game_result(setup, _sheets(setup, (2000, 1500), (4990, 3000)), hand) == (False, None, False)
    assert game_result(setup, _sheets(setup, (2000, 1500), (5000, 3000)), hand) == (True, 0, False)
    assert game_result(setup, _sheets(setup, (4000, 4500), (5100, 5300)), hand) == (True, 1, False)
    assert game_result(setup, _sheets(setup, (4000, 4500), (5200, 5200)), hand) == (False, None, False)


def test_brought_forward_and_combined_total_003_Score_Sheet() -> None:
    """003 "Score Sheet": Brought forward + Total for deal = Combined total."""
    setup = setup_for("winning-moves", 4)
    sheet = sheet_of(setup, finished(setup, car((100,)), car((50,))), (1200, 3400))
    assert sheet.brought_forward == (1200, 3400)
    assert sheet.combined == (1300, 3450)


def test_a_simulated_classic_game_runs_to_5000_000_9() -> None:
    """A whole classic game by the bots: the sheets chain (brought forward = previous combined), the
    game ends on the first hand that leaves a side strictly ahead at 5000 or more, never before."""
    setup = setup_for("winning-moves", 2)
    sim = Simulation(setup, random.Random(7))
    sim.run(60)
    assert sim.report.failures == []
    game = sim.report.games_played[0]
    state = game.state
    assert state.over and state.winner is not None
    sheets = state.sheets
    for before, after in itertools.pairwise(sheets):
        assert after.brought_forward == before.combined
        assert max(before.combined) < 5000 or sorted(before.combined)[-1] == sorted(before.combined)[-2]
    final = sheets[-1].combined
    assert max(final) >= 5000 and final[state.winner] == max(final) and final.count(max(final)) == 1
    assert [hand_sheet.hand for hand_sheet in sheets] == list(range(1, len(sheets) + 1))
