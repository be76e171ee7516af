"""The camera as one more reader: a thread of the referee runs the camera's process and queues its reads.

numpy and OpenCV (about 42 MB resident once imported) stay out of the referee: the recognizer runs in
``bornes camera-reader``, a child process this thread starts, whose messages come back on a pipe
(:mod:`bornes.drivers.camera.wire`). They become the events every reader puts on the one queue:

* a card read is a :class:`~bornes.drivers.events.KindShown` (a kind: the table picks the copy);
* a card not clearly one kind is ``ReaderProblem("camera-unsure")``; a bad frame (black, overexposed,
  another size, unreadable) is ``ReaderProblem("camera-frame", FAULT)``, once a run;
* a camera unplugged, not taught, or a process that died is one ``ReaderLost``, and ``ReaderBack``
  when frames come again: the same status screens as a serial reader's;
* a camera that has not seen a steady picture for 2 s (a light wavering beyond what it follows, the lens
  covered, the camera knocked about) is a :class:`~bornes.drivers.events.CameraBlind`, a status until
  :class:`~bornes.drivers.events.CameraSees` (said too when the process that was blind ends: its
  successor starts seeing afresh).

The child is started again when it dies, waiting longer each time (``max_backoff``); after a
configuration it cannot work with (:class:`~bornes.drivers.camera.wire.Unusable`), only every
``unusable_wait`` seconds. No exception leaves the thread, and nothing here calls the engine.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from typing import IO, Any

from bornes.drivers.camera.wire import (
    WATCH_COMMAND,
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
    WireError,
    decode,
    teach_command,
)
from bornes.drivers.events import (
    CameraBlind,
    CameraSees,
    CameraTeaching,
    KindShown,
    ReaderBack,
    ReaderLost,
    ReaderProblem,
)
from bornes.drivers.readers.running import RunningReader
from bornes.engine.cards import CardKind

log = logging.getLogger("bornes.camera")


class CameraReader(RunningReader):
    """Runs one camera's process; ``start()`` in a daemon thread, ``close()`` stops both (safe twice)."""

    def __init__(
        self,
        settings: CameraSettings,
        events: queue.Queue[Any],
        *,
        name: str = "camera",
        program: Sequence[str] | None = None,
        min_backoff: float = 0.5,
        max_backoff: float = 10.0,
        unusable_wait: float = 60.0,
    ) -> None:
        super().__init__(name)
        self.settings = settings
        self.events = events
        self.program = program
        self.min_backoff = min_backoff
        self.max_backoff = max_backoff
        self.unusable_wait = unusable_wait
        self.connected = False
        self.restarts = 0  # processes started after the first
        self.reads = 0
        self._lost_said: str | None = None
        self.blind = False  # a CameraBlind was put, and no CameraSees since
        self._child: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()

    # -- life cycle -------------------------------------------------------------------------------------

    def _interrupt(self, timeout: float) -> None:
        """Stop the camera's process (its input closes: it lets the camera go and ends)."""
        child = self._child
        if child is not None:
            _stop_child(child, timeout)

    @property
    def pid(self) -> int | None:
        child = self._child
        return child.pid if child is not None and child.poll() is None else None

    # -- commands (the panel's teaching) ---------------------------------------------------------------

    def teach(self, kinds: Sequence[str]) -> bool:
        """Ask the camera to be taught ``kinds`` now; False when its process is not running."""
        return self._send(teach_command(kinds))

    def watch(self) -> bool:
        """Stop a teaching (the templates stay as they were) and read plays again."""
        return self._send(WATCH_COMMAND)

    def _send(self, command: bytes) -> bool:
        with self._lock:
            child = self._child
            if child is None or child.stdin is None or child.poll() is not None:
                return False
            try:
                child.stdin.write(command)
                child.stdin.flush()
            except (OSError, ValueError):
                return False
            return True

    # -- the thread ---------------------------------------------------------------------------------------

    def _run(self) -> None:
        backoff = self.min_backoff
        started = 0
        while not self._stop.is_set():
            try:
                child, report = self._spawn()
            except OSError as error:
                self._lost(f"the camera's process cannot start: {error.strerror or error}")
                self._stop.wait(self.max_backoff)
                continue
            if started:
                self.restarts += 1
            started += 1
            opened = time.monotonic()
            unusable = self._follow(report)
            code = child.wait()
            with self._lock:
                self._child = None
            self._seeing()  # the watcher that could not see is gone
            if self._stop.is_set():
                break
            self.connected = False
            if unusable is not None:
                self._lost(unusable)
                self._stop.wait(self.unusable_wait)
                continue
            self._lost(f"the camera's process ended ({_exit_reason(code)})")
            if time.monotonic() - opened >= 30.0:
                backoff = self.min_backoff  # it ran a while: come back at once
            self._stop.wait(backoff)
            backoff = min(backoff * 2, self.max_backoff)
        self.connected = False

    def _spawn(self) -> tuple[subprocess.Popen[bytes], IO[bytes]]:
        read_end, write_end = os.pipe()
        try:
            argv = [*self.settings.argv(self.program), "--report-fd", str(write_end)]
            child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     pass_fds=(write_end,), close_fds=True, env=_child_environment())
        except BaseException:
            os.close(read_end)
            os.close(write_end)
            raise
        os.close(write_end)
        with self._lock:
            self._child = child
        assert child.stderr is not None
        threading.Thread(target=_log_lines, args=(child.stderr,), name=f"bornes-{self.name}-log", daemon=True).start()
        return child, os.fdopen(read_end, "rb")

    def _follow(self, report: IO[bytes]) -> str | None:
        """Turn the child's messages into events until its pipe ends; the Unusable detail if it said one."""
        unusable: str | None = None
        with report:
            for line in report:
                try:
                    message = decode(line)
                except WireError as error:
                    log.warning("camera: a message that is not one: %s", error)
                    continue
                if isinstance(message, Unusable):
                    unusable = message.detail
                else:
                    self._event(message)
        return unusable

    def _event(self, message: Message) -> None:
        if isinstance(message, Seen):
            try:
                kind = CardKind(message.kind)
            except ValueError:
                log.warning("camera: read %r, which is no kind of card", message.kind)
                return
            self.reads += 1
            self._put(KindShown(kind, message.frame, self.name))
        elif isinstance(message, Unsure):
            guess = f" ({message.best} or {message.runner_up}?)" if message.best and message.runner_up else ""
            self._put(ReaderProblem("camera-unsure", f"{message.reason}{guess}, frame {message.frame}", self.name))
        elif isinstance(message, BadFrame):
            log.info("camera: frame %s dropped: %s", message.frame, message.detail)
            self._put(ReaderProblem("camera-frame", message.fault, self.name))
        elif isinstance(message, Unsteady):
            log.info("camera: cannot see from frame %s: %s", message.frame, message.detail)
            self.blind = True
            self._put(CameraBlind(message.reason, message.detail, self.name))
        elif isinstance(message, Steady):
            self._seeing()
        elif isinstance(message, Back):
            if not self.connected:
                self.connected = True
                self._lost_said = None
                self._put(ReaderBack(message.source, self.name))
        elif isinstance(message, Lost):
            self.connected = False
            self._lost(message.detail)
        elif isinstance(message, Teaching):
            self._put(CameraTeaching(message.step, message.kind, message.index, message.total, message.detail,
                                     message.alike, self.name))

    def _seeing(self) -> None:
        if self.blind:
            self.blind = False
            self._put(CameraSees(self.name))

    def _lost(self, detail: str) -> None:
        """One ReaderLost while the camera is away, whatever it says meanwhile (the folder gone, then not
        found again; a process restarted and finding no camera): the next news is that it is back."""
        if self._lost_said is None:
            self._lost_said = detail
            self._put(ReaderLost(detail, self.name))
        elif detail != self._lost_said:
            log.info("camera still away: %s", detail)

    def _put(self, event: object) -> None:
        with contextlib.suppress(queue.Full):
            self.events.put_nowait(event)


def _child_environment() -> dict[str, str]:
    """The referee's environment, with OpenCV's own chatter (a file it could not decode, already reported
    as a bad frame) down to its errors."""
    return {**os.environ, "OPENCV_LOG_LEVEL": "ERROR"}


def _log_lines(stream: IO[bytes]) -> None:
    """The child's own words (warnings, a traceback if it crashed) into the referee's log."""
    with stream:
        for line in stream:
            text = line.decode(errors="replace").rstrip()
            if text:
                log.warning("%s", text)


def _stop_child(child: subprocess.Popen[bytes], timeout: float) -> None:
    with contextlib.suppress(OSError, ValueError):
        if child.stdin is not None:
            child.stdin.close()  # the camera process ends at the end of its input
    try:
        child.wait(timeout)
        return
    except subprocess.TimeoutExpired:
        pass
    with contextlib.suppress(OSError):
        child.terminate()
    try:
        child.wait(1.0)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(OSError):
            child.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.wait(1.0)


def _exit_reason(code: int) -> str:
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"
