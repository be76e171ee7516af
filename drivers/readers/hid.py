"""Keyboard-mode (HID) readers: key codes in, payloads out, for the scanner's keyboard layout.

A USB barcode scanner or 125 kHz RFID reader in keyboard mode "types" what it reads and presses
Enter (or Tab). The kernel reports *key positions* (evdev key codes), not characters, so a
scanner set to French AZERTY sends ``MB-D100-07`` as key codes that a US map reads as
``:B6D!))6)&``. :class:`HidDecoder` turns key events into payloads for one layout (``us``,
``fr``, ``de``) or finds the layout by itself (``auto``): every payload the referee accepts
starts ``MB-`` or is a tag number, and the three maps never agree on ``M`` and ``-``.

Pure and incremental like the serial decoders: events in, readings and problems out, no I/O
and no clock of its own (the events carry the kernel's timestamps). The numbers below are the
kernel's key codes (``linux/input-event-codes.h``, a stable ABI, in ``drivers/keys.py``); tests
check them against python-evdev's ``ecodes``, so this module does not import evdev and a table without a
keyboard-mode reader never loads it.
"""

from __future__ import annotations

import itertools
import re
import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from bornes.drivers.keys import EV_KEY, KEY_CODES, KEY_DOWN, KEY_REPEAT, KeyEvent
from bornes.drivers.parts import HID_LAYOUTS
from bornes.drivers.readers.base import DecoderStats, Reading

#: evdev's synchronisation events: the end of a packet, and the kernel's word that it dropped events
#: because this reader read too late (its buffer overflowed).
EV_SYN = 0
SYN_REPORT, SYN_DROPPED = 0, 3

#: The kernel's key codes by their ``KEY_`` names (drivers/keys.py holds the one table; tests check
#: it against ``evdev.ecodes``).
KEYS: Mapping[str, int] = {f"KEY_{name}": code for name, code in KEY_CODES.items()}
K = KEYS

SHIFTS = frozenset({K["KEY_LEFTSHIFT"], K["KEY_RIGHTSHIFT"]})
#: Ctrl, Alt, AltGr, Meta: a scanner that holds one is sending something no label holds.
OTHER_MODIFIERS = frozenset({K["KEY_LEFTCTRL"], K["KEY_RIGHTCTRL"], K["KEY_LEFTALT"], K["KEY_RIGHTALT"],
                             K["KEY_LEFTMETA"], K["KEY_RIGHTMETA"]})
TERMINATORS = frozenset({K["KEY_ENTER"], K["KEY_KPENTER"], K["KEY_TAB"]})
LOCKS = frozenset({K["KEY_CAPSLOCK"], K["KEY_NUMLOCK"], K["KEY_SCROLLLOCK"]})

#: The keypad types the same characters in every layout. Its digits are read as digits whether
#: or not Num Lock is on: the grabbed reader has no cursor to move, and scanners that "type
#: digits on the keypad" assume Num Lock on whatever the host's state.
KEYPAD: Mapping[int, str] = {
    K["KEY_KP0"]: "0", K["KEY_KP1"]: "1", K["KEY_KP2"]: "2", K["KEY_KP3"]: "3", K["KEY_KP4"]: "4",
    K["KEY_KP5"]: "5", K["KEY_KP6"]: "6", K["KEY_KP7"]: "7", K["KEY_KP8"]: "8", K["KEY_KP9"]: "9",
    K["KEY_KPMINUS"]: "-", K["KEY_KPPLUS"]: "+", K["KEY_KPASTERISK"]: "*", K["KEY_KPSLASH"]: "/",
    K["KEY_KPDOT"]: ".",
}

_LETTER_ROWS = [f"KEY_{letter}" for letter in "QWERTYUIOPASDFGHJKLZXCVBNM"]  # the US letter keys, in rows
_DIGIT_KEYS = [f"KEY_{d}" for d in "1234567890"]


def _layout(letters: str, digits: tuple[str, str], others: Mapping[str, tuple[str, str]]) -> dict[int, tuple[str, str]]:
    """A layout: key code -> (unshifted, shifted). ``letters`` are the letters on the US letter
    keys, in US order; ``digits`` the number row unshifted and shifted; '' is a dead key."""
    table: dict[int, tuple[str, str]] = {}
    for name, letter in zip(_LETTER_ROWS, letters, strict=True):
        table[K[name]] = (letter, letter.upper())
    for name, plain, shifted in zip(_DIGIT_KEYS, digits[0], digits[1], strict=True):
        table[K[name]] = (plain, shifted)
    for name, pair in others.items():
        table[K[name]] = pair
    table[K["KEY_SPACE"]] = (" ", " ")
    return table


