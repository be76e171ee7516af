"""The camera's own process (``bornes camera-reader``): frames from a source, through the recognizer, out as messages.

It owns the source and keeps it open as a serial reader keeps its port: a source that stops giving
frames is one :class:`~bornes.drivers.camera.wire.Lost`, then it is opened again and again (waiting
longer each time, up to ``max_backoff``) until it is :class:`~bornes.drivers.camera.wire.Back`. A
source that cannot work as configured is one :class:`~bornes.drivers.camera.wire.Unusable` and the
process ends. The play zone is cut out of every frame first; then each frame goes to the play
watcher, or, while the owner teaches it from the panel, to the enroller.

Without templates the camera is "lost" from the table's point of view (nothing can be read), but the
source stays open so that it can be taught from the panel; once taught, it is back.

Commands come one a line on ``commands`` (the referee's pipe): ``teach KIND,KIND…`` and ``watch``.
Its end means the referee is gone: the process closes the camera and ends.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import threading
import time
from collections.abc import Callable, Sequence
from typing import BinaryIO

import cv2

from bornes.drivers.camera.enrol import AllTaught, Asked, Enroller, NoCard, ShotTaken
from bornes.drivers.camera.index import KINDS
from bornes.drivers.camera.sources import FrameSource, Image, SourceLost, SourceUnusable, open_source
from bornes.drivers.camera.templates import Taught, TemplateError, load, save
from bornes.drivers.camera.watch import Blind, Dropped, Outcome, PlayWatcher, Read, Refusal, Seeing
from bornes.drivers.camera.wire import (
    Back,
    BadFrame,
    CameraSettings,
    Lost,
    Message,
    Seen,
    Steady,
    Teaching,
    Unsteady,
    Unsure,
    Unusable,
    encode,
)

log = logging.getLogger("bornes.camera")

#: How many still shots of each kind a teaching takes (the last is held back for the check).
SHOTS = 3


class Stop(Exception):
    """The referee is gone (its pipe closed): end quietly."""


class CameraService:
    """One camera's loop: ``run()`` until the commands end or :meth:`stop` is called."""

    def __init__(
        self,
        settings: CameraSettings,
        report: Callable[[Message], None],
        *,
        source: FrameSource | None = None,
        min_backoff: float = 0.2,
        max_backoff: float = 2.0,
        teach: Sequence[str] | None = None,
    ) -> None:
        self.settings = settings
        self.report = report
        self.source = source if source is not None else open_source(settings.source, settings.device,
                                                                    settings.width, settings.height, settings.fps)
        self.min_backoff = min_backoff
        self.max_backoff = max_backoff
        self.commands: queue.Queue[str | None] = queue.Queue()
        self.watcher: PlayWatcher | None = None
        self.enroller: Enroller | None = None
        self.untaught = ""  # why there is no deck to read with ("" once there is one)
        self._stopping = threading.Event()
        self._said: Message | None = None  # the last Back or Lost, so each is said once
        self._zone_checked = False
        self._teach_first = list(teach) if teach is not None else None

    # -- the outside -----------------------------------------------------------------------------------

    def stop(self) -> None:
        self._stopping.set()
        self.commands.put(None)

    def listen(self, commands: int) -> threading.Thread:
        """Read commands from the referee's pipe (a file descriptor) in a thread; its end stops the service.

        Plain ``os.read``: a daemon thread blocked inside a buffered file holds its lock, and the
        interpreter's exit then dies trying to take it."""

        def read() -> None:
            pending = b""
            with contextlib.suppress(OSError):
                while chunk := os.read(commands, 4096):
                    pending += chunk
                    *lines, pending = pending.split(b"\n")
                    for line in lines:
                        self.commands.put(line.decode(errors="replace").strip())
                    pending = pending[-4096:]
            self.stop()

        thread = threading.Thread(target=read, name="camera-commands", daemon=True)
        thread.start()
        return thread

    # -- the loop ------------------------------------------------------------------------------------------

    def run(self) -> int:
        """0 when stopped, 2 when the source cannot work as configured (said in one Unusable line)."""
        self._load_templates()
        backoff = self.min_backoff
        try:
            if self._teach_first is not None:
                self._command("teach " + ",".join(self._teach_first), "")
            while not self._stopping.is_set():
                try:
                    described = self.source.open()
                except SourceUnusable as error:
                    self.report(Unusable(str(error)))
                    return 2
                except SourceLost as error:
                    self._say(Lost(str(error)))
                    self._pause(backoff)
                    backoff = min(backoff * 2, self.max_backoff)
                    continue
                log.info("%s", described)
                try:
                    self._frames(described)
                    backoff = self.min_backoff
                except SourceLost as error:
                    self._say(Lost(str(error)))
                    self._pause(backoff)
                    backoff = min(backoff * 2, self.max_backoff)
                except SourceUnusable as error:
                    self.report(Unusable(str(error)))
                    return 2
                finally:
                    self.source.close()
        except Stop:
            pass
        finally:
            self.source.close()
        return 0

    def _frames(self, described: str) -> None:
        """Frames until the source is lost; the camera is back once the first picture came (and fits the zone)."""
        told = False
        while not self._stopping.is_set():
            self._commands(described if told else "")
            got = self.source.frame()
            if got is None:
                continue
            name, image = got
            moment = self._clock()  # when it was taken: a recording's own clock, or now
            if image is not None:
                image = self._zone(image)
                if not told:
                    told = True
                    self._state_news(described)
            if self.enroller is not None:
                if image is not None:
                    self._teach(image, moment, described)
            elif self.watcher is not None:
                for outcome in self.watcher.feed(image, name, moment):
                    self.report(_message(outcome))

    def _pause(self, seconds: float) -> None:
        """Wait, still answering commands (a teach asked for while the camera is unplugged)."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                command = self.commands.get(timeout=left)
            except queue.Empty:
                return
            self._command(command, "")

    def _clock(self) -> float:
        """The moment of the frame just given, in seconds: a recording's own (the folder twin's frames are a
        recording, played as fast as asked), else the clock's when it came."""
        moment = getattr(self.source, "moment", None)
        return float(moment()) if callable(moment) else time.monotonic()

    # -- the play zone ---------------------------------------------------------------------------------------

    def _zone(self, image: Image) -> Image:
        zone = self.settings.zone
        if not zone:
            return image
        x, y, w, h = zone
        height, width = image.shape[:2]
        if x + w > width or y + h > height:
            if not self._zone_checked:  # the first frame: the zone was set for another picture
                raise SourceUnusable(f"camera.zone {x},{y},{w},{h} lies outside the {width}x{height} picture")
            return image  # one odd frame: the watcher reports its size
        self._zone_checked = True
        return image[y:y + h, x:x + w]

    # -- templates, teaching -----------------------------------------------------------------------------------

    def _load_templates(self) -> None:
        try:
            # Only the deck is kept: the taught pictures (faces and check shots, about 5 MB) are read again from
            # disk when teaching merges into them, and the camera process is sized for a Pi Zero 2 W.
            self.watcher = PlayWatcher(load(self.settings.templates).deck())
            self.untaught = ""
        except (TemplateError, ValueError) as error:
            self.watcher = None
            self.untaught = str(error)

    def _state_news(self, described: str) -> None:
        if self.enroller is not None:
            return  # teaching: the table hears of the camera when it is done
        self._say(Back(described) if self.watcher is not None else Lost(self.untaught))

    def _say(self, message: Message) -> None:
        if message != self._said:
            self._said = message
            self.report(message)

    def _commands(self, described: str) -> None:
        while True:
            try:
                command = self.commands.get_nowait()
            except queue.Empty:
                return
            self._command(command, described)

    def _command(self, command: str | None, described: str) -> None:
        if command is None:
            raise Stop
        word, _, rest = command.partition(" ")
        if word == "teach":
            kinds = [k for k in rest.split(",") if k] or list(KINDS)
            unknown = [k for k in kinds if k not in KINDS]
            if unknown:
                self.report(Teaching("failed", detail=f"not kind codes: {', '.join(unknown)}"))
                return
            self.enroller = Enroller(kinds, shots=SHOTS)  # its first "show" once it has learnt the empty zone
        elif word == "watch":
            if self.enroller is not None:
                self.enroller = None
                self._after_teaching(described)
        elif command:
            log.warning("unknown command %r", command[:40])

    def _teach(self, image: Image, moment: float, described: str) -> None:
        assert self.enroller is not None
        for news in self.enroller.feed(image, moment):
            if isinstance(news, Asked):
                self.report(Teaching("show", news.kind, news.index, news.total))
            elif isinstance(news, ShotTaken):
                self.report(Teaching("shot", news.kind, news.shot, news.shots))
            elif isinstance(news, NoCard):
                self.report(Teaching("no-card", news.kind))
            elif isinstance(news, AllTaught):
                self.enroller = None
                self.report(self._keep(news.taught))
                self._after_teaching(described)

    def _keep(self, taught: Taught) -> Teaching:
        """Save what was taught (merged into the kinds taught before) and read with it from now on."""
        try:
            earlier = load(self.settings.templates, complete=False)
        except TemplateError:
            earlier = None
        whole = earlier.merged(taught) if earlier is not None else taught
        try:
            save(self.settings.templates, whole)
        except (OSError, TemplateError) as error:
            return Teaching("failed", detail=f"the templates could not be saved: {error}")
        self._load_templates()
        detail = whole.describe_check() if not whole.missing() else \
            f"still to teach: {', '.join(whole.missing())}"
        return Teaching("taught", index=len(whole.read_back), total=len(whole.faces), detail=detail,
                        alike=tuple(whole.alike_pairs()))

    def _after_teaching(self, described: str) -> None:
        if self.watcher is not None:
            self.watcher = PlayWatcher(self.watcher.deck)  # a fresh look at the empty zone
        self._said = None
        if described:
            self._state_news(described)


