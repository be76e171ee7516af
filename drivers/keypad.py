"""The table's buttons from a USB keypad, macro pad or keyboard: key codes in, ``ButtonPressed`` out.

A numeric keypad or a 6-key macro pad is a USB keyboard: the kernel reports which key went down
and up (evdev), never a character. A :class:`KeyMap` says which key is which button of the table
(OK, NEXT, BACK, CF, DISCARD, UNDO, and the optional seat buttons); :data:`KEYMAPS` has one for a
numeric keypad and one for a 6-key pad, and the config can change any key.

The keypad is opened, grabbed and followed through unplugs exactly as a keyboard-mode reader is:
the same reader thread (:class:`~bornes.drivers.readers.serial_reader.SerialReader`), the same
grabbed port and device choice (:mod:`bornes.drivers.readers.hid_device`), with
:class:`KeypadLink` as its loop body and ``keypad`` as its name on ``ReaderLost``/``ReaderBack``.

Press semantics are the GPIO buttons' (``drivers/buttons.py``): a button without a hold sends its
press once it is sure; one with a hold sends its own press on release, or the hold's button as
soon as the key has been down for the hold time. Times are the kernel's own key-down and key-up
stamps; the kernel's autorepeat is ignored. A press is sure :data:`BURST_GAP` after its key went
down: a key down sooner after another is not a hand but a scanner (or two keys at once), and every
key of such a burst is dropped, so a scanner on the keypad's port never presses a button.

:class:`KeypadDecoder` is pure (events in, presses and problems out; time comes in as arguments),
so a recorded stream of key events tests it exactly.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bornes.drivers.events import CONTROL_NAMES, KEYPAD, ButtonPressed, button_name, seat_of_button
from bornes.drivers.keys import EV_KEY, KEY_DOWN, KEY_REPEAT, KEY_UP, KeyEvent, key_code, key_label, key_name

if TYPE_CHECKING:
    from bornes.drivers.pins import PinMap
    from bornes.drivers.readers.base import DecoderStats
    from bornes.drivers.readers.serial_reader import SerialFactory, SerialReader

#: A key down this soon after another is not a person's: a scanner typing, or two keys pressed at
#: once. A scanner types a key every 2 to 40 ms (drivers/readers/hid.py); a person presses one
#: key, then another 100 ms or more later.
BURST_GAP = 0.05
#: After a burst, keys are ignored until the keyboard has been quiet this long.
BURST_QUIET = 0.3

#: The button names a key may be given, in the order the legend lists them.
SEAT_BUTTONS = tuple(f"SEAT{n}" for n in range(1, 9))
BUTTON_ORDER = (*CONTROL_NAMES, *SEAT_BUTTONS)
NO_BUTTON = "none"


class KeyMapError(ValueError):
    """A key map that cannot work; ``key`` is the config key to name (``"NUMLOCK"``), or "" for the map."""

    def __init__(self, message: str, key: str = "") -> None:
        super().__init__(message)
        self.key = key


@dataclass(frozen=True, slots=True)
class KeyMap:
    """Which key is which button. ``pairs`` is (key code, button name), in the legend's order."""

    name: str
    pairs: tuple[tuple[int, str], ...]

    @property
    def buttons(self) -> dict[int, str]:
        return dict(self.pairs)

    def button(self, code: int) -> str | None:
        """The button a key is, or None for a key the map does not use."""
        return next((button for key, button in self.pairs if key == code), None)

    def key_of(self, button: str) -> int | None:
        return next((key for key, name in self.pairs if name == button), None)

    def accepts(self, keys: Collection[int]) -> bool:
        """A device with any key of this map can be the keypad (``hid_device.resolve_device``)."""
        return any(code in keys for code, _button in self.pairs)

    def legend(self) -> tuple[tuple[str, str], ...]:
        """(what is printed on the key, the button it is), in button order; consecutive seat keys
        labelled ``1``…``8`` are one line ``1-8`` for ``SEAT1-SEAT8``."""
        rows = [(key_label(code), button) for code, button in sorted(self.pairs, key=_button_order)]
        controls = [row for row in rows if seat_of_button(row[1]) is None]
        seats = [row for row in rows if seat_of_button(row[1]) is not None]
        digits = [str(n) for n in range(1, len(seats) + 1)]
        if len(seats) > 2 and [label for label, _ in seats] == digits and \
                [button for _, button in seats] == list(SEAT_BUTTONS[:len(seats)]):
            return (*controls, (f"1-{len(seats)}", f"SEAT1-SEAT{len(seats)}"))
        return tuple(rows)

    def labels(self) -> dict[str, str]:
        """Button -> what is printed on its key (``{"OK": "Enter", "NEXT": "+", …}``)."""
        return {button: key_label(code) for code, button in self.pairs}

    def described(self) -> str:
        """One line for logs and ``bornes scan-test``: ``Enter=OK +=NEXT …``."""
        return "  ".join(f"{label}={button}" for label, button in self.legend())


