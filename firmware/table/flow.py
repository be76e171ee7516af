"""The table flow: what a scan or a button press means at this moment of the game.

It turns input events into engine actions and prompts, asks the engine for every verdict
(it never judges a card itself), makes each accepted action durable through the store
*before* applying it, and says what to show and play. No I/O of its own: the referee
loop feeds it events and puts its screens and sounds on the hardware.

``TableFlow`` only routes: reader news and typed words here, every button and card to the
handler of the table's mode (``firmware.table.modes``), which answers with an ``Outcome``.
The shared state and verbs are ``firmware.table.core``'s, re-exported here for the callers.
"""

from __future__ import annotations

from functools import cached_property

from bornes.drivers.events import (
    BUTTONS,
    KEYPAD,
    ButtonPressed,
    CameraBlind,
    CameraSees,
    CameraTeaching,
    CardScanned,
    ControlScanned,
    DeviceFailure,
    InputEvent,
    KeyTyped,
    KindShown,
    ReaderBack,
    ReaderLost,
    ReaderProblem,
    UnknownScanned,
    button_name,
    pad_place,
    seat_of_button,
)
from bornes.drivers.parts import LAYOUT_TEST_CODE
from bornes.engine import Card, CardCodeError, CardKind, Phase, RuleOptions, full_deck
from bornes.firmware.language.devices import PLUG_IT_IN, failure_words
from bornes.firmware.language.i18n import N_, _
from bornes.firmware.table.core import (
    BUSY_UNTIL_GAME_ENDS,
    KEPT_FOR_GAME_END,
    FlowState,
    MenuState,
    Mode,
    ModeHandler,
    Outcome,
    SetupDraft,
    SetupStep,
    Sound,
    TableCore,
    Verdict,
)
from bornes.firmware.table.modes import handlers
from bornes.firmware.table.modes.camera import teaching_news
from bornes.firmware.table.modes.deck import deck_missing, report_lines
from bornes.firmware.table.modes.setup import menu_items, summary

__all__ = [
    "BUSY_UNTIL_GAME_ENDS",
    "KEPT_FOR_GAME_END",
    "FlowState",
    "Mode",
    "Outcome",
    "SetupDraft",
    "SetupStep",
    "Sound",
    "TableFlow",
    "Verdict",
]

_FULL_DECK = full_deck()

#: A reader's trouble, in the table's words: (what the panel says, its shorter form).
_READER_PROBLEMS = {
    "one-card-at-a-time": (N_("One card at a time"), N_("One card")),
    "typing": (N_("Typed by hand? Scan the card"), N_("Scan the card")),  # a keyboard reader's keys at a person's pace
    "keys-at-once": (N_("One key at a time"), N_("One key")),  # the keypad: two keys together, or a scanner's burst
    "camera-unsure": (N_("Not clear: show it again"), N_("Show it again")),  # the camera refuses to guess
    "camera-frame": (N_("Camera: {detail}"), N_("Camera trouble")),  # a black, blinding or odd-sized frame
}
#: Why the camera dropped a frame (drivers/camera/watch.py's faults), in the table's words: (the detail of
#: "Camera: {detail}", a shorter line for a narrow panel).
_CAMERA_FAULTS = {
    "black": (N_("it sees black (lens covered? lamp off?)"), N_("Camera sees black")),
    "overexposed": (N_("dazzled (a lamp in the lens?)"), N_("Camera dazzled")),
    "size": (N_("a picture of another size"), N_("Camera: odd picture")),
    "unreadable": (N_("a picture it cannot read"), N_("Camera: bad picture")),
}


#: Why the camera cannot see (drivers/camera/watch.py), as the status line says it while it lasts, and the
#: message said when it starts: (status, message, its shorter forms).
_CAMERA_BLIND = {
    "unsteady": (N_("Camera: the light flickers"), N_("Camera: the light flickers, it cannot read the cards"),
                 (N_("Camera: the light flickers"), N_("Light flickers"))),
    "black": (N_("Camera sees black"), N_("Camera: it sees black (lens covered? lamp off?)"),
              (N_("Camera sees black"),)),
    "overexposed": (N_("Camera dazzled"), N_("Camera: dazzled (a lamp in the lens?)"), (N_("Camera dazzled"),)),
    "size": (N_("Camera: odd picture"), N_("Camera: a picture of another size"), (N_("Camera: odd picture"),)),
    "unreadable": (N_("Camera: bad picture"), N_("Camera: a picture it cannot read"), (N_("Camera: bad picture"),)),
}


