"""Test doubles on real pseudo-terminals: a serial device end and a fake PN532.

The reader under test opens the pty's slave path with real pyserial; the test owns the
master end. Closing the master is an unplug.
"""

from __future__ import annotations

import contextlib
import os
import queue
import select
import threading
import time
import tty
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bornes.drivers.readers.pn532 import (
    ACK_FRAME,
    CHIP_TFI,
    HOST_TFI,
    NACK_FRAME,
    DataFrame,
    Pn532FrameDecoder,
    build_frame,
)


class PtyDevice:
    """One end of a serial cable: ``path`` is what the reader opens, the test writes to ``master``."""

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)
        self.closed = False

    def write(self, data: bytes) -> None:
        os.write(self.master, data)

    def read_available(self, timeout: float = 0.0) -> bytes:
        ready, _, _ = select.select([self.master], [], [], timeout)
        return os.read(self.master, 4096) if ready else b""

    def unplug(self) -> None:
        if not self.closed:
            self.closed = True
            with contextlib.suppress(OSError):
                os.close(self.master)
            with contextlib.suppress(OSError):
                os.close(self.slave)


def wait_for(events: queue.Queue[Any], predicate: Callable[[Any], bool], timeout: float = 60.0) -> list[Any]:
    """Collect events until one matches; returns everything seen (the match last).

    It returns at the match: the long default is reached only when the event never comes (a loaded
    CI machine can pause a reader thread for seconds).
    """
    seen: list[Any] = []
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"timed out; events seen: {[getattr(e, 'describe', lambda e=e: e)() for e in seen]}")
        try:
            event = events.get(timeout=left)
        except queue.Empty:
            continue
        seen.append(event)
        if predicate(event):
            return seen


def drain(events: queue.Queue[Any], settle: float = 0.3) -> list[Any]:
    """Everything that arrives within ``settle`` seconds of quiet."""
    out: list[Any] = []
    while True:
        try:
            out.append(events.get(timeout=settle))
        except queue.Empty:
            return out


@dataclass
class FakeTag:
    """An ISO 14443-A tag: NTAG213 memory (45 pages) or a 4-byte-UID MIFARE Classic card."""

    uid: bytes
    ntag: bool = True
    pages: bytearray = field(default_factory=lambda: bytearray(45 * 4))

    def __post_init__(self) -> None:
        if self.ntag and not any(self.pages[12:16]):
            self.pages[12:16] = bytes([0xE1, 0x10, 0x12, 0x00])  # factory capability container


class FakePn532:
    """Answers real PN532 command frames on a pty with real ACK and response frames.

    It stays asleep until it sees the HSU wake-up preamble (0x55), like the chip.
    """

    def __init__(self) -> None:
        self.device = PtyDevice()
        self.path = self.device.path
        self.tags: list[FakeTag] = []
        self.awake = False
        self.nack_next = 0
        self.commands: list[int] = []
        self._lock = threading.Lock()
        self._decoder = Pn532FrameDecoder()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def put(self, *tags: FakeTag) -> None:
        with self._lock:
            self.tags = list(tags)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self.device.unplug()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                data = self.device.read_available(0.05)
            except OSError:
                return
            if not data:
                continue
            if not self.awake and 0x55 in data:
                self.awake = True
            for frame in self._decoder.feed(data):
                if isinstance(frame, DataFrame) and frame.tfi == HOST_TFI and self.awake and frame.data:
                    self._answer(frame.data[0], frame.data[1:])

    def _answer(self, code: int, params: bytes) -> None:
        self.commands.append(code)
        if self.nack_next:
            self.nack_next -= 1
            self.device.write(NACK_FRAME)
            return
        with self._lock:
            reply = self._reply(code, params)
        with contextlib.suppress(OSError):
            self.device.write(ACK_FRAME + build_frame(bytes([code + 1]) + reply, tfi=CHIP_TFI))

    def _reply(self, code: int, params: bytes) -> bytes:
        if code == 0x02:
            return bytes([0x32, 0x01, 0x06, 0x07])
        if code in (0x14, 0x32):
            return b""
        if code == 0x4A:
            found = self.tags[: params[0]]
            out = bytearray([len(found)])
            for number, tag in enumerate(found, 1):
                sens, sel = (0x0044, 0x00) if tag.ntag else (0x0004, 0x08)
                out += bytes([number, sens >> 8, sens & 0xFF, sel, len(tag.uid)]) + tag.uid
            return bytes(out)
        if code == 0x40:
            number, op = params[0], params[1:]
            if not 1 <= number <= len(self.tags) or not self.tags[number - 1].ntag:
                return bytes([0x01])  # timeout status: no such tag
            tag = self.tags[number - 1]
            if op[0] == 0x30:
                start = op[1] * 4
                return bytes([0x00]) + bytes(tag.pages[start : start + 16]).ljust(16, b"\x00")
            if op[0] == 0xA2 and 3 <= op[1] <= 39 and len(op) == 6:
                if op[1] == 3:  # the capability container is one-time programmable: bits only go up
                    tag.pages[12:16] = bytes(a | b for a, b in zip(tag.pages[12:16], op[2:6], strict=True))
                else:
                    tag.pages[op[1] * 4 : op[1] * 4 + 4] = op[2:6]
                return bytes([0x00])
            return bytes([0x01])
        if code == 0x52:
            return bytes([0x00])
        return bytes([0x27])  # "not acceptable in the current context"
