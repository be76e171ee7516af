"""Buzzer and LED feedback: each outcome has its own sound and colour, played without blocking.

Patterns are data, a tuple of steps (note or rest, seconds, LED colour), so tests can check
that they differ and a person can retune them without touching the player. A passive piezo
plays the notes on gpiozero's TonalBuzzer; an active buzzer (``tonal = false`` in the pin
map) can only beep, so every pattern also differs in rhythm. A background thread plays them;
a new pattern cuts the one playing, because the table cares about the latest event.
``muted`` silences the buzzer only: the LED still shows what happened. Without a buzzer, the same
patterns play through ``chirps`` (:mod:`bornes.drivers.sound`: the Pi's audio, or the TV page).
"""

from __future__ import annotations

import contextlib
import enum
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bornes.drivers.pins import PinMap

if TYPE_CHECKING:
    from bornes.drivers.sound import Chirps

Color = tuple[float, float, float]
OFF: Color = (0.0, 0.0, 0.0)
GREEN: Color = (0.0, 1.0, 0.0)
RED: Color = (1.0, 0.0, 0.0)
BLUE: Color = (0.0, 0.0, 1.0)
AMBER: Color = (1.0, 0.5, 0.0)
WHITE: Color = (1.0, 1.0, 1.0)


PLAYED_KEPT = 64  # patterns remembered in Feedback.played


@dataclass(frozen=True, slots=True)
class Step:
    """One note (a name like ``"C6"``, or None for a rest), how long it lasts, and the LED colour meanwhile."""

    note: str | None
    seconds: float
    color: Color = OFF


class Pattern(enum.Enum):
    """The named feedback patterns. The value is the tuple of steps."""

    ACCEPT = (Step("C6", 0.05, GREEN), Step("G6", 0.07, GREEN))  # a short high chirp
    REFUSE = (Step("A2", 0.40, RED),)  # one low buzz
    COUP_FOURRE = (  # a fanfare
        Step("G4", 0.10, BLUE), Step(None, 0.03, OFF), Step("C5", 0.10, BLUE), Step(None, 0.03, OFF),
        Step("E5", 0.10, BLUE), Step(None, 0.03, OFF), Step("G5", 0.25, WHITE), Step(None, 0.06, OFF),
        Step("E5", 0.10, BLUE), Step("G5", 0.40, WHITE),
    )
    HAND_END = (  # a little tune
        Step("C5", 0.18, GREEN), Step("E5", 0.18, AMBER), Step("G5", 0.18, GREEN), Step("C6", 0.36, AMBER),
        Step(None, 0.10, OFF), Step("G5", 0.18, GREEN), Step("C6", 0.60, WHITE),
    )
    ATTENTION = (Step("E5", 0.08, AMBER), Step(None, 0.08, OFF), Step("E5", 0.08, AMBER))  # a prompt needs you
    STATUS = (  # something is wrong with the hardware
        Step("D3", 0.12, RED), Step(None, 0.08, OFF), Step("D3", 0.12, RED), Step(None, 0.08, OFF),
        Step("D3", 0.12, RED),
    )

    @property
    def steps(self) -> tuple[Step, ...]:
        return tuple(self.value)

    @property
    def duration(self) -> float:
        return float(sum(step.seconds for step in self.steps))


def _without_buzzer(pin_map: PinMap) -> PinMap:
    """The pin map with its buzzer left alone (the sound goes elsewhere: ``[sound] output``)."""
    import dataclasses

    return dataclasses.replace(pin_map, buzzer=None)


