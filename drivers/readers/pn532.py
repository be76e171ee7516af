"""PN532 over UART (HSU, 115200 8N1): frame codec and a small command client.

Frames: ``00 00 FF LEN LCS TFI PD… DCS 00`` with ``LEN+LCS ≡ 0`` and ``TFI+ΣPD+DCS ≡ 0``
(mod 256). The host sends TFI D4 and the chip answers ACK ``00 00 FF 00 FF 00`` and then a
response with TFI D5 and command code + 1. :class:`Pn532FrameDecoder` is pure and bounded;
:class:`Pn532` does the I/O on an open pyserial port and is shared by the reader thread and
``bornes tags write``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bornes.drivers.readers.base import DecoderStats

HOST_TFI = 0xD4
CHIP_TFI = 0xD5

ACK_FRAME = bytes([0x00, 0x00, 0xFF, 0x00, 0xFF, 0x00])
NACK_FRAME = bytes([0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00])
#: HSU wake-up: a long preamble the chip sees while it leaves power-down (user manual §7.2.11).
WAKE_UP = bytes([0x55, 0x55]) + bytes(14)

CMD_SAM_CONFIGURATION = 0x14
CMD_RF_CONFIGURATION = 0x32
CMD_IN_DATA_EXCHANGE = 0x40
CMD_IN_LIST_PASSIVE_TARGET = 0x4A
CMD_IN_RELEASE = 0x52

NTAG_READ = 0x30
NTAG_WRITE = 0xA2

_MAX_BUFFER = 600
_MAX_EXTENDED = 300  # the PN532 never sends more; anything longer is noise


def build_frame(data: bytes, tfi: int = HOST_TFI) -> bytes:
    """A normal information frame carrying ``tfi`` + ``data``."""
    body = bytes([tfi]) + data
    if len(body) > 255:
        raise ValueError("frame too long for a normal PN532 frame")
    length = len(body)
    dcs = (-sum(body)) & 0xFF
    return bytes([0x00, 0x00, 0xFF, length, (-length) & 0xFF]) + body + bytes([dcs, 0x00])


@dataclass(frozen=True, slots=True)
class Ack:
    pass


@dataclass(frozen=True, slots=True)
class Nack:
    pass


@dataclass(frozen=True, slots=True)
class ErrorFrame:
    """The chip's syntax-error frame (``00 00 FF 01 FF 7F 81 00``)."""


@dataclass(frozen=True, slots=True)
class DataFrame:
    tfi: int
    data: bytes


Pn532Frame = Ack | Nack | ErrorFrame | DataFrame


