"""What every mode of the table shares: the verdicts, the transient state, and the table's verbs.

``TableCore`` holds one table (the game, the store, the setup draft, the interaction state) and
the few verbs every mode uses: say something, word the engine's refusal, make an action durable
and apply it, start a game, open the legend. The modes (``firmware.table.modes``) handle the
inputs of one moment each and call these verbs; ``flow.TableFlow`` routes each input to the mode
of the moment. The engine judges every action: nothing here knows a rule.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from bornes.engine import (
    EDITIONS,
    Accepted,
    Action,
    Card,
    EventCode,
    Game,
    GameSetup,
    GameState,
    Refusal,
    RuleOptions,
    full_deck,
)
from bornes.firmware.language.buttons import keyed
from bornes.firmware.language.i18n import N_, _
from bornes.firmware.language.words import new_game_words, outcome_words, refusal_words
from bornes.firmware.storage.store import MemoryStore, Store

#: The refusal of a setup proposed during a game (the table keeps it for the game's end), for logs;
#: the referee answers the control socket with the wire's own word for it (``control_client.BUSY``).
BUSY_UNTIL_GAME_ENDS = "busy until this game ends"
#: That refusal's reason, which the referee reads to answer "waiting".
KEPT_FOR_GAME_END = "busy-until-game-ends"


class Sound(enum.Enum):
    """What the table hears; the referee maps these onto buzzer and LED patterns."""

    ACCEPT = "accept"
    REFUSE = "refuse"
    COUP_FOURRE = "coup-fourre"
    HAND_END = "hand-end"
    ATTENTION = "attention"


class Verdict(enum.StrEnum):
    """What became of one input. A ``str`` so ``bornes feed --json`` prints the same words."""

    ACCEPTED = "accepted"  # the engine accepted an action (a setup step too)
    REFUSED = "refused"  # nothing changed; ``reason`` says why
    PROMPT = "prompt"  # the table asks something (a target, a partner, a menu step)
    IGNORED = "ignored"  # nothing to do with this input now


@dataclass(frozen=True, slots=True)
class Outcome:
    """The answer to one input: a verdict for logs and ``bornes feed``, a line and a sound."""

    verdict: Verdict
    message: str
    sound: Sound | None = None
    reason: str | None = None
    action: Action | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "verdict", Verdict(self.verdict))  # a misspelt verdict fails here

    @property
    def refused(self) -> bool:
        return self.verdict is Verdict.REFUSED


class Mode(enum.Enum):
    """Where the table is, beyond the engine's own phase."""

    SETUP = "setup"
    NAME_EDIT = "name-edit"
    DECK_CHECK = "deck-check"
    DECK_REPORT = "deck-report"
    PLAY = "play"  # follows the engine's phase
    TARGET = "target"
    PARTNER = "partner"
    UNDO_CONFIRM = "undo-confirm"
    END_CONFIRM = "end-confirm"
    SWAP = "swap"
    LEGEND = "legend"  # what the icons mean: from the main menu, or a long OK during a game
    CAMERA_TEACH = "camera-teach"  # the owner shows each kind to the camera, from the main menu


class SetupStep(enum.Enum):
    SUMMARY = "summary"  # the configured table in one line: OK starts it, NEXT changes it
    MAIN = "main"
    EDITION = "edition"
    PLAYERS = "players"
    NAMES = "names"
    DEALER = "dealer"
    OPTIONS = "options"


MAIN_ITEMS = (N_("New game"), N_("Check a deck"), N_("What the icons mean"))
#: The main menu's last item on a table with a camera ([camera] in the config).
TEACH_ITEM = N_("Teach the camera")
#: The box a deck check compares against: every playing card of the classic deck.
FULL_DECK: tuple[Card, ...] = full_deck()
FULL_DECK_SET: frozenset[Card] = frozenset(FULL_DECK)


@dataclass
class SetupDraft:
    """The new game being chosen in the setup menus."""

    edition: str
    players: int
    teams: bool
    names: list[str]
    dealer: int
    options: RuleOptions


