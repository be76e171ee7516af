"""Input events: the only thing hardware code produces.

Drivers (readers, buttons) put these on one ``queue.Queue``; the referee loop in
``firmware`` is the only consumer. Drivers never call the engine. Every event is a small
frozen value with a one-line ``describe()`` for logs and ``bornes scan-test``.
"""

from __future__ import annotations

import enum
import errno
import os
import re
from dataclasses import dataclass

from bornes.engine.cards import Card, CardKind

CONTROL_NAMES: tuple[str, ...] = ("CF", "DISCARD", "UNDO", "OK", "NEXT", "BACK")
#: The ``reader`` name of a USB keypad's lost/back events (drivers/keypad.py): the table's buttons, not a reader.
KEYPAD = "keypad"
#: The ``reader`` name of the wired buttons' lost/back events (drivers/wired.py): their GPIO chip went or came.
BUTTONS = "buttons"


def _part(reader: str) -> str:
    """What a lost/back event is about, as its log line says it: the keypad, the buttons, or a reader."""
    return reader if reader in (KEYPAD, BUTTONS) else "reader"
_SEAT_BUTTON = re.compile(r"SEAT([1-8])")


def seat_of_button(name: str) -> int | None:
    """``SEAT3`` → seat index 2; anything else → None (ASCII digits only)."""
    match = _SEAT_BUTTON.fullmatch(name.upper())
    return int(match.group(1)) - 1 if match else None


def button_name(text: str) -> str | None:
    """The button a word names (a control name or SEAT1–SEAT8), upper-cased, or None."""
    name = text.strip().upper()
    if name in CONTROL_NAMES or seat_of_button(name) is not None:
        return name
    return None


#: The places a pile pad may lie: a seat's own (``A``–``H``), the table's, the discard pile's.
PAD_SEATS = "ABCDEFGH"
PAD_PLACES: tuple[str, ...] = (*PAD_SEATS, "table", "discard")


def pad_place(text: str) -> str | None:
    """``b`` → ``B``, ``Table`` → ``table``; None if ``text`` names no pad place."""
    word = text.strip()
    if len(word) == 1 and word.upper() in PAD_SEATS:
        return word.upper()
    return word.lower() if word.lower() in ("table", "discard") else None


def pad_suffix(pad: str | None) -> str:
    return f" @{pad}" if pad else ""


@dataclass(frozen=True, slots=True)
class CardScanned:
    """A reader saw a known physical card."""

    card: Card
    raw: str
    reader: str = "reader"
    #: Where it was laid: a seat letter ``A``–``H``, ``table`` or ``discard`` (a pile pad), or
    #: None for a table with one reader. The flow reads the pile from it (docs/readers.md, Pads).
    pad: str | None = None

    def describe(self) -> str:
        return f"{self.card.code():<16} {self.card.describe()}{pad_suffix(self.pad)}"


@dataclass(frozen=True, slots=True)
class KindShown:
    """The camera read a card by what is printed on it: a kind, not a copy. The table gives it the first
    copy of that kind not yet seen this hand (docs/camera.md), so the journal holds an ordinary play."""

    kind: CardKind
    frame: str
    reader: str = "camera"
    pad: str | None = None

    def describe(self) -> str:
        return f"{self.kind.value:<16} {self.kind.title} (camera, frame {self.frame}){pad_suffix(self.pad)}"


@dataclass(frozen=True, slots=True)
class CameraTeaching:
    """News of the owner teaching the camera from the panel (docs/camera.md): ``step`` is ``show`` (show
    ``kind`` now, ``index`` of ``total``), ``shot`` (a still shot of it taken, ``index`` of ``total``),
    ``no-card`` (a still scene with no card found), ``taught`` (every kind shown: ``index`` of ``total``
    read back, ``alike`` the kinds that look alike) or ``failed`` (``detail`` says why)."""

    step: str
    kind: str | None = None
    index: int = 0
    total: int = 0
    detail: str = ""
    alike: tuple[tuple[str, str], ...] = ()
    reader: str = "camera"

    def describe(self) -> str:
        if self.step == "show":
            return f"teaching: show {self.kind} ({self.index}/{self.total})"
        if self.step == "shot":
            return f"teaching: shot {self.index}/{self.total} of {self.kind}"
        if self.step == "no-card":
            return f"teaching: no card found in the picture of {self.kind}"
        return f"teaching {self.step}: {self.detail}"