def key_said(code: int) -> str:
    """A key as a person and the config both name it: ``9 (KP9)``, ``F13``: the printed label, and
    the name ``[buttons.keys]`` takes where it differs."""
    label, name = key_label(code), key_name(code)
    return label if label == name else f"{label} ({name})"


def _button_order(pair: tuple[int, str]) -> int:
    return BUTTON_ORDER.index(pair[1])


def _map(name: str, keys: Mapping[str, str]) -> KeyMap:
    pairs = []
    for key, button in keys.items():
        code = key_code(key)
        assert code is not None, key
        pairs.append((code, button))
    return KeyMap(name, tuple(sorted(pairs, key=_button_order)))


#: The key maps a config may start from (``[buttons] keymap``); ``[buttons.keys]`` changes them.
KEYMAPS: Mapping[str, KeyMap] = {
    # A numeric keypad: the right-hand column is BACK, NEXT, OK from top to bottom; the wide 0
    # is the coup fourré, the dot beside it discards, * (beside -) undoes; 1 to 8 are the seats.
    "numpad": _map("numpad", {
        "KPENTER": "OK", "KPPLUS": "NEXT", "KPMINUS": "BACK", "KP0": "CF", "KPDOT": "DISCARD",
        "KPASTERISK": "UNDO", **{f"KP{n}": f"SEAT{n}" for n in range(1, 9)},
    }),
    # A 6-key macro pad (two rows of three) typing 1 to 6, as many do out of the box: the top row
    # says what a card cannot (CF, DISCARD, UNDO), the bottom row moves (BACK, NEXT, OK).
    "pad6": _map("pad6", {"1": "CF", "2": "DISCARD", "3": "UNDO", "4": "BACK", "5": "NEXT", "6": "OK"}),
}


def keymap_from(base: str, changes: Mapping[str, str]) -> KeyMap:
    """The key map ``base`` with ``changes`` (key name -> button, or ``none``) applied.

    A key named in ``changes`` becomes that button, and the button's key in ``base`` no longer is
    it; ``none`` takes a key out. Raises :class:`KeyMapError` for an unknown key or button, a
    button named twice, or a table button left without a key.
    """
    if base not in KEYMAPS:
        raise KeyMapError(f"{base!r} is not a key map ({', '.join(KEYMAPS)})")
    named: dict[str, str] = {}  # button -> the key name that names it
    wanted: dict[int, str | None] = {}
    for key, value in changes.items():
        code = key_code(key)
        if code is None:
            raise KeyMapError(f"{key!r} is no key; keys are named as bornes scan-test --buttons shows them "
                              "(KPENTER, KP0, F13, 1, SPACE…)", key)
        button = button_name(value) if isinstance(value, str) else None
        if isinstance(value, str) and value.strip().lower() == NO_BUTTON:
            wanted[code] = None
            continue
        if button is None:
            raise KeyMapError(f"{value!r} is not a button ({', '.join(CONTROL_NAMES)}, SEAT1-SEAT8 or none)", key)
        if button in named:
            raise KeyMapError(f"names {button} twice ({named[button]} and {key}): give each button one key", key)
        named[button] = key
        wanted[code] = button
    pairs = {code: button for code, button in KEYMAPS[base].pairs if button not in named and code not in wanted}
    pairs.update({code: button for code, button in wanted.items() if button is not None})
    for button in CONTROL_NAMES:
        if button not in pairs.values():
            old = KEYMAPS[base].key_of(button)
            why = f" ({key_name(old)} is {wanted[old] or NO_BUTTON} now)" if old is not None and old in wanted else ""
            raise KeyMapError(f"leaves {button} without a key{why}: every button of the table needs one")
    return KeyMap(base if not changes else f"{base}, changed", tuple(sorted(pairs.items(), key=_button_order)))


@dataclass(frozen=True, slots=True)
class Hold:
    """What holding a key sends (``sends``, the key's own button for a long press of it) and after how long."""

    sends: str
    seconds: float


#: The holds of the shipped pin map (wiring/pins.toml; a test keeps them equal): OK shows the
#: legend, BACK ends a hand nobody can finish, UNDO takes back further.
DEFAULT_HOLDS: Mapping[str, Hold] = {"OK": Hold("OK", 1.0), "BACK": Hold("BACK", 1.0), "UNDO": Hold("UNDO", 1.5)}