@dataclass
class Pending:
    """A card waiting for one more answer (the target, or which partner called coup fourré)."""

    card: Card
    choices: tuple[int, ...]  # sides for a target, seats for a partner
    selected: int = 0
    fast: bool = False


@dataclass
class MenuState:
    """Where the setup menus stand: the step, and the highlighted line (the deck report scrolls it too)."""

    step: SetupStep = SetupStep.MAIN
    cursor: int = 0


@dataclass
class NameEditState:
    """The seat name being spelled letter by letter."""

    index: int = 0  # the seat
    text: str = ""
    cursor: int = 0


@dataclass
class DeckCheckState:
    """What a deck check has scanned so far: a new check starts from a fresh one."""

    seen: set[Card] = field(default_factory=set)
    unknown: list[str] = field(default_factory=list)
    duplicates: int = 0


@dataclass
class LegendState:
    """The page of the icon legend, and the mode OK on it goes back to."""

    page: int = 0
    came_from: Mode = Mode.PLAY


@dataclass
class ArmedState:
    """The game's armed buttons: DISCARD or CF pressed, waiting for the card."""

    discard: bool = False
    cf: bool = False


@dataclass
class ChoiceState:
    """A half-made choice: the seat a seat button named, or a card waiting for its target or partner."""

    seat: int | None = None
    pending: Pending | None = None


@dataclass
class SwapState:
    """The cards scanned for a swap, committed together on OK."""

    cards: list[Card] = field(default_factory=list)


@dataclass
class HandEndState:
    """The end of a hand: the score sheet's page, and the answer the extension question shows."""

    sheet_page: int = 0
    extension_yes: bool = True


@dataclass
class TeachState:
    """The camera being taught from the panel: the kind asked for, its shots, and at the end the check."""

    kind: str | None = None  # the kind code shown now (None: the camera has not asked yet)
    index: int = 0  # of total kinds
    total: int = 0
    shot: int = 0  # of shots, of this kind
    shots: int = 3
    no_card: bool = False  # the last still scene had no card in it
    done: bool = False
    read: int = 0  # kinds read back by the check, of taught
    taught: int = 0
    alike: tuple[tuple[str, str], ...] = ()
    failed: str = ""


class CameraLink(Protocol):
    """What the table may ask of its camera (``drivers.camera.reader.CameraReader`` is one): teach it, or
    let it read plays again. Each returns False when the camera's process is not running."""

    def teach(self, kinds: Sequence[str]) -> bool: ...

    def watch(self) -> bool: ...


@dataclass
class FlowState:
    """Transient interaction state: the mode, one small state per mode, and the panel's last message.

    Losing it in a power cut only loses a half-made choice. A mode starts afresh by replacing its
    state object (``ui.deck = DeckCheckState()``).
    """

    mode: Mode = Mode.SETUP
    menu: MenuState = field(default_factory=MenuState)
    names: NameEditState = field(default_factory=NameEditState)
    deck: DeckCheckState = field(default_factory=DeckCheckState)
    legend: LegendState = field(default_factory=LegendState)
    armed: ArmedState = field(default_factory=ArmedState)
    choice: ChoiceState = field(default_factory=ChoiceState)
    swap: SwapState = field(default_factory=SwapState)
    hand_end: HandEndState = field(default_factory=HandEndState)
    teach: TeachState = field(default_factory=TeachState)
    message: str | None = None
    short: tuple[str, ...] = ()  # shorter phrasings of the message, for a narrow panel
    refused: bool = False
    #: The input was a card (read, shown to the camera, typed): a refusal asks for it back, a refused
    #: button never does.
    card: bool = False
    status: str | None = None


def players_menu(edition_name: str) -> list[tuple[int, bool]]:
    ed = EDITIONS[edition_name]
    items: list[tuple[int, bool]] = []
    for seats in ed.seat_counts:
        if seats in ed.solo_seats:
            items.append((seats, False))
        if seats in ed.team_seats:
            items.append((seats, True))
    return items