@dataclass(frozen=True, slots=True)
class ControlScanned:
    """A reader saw a control tag ``MB-CMD-<NAME>``; it stands in for a button."""

    name: str
    raw: str
    reader: str = "reader"
    pad: str | None = None

    def describe(self) -> str:
        return f"{self.raw:<16} control {self.name}{pad_suffix(self.pad)}"


class UnknownKind(enum.Enum):
    """Why a scan is not a card."""

    NOT_ENROLLED = "tag not enrolled"  # an RFID UID no binding knows: `bornes enroll` can bind it
    NOT_A_CARD_CODE = "not a card code"  # text that is no card code and no UID
    UNKNOWN_CONTROL = "unknown control"  # MB-CMD-<something that is no button>
    BAD_CARD_CODE = "bad card code"  # shaped like a card code (MB-...), but no card kind or copy reads from it


@dataclass(frozen=True, slots=True)
class UnknownScanned:
    """A reader decoded something that is not a card we know (or an unbound RFID UID).

    ``kind`` says why, for code to act on (``bornes enroll`` binds a NOT_ENROLLED tag);
    ``reason`` says it in words, for people and logs.
    """

    raw: str
    reason: str
    reader: str = "reader"
    kind: UnknownKind = UnknownKind.NOT_A_CARD_CODE
    pad: str | None = None

    def describe(self) -> str:
        return f"{self.raw:<16} unknown card ({self.reason}){pad_suffix(self.pad)}"


@dataclass(frozen=True, slots=True)
class ReaderProblem:
    """A reader-level notice the table should see: two tags at once, a checksum error, and so on."""

    kind: str  # "one-card-at-a-time", "checksum", "garbage", "nack"
    detail: str
    reader: str = "reader"

    def describe(self) -> str:
        return f"{self.kind}: {self.detail}"


class Failure(enum.StrEnum):
    """Why a device (a reader, a pad, the keypad, the camera, a bus) cannot be used, as the firmware words it
    in the table's language (``firmware/language/devices.py``): a kind a person can act on, never the
    system's own text (``No such file or directory``) unless no kind fits."""

    NOT_FOUND = "not-found"  # not there when opened: unplugged, or a wrong name in the config
    UNPLUGGED = "unplugged"  # went away while in use
    PERMISSION = "permission"  # there, but this user may not open it (its group, a udev rule)
    BUSY = "busy"  # another program holds it (a grab, an open port)
    NO_ANSWER = "no-answer"  # there, but it stopped answering (a cable, a bus, a dead device)
    OTHER = "other"  # none of these: the system's own words are all there is


#: The errno values each kind stands for; what a device reports, read as a person would act on it.
_KINDS_BY_ERRNO: dict[int, Failure] = {
    errno.ENOENT: Failure.NOT_FOUND, errno.ENODEV: Failure.NOT_FOUND, errno.ENXIO: Failure.NOT_FOUND,
    errno.EACCES: Failure.PERMISSION, errno.EPERM: Failure.PERMISSION,
    errno.EBUSY: Failure.BUSY,
    errno.EIO: Failure.NO_ANSWER, errno.ETIMEDOUT: Failure.NO_ANSWER, errno.EREMOTEIO: Failure.NO_ANSWER,
}


