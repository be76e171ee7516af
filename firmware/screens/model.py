"""The view model: plain data that screens are drawn from.

Screens never import engine state. Whoever drives the display (the referee loop) turns the
engine's state into these small frozen values, and :func:`bornes.firmware.screens.render` turns a
value into an image. That keeps the renderers pure (same view, same pixels, golden-testable)
and lets the engine change without touching a single pixel.

Card kinds are carried as the ``CardKind`` *value* strings (``"STOP"``, ``"OUTOFGAS"``,
``"RIGHTOFWAY"``...), the same text as in a card code. The lists of kinds, their titles and the
score rows are read once from the engine's tables below, so they are written in one place.
"""

from __future__ import annotations

from dataclasses import dataclass

from bornes.engine import BATTLE_HAZARDS as _BATTLE_HAZARDS
from bornes.engine import HAZARD_KINDS, ROWS_CLASSIC, ROWS_TOTALS, SAFETY_KINDS, CardKind

#: ``SideView.battle`` values that are not a hazard.
ROLLING = "rolling"
NOT_STARTED = "not started"
NEEDS_ROLL = "needs roll"

# The card names and score rows are the engine's (its facts, read as plain values here); the
# views below still carry only strings and numbers, so renderers never call the engine.

#: The hazards a battle pile can show (CardKind values).
BATTLE_HAZARDS: tuple[str, ...] = tuple(kind.value for kind in _BATTLE_HAZARDS)
#: The four safeties, in the order screens show them.
SAFETIES: tuple[str, ...] = tuple(kind.value for kind in SAFETY_KINDS)
#: Every hazard (CardKind values), for prompts.
HAZARDS: tuple[str, ...] = tuple(kind.value for kind in HAZARD_KINDS)

#: Human titles of the hazard and safety kinds (the names printed on the cards).
KIND_TITLES: dict[str, str] = {
    kind.value: kind.title for kind in CardKind if kind.value in (*HAZARDS, *SAFETIES)
}

#: The rows of the classic score sheet, in order, then its totals.
SCORE_ROWS: tuple[str, ...] = (*ROWS_CLASSIC, *ROWS_TOTALS)


@dataclass(frozen=True, slots=True)
class SideView:
    """One side of the table: a player, or partners by their names joined with "+" (``"Ann+Chloé"``)."""

    name: str
    miles: int
    trip: int  # 700 or 1000: the length the miles bar is drawn against
    battle: str  # ROLLING, NOT_STARTED, NEEDS_ROLL, or a hazard value from BATTLE_HAZARDS
    limited: bool = False  # a Speed Limit is showing
    safeties: tuple[tuple[str, bool], ...] = ()  # (safety value, played as a coup fourré)
    score: int = 0  # running score of the game, before this hand
    hand_points: int = 0  # points of this hand so far (milestones, safeties, coups fourrés), from the engine
    is_turn: bool = False


@dataclass(frozen=True, slots=True)
class FeedbackView:
    """The result of the last input: an accepted action, or a refusal and its reason."""

    text: str
    refused: bool = False
    short: tuple[str, ...] = ()  # shorter phrasings of the same text, for a narrow panel
    card: bool = False  # what was refused is a card: the player takes it back (a button: nothing to take back)


@dataclass(frozen=True, slots=True)
class TableView:
    """The whole table at a glance: 2 to 6 sides plus the game's header.

    The header shows the message (or whose turn it is) in the longest phrasing that fits the
    panel. ``page`` alternates the sides when they need more than one page; the side to play
    is on every page.
    """

    sides: tuple[SideView, ...]
    draw_pile: int
    play_out: bool = False  # the draw pile is empty and the hands are being played out
    hand_number: int = 1
    edition_title: str = ""
    turn_name: str = ""
    message: FeedbackView | None = None  # stays until the next input
    status: str | None = None  # a short warning such as "reader lost"
    page: int = 0