def holds_of(pin_map: PinMap | None) -> dict[str, Hold]:
    """The holds a table's buttons have: the pin map's ``long`` and ``hold_time`` for each button it
    lists (one place to tune them, GPIO buttons or keys), the defaults for the others."""
    holds = dict(DEFAULT_HOLDS)
    for spec in pin_map.buttons if pin_map is not None else ():
        if spec.long is None:
            holds.pop(spec.name, None)
        else:
            holds[spec.name] = Hold(spec.long, spec.hold_time)
    return holds


@dataclass(frozen=True, slots=True)
class KeypadProblem:
    """A key that pressed nothing: ``unknown-key`` (detail: :func:`key_said`) or ``keys-at-once``."""

    kind: str
    detail: str


@dataclass(slots=True)
class _Down:
    code: int
    button: str | None  # None: a key the map does not use
    down: float
    up: float | None = None
    done: bool = False  # its press went out, or it was dropped


class KeypadDecoder:
    """Key events -> button presses, with holds; pure, incremental, bounded.

    :meth:`feed` takes evdev events (their kernel timestamps), :meth:`poll` says what is due at
    ``now`` on the same clock (a hold reached while the key is still down), :meth:`next_deadline`
    when to poll next. ``stats.good`` counts presses sent.
    """

    def __init__(self, keymap: KeyMap, holds: Mapping[str, Hold] | None = None) -> None:
        from bornes.drivers.readers.base import DecoderStats  # the readers' counters (loads the readers' package)

        self.keymap = keymap
        self.holds = dict(DEFAULT_HOLDS if holds is None else holds)
        self.stats = DecoderStats()
        self.bursts = 0
        self._buttons = keymap.buttons
        self._down: dict[int, _Down] = {}
        self._last_down: float | None = None
        self._quiet_from = float("-inf")

    def reset(self) -> None:
        """After a reconnect: the keys held are gone with the device."""
        self._down.clear()
        self._last_down = None
        self._quiet_from = float("-inf")

    def feed(self, events: Iterable[KeyEvent]) -> list[ButtonPressed | KeypadProblem]:
        out: list[ButtonPressed | KeypadProblem] = []
        for event in events:
            if event.type != EV_KEY or event.value == KEY_REPEAT:
                continue
            when = event.timestamp()
            out += self.poll(when)  # a hold reached before this key moved
            if event.value == KEY_DOWN:
                out += self._key_down(event.code, when)
            elif event.value == KEY_UP and event.code in self._down:
                held = self._down[event.code]
                held.up = when if held.up is None else held.up
        return out

    def poll(self, now: float) -> list[ButtonPressed | KeypadProblem]:
        """Presses due at ``now``: sure ones (:data:`BURST_GAP` after their key), holds, releases."""
        out: list[ButtonPressed | KeypadProblem] = []
        for code, held in list(self._down.items()):
            if not held.done and now >= held.down + BURST_GAP:
                out += self._decide(held, now)
            if held.done and held.up is not None:
                del self._down[code]
        return out

    def next_deadline(self) -> float | None:
        """When :meth:`poll` next has something to decide, or None while no key waits."""
        times = []
        for held in self._down.values():
            if held.done:
                continue
            sure = held.down + BURST_GAP
            hold = self.holds.get(held.button or "")
            if hold is not None and held.up is None:
                times.append(max(sure, held.down + hold.seconds))
            else:
                times.append(sure)
        return min(times) if times else None

    def _key_down(self, code: int, when: float) -> list[ButtonPressed | KeypadProblem]:
        burst = self._last_down is not None and when - self._last_down < BURST_GAP
        gap = when - self._last_down if self._last_down is not None else 0.0
        self._last_down = when
        if burst or when < self._quiet_from:
            started = when >= self._quiet_from  # the first key down of this burst that is too soon
            self._quiet_from = when + BURST_QUIET
            for held in self._down.values():  # the keys before it were part of it: none was a press
                held.done = True
            if not started:
                return []
            self.bursts += 1
            return [KeypadProblem("keys-at-once", f"two keys {gap * 1000:.0f} ms apart: one key at a time "
                                                  "(or is buttons.port a scanner?)")]
        old = self._down.get(code)
        if old is not None and old.up is None:
            return []  # a second down without an up: the device lost an event; keep the first
        self._down[code] = _Down(code, self._buttons.get(code), when)
        return []

    def _decide(self, held: _Down, now: float) -> list[ButtonPressed | KeypadProblem]:
        if held.button is None:
            held.done = True
            return [KeypadProblem("unknown-key", key_said(held.code))]
        hold = self.holds.get(held.button)
        pressed_for = (held.up if held.up is not None else now) - held.down
        if hold is None or (held.up is not None and pressed_for < hold.seconds):
            held.done = True
            self.stats.good += 1
            return [ButtonPressed(held.button)]
        if pressed_for >= hold.seconds:
            held.done = True
            self.stats.good += 1
            return [ButtonPressed(hold.sends, long=hold.sends == held.button)]
        return []  # held, not yet for the hold time: wait


