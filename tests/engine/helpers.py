"""A tiny table for engine tests: build a game, push notation lines, read the result.

Tests read like a real table::

    game = new_game("winning-moves", 2)          # A plays first (B deals)
    play(game, "A play MB-ROLL-01", "B play MB-STOP-01 > A")
    refused(game, "A play MB-D100-01", "stopped")

``filler(game)`` makes the seat in turn discard a card nobody in the script uses (the highest
copies of Repairs, Gasoline, Spare Tire, End of Limit, 75, 50 and 25, in that order), so long
positions can be built without inventing codes by hand; ``until(game, "C")`` discards for
every seat until C is in turn.
"""

from __future__ import annotations

import string
from collections.abc import Mapping

from bornes.engine.actions import parse_action
from bornes.engine.cards import Card, CardKind
from bornes.engine.game import Game
from bornes.engine.options import EDITIONS
from bornes.engine.reasons import Refusal
from bornes.engine.rules import Accepted
from bornes.engine.state import GameSetup, GameState, SideState

LETTERS = string.ascii_uppercase


def seat(letter: str) -> int:
    return LETTERS.index(letter)


def new_game(
    edition: str = "winning-moves",
    players: int = 2,
    *,
    teams: bool | None = None,
    dealer: str | None = None,
    rule_options: Mapping[str, object] | None = None,
    **options: object,
) -> Game:
    """A fresh game. The last seat deals unless told otherwise, so seat A plays first.

    Options are given as keyword arguments in their text form or as Python values
    (``roll_after_remedy="yes"`` or ``roll_after_remedy=True``), or as one mapping in
    ``rule_options`` (a test's parameters).
    """
    options = {**(rule_options or {}), **options}
    names = [f"P{LETTERS[i]}" for i in range(players)]
    preset = EDITIONS[edition].options
    text = {k: ("yes" if v is True else "no" if v is False else str(v)) for k, v in options.items()}
    opts = preset.with_strings(text) if text else preset
    dealer_seat = players - 1 if dealer is None else seat(dealer)
    return Game(GameSetup.create(edition, names, teams=teams, dealer=dealer_seat, options=opts))


def play(game: Game, *lines: str) -> list[Accepted]:
    """Push every line; each must be accepted (the failure names the line and the refusal)."""
    verdicts: list[Accepted] = []
    for number, line in enumerate(lines, 1):
        verdict = game.push(parse_action(line))
        assert isinstance(verdict, Accepted), f"line {number} {line!r} was refused: {verdict}"
        verdicts.append(verdict)
    return verdicts


def refused(game: Game, line: str, code: str) -> Refusal:
    """The line must be refused with ``code``, and nothing may change."""
    before = game.state
    log = list(game.log)
    verdict = game.push(parse_action(line))
    assert isinstance(verdict, Refusal), f"{line!r} was accepted, expected refusal {code!r}"
    assert verdict.code == code, f"{line!r} refused with {verdict.code!r} ({verdict.message}), expected {code!r}"
    assert game.state is before and game.log == log
    return verdict


# -- fillers ------------------------------------------------------------------------------------

FILLER_KINDS = (
    CardKind.REPAIRS,
    CardKind.GASOLINE,
    CardKind.SPARE_TIRE,
    CardKind.END_OF_LIMIT,
    CardKind.D75,
    CardKind.D50,
    CardKind.D25,
)


#: Every kind, for scripts that must run the whole draw pile down.
ANY_KINDS = (
    *FILLER_KINDS,
    CardKind.ROLL,
    CardKind.D100,
    CardKind.STOP,
    CardKind.SPEED_LIMIT,
    CardKind.ACCIDENT,
    CardKind.OUT_OF_GAS,
    CardKind.FLAT_TIRE,
    CardKind.D200,
    CardKind.DRIVING_ACE,
    CardKind.EXTRA_TANK,
    CardKind.PUNCTURE_PROOF,
    CardKind.RIGHT_OF_WAY,
)


def spare_card(game: Game, kinds: tuple[CardKind, ...] = FILLER_KINDS, keep: frozenset[str] = frozenset()) -> Card:
    """The highest unseen copy of the first filler kind that has one left, never one of ``keep``."""
    state = game.state
    for kind in kinds:
        for copy in range(state.setup.deck.get(kind, 0), 0, -1):
            card = Card(kind, copy)
            if card not in state.hand.seen and card.code() not in keep:
                return card
    raise AssertionError("no filler card left")


def filler(game: Game, kinds: tuple[CardKind, ...] = FILLER_KINDS, keep: frozenset[str] = frozenset()) -> Accepted:
    """The seat in turn discards a spare card."""
    state = game.state
    line = f"{LETTERS[state.hand.turn]} discard {spare_card(game, kinds, keep).code()}"
    return play(game, line)[0]


def run_down(game: Game, left: int = 0, *, before: str | None = None, keep: tuple[str, ...] = ()) -> None:
    """Discard spare cards until the draw pile holds ``left`` cards (and, if given, ``before`` is in turn)."""
    kept = frozenset(keep)
    for _ in range(200):
        hand = game.state.hand
        if hand.draw_pile <= left and (before is None or hand.turn == seat(before)):
            assert hand.draw_pile == left, f"draw pile went past {left}"
            return
        assert game.state.phase.value == "play", f"the hand ended before the draw pile reached {left}"
        filler(game, ANY_KINDS, kept)
    raise AssertionError("run_down did not finish")


def until(game: Game, letter: str) -> None:
    """Every other seat discards a spare card until ``letter`` is in turn."""
    for _ in range(game.setup.seats + 1):
        if game.state.hand.turn == seat(letter):
            return
        filler(game)
    raise AssertionError(f"{letter} never came into turn")


def turn(game: Game) -> str:
    return LETTERS[game.state.hand.turn]


def side(game: Game, letter: str) -> SideState:
    return game.state.side_of(seat(letter))


def miles(game: Game, letter: str) -> int:
    return side(game, letter).miles


def codes(game: Game) -> list[str]:
    """Every accepted action so far, in notation."""
    return [a.notation() for a in game.log]


def state_after(game: Game, *lines: str) -> GameState:
    play(game, *lines)
    return game.state
