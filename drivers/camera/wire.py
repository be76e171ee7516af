"""What the referee and its camera process say to each other: the settings, and one JSON line per message.

The camera runs in a process of its own (``bornes camera-reader``) so that numpy and OpenCV (about
42 MB resident) never load into the referee. The referee starts it with :meth:`CameraSettings.argv`,
reads its messages from a pipe (one JSON object a line, :func:`encode` / :func:`decode`), and writes
it commands on its standard input (``teach KIND,KIND…``, ``watch``); the end of that input means
the referee is gone, and the camera process ends too.

Standard library only: the referee imports this module, never the recognizer.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bornes.drivers.parts import CAMERA_SOURCES

#: Frames a second asked of the camera. The watcher's rules are in seconds (drivers/camera/watch.py): 5 to 15
#: read the same plays; fewer frames cost a Pi less.
CAMERA_FPS = 10
#: A message line longer than this is not one of ours (a camera process gone mad must not fill memory).
MAX_LINE = 64 * 1024


@dataclass(frozen=True, slots=True)
class CameraSettings:
    """One camera: where its frames come from, the part of them that is the play zone, its templates."""

    source: str = "v4l2"  # one of CAMERA_SOURCES
    device: str = "/dev/video0"  # v4l2: a device node; picamera2: the camera's number; folder: a folder or a video
    width: int = 640
    height: int = 480
    fps: int = CAMERA_FPS
    #: The play zone in the frame: x, y, width, height in pixels; empty: the whole frame.
    zone: tuple[int, ...] = ()
    #: The folder of the taught faces (``templates.json`` and its PNGs).
    templates: str = "/var/lib/bornes/camera"

    def __post_init__(self) -> None:
        if self.source not in CAMERA_SOURCES:
            raise ValueError(f"unknown camera source {self.source!r}; choose one of {', '.join(CAMERA_SOURCES)}")
        if self.zone and (len(self.zone) != 4 or min(self.zone) < 0 or min(self.zone[2:]) < 1):
            raise ValueError(f"a zone is x, y, width, height, not {list(self.zone)}")

    def describe(self) -> str:
        what = {"v4l2": "webcam", "picamera2": "Pi camera", "folder": "frames from"}[self.source]
        return f"{what} {self.device}"

    def argv(self, program: Sequence[str] | None = None) -> list[str]:
        """The command that runs this camera's process (``bornes camera-reader`` in this Python)."""
        words = list(program) if program is not None else [sys.executable, "-m", "bornes.firmware.cli"]
        words += ["camera-reader", "--source", self.source, "--device", self.device, "--size",
                  f"{self.width}x{self.height}", "--fps", str(self.fps), "--templates", self.templates]
        if self.zone:
            words += ["--zone", ",".join(map(str, self.zone))]
        return words

    @property
    def templates_index(self) -> Path:
        return Path(self.templates) / "templates.json"


# -- the messages, camera process to referee ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Back:
    """The camera gives frames (at start, or again after it was lost)."""

    source: str


@dataclass(frozen=True, slots=True)
class Lost:
    """The camera stopped giving frames (unplugged, gone): the process tries again by itself."""

    detail: str


@dataclass(frozen=True, slots=True)
class Unusable:
    """The camera cannot work until a person acts (not taught, no such source, a zone outside the frame):
    the process ends; the referee starts it again when the templates change, or after a long wait."""

    detail: str


@dataclass(frozen=True, slots=True)
class Seen:
    """A card was played: its kind code (``D100``), and the frame that decided it."""

    kind: str
    frame: str


@dataclass(frozen=True, slots=True)
class Unsure:
    """A card was shown but is not clearly one kind: show it again."""

    frame: str
    reason: str
    best: str | None = None
    runner_up: str | None = None


@dataclass(frozen=True, slots=True)
class BadFrame:
    """The first of a run of bad frames: ``fault`` is black, overexposed, size or unreadable."""

    frame: str
    fault: str
    detail: str


@dataclass(frozen=True, slots=True)
class Unsteady:
    """The camera has not seen a steady picture for 2 s, a status that lasts until :class:`Steady`. ``reason`` is
    ``unsteady`` (a light wavering beyond what it follows, the camera knocked about) or the fault of a run
    of bad frames (``black``, ``overexposed``, ``size``, ``unreadable``); ``detail`` says it in a line."""

    frame: str
    reason: str
    detail: str


@dataclass(frozen=True, slots=True)
class Steady:
    """The picture has been steady again for a second: the camera sees (the end of an :class:`Unsteady`)."""

    frame: str


@dataclass(frozen=True, slots=True)
class Teaching:
    """News of a teaching (the owner shows each kind in turn): ``step`` is

    * ``show``: show ``kind`` now (``index`` of ``total``);
    * ``shot``: a still shot of ``kind`` was taken (``index`` of ``total`` shots);
    * ``no-card``: a still scene with no card found in it (two cards, a hand left on it);
    * ``taught``: every kind was shown; ``detail`` is the check's line, ``alike`` the kinds that look alike;
    * ``failed``: the teaching could not be kept (``detail`` says why); the old templates stay.
    """

    step: str
    kind: str | None = None
    index: int = 0
    total: int = 0
    detail: str = ""
    alike: tuple[tuple[str, str], ...] = ()


Message = Back | Lost | Unusable | Seen | Unsure | BadFrame | Unsteady | Steady | Teaching

_TYPES: dict[str, type[Message]] = {"back": Back, "lost": Lost, "unusable": Unusable, "seen": Seen,
                                   "unsure": Unsure, "bad-frame": BadFrame, "unsteady": Unsteady, "steady": Steady,
                                   "teaching": Teaching}
_NAMES = {cls: name for name, cls in _TYPES.items()}


def encode(message: Message) -> bytes:
    """One message as a line of JSON: ``{"type": "seen", "kind": "D100", "frame": "000123"}``."""
    fields = {name: getattr(message, name) for name in message.__slots__}
    return (json.dumps({"type": _NAMES[type(message)], **fields}, ensure_ascii=False) + "\n").encode()


class WireError(ValueError):
    """A line that is not one of our messages."""


def decode(line: bytes) -> Message:
    """A line back into its message; :class:`WireError` for anything else (it is logged, never acted on)."""
    if len(line) > MAX_LINE:
        raise WireError(f"a line of {len(line)} bytes")
    try:
        data = json.loads(line)
    except ValueError as error:
        raise WireError(f"not JSON: {error}") from None
    if not isinstance(data, dict) or data.get("type") not in _TYPES:
        raise WireError(f"not a message: {line[:80]!r}")
    cls = _TYPES[data.pop("type")]
    if cls is Teaching and "alike" in data:
        alike = data["alike"]
        if not isinstance(alike, list) or not all(isinstance(p, list) and len(p) == 2 for p in alike):
            raise WireError(f"look-alike kinds are pairs, not {alike!r}")
        data["alike"] = tuple((str(a), str(b)) for a, b in alike)
    try:
        message = cls(**data)
    except TypeError as error:
        raise WireError(f"{cls.__name__}: {error}") from None
    for name in cls.__slots__:
        value = getattr(message, name)
        if not isinstance(value, str | int | tuple | None) or isinstance(value, bool):
            raise WireError(f"{cls.__name__}.{name} = {value!r}")
    return message


# -- the commands, referee to camera process ------------------------------------------------------------


def teach_command(kinds: Sequence[str]) -> bytes:
    """Teach these kinds (all of them: the 19 codes), one after the other, from the panel."""
    return ("teach " + ",".join(kinds) + "\n").encode()


WATCH_COMMAND = b"watch\n"  # stop teaching (the old templates stay) and read plays again
