"""Rule options and the edition presets built from them.

Every place where the rulebooks in ``shared/rulebooks/`` disagree is one named option.
An edition is nothing more than a named preset of option values, and a table may
override any of them (``docs/rules.md`` has the option × edition table with the
sentence each value comes from).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from bornes.engine.values import FrozenValue


class EmptyDrawPile(enum.Enum):
    """What happens when the draw pile runs out."""

    PLAY_OUT = "play-out"  # 000 §6C, 003 "Ending a Hand": play out the hands, no reshuffle
    RESHUFFLE = "reshuffle"  # 001 "Playing": shuffle the discard pile into a new draw pile
    END_HAND = "end-hand"  # 002 "How the game is played", 004 "Le jeu continue ainsi…": the hand ends


class CoupFourreScoring(enum.Enum):
    """How a safety played as a coup fourré scores."""

    BONUS_300 = "100+300"  # 000 §8, 003 "Scoring", 002 "Keeping score": 100 for the safety + 300
    FLAT_200 = "200"  # 001 "End of Mille Bornes": 200 in all for a coup fourré


class ExtensionFailure(enum.Enum):
    """Who gets the 200 extension bonus when the caller does not reach 1000 first."""

    OPPONENTS_ALWAYS = "opponents-always"  # 000 §10C: "If he fails, the bonus is given to his opponent or opponents"
    OPPONENTS_IF_ANOTHER_FINISHES = "opponents-if-another-finishes"  # 003 "Rules for 2 or 3 Players" C2


class ShutOut(enum.Enum):
    """The shut-out bonus when there are three or more sides."""

    ALL_OPPONENTS = "all-opponents"  # 500 once, only if no opponent has any distance
    PER_OPPONENT = "per-opponent"  # 500 for each opponent with no distance


class Scoring(enum.Enum):
    """Which score sheet a hand is scored on."""

    CLASSIC = "classic"  # 000 §8 / 003 "Scoring": the full sheet, game to 5000
    HASBRO_2016 = "hasbro-2016"  # 001 "End of Mille Bornes": miles, safeties, coups fourrés only
    MILLE_BORNES_FR = "1000-bornes"  # 002 "Keeping score": winner 400, safe trip 200, minus miles in hand
    DISTANCE_ONLY = "distance"  # 004: the winner is whoever is first to (or closest to) 1000; no points


class Winner(enum.Enum):
    """How the winner of a game is decided."""

    POINTS = "points"  # highest total points
    DISTANCE = "distance"  # first to the trip, else closest without passing (002, 004)


@dataclass(frozen=True, slots=True)
class RuleOptions(FrozenValue):
    """Every rule that differs between the rulebooks. Field docs name the source of the dispute."""

    #: A hazard may go on an unremedied hazard; only the top one counts (003 Special note G).
    #: 000 §2 "HAZARD CARDS": "Under no circumstances may one Hazard Card be played directly on top of another".
    hazard_on_hazard: bool = False
    #: A Speed Limit may go on an opponent who already shows a Speed Limit (000 §12 H).
    speed_limit_on_limit: bool = True
    #: After a remedy a Roll is needed before distance (000 §6A, 003 "Roll"; not in 001 or 004).
    roll_after_remedy: bool = True
    #: After a safety (not a coup fourré) cancels the hazard in progress, a Roll is still needed.
    #: The rulebooks are silent; see docs/rules.md "Decisions".
    roll_after_safety: bool = True
    #: A player must have started (Roll or Right of Way) before attacking (001 FAQ "Can you play Hazard…").
    attack_needs_own_roll: bool = False
    #: A player may take the top discard instead of drawing (001 "Playing Mille Bornes").
    draw_from_discard: bool = False
    #: What an empty draw pile does.
    empty_draw_pile: EmptyDrawPile = EmptyDrawPile.PLAY_OUT
    #: The trip must be exact; otherwise distance may pass it ("1,000 or more", 001 "Objective").
    exact_trip: bool = True
    #: Trip length for a game with this many seats (the classic rules shorten it to 700 for 2, 3 and 6).
    short_trip_seats: tuple[int, ...] = (2, 3, 6)
    #: The short trip may be extended to 1000 (000 §10C, 003 "Rules for 2 or 3 Players" C).
    extension: bool = True
    #: Points for the extension bonus.
    extension_bonus: int = 200
    #: Who gets the extension bonus when the caller fails.
    extension_failure: ExtensionFailure = ExtensionFailure.OPPONENTS_ALWAYS
    #: How coups fourrés score.
    coup_fourre_scoring: CoupFourreScoring = CoupFourreScoring.BONUS_300
    #: The shut-out bonus with three or more sides.
    shut_out: ShutOut = ShutOut.ALL_OPPONENTS
    #: Delayed action counts when the last card of the draw pile was drawn on the finishing turn.
    delayed_action_on_last_draw: bool = True
    #: A safety may be discarded (000 §5D allows any discard; some computer versions forbid it).
    discard_safety: bool = True
    #: 2016 Fast Play: remedy a hazard at once out of turn, and swap any number of cards (001 "Fast Play").
    fast_play: bool = False
    #: Dujardin "Pour les plus jeunes": every player starts with a Feu Vert on the table (004).
    youngest_start_rolling: bool = False
    #: The score sheet the hand is scored on.
    scoring: Scoring = Scoring.CLASSIC
    #: Safe-trip bonus (300 in 000 §8; 200 "for winning without laying down a 200" in 002).
    safe_trip_bonus: int = 300
    #: Points that end the game; 0 means a game of a single hand (001, 002, 004).
    game_target: int = 5000
    #: How the winner is decided.
    winner: Winner = Winner.POINTS

    def replace(self, **changes: object) -> RuleOptions:
        """A copy with some options changed (each value checked against its option's type)."""
        fields = {f.name: f for f in dataclasses.fields(self)}
        copy = dataclasses.replace(self)
        for name, value in changes.items():
            if name not in fields:
                raise TypeError(f"unknown rule option {name!r}")
            current = getattr(self, name)
            if not isinstance(value, type(current)):
                raise TypeError(f"option {name} takes {type(current).__name__}, not {value!r}")
            object.__setattr__(copy, name, value)
        return copy

    def trip_length(self, seats: int) -> int:
        """The trip before any extension: 700 or 1000 miles."""
        return 700 if seats in self.short_trip_seats else 1000

    @property
    def single_hand(self) -> bool:
        return self.game_target == 0

    # -- text form, used by the game record and the config file -----------------------------

    def as_strings(self) -> dict[str, str]:
        """Every option as ``name -> text``."""
        return {f.name: _format_value(getattr(self, f.name)) for f in dataclasses.fields(self)}

    def as_string(self, name: str) -> str:
        """One option as text, as :meth:`as_strings` gives it (a menu line reads one, not all of them)."""
        if name not in _FIELD_NAMES:
            raise OptionError(f"unknown rule option {name!r}")
        return _format_value(getattr(self, name))

    def diff(self, base: RuleOptions) -> dict[str, str]:
        """The options that differ from ``base``, as text."""
        mine, theirs = self.as_strings(), base.as_strings()
        return {k: v for k, v in mine.items() if v != theirs[k]}

    def with_strings(self, values: Mapping[str, str]) -> RuleOptions:
        """A copy with options parsed from text. Raises :class:`OptionError` on a bad name or value."""
        changes: dict[str, object] = {}
        types = {f.name: f.type for f in dataclasses.fields(self)}
        for name, text in values.items():
            key = name.strip().replace("-", "_")
            if key not in types:
                raise OptionError(f"unknown rule option {name!r}; known: {', '.join(sorted(types))}")
            changes[key] = _parse_value(key, getattr(self, key), text.strip())
        return self.replace(**changes)


class OptionError(ValueError):
    """An unknown rule option or a value it cannot take."""


_FIELD_NAMES = frozenset(f.name for f in dataclasses.fields(RuleOptions))


def _format_value(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, enum.Enum):
        return str(value.value)
    if isinstance(value, tuple):
        return ",".join(str(v) for v in value) or "none"
    return str(value)


#: The numbers an option may take (points, or seat counts); others run from 0 to 100 000 points.
_RANGES: dict[str, tuple[int, int]] = {"short_trip_seats": (2, 8)}


def _parse_value(name: str, current: object, text: str) -> object:
    if isinstance(current, bool):
        lowered = text.lower()
        if lowered in ("yes", "true", "on", "1"):
            return True
        if lowered in ("no", "false", "off", "0"):
            return False
        raise OptionError(f"option {name}: {text!r} is not yes or no")
    if isinstance(current, enum.Enum):
        enum_type = type(current)
        for member in enum_type:
            if member.value == text:
                return member
        allowed = ", ".join(str(m.value) for m in enum_type)
        raise OptionError(f"option {name}: {text!r} is not one of {allowed}")
    low, high = _RANGES.get(name, (0, 100_000))
    if isinstance(current, tuple):
        if text in ("", "none"):
            return ()
        try:
            seats = tuple(sorted({int(part) for part in text.split(",")}))
        except ValueError:
            raise OptionError(f"option {name}: {text!r} is not a list of seat counts like 2,3,6") from None
        if not all(low <= seat <= high for seat in seats):
            raise OptionError(f"option {name}: {text!r} has a seat count outside {low} to {high}")
        return seats
    if isinstance(current, int):
        try:
            value = int(text)
        except ValueError:
            raise OptionError(f"option {name}: {text!r} is not a whole number") from None
        if not low <= value <= high:
            raise OptionError(f"option {name}: {text!r} is out of range; allowed {low} to {high}")
        return value
    raise OptionError(f"option {name} cannot be set from text")


@dataclass(frozen=True, slots=True)
class Edition(FrozenValue):
    """A printed edition: its preset options, who may play, and which rulebook it comes from."""

    name: str
    title: str
    source: str
    options: RuleOptions
    #: Seat counts played as individuals.
    solo_seats: tuple[int, ...]
    #: Seat counts played as partnerships of two, partners alternating around the table.
    team_seats: tuple[int, ...]
    #: Cards for 2 and 3 players use the short deck (101 cards).
    short_deck_seats: tuple[int, ...] = ()
    notes: tuple[str, ...] = field(default=())

    @property
    def seat_counts(self) -> tuple[int, ...]:
        return tuple(sorted(set(self.solo_seats) | set(self.team_seats)))

    def default_teams(self, seats: int) -> bool:
        """Partnerships are the default where the edition plays that count only in teams."""
        return seats in self.team_seats and seats not in self.solo_seats


_CLASSIC = RuleOptions()

EDITIONS: Mapping[str, Edition] = MappingProxyType(
    {
        "winning-moves": Edition(
            name="winning-moves",
            title="Winning Moves Classic (1962 rules)",
            source="000_07856908fd9d8ddc.txt",
            options=_CLASSIC,
            solo_seats=(2, 3),
            team_seats=(4, 6),
            short_deck_seats=(2, 3),
        ),
        "parker-1988": Edition(
            name="parker-1988",
            title="Parker Brothers (1962 rules, revised 1988)",
            source="003_f294c1bb7d1a197a.txt",
            options=_CLASSIC.replace(
                hazard_on_hazard=True,
                extension_failure=ExtensionFailure.OPPONENTS_IF_ANOTHER_FINISHES,
            ),
            solo_seats=(2, 3),
            team_seats=(4, 6),
            short_deck_seats=(2, 3),
        ),
        "hasbro-2016": Edition(
            name="hasbro-2016",
            title="Modern edition (2016)",
            source="001_36e8a5b95d21ed25.txt",
            options=_CLASSIC.replace(
                speed_limit_on_limit=False,
                roll_after_remedy=False,
                roll_after_safety=False,
                draw_from_discard=True,
                empty_draw_pile=EmptyDrawPile.RESHUFFLE,
                exact_trip=False,
                short_trip_seats=(),
                extension=False,
                coup_fourre_scoring=CoupFourreScoring.FLAT_200,
                scoring=Scoring.HASBRO_2016,
                game_target=0,
            ),
            solo_seats=(2, 3, 4, 5, 6),
            team_seats=(4, 6),
        ),
        "dujardin": Edition(
            name="dujardin",
            title="Dujardin (current French edition)",
            source="004_a9b52b5f482ce3eb.txt",
            options=_CLASSIC.replace(
                speed_limit_on_limit=False,
                roll_after_remedy=False,
                roll_after_safety=False,
                empty_draw_pile=EmptyDrawPile.END_HAND,
                short_trip_seats=(),
                extension=False,
                scoring=Scoring.DISTANCE_ONLY,
                game_target=0,
                winner=Winner.DISTANCE,
            ),
            solo_seats=(2, 3, 4),
            team_seats=(4, 6, 8),
        ),
        "1000-bornes": Edition(
            name="1000-bornes",
            title="1000 Bornes (translated French rules)",
            source="002_0cde5d5b481bee10.txt",
            options=_CLASSIC.replace(
                empty_draw_pile=EmptyDrawPile.END_HAND,
                short_trip_seats=(),
                extension=False,
                scoring=Scoring.MILLE_BORNES_FR,
                safe_trip_bonus=200,
                game_target=0,
                winner=Winner.DISTANCE,
            ),
            solo_seats=(2, 3, 4, 5, 6),
            team_seats=(),
        ),
    }
)


def edition(name: str) -> Edition:
    """Look up an edition preset by name. Raises :class:`OptionError` with the known names."""
    try:
        return EDITIONS[name]
    except KeyError:
        raise OptionError(f"unknown edition {name!r}; choose one of {', '.join(EDITIONS)}") from None
