"""The public state of a table: what a referee can see and count, never the hands.

States are immutable values. ``bornes.engine.rules.apply`` returns a new state; the old one is
untouched, so undo is simply replaying the log without its last action.

The per-action states (GameState, HandState, SideState, the coup-fourré window, Event) are named
tuples and change through ``_replace``: the referee builds a new hand and a side or two for
every action, and a 21-field frozen dataclass cost 3.6 µs to build (one ``object.__setattr__``
per field) where a named tuple takes 0.4 µs. Values fixed for a game stay frozen dataclasses.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from bornes.engine.actions import seat_letter
from bornes.engine.cards import Card, CardKind, deck_counts
from bornes.engine.options import Edition, RuleOptions, edition
from bornes.engine.reasons import Reason, Refusal
from bornes.engine.values import FrozenValue

# Enum members read on every action, bound once as module globals: on Python 3.11 (Raspberry Pi
# OS bookworm) ``Phase.PLAY`` goes through the slot hook of EnumType.__getattr__, ~870 instructions a
# read, where a global is one specialised LOAD_GLOBAL (3.12 dropped the hook).
_KIND_D200 = CardKind.D200
_KIND_RIGHT_OF_WAY = CardKind.RIGHT_OF_WAY
_KIND_ROLL = CardKind.ROLL
_KIND_SPEED_LIMIT = CardKind.SPEED_LIMIT

HAND_SIZE = 6
#: A player's name fits the score sheet's column and the record's ``Players`` tag.
MAX_NAME_LENGTH = 12


class SetupError(ValueError):
    """A table that the edition does not allow (seat count, names, dealer)."""


def check_name(name: str) -> Refusal | None:
    """Why ``name`` cannot be a player's name, or ``None``: the one rule for names.

    1–12 printable characters, not only spaces, and none of ``;`` (it separates the names in a
    record's ``Players`` tag) or ``"`` (it closes the tag).
    """
    if not name.strip() or len(name) > MAX_NAME_LENGTH or not name.isprintable() or any(ch in name for ch in ';"'):
        return Refusal(
            Reason.BAD_NAME,
            lambda: f"player name {name!r} must be 1–{MAX_NAME_LENGTH} printable characters without ; or \"",
            lambda: {"name": name, "longest": MAX_NAME_LENGTH},
        )
    return None


def check_names(names: Iterable[str]) -> Refusal | None:
    """Why these names cannot sit at one table: a bad name, or the same name twice (each side's
    score sheet is keyed by its name, so two Anns would lose one column). Case does not tell
    two players apart: "Ann" and "ANN" look the same on the table's screen."""
    seen: set[str] = set()
    for name in names:
        refusal = check_name(name)
        if refusal is not None:
            return refusal
        key = name.strip().casefold()
        if key in seen:
            return Refusal(
                Reason.DUPLICATE_NAME, f"two players are called {name.strip()!r}: each needs a name of their own",
                {"name": name.strip()},
            )
        seen.add(key)
    return None


@dataclass(frozen=True, slots=True)
class GameSetup(FrozenValue):
    """Everything fixed for a whole game: edition, options, seats and the first dealer."""

    edition: str
    options: RuleOptions
    names: tuple[str, ...]
    teams: bool
    dealer: int = 0
    _deck: dict[CardKind, int] = field(init=False, repr=False, compare=False)
    _sides: tuple[int, ...] = field(init=False, repr=False, compare=False)
    _side_seats: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)
    _short_deck: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Asked on every card check: work these out once per game.
        seats = len(self.names)
        short = seats in edition(self.edition).short_deck_seats
        object.__setattr__(self, "_short_deck", short)
        object.__setattr__(self, "_deck", deck_counts(short))
        count = seats // 2 if self.teams else seats
        object.__setattr__(self, "_sides", tuple(seat % count for seat in range(seats)))
        object.__setattr__(self, "_side_seats", tuple(tuple(range(side, seats, count)) for side in range(count)))

    @classmethod
    def create(
        cls,
        edition_name: str,
        names: tuple[str, ...] | list[str],
        *,
        teams: bool | None = None,
        dealer: int = 0,
        options: RuleOptions | None = None,
    ) -> GameSetup:
        """Check the table against the edition and build the setup."""
        ed = edition(edition_name)
        names = tuple(names)
        seats = len(names)
        if seats not in ed.seat_counts:
            counts = ", ".join(map(str, ed.seat_counts))
            raise SetupError(f"{ed.name} is for {counts} players, not {seats}")
        if teams is None:
            teams = ed.default_teams(seats)
        if teams and seats not in ed.team_seats:
            raise SetupError(f"{ed.name} has no partnership game for {seats} players")
        if not teams and seats not in ed.solo_seats:
            raise SetupError(f"{ed.name} plays {seats} players in partnerships only")
        refusal = check_names(names)
        if refusal is not None:
            raise SetupError(refusal.message)
        if not 0 <= dealer < seats:
            raise SetupError(f"dealer must be a seat from A to {seat_letter(seats - 1)}")
        return cls(ed.name, options if options is not None else ed.options, names, teams, dealer)

    @property
    def edition_info(self) -> Edition:
        return edition(self.edition)

    @property
    def seats(self) -> int:
        return len(self.names)

    @property
    def side_count(self) -> int:
        return self.seats // 2 if self.teams else self.seats

    def side_of(self, seat: int) -> int:
        """Partners alternate around the table: with k sides, seats i and i+k are partners."""
        return self._sides[seat]

    def side_seats(self, side: int) -> tuple[int, ...]:
        return self._side_seats[side]

    def side_name(self, side: int) -> str:
        return " & ".join(self.names[s] for s in self.side_seats(side))

    def side_letters(self, side: int) -> str:
        return "".join(seat_letter(s) for s in self.side_seats(side))

    @property
    def short_deck(self) -> bool:
        return self.seats in self.edition_info.short_deck_seats

    @property
    def deck(self) -> dict[CardKind, int]:
        return dict(self._deck)

    @property
    def deck_size(self) -> int:
        return sum(self._deck.values())

    def in_deck(self, card: Card) -> bool:
        return card.copy <= self._deck.get(card.kind, 0)


