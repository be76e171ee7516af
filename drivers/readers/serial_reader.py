"""The one reader thread: owns the pyserial port, survives unplugs, only enqueues events.

``SerialReader`` opens the port (a device path, a stable udev symlink such as
``/dev/bornes-reader``, or a pyserial URL like ``loop://``), runs a protocol *link*
(passive decoders for lines/EM4100, an active poller for the PN532), turns readings into
events through a :class:`CardResolver`, drops double reads, and on any I/O error puts one
:class:`ReaderLost`, retries with exponential backoff and puts :class:`ReaderBack` when
the port opens again. It never calls the engine and no exception leaves the thread.
"""

from __future__ import annotations

import contextlib
import queue
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import serial

from bornes.drivers.events import CardScanned, DeviceFailure, ReaderBack, ReaderLost, ReaderProblem
from bornes.drivers.readers.base import Decoder, DecoderStats, Reading
from bornes.drivers.readers.ntag import FIRST_USER_PAGE, decode_text_tlv
from bornes.drivers.readers.pn532 import Pn532, Pn532Error, Pn532Timeout
from bornes.drivers.readers.presence import DoubleReadFilter, PresenceTracker
from bornes.drivers.readers.resolver import CardResolver
from bornes.drivers.readers.running import RunningReader

SerialFactory = Callable[[str, int, float], Any]


def open_serial(port: str, baudrate: int, timeout: float) -> Any:
    """Open a device path or pyserial URL; device paths are locked against a second user."""
    if "://" in port:
        return serial.serial_for_url(port, baudrate=baudrate, timeout=timeout)
    return serial.Serial(port, baudrate=baudrate, timeout=timeout, exclusive=True)


class Sink(Protocol):
    """What a link may do: report readings and problems, and wait without busy polling."""

    def reading(self, reading: Reading) -> None: ...

    def problem(self, kind: str, detail: str) -> None: ...

    def emit(self, event: object) -> None: ...

    def now(self) -> float: ...

    def wait(self, seconds: float) -> bool: ...


class Link(Protocol):
    """One protocol's loop body; raising any exception means "the reader is gone"."""

    @property
    def stats(self) -> DecoderStats: ...

    def start(self, port: Any, sink: Sink) -> None: ...

    def step(self, port: Any, sink: Sink) -> None: ...


class PassiveLink:
    """Readers that push bytes (barcode scanners, bridges, EM4100 modules)."""

    def __init__(self, decoder: Decoder, presence: PresenceTracker | None = None) -> None:
        self.decoder = decoder
        self.presence = presence

    @property
    def stats(self) -> DecoderStats:
        return self.decoder.stats

    def start(self, port: Any, sink: Sink) -> None:
        self.decoder.reset()
        if self.presence is not None:
            self.presence.clear()

    def step(self, port: Any, sink: Sink) -> None:
        data = port.read(max(1, port.in_waiting))  # blocks up to the port timeout: no busy loop
        if not data:
            return
        for reading in self.decoder.feed(data):
            if self.presence is None or self.presence.observe(reading.raw, sink.now()):
                sink.reading(reading)


class Pn532Link:
    """Poll a PN532 with InListPassiveTarget; read NTAG memory for a stored ``MB-…`` payload."""

    def __init__(self, presence: PresenceTracker, poll_interval: float = 0.1, timeout: float = 0.5) -> None:
        self.presence = presence
        self.poll_interval = poll_interval
        self.timeout = timeout
        self.client: Pn532 | None = None
        self.stats = DecoderStats()

    def start(self, port: Any, sink: Sink) -> None:
        self.client = Pn532(port, timeout=self.timeout)
        self.client.decoder.stats = self.stats  # one set of counters across reconnects
        self.presence.clear()
        try:
            self.client.wake()
        except Pn532Timeout:
            raise Pn532Timeout("the PN532 does not answer (wiring, HSU mode switches or baud rate?)") from None

    def step(self, port: Any, sink: Sink) -> None:
        client = self.client
        if client is None:
            raise Pn532Error("PN532 not started")
        try:
            targets = client.list_targets(2)
        except Pn532Timeout:
            raise
        except Pn532Error as error:
            sink.problem("nack", str(error))
            sink.wait(self.poll_interval)
            return
        if not targets:
            self.presence.clear()
        elif len(targets) > 1:
            key = "+".join(sorted(t.uid_hex for t in targets))
            if self.presence.observe(key, sink.now()):
                sink.problem("one-card-at-a-time", f"{len(targets)} tags in the field ({key}): tap one card at a time")
        else:
            target = targets[0]
            if self.presence.observe(target.uid_hex, sink.now()):
                reading = self._identify(client, target.number, target.uid_hex, target.is_ntag)
                if reading is None:
                    self.presence.clear()  # the tag left during the read: try again next poll
                else:
                    sink.reading(reading)
        sink.wait(self.poll_interval)

    def _identify(self, client: Pn532, number: int, uid: str, is_ntag: bool) -> Reading | None:
        if not is_ntag:
            return Reading(uid, is_uid=True)
        try:
            memory = client.ntag_read(number, FIRST_USER_PAGE) + client.ntag_read(number, FIRST_USER_PAGE + 4)
        except Pn532Timeout:
            raise
        except Pn532Error:
            return None
        text = decode_text_tlv(memory)
        if text is not None and text.strip().upper().startswith("MB-"):
            return Reading(text.strip())
        return Reading(uid, is_uid=True)


