"""The referee loop and the appliance around it.

One queue carries every input. One loop takes an input, lets the table flow decide (the
flow asks the engine and writes the journal before applying), then draws the screen and
sounds the buzzer. Drivers only put events on the queue; nothing else touches the engine.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from bornes.drivers.events import (
    KEYPAD,
    ButtonPressed,
    CameraBlind,
    CameraSees,
    CardScanned,
    ControlScanned,
    InputEvent,
    KeyTyped,
    ReaderBack,
    ReaderLost,
    ReaderProblem,
    UnknownScanned,
)
from bornes.engine import EDITIONS, Phase
from bornes.firmware.appliance import notify
from bornes.firmware.appliance.control import (
    PRESENCE_SECONDS,
    ControlEvent,
    Pairing,
    PairingAsked,
    PinOffered,
    SetupProposed,
)
from bornes.firmware.appliance.control_client import BUSY, forget_phones
from bornes.firmware.language.buttons import using_keys
from bornes.firmware.language.devices import failure_phrase, failure_words
from bornes.firmware.language.i18n import N_, Phrase, _
from bornes.firmware.screens.model import TableView
from bornes.firmware.screens.render import render
from bornes.firmware.screens.table import table_pages
from bornes.firmware.storage.journal import (
    JournalBusy,
    JournalCorrupt,
    JournalError,
    JournalFull,
    JournalIOError,
    JournalUnwritable,
)
from bornes.firmware.table.flow import KEPT_FOR_GAME_END, Outcome, Sound, TableFlow, Verdict
from bornes.firmware.table.present import screen

if TYPE_CHECKING:
    from PIL import Image

    from bornes.drivers.feedback import Pattern

log = logging.getLogger("bornes")

#: Put this on the queue to stop the loop (SIGTERM does it).
STOP = object()

#: Seconds each page of a table too big for one panel stays up before the next (5+ sides on 128×64).
PAGE_SECONDS = 3.0

_PATTERNS = {
    Sound.ACCEPT: "ACCEPT",
    Sound.REFUSE: "REFUSE",
    Sound.COUP_FOURRE: "COUP_FOURRE",
    Sound.HAND_END: "HAND_END",
    Sound.ATTENTION: "ATTENTION",
}


def storage_message(error: JournalError) -> str:
    """What the players see when the journal refused a write: true, short, and never "Internal error"."""
    if isinstance(error, JournalFull):
        return _("Storage full: card not recorded, ask for help")
    if isinstance(error, JournalIOError):
        return _("Storage failing: card not recorded, ask for help")
    if isinstance(error, JournalUnwritable):
        return _("Storage read-only: card not recorded, ask for help")
    if isinstance(error, JournalBusy):
        return _("Journal busy: card not recorded, tap it again")
    if isinstance(error, JournalCorrupt):
        return _("Journal damaged: card not recorded, ask for help")
    return _("Storage error: card not recorded, ask for help")


@dataclass
class Timings:
    """Where the time of the last input went, for ``python -m bench``."""

    flow: float = 0.0
    render: float = 0.0
    display: float = 0.0
    history: list[tuple[float, float, float]] = field(default_factory=list)


class Screen(Protocol):
    """What the referee needs of a display (``bornes.drivers.display.Display`` is one)."""

    @property
    def size(self) -> tuple[int, int]: ...
    @property
    def mode(self) -> str: ...
    @property
    def degraded(self) -> bool: ...
    def show(self, image: Image.Image) -> bool: ...
    def tick(self) -> bool: ...
    @property
    def watch_every(self) -> float | None: ...


class Sounder(Protocol):
    """What the referee needs of the buzzer and LEDs (``bornes.drivers.feedback.Feedback`` is one)."""

    def play(self, pattern: Pattern) -> None: ...


#: Seconds without input before the journal's upkeep runs (a checkpoint and a primer: four syncs, about
#: 0.1 s on a slow SD card). A turn takes seconds; a flurry of taps is over long before this.
UPKEEP_IDLE = 0.25


class Referee:
    """The single consumer of the input queue."""

    def __init__(
        self,
        flow: TableFlow,
        events: queue.Queue[Any],
        *,
        display: Screen | None = None,
        feedback: Sounder | None = None,
        on_outcome: Callable[[InputEvent, Outcome], None] | None = None,
        watchdog: bool = True,
        keep_timings: bool = False,
        upkeep: Callable[[], object] | None = None,
    ) -> None:
        self.flow = flow
        #: What the journal does after the chirp (Journal.upkeep: copy the WAL into the main file), run once
        #: the table has been quiet for UPKEEP_IDLE: cards tapped in a flurry never wait behind it.
        self.upkeep = upkeep
        self.events = events
        self.display = display
        self.feedback = feedback
        self.on_outcome = on_outcome
        self.watchdog = watchdog
        self.timings = Timings()
        self.keep_timings = keep_timings
        self.size: tuple[int, int] = display.size if display is not None else (128, 64)
        self.mode: str | None = display.mode if display is not None else None
        self._last_view: object = None
        self.page = 0  # which page of a many-sided table is up; turned while nobody taps
        #: The PIN a phone must type, shown over the table after a pairing request (firmware/appliance/control.py).
        self.pairing = Pairing()
        self.pairing_shown = False
        #: When a person last pressed a button or tapped a card (or the referee started): a PIN needs someone there.
        self.touched = time.monotonic()
        #: Where a long BACK on the PIN screen unpairs every phone (control.PHONES_FORGOTTEN); None: not offered.
        self.phones_file: Path | None = None

    def _view(self) -> object:
        if self.pairing_shown and self.pairing.active():
            from bornes.firmware.screens.pairing import PairingView

            assert self.pairing.pin is not None
            return PairingView(self.pairing.pin, self.pairing.url, int(self.pairing.remaining()))
        self.pairing_shown = False
        return screen(self.flow, self.page)

    def draw(self) -> None:
        """Render the current screen; the display skips frames that did not change."""
        view = self._view()
        if view == self._last_view:
            return  # same view, same pixels: not even a render
        started = time.perf_counter()
        with using_keys(self.flow.keys):  # a keypad table's hints name its keys ("+ more", not "NEXT more")
            if type(view).__name__ == "PairingView":
                from bornes.firmware.screens.pairing import render_pairing

                image = render_pairing(view, self.size, self.mode)  # type: ignore[arg-type]
            else:
                image = render(view, self.size, self.mode)  # type: ignore[arg-type]
        rendered = time.perf_counter()
        if self.display is not None:
            self.display.show(image)  # never raises: a failing panel retries with backoff
        self._last_view = view
        self.timings.render = rendered - started
        self.timings.display = time.perf_counter() - rendered

    def control(self, event: ControlEvent) -> Outcome:
        """A message from the control socket, applied here in the one loop; its sender gets the verdict."""
        state = self.flow.state
        if isinstance(event, PairingAsked) and state is not None and not state.over \
                and state.phase is not Phase.HAND_OVER:
            # A PIN never covers a hand being played (nor beeps over it): the players ask again between hands.
            # English, marked for the phone pages' catalogue: the page words it in its own language.
            outcome = Outcome(Verdict.REFUSED, N_("a hand is being played: ask for a PIN between hands"), None,
                              "pairing-mid-hand")
        elif isinstance(event, PairingAsked) and time.monotonic() - self.touched > PRESENCE_SECONDS:
            # Nobody at the table to read a PIN: none is made (a network guessing at night gets nothing).
            outcome = Outcome(Verdict.REFUSED, N_("nobody is at the table: press a button there, then ask again"),
                              None, "pairing-nobody-there")
        elif isinstance(event, PairingAsked):
            already = self.pairing_shown and self.pairing.active()
            self.pairing.start(event.url, asker=event.asker)
            self.pairing_shown = True
            log.info("pairing: PIN shown on the panel for %s", event.url,
                     extra={"said": Phrase(N_("pairing: PIN shown on the panel for {url}"), url=event.url)})
            # One chirp for the first PIN: a burst of requests from the network does not beep on and on.
            outcome = Outcome(Verdict.PROMPT, _("Pairing"), None if already else Sound.ATTENTION)
        elif isinstance(event, PinOffered):
            problem = self.pairing.check(event.pin, asker=event.asker)
            log.info("pairing: %s", problem or "a phone is paired",
                     extra={"said": Phrase(N_("pairing: {problem}"), problem=Phrase(problem)) if problem
                            else Phrase(N_("pairing: a phone is paired"))})
            if problem is None:
                self.pairing_shown = False
                outcome = Outcome(Verdict.ACCEPTED, _("Phone paired"), Sound.ACCEPT)
            else:
                outcome = Outcome(Verdict.REFUSED, problem, None, "wrong-pin")
        else:
            options = EDITIONS[event.edition].options.with_strings(event.options)
            outcome = self.flow.propose(event.edition, event.names, event.teams, event.dealer, options)
            self.pairing_shown = False
            log.info("%s: %s", event.describe(), outcome.message,
                     extra={"said": Phrase(N_("setup from a phone: {answer}"), answer=outcome.message)})
        # A setup kept for the game's end is answered with the wire's BUSY word (the client reads "waiting").
        kept = outcome.reason == KEPT_FOR_GAME_END
        event.answer.set_result(BUSY if kept else outcome.message if outcome.refused else None)
        return outcome

    def step(self, event: InputEvent | ControlEvent) -> Outcome:
        """One input, start to finish."""
        started = time.perf_counter()
        if isinstance(event, SetupProposed | PairingAsked | PinOffered):
            outcome = self._guarded(self.control, event)
            self.draw()
            self._sound(outcome)
            return outcome
        if self.pairing_shown and self.phones_file is not None and isinstance(event, ButtonPressed) \
                and event.name == "BACK" and event.long:
            return self._forget_phones()
        self.pairing_shown = False  # any input at the table puts the table back on the panel
        if isinstance(event, ButtonPressed | KeyTyped | CardScanned | ControlScanned | UnknownScanned):
            self.touched = time.monotonic()
        outcome = self._guarded(self.flow.handle, event)
        self.timings.flow = time.perf_counter() - started
        if isinstance(event, ReaderLost | ReaderBack):
            # journald shows when the reader came and went, in English (tools/kernel/table.py reads "reader lost"),
            # the cause in our words ("05a4:9840 not found (plugged in?)"); the console says it in the table's.
            log.warning("%s", _journal_news(event), extra={"said": _reader_news(event)})
        elif isinstance(event, CameraBlind | CameraSees):
            said = (Phrase(N_("camera cannot see: {detail}"), detail=event.detail) if isinstance(event, CameraBlind)
                    else Phrase(N_("camera sees again")))
            log.warning("%s", event.describe(), extra={"said": said})  # journald shows when it could not see
        elif isinstance(event, ReaderProblem) and event.kind == "layout":
            log.info("%s", outcome.message)  # the layout test label: journald says what the scanner types in
        if outcome.verdict is Verdict.ACCEPTED and outcome.action is not None:
            # journald keeps the record's notation (tools and the fault tests read it); the emulator's
            # terminal says it by name (firmware/appliance/console.py: SpokenLines).
            said = Phrase(N_("accepted {action}"), action=_Said(self.flow.state, outcome.action))
            log.info("accepted %s", outcome.action.notation(), extra={"said": said})
        elif outcome.refused:
            said = Phrase(N_("refused [{reason}] {message}"), reason=outcome.reason, message=outcome.message)
            log.info("refused [%s] %s", outcome.reason, outcome.message, extra={"said": said})
        # At [log] level = "debug" every input gets a line, the last of its own: a person checking a
        # reader sees each tap and what became of it (a prompt or an ignored tap says nothing at info).
        log.debug("input %s: %s", " ".join(event.describe().split()), outcome.verdict)
        self.page = 0  # the first page right after a tap (the side to play is on every page)
        # The chirp as soon as the action is durable, before the panel: a render and its I2C frame take
        # about 25 ms on a Pi Zero, and play() never blocks.
        self._sound(outcome)
        self.draw()
        if self.keep_timings:
            self.timings.history.append((self.timings.flow, self.timings.render, self.timings.display))
        if self.on_outcome is not None:
            self.on_outcome(event, outcome)
        return outcome

    def _guarded(self, handler: Callable[[Any], Outcome], event: InputEvent | ControlEvent) -> Outcome:
        """``handler(event)``, where a storage failure or a bug is a refusal on the panel, never a dead loop."""
        try:
            return handler(event)
        except JournalError as error:  # the storage, not a bug: say what is true, change nothing more
            log.error("card not recorded: %s", error)
            return Outcome(Verdict.REFUSED, storage_message(error), Sound.REFUSE, "storage")
        except Exception as error:  # a bug must not stop the table: report it and carry on
            log.exception("internal error on %s", event)
            said = _("Internal error: {name}").format(name=type(error).__name__)
            return Outcome(Verdict.REFUSED, said, Sound.REFUSE, "internal-error")

    def _sound(self, outcome: Outcome) -> None:
        if outcome.sound is not None and self.feedback is not None:
            from bornes.drivers.feedback import Pattern

            self.feedback.play(Pattern[_PATTERNS[outcome.sound]])

    def _forget_phones(self) -> Outcome:
        """A long BACK while the PIN is shown: every paired phone must pair again (a phone lost, a guest gone)."""
        assert self.phones_file is not None
        self.pairing.cancel()
        self.pairing_shown = False
        try:
            forget_phones(self.phones_file)
            outcome = Outcome(Verdict.ACCEPTED, _("Every phone is unpaired"), Sound.ACCEPT)
            log.info("pairing: every phone unpaired at the panel",
                     extra={"said": Phrase(N_("pairing: every phone unpaired at the panel"))})
        except OSError as error:
            log.error("cannot unpair the phones: %s", error)
            outcome = Outcome(Verdict.REFUSED, _("Phones not unpaired: storage error"), Sound.REFUSE, "storage")
        self.flow.ui.message, self.flow.ui.short, self.flow.ui.refused = outcome.message, (), outcome.refused
        self.draw()
        self._sound(outcome)
        if self.on_outcome is not None:
            self.on_outcome(ButtonPressed("BACK", True), outcome)
        return outcome

    def run(self, stop: threading.Event | None = None) -> None:
        """Block on the queue until STOP; ping the watchdog from this loop only."""
        stop = stop or threading.Event()
        self.draw()
        interval = notify.watchdog_interval() if self.watchdog else None
        notify.ready("referee up")
        log.info("referee up", extra={"said": Phrase(N_("referee up"))})
        next_ping = time.monotonic() + (interval or 0)
        upkeep_due = False
        while not stop.is_set():
            timeout = interval if interval else 5.0
            if upkeep_due:
                timeout = min(timeout, UPKEEP_IDLE)
            if self.display is not None and self.display.degraded:
                timeout = min(timeout, 0.5)  # retry a failed panel soon, without spinning
            elif self.display is not None and (watch := self.display.watch_every) is not None:
                timeout = min(timeout, watch)  # a panel's bus pulled out while idle: lost within a second
            paged = isinstance(self._last_view, TableView) and len(table_pages(self._last_view, self.size[0])) > 1
            if paged:
                timeout = min(timeout, PAGE_SECONDS)
            if self.pairing_shown:
                timeout = min(timeout, 1.0)  # the seconds left tick down, and the PIN expires
            try:
                event = self.events.get(timeout=timeout)
            except queue.Empty:
                event = None
            if event is STOP:
                break
            if event is not None:
                self.step(event)
                upkeep_due = self.upkeep is not None
            elif upkeep_due and self.upkeep is not None:
                self.upkeep()
                upkeep_due = False
            elif self.pairing_shown:
                self.draw()
            elif paged:
                self.page += 1
                self.draw()
            if self.display is not None:
                self.display.tick()
            if interval and time.monotonic() >= next_ping:
                notify.watchdog()
                next_ping = time.monotonic() + interval
        notify.stopping()
        log.info("referee stopping", extra={"said": Phrase(N_("referee stopping"))})


def wait_for_long_ok(events: queue.Queue[Any], stop: threading.Event) -> bool:
    """Block until a long press of OK (or a typed ``long ok``); False if stopped first."""
    from bornes.drivers.events import KeyTyped

    while not stop.is_set():
        try:
            event = events.get(timeout=1.0)
        except queue.Empty:
            continue
        if event is STOP:
            return False
        if isinstance(event, ButtonPressed) and event.name == "OK" and event.long:
            return True
        if isinstance(event, KeyTyped) and event.text.strip().lower() == "long ok":
            return True
    return False


class _Said:
    """An accepted action by players' names, "Bob: Roll (MB-ROLL-01)" rather than "B play MB-ROLL-01",
    worded only when a log handler formats it (the emulator's console: firmware/appliance/console.py
    SpokenLines), so the Pi's journald path pays nothing for it."""

    __slots__ = ("action", "state")

    def __init__(self, state: Any, action: Any) -> None:
        self.state, self.action = state, action

    def __str__(self) -> str:
        from bornes.engine import Card
        from bornes.firmware.language.words import action_words

        if self.state is None:
            return str(self.action.notation())
        words = action_words(self.state.setup, self.action)[0]
        card = getattr(self.action, "card", None)
        return f"{words} ({card.code()})" if isinstance(card, Card) else words


def _reader_news(event: ReaderLost | ReaderBack) -> Phrase:
    """A reader, or the keypad, lost or back, as the emulator's console says it: the keypad by its name
    ("pavé perdu", never "lecteur perdu": the table's buttons are no reader)."""
    if event.reader == KEYPAD:
        if isinstance(event, ReaderLost):
            return Phrase(N_("keypad lost: {detail}"), detail=failure_phrase(event.detail))
        return Phrase(N_("keypad back on {port}"), port=event.port)
    if isinstance(event, ReaderLost):
        return Phrase(N_("reader lost: {detail}"), detail=failure_phrase(event.detail))
    return Phrase(N_("reader back on {port}"), port=event.port)


def _journal_news(event: ReaderLost | ReaderBack) -> str:
    """The journal's line for a reader or the keypad lost or back: English whatever the table speaks
    (docs/languages.md), starting as the kernel tier reads it ("keypad lost: ", "reader back on ");
    the cause in the words an English table says, the system's own text at debug level only."""
    if isinstance(event, ReaderLost):
        return f"{'keypad' if event.reader == KEYPAD else 'reader'} lost: {failure_words(event.detail, 'en')}"
    return event.describe()