class SideState(NamedTuple):
    """One side's piles. In a partnership both partners play to the same piles."""

    battle: tuple[Card, ...] = ()
    speed: tuple[Card, ...] = ()
    distance: tuple[Card, ...] = ()
    safeties: tuple[Card, ...] = ()
    coups: tuple[CardKind, ...] = ()
    miles: int = 0

    def has(self, safety: CardKind) -> bool:
        for card in self.safeties:  # noqa: SIM110 (any() over a generator costs twice this loop here)
            if card.kind is safety:
                return True
        return False

    @property
    def two_hundreds(self) -> int:
        return sum(1 for card in self.distance if card.kind is _KIND_D200)

    @property
    def battle_top(self) -> CardKind | None:
        return self.battle[-1].kind if self.battle else None

    @property
    def active_hazard(self) -> CardKind | None:
        """The hazard on top of the battle pile, unless a later safety cancelled it."""
        battle = self.battle  # (the referee asks this every turn: no property calls, no safety lookup without safeties)
        if battle:
            top = battle[-1].kind
            if top.is_hazard and not (self.safeties and self.has(top.safety)):
                return top
        return None

    @property
    def limited(self) -> bool:
        """Under a speed limit: a Speed Limit on top of the speed pile and no Right of Way."""
        speed = self.speed
        return bool(speed) and speed[-1].kind is _KIND_SPEED_LIMIT and not (
            self.safeties and self.has(_KIND_RIGHT_OF_WAY)
        )

    def table_cards(self) -> tuple[Card, ...]:
        return self.battle + self.speed + self.distance + self.safeties


