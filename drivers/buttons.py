"""The table's buttons: gpiozero edges in, ``ButtonPressed`` events out on the referee's queue.

gpiozero's own debounce is off (``bounce_time=None``); ours is a settle filter: a level counts
only once it has held for ``debounce`` seconds, so a burst of contact-bounce edges gives one
press, and a spike shorter than that gives none. The gpiozero callbacks only record the edge;
a small worker thread (or :meth:`Buttons.poll`, in tests, with an injected clock) turns settled
levels into events and does nothing but ``queue.put``.

An edge's direction is not trusted on its own. The kernel's GPIO character device says "rising"
or "falling" by reading the line again after the interrupt: a read that lands in the contact's
bounce, or (a USB bridge such as the CP2112, whose driver polls the lines) a read made after the
finger has moved, names the wrong one, and the true edge never comes. A release heard as a
press leaves the button held for good: a short press grows long, and the next press is lost
(seen in the kernel tier under load). So after any edge, once more when its contacts have had
``debounce`` seconds to settle, and every :data:`LEVEL_CHECK` seconds while a button is down, the
worker reads the line's level, and the level wins. For the same reason each line's edges are
taken from its pin (``Pin.when_changed``), every one: gpiozero's ``when_pressed`` drops an edge
that names the state it already believes, and after a misnamed one that is the next real press.
A button is judged only on a line just read: while its line cannot be read (a USB bridge being
pulled out, when what the edges say is no finger) it says nothing.

Press semantics per button (from the pin map):
* no long press: ``ButtonPressed(name)`` as soon as the press has settled;
* with a long press: a hold of ``hold_time`` sends ``ButtonPressed(long, long=(long == name))`` at
  once (a hold that stands in for another button sends that button's plain press), and a
  shorter press sends ``ButtonPressed(name)`` on release.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bornes.drivers.events import ButtonPressed
from bornes.drivers.pins import ButtonPin, PinMap

Clock = Callable[[], float]
log = logging.getLogger("bornes")

#: Seconds between two reads of a line while its button is down (or bouncing): a release whose edge was
#: lost or misnamed is heard this late at most. Idle buttons are never read: edges wake the worker.
LEVEL_CHECK = 0.05
#: How the debug line ends when the level read drops a press: the finger had let go before the line was read
#: (a worker starved for longer than the press), so no event was sent and the player has to press again.
NOT_COUNTED = ": a press over before its line was read, not counted"


@dataclass
class Debouncer:
    """Settle filter and long-press timer for one button. Pure logic: time comes in as arguments."""

    debounce: float
    hold_time: float | None = None  # None: no long press
    stable: bool = False  # the debounced level: True while pressed
    raw: bool = False
    raw_since: float = 0.0
    pressed_since: float = 0.0
    long_fired: bool = False
    #: The last moment the line was known pressed (an edge or a read said so). A hold is long only if the line was
    #: seen pressed for ``hold_time``: a release read late (its edge lost) is stamped when it was read, and the
    #: time up to that read is not time the button was known to be held.
    pressed_seen: float = 0.0

    def edge(self, pressed: bool, now: float) -> None:
        """A raw edge from the pin (any number of them while the contacts bounce), or the line read at ``now``."""
        if pressed:
            self.seen_pressed(now)
        if pressed != self.raw:
            self.raw = pressed
            self.raw_since = now

    def seen_pressed(self, at: float) -> None:
        """The line was pressed at ``at`` (an edge, or a read whose level is not judged: an edge came meanwhile)."""
        self.pressed_seen = max(self.pressed_seen, at)

    def poll(self, now: float) -> list[str]:
        """Events due at ``now``: ``"press"``, ``"release"``, ``"long"``.

        A hold already seen long is long before its release settles (a starved reader can see both at once), and a
        press that settles already long is long at once. The comparisons are the deadlines' own sums, so a poll at
        :meth:`next_deadline` decides what it was woken for."""
        events = self._long(now)
        if self.raw != self.stable and now >= self.raw_since + self.debounce:
            self.stable = self.raw
            if self.stable:
                self.pressed_since = self.raw_since
                self.long_fired = False
                events.append("press")
            else:
                events.append("release")
        return events + self._long(now)

    def _long(self, now: float) -> list[str]:
        held_until = now if self.raw else self.pressed_seen  # a release still settling ends what is known held
        if (self.stable and self.hold_time is not None and not self.long_fired
                and held_until >= self.pressed_since + self.hold_time):
            self.long_fired = True
            return ["long"]
        return []

    def next_deadline(self) -> float | None:
        """When :meth:`poll` next has something to decide, or None if idle."""
        if self.raw != self.stable:
            return self.raw_since + self.debounce
        if self.stable and self.hold_time is not None and not self.long_fired:
            return self.pressed_since + self.hold_time
        return None


class Buttons:
    """Every button in the pin map, feeding one input queue.

    ``pin_factory`` is a gpiozero factory (``bornes.drivers.pins.make_pin_factory("mock")`` on a desktop)
    or None for gpiozero's default. ``thread=False`` leaves polling to the caller (tests).
    """

    def __init__(
        self,
        pin_map: PinMap,
        events: queue.Queue[Any],
        *,
        pin_factory: Any = None,
        clock: Clock = time.monotonic,
        thread: bool = True,
    ) -> None:
        # gpiozero's Button would add a hold thread per button, waking ten times a second for a long press
        # this class times itself, and each one costs up to 0.1 s to stop: the plain input device is enough.
        from gpiozero import DigitalInputDevice

        self._events = events
        self._clock = clock
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._closed = False
        self._specs: dict[str, ButtonPin] = {b.name: b for b in pin_map.buttons}
        self._state: dict[str, Debouncer] = {
            b.name: Debouncer(pin_map.debounce, b.hold_time if b.long else None) for b in pin_map.buttons
        }
        self._devices: dict[str, Any] = {}
        self._edged: set[str] = set()  # buttons with an edge since the worker last read their lines
        #: Per button with a recent edge, when its contacts have had time to settle: its line is read once more
        #: after that, so a press named a release and read in its own bounce is not taken for nothing.
        self._settled_by: dict[str, float] = {}
        self._callbacks: dict[str, Callable[[float, Any], None]] = {}  # a pin keeps only a weak reference
        self._unread = False  # the last poll could not read a line: the next one waits LEVEL_CHECK, never spins
        self._worker: threading.Thread | None = None  # before any device: close() reads it on failure
        try:
            for spec in pin_map.buttons:
                device = DigitalInputDevice(spec.pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)
                self._devices[spec.name] = device
                self._callbacks[spec.name] = self._edge_callback(spec.name)
                device.pin.when_changed = self._callbacks[spec.name]  # the pin's every edge, not the device's
        except Exception:
            self.close()
            raise
        if thread:
            self._worker = threading.Thread(target=self._run, name="buttons", daemon=True)
            self._worker.start()

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._devices)

    def _edge_callback(self, name: str) -> Callable[[float, Any], None]:
        def callback(ticks: float, state: Any) -> None:
            # Hardware thread: record the edge and wake the worker; nothing else. A pulled-up line: low is
            # pressed. Any other state (lgpio's watchdog, 2) is only a reason to read the line.
            with self._lock:
                now = self._clock()
                if state in (0, 1):
                    self._state[name].edge(not state, now)
                self._edged.add(name)
                self._settled_by[name] = now + self._state[name].debounce
            self._wake.set()

        return callback

    def _to_check(self) -> list[str]:
        """The buttons whose lines are read now: an edge came, its contacts are still settling (read once more
        after), or the button is down."""
        with self._lock:
            now = self._clock()
            names = [name for name, state in self._state.items()
                     if name in self._edged or name in self._settled_by or state.raw or state.stable]
            self._edged.clear()
            for name in [name for name, by in self._settled_by.items() if by <= now]:
                del self._settled_by[name]  # this read comes after the settling: the last one the edge asks for
        return names

    def _levels(self, names: list[str]) -> tuple[dict[str, bool], set[str]]:
        """Each line's level now (True: pressed), and the lines that could not be read (their chip going)."""
        levels: dict[str, bool] = {}
        unread: set[str] = set()
        for name in names:
            device = self._devices.get(name)
            try:
                if device is None:
                    raise LookupError(name)
                levels[name] = bool(device.is_active)
            except Exception:  # the chip is going: its watcher closes the buttons soon
                unread.add(name)
        return levels, unread

    def poll(self) -> None:
        """Turn settled levels into events on the queue (the worker calls this; tests call it directly)."""
        # The levels are the lines' when the read was asked for, and judged as of then: on a USB bridge a read is a
        # transfer that a starved guest answers late, and a press judged when the answer came would be held for time
        # the read never saw (CI19 read a 0.5 s press of OK on the CP2112 as a long one, 1 s).
        read_at = self._clock()
        levels, unread = self._levels(self._to_check())  # outside the lock: on a USB bridge a read is a transfer
        with self._lock:
            self._unread = bool(unread)
            for name, pressed in levels.items():
                if pressed:  # pressed when the read went out, whatever edge came since
                    self._state[name].seen_pressed(read_at)
            levels = {name: pressed for name, pressed in levels.items()
                      if name not in self._edged}  # an edge came since the read: the next poll reads again
            corrected = [name for name, pressed in levels.items() if pressed != self._state[name].raw]
            # A press whose line reads released before it ever settled: over before the read, never counted.
            dropped = {name for name in corrected if not levels[name] and not self._state[name].stable}
            for name, pressed in levels.items():
                self._state[name].edge(pressed, read_at)  # the level wins over an edge's direction
            # Judged only on a line just read: an edge since the read waits for the next one, and a line that
            # cannot be read (a USB bridge being pulled out: what it says then is no finger) says nothing.
            due = [(name, event) for name, state in self._state.items() if name not in self._edged
                   and name not in unread for event in state.poll(read_at)]
        for name in corrected:  # a misnamed or lost edge, or one still to come (a press shorter than a read)
            log.debug("buttons: %s reads %s, not as its last edge said%s", name,
                      "pressed" if levels[name] else "released", NOT_COUNTED if name in dropped else "")
        for name, event in due:
            spec = self._specs[name]
            short_press = event == "press" and spec.long is None
            short_release = event == "release" and spec.long is not None and not self._state[name].long_fired
            if short_press or short_release:
                self._events.put(ButtonPressed(name))
            elif event == "long" and spec.long is not None:
                self._events.put(ButtonPressed(spec.long, long=spec.long == name))

    def _next_wait(self) -> float | None:
        with self._lock:
            deadlines = [d for d in (s.next_deadline() for s in self._state.values()) if d is not None]
            deadlines += self._settled_by.values()
            down = any(s.raw or s.stable for s in self._state.values())
            unread = self._unread
        wait = max(0.0, min(deadlines) - self._clock()) if deadlines else None
        if down:  # its line read again soon, whatever its edges say
            wait = LEVEL_CHECK if wait is None else min(wait, LEVEL_CHECK)
        if unread:  # its deadline passed unjudged: tried again in LEVEL_CHECK (an edge still wakes the worker)
            wait = LEVEL_CHECK
        return wait

    def _run(self) -> None:
        while not self._closed:
            self._wake.wait(self._next_wait())
            self._wake.clear()
            if self._closed:
                break
            try:
                self.poll()
            except Exception:  # the referee must keep its buttons even if one event goes wrong
                continue

    def close(self) -> None:
        """Release the pins and stop the worker. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        self._wake.set()
        for device in self._devices.values():
            with contextlib.suppress(Exception):
                device.pin.when_changed = None  # lgpio's callback cancelled before a close that may fail (chip gone)
            with contextlib.suppress(Exception):
                device.close()
        self._devices.clear()
        self._callbacks.clear()
        if self._worker is not None and self._worker is not threading.current_thread():
            self._worker.join(timeout=1.0)

    def __enter__(self) -> Buttons:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
