"""The TV page's feed: the referee's screen (``tv.json``) and chirps (``tv-sound.json``), pushed to every TV.

With ``[display] panel = "tv"`` the referee keeps each frame of its panel in ``tv.json`` in its
runtime folder (:mod:`bornes.drivers.display.tv`), and with ``[sound] output = "page"`` the last
chirp's name in ``tv-sound.json`` (:mod:`bornes.drivers.sound`). :class:`ScreenHub` follows that
folder in a thread (inotify, and a look every second in case the folder itself went and came back
with the referee) and hands each change to :class:`~bornes.firmware.web.live.EventStream`'s pages:
``event: screen`` (the frame as a PNG), ``event: sound`` (the notes to play), ``event: gone`` (the
referee stopped). Files are read bounded and checked; anything else in them is never sent on.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import json
import logging
import os
import select
import threading
from pathlib import Path
from typing import Any

from bornes.drivers.files import UnreadableFile, read_bounded
from bornes.drivers.tvfile import FORMAT, MAX_BYTES, SOUND_FORMAT
from bornes.firmware.storage.live import DirectoryWatch

log = logging.getLogger("bornes.web")

SCREEN, SOUND = "tv.json", "tv-sound.json"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
RECHECK = 1.0  # seconds: how soon a folder that went and came back (a referee restart) is watched again


def event(kind: str, data: dict[str, Any]) -> bytes:
    return f"event: {kind}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


GONE = event("gone", {})


def read_screen(path: Path) -> dict[str, Any] | None:
    """The frame in ``tv.json`` as the page gets it, or None (absent, unreadable, not a frame)."""
    try:
        data = json.loads(read_bounded(path, MAX_BYTES))
        png = base64.b64decode(data["png"], validate=True)
        if data.get("format") != FORMAT or not png.startswith(PNG_SIGNATURE):
            return None
        return {"seq": int(data["seq"]), "width": int(data["width"]), "height": int(data["height"]),
                "png": base64.b64encode(png).decode("ascii")}
    except (OSError, UnreadableFile, ValueError, KeyError, TypeError, binascii.Error):
        return None


def read_sound(path: Path) -> dict[str, Any] | None:
    """The chirp in ``tv-sound.json``: its name and its notes (Hz, or 0 for a rest, and seconds)."""
    from bornes.drivers.feedback import Pattern
    from bornes.drivers.sound import frequency  # only where the page plays the chirps ([sound] output = "page")

    try:
        data = json.loads(read_bounded(path, 4096))
        if data.get("format") != SOUND_FORMAT:
            return None
        pattern = Pattern[str(data["pattern"])]
    except (OSError, UnreadableFile, ValueError, KeyError, TypeError):
        return None
    notes = [[round(frequency(step.note), 2) if step.note else 0, step.seconds] for step in pattern.steps]
    return {"seq": int(data.get("seq", 0)), "pattern": pattern.name, "notes": notes}


class ScreenHub:
    """Follows the referee's screen for the TV pages; the same shape as :class:`~bornes.firmware.web.live.Hub`
    for :class:`~bornes.firmware.web.live.EventStream` (``clients``, ``message``)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.clients: set[asyncio.Queue[bytes]] = set()
        self.message = GONE
        self.screen: dict[str, Any] | None = None
        self.published = 0
        self._stamps: dict[str, tuple[int, int, int] | None] = {SCREEN: None, SOUND: None}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop = threading.Event()
        self._wake_read, self._wake_write = os.pipe()
        self._thread: threading.Thread | None = None

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self.check(first=True)
        self._thread = threading.Thread(target=self._follow, name="tv-follower", daemon=True)
        self._thread.start()

    def _follow(self) -> None:
        watch: DirectoryWatch | None = None
        watched: int | None = None
        while not self._stop.is_set():
            try:
                inode = self.folder.stat().st_ino if self.folder.is_dir() else None
                if inode != watched:
                    if watch is not None:
                        watch.close()
                    watch = DirectoryWatch(self.folder) if inode is not None else None
                    watched = inode
                ready, _, _ = select.select([self._wake_read, *([watch.fd] if watch else [])], [], [], RECHECK)
                if watch is not None and watch.fd in ready:
                    watch.drain()
                self.check()
            except OSError as error:  # the folder went between two looks: look again in a second
                log.debug("following %s: %s", self.folder, error)
                self._stop.wait(RECHECK)
        if watch is not None:
            watch.close()

    def check(self, first: bool = False) -> None:
        """Publish what changed: a new frame (or the referee gone), a new chirp (never an old one)."""
        for name in (SCREEN, SOUND):
            try:
                found = (self.folder / name).stat()
                stamp: tuple[int, int, int] | None = (found.st_ino, found.st_mtime_ns, found.st_size)
            except OSError:
                stamp = None
            if stamp == self._stamps[name]:
                continue
            self._stamps[name] = stamp
            if name == SCREEN:
                screen = read_screen(self.folder / name) if stamp is not None else None
                self._publish(event("screen", screen) if screen is not None else GONE, screen, keep=True)
            elif stamp is not None and not first:
                sound = read_sound(self.folder / name)
                if sound is not None:
                    self._publish(event("sound", sound), None, keep=False)

    def _publish(self, message: bytes, screen: dict[str, Any] | None, keep: bool) -> None:
        if self._loop is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop closed while shutting down
            self._loop.call_soon_threadsafe(self._deliver, message, screen, keep)

    def _deliver(self, message: bytes, screen: dict[str, Any] | None, keep: bool) -> None:
        if keep:  # a page that connects later starts from the latest screen, never from an old sound
            self.message = message
            self.screen = screen
        self.published += 1
        for queue in self.clients:
            if queue.full():
                with contextlib.suppress(asyncio.QueueEmpty):
                    queue.get_nowait()
            queue.put_nowait(message)

    def stop(self) -> None:
        self._stop.set()
        with contextlib.suppress(OSError):
            os.write(self._wake_write, b"x")
        if self._thread is not None:
            self._thread.join(timeout=3.0)
        for fd in (self._wake_read, self._wake_write):
            with contextlib.suppress(OSError):
                os.close(fd)
