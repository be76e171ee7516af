"""Actions: everything that can happen at the table, and their one-line notation.

Each action is a small frozen value whose notation round-trips, like ``Move.uci()`` in
python-chess: ``parse_action(a.notation()) == a``. Seats are letters A, B, C… in playing
order; a hazard's target is written as the first seat letter of the target side.

==========================  ==========================================================
``A play MB-D100-07``        seat A plays a card on its own side
``A play MB-STOP-02 > B``    seat A plays a hazard on the side of seat B
``A discard MB-D25-03``      seat A discards
``B coup MB-DRIVINGACE-01``  seat B calls coup fourré with that safety, out of turn
``A take MB-ROLL-04``        seat A takes the top discard instead of drawing (2016)
``B fast MB-GASOLINE-02``    seat B remedies a fresh hazard at once (2016 Fast Play)
``A swap MB-D25-01 MB-…``    seat A discards several cards and redraws (2016 Fast Play)
``A start MB-ROLL-03``       seat A lays its starting Roll ("pour les plus jeunes")
``A extension yes``          seat A extends the trip to 1000 (or ``no``)
``A left MB-D100-03``        seat A shows a card left in hand at the end (1000 Bornes)
``end``                      the table agrees the hand is blocked and ends it
``next``                     deal the next hand
==========================  ==========================================================
"""

from __future__ import annotations

import enum
import string
from collections.abc import Callable
from dataclasses import dataclass

from bornes.engine.cards import Card, CardCodeError
from bornes.engine.values import FrozenValue

SEAT_LETTERS = string.ascii_uppercase[:8]


def seat_letter(seat: int) -> str:
    return SEAT_LETTERS[seat]


class NotationError(ValueError):
    """A line that is not an action in the record notation."""


class ActionKind(enum.Enum):
    """The eleven kinds of action; the value is the verb of the notation.

    Each action class reports its kind through a ``kind`` property rather than a ``ClassVar``:
    compiled by mypyc (docs/engine-speed.md), a dataclass's ``ClassVar`` would become a field.
    """

    PLAY = "play"
    DISCARD = "discard"
    COUP_FOURRE = "coup"
    TAKE_DISCARD = "take"
    FAST_REMEDY = "fast"
    SWAP = "swap"
    START_ROLL = "start"
    EXTENSION = "extension"
    LEFTOVER = "left"
    END_HAND = "end"
    NEXT_HAND = "next"

    __hash__ = object.__hash__  # singletons: C identity hashing, not Enum's Python __hash__


@dataclass(frozen=True, slots=True)
class Play(FrozenValue):
    seat: int
    card: Card
    target: int | None = None  # a seat of the target side, for hazards

    @property
    def kind(self) -> ActionKind:
        return ActionKind.PLAY

    def notation(self) -> str:
        tail = f" > {seat_letter(self.target)}" if self.target is not None else ""
        return f"{seat_letter(self.seat)} play {self.card.code()}{tail}"


@dataclass(frozen=True, slots=True)
class Discard(FrozenValue):
    seat: int
    card: Card

    @property
    def kind(self) -> ActionKind:
        return ActionKind.DISCARD

    def notation(self) -> str:
        return f"{seat_letter(self.seat)} discard {self.card.code()}"


@dataclass(frozen=True, slots=True)
class CoupFourre(FrozenValue):
    seat: int
    card: Card

    @property
    def kind(self) -> ActionKind:
        return ActionKind.COUP_FOURRE

    def notation(self) -> str:
        return f"{seat_letter(self.seat)} coup {self.card.code()}"


@dataclass(frozen=True, slots=True)
class TakeDiscard(FrozenValue):
    seat: int
    card: Card

    @property
    def kind(self) -> ActionKind:
        return ActionKind.TAKE_DISCARD

    def notation(self) -> str:
        return f"{seat_letter(self.seat)} take {self.card.code()}"


@dataclass(frozen=True, slots=True)
class FastRemedy(FrozenValue):
    seat: int
    card: Card

    @property
    def kind(self) -> ActionKind:
        return ActionKind.FAST_REMEDY

    def notation(self) -> str:
        return f"{seat_letter(self.seat)} fast {self.card.code()}"


