"""Card kinds and physical card identities.

Every physical card at the table has its own identity, a kind plus a copy number, so
the referee can tell a second read of the same card from a new card. The identity
round-trips through the printed payload ``MB-<KIND>-<NN>``, the same text that is on
barcode labels and NTAG stickers (see docs/readers.md).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator, Mapping
from typing import NamedTuple


class Category(enum.Enum):
    """The four families printed on the cards."""

    DISTANCE = "distance"
    HAZARD = "hazard"
    REMEDY = "remedy"
    SAFETY = "safety"


class _KindFacts:
    """Facts about a card kind, set once on each member below the tables.

    Plain attributes, not properties: the referee reads them for every card it judges, and on
    Python 3.11 a property of an enum member costs several times an attribute read. A mixin, so
    mypy still sees ``CardKind.value`` as the payload string.
    """

    category: Category
    miles: int  #: distance of a distance card, 0 for every other kind
    title: str  #: the English name printed on the card
    short: str  #: a name of at most 8 characters, for small screens
    is_distance: bool
    is_hazard: bool
    is_remedy: bool
    is_safety: bool
    #: A hazard's remedy and safety (000 §6A, §6B); only hazards have them (AttributeError otherwise).
    remedy: CardKind
    safety: CardKind


class CardKind(_KindFacts, enum.Enum):
    """The 19 card kinds. The value is the KIND field of the ``MB-<KIND>-<NN>`` payload."""

    D25 = "D25"
    D50 = "D50"
    D75 = "D75"
    D100 = "D100"
    D200 = "D200"
    ACCIDENT = "ACCIDENT"
    OUT_OF_GAS = "OUTOFGAS"
    FLAT_TIRE = "FLATTIRE"
    SPEED_LIMIT = "SPEEDLIMIT"
    STOP = "STOP"
    REPAIRS = "REPAIRS"
    GASOLINE = "GASOLINE"
    SPARE_TIRE = "SPARETIRE"
    END_OF_LIMIT = "ENDOFLIMIT"
    ROLL = "ROLL"
    DRIVING_ACE = "DRIVINGACE"
    EXTRA_TANK = "EXTRATANK"
    PUNCTURE_PROOF = "PUNCTUREPROOF"
    RIGHT_OF_WAY = "RIGHTOFWAY"

    # Members are singletons: identity hashing is correct and runs in C, where Enum's own
    # __hash__ is Python code called millions of times by the simulator.
    __hash__ = object.__hash__


_CATEGORY: dict[CardKind, Category] = {
    **{k: Category.DISTANCE for k in (CardKind.D25, CardKind.D50, CardKind.D75, CardKind.D100, CardKind.D200)},
    **{
        k: Category.HAZARD
        for k in (CardKind.ACCIDENT, CardKind.OUT_OF_GAS, CardKind.FLAT_TIRE, CardKind.SPEED_LIMIT, CardKind.STOP)
    },
    **{
        k: Category.REMEDY
        for k in (CardKind.REPAIRS, CardKind.GASOLINE, CardKind.SPARE_TIRE, CardKind.END_OF_LIMIT, CardKind.ROLL)
    },
    **{
        k: Category.SAFETY
        for k in (CardKind.DRIVING_ACE, CardKind.EXTRA_TANK, CardKind.PUNCTURE_PROOF, CardKind.RIGHT_OF_WAY)
    },
}

_MILES: dict[CardKind, int] = {
    CardKind.D25: 25,
    CardKind.D50: 50,
    CardKind.D75: 75,
    CardKind.D100: 100,
    CardKind.D200: 200,
}

_TITLE: dict[CardKind, str] = {
    CardKind.D25: "25 miles",
    CardKind.D50: "50 miles",
    CardKind.D75: "75 miles",
    CardKind.D100: "100 miles",
    CardKind.D200: "200 miles",
    CardKind.ACCIDENT: "Accident",
    CardKind.OUT_OF_GAS: "Out of Gas",
    CardKind.FLAT_TIRE: "Flat Tire",
    CardKind.SPEED_LIMIT: "Speed Limit",
    CardKind.STOP: "Stop",
    CardKind.REPAIRS: "Repairs",
    CardKind.GASOLINE: "Gasoline",
    CardKind.SPARE_TIRE: "Spare Tire",
    CardKind.END_OF_LIMIT: "End of Limit",
    CardKind.ROLL: "Roll",
    CardKind.DRIVING_ACE: "Driving Ace",
    CardKind.EXTRA_TANK: "Extra Tank",
    CardKind.PUNCTURE_PROOF: "Puncture-Proof",
    CardKind.RIGHT_OF_WAY: "Right of Way",
}

_SHORT: dict[CardKind, str] = {
    CardKind.D25: "25",
    CardKind.D50: "50",
    CardKind.D75: "75",
    CardKind.D100: "100",
    CardKind.D200: "200",
    CardKind.ACCIDENT: "Accident",
    CardKind.OUT_OF_GAS: "No gas",
    CardKind.FLAT_TIRE: "Flat",
    CardKind.SPEED_LIMIT: "Limit",
    CardKind.STOP: "Stop",
    CardKind.REPAIRS: "Repairs",
    CardKind.GASOLINE: "Gas",
    CardKind.SPARE_TIRE: "Spare",
    CardKind.END_OF_LIMIT: "EndLimit",
    CardKind.ROLL: "Roll",
    CardKind.DRIVING_ACE: "Ace",
    CardKind.EXTRA_TANK: "Tank",
    CardKind.PUNCTURE_PROOF: "NoFlat",
    CardKind.RIGHT_OF_WAY: "RightWay",
}

#: The remedy that cures each hazard (000 §6A).
REMEDY_FOR: Mapping[CardKind, CardKind] = {
    CardKind.ACCIDENT: CardKind.REPAIRS,
    CardKind.OUT_OF_GAS: CardKind.GASOLINE,
    CardKind.FLAT_TIRE: CardKind.SPARE_TIRE,
    CardKind.SPEED_LIMIT: CardKind.END_OF_LIMIT,
    CardKind.STOP: CardKind.ROLL,
}

#: The hazard each remedy cures.
HAZARD_CURED_BY: Mapping[CardKind, CardKind] = {r: h for h, r in REMEDY_FOR.items()}

#: The safety that protects against each hazard (000 §6B: Right of Way covers Stop and Speed Limit).
SAFETY_FOR: Mapping[CardKind, CardKind] = {
    CardKind.ACCIDENT: CardKind.DRIVING_ACE,
    CardKind.OUT_OF_GAS: CardKind.EXTRA_TANK,
    CardKind.FLAT_TIRE: CardKind.PUNCTURE_PROOF,
    CardKind.SPEED_LIMIT: CardKind.RIGHT_OF_WAY,
    CardKind.STOP: CardKind.RIGHT_OF_WAY,
}

#: The five distance kinds, shortest first.
DISTANCE_KINDS: tuple[CardKind, ...] = (CardKind.D25, CardKind.D50, CardKind.D75, CardKind.D100, CardKind.D200)
#: Hazards that go on the battle pile (the Speed Limit goes on the speed pile).
BATTLE_HAZARDS: tuple[CardKind, ...] = (CardKind.STOP, CardKind.OUT_OF_GAS, CardKind.FLAT_TIRE, CardKind.ACCIDENT)
#: Every hazard: the battle hazards and the Speed Limit.
HAZARD_KINDS: tuple[CardKind, ...] = (*BATTLE_HAZARDS, CardKind.SPEED_LIMIT)
#: The four safeties, in the order screens show them.
SAFETY_KINDS: tuple[CardKind, ...] = (
    CardKind.RIGHT_OF_WAY,
    CardKind.EXTRA_TANK,
    CardKind.PUNCTURE_PROOF,
    CardKind.DRIVING_ACE,
)

for _kind in CardKind:
    _kind.category = _CATEGORY[_kind]
    _kind.miles = _MILES.get(_kind, 0)
    _kind.title = _TITLE[_kind]
    _kind.short = _SHORT[_kind]
    _kind.is_distance = _kind.category is Category.DISTANCE
    _kind.is_hazard = _kind.category is Category.HAZARD
    _kind.is_remedy = _kind.category is Category.REMEDY
    _kind.is_safety = _kind.category is Category.SAFETY
for _kind in REMEDY_FOR:
    _kind.remedy = REMEDY_FOR[_kind]
    _kind.safety = SAFETY_FOR[_kind]
del _kind

PAYLOAD_PREFIX = "MB-"
_PAYLOAD_RE = re.compile(r"MB-([A-Z0-9]+)-([0-9]{2})")
_KIND_BY_CODE: dict[str, CardKind] = {k.value: k for k in CardKind}


class CardCodeError(ValueError):
    """A payload that is not a valid ``MB-<KIND>-<NN>`` card code."""


class Card(NamedTuple):
    """One physical card: its kind and its copy number (1 for the first copy).

    A named tuple, so hashing and equality run in C: cards live in sets and frozensets
    everywhere, and the simulator hashes them millions of times. ``from_code`` is the
    checked way in from the outside world.
    """

    kind: CardKind
    copy: int

    @classmethod
    def from_code(cls, code: str) -> Card:
        """Parse ``MB-D100-07``. Raises :class:`CardCodeError` for anything else."""
        match = _PAYLOAD_RE.fullmatch(code.strip())
        if match is None:
            raise CardCodeError(f"not a card code: {code!r}")
        kind = _KIND_BY_CODE.get(match.group(1))
        if kind is None:
            raise CardCodeError(f"unknown card kind {match.group(1)!r} in {code!r}")
        copy = int(match.group(2))
        if copy == 0:
            raise CardCodeError(f"copy number 00 in {code!r}")
        return cls(kind, copy)

    def code(self) -> str:
        """The payload printed on the label, e.g. ``MB-D100-07``."""
        return f"{PAYLOAD_PREFIX}{self.kind.value}-{self.copy:02d}"

    def describe(self) -> str:
        """What a person reads: ``100 miles (#7)``."""
        return f"{self.kind.title} (#{self.copy})"

    def __str__(self) -> str:
        return self.code()


#: The 106 playing cards of the classic deck (000 §2, 003 "The Cards", 001 "Components").
CLASSIC_COUNTS: Mapping[CardKind, int] = {
    CardKind.D25: 10,
    CardKind.D50: 10,
    CardKind.D75: 10,
    CardKind.D100: 12,
    CardKind.D200: 4,
    CardKind.OUT_OF_GAS: 3,
    CardKind.FLAT_TIRE: 3,
    CardKind.ACCIDENT: 3,
    CardKind.SPEED_LIMIT: 4,
    CardKind.STOP: 5,
    CardKind.GASOLINE: 6,
    CardKind.SPARE_TIRE: 6,
    CardKind.REPAIRS: 6,
    CardKind.END_OF_LIMIT: 6,
    CardKind.ROLL: 14,
    CardKind.EXTRA_TANK: 1,
    CardKind.PUNCTURE_PROOF: 1,
    CardKind.DRIVING_ACE: 1,
    CardKind.RIGHT_OF_WAY: 1,
}

#: Cards taken out for 2 and 3 players in the classic rules (000 §10A, 003 "Rules for 2 or 3 Players" A).
#: The highest copy of each kind is the one removed, so the labels of a full deck still apply.
SHORT_DECK_REMOVALS: tuple[CardKind, ...] = (
    CardKind.STOP,
    CardKind.ACCIDENT,
    CardKind.OUT_OF_GAS,
    CardKind.FLAT_TIRE,
    CardKind.SPEED_LIMIT,
)


def full_deck(counts: Mapping[CardKind, int] = CLASSIC_COUNTS) -> tuple[Card, ...]:
    """Every physical card of a box, in a fixed order."""
    return tuple(Card(kind, n) for kind in CardKind for n in range(1, counts.get(kind, 0) + 1))


def deck_counts(short_deck: bool, counts: Mapping[CardKind, int] = CLASSIC_COUNTS) -> dict[CardKind, int]:
    """Copies of each kind in play; ``short_deck`` removes one each of the five short-deck kinds."""
    result = dict(counts)
    if short_deck:
        for kind in SHORT_DECK_REMOVALS:
            result[kind] -= 1
    return result


def iter_deck(counts: Mapping[CardKind, int]) -> Iterator[Card]:
    """The cards in play for the given counts, in a fixed order."""
    for kind in CardKind:
        for n in range(1, counts.get(kind, 0) + 1):
            yield Card(kind, n)