#: The Linux console/X11 maps of each layout (``us``, ``fr``, ``de``), for the keys a label needs.
LAYOUTS: Mapping[str, Mapping[int, tuple[str, str]]] = {
    "us": _layout(
        "qwertyuiopasdfghjklzxcvbnm", ("1234567890", "!@#$%^&*()"),
        {"KEY_MINUS": ("-", "_"), "KEY_EQUAL": ("=", "+"), "KEY_LEFTBRACE": ("[", "{"),
         "KEY_RIGHTBRACE": ("]", "}"), "KEY_SEMICOLON": (";", ":"), "KEY_APOSTROPHE": ("'", '"'),
         "KEY_GRAVE": ("`", "~"), "KEY_BACKSLASH": ("\\", "|"), "KEY_COMMA": (",", "<"),
         "KEY_DOT": (".", ">"), "KEY_SLASH": ("/", "?"), "KEY_102ND": ("<", ">")},
    ),
    "fr": _layout(
        "azertyuiopqsdfghjklwxcvbn,", ("&é\"'(-è_çà", "1234567890"),
        {"KEY_M": (",", "?"), "KEY_MINUS": (")", "°"), "KEY_EQUAL": ("=", "+"), "KEY_LEFTBRACE": ("", ""),
         "KEY_RIGHTBRACE": ("$", "£"), "KEY_SEMICOLON": ("m", "M"), "KEY_APOSTROPHE": ("ù", "%"),
         "KEY_GRAVE": ("²", ""), "KEY_BACKSLASH": ("*", "µ"), "KEY_COMMA": (";", "."),
         "KEY_DOT": (":", "/"), "KEY_SLASH": ("!", "§"), "KEY_102ND": ("<", ">")},
    ),
    "de": _layout(
        "qwertzuiopasdfghjklyxcvbnm", ("1234567890", "!\"§$%&/()="),
        {"KEY_MINUS": ("ß", "?"), "KEY_EQUAL": ("", ""), "KEY_LEFTBRACE": ("ü", "Ü"),
         "KEY_RIGHTBRACE": ("+", "*"), "KEY_SEMICOLON": ("ö", "Ö"), "KEY_APOSTROPHE": ("ä", "Ä"),
         "KEY_GRAVE": ("", "°"), "KEY_BACKSLASH": ("#", "'"), "KEY_COMMA": (",", ";"),
         "KEY_DOT": (".", ":"), "KEY_SLASH": ("-", "_"), "KEY_102ND": ("<", ">")},
    ),
}
#: Every key code some layout (or the keypad) types a character with: anything else spoils a code.
_TYPED: frozenset[int] = frozenset(KEYPAD).union(*LAYOUTS.values())
LAYOUT_NAMES: Mapping[str, str] = {"us": "US QWERTY", "fr": "French AZERTY", "de": "German QWERTZ"}
#: ``[reader] layout`` values: a layout, or ``auto`` to find it from the first card.
LAYOUT_CHOICES: tuple[str, ...] = HID_LAYOUTS
assert set(LAYOUT_CHOICES) == {"auto", *LAYOUTS}


# A scanner types a key every 2 to 20 ms (a low-speed USB reader polled every 10 ms needs two
# reports a key, four for a shifted one: 40 ms); a person takes 80 ms or more, even a fast typist.
SCANNER_GAP = 0.06  # median seconds between keys above which the keys were typed by hand
PAUSE_GAP = 1.0  # a key this long after the previous one starts afresh (a half-typed code is dropped)
MAX_KEYS = 64  # no payload is longer; a stuck key cannot grow memory
KEYS_LOST = "keys were lost (the reader was read too late): scan it again"
#: The refusals' words for keys that came too late to be one scan (tools/kernel/figures.py counts them by these).
TYPED_BY_HAND = "ms apart: typed by hand, not scanned"
NO_ENTER = "keys with no Enter after them"

_EM4100_NUMBER = re.compile(r"\d{10}")
_TAG_HEX = re.compile(r"[0-9A-Fa-f]{8,20}")
_PAYLOAD = re.compile(r"MB-[A-Z0-9-]{1,40}")


@dataclass(frozen=True, slots=True)
class HidProblem:
    """A payload refused: ``kind`` is ``typing`` (keys at human speed), ``garbled`` or ``layout``."""

    kind: str
    detail: str


