"""The MFRC522 ("RC522") over SPI, and the ISO/IEC 14443-3 type A steps a reader takes through it.

Sources: NXP's MFRC522 datasheet (rev. 3.9): §8.1.2 the SPI frames (address byte ``0AAAAAA0`` to write,
``1AAAAAA0`` to read, several read addresses in one frame), §9 the registers, §10.3 the commands
(Transceive, CalcCRC, SoftReset), §8.5 the timer (f = 13.56 MHz / (2·TPrescaler + 1), started by the
end of a transmission with TAuto); ISO/IEC 14443-3: REQA/WUPA (short frames of 7 bits), the
anticollision and SELECT of each cascade level (SEL 93h/95h/97h, NVB, the cascade tag 88h, BCC), SAK's
cascade bit (04h), HLTA, CRC_A (annex B); NXP's NTAG213/215/216 datasheet: READ (30h) gives 16 bytes.

:class:`Mfrc522` is the chip: register reads and writes batched into as few SPI messages as a command
takes (an idle poll is two), Transceive with the timer as its timeout. :class:`Pcd` is the reader's side
of ISO 14443-3 on it: wake the field, run each cascade level's anticollision and SELECT, and say
whether one card answered (its UID, 4, 7 or 10 bytes, as the PN532 reports it), or several (a
collision: never resolved, so two cards are never read as either), or none. No IRQ wire: the status
registers are read after the time a frame takes on air.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

# Registers (datasheet table 20).
COMMAND, COM_IRQ, DIV_IRQ, ERROR, FIFO_DATA, FIFO_LEVEL = 0x01, 0x04, 0x05, 0x06, 0x09, 0x0A
BIT_FRAMING, MODE, TX_CONTROL, TX_ASK = 0x0D, 0x11, 0x14, 0x15
CRC_RESULT_H, CRC_RESULT_L, RF_CFG = 0x21, 0x22, 0x26
T_MODE, T_PRESCALER, T_RELOAD_H, T_RELOAD_L, VERSION = 0x2A, 0x2B, 0x2C, 0x2D, 0x37
# Commands (CommandReg bits 3-0) and bits.
IDLE, CALC_CRC, TRANSCEIVE, SOFT_RESET = 0x00, 0x03, 0x0C, 0x0F
POWER_DOWN = 0x10
RX_IRQ, IDLE_IRQ, ERR_IRQ, TIMER_IRQ = 0x20, 0x10, 0x02, 0x01
CRC_IRQ = 0x04
BUFFER_OVFL, COLL_ERR, CRC_ERR, PARITY_ERR, PROTOCOL_ERR = 0x10, 0x08, 0x04, 0x02, 0x01
START_SEND, FLUSH = 0x80, 0x80
ANTENNA = 0x03  # TxControlReg: Tx1RFEn and Tx2RFEn

#: VersionReg (datasheet §9.3.4.8) and what the clone boards answer instead.
CHIPS = {0x91: "MFRC522 v1.0", 0x92: "MFRC522 v2.0", 0x88: "FM17522", 0xB2: "FM17522E"}
#: Of those, Fudan's clones (sold on most cheap "RC522" boards): they read the same cards.
CLONES = (0x88, 0xB2)
#: What a reader with nothing on its MISO line reads: all zeros (pulled low) or all ones (floating high).
NOTHING = (0x00, 0xFF)
#: RFCfgReg's RxGain (bits 6-4), in dB (datasheet table 98).
GAINS = (18, 23, 18, 23, 33, 38, 43, 48)

# ISO 14443-3 type A.
REQA, WUPA, HLTA = 0x26, 0x52, 0x50
SELECTS = (0x93, 0x95, 0x97)
CASCADE_TAG = 0x88
SAK_CASCADE = 0x04
NTAG_READ = 0x30

#: The timer ticks every 2 · 169 + 1 = 339 periods of 13.56 MHz: 25 µs (TPrescaler = 0A9h).
TICK = 339 / 13.56e6
#: Longest wait for a card's answer to begin, in ticks (the timer stops at an answer's first bits):
#: WUPA, anticollision and SELECT answers begin a fixed 91 µs after the reader's last bit (ISO 14443-3's
#: frame delay); a READ may take longer to start. An empty field costs the short wait once a poll.
SHORT_WAIT, LONG_WAIT = 24, 200  # 0.6 ms, 5 ms
#: One bit on air at 106 kbit/s, and the frame delay before an answer (ISO 14443-3: 1236/fc).
BIT_SECONDS, FRAME_DELAY = 128 / 13.56e6, 1236 / 13.56e6


class SpiPort(Protocol):
    """What the chip is reached through: a real ``/dev/spidevB.C`` (spidev.Spidev) or a model of it."""

    def transfer(self, frames: Sequence[bytes]) -> list[bytes]: ...

    def close(self) -> None: ...


class Rc522Error(Exception):
    """The chip does not answer or answers nonsense: the reader is lost (wiring, power, reset)."""

    #: Its kind for the table's words (drivers/events.py's Failure): there, but not answering: a wire to check.
    failure_kind = "no-answer"


def write_frame(register: int, *data: int) -> bytes:
    """One SPI frame writing ``data`` to ``register`` (several bytes: the same register again, as the FIFO takes)."""
    return bytes([(register << 1) & 0x7E, *data])


def read_frame(*registers: int) -> bytes:
    """One SPI frame reading ``registers`` in order; the answer's bytes 1… are their values."""
    return bytes([0x80 | ((r << 1) & 0x7E) for r in registers]) + b"\x00"