def can_move(side: SideState, options: RuleOptions) -> bool:
    """Whether a side may play distance: rolling, or moving under Right of Way (000 §6B, §6C)."""
    safeties = side.safeties  # most sides hold none: then no safety is looked up at all
    right_of_way = bool(safeties) and side.has(_KIND_RIGHT_OF_WAY)
    battle = side.battle
    if not battle:
        return right_of_way
    top = battle[-1].kind
    if top is _KIND_ROLL:
        return True
    if top.is_hazard:
        if safeties and side.has(top.safety):
            return right_of_way or not options.roll_after_safety
        return False
    return right_of_way or not options.roll_after_remedy


def battle_status(side: SideState, options: RuleOptions) -> str:
    """A word for screens: ``rolling``, ``not started``, ``needs roll`` or the stopping hazard's value."""
    hazard = side.active_hazard
    if hazard is not None:
        return hazard.value  # the payload KIND, e.g. STOP
    if can_move(side, options):
        return "rolling"
    return "not started" if not side.battle else "needs roll"


class Phase(enum.Enum):
    START_ROLLS = "start-rolls"  # "pour les plus jeunes": each player lays a Feu Vert
    PLAY = "play"
    EXTENSION = "extension"  # the player who reached 700 decides
    LEFTOVERS = "leftovers"  # 1000 Bornes: players show the cards left in hand
    HAND_OVER = "hand-over"
    GAME_OVER = "game-over"


class Why(enum.Enum):
    """Why a seat may act now."""

    IN_TURN = "in-turn"  # its turn: play, discard, take the top discard, swap
    HAZARD_WINDOW = "hazard-window"  # its side was just attacked: coup fourré or Fast Play remedy
    EXTENSION_DECISION = "extension-decision"  # it reached the short trip and decides the extension
    START_ROLL = "start-roll"  # it still lays its starting Roll ("pour les plus jeunes")
    LEFTOVERS = "leftovers"  # the hand is over and it still shows the cards left in its hand


class Actor(NamedTuple):
    """A seat that may act now, and why."""

    seat: int
    why: Why


class CoupFourreWindow(NamedTuple):
    """A hazard just played: its side may answer with the safety until the next card is played."""

    hazard: Card
    side: int
    attacker: int


@dataclass(frozen=True, slots=True)
class ScoreSheet(FrozenValue):
    """One hand's score sheet: rows of the 003 score sheet, one column per side."""

    hand: int
    rows: tuple[tuple[str, tuple[int, ...]], ...]
    brought_forward: tuple[int, ...]

    @property
    def total_for_deal(self) -> tuple[int, ...]:
        columns = len(self.brought_forward)
        return tuple(sum(values[i] for _, values in self.rows) for i in range(columns))

    @property
    def combined(self) -> tuple[int, ...]:
        return tuple(a + b for a, b in zip(self.brought_forward, self.total_for_deal, strict=True))

    def row(self, label: str) -> tuple[int, ...]:
        for name, values in self.rows:
            if name == label:
                return values
        raise KeyError(label)

    def as_dict(self, side_names: tuple[str, ...]) -> dict[str, object]:
        """A JSON-ready sheet: every row, then the totals, per side name."""
        table: dict[str, object] = {"hand": self.hand}
        columns: list[dict[str, int]] = []
        for i in range(len(side_names)):
            column = {label: values[i] for label, values in self.rows}
            column["Total for deal"] = self.total_for_deal[i]
            column["Brought forward"] = self.brought_forward[i]
            column["Combined total"] = self.combined[i]
            columns.append(column)
        table["sides"] = {name: column for name, column in zip(side_names, columns, strict=True)}
        return table


class HandState(NamedTuple):
    """Everything public about the hand in progress."""

    number: int
    dealer: int
    sides: tuple[SideState, ...]
    hands: tuple[int, ...]
    draw_pile: int
    discard: tuple[Card, ...] = ()
    seen: frozenset[Card] = frozenset()
    turn: int = 0
    drawn: bool = False
    phase: Phase = Phase.PLAY
    window: CoupFourreWindow | None = None
    trip: int = 1000
    extension_by: int | None = None
    decider: int | None = None
    exhausted: bool = False
    finisher: int | None = None
    delayed: bool = False
    pending_delayed: bool = False
    started: frozenset[int] = frozenset()
    leftovers: tuple[tuple[Card, ...], ...] = ()
    blocked: bool = False


