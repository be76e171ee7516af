"""The table flow: what a scan or a button press means at this moment of the game.

It turns input events into engine actions and prompts, asks the engine for every verdict
(it never judges a card itself), makes each accepted action durable through the store
*before* applying it, and says what to show and play. No I/O of its own: the referee
loop feeds it events and puts its screens and sounds on the hardware.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from bornes.drivers.events import (
    PAD_SEATS,
    ButtonPressed,
    CardScanned,
    ControlScanned,
    InputEvent,
    KeyTyped,
    ReaderBack,
    ReaderLost,
    ReaderProblem,
    UnknownScanned,
    button_name,
    pad_place,
    seat_of_button,
)
from bornes.engine.actions import (
    Action,
    CoupFourre,
    Discard,
    EndHand,
    Extension,
    FastRemedy,
    Leftover,
    NextHand,
    Play,
    StartRoll,
    Swap,
    TakeDiscard,
)
from bornes.engine.cards import Card, CardCodeError, full_deck
from bornes.engine.game import Game
from bornes.engine.options import EDITIONS, RuleOptions
from bornes.engine.reasons import Refusal
from bornes.engine.rules import Accepted, answer_action, laid_action, play_action, target_choices, validate
from bornes.engine.state import EventCode, GameSetup, GameState, Phase, SetupError, check_names
from bornes.firmware.language.i18n import N_, _
from bornes.firmware.language.names import MAX_NAME_LENGTH, next_letter, switch_case
from bornes.firmware.language.rule_labels import edition_short, option_choices, option_lines
from bornes.firmware.language.words import (
    card_copy,
    card_name,
    edition_title,
    new_game_words,
    outcome_words,
    refusal_words,
    undo_question,
    undone_words,
)
from bornes.firmware.storage.store import MemoryStore, Store

#: The control socket's answer while a game is under way (a protocol word, not translated).
BUSY_UNTIL_GAME_ENDS = "busy until this game ends"


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


class SetupStep(enum.Enum):
    SUMMARY = "summary"  # the configured table in one line: OK starts it, NEXT changes it
    MAIN = "main"
    EDITION = "edition"
    PLAYERS = "players"
    NAMES = "names"
    DEALER = "dealer"
    OPTIONS = "options"


MAIN_ITEMS = (N_("New game"), N_("Check a deck"), N_("What the icons mean"))
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
class FlowState:
    """Transient interaction state. Losing it in a power cut only loses a half-made choice."""

    mode: Mode = Mode.SETUP
    step: SetupStep = SetupStep.MAIN
    cursor: int = 0
    discard_armed: bool = False
    cf_armed: bool = False
    seat_chosen: int | None = None
    pending: Pending | None = None
    swap_cards: list[Card] = field(default_factory=list)
    sheet_page: int = 0
    legend_page: int = 0
    legend_from: Mode = Mode.PLAY  # where OK on the legend goes back to
    extension_yes: bool = True
    name_index: int = 0
    name_text: str = ""
    name_cursor: int = 0
    deck_seen: set[Card] = field(default_factory=set)
    deck_unknown: list[str] = field(default_factory=list)
    deck_duplicates: int = 0
    message: str | None = None
    short: tuple[str, ...] = ()  # shorter phrasings of the message, for a narrow panel
    refused: bool = False
    status: str | None = None


def _players_menu(edition_name: str) -> list[tuple[int, bool]]:
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


class TableFlow:
    """One table: the setup menus, then the game, one input at a time."""

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
        self.ui = FlowState(mode=Mode.PLAY if game else Mode.SETUP, step=first_step)
        self.draft = self._default_draft()
        #: A setup sent from a phone or the club board while a game was played: offered when it ends.
        self.waiting: SetupDraft | None = None
        self.lost_readers: set[str] = set()
        self._pad: str | None = None  # the pad the input being handled was laid on

    # -- starting -----------------------------------------------------------------------------

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

    def start_game(self, setup: GameSetup) -> Outcome:
        """Begin a game (from the menus or a ``setup`` line of a feed script)."""
        game = Game(setup)
        self.store.start(game)
        self.game = game
        self.ui = FlowState(mode=Mode.PLAY, status=self.ui.status)
        said = new_game_words(setup, game.state.hand.turn)
        return self._say("accepted", said[0], Sound.ACCEPT, short=said[1:])

    def propose(self, edition: str, names: tuple[str, ...], teams: bool, dealer: int,
                options: RuleOptions) -> Outcome:
        """A setup sent from a paired phone (firmware/appliance/control.py): shown as the table's summary, so
        one OK at the table starts it (NEXT still changes it).

        While a game is played the table stays exactly as it is (no refusal on the players' screen: nobody
        at the table asked for anything) and the setup waits: OK after the game's end offers it. On the
        final score sheet it waits too (accepted): the players read their scores first."""
        if self.game is not None:
            self.waiting = SetupDraft(edition, len(names), teams, list(names), dealer, options)
            if self.game.state.over:
                return Outcome(Verdict.ACCEPTED, "", None)
            return Outcome(Verdict.REFUSED, BUSY_UNTIL_GAME_ENDS, None, "busy-until-game-ends")
        if self.ui.mode not in (Mode.SETUP, Mode.NAME_EDIT, Mode.PLAY):
            return Outcome(Verdict.REFUSED, "the table is busy (a deck check): try again later", None, "busy")
        self.waiting = None
        self.game = None
        self.draft = SetupDraft(edition, len(names), teams, list(names), dealer, options)
        self.ui = FlowState(mode=Mode.SETUP, step=SetupStep.SUMMARY, cursor=0, status=self.ui.status)
        return self._say("prompt", _("Setup from a phone: OK starts"), Sound.ATTENTION)

    def announce_resume(self) -> Outcome:
        """After a restart mid-game: say so on the table, with the hand and whose turn it is."""
        state = self.state
        assert state is not None
        names = state.setup.names
        seats = state.to_act() if state.phase is not Phase.PLAY else (state.hand.turn,)
        hand, name = state.hand.number, names[seats[0]] if seats else names[state.hand.turn]
        message = _("Game resumed: hand {hand}, {name}'s turn").format(hand=hand, name=name)
        shorter = (_("Resumed: hand {hand}, {name}").format(hand=hand, name=name), _("Game resumed"))
        return self._say("prompt", message, Sound.ATTENTION, short=shorter)

    @property
    def state(self) -> GameState | None:
        return self.game.state if self.game else None

    # -- the one entry point ------------------------------------------------------------------

    def handle(self, event: InputEvent) -> Outcome:
        """Apply one input. Refusals change nothing but the message on screen."""
        self.ui.message = None  # feedback stays until the next input, and no longer
        self._pad = event.pad if isinstance(event, CardScanned) else None  # journalled with the play
        if isinstance(event, KeyTyped):
            return self._typed(event.text)
        if isinstance(event, ReaderLost):
            self.lost_readers.add(event.reader)  # with pads, the status stays until every reader is back
            self.ui.status = _("Reader lost")
            return self._say("ignored", _("Reader lost: {detail}").format(detail=event.detail), Sound.ATTENTION,
                             short=(_("Reader lost"),))
        if isinstance(event, ReaderBack):
            self.lost_readers.discard(event.reader)
            self.ui.status = None if not self.lost_readers else _("Reader lost")
            return self._say("ignored", _("Reader back"), None)
        if isinstance(event, ReaderProblem):
            if event.kind == "one-card-at-a-time":
                text, short = _("One card at a time"), _("One card")
            elif event.kind == "typing":  # a keyboard-mode reader's keys came at a person's pace
                text, short = _("Typed by hand? Scan the card"), _("Scan the card")
            elif event.kind == "layout":  # the layout test label, scanned on a keyboard-mode reader
                return self._say("ignored", _("Scanner: {detail}").format(detail=event.detail), None,
                                 short=(_("Scanner layout read"),))
            else:  # a garbled or unanswered read: the card was not seen, whatever the cause
                text, short = _("The reader did not get that card: scan it again"), _("Scan it again")
            return self._say("refused", text, Sound.REFUSE, reason=event.kind, short=(short,))
        if isinstance(event, UnknownScanned):
            if self.ui.mode is Mode.DECK_CHECK:
                self.ui.deck_unknown.append(event.raw)
            return self._say("refused", _("Unknown card: {code}").format(code=event.raw[:24]), Sound.REFUSE,
                             reason="unknown-card", short=(_("Unknown card"),))
        if isinstance(event, ControlScanned):
            return self._button(event.name, False)
        if isinstance(event, ButtonPressed):
            return self._button(event.name, event.long)
        assert isinstance(event, CardScanned)
        return self._card(event.card, event.pad)

    def _typed(self, text: str) -> Outcome:
        """``bornes run --emulate``: a card code, or a button name (``ok``, ``next``, ``seat2``, ``long ok``)."""
        words = text.strip().split()
        pad = None
        if words and words[0].startswith("@"):  # "@B MB-STOP-01": laid on seat B's pad
            pad = pad_place(words[0][1:])
            if pad is None or len(words) != 2:
                return self._say("refused", _("Not a pad and a card: {text}").format(text=text.strip()[:24]),
                                 Sound.REFUSE, reason="bad-input", short=(_("Not a pad and a card"),))
            words = words[1:]
        if not words:
            return self._say("ignored", "", None)
        if words[0].upper().startswith("MB-CMD-"):
            return self._button(words[0].upper()[7:], False)
        if words[0].upper().startswith("MB-"):
            try:
                card = Card.from_code(words[0].upper())
            except CardCodeError:
                return self._say("refused", _("Unknown card: {code}").format(code=words[0][:24]), Sound.REFUSE,
                                 reason="unknown-card", short=(_("Unknown card"),))
            self._pad = pad  # journalled with the play, as a scanned card's pad is
            return self._card(card, pad)
        long = words[0].lower() == "long" and len(words) > 1
        name = (words[1] if long else words[0]).upper()
        if button_name(name) is not None:
            return self._button(name, long)
        return self._say("refused", _("Not a card or button: {text}").format(text=text.strip()[:24]), Sound.REFUSE,
                         reason="bad-input", short=(_("Not a card or button"),))

    # -- feedback helpers ---------------------------------------------------------------------

    def _say(
        self,
        verdict: Verdict | str,
        message: str,
        sound: Sound | None,
        *,
        reason: str | None = None,
        action: Action | None = None,
        short: tuple[str, ...] = (),
    ) -> Outcome:
        outcome = Outcome(Verdict(verdict), message, sound, reason, action)
        if message:
            self.ui.message = message
            self.ui.short = short
            self.ui.refused = outcome.refused
        return outcome

    def _refusal(self, refusal: Refusal) -> Outcome:
        """The engine's reason, worded in the table's language (never the engine's English line)."""
        said = refusal_words(self.state.setup if self.state is not None else None, refusal)
        return self._say("refused", said[0], Sound.REFUSE, reason=refusal.code, short=said[1:])

    def _disarm(self) -> None:
        """Forget every half-made choice (DISCARD, CF, a chosen seat, a card waiting for an answer)."""
        ui = self.ui
        ui.cf_armed = ui.discard_armed = False
        ui.seat_chosen = None
        ui.pending = None
        ui.swap_cards = []
        ui.mode = Mode.PLAY

    def _commit(self, action: Action, verdict: Accepted | Refusal | None = None) -> Outcome:
        """Ask the engine; if it accepts, make the action durable, then apply it.

        An accepted action spends every armed button. A refused one closes an open question
        (the target, the partner) but keeps DISCARD or CF armed: the player takes the card back
        and scans the right one.
        """
        assert self.game is not None
        if verdict is None:
            verdict = self.game.check(action)
        if isinstance(verdict, Refusal):
            self.ui.pending = None
            self.ui.mode = Mode.PLAY
            return self._refusal(verdict)
        self._disarm()
        self.store.append(self.game, action, pad=self._pad)  # durable before anyone hears the chirp
        self.game.commit(action, verdict)
        codes = {event.code for event in verdict.events}
        sound = Sound.ACCEPT
        if EventCode.COUP_FOURRE in codes:
            sound = Sound.COUP_FOURRE
        if EventCode.HAND_OVER in codes or EventCode.GAME_OVER in codes:
            sound = Sound.HAND_END
            self.ui.sheet_page = 0
        if EventCode.EXTENSION_ASKED in codes:
            self.ui.extension_yes = True
        if verdict.state.over:
            self.store.finish(self.game)
        said = outcome_words(self.game.state, action, verdict.events)
        return self._say("accepted", said[0], sound, action=action, short=said[1:] or said)

    # -- cards --------------------------------------------------------------------------------

    def _card(self, card: Card, pad: str | None = None) -> Outcome:
        if self.ui.mode is Mode.LEGEND:  # a card closes the legend and counts as usual
            self.ui.mode = self.ui.legend_from
        mode = self.ui.mode
        if mode is Mode.DECK_CHECK:
            return self._deck_scan(card)
        if mode in (Mode.SETUP, Mode.NAME_EDIT, Mode.DECK_REPORT):
            return self._say("refused", _("Start a game first: press OK"), Sound.REFUSE, reason="no-game")
        if mode in (Mode.TARGET, Mode.PARTNER, Mode.UNDO_CONFIRM, Mode.END_CONFIRM):
            return self._say("refused", _("Answer the question first (OK or BACK)"), Sound.REFUSE,
                             reason="prompt-open")
        state = self.state
        assert state is not None and self.game is not None
        hand = state.hand
        phase = state.phase
        if mode is Mode.SWAP:
            refusal = validate(state, Swap(hand.turn, (*self.ui.swap_cards, card)))
            if refusal is not None:  # only this card is refused; the swap goes on
                return self._refusal(refusal)
            self.ui.swap_cards.append(card)
            count = len(self.ui.swap_cards)
            return self._say("prompt", _("Swap {count} cards: OK when done").format(count=count), None,
                             short=(_("Swap {count}: OK").format(count=count),))
        if pad is not None and pad != "table":
            laid = self._laid_on_pad(card, pad)
            if laid is not None:
                return laid
        chosen = self.ui.seat_chosen
        if phase is Phase.START_ROLLS:
            return self._commit(StartRoll(chosen if chosen is not None else state.to_act()[0], card))
        if phase is Phase.LEFTOVERS:
            # A seat button says whose cards these are, and stays chosen while that seat shows them.
            seat = chosen if chosen is not None else state.to_act()[0]
            outcome = self._commit(Leftover(seat, card))
            if outcome.verdict is Verdict.ACCEPTED and self.game.state.hand.hands[seat]:
                self.ui.seat_chosen = seat
            return outcome
        if phase is not Phase.PLAY:
            return self._commit(Play(hand.turn, card))  # the engine says why not now
        if self.ui.cf_armed:
            return self._answer_hazard(card)
        if self.ui.discard_armed:
            return self._commit(Discard(hand.turn, card))
        if hand.discard and card == hand.discard[-1]:
            take = TakeDiscard(hand.turn, card)
            verdict = self.game.check(take)
            if isinstance(verdict, Accepted):
                return self._commit(take, verdict)  # 001: the top discard, taken instead of a draw
        if self.ui.seat_chosen is None:
            targets = target_choices(state, hand.turn, card)
            if len(targets) > 1:
                probe = validate(state, Play(hand.turn, card, state.setup.side_seats(targets[0])[0]))
                if probe is not None:  # refused whatever the target (the card, the attacker): say why now
                    return self._commit(Play(hand.turn, card), probe)
                self.ui.pending = Pending(card, targets)
                self.ui.mode = Mode.TARGET
                printed, usual = card_name(card, state.setup.edition), card_name(card)
                return self._say("prompt", _("{card} on whom? NEXT, then OK").format(card=printed), Sound.ATTENTION,
                                 short=tuple(dict.fromkeys((_("{card} on whom? NEXT, then OK").format(card=usual),
                                                            _("{card} on whom?").format(card=printed),
                                                            _("{card} on whom?").format(card=usual)))))
        return self._commit(play_action(state, hand.turn, card, self.ui.seat_chosen))

    def _laid_on_pad(self, card: Card, pad: str) -> Outcome | None:
        """A card laid on a pile pad: the pad names the pile, so no target, partner or CF question.

        The discard pad discards; on a seat's pad the engine says what the card means there
        (``laid_action``: a hazard on that side, the coup fourré, that seat's play) and judges it.
        None: the pad adds nothing, and the table's own rules go on (docs/readers.md, Pads).
        """
        state = self.state
        assert state is not None
        if pad == "discard":
            return self._commit(Discard(state.hand.turn, card))
        seat = PAD_SEATS.index(pad)
        if seat >= state.setup.seats:
            return self._say("refused", _("No seat {letter} at this table").format(letter=pad), Sound.REFUSE,
                             reason="no-such-seat", short=(_("No such seat"),))
        if self.ui.cf_armed and state.phase is Phase.PLAY:
            return self._commit(answer_action(state, seat, card))  # CF, then the card on the caller's pad
        if self.ui.discard_armed:
            return None  # DISCARD pressed: the player in turn discards it, wherever it lies
        action = laid_action(state, seat, card)
        return None if action is None else self._commit(action)

    def _answer_hazard(self, card: Card) -> Outcome:
        """After CF: the safety for a coup fourré, or (Fast Play) the remedy."""
        state = self.state
        assert state is not None
        hand = state.hand
        window = hand.window
        if window is None:
            self.ui.cf_armed = False
            return self._commit(CoupFourre(hand.turn, card))  # the engine explains there is no window
        callers = state.window_callers()
        if self.ui.seat_chosen is not None and self.ui.seat_chosen in callers:
            callers = (self.ui.seat_chosen,)
        if len(callers) > 1:
            # Ask which partner only when the referee cannot know (docs/rules.md, Decisions).
            probe = answer_action(state, callers[0], card)
            refusal = validate(state, probe)
            if refusal is not None:
                self._disarm()
                return self._refusal(refusal)
            self.ui.pending = Pending(card, callers, fast=isinstance(probe, FastRemedy))
            self.ui.mode = Mode.PARTNER
            first, second = (state.setup.names[s] for s in callers[:2])
            asked = _("Who called it? OK: {first}, NEXT: {second}").format(first=first, second=second)
            return self._say("prompt", asked, Sound.ATTENTION,
                             short=(_("OK: {first}, NEXT: {second}").format(first=first, second=second),
                                    _("Who called it?")))
        seat = callers[0] if callers else hand.turn
        return self._commit(answer_action(state, seat, card))

    # -- buttons ------------------------------------------------------------------------------

    def _button(self, name: str, long: bool) -> Outcome:
        name = name.upper()
        mode = self.ui.mode
        if mode is Mode.LEGEND:
            return self._legend_button(name)
        if mode in (Mode.SETUP, Mode.NAME_EDIT):
            return self._setup_button(name, long)
        if mode in (Mode.DECK_CHECK, Mode.DECK_REPORT):
            return self._deck_button(name)
        if seat_of_button(name) is not None:
            return self._seat_button(name)
        if mode is Mode.TARGET or mode is Mode.PARTNER:
            return self._choice_button(name)
        if mode is Mode.UNDO_CONFIRM:
            if name == "OK":
                return self._undo()
            self.ui.mode = Mode.PLAY
            return self._say("ignored", _("Undo cancelled"), None, short=(_("Kept"),))
        if mode is Mode.END_CONFIRM:
            self.ui.mode = Mode.PLAY
            if name == "OK":
                return self._commit(EndHand())
            return self._say("ignored", _("The hand goes on"), None)
        if mode is Mode.SWAP:
            return self._swap_button(name)
        state = self.state
        assert state is not None and self.game is not None
        phase = state.phase
        if name == "OK" and long:  # held OK: what the icons mean; any button comes back
            return self._open_legend()
        if name == "UNDO":
            if not self.game.can_undo():
                return self._say("refused", _("Nothing to undo in this hand"), Sound.REFUSE,
                                 reason="nothing-to-undo", short=(_("Nothing to undo"),))
            self._disarm()
            self.ui.mode = Mode.UNDO_CONFIRM
            asked = undo_question(state.setup, self.game.log[-1])
            return self._say("prompt", asked[0], Sound.ATTENTION, short=asked[1:])
        if phase is Phase.GAME_OVER:
            if name == "OK":  # the same table again (or the game sent while this one went on), one more OK away
                waiting, self.waiting = self.waiting, None
                self.draft = waiting or self._draft_of(state)
                self.game = None
                self.ui = FlowState(status=self.ui.status, step=SetupStep.SUMMARY)
                return self._say("prompt", _("Setup from a phone: OK starts") if waiting else _("New game"), None)
            return self._say("ignored", "", None)
        if phase is Phase.HAND_OVER:
            if name == "NEXT":
                self.ui.sheet_page += 1
                return self._say("prompt", "", None)
            if name == "BACK":
                self.ui.sheet_page -= 1  # the renderer wraps: BACK from the first page shows the last
                return self._say("prompt", "", None)
            if name == "OK":
                return self._commit(NextHand())
            return self._say("ignored", "", None)
        if phase is Phase.EXTENSION:
            if name in ("NEXT", "BACK"):
                self.ui.extension_yes = not self.ui.extension_yes
                return self._say("prompt", "", None)
            if name == "OK":
                assert state.hand.decider is not None
                return self._commit(Extension(state.hand.decider, self.ui.extension_yes))
            return self._say("ignored", "", None)
        if name == "CF":
            self.ui.cf_armed = not self.ui.cf_armed
            self.ui.discard_armed = False
            if self.ui.cf_armed:
                return self._say("prompt", _("Coup fourré! Scan your safety"), Sound.ATTENTION,
                                 short=(_("Coup fourré! Scan it"), _("Scan the safety")))
            return self._say("prompt", _("Coup fourré cancelled"), None, short=(_("Cancelled"),))
        if name == "DISCARD":
            if long and state.options.fast_play:
                self.ui.mode = Mode.SWAP
                self.ui.swap_cards = []
                return self._say("prompt", _("Swap: scan the cards, then OK"), Sound.ATTENTION,
                                 short=(_("Swap: scan, then OK"), _("Swap: scan cards")))
            self.ui.discard_armed = not self.ui.discard_armed
            self.ui.cf_armed = False
            if self.ui.discard_armed:
                return self._say("prompt", _("Scan the card to discard"), None,
                                 short=(_("Discard: scan it"), _("Discard")))
            return self._say("prompt", _("Discard cancelled"), None, short=(_("Cancelled"),))
        if name == "BACK":
            if long and phase is Phase.PLAY:
                self.ui.mode = Mode.END_CONFIRM
                return self._say("prompt", _("End this blocked hand? OK / BACK"), Sound.ATTENTION,
                                 short=(_("End the hand?"),))
            self.ui.cf_armed = self.ui.discard_armed = False
            self.ui.seat_chosen = None
            return self._say("prompt", _("Cancelled"), None)
        return self._say("ignored", "", None)

    def _seat_button(self, name: str) -> Outcome:
        state = self.state
        assert state is not None
        seat = seat_of_button(name)
        if seat is None or not 0 <= seat < state.setup.seats:
            return self._say("refused", _("No {button} at this table").format(button=name), Sound.REFUSE,
                             reason="no-such-seat", short=(_("No such seat"),))
        pending = self.ui.pending
        if self.ui.mode is Mode.TARGET and pending is not None:
            side = state.setup.side_of(seat)
            if side in pending.choices:
                pending.selected = pending.choices.index(side)
                return self._choice_button("OK")
        if self.ui.mode is Mode.PARTNER and pending is not None and seat in pending.choices:
            pending.selected = pending.choices.index(seat)
            return self._choice_button("OK")
        self.ui.seat_chosen = seat
        return self._say("prompt", _("{name} chosen").format(name=state.setup.names[seat]), None)

    def _choice_button(self, name: str) -> Outcome:
        pending = self.ui.pending
        state = self.state
        assert pending is not None and state is not None
        if name == "NEXT" and self.ui.mode is Mode.PARTNER and len(pending.choices) == 2:
            pending.selected = 1  # two partners: OK names the first, NEXT the second, in one press
            name = "OK"
        elif name == "NEXT":
            pending.selected = (pending.selected + 1) % len(pending.choices)
            return self._say("prompt", "", None)
        if name == "BACK":
            self.ui.pending = None
            self.ui.cf_armed = False
            self.ui.mode = Mode.PLAY
            return self._say("prompt", _("Cancelled: take the card back"), None, short=(_("Cancelled"),))
        if name != "OK":
            return self._say("ignored", "", None)
        choice = pending.choices[pending.selected]
        if self.ui.mode is Mode.TARGET:
            target_seat = state.setup.side_seats(choice)[0]
            return self._commit(Play(state.hand.turn, pending.card, target_seat))
        action: Action = FastRemedy(choice, pending.card) if pending.fast else CoupFourre(choice, pending.card)
        return self._commit(action)

    def _swap_button(self, name: str) -> Outcome:
        state = self.state
        assert state is not None
        if name == "OK" and self.ui.swap_cards:
            return self._commit(Swap(state.hand.turn, tuple(self.ui.swap_cards)))
        if name in ("BACK", "OK"):
            self.ui.mode = Mode.PLAY
            self.ui.swap_cards = []
            return self._say("prompt", _("Swap cancelled"), None, short=(_("Cancelled"),))
        return self._say("ignored", "", None)

    def _undo(self) -> Outcome:
        assert self.game is not None
        self.ui.mode = Mode.PLAY
        if not self.game.can_undo():
            return self._say("refused", _("Nothing to undo in this hand"), Sound.REFUSE, reason="nothing-to-undo",
                             short=(_("Nothing to undo"),))
        last = self.game.log[-1]
        setup = self.game.state.setup
        self._disarm()
        self.store.undo(self.game)  # durable first, like every change
        self.game.undo()
        self.ui.extension_yes = True  # a reopened extension question starts on "yes", as it first did
        said = undone_words(setup, last)
        return self._say("accepted", said[0], Sound.ACCEPT, short=said[1:])

    # -- setup menus --------------------------------------------------------------------------

    def _draft_of(self, state: GameState) -> SetupDraft:
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

    def summary(self) -> tuple[str, str, str]:
        """The one-press setup screen: the sides, the edition and who deals."""
        draft = self.draft
        dealer = _("{name} deals").format(name=draft.names[draft.dealer])
        changed = draft.options != EDITIONS[draft.edition].options
        house = _("house rules")
        detail = f"{dealer} · {house}" if changed else dealer
        return sides_text(draft.names, draft.teams), edition_short(draft.edition), detail

    def menu_items(self) -> tuple[str, list[str]]:
        """The title and items of the current setup menu."""
        draft = self.draft
        step = self.ui.step
        if step is SetupStep.SUMMARY:
            sides, edition, _detail = self.summary()
            return edition, [sides]
        if step is SetupStep.MAIN:
            return _("Mille Bornes"), [_(item) for item in MAIN_ITEMS]
        if step is SetupStep.EDITION:
            return _("Edition"), [edition_title(name) for name in EDITIONS]
        if step is SetupStep.PLAYERS:
            return _("Players"), [(_("{count} in teams") if teams else _("{count} players")).format(count=n)
                                  for n, teams in _players_menu(draft.edition)]
        if step is SetupStep.NAMES:
            return _("Names"), [_("Continue"), *draft.names]
        if step is SetupStep.DEALER:
            return _("Who deals?"), list(draft.names)
        return _("Rules"), [_("Start the game"), *option_lines(draft.options, draft.edition)]

    def _setup_button(self, name: str, long: bool) -> Outcome:
        if self.ui.mode is Mode.NAME_EDIT:
            return self._name_button(name, long)
        ui = self.ui
        if ui.step is SetupStep.SUMMARY:
            return self._summary_button(name)
        _title, items = self.menu_items()
        if name == "NEXT":
            ui.cursor = (ui.cursor + 1) % len(items)
            return self._say("prompt", "", None)
        if name == "BACK":
            previous = {
                SetupStep.MAIN: SetupStep.SUMMARY,
                SetupStep.EDITION: SetupStep.MAIN,
                SetupStep.PLAYERS: SetupStep.EDITION,
                SetupStep.NAMES: SetupStep.PLAYERS,
                SetupStep.DEALER: SetupStep.NAMES,
                SetupStep.OPTIONS: SetupStep.DEALER,
            }
            if ui.step in previous and (long or ui.cursor == 0) and (ui.step is not SetupStep.MAIN or self.configured):
                ui.step = previous[ui.step]
                ui.cursor = 0
            else:
                ui.cursor = (ui.cursor - 1) % len(items)
            return self._say("prompt", "", None)
        if name != "OK":
            return self._say("ignored", "", None)
        draft = self.draft
        step = ui.step
        if step is SetupStep.MAIN:
            if ui.cursor == 2:
                return self._open_legend()
            if ui.cursor == 1:
                ui.mode = Mode.DECK_CHECK
                ui.deck_seen = set()
                ui.deck_unknown = []
                ui.deck_duplicates = 0
                return self._say("prompt", _("Deck check: scan every card, then OK"), Sound.ATTENTION)
            ui.step, ui.cursor = SetupStep.EDITION, list(EDITIONS).index(draft.edition)
        elif step is SetupStep.EDITION:
            edition = list(EDITIONS)[ui.cursor]
            if edition != draft.edition:
                draft.edition = edition
                draft.options = EDITIONS[edition].options
            counts = _players_menu(edition)
            wanted = (draft.players, draft.teams)
            ui.step, ui.cursor = SetupStep.PLAYERS, counts.index(wanted) if wanted in counts else 0
        elif step is SetupStep.PLAYERS:
            draft.players, draft.teams = _players_menu(draft.edition)[ui.cursor]
            defaults = list(self.defaults[2])
            draft.names = (draft.names + defaults[len(draft.names):])[: draft.players]
            draft.names += [f"P{i + 1}" for i in range(len(draft.names), draft.players)]
            ui.step, ui.cursor = SetupStep.NAMES, 0
        elif step is SetupStep.NAMES:
            if ui.cursor == 0:
                ui.step, ui.cursor = SetupStep.DEALER, min(draft.dealer, draft.players - 1)
            else:
                ui.mode = Mode.NAME_EDIT
                ui.name_index = ui.cursor - 1
                ui.name_text = draft.names[ui.name_index][:MAX_NAME_LENGTH]  # as configured: "Chloé" stays Chloé
                ui.name_cursor = 0
        elif step is SetupStep.DEALER:
            draft.dealer = ui.cursor
            ui.step, ui.cursor = SetupStep.OPTIONS, 0
        else:
            if ui.cursor == 0:
                try:
                    setup = GameSetup.create(
                        draft.edition, draft.names, teams=draft.teams, dealer=draft.dealer, options=draft.options
                    )
                except SetupError as error:
                    return self._say("refused", str(error), Sound.REFUSE, reason="bad-setup")
                return self.start_game(setup)
            option = list(draft.options.as_strings())[ui.cursor - 1]
            choices = option_choices(draft.options, option, EDITIONS[draft.edition].options)
            current = draft.options.as_strings()[option]
            following = choices[(choices.index(current) + 1) % len(choices)]
            draft.options = draft.options.with_strings({option: following})
        return self._say("prompt", "", None)

    def _open_legend(self) -> Outcome:
        came_from = self.ui.mode
        if came_from is Mode.PLAY:
            self._disarm()
        self.ui.legend_from, self.ui.mode, self.ui.legend_page = came_from, Mode.LEGEND, 0
        return self._say("prompt", "", None)

    def _legend_button(self, name: str) -> Outcome:
        """NEXT and BACK page through the legend (the renderer wraps); any other button goes back."""
        if name in ("NEXT", "BACK"):
            self.ui.legend_page += 1 if name == "NEXT" else -1
        else:
            self.ui.mode = self.ui.legend_from
        return self._say("prompt", "", None)

    def _summary_button(self, name: str) -> Outcome:
        """The configured table: OK starts it at once, NEXT opens the menus to change it."""
        if name == "OK":
            draft = self.draft
            try:
                setup = GameSetup.create(
                    draft.edition, draft.names, teams=draft.teams, dealer=draft.dealer, options=draft.options
                )
            except SetupError as error:
                return self._say("refused", str(error), Sound.REFUSE, reason="bad-setup")
            return self.start_game(setup)
        if name == "NEXT":
            self.ui.step, self.ui.cursor = SetupStep.MAIN, 0
            return self._say("prompt", "", None)
        return self._say("ignored", "", None)

    def _name_button(self, name: str, long: bool = False) -> Outcome:
        """NEXT/BACK change the letter under the cursor, CF switches é/É, DISCARD deletes it,
        OK moves on (OK on a blank, or a long OK, ends the name)."""
        ui = self.ui
        text = ui.name_text.ljust(ui.name_cursor + 1)
        letter = text[ui.name_cursor]
        if name in ("NEXT", "BACK"):
            step = 1 if name == "NEXT" else -1
            letter = next_letter(letter, step, capital=ui.name_cursor == 0)
            ui.name_text = (text[: ui.name_cursor] + letter + text[ui.name_cursor + 1 :]).rstrip()
            return self._say("prompt", "", None)
        if name == "CF":
            ui.name_text = (text[: ui.name_cursor] + switch_case(letter) + text[ui.name_cursor + 1 :]).rstrip()
            return self._say("prompt", "", None)
        if name == "DISCARD":
            ui.name_text = (text[: ui.name_cursor] + text[ui.name_cursor + 1 :]).rstrip()
            ui.name_cursor = min(ui.name_cursor, max(0, len(ui.name_text) - 1)) if ui.name_text else 0
            return self._say("prompt", "", None)
        if name == "OK":
            if not long and ui.name_cursor + 1 < MAX_NAME_LENGTH and letter != " ":
                ui.name_cursor += 1
                return self._say("prompt", "", None)
            # A blank (or the twelfth letter) ends the name: what follows is dropped. A long OK keeps it all.
            kept = text if long else text[: ui.name_cursor + 1]
            finished = kept.strip() or self.draft.names[ui.name_index]
            names = [finished if i == ui.name_index else n for i, n in enumerate(self.draft.names)]
            refusal = check_names(names)  # the engine's rule: no bad name, no name twice
            if refusal is not None:
                return self._refusal(refusal)
            self.draft.names[ui.name_index] = finished
            ui.mode = Mode.SETUP
            return self._say("prompt", _("Name: {name}").format(name=finished), None)
        return self._say("ignored", "", None)

    # -- deck check ---------------------------------------------------------------------------

    def _deck_scan(self, card: Card) -> Outcome:
        ui = self.ui
        if card not in FULL_DECK_SET:
            ui.deck_unknown.append(card.code())
            return self._say("refused", _("Not in a deck: {code}").format(code=card.code()), Sound.REFUSE,
                             reason="not-in-deck")
        if card in ui.deck_seen:
            ui.deck_duplicates += 1
            return self._say("refused", _("Scanned already: {card}").format(card=card_copy(card)), Sound.REFUSE,
                             reason="duplicate-card")
        ui.deck_seen.add(card)
        return self._say("accepted", f"{len(ui.deck_seen)}/{len(FULL_DECK)}: {card_copy(card)}", Sound.ACCEPT)

    def deck_missing(self) -> list[Card]:
        return [card for card in FULL_DECK if card not in self.ui.deck_seen]

    def _deck_button(self, name: str) -> Outcome:
        ui = self.ui
        if ui.mode is Mode.DECK_CHECK and name == "OK":
            ui.mode = Mode.DECK_REPORT
            ui.cursor = 0
            missing = self.deck_missing()
            if not missing and not ui.deck_unknown:
                return self._say("accepted", _("Deck complete: {count} cards").format(count=len(FULL_DECK)),
                                 Sound.HAND_END)
            return self._say("refused", _("{missing} missing, {unknown} unknown").format(
                missing=len(missing), unknown=len(ui.deck_unknown)), Sound.REFUSE, reason="deck-incomplete")
        if ui.mode is Mode.DECK_REPORT and name in ("NEXT", "BACK") and len(self.report_lines()) > 1:
            step = 1 if name == "NEXT" else -1
            ui.cursor = (ui.cursor + step) % len(self.report_lines())
            return self._say("prompt", "", None)
        if name in ("OK", "BACK"):
            ui.mode = Mode.SETUP
            ui.step = SetupStep.MAIN
            ui.cursor = 0
            return self._say("prompt", "", None)
        return self._say("ignored", "", None)

    def report_lines(self) -> list[str]:
        lines = [_("Missing {code}").format(code=card.code()) for card in self.deck_missing()]
        lines += [_("Unknown {code}").format(code=raw[:16]) for raw in self.ui.deck_unknown]
        return lines or [_("Deck complete")]