@dataclass(frozen=True, slots=True)
class DeviceFailure:
    """A device that cannot be used: the kind of failure and the device, as data; the firmware words it.

    ``system`` keeps the system's own text for logs (``describe()``, ``bornes scan-test``) and for
    :attr:`Failure.OTHER`, the one kind whose words are the system's. A driver makes one with
    :meth:`of` from the exception it caught; any driver may (the camera's, a bus's).
    """

    kind: Failure
    device: str
    system: str = ""
    #: It failed to open (True), or failed while in use.
    opening: bool = True

    @classmethod
    def of(cls, error: BaseException, device: str, *, opening: bool = True) -> DeviceFailure:
        """The failure an exception says: by the kind a driver's own error names (``failure_kind``), by its
        errno where it has one (pyserial's SerialException carries the errno of the open(2) that failed),
        else by pyserial's words for a port that went away while read (a USB serial adapter unplugged
        reads as "ready, but no data": no errno)."""
        code = getattr(error, "errno", None) if isinstance(error, OSError) else None
        text = str(error) or type(error).__name__
        said = getattr(error, "failure_kind", None)  # a driver's own error may say its kind (Pn532Timeout)
        if said is not None:
            kind = Failure(said)
        elif isinstance(code, int) and code > 0:
            text = os.strerror(code)  # "No such file or directory", not pyserial's nested repr
            kind = _KINDS_BY_ERRNO.get(code, Failure.OTHER)
        elif not opening and "disconnected" in text:
            kind = Failure.UNPLUGGED
        else:
            kind = Failure.OTHER
        if kind is Failure.NOT_FOUND and not opening:
            kind = Failure.UNPLUGGED  # it was there a moment ago
        return cls(kind, device, text.splitlines()[0][:160], opening)

    def __str__(self) -> str:
        """The technical line logs and ``bornes scan-test`` keep: the device and the system's own text."""
        said = self.system or self.kind.value
        return f"cannot open {self.device}: {said}" if self.opening else f"{self.device}: {said}"


@dataclass(frozen=True, slots=True)
class ReaderLost:
    """The reader went away (unplugged, device node gone, I/O error).

    ``detail`` is why: a :class:`DeviceFailure` (the firmware words it in the table's language), or a
    text a driver has no kind for, shown as it is."""

    detail: DeviceFailure | str
    reader: str = "reader"

    def describe(self) -> str:
        return f"{_part(self.reader)} lost: {self.detail}"


@dataclass(frozen=True, slots=True)
class ReaderBack:
    """The reader is connected again (or for the first time)."""

    port: str
    reader: str = "reader"

    def describe(self) -> str:
        return f"{_part(self.reader)} back on {self.port}"


@dataclass(frozen=True, slots=True)
class CameraBlind:
    """A reader status, like a reader lost: the camera has not seen a steady picture for 2 s (docs/camera.md).
    ``reason`` is ``unsteady`` (a light wavering beyond what it follows, the camera knocked about) or the
    fault of a run of bad frames (``black``: lens covered, lamp off; ``overexposed``; ``size``;
    ``unreadable``). It lasts until :class:`CameraSees` from the same ``reader``; cards are still read
    whenever a steady moment allows."""

    reason: str
    detail: str
    reader: str = "camera"

    def describe(self) -> str:
        return f"camera cannot see ({self.reason}): {self.detail}"


@dataclass(frozen=True, slots=True)
class CameraSees:
    """The end of a :class:`CameraBlind`: the picture has been steady for a second."""

    reader: str = "camera"

    def describe(self) -> str:
        return "camera sees again"


@dataclass(frozen=True, slots=True)
class ButtonPressed:
    """A button was pressed: one of CONTROL_NAMES, or ``SEAT<n>`` for an optional seat button."""

    name: str
    long: bool = False

    def describe(self) -> str:
        return f"button {self.name}{' (long)' if self.long else ''}"


@dataclass(frozen=True, slots=True)
class KeyTyped:
    """A line typed on the emulated table (``bornes run --emulate``): a card code or a button name."""

    text: str

    def describe(self) -> str:
        return f"typed {self.text!r}"


InputEvent = (
    CardScanned | KindShown | CameraTeaching | ControlScanned | UnknownScanned | ReaderProblem | ReaderLost
    | ReaderBack | CameraBlind | CameraSees | ButtonPressed | KeyTyped
)
