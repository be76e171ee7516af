"""The table's buttons: gpiozero edges in, ``ButtonPressed`` events out on the referee's queue.

gpiozero's own debounce is off (``bounce_time=None``); ours is a settle filter: a level counts
only once it has held for ``debounce`` seconds, so a burst of contact-bounce edges gives one
press, and a spike shorter than that gives none. The gpiozero callbacks only record the edge;
a small worker thread (or :meth:`Buttons.poll`, in tests, with an injected clock) turns settled
levels into events and does nothing but ``queue.put``.

Press semantics per button (from the pin map):
* no long press: ``ButtonPressed(name)`` as soon as the press has settled;
* with a long press: a hold of ``hold_time`` sends ``ButtonPressed(long, long=(long == name))`` at
  once (a hold that stands in for another button sends that button's plain press), and a
  shorter press sends ``ButtonPressed(name)`` on release.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bornes.drivers.events import ButtonPressed
from bornes.drivers.pins import ButtonPin, PinMap

Clock = Callable[[], float]


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

    def edge(self, pressed: bool, now: float) -> None:
        """A raw edge from the pin (any number of them while the contacts bounce)."""
        if pressed != self.raw:
            self.raw = pressed
            self.raw_since = now

    def poll(self, now: float) -> list[str]:
        """Events due at ``now``: ``"press"``, ``"release"``, ``"long"``."""
        events: list[str] = []
        if self.raw != self.stable and now - self.raw_since >= self.debounce:
            self.stable = self.raw
            if self.stable:
                self.pressed_since = self.raw_since
                self.long_fired = False
                events.append("press")
            else:
                events.append("release")
        if (self.stable and self.hold_time is not None and not self.long_fired
                and now - self.pressed_since >= self.hold_time):
            self.long_fired = True
            events.append("long")
        return events

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
        from gpiozero import Button

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
        self._worker: threading.Thread | None = None  # before any device: close() reads it on failure
        try:
            for spec in pin_map.buttons:
                device = Button(spec.pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)
                device.when_pressed = self._edge_callback(spec.name, True)
                device.when_released = self._edge_callback(spec.name, False)
                self._devices[spec.name] = device
        except Exception:
            self.close()
            raise
        if thread:
            self._worker = threading.Thread(target=self._run, name="buttons", daemon=True)
            self._worker.start()

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._devices)

    def _edge_callback(self, name: str, pressed: bool) -> Callable[[], None]:
        def callback() -> None:
            # Hardware thread: record the edge and wake the worker; nothing else.
            with self._lock:
                self._state[name].edge(pressed, self._clock())
            self._wake.set()

        return callback

    def poll(self) -> None:
        """Turn settled levels into events on the queue (the worker calls this; tests call it directly)."""
        with self._lock:
            now = self._clock()
            due = [(name, event) for name, state in self._state.items() for event in state.poll(now)]
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
        if not deadlines:
            return None
        return max(0.0, min(deadlines) - self._clock())

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
                device.close()
        self._devices.clear()
        if self._worker is not None and self._worker is not threading.current_thread():
            self._worker.join(timeout=1.0)

    def __enter__(self) -> Buttons:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