class GameState(NamedTuple):
    """A whole game: the setup, the hand in progress and the sheets of finished hands."""

    setup: GameSetup
    hand: HandState
    sheets: tuple[ScoreSheet, ...] = ()
    winner: int | None = None
    over: bool = False
    tie: bool = False

    @property
    def options(self) -> RuleOptions:
        return self.setup.options

    @property
    def totals(self) -> tuple[int, ...]:
        if self.sheets:
            return self.sheets[-1].combined
        return (0,) * self.setup.side_count

    @property
    def phase(self) -> Phase:
        return Phase.GAME_OVER if self.over else self.hand.phase

    def acting(self) -> tuple[Actor, ...]:
        """Who may act now and why, like boardgame.io's active players: the seat in turn, then the
        seats of an attacked side that may answer the hazard just played (a seat in turn on that
        side is listed twice, once for each reason), the decider of an extension, the seats still
        to lay a starting Roll or to show their leftovers. ``end`` and ``next`` belong to the whole
        table and are not listed here."""
        hand = self.hand
        phase = self.phase
        if phase is Phase.PLAY:
            actors = [Actor(hand.turn, Why.IN_TURN)]
            window = hand.window
            if window is not None:
                actors += [Actor(s, Why.HAZARD_WINDOW) for s in self.setup.side_seats(window.side) if hand.hands[s]]
            return tuple(actors)
        if phase is Phase.EXTENSION and hand.decider is not None:
            return (Actor(hand.decider, Why.EXTENSION_DECISION),)
        if phase is Phase.START_ROLLS:
            return tuple(Actor(s, Why.START_ROLL) for s in range(self.setup.seats) if s not in hand.started)
        if phase is Phase.LEFTOVERS:
            return tuple(Actor(s, Why.LEFTOVERS) for s in range(self.setup.seats) if hand.hands[s])
        return ()

    def to_act(self) -> tuple[int, ...]:
        """The seats that may act now, each once (the coup-fourré callers come after the seat in turn)."""
        seats: list[int] = []
        for actor in self.acting():
            if actor.seat not in seats:
                seats.append(actor.seat)
        return tuple(seats)

    def window_callers(self) -> tuple[int, ...]:
        """The seats that may answer the hazard just played (coup fourré, Fast Play remedy), in seat order."""
        return tuple(actor.seat for actor in self.acting() if actor.why is Why.HAZARD_WINDOW)

    def side(self, side: int) -> SideState:
        return self.hand.sides[side]

    def side_of(self, seat: int) -> SideState:
        return self.hand.sides[self.setup.side_of(seat)]


class EventCode(enum.StrEnum):
    """What happened, as a stable code: logs, JSON and the table flow compare these."""

    DISTANCE = "distance"
    HAZARD = "hazard"
    REMEDY = "remedy"
    SAFETY = "safety"
    COUP_FOURRE = "coup-fourre"
    FAST_REMEDY = "fast-remedy"
    DISCARD = "discard"
    TAKE_DISCARD = "take-discard"
    SWAP = "swap"
    RESHUFFLED = "reshuffled"
    DRAW_PILE_EMPTY = "draw-pile-empty"
    EXTENSION_ASKED = "extension-asked"
    EXTENSION = "extension"
    TRIP_COMPLETED = "trip-completed"
    BLOCKED = "blocked"
    SHOW_LEFTOVERS = "show-leftovers"
    HAND_OVER = "hand-over"
    GAME_OVER = "game-over"
    NEW_HAND = "new-hand"


class Event(NamedTuple):
    """Something that happened, as data: the table flow turns these into screens and sounds."""

    code: EventCode
    message: str
    seat: int | None = None
    side: int | None = None
    card: Card | None = None
    seats: tuple[int, ...] = ()