def typed_key(keymap: KeyMap, word: str) -> int | None:
    """The key a word typed on a laptop names, for ``bornes run --emulate`` on a keypad table: by what is
    printed on a key of the map (``+``, ``0``, ``Enter``, in any case), by its kernel name (``KP0``,
    ``kpenter``), else any key by its kernel name (``9``, ``F5``: a key of no button); None: no key.
    Button names (``ok``, ``next``, ``undo``…) are never keys here, though the kernel has KEY_NEXT and
    KEY_UNDO: typed, they stay the buttons they always were."""
    if button_name(word) is not None:
        return None
    folded = word.casefold()
    for code, _button in keymap.pairs:
        if folded in (key_label(code).casefold(), key_name(code).casefold()):
            return code
    return key_code(word)


def typed_press(keymap: KeyMap, holds: Mapping[str, Hold], line: str) -> ButtonPressed | KeypadProblem | None:
    """What the keypad would send for the key a line names (``+``, ``enter``; ``long enter`` held past
    its hold time), as :class:`KeypadDecoder` would decide it: the key's button, the hold's button for
    a held key, or ``unknown-key`` for a key of no button. None: the line names no key (a card code, a
    button's name, a word): the table reads it as it reads any typed line."""
    words = line.strip().split()
    held = len(words) == 2 and words[0].casefold() == "long"
    if len(words) != (2 if held else 1):
        return None
    code = typed_key(keymap, words[-1])
    if code is None:
        return None
    button = keymap.button(code)
    if button is None:
        return KeypadProblem("unknown-key", key_said(code))
    hold = holds.get(button)
    if not held or hold is None:  # a key of no hold sends its press however long it is held
        return ButtonPressed(button)
    return ButtonPressed(hold.sends, long=hold.sends == button)


class KeypadLink:
    """The reader thread's loop body for a keypad: read keys, wait no longer than the next hold."""

    def __init__(self, decoder: KeypadDecoder, read_timeout: float = 1.0) -> None:
        self.decoder = decoder
        self.read_timeout = read_timeout
        self.clock: Callable[[], float] = time.monotonic

    @property
    def stats(self) -> DecoderStats:
        return self.decoder.stats

    def start(self, port: Any, sink: Any) -> None:
        self.decoder.reset()
        self.clock = getattr(port, "clock", time.monotonic)  # the clock the device stamps its events with

    def step(self, port: Any, sink: Any) -> None:
        deadline = self.decoder.next_deadline()
        timeout = self.read_timeout if deadline is None else max(0.0, min(self.read_timeout, deadline - self.clock()))
        out = self.decoder.feed(port.read_events(timeout))
        out += self.decoder.poll(self.clock())
        for item in out:
            if isinstance(item, ButtonPressed):
                sink.emit(item)
            else:
                sink.problem(item.kind, item.detail)


def open_keypad(
    port: str,
    events: queue.Queue[Any],
    keymap: KeyMap,
    holds: Mapping[str, Hold] | None = None,
    *,
    max_backoff: float = 1.0,
    serial_factory: SerialFactory | None = None,
    monotonic: Callable[[], float] = time.monotonic,
) -> SerialReader:
    """Start the keypad's thread (``port``: ``/dev/input/by-id/…`` or ``vvvv:pppp``); ``close()`` stops
    it and releases the device. Its presses go on ``events`` as ``ButtonPressed``."""
    from bornes.drivers.readers.serial_reader import SerialReader

    if serial_factory is None:
        from bornes.drivers.readers.hid_device import HidPort

        def serial_factory(name: str, baudrate: int, timeout: float) -> HidPort:
            return HidPort(name, accept=keymap.accepts)  # the first device with a key of the map

    reader = SerialReader(port, events, KeypadLink(KeypadDecoder(keymap, holds)), baudrate=0, name=KEYPAD,
                          max_backoff=max_backoff, monotonic=monotonic, serial_factory=serial_factory)
    return reader.start()
