"""The chirps without a buzzer: the same patterns through the Pi's audio, or through the TV page.

The buzzer's patterns (:class:`bornes.drivers.feedback.Pattern`: notes, rests and their lengths)
are data, so they can be played anywhere:

* :class:`AlsaChirps` renders each pattern once as a WAV (the standard library's ``wave``: a sine
  with a little third harmonic, each note faded in and out over 4 ms so nothing clicks) and plays
  it with ALSA's ``aplay`` (Debian's ``alsa-utils``, on every Raspberry Pi OS): the TV's speakers
  over HDMI, or the headphone jack. No Python audio library, no server, nothing to build; a new
  pattern stops the one playing.
* :class:`PageSounds` writes the pattern's name beside the TV page's screen (``tv-sound.json``);
  ``bornes web`` passes it to the page, whose browser plays the same notes with Web Audio.

Both only start a sound and return: the feedback thread times the LEDs as before.
"""

from __future__ import annotations

import array
import contextlib
import io
import json
import logging
import math
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import wave
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

from bornes.drivers.errors import en_
from bornes.drivers.tvfile import SOUND_FORMAT, write_atomically

log = logging.getLogger(__name__)

RATE = 22050  # samples a second: the chirps reach G6 (1568 Hz) and its third harmonic, well under 11 kHz
LEVEL = 0.45  # of full scale: loud enough on a TV, never clipping
FADE = 0.004  # seconds of fade at each end of a note
_NOTES = {"C": -9, "D": -7, "E": -5, "F": -4, "G": -2, "A": 0, "B": 2}


class Step(Protocol):
    """A note (``"C6"``) or a rest (None), and how long: ``feedback.Step``."""

    @property
    def note(self) -> str | None: ...

    @property
    def seconds(self) -> float: ...


class Pattern(Protocol):
    """A named tune: ``feedback.Pattern`` (this module does not import it: the feedback imports this)."""

    @property
    def name(self) -> str: ...

    @property
    def steps(self) -> tuple[Step, ...]: ...


def frequency(note: str) -> float:
    """A note's pitch in Hz: ``"A4"`` is 440; ``"C#5"``/``"Db5"`` name the half steps."""
    name, octave = note[:-1], int(note[-1])
    steps = _NOTES[name[0].upper()] + name[1:].count("#") - name[1:].count("b") + 12 * (octave - 4)
    return 440.0 * 2 ** (steps / 12)


def samples(steps: Iterable[Step], rate: int = RATE) -> bytes:
    """The 16-bit little-endian mono samples of ``steps``: each note a faded tone, each rest silence."""
    out = array.array("h")
    scale = 32767 * LEVEL / 1.3  # the tone's peak is 1.3 (the fundamental and its third harmonic)
    fade = max(1, round(FADE * rate))
    for step in steps:
        count = round(step.seconds * rate)
        if step.note is None:
            out.extend([0] * count)
            continue
        w = 2 * math.pi * frequency(step.note) / rate
        sin = math.sin
        tone = [scale * (sin(w * n) + 0.3 * sin(3 * w * n)) for n in range(count)]
        for n in range(min(fade, count)):  # fade in and out: no click at either end
            tone[n] *= n / fade
            tone[count - 1 - n] *= n / fade
        out.extend(round(value) for value in tone)
    if sys.byteorder == "big":
        out.byteswap()
    return out.tobytes()


def wav(steps: Iterable[Step], rate: int = RATE) -> bytes:
    """A WAV file of ``steps``, as ``aplay`` reads it."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(samples(steps, rate))
    return buffer.getvalue()


def sound_card_problem() -> str | None:
    """Why the Pi's audio cannot play here, or None: no ``aplay``, or no sound card in ``/proc/asound``."""
    if shutil.which("aplay") is None:
        return en_("aplay is not installed (apt install alsa-utils)")
    try:
        cards = Path("/proc/asound/cards").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return en_("no ALSA here (/proc/asound/cards is missing)")
    if not cards.strip() or "no soundcards" in cards:
        return en_("no sound card (on a Pi: HDMI audio needs a screen plugged in at boot)")
    return None


class Chirps(Protocol):
    """What the feedback thread needs of a sound output."""

    def start(self, pattern: Pattern) -> None: ...

    def stop(self) -> None: ...

    def close(self) -> None: ...


class AlsaChirps:
    """Each pattern as a WAV, played by ``aplay -D device``; a new one cuts the one playing."""

    def __init__(self, patterns: Iterable[Pattern], device: str = "default", program: str = "aplay") -> None:
        self.device = device
        self.program = program
        self.folder = Path(tempfile.mkdtemp(prefix="bornes-chirps-"))
        self.files: dict[str, Path] = {}
        self._lock = threading.Lock()
        self.playing: subprocess.Popen[bytes] | None = None
        self.started = 0
        self.failed = False  # said once in the log: a table without sound still referees
        self.closed = False
        # Rendered in the background (a few tenths of a second on a Pi Zero): the referee is READY at once.
        threading.Thread(target=self._render, args=(list(patterns),), name="chirps", daemon=True).start()

    def _render(self, patterns: list[Pattern]) -> None:
        for pattern in patterns:
            try:
                self.file(pattern)
            except OSError as error:  # closed meanwhile, or /tmp full: start() says so if it matters
                log.debug("sound: %s", error)
                return

    def file(self, pattern: Pattern) -> Path:
        """The pattern's WAV, made the first time it is asked for."""
        with self._lock:
            if self.closed:
                raise OSError("the sound output is closed")
            if pattern.name not in self.files:
                path = self.folder / f"{pattern.name.lower()}.wav"
                path.write_bytes(wav(pattern.steps))
                self.files[pattern.name] = path
            return self.files[pattern.name]

    def start(self, pattern: Pattern) -> None:
        self.stop()
        try:
            self.playing = subprocess.Popen(
                [self.program, "-q", "-D", self.device, str(self.file(pattern))],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            self.started += 1
        except OSError as error:
            self._failed(f"{self.program}: {error.strerror or error}")  # no aplay, or no room for the WAV

    def stop(self) -> None:
        """Cut the sound playing (if any), and say once if the last one could not play."""
        process, self.playing = self.playing, None
        if process is None:
            return
        if process.poll() is None:
            process.terminate()
        try:
            _out, err = process.communicate(timeout=1.0)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            return
        if process.returncode not in (0, -15):  # -15: cut by us
            said = err.decode(errors="replace").strip().splitlines()
            self._failed(said[-1] if said else f"{self.program} exited with {process.returncode}")

    def _failed(self, reason: str) -> None:
        if not self.failed:
            log.warning("sound: %s (device %s); the table goes on without sound", reason, self.device)
        self.failed = True

    def close(self) -> None:
        self.stop()
        with self._lock:
            self.closed = True
            shutil.rmtree(self.folder, ignore_errors=True)


class PageSounds:
    """Each pattern's name in ``tv-sound.json``, for the TV page's browser to play."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.seq = 0

    def start(self, pattern: Pattern) -> None:
        self.seq += 1
        data = json.dumps({"format": SOUND_FORMAT, "seq": self.seq, "pattern": pattern.name}).encode()
        try:
            write_atomically(self.path, data)
        except OSError as error:  # the folder gone: the next sound tries again
            log.warning("sound: cannot write %s: %s", self.path, error.strerror or error)

    def stop(self) -> None:
        """The page plays each sound to its end (they last under two seconds)."""

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.path.unlink()