def _typed_card(text: str) -> bool:
    """A line typed on the emulated table names a card (``MB-STOP-01``, ``@B MB-STOP-01``), not a button."""
    words = text.strip().split()
    word = words[-1].upper() if words else ""
    return word.startswith("MB-") and not word.startswith("MB-CMD-")


class TableFlow(TableCore):
    """One table: the setup menus, then the game, one input at a time."""

    @cached_property
    def modes(self) -> dict[Mode, ModeHandler]:
        """The handler of each mode; they read and change this table's state."""
        return handlers(self)

    # -- from outside the table ---------------------------------------------------------------

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
            return Outcome(Verdict.REFUSED, BUSY_UNTIL_GAME_ENDS, None, KEPT_FOR_GAME_END)
        if self.ui.mode not in (Mode.SETUP, Mode.NAME_EDIT, Mode.PLAY):
            return Outcome(Verdict.REFUSED, "the table is busy (a deck check): try again later", None, "busy")
        self.waiting = None
        self.game = None
        self.draft = SetupDraft(edition, len(names), teams, list(names), dealer, options)
        self.ui = FlowState(mode=Mode.SETUP, menu=MenuState(SetupStep.SUMMARY), status=self.ui.status)
        return self.prompt(_("Setup from a phone: OK starts"), Sound.ATTENTION)

    def announce_resume(self) -> Outcome:
        """After a restart mid-game: say so on the table, with the hand and whose turn it is."""
        state = self.state
        assert state is not None
        names = state.setup.names
        seats = state.to_act() if state.phase is not Phase.PLAY else (state.hand.turn,)
        hand, name = state.hand.number, names[seats[0]] if seats else names[state.hand.turn]
        message = _("Game resumed: hand {hand}, {name}'s turn").format(hand=hand, name=name)
        shorter = (_("Resumed: hand {hand}, {name}").format(hand=hand, name=name), _("Game resumed"))
        return self.prompt(message, Sound.ATTENTION, short=shorter)

    # -- the one entry point ------------------------------------------------------------------

    def handle(self, event: InputEvent) -> Outcome:
        """Apply one input. Refusals change nothing but the message on screen."""
        self.ui.message = None  # feedback stays until the next input, and no longer
        self.ui.card = isinstance(event, CardScanned | KindShown | UnknownScanned) or (
            isinstance(event, KeyTyped) and _typed_card(event.text))
        self._pad = event.pad if isinstance(event, CardScanned) else None  # journalled with the play
        if isinstance(event, KeyTyped):
            return self._typed(event.text)
        if isinstance(event, ReaderLost | ReaderBack):
            return self._reader_news(event)
        if isinstance(event, CameraBlind | CameraSees):
            return self._camera_news(event)
        if isinstance(event, ReaderProblem):
            return self._reader_problem(event)
        if isinstance(event, UnknownScanned):
            if self.ui.mode is Mode.DECK_CHECK:
                self.ui.deck.unknown.append(event.raw)
            return self.refuse(_("Unknown card: {code}").format(code=event.raw[:24]), "unknown-card",
                               short=(_("Unknown card"),))
        if isinstance(event, CameraTeaching):
            return teaching_news(self, event)
        if isinstance(event, KindShown):
            self._pad = event.pad
            return self._card(self.copy_of(event.kind), event.pad)
        if isinstance(event, ControlScanned):
            return self._button(event.name, False)
        if isinstance(event, ButtonPressed):
            return self._button(event.name, event.long)
        assert isinstance(event, CardScanned)
        return self._card(event.card, event.pad)

    def _reader_news(self, event: ReaderLost | ReaderBack) -> Outcome:
        """A reader or the keypad lost or back: the status stays until every one is back. A keypad
        lost changes nothing at the table: its control cards (MB-CMD-…) still stand in for it."""
        keypad = event.reader == KEYPAD
        if event.reader == BUTTONS:
            return self._buttons_news(event)
        if isinstance(event, ReaderLost):
            self.lost_readers.add(event.reader)
            self.ui.status = self._reader_status()
            why = failure_words(event.detail)  # "05a4:9840 introuvable (branché ?)", never the system's English
            plug = not isinstance(event.detail, DeviceFailure) or event.detail.kind in PLUG_IT_IN
            if keypad and plug:
                return self.say(Verdict.IGNORED, _("Keypad lost: plug it back in (control cards work meanwhile)"),
                                Sound.ATTENTION, short=(_("Keypad lost: plug it back in"), _("Keypad lost")))
            if keypad:  # not a cable: plugging it in would not help, so the panel says why
                return self.say(Verdict.IGNORED, _("Keypad lost: {detail}").format(detail=why), Sound.ATTENTION,
                                short=(_("Keypad lost"),))
            return self.say(Verdict.IGNORED, _("Reader lost: {detail}").format(detail=why), Sound.ATTENTION,
                            short=(_("Reader lost"),))
        self.lost_readers.discard(event.reader)
        self.ui.status = self._reader_status()
        return self.ignored(_("Keypad back") if keypad else _("Reader back"))

    def _buttons_news(self, event: ReaderLost | ReaderBack) -> Outcome:
        """The wired buttons' GPIO chip went (a USB bridge unplugged) or came back: as the keypad, the
        control cards stand in for them meanwhile."""
        if isinstance(event, ReaderLost):
            self.lost_readers.add(BUTTONS)
            self.ui.status = self._reader_status()
            said = _("Buttons lost: plug their bridge back in (control cards work meanwhile)")
            return self.say(Verdict.IGNORED, said, Sound.ATTENTION,
                            short=(_("Buttons lost: plug them back in"), _("Buttons lost")))
        was_lost = BUTTONS in self.lost_readers
        self.lost_readers.discard(BUTTONS)
        self.ui.status = self._reader_status()
        return self.ignored(_("Buttons back") if was_lost else "")

    def _camera_news(self, event: CameraBlind | CameraSees) -> Outcome:
        """The camera cannot see a steady picture, or can again: a status like a reader lost, until it sees."""
        if isinstance(event, CameraBlind):
            self.blind_cameras[event.reader] = event.reason
            self.ui.status = self._reader_status()
            _status, message, short = _CAMERA_BLIND.get(event.reason, _CAMERA_BLIND["unsteady"])
            return self.say(Verdict.IGNORED, _(message), Sound.ATTENTION, short=tuple(_(line) for line in short))
        was = self.blind_cameras.pop(event.reader, None)
        self.ui.status = self._reader_status()
        return self.ignored(_("Camera sees again") if was is not None else "")

    def _reader_status(self) -> str | None:
        """The status line while a reader cannot read: one unplugged first (no card can be read), then a camera
        that cannot see, then the keypad, then the wired buttons."""
        if self.lost_readers - {KEYPAD, BUTTONS}:
            return _("Reader lost")
        if self.blind_cameras:
            reason = next(iter(self.blind_cameras.values()))
            return _(_CAMERA_BLIND.get(reason, _CAMERA_BLIND["unsteady"])[0])
        if KEYPAD in self.lost_readers:
            return _("Keypad lost")
        return _("Buttons lost") if self.lost_readers else None

    def _reader_problem(self, event: ReaderProblem) -> Outcome:
        """A read that went wrong: the card was not seen, whatever the cause, so it is scanned again."""
        if event.kind == "layout":  # the layout test label, scanned on a keyboard-mode reader
            return self.ignored(_("Scanner: {detail}").format(detail=event.detail), short=(_("Scanner layout read"),))
        if event.kind == "unknown-key":  # a keypad key that is no button: the legend says which are
            key = event.detail[:24]  # "9 (KP9)": the label, and the name [buttons.keys] takes
            return self.refuse(_("Key {key} is no button: hold OK for the keys").format(key=key), event.kind,
                               short=(_("Key {key}: no button").format(key=key), _("Not a button")))
        # A garbled or unanswered read: the card was not seen, whatever the cause.
        text, short = _READER_PROBLEMS.get(
            event.kind, (N_("The reader did not get that card: scan it again"), N_("Scan it again")))
        detail = event.detail
        if event.kind == "camera-frame" and event.detail in _CAMERA_FAULTS:
            detail, short = _(_CAMERA_FAULTS[event.detail][0]), _CAMERA_FAULTS[event.detail][1]
        return self.refuse(_(text).format(detail=detail), event.kind, short=(_(short),))

    def copy_of(self, kind: CardKind) -> Card:
        """The card a camera read stands for: the first copy of ``kind`` not yet seen this hand (on the
        table, in the discards, shown), nor already chosen for the swap under way. When every copy is
        seen, the last one: the engine then refuses it as already on the table, as it would a label."""
        state = self.state
        if self.ui.mode is Mode.DECK_CHECK:
            taken: set[Card] = set(self.ui.deck.seen)
            count = max(1, sum(1 for card in _FULL_DECK if card.kind is kind))
        elif state is None:
            return Card(kind, 1)
        else:
            taken = set(state.hand.seen) | set(self.ui.swap.cards)
            count = max(1, state.setup.deck.get(kind, 0))
        for copy in range(1, count + 1):
            if Card(kind, copy) not in taken:
                return Card(kind, copy)
        return Card(kind, count)

    def _typed(self, text: str) -> Outcome:
        """``bornes run --emulate``: a card code, or a button name (``ok``, ``next``, ``seat2``, ``long ok``)."""
        words = text.strip().split()
        pad = None
        if words and words[0].startswith("@"):  # "@B MB-STOP-01": laid on seat B's pad
            pad = pad_place(words[0][1:])
            if pad is None or len(words) != 2:
                return self.refuse(_("Not a pad and a card: {text}").format(text=text.strip()[:24]), "bad-input",
                                   short=(_("Not a pad and a card"),))
            words = words[1:]
        if not words:
            return self.ignored()
        if words[0].upper().startswith("MB-CMD-"):
            return self._button(words[0].upper()[7:], False)
        if words[0].upper().startswith("MB-"):
            return self._typed_card(words[0], pad)
        long = words[0].lower() == "long" and len(words) > 1
        name = (words[1] if long else words[0]).upper()
        if button_name(name) is not None:
            return self._button(name, long)
        return self.refuse(_("Not a card or button: {text}").format(text=text.strip()[:24]), "bad-input",
                           short=(_("Not a card or button"),))

    def _typed_card(self, word: str, pad: str | None) -> Outcome:
        if word.upper() == LAYOUT_TEST_CODE:  # the label that tells a keyboard-mode scanner's layout
            return self.say(Verdict.IGNORED, _("Layout test label: a keyboard-mode scanner names its layout here; "
                                               "typed, there is none to find"), None, reason="layout-test",
                            short=(_("Layout test label: typed, no layout to find"), _("Layout test label")))
        try:
            card = Card.from_code(word.upper())
        except CardCodeError:
            return self.refuse(_("Unknown card: {code}").format(code=word[:24]), "unknown-card",
                               short=(_("Unknown card"),))
        self._pad = pad  # journalled with the play, as a scanned card's pad is
        return self._card(card, pad)

    def _button(self, name: str, long: bool) -> Outcome:
        """A button goes to the mode's handler; a seat button in a game names a seat (or answers a question)."""
        name = name.upper()
        mode = self.modes[self.ui.mode]
        if seat_of_button(name) is not None:
            return mode.seat(name, long)
        return mode.button(name, long)

    def _card(self, card: Card, pad: str | None = None) -> Outcome:
        if self.ui.mode is Mode.LEGEND:  # a card closes the legend and counts as usual
            self.ui.mode = self.ui.legend.came_from
        return self.modes[self.ui.mode].card(card, pad)

    # -- what the screens read ----------------------------------------------------------------

    def summary(self) -> tuple[str, str, str]:
        """The one-press setup screen: the sides, the edition and who deals."""
        return summary(self.draft)

    def menu_items(self) -> tuple[str, list[str]]:
        """The title and items of the current setup menu."""
        return menu_items(self.draft, self.ui.menu.step, camera=self.camera is not None)

    def deck_missing(self) -> list[Card]:
        return deck_missing(self.ui.deck)

    def report_lines(self) -> list[str]:
        return report_lines(self.ui.deck)