def _message(outcome: Outcome) -> Message:
    if isinstance(outcome, Read):
        return Seen(outcome.kind, outcome.frame)
    if isinstance(outcome, Refusal):
        return Unsure(outcome.frame, outcome.reason, outcome.best, outcome.runner_up)
    if isinstance(outcome, Blind):
        return Unsteady(outcome.frame, outcome.reason, outcome.detail)
    if isinstance(outcome, Seeing):
        return Steady(outcome.frame)
    assert isinstance(outcome, Dropped)
    return BadFrame(outcome.frame, outcome.fault.value, outcome.detail)


def writer(stream: BinaryIO) -> Callable[[Message], None]:
    """Messages as JSON lines on ``stream``; a closed pipe (the referee gone) stops the service."""

    def report(message: Message) -> None:
        try:
            stream.write(encode(message))
            stream.flush()
        except (BrokenPipeError, ValueError):
            raise Stop from None

    return report


def serve(settings: CameraSettings, report: BinaryIO, commands: int | None = None) -> int:
    """The whole process: one thread for OpenCV (the Pi's other cores referee and draw)."""
    cv2.setNumThreads(1)
    service = CameraService(settings, writer(report))
    if commands is not None:
        service.listen(commands)
    try:
        return service.run()
    except Stop:
        return 0