@dataclass(slots=True)
class ReaderStats:
    """Totals for ``bornes scan-test`` and the logs."""

    good: int = 0
    garbage_bytes: int = 0
    bad_checksums: int = 0
    double_reads: int = 0
    reconnects: int = 0


class SerialReader(RunningReader):
    """Owns one serial reader; start() runs it in a daemon thread, close() stops and joins it."""

    def __init__(
        self,
        port: str,
        events: queue.Queue[Any],
        link: Link,
        *,
        baudrate: int,
        name: str = "reader",
        resolver: CardResolver | None = None,
        double_read_window: float = 1.5,
        double_reads: DoubleReadFilter | None = None,
        min_backoff: float = 0.1,
        max_backoff: float = 1.0,
        read_timeout: float = 1.0,
        problem_interval: float = 1.0,
        monotonic: Callable[[], float] = time.monotonic,
        serial_factory: SerialFactory = open_serial,
    ) -> None:
        super().__init__(name)
        self.port_name = port
        self.events = events
        self.link = link
        self.baudrate = baudrate
        self.resolver = resolver if resolver is not None else CardResolver(reader=name)
        self.double_reads = double_reads if double_reads is not None else DoubleReadFilter(double_read_window)
        self.min_backoff = min_backoff
        self.max_backoff = max_backoff
        self.read_timeout = read_timeout
        self.problem_interval = problem_interval
        self.monotonic = monotonic
        self.serial_factory = serial_factory
        self.reconnects = 0
        self.connected = False
        self._port: Any = None
        self._reported = DecoderStats()
        self._last_problem: dict[str, float] = {}

    # -- life cycle -----------------------------------------------------------------------

    def _interrupt(self, timeout: float) -> None:
        port = self._port
        if port is not None:
            with contextlib.suppress(Exception):
                port.cancel_read()

    @property
    def stats(self) -> ReaderStats:
        s = self.link.stats
        return ReaderStats(s.good, s.garbage_bytes, s.bad_checksums, self.double_reads.suppressed, self.reconnects)

    # -- Sink -----------------------------------------------------------------------------

    def now(self) -> float:
        return self.monotonic()

    def wait(self, seconds: float) -> bool:
        """Sleep unless closed; True if the reader is stopping."""
        return self._stop.wait(seconds)

    def reading(self, reading: Reading) -> None:
        event = self.resolver.resolve(reading.raw, is_uid=reading.is_uid)
        # Keyed on the card, not the raw read: a tag's UID on one pad and its label on another are one card.
        key = event.card.code() if isinstance(event, CardScanned) else event.raw
        if self.double_reads.accept(key, self.monotonic()):
            self._put(event)

    def problem(self, kind: str, detail: str) -> None:
        self._put(ReaderProblem(kind, detail, self.name))

    def emit(self, event: object) -> None:
        """An event the link made whole (a keypad's ``ButtonPressed``, drivers/keypad.py)."""
        self._put(event)

    # -- the thread -----------------------------------------------------------------------

    def _put(self, event: object) -> None:
        with contextlib.suppress(queue.Full):
            self.events.put_nowait(event)

    def _run(self) -> None:
        backoff = self.min_backoff
        lost_reported = False
        ever_connected = False
        while not self._stop.is_set():
            try:
                self._port = self.serial_factory(self.port_name, self.baudrate, self.read_timeout)
            except Exception as error:  # SerialException, OSError, ValueError: all mean "not there"
                if not lost_reported:
                    self._put(ReaderLost(DeviceFailure.of(error, self.port_name), self.name))
                    lost_reported = True
                self._stop.wait(backoff)
                backoff = min(backoff * 2, self.max_backoff)
                continue
            opened = time.monotonic()
            good_at_open = self.link.stats.good
            try:
                self.link.start(self._port, self)
                if ever_connected:
                    self.reconnects += 1
                ever_connected = True
                self.connected = True
                lost_reported = False
                self._put(ReaderBack(self.port_name, self.name))
                while not self._stop.is_set():
                    self.link.step(self._port, self)
                    self._report_counters()
            except Exception as error:  # the device went away or answered nonsense: reconnect
                if not self._stop.is_set() and not lost_reported:
                    self._put(ReaderLost(DeviceFailure.of(error, self.port_name, opening=False), self.name))
                    lost_reported = True
                worked = self.link.stats.good > good_at_open or time.monotonic() - opened >= 1.0
                if worked:  # a real session (it read a card, or lasted): come back as fast as we can
                    backoff = self.min_backoff
                else:  # opens and fails at once: back off, or a flapping port would spin the CPU
                    self._stop.wait(backoff)
                    backoff = min(backoff * 2, self.max_backoff)
            finally:
                self.connected = False
                port, self._port = self._port, None
                with contextlib.suppress(Exception):
                    port.close()
        self.connected = False

    def _report_counters(self) -> None:
        """Checksum errors and garbage become rate-limited ReaderProblem events."""
        stats = self.link.stats
        for kind, now_count, before in (
            ("checksum", stats.bad_checksums, self._reported.bad_checksums),
            ("garbage", stats.garbage_bytes, self._reported.garbage_bytes),
        ):
            if now_count <= before:
                continue
            moment = self.monotonic()
            last = self._last_problem.get(kind)
            if last is not None and moment - last < self.problem_interval:
                continue
            self._last_problem[kind] = moment
            delta = now_count - before
            if kind == "checksum":
                self._reported.bad_checksums = now_count
                self.problem(kind, f"{delta} frame(s) with a bad checksum dropped")
            else:
                self._reported.garbage_bytes = now_count
                self.problem(kind, f"{delta} garbage byte(s) dropped")