def sides_text(names: list[str] | tuple[str, ...], teams: bool) -> str:
    """"Ann, Bob, Chloé", or partners joined: "Ann+Chloé, Bob+Dee" (partners sit alternately)."""
    if not teams:
        return ", ".join(names)
    sides = len(names) // 2
    return ", ".join("+".join(names[seat] for seat in range(side, len(names), sides)) for side in range(sides))




class TableCore:
    """One table's state and the verbs its modes share (``TableFlow`` adds the routing of inputs)."""

    def __init__(
        self,
        *,
        edition: str = "winning-moves",
        players: int = 4,
        names: tuple[str, ...] = ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal"),
        dealer: int = 0,
        options: RuleOptions | None = None,
        store: Store | None = None,
        game: Game | None = None,
        configured: bool = False,
    ) -> None:
        self.defaults = (edition, players, names, dealer, options)
        self.store: Store = store or MemoryStore()
        self.game = game
        #: The config names the table (edition, players, names): setup opens on its summary.
        self.configured = configured
        first_step = SetupStep.SUMMARY if configured else SetupStep.MAIN
        self.ui = FlowState(mode=Mode.PLAY if game else Mode.SETUP, menu=MenuState(first_step))
        self.draft = self._default_draft()
        #: A setup sent from a phone or the club board while a game was played: offered when it ends.
        self.waiting: SetupDraft | None = None
        self.lost_readers: set[str] = set()
        #: The cameras that cannot see a steady picture, and why (drivers/events.py CameraBlind).
        self.blind_cameras: dict[str, str] = {}
        #: (key, button) for each button of a USB keypad (drivers/keypad.py), shown by the legend; empty: GPIO buttons.
        self.key_legend: tuple[tuple[str, str], ...] = ()
        #: Button -> the label printed on its key, on a keypad table: its messages and hints name the keys
        #: ("Enter ends", "+ more"), not buttons it does not have; empty: wired buttons, named as printed.
        self.keys: dict[str, str] = {}
        self._pad: str | None = None  # the pad the input being handled was laid on
        #: The table's camera, when it has one: the main menu then offers to teach it.
        self.camera: CameraLink | None = None

    def _default_draft(self) -> SetupDraft:
        edition, players, names, dealer, options = self.defaults
        ed = EDITIONS[edition]
        if players not in ed.seat_counts:
            players = ed.seat_counts[0]
        names_list = list(names[:players]) + [f"P{i + 1}" for i in range(len(names), players)]
        return SetupDraft(
            edition=edition,
            players=players,
            teams=ed.default_teams(players),
            names=names_list,
            dealer=dealer % players,
            options=options if options is not None and edition == self.defaults[0] else ed.options,
        )

    @property
    def state(self) -> GameState | None:
        return self.game.state if self.game else None

    def start_game(self, setup: GameSetup) -> Outcome:
        """Begin a game (from the menus or a ``setup`` line of a feed script)."""
        game = Game(setup)
        self.store.start(game)
        self.game = game
        self.ui = FlowState(mode=Mode.PLAY, status=self.ui.status)
        said = new_game_words(setup, game.state.hand.turn)
        return self.say(Verdict.ACCEPTED, said[0], Sound.ACCEPT, short=said[1:])

    def draft_of(self, state: GameState) -> SetupDraft:
        """The table that just played, as it started: the draft of the next game.

        The same first dealer too, so a new game after a game over is the game a restart of the
        referee would offer (a configured table starts from its config either way).
        """
        setup = state.setup
        return SetupDraft(
            edition=setup.edition,
            players=setup.seats,
            teams=setup.teams,
            names=list(setup.names),
            dealer=setup.dealer,
            options=setup.options,
        )

    # -- saying -------------------------------------------------------------------------------

    def say(
        self,
        verdict: Verdict,
        message: str,
        sound: Sound | None,
        *,
        reason: str | None = None,
        action: Action | None = None,
        short: tuple[str, ...] = (),
    ) -> Outcome:
        """The outcome of this input; a message stays on the panel until the next input. On a keypad
        table the buttons it names are named by their keys ("Finir la manche ? Entrée / -")."""
        if self.keys:
            message, short = keyed(message, self.keys), tuple(keyed(text, self.keys) for text in short)
        outcome = Outcome(verdict, message, sound, reason, action)
        if message:
            self.ui.message = message
            self.ui.short = short
            self.ui.refused = outcome.refused
        return outcome

    def prompt(self, message: str = "", sound: Sound | None = None, *, short: tuple[str, ...] = ()) -> Outcome:
        """The table asks or shows something; with no message, only the screen changed (a menu step)."""
        return self.say(Verdict.PROMPT, message, sound, short=short)

    def ignored(self, message: str = "", *, short: tuple[str, ...] = ()) -> Outcome:
        """Nothing to do with this input now."""
        return self.say(Verdict.IGNORED, message, None, short=short)

    def refuse(self, message: str, reason: str, *, short: tuple[str, ...] = ()) -> Outcome:
        """Nothing changed, and the table says why with the refusal sound."""
        return self.say(Verdict.REFUSED, message, Sound.REFUSE, reason=reason, short=short)

    def refusal(self, refusal: Refusal) -> Outcome:
        """The engine's reason, worded in the table's language (never the engine's English line)."""
        said = refusal_words(self.state.setup if self.state is not None else None, refusal)
        return self.refuse(said[0], refusal.code, short=said[1:])

    # -- acting -------------------------------------------------------------------------------

    def disarm(self) -> None:
        """Forget every half-made choice (DISCARD, CF, a chosen seat, a card waiting for an answer)."""
        ui = self.ui
        ui.armed = ArmedState()
        ui.choice = ChoiceState()
        ui.swap = SwapState()
        ui.mode = Mode.PLAY

    def commit(self, action: Action, verdict: Accepted | Refusal | None = None) -> Outcome:
        """Ask the engine; if it accepts, make the action durable, then apply it.

        An accepted action spends every armed button. A refused one closes an open question
        (the target, the partner) but keeps DISCARD or CF armed: the player takes the card back
        and scans the right one.
        """
        assert self.game is not None
        if verdict is None:
            verdict = self.game.check(action)
        if isinstance(verdict, Refusal):
            self.ui.choice.pending = None
            self.ui.mode = Mode.PLAY
            return self.refusal(verdict)
        self.disarm()
        self.store.append(self.game, action, pad=self._pad)  # durable before anyone hears the chirp
        self.game.commit(action, verdict)
        sound = self._heard(verdict)
        if verdict.state.over:
            self.store.finish(self.game)
        said = outcome_words(self.game.state, action, verdict.events)
        return self.say(Verdict.ACCEPTED, said[0], sound, action=action, short=said[1:] or said)

    def _heard(self, verdict: Accepted) -> Sound:
        """The sound of an accepted action; a hand's end opens its sheet on the first page."""
        codes = {event.code for event in verdict.events}
        sound = Sound.ACCEPT
        if EventCode.COUP_FOURRE in codes:
            sound = Sound.COUP_FOURRE
        if EventCode.HAND_OVER in codes or EventCode.GAME_OVER in codes:
            sound = Sound.HAND_END
            self.ui.hand_end.sheet_page = 0
        if EventCode.EXTENSION_ASKED in codes:
            self.ui.hand_end.extension_yes = True
        return sound

    def open_legend(self) -> Outcome:
        """What the icons mean: from the main menu, or a long OK in a game (which drops a half-made choice)."""
        came_from = self.ui.mode
        if came_from is Mode.PLAY:
            self.disarm()
        self.ui.mode, self.ui.legend = Mode.LEGEND, LegendState(came_from=came_from)
        return self.prompt()


class ModeHandler:
    """The inputs of one moment of the table. A card outside a game is refused; a seat button is a button."""

    def __init__(self, table: TableCore) -> None:
        self.table = table

    @property
    def ui(self) -> FlowState:
        return self.table.ui

    def button(self, name: str, long: bool) -> Outcome:
        return self.table.ignored()

    def seat(self, name: str, long: bool) -> Outcome:
        return self.button(name, long)

    def card(self, card: Card, pad: str | None) -> Outcome:
        return self.table.refuse(_("Start a game first: press OK"), "no-game")