class Feedback:
    """The buzzer and LEDs of the pin map. ``play()`` returns at once; a worker thread sounds it.

    ``pin_factory``: a gpiozero factory, or None for gpiozero's default. ``sleep`` lets tests run
    patterns without waiting; it is given the step length and the stop event.
    """

    def __init__(
        self,
        pin_map: PinMap,
        *,
        muted: bool = False,
        pin_factory: Any = None,
        wait: Callable[[threading.Event, float], bool] | None = None,
        thread: bool = True,
        buzzer: bool = True,
        chirps: Chirps | None = None,
        pins: bool = True,
    ) -> None:
        self.muted = muted
        #: The sound output when the buzzer is not used (``[sound] output``): started with each pattern.
        self.chirps = chirps
        self._wait = wait or (lambda event, seconds: event.wait(seconds))
        self._buzzer: Any = None
        self._tonal = False
        self._led: Any = None
        self._led_kind = "none"
        self._closed = False
        self._pending: queue.Queue[Pattern | None] = queue.Queue()
        self._cut = threading.Event()
        self._playing = False
        self.played: list[Pattern] = []  # the newest patterns started, for tests and `bornes doctor`
        self._pin_map = pin_map if buzzer else _without_buzzer(pin_map)
        try:
            if pins:  # else later, by reopen(), once their GPIO chip is there (drivers/wired.py)
                self._open(self._pin_map, pin_factory)
        except Exception:
            self.close()
            raise
        self._worker: threading.Thread | None = None
        if thread:
            self._worker = threading.Thread(target=self._run, name="feedback", daemon=True)
            self._worker.start()

    def _open(self, pin_map: PinMap, pin_factory: Any) -> None:
        from gpiozero import LED, RGBLED, Buzzer, TonalBuzzer
        from gpiozero.tones import Tone

        if pin_map.buzzer is not None:
            if pin_map.buzzer.tonal:
                # A2..A6 covers the low buzz and the high chirp.
                self._buzzer = TonalBuzzer(pin_map.buzzer.pin, mid_tone=Tone("A4"), octaves=2,
                                           pin_factory=pin_factory)
                self._tonal = True
            else:
                self._buzzer = Buzzer(pin_map.buzzer.pin, active_high=pin_map.buzzer.active_high,
                                      pin_factory=pin_factory)
        leds = pin_map.leds
        if leds is not None and leds.kind == "rgb" and leds.blue is not None:
            self._led = RGBLED(leds.red, leds.green, leds.blue, active_high=leds.active_high,
                               pin_factory=pin_factory)
            self._led_kind = "rgb"
        elif leds is not None:
            self._led = (LED(leds.red, active_high=leds.active_high, pin_factory=pin_factory),
                         LED(leds.green, active_high=leds.active_high, pin_factory=pin_factory))
            self._led_kind = "pair"

    def reopen(self, pin_factory: Any) -> None:
        """The buzzer and LEDs again, on ``pin_factory`` (their GPIO chip came back), or on none (None: it went
        away: patterns then go on without them, the chirps of ``[sound]`` still sound)."""
        devices = (self._buzzer, *(self._led if isinstance(self._led, tuple) else (self._led,)))
        self._buzzer, self._led, self._led_kind, self._tonal = None, None, "none", False
        for device in devices:
            if device is not None:
                with contextlib.suppress(Exception):
                    device.close()
        if pin_factory is not None and not self._closed:
            self._open(self._pin_map, pin_factory)

    def play(self, pattern: Pattern) -> None:
        """Start ``pattern``, cutting any pattern still playing. Never blocks."""
        if self._closed:
            return
        self._cut.set()
        self._pending.put(pattern)

    def play_now(self, pattern: Pattern) -> None:
        """Play ``pattern`` in the calling thread (tests, ``thread=False``, or `bornes doctor`)."""
        self.played.append(pattern)
        if len(self.played) > 2 * PLAYED_KEPT:  # the newest only: a referee runs for months
            del self.played[:-PLAYED_KEPT]
        cut = False
        try:
            if self.chirps is not None and not self.muted:
                self.chirps.start(pattern)
            for step in pattern.steps:
                self._sound(step)
                if self._wait(self._cut, step.seconds):
                    cut = True
                    break
        finally:
            self._silence()
            if cut and self.chirps is not None:
                self.chirps.stop()

    def _sound(self, step: Step) -> None:
        if self._buzzer is not None:
            if self.muted or step.note is None:
                self._buzzer.off() if not self._tonal else self._buzzer.stop()
            elif self._tonal:
                self._buzzer.play(step.note)
            else:
                self._buzzer.on()
        self._show(step.color)

    def _show(self, color: Color) -> None:
        if self._led_kind == "rgb":
            self._led.color = color
        elif self._led_kind == "pair":
            red, green = self._led
            red.value = 1 if color[0] > 0 else 0
            green.value = 1 if color[1] > 0 else 0

    def _silence(self) -> None:
        try:
            if self._buzzer is not None:
                self._buzzer.stop() if self._tonal else self._buzzer.off()
            self._show(OFF)
        except Exception:  # a pin already closed at shutdown
            pass

    def _run(self) -> None:
        while True:
            pattern = self._pending.get()
            if pattern is None:
                return
            while not self._pending.empty():  # only the latest one matters
                newer = self._pending.get_nowait()
                if newer is None:
                    return
                pattern = newer
            self._cut.clear()
            self._playing = True
            try:
                self.play_now(pattern)
            except Exception:  # feedback must never take the referee down
                continue
            finally:
                self._playing = False

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Wait until nothing is queued or playing (tests)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._pending.empty() and not self._busy():
                return True
            time.sleep(0.005)
        return False

    def _busy(self) -> bool:
        return self._playing

    def close(self) -> None:
        """Stop playing and release the pins. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        self._cut.set()
        self._pending.put(None)
        if self._worker is not None and self._worker is not threading.current_thread():
            self._worker.join(timeout=2.0)
        self._silence()
        for device in (self._buzzer, *(self._led if isinstance(self._led, tuple) else (self._led,))):
            if device is not None:
                with contextlib.suppress(Exception):
                    device.close()
        self._buzzer = None
        self._led = None
        self._led_kind = "none"
        if self.chirps is not None:
            with contextlib.suppress(Exception):
                self.chirps.close()

    def __enter__(self) -> Feedback:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
