"""What a person does on a keypad, as data, and what the table must hear: one scenario for every tier.

A :data:`SCENARIO` is a list of :class:`Stroke` (a key, how long it is held, the pause before it).
:func:`recorded` turns it into the evdev events the kernel delivers (tests/hardware/test_keypad.py
replays them); :func:`through` plays it on any device that can write a key's state, so the same
strokes run through ``evdev.UInput`` here and through a USB HID gadget in the kernel tier (a
``/dev/hidg0`` writer of 8-byte boot-keyboard reports is all that tier needs to add).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from evdev import InputEvent, ecodes

from bornes.drivers.events import ButtonPressed
from bornes.drivers.keys import KEY_CODES

#: The kernel's autorepeat, as a held key produces it (first repeat after 250 ms, then every 33 ms).
REPEAT_DELAY, REPEAT_PERIOD = 0.25, 0.033


@dataclass(frozen=True, slots=True)
class Stroke:
    """A key (its kernel name without ``KEY_``) held ``held`` seconds, pressed ``after`` seconds after the last."""

    key: str
    held: float = 0.12
    after: float = 0.4

    @property
    def code(self) -> int:
        return KEY_CODES[self.key]


#: A hand's worth of buttons on a numeric keypad: NEXT through a menu, BACK, OK held for the legend,
#: NEXT to turn its page, OK to leave, a short UNDO, a coup fourré, a discard, a seat.
SCENARIO: tuple[Stroke, ...] = (
    Stroke("KPPLUS"), Stroke("KPPLUS"), Stroke("KPMINUS"), Stroke("KPENTER", held=1.4), Stroke("KPPLUS"),
    Stroke("KPENTER", held=0.2), Stroke("KPASTERISK", held=0.3), Stroke("KP0"), Stroke("KPDOT"), Stroke("KP3"),
)
#: What the table hears from :data:`SCENARIO` with the numpad key map and the shipped holds.
HEARD: tuple[ButtonPressed, ...] = (
    ButtonPressed("NEXT"), ButtonPressed("NEXT"), ButtonPressed("BACK"), ButtonPressed("OK", long=True),
    ButtonPressed("NEXT"), ButtonPressed("OK"), ButtonPressed("UNDO"), ButtonPressed("CF"), ButtonPressed("DISCARD"),
    ButtonPressed("SEAT3"),
)


class Clock:
    """The kernel's timestamps of a recording."""

    def __init__(self, start: float = 5000.0) -> None:
        self.now = start

    def event(self, code: int, value: int, after: float = 0.0, kind: int = ecodes.EV_KEY) -> InputEvent:
        self.now += after
        sec = int(self.now)
        return InputEvent(sec, round((self.now - sec) * 1_000_000), kind, code, value)


def recorded(strokes: tuple[Stroke, ...] | list[Stroke], clock: Clock | None = None) -> list[InputEvent]:
    """The events of ``strokes``: down, SYN, the kernel's repeats while held, up, SYN."""
    clock = clock or Clock()
    events: list[InputEvent] = []
    for stroke in strokes:
        events += [clock.event(stroke.code, 1, stroke.after), clock.event(ecodes.SYN_REPORT, 0, kind=ecodes.EV_SYN)]
        start = clock.now
        repeat_at = start + REPEAT_DELAY
        while repeat_at < start + stroke.held:
            events += [clock.event(stroke.code, 2, repeat_at - clock.now),
                       clock.event(ecodes.SYN_REPORT, 0, kind=ecodes.EV_SYN)]
            repeat_at += REPEAT_PERIOD
        events += [clock.event(stroke.code, 0, start + stroke.held - clock.now),
                   clock.event(ecodes.SYN_REPORT, 0, kind=ecodes.EV_SYN)]
    return events


def through(strokes: tuple[Stroke, ...] | list[Stroke], write: Callable[[int, bool], None],
            sleep: Callable[[float], None] = time.sleep) -> None:
    """Play ``strokes`` in real time on a device: ``write(code, down)`` sets one key's state."""
    for stroke in strokes:
        sleep(stroke.after)
        write(stroke.code, True)
        sleep(stroke.held)
        write(stroke.code, False)