@dataclass(frozen=True, slots=True)
class _Key:
    code: int
    shift: bool
    when: float


def decode_keys(keys: Iterable[tuple[int, bool]], layout: str, caps: bool = False) -> str | None:
    """The text ``(code, shift)`` key presses type in ``layout`` with Caps Lock ``caps``; None if a
    key types nothing printable there (a dead key, a key the layout does not have)."""
    table = LAYOUTS[layout]
    out = []
    for code, shift in keys:
        if code in KEYPAD:
            out.append(KEYPAD[code])
            continue
        pair = table.get(code)
        if pair is None:
            return None
        plain, shifted = pair
        if caps and plain != shifted and plain.upper() == shifted:  # Caps Lock: letter keys only
            shift = not shift
        char = shifted if shift else plain
        if not char:
            return None
        out.append(char)
    return "".join(out)


def plausible(text: str) -> bool:
    """A payload some reader sends: a card or control code, a tag number, or a tag UID."""
    upper = text.strip().upper()
    return bool(_PAYLOAD.fullmatch(upper) or _EM4100_NUMBER.fullmatch(upper) or _TAG_HEX.fullmatch(upper))


def to_reading(text: str) -> Reading:
    """``MB-…`` stays a payload; the 10-digit number a USB EM4100 reader types is the tag's 32-bit
    number, read as the UID's last 8 hex digits (what a serial EM4100 reader reports after its
    version byte, so one enrolment serves both); other hex is a UID as it is."""
    upper = text.strip().upper()
    if upper.startswith("MB-"):
        return Reading(upper)
    if _EM4100_NUMBER.fullmatch(upper) and int(upper) < 2**32:
        return Reading(f"{int(upper):08X}", is_uid=True)
    return Reading(upper, is_uid=True)


def keys_for(text: str, layout: str) -> list[tuple[int, bool]]:
    """The (code, shift) presses a scanner set to ``layout`` sends for ``text`` (tests, bench)."""
    table = LAYOUTS[layout]
    found: dict[str, tuple[int, bool]] = {}
    for code, (plain, shifted) in table.items():
        for char, shift in ((plain, False), (shifted, True)):
            if char and char not in found:
                found[char] = (code, shift)
    keys = []
    for char in text:
        if char not in found:
            raise ValueError(f"{char!r} cannot be typed in the {layout} layout")
        keys.append(found[char])
    return keys