@dataclass(frozen=True, slots=True)
class CoupFourrePrompt:
    """The coup-fourré window: the attacked side may scan its safety now."""

    side_name: str
    hazard: str  # hazard value, e.g. "ACCIDENT"
    seconds_left: int | None = None


@dataclass(frozen=True, slots=True)
class TargetPrompt:
    """A hazard could go to more than one side: which one?"""

    card_title: str
    options: tuple[str, ...]
    selected: int = 0
    hazard: str | None = None  # hazard value, for the icon


@dataclass(frozen=True, slots=True)
class PartnerPrompt:
    """Which partner of the side made the coup fourré (asked only when it cannot be known)."""

    names: tuple[str, ...]
    selected: int = 0
    #: The hint line's phrasings, longest first ("OK Ann   NEXT Cid"); empty: "NEXT choose   OK confirm".
    hint: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ExtensionPrompt:
    """The player who reached the short trip decides whether to extend it."""

    player_name: str
    selected_yes: bool = True
    trip_from: int = 700
    trip_to: int = 1000


@dataclass(frozen=True, slots=True)
class UndoPrompt:
    """Confirm taking back the last action."""

    last_action_text: str


@dataclass(frozen=True, slots=True)
class MenuView:
    """A setup menu or list (edition, number of players, dealer, rule options...)."""

    title: str
    items: tuple[str, ...]
    selected: int = 0
    #: The key hint, longest phrasing first; None: "NEXT/BACK move  OK choose"; empty: no hint line.
    hint: str | tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class SetupSummaryView:
    """The configured table in one screen, so that one OK starts the game."""

    sides: str  # "Ann, Bob, Chloé" or "Ann+Chloé, Bob+Dee"
    edition: str  # a short edition name: "Winning Moves"
    detail: str = ""  # "Ann deals"
    hint: str | tuple[str, ...] = ()  # empty: "OK to start, NEXT to change"


@dataclass(frozen=True, slots=True)
class NameEditView:
    """Typing a name with buttons: NEXT/BACK change the letter under the cursor, OK moves on."""

    title: str
    text: str
    cursor: int
    hint: str | tuple[str, ...] = ()  # empty: "NEXT/BACK letter CF Aa OK next" (CF switches é/É)


@dataclass(frozen=True, slots=True)
class ScoreSheetView:
    """The end-of-hand score sheet. The renderer pages it to fit the panel (see ``score_sheet_pages``)."""

    columns: tuple[tuple[str, tuple[int, ...]], ...]  # (side name, one value per row)
    rows: tuple[str, ...] = SCORE_ROWS
    page: int = 0  # zero-based, taken modulo the pages the panel needs: NEXT and BACK cycle
    title: str = "Score"


@dataclass(frozen=True, slots=True)
class GameOverView:
    """The game is won."""

    winner: str
    totals: tuple[tuple[str, int], ...]
    partners: bool = False  # the winner is a partnership: "Ann+Cid win!"


@dataclass(frozen=True, slots=True)
class StatusView:
    """A problem or notice that takes the whole screen: reader lost or back, unknown card, config."""

    title: str
    detail: str = ""


@dataclass(frozen=True, slots=True)
class LegendView:
    """What each icon and figure of the table means, a few per page (the renderer pages it); on a
    table whose buttons are a USB keypad, which key is which button first."""

    page: int = 0  # zero-based, taken modulo the pages the panel needs: NEXT and BACK cycle
    #: (what is printed on the key, the button it is), in the order to show; empty: no keypad.
    keys: tuple[tuple[str, str], ...] = ()


ScreenView = (
    TableView
    | CoupFourrePrompt
    | TargetPrompt
    | PartnerPrompt
    | ExtensionPrompt
    | UndoPrompt
    | MenuView
    | NameEditView
    | SetupSummaryView
    | ScoreSheetView
    | GameOverView
    | StatusView
    | LegendView
)