class Pn532FrameDecoder:
    """Incremental frame parser: resynchronises on the start code after any bad byte."""

    def __init__(self) -> None:
        self.stats = DecoderStats()
        self._buffer = bytearray()

    def reset(self) -> None:
        self._buffer.clear()

    def feed(self, data: bytes) -> list[Pn532Frame]:
        self._buffer.extend(data)
        out: list[Pn532Frame] = []
        while True:
            frame, consumed = self._parse_one()
            if consumed:
                del self._buffer[:consumed]
            if frame is not None:
                out.append(frame)
            elif not consumed:
                break
        if len(self._buffer) > _MAX_BUFFER:  # cannot happen with the length caps, but stay bounded
            self.stats.overflows += 1
            self._drop(len(self._buffer) - 1)
            del self._buffer[: len(self._buffer) - 1]
        return out

    def _drop(self, count: int) -> None:
        self.stats.garbage_bytes += sum(1 for b in self._buffer[:count] if b not in (0x00, 0xFF))

    def _parse_one(self) -> tuple[Pn532Frame | None, int]:
        """One frame at the start of the buffer: (frame or None, bytes to drop)."""
        buf = self._buffer
        start = buf.find(b"\x00\xff")
        if start < 0:
            keep = 1 if buf.endswith(b"\x00") else 0
            self._drop(len(buf) - keep)
            return None, len(buf) - keep
        if start:
            self._drop(start)
            return None, start
        if len(buf) < 4:
            return None, 0
        length, lcs = buf[2], buf[3]
        if length == 0x00 and lcs == 0xFF:
            return Ack(), 4
        if length == 0xFF and lcs == 0x00:
            return Nack(), 4
        header = 4
        if length == 0xFF and lcs == 0xFF:  # extended frame: LENM LENL LCS
            if len(buf) < 7:
                return None, 0
            length = (buf[4] << 8) | buf[5]
            if (buf[4] + buf[5] + buf[6]) & 0xFF or length > _MAX_EXTENDED:
                self.stats.bad_checksums += 1
                return None, 2
            header = 7
        elif (length + lcs) & 0xFF:
            self.stats.bad_checksums += 1
            return None, 2
        if length == 0:
            self.stats.garbage_bytes += 1
            return None, 2
        end = header + length + 1
        if len(buf) < end:
            return None, 0
        body = bytes(buf[header : header + length])
        if (sum(body) + buf[header + length]) & 0xFF:
            self.stats.bad_checksums += 1
            return None, 2
        self.stats.good += 1
        if length == 1 and body[0] == 0x7F:
            return ErrorFrame(), end
        return DataFrame(body[0], body[1:]), end


class Pn532Error(Exception):
    """The chip refused a command or answered nonsense."""


class Pn532Timeout(Pn532Error):
    """No ACK or no response in time: chip asleep, wrong wiring or wrong baud rate."""

    #: A reader lost this way "does not answer" on the panel (drivers/events.py: DeviceFailure.of).
    failure_kind = "no-answer"


@dataclass(frozen=True, slots=True)
class Target:
    """One ISO 14443-A tag found by InListPassiveTarget."""

    number: int
    sens_res: int
    sel_res: int
    uid: bytes

    @property
    def uid_hex(self) -> str:
        return self.uid.hex().upper()

    @property
    def is_ntag(self) -> bool:
        """NTAG21x and other Type 2 tags answer SENS_RES 0x0044 and SEL_RES 0x00 with a 7-byte UID."""
        return self.sel_res == 0x00 and len(self.uid) == 7


def parse_targets(data: bytes) -> list[Target]:
    """Decode the InListPassiveTarget answer for 106 kbps type A (after the 0x4B code)."""
    if not data:
        raise Pn532Error("empty InListPassiveTarget answer")
    count = data[0]
    targets: list[Target] = []
    i = 1
    for _ in range(count):
        if i + 5 > len(data):
            raise Pn532Error("short InListPassiveTarget answer")
        number, sens_res, sel_res, uid_length = data[i], (data[i + 1] << 8) | data[i + 2], data[i + 3], data[i + 4]
        uid = data[i + 5 : i + 5 + uid_length]
        if len(uid) != uid_length:
            raise Pn532Error("short UID in InListPassiveTarget answer")
        i += 5 + uid_length
        if sel_res & 0x20 and i < len(data):  # ISO 14443-4 tags append their ATS
            i += data[i]
        targets.append(Target(number, sens_res, sel_res, bytes(uid)))
    return targets


