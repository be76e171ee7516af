"""Score sheets: the rows of the 003 score sheet, filled exactly as a careful scorer would.

Rows (003, "Score Sheet"): Milestones, Safeties, Coups fourrés, Trip completed, Delayed
action, Safe trip, Shut-out, Extension; then Total for deal, Brought forward and Combined
total, which ``ScoreSheet`` derives. The all-four-safeties bonus is part of the Safeties row,
as in 000 §12G: "400 points for playing Safety Cards, a bonus of 300 points".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from bornes.engine.options import CoupFourreScoring, ExtensionFailure, Scoring, ShutOut, Winner

if TYPE_CHECKING:
    from bornes.engine.state import GameSetup, GameState, HandState, ScoreSheet

SAFETY_POINTS = 100
ALL_FOUR_BONUS = 300
COUP_FOURRE_BONUS = 300
COUP_FOURRE_FLAT = 200
TRIP_BONUS = 400
DELAYED_BONUS = 300
SHUT_OUT_BONUS = 500

ROWS_CLASSIC = (
    "Milestones",
    "Safeties",
    "Coups fourrés",
    "Trip completed",
    "Delayed action",
    "Safe trip",
    "Shut-out",
    "Extension",
)
#: The sheet's three totals, below the rows.
ROWS_TOTALS = ("Total for deal", "Brought forward", "Combined total")
#: The rows a side has already earned while a hand is being played; the others (trip, safe
#: trip, shut-out…) are only awarded when the hand ends.
EARNED_ROWS = ("Milestones", "Safeties", "Coups fourrés")


def distance_winner(setup: GameSetup, hand: HandState) -> int | None:
    """002 / 004: the side that completed the trip, else the one closest to it without passing."""
    if hand.finisher is not None:
        return hand.finisher
    trip = hand.trip
    best = [i for i, side in enumerate(hand.sides) if side.miles <= trip]
    if not best:
        return None
    top = max(hand.sides[i].miles for i in best)
    leaders = [i for i in best if hand.sides[i].miles == top]
    return leaders[0] if len(leaders) == 1 else None


def _safeties_row(setup: GameSetup, hand: HandState) -> tuple[tuple[int, ...], tuple[int, ...]]:
    options = setup.options
    safeties: list[int] = []
    coups: list[int] = []
    for side in hand.sides:
        played = len(side.safeties)
        coup_count = len(side.coups)
        if options.coup_fourre_scoring is CoupFourreScoring.FLAT_200:
            # 001: "Safety cards (not played for Coup Fourre): 100 points; Coup Fourre: 200 points"
            safeties.append(SAFETY_POINTS * (played - coup_count))
            coups.append(COUP_FOURRE_FLAT * coup_count)
        else:
            points = SAFETY_POINTS * played
            if options.scoring is Scoring.CLASSIC and played == 4:
                points += ALL_FOUR_BONUS  # 000 §8 "all four Safety Cards are played by the same team"
            safeties.append(points)
            coups.append(COUP_FOURRE_BONUS * coup_count)
    return tuple(safeties), tuple(coups)


def _classic_rows(setup: GameSetup, hand: HandState) -> list[tuple[str, tuple[int, ...]]]:
    options = setup.options
    count = setup.side_count
    miles = tuple(side.miles for side in hand.sides)
    safeties, coups = _safeties_row(setup, hand)
    trip = [0] * count
    delayed = [0] * count
    safe = [0] * count
    shut = [0] * count
    extension = [0] * count
    finisher = hand.finisher
    if finisher is not None:
        trip[finisher] = TRIP_BONUS
        if hand.delayed:
            delayed[finisher] = DELAYED_BONUS
        if hand.sides[finisher].two_hundreds == 0:
            safe[finisher] = options.safe_trip_bonus
        blank = [i for i in range(count) if i != finisher and miles[i] == 0]
        opponents = count - 1
        if options.shut_out is ShutOut.PER_OPPONENT:
            shut[finisher] = SHUT_OUT_BONUS * len(blank)
        elif len(blank) == opponents:
            shut[finisher] = SHUT_OUT_BONUS
    if hand.extension_by is not None:
        caller = setup.side_of(hand.extension_by)
        if finisher == caller:
            extension[caller] = options.extension_bonus  # 000 §10C: the caller succeeds
        elif finisher is not None or options.extension_failure is ExtensionFailure.OPPONENTS_ALWAYS:
            for i in range(count):
                if i != caller:
                    extension[i] = options.extension_bonus
    return [
        ("Milestones", miles),
        ("Safeties", safeties),
        ("Coups fourrés", coups),
        ("Trip completed", tuple(trip)),
        ("Delayed action", tuple(delayed)),
        ("Safe trip", tuple(safe)),
        ("Shut-out", tuple(shut)),
        ("Extension", tuple(extension)),
    ]


def _mille_bornes_fr_rows(setup: GameSetup, hand: HandState) -> list[tuple[str, tuple[int, ...]]]:
    """002 "Keeping score": miles, 400 for the winner, 100 a safety + 300 a coup fourré,
    200 for winning without a 200, minus the miles still in hand."""
    count = setup.side_count
    miles = tuple(side.miles for side in hand.sides)
    safeties, coups = _safeties_row(setup, hand)
    winner = distance_winner(setup, hand)
    trip = [0] * count
    safe = [0] * count
    if winner is not None:
        trip[winner] = TRIP_BONUS
        if hand.sides[winner].two_hundreds == 0:
            safe[winner] = setup.options.safe_trip_bonus
    in_hand = [0] * count
    for seat, cards in enumerate(hand.leftovers):
        in_hand[setup.side_of(seat)] -= sum(card.kind.miles for card in cards)
    return [
        ("Milestones", miles),
        ("Safeties", safeties),
        ("Coups fourrés", coups),
        ("Trip completed", tuple(trip)),
        ("Safe trip", tuple(safe)),
        ("Miles in hand", tuple(in_hand)),
    ]


def score_hand(setup: GameSetup, hand: HandState, brought_forward: Sequence[int]) -> ScoreSheet:
    """The score sheet of a finished hand."""
    from bornes.engine.state import ScoreSheet

    scoring = setup.options.scoring
    if scoring is Scoring.CLASSIC:
        rows = _classic_rows(setup, hand)
    elif scoring is Scoring.MILLE_BORNES_FR:
        rows = _mille_bornes_fr_rows(setup, hand)
    elif scoring is Scoring.HASBRO_2016:
        safeties, coups = _safeties_row(setup, hand)
        rows = [("Milestones", tuple(s.miles for s in hand.sides)), ("Safeties", safeties), ("Coups fourrés", coups)]
    else:
        rows = [("Milestones", tuple(s.miles for s in hand.sides))]
    return ScoreSheet(hand=hand.number, rows=tuple(rows), brought_forward=tuple(brought_forward))


def hand_points(state: GameState) -> tuple[int, ...]:
    """Each side's points in the current hand: the one rule the panel, the phone pages and the
    club board all show.

    While the hand is played, the rows already earned (:data:`EARNED_ROWS`: milestones, safeties,
    coups fourrés), so a coup fourré shows at once; once the hand is scored, its sheet's total for
    the deal, bonuses included.
    """
    from bornes.engine.state import Phase

    hand = state.hand
    sheets = state.sheets
    if state.phase in (Phase.HAND_OVER, Phase.GAME_OVER) and sheets and sheets[-1].hand == hand.number:
        return sheets[-1].total_for_deal
    sheet = score_hand(state.setup, hand, state.totals)
    return tuple(
        sum(values[side] for label, values in sheet.rows if label in EARNED_ROWS)
        for side in range(state.setup.side_count)
    )


def game_result(
    setup: GameSetup, sheets: Sequence[ScoreSheet], hand: HandState
) -> tuple[bool, int | None, bool]:
    """(game over, winning side or None, tie) after the latest sheet."""
    options = setup.options
    totals = sheets[-1].combined
    if options.single_hand:
        if options.winner is Winner.DISTANCE:
            winner = distance_winner(setup, hand)
            return True, winner, winner is None
        top = max(totals)
        leaders = [i for i, t in enumerate(totals) if t == top]
        return True, (leaders[0] if len(leaders) == 1 else None), len(leaders) > 1
    top = max(totals)
    if top < options.game_target:
        return False, None, False
    leaders = [i for i, t in enumerate(totals) if t == top]
    if len(leaders) > 1:
        return False, None, False  # equal totals past 5000: another hand decides (docs/rules.md)
    return True, leaders[0], False