#: The registers read after a command, in one frame: its IRQs, errors, FIFO level, and two that show a
#: chip gone (VersionReg reading 00h/FFh) or restarted behind our back (its antenna off).
STATUS = [read_frame(COM_IRQ, ERROR, FIFO_LEVEL, TX_CONTROL, VERSION)]


def crc_a(data: bytes, preset: int = 0x6363) -> bytes:
    """ISO 14443-3 CRC_A (annex B): CRC-16/CCITT reflected, from 6363h, sent low byte first."""
    crc = preset
    for byte in data:
        byte ^= crc & 0xFF
        byte = (byte ^ (byte << 4)) & 0xFF
        crc = (crc >> 8) ^ (byte << 8) ^ (byte << 3) ^ (byte >> 4)
    return bytes([crc & 0xFF, crc >> 8])


@dataclass(frozen=True, slots=True)
class Reply:
    """What the chip received after a Transceive: the bytes, and why it may not be a good frame."""

    data: bytes = b""
    timeout: bool = False
    collision: bool = False
    error: int = 0  # ErrorReg's other error bits

    @property
    def good(self) -> bool:
        return not self.timeout and not self.collision and not self.error and bool(self.data)


class Mfrc522:
    """The chip's registers and its Transceive command, on an :class:`SpiPort`.

    ``now``/``sleep`` are the reader thread's clock and wait, so tests run it on a model's virtual time.
    """

    def __init__(self, port: SpiPort, *, now: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], object] = time.sleep) -> None:
        self.port = port
        self.now = now
        self.sleep = sleep
        self._reload = -1
        self._starts: dict[tuple[bytes, int, int], tuple[list[bytes], list[bytes], float]] = {}
        self.transfers = 0  # SPI messages sent: what a poll costs

    # -- registers ----------------------------------------------------------------------------

    def read(self, *registers: int) -> bytes:
        """The values of ``registers``, read in one frame."""
        self.transfers += 1
        return self.port.transfer([read_frame(*registers)])[0][1:]

    def write(self, *frames: bytes) -> None:
        """Several writes (``write_frame``), one SPI message, the chip select dropped between them."""
        self.transfers += 1
        self.port.transfer(list(frames))

    def version(self) -> int:
        return self.read(VERSION)[0]

    def reset(self) -> None:
        """SoftReset, then wait for the oscillator: CommandReg's PowerDown bit clears (datasheet §8.8.2)."""
        self.write(write_frame(COMMAND, SOFT_RESET))
        deadline = self.now() + 0.15
        while True:
            self.sleep(0.001)
            command = self.read(COMMAND)[0]
            if not command & POWER_DOWN and command & 0x0F == IDLE:
                break
            if self.now() > deadline:
                raise Rc522Error("the RC522 did not come back from its soft reset (CommandReg "
                                 f"0x{command:02X}): check its power and RST pin")
        self._reload = -1

    def set_up(self) -> None:
        """Timer with TAuto (started by each transmission's end, 25 µs a tick), 100 % ASK as type A wants,
        CRC preset 6363h, the antenna's two drivers on."""
        self.write(write_frame(T_MODE, 0x80), write_frame(T_PRESCALER, 0xA9), write_frame(TX_ASK, 0x40),
                   write_frame(MODE, 0x3D), write_frame(TX_CONTROL, 0x80 | ANTENNA))

    def antenna_on(self) -> bool:
        return self.read(TX_CONTROL)[0] & ANTENNA == ANTENNA

    def gain_db(self) -> int:
        return GAINS[(self.read(RF_CFG)[0] >> 4) & 0x07]

    def calc_crc(self, data: bytes) -> bytes:
        """The chip's own CRC coprocessor (CalcCRC) on ``data``: a check that it computes what we do."""
        self.write(write_frame(COMMAND, IDLE), write_frame(DIV_IRQ, 0x04), write_frame(FIFO_LEVEL, FLUSH),
                   write_frame(FIFO_DATA, *data), write_frame(COMMAND, CALC_CRC))
        deadline = self.now() + 0.05
        while not self.read(DIV_IRQ)[0] & CRC_IRQ:
            if self.now() > deadline:
                raise Rc522Error("the RC522's CRC coprocessor never finished")
            self.sleep(0.001)
        low, high = self.read(CRC_RESULT_L, CRC_RESULT_H)
        self.write(write_frame(COMMAND, IDLE))
        return bytes([low, high])

    # -- Transceive -----------------------------------------------------------------------------

    def transceive(self, data: bytes, *, bits: int = 0, wait: int = SHORT_WAIT) -> Reply:
        """Send ``data`` (its last byte ``bits`` bits long, 0: whole) and take the answer, or time out after
        ``wait`` timer ticks. Three SPI messages when a card answers (start, status, FIFO), two when not."""
        start = self._starts.get((data, bits, wait))
        if start is None:
            frames = (write_frame(COMMAND, IDLE), write_frame(COM_IRQ, 0x7F), write_frame(FIFO_LEVEL, FLUSH),
                      write_frame(FIFO_DATA, *data), write_frame(T_RELOAD_H, wait >> 8),
                      write_frame(T_RELOAD_L, wait & 0xFF), write_frame(COMMAND, TRANSCEIVE),
                      write_frame(BIT_FRAMING, START_SEND | bits))
            on_air = (len(data) * 9 - (8 - bits if bits else 0)) * BIT_SECONDS + FRAME_DELAY
            start = (list(frames), list(frames[:4] + frames[6:]), on_air + min(wait * TICK, 0.0007) + 0.00005)
            if len(self._starts) < 32:  # the poll's few commands (WUPA, HLTA…) are made once
                self._starts[(data, bits, wait)] = start
        # When the timer's reload is already that, two frames fewer.
        self.transfers += 1
        self.port.transfer(start[1] if wait == self._reload else start[0])
        self._reload = wait
        deadline = self.now() + 0.05 + wait * TICK
        self.sleep(start[2])  # an empty field is decided by then
        while True:
            self.transfers += 1
            irq, error, level, antenna, version = self.port.transfer(STATUS)[0][1:]
            if version in NOTHING:
                raise Rc522Error(f"nothing answers any more (VersionReg 0x{version:02X}): check the wiring")
            if antenna & ANTENNA != ANTENNA:
                raise Rc522Error("the RC522 restarted by itself (its antenna went off): a dip in its power?")
            if irq & (RX_IRQ | TIMER_IRQ | ERR_IRQ):
                break
            if self.now() > deadline:
                raise Rc522Error(f"the RC522 never finished a Transceive (ComIrqReg 0x{irq:02X})")
            self.sleep(0.0005)
        if not irq & RX_IRQ:
            return Reply(timeout=True, error=error & (BUFFER_OVFL | PROTOCOL_ERR))
        count = level & 0x7F
        received = self.read(*([FIFO_DATA] * count)) if count else b""
        # A collision is refused whole: where it lies (CollReg) and the bits around it do not matter here.
        return Reply(bytes(received), collision=bool(error & COLL_ERR),
                     error=error & (BUFFER_OVFL | CRC_ERR | PARITY_ERR | PROTOCOL_ERR))