@dataclass(frozen=True, slots=True)
class Swap(FrozenValue):
    seat: int
    cards: tuple[Card, ...]

    @property
    def kind(self) -> ActionKind:
        return ActionKind.SWAP

    def notation(self) -> str:
        return f"{seat_letter(self.seat)} swap " + " ".join(c.code() for c in self.cards)


@dataclass(frozen=True, slots=True)
class StartRoll(FrozenValue):
    seat: int
    card: Card

    @property
    def kind(self) -> ActionKind:
        return ActionKind.START_ROLL

    def notation(self) -> str:
        return f"{seat_letter(self.seat)} start {self.card.code()}"


@dataclass(frozen=True, slots=True)
class Extension(FrozenValue):
    seat: int
    extend: bool

    @property
    def kind(self) -> ActionKind:
        return ActionKind.EXTENSION

    def notation(self) -> str:
        return f"{seat_letter(self.seat)} extension {'yes' if self.extend else 'no'}"


@dataclass(frozen=True, slots=True)
class Leftover(FrozenValue):
    seat: int
    card: Card

    @property
    def kind(self) -> ActionKind:
        return ActionKind.LEFTOVER

    def notation(self) -> str:
        return f"{seat_letter(self.seat)} left {self.card.code()}"


@dataclass(frozen=True, slots=True)
class EndHand(FrozenValue):
    @property
    def kind(self) -> ActionKind:
        return ActionKind.END_HAND

    def notation(self) -> str:
        return "end"


@dataclass(frozen=True, slots=True)
class NextHand(FrozenValue):
    @property
    def kind(self) -> ActionKind:
        return ActionKind.NEXT_HAND

    def notation(self) -> str:
        return "next"


Action = (
    Play | Discard | CoupFourre | TakeDiscard | FastRemedy | Swap | StartRoll | Extension | Leftover
    | EndHand | NextHand
)

_ONE_CARD: dict[str, Callable[[int, Card], Action]] = {
    "discard": Discard,
    "coup": CoupFourre,
    "take": TakeDiscard,
    "fast": FastRemedy,
    "start": StartRoll,
    "left": Leftover,
}


def _seat(token: str, line: str) -> int:
    if len(token) != 1 or token not in SEAT_LETTERS:
        raise NotationError(f"{token!r} is not a seat letter A–H in {line!r}")
    return SEAT_LETTERS.index(token)


def _card(token: str, line: str) -> Card:
    try:
        return Card.from_code(token)
    except CardCodeError as error:
        raise NotationError(f"{error} in {line!r}") from None


def parse_action(line: str) -> Action:
    """Parse one action line. Raises :class:`NotationError` with the reason."""
    words = line.split()
    if not words:
        raise NotationError("empty action line")
    if words == ["end"]:
        return EndHand()
    if words == ["next"]:
        return NextHand()
    if len(words) < 2:
        raise NotationError(f"not an action: {line!r}")
    seat = _seat(words[0], line)
    verb, rest = words[1], words[2:]
    if verb == "play":
        if len(rest) == 1:
            return Play(seat, _card(rest[0], line))
        if len(rest) == 3 and rest[1] == ">":
            return Play(seat, _card(rest[0], line), _seat(rest[2], line))
        raise NotationError(f"expected 'X play CARD [> Y]': {line!r}")
    if verb in _ONE_CARD:
        if len(rest) != 1:
            raise NotationError(f"expected 'X {verb} CARD': {line!r}")
        return _ONE_CARD[verb](seat, _card(rest[0], line))
    if verb == "swap":
        if not rest:
            raise NotationError(f"expected 'X swap CARD…': {line!r}")
        return Swap(seat, tuple(_card(t, line) for t in rest))
    if verb == "extension":
        if rest == ["yes"]:
            return Extension(seat, True)
        if rest == ["no"]:
            return Extension(seat, False)
        raise NotationError(f"expected 'X extension yes|no': {line!r}")
    raise NotationError(f"unknown verb {verb!r} in {line!r}")