class HidDecoder:
    """Key events -> payloads for one keyboard layout, or ``auto`` (found from the first code).

    Shift is followed per key (scanners press and release it around each capital), Caps Lock and
    Num Lock presses toggle their state, Enter, keypad Enter or Tab ends a payload. Key repeats
    are ignored. A payload typed at human speed, with Ctrl/Alt held, or that reads as no card or
    tag in any possible layout is refused as a :class:`HidProblem`, never passed on as a card.
    """

    def __init__(self, layout: str = "auto", *, caps_lock: bool = False, num_lock: bool = True) -> None:
        if layout not in LAYOUT_CHOICES:
            raise ValueError(f"unknown keyboard layout {layout!r}; choose one of {', '.join(LAYOUT_CHOICES)}")
        self.configured = layout
        self.layout: str | None = None if layout == "auto" else layout  # the layout in use once known
        self.stats = DecoderStats()
        self.refused = 0
        self.caps_lock = caps_lock
        self.num_lock = num_lock
        self._initial_locks = (caps_lock, num_lock)
        self._shift: set[int] = set()
        self._other: set[int] = set()
        self._keys: list[_Key] = []
        self._spoilt = False  # a key in this payload that no layout types (Ctrl held, F-key…)
        self._lost = False  # the kernel dropped events in this payload (SYN_DROPPED): keys are missing
        self._skipping = False  # after SYN_DROPPED, up to the next SYN_REPORT: events of a broken packet
        self.dropped = 0  # SYN_DROPPED seen: the reader thread read too late and the kernel's buffer overflowed
        self._last = 0.0  # the last key press
        self._latest = 0.0  # the last event of any kind, SYN_DROPPED included

    def reset(self) -> None:
        """After a reconnect: the half-typed code and the held keys are gone with the device."""
        self._shift.clear()
        self._other.clear()
        self._keys.clear()
        self._spoilt = self._lost = self._skipping = False
        self.caps_lock, self.num_lock = self._initial_locks

    def feed(self, events: Iterable[KeyEvent]) -> list[Reading | HidProblem]:
        out: list[Reading | HidProblem] = []
        for event in events:
            self._latest = event.timestamp()
            if event.type == EV_SYN:
                self._sync(event.code)
                continue
            if event.type != EV_KEY or event.value == KEY_REPEAT or self._skipping:
                continue
            code, down, when = event.code, event.value == KEY_DOWN, event.timestamp()
            if code in SHIFTS:
                (self._shift.add if down else self._shift.discard)(code)
                continue
            if code in OTHER_MODIFIERS:
                (self._other.add if down else self._other.discard)(code)
                continue
            if not down:
                continue
            if self._keys and when - self._last > PAUSE_GAP:  # a code left half-typed: drop it
                out.append(self._refuse("garbled", f"{len(self._keys)} {NO_ENTER}"))
            self._last = when
            if code == K["KEY_CAPSLOCK"]:
                self.caps_lock = not self.caps_lock
            elif code == K["KEY_NUMLOCK"]:
                self.num_lock = not self.num_lock
            elif code in LOCKS:
                pass
            elif code in TERMINATORS:
                if self._keys or self._lost:
                    out.append(self._finish())
            elif len(self._keys) >= MAX_KEYS:
                self.stats.overflows += 1
                self._spoilt = True
            else:
                if self._other or code not in _TYPED:
                    self._spoilt = True
                self._keys.append(_Key(code, bool(self._shift), when))
        return out

    def poll(self, now: float) -> list[HidProblem]:
        """A code the kernel's drop touched, refused once the reader has been quiet for
        :data:`PAUSE_GAP` (``now`` on the events' clock). The drop may have taken the code's Enter;
        without this the player would hear nothing until the next scan. No scanner pauses that long
        inside a code, so nothing after this belongs to the broken one. A half-typed code with no
        drop waits for its next key, as before: only a drop says for sure that keys are missing."""
        if self._lost and now - self._latest > PAUSE_GAP:
            self._skipping = False  # the broken packet is long over: the next event starts a new one
            return [self._refuse("garbled", KEYS_LOST)]
        return []

    def _sync(self, code: int) -> None:
        """The kernel's buffer for this reader overflowed (SYN_DROPPED): some keys of the code being
        typed, maybe its Enter, are gone. A code with a key missing can read as another card
        (``MB-D100-01`` without its last 1), so the codes the loss touched are refused, never guessed:
        the one in progress and, as its Enter may be lost too, everything up to the next Enter. The
        events up to the next SYN_REPORT belong to the broken packet and are skipped (the evdev
        protocol); Shift and Ctrl are taken as released, as a scanner releases them after every key."""
        if code == SYN_DROPPED:
            self.dropped += 1
            self._lost = self._skipping = True
            self._shift.clear()
            self._other.clear()
        elif code == SYN_REPORT:
            self._skipping = False

    def _refuse(self, kind: str, detail: str) -> HidProblem:
        self.refused += 1  # not garbage_bytes: the reader thread would report the same payload twice
        self._keys.clear()
        self._spoilt = self._lost = False
        return HidProblem(kind, detail)

    def _finish(self) -> Reading | HidProblem:
        keys = self._keys
        if self._lost:
            return self._refuse("garbled", KEYS_LOST)
        if len(keys) > 1:
            gap = statistics.median(b.when - a.when for a, b in itertools.pairwise(keys))
            if gap > SCANNER_GAP:
                return self._refuse("typing", f"keys came {gap * 1000:.0f} {TYPED_BY_HAND}")
        if self._spoilt:
            return self._refuse("garbled", "a key no label holds (Ctrl, Alt or a function key)")
        presses = [(k.code, k.shift) for k in keys]
        candidates = [self.layout] if self.layout is not None else list(LAYOUTS)
        readings: dict[str, str] = {}
        for name in candidates:
            text = decode_keys(presses, name, self.caps_lock)
            if text is not None and plausible(text):
                readings[name] = text.strip().upper()
        if not readings:
            shown = decode_keys(presses, self.layout or "us", self.caps_lock) or "?"
            where = LAYOUT_NAMES[self.layout] if self.layout else "any layout"
            return self._refuse("garbled", f"{shown[:24]!r} is no card code or tag number in {where}")
        texts = set(readings.values())
        if len(texts) > 1:
            return self._refuse("layout", "the keyboard layout is unclear: scan the layout test label")
        text = texts.pop()
        if self.layout is None and text.startswith("MB-"):
            self.layout = next(iter(readings)) if len(readings) == 1 else None  # M and - pin it down
        self._keys = []
        self._spoilt = False
        self.stats.good += 1
        return to_reading(text)