@dataclass(frozen=True, slots=True)
class Found:
    """One poll of the field: nothing, several cards (a collision somewhere), or one card and its UID."""

    cards: int  # 0, 1, or 2 for "more than one"
    uid: bytes = b""
    sak: int = 0
    unsure: str = ""  # a frame went wrong mid-way (a card at the edge of the field): nothing is concluded

    @property
    def uid_hex(self) -> str:
        return self.uid.hex().upper()

    @property
    def is_ntag(self) -> bool:
        """Type 2 tags (NTAG21x, Ultralight): SAK 00h and a 7-byte UID, as the PN532 link tells them."""
        return self.sak == 0x00 and len(self.uid) == 7


class Pcd:
    """The proximity coupling device's side of ISO 14443-3 type A, on an :class:`Mfrc522`."""

    def __init__(self, chip: Mfrc522) -> None:
        self.chip = chip

    def poll(self) -> Found:
        """WUPA (wakes the cards at rest, halted, too), then every cascade level: anticollision, SELECT.
        One card left selected is halted again, so the next poll's WUPA finds it at rest."""
        atqa = self.chip.transceive(bytes([WUPA]), bits=7)
        if atqa.timeout:
            return Found(0)
        if atqa.collision:  # two kinds of card: their ATQAs differ
            self.halt()
            return Found(2)
        if not atqa.good or len(atqa.data) != 2:
            self.halt()
            return Found(0, unsure="wake-up")
        uid = bytearray()
        for select in SELECTS:
            answer = self.chip.transceive(bytes([select, 0x20]))
            if answer.collision:
                self.halt()  # cards left in READY go back to rest, so the next WUPA wakes them
                return Found(2)
            part = answer.data
            if not answer.good or len(part) != 5 or part[0] ^ part[1] ^ part[2] ^ part[3] != part[4]:
                self.halt()
                return Found(0, unsure="anticollision")
            frame = bytes([select, 0x70]) + part
            sak = self.chip.transceive(frame + crc_a(frame))
            if sak.collision:  # two cards with the same bytes at this level, different SAKs
                self.halt()
                return Found(2)
            if not sak.good or len(sak.data) != 3 or crc_a(sak.data[:1]) != sak.data[1:]:
                self.halt()
                return Found(0, unsure="select")
            if sak.data[0] & SAK_CASCADE:
                if part[0] != CASCADE_TAG:
                    self.halt()
                    return Found(0, unsure="cascade")
                uid += part[1:4]
                continue
            uid += part[:4]
            return Found(1, bytes(uid), sak.data[0])
        self.halt()
        return Found(0, unsure="cascade")

    def read_pages(self, page: int) -> bytes | None:
        """NTAG READ: four pages (16 bytes) from ``page`` of the selected card, None if the answer is bad."""
        frame = bytes([NTAG_READ, page])
        answer = self.chip.transceive(frame + crc_a(frame), wait=LONG_WAIT)
        data = answer.data
        if not answer.good or len(data) != 18 or crc_a(data[:16]) != data[16:]:
            return None
        return data[:16]

    def halt(self) -> None:
        """HLTA: the selected card goes to rest (HALT); cards still in READY take it as a wrong frame and go
        back to IDLE or HALT: either way the next WUPA wakes them (ISO 14443-3's state diagram)."""
        frame = bytes([HLTA, 0x00])
        self.chip.transceive(frame + crc_a(frame))