class Pn532:
    """Command/response client on an open pyserial port (``read``/``write`` with a timeout)."""

    def __init__(self, port: Any, *, timeout: float = 0.5, monotonic: Callable[[], float] = time.monotonic) -> None:
        self.port = port
        self.timeout = timeout
        self.monotonic = monotonic
        self.decoder = Pn532FrameDecoder()
        self._pending: list[Pn532Frame] = []

    def wake(self) -> None:
        """Wake the chip from power-down and set it up as a normal reader with quick polls."""
        self.port.write(WAKE_UP)
        self.port.flush()
        self.sam_configuration()
        # MxRtyATR, MxRtyPSL, MxRtyPassiveActivation: one activation try, so a poll returns at once.
        self.command(CMD_RF_CONFIGURATION, bytes([0x05, 0xFF, 0x01, 0x01]))

    def sam_configuration(self) -> None:
        """Normal mode, virtual-card timeout 1 s, IRQ used (the manual's default set-up)."""
        self.command(CMD_SAM_CONFIGURATION, bytes([0x01, 0x14, 0x01]))

    def list_targets(self, max_targets: int = 2) -> list[Target]:
        """Poll for ISO 14443-A tags (106 kbps); asking for 2 lets us see two cards at once."""
        return parse_targets(self.command(CMD_IN_LIST_PASSIVE_TARGET, bytes([max_targets, 0x00])))

    def exchange(self, target: int, data: bytes) -> bytes:
        """InDataExchange: send ``data`` to the tag, return its answer; raises on a non-zero status."""
        answer = self.command(CMD_IN_DATA_EXCHANGE, bytes([target]) + data)
        if not answer:
            raise Pn532Error("empty InDataExchange answer")
        if answer[0] & 0x3F:
            raise Pn532Error(f"tag error 0x{answer[0]:02X}")
        return answer[1:]

    def ntag_read(self, target: int, page: int) -> bytes:
        """16 bytes: four pages from ``page``."""
        data = self.exchange(target, bytes([NTAG_READ, page]))
        if len(data) < 16:
            raise Pn532Error("short NTAG READ answer")
        return data[:16]

    def ntag_write(self, target: int, page: int, data: bytes) -> None:
        if len(data) != 4:
            raise ValueError("an NTAG page is 4 bytes")
        self.exchange(target, bytes([NTAG_WRITE, page]) + data)

    def command(self, code: int, params: bytes = b"", *, timeout: float | None = None) -> bytes:
        """Send one command, wait for ACK then the response; returns the data after the answer code."""
        frame = build_frame(bytes([code]) + params)
        limit = self.timeout if timeout is None else timeout
        for _attempt in range(3):
            self._pending.clear()
            self.decoder.reset()  # the chip only talks when asked: anything half-received is stale
            self.port.write(frame)
            self.port.flush()
            reply = self._wait(lambda f: isinstance(f, Ack | Nack | ErrorFrame), limit)
            if reply is None:
                self.port.write(ACK_FRAME)  # abort whatever the chip might still be doing
                raise Pn532Timeout(f"no ACK for command 0x{code:02X}")
            if isinstance(reply, Nack):
                continue
            if isinstance(reply, ErrorFrame):
                raise Pn532Error(f"the PN532 rejected command 0x{code:02X}")
            answer = self._wait(lambda f: isinstance(f, DataFrame | ErrorFrame) and not _is_host(f), limit)
            if answer is None:
                self.port.write(ACK_FRAME)
                raise Pn532Timeout(f"no answer to command 0x{code:02X}")
            if not isinstance(answer, DataFrame) or answer.tfi != CHIP_TFI or answer.data[:1] != bytes([code + 1]):
                raise Pn532Error(f"unexpected answer to command 0x{code:02X}")
            return answer.data[1:]
        raise Pn532Error(f"the PN532 kept refusing command 0x{code:02X} (NACK)")

    def _wait(self, wanted: Callable[[Pn532Frame], bool], limit: float) -> Pn532Frame | None:
        deadline = self.monotonic() + limit
        while True:
            while self._pending:
                frame = self._pending.pop(0)
                if wanted(frame):
                    return frame
            left = deadline - self.monotonic()
            if left <= 0:
                return None
            data = self.port.read(max(1, self.port.in_waiting))
            if data:
                self._pending.extend(self.decoder.feed(data))


def _is_host(frame: Pn532Frame) -> bool:
    """Our own frames echoed back (a loop-back or a half-duplex adapter) are not answers."""
    return isinstance(frame, DataFrame) and frame.tfi == HOST_TFI
