"""A model of an MFRC522 ("RC522") and of the ISO/IEC 14443-3 type A cards in its field, on a timeline.

Written from the documents, not from bornes' driver (it imports nothing of it), so the two do not share a
mistake: NXP's MFRC522 datasheet (rev. 3.9): the SPI frames of §8.1.2.3 (an address byte ``1AAAAAA0``
reads, and every further byte of the frame reads the address it carries; ``0AAAAAA0`` writes every further
byte to that one address, as the FIFO takes them), the registers of §9 with their reset values, the FIFO
of §8.3 (64 bytes, FlushBuffer, BufferOvfl), the CRC coprocessor of §8.4 (CalcCRC, the preset of ModeReg,
CRCResultReg, CRCIRq), the timer of §8.5 (t = (2·TPrescaler + 1)·(TReload + 1) / 13.56 MHz, started at the
end of a transmission by TAuto, stopped by an answer), the commands of §10.3 (Idle, CalcCRC, Transceive
started by BitFramingReg's StartSend, SoftReset), ComIrqReg/DivIrqReg with their Set1/Set2 bits, ErrorReg,
CollReg; ISO/IEC 14443-3: the card's states (POWER-OFF, IDLE, READY, ACTIVE, HALT and the READY*/ACTIVE*
of a card woken from HALT), REQA 26h and WUPA 52h as 7-bit short frames, ATQA, the anticollision and SELECT
of each cascade level (SEL 93h/95h/97h, NVB, the cascade tag 88h, BCC, SAK's cascade bit 04h), HLTA,
CRC_A (annex B), a collision where the answers of two cards differ in a bit; NXP's NTAG213/215/216 and
MIFARE Ultralight datasheets (7-byte UIDs, READ 30h: four pages, NAK), MIFARE Classic 1K/4K (4-byte UIDs,
SAK 08h/18h).

What it leaves out, since no reader of ours uses it: the bit-oriented anticollision's RxAlign (a card's
answer after a partial byte is stored from bit 0), authentication and Crypto1, the other speeds, the
interrupt pin, the UART and I2C interfaces.

The cards lie in a :class:`Field` on a timeline (laid at, lifted at), so a test lays, lifts, holds a card
flickering at the edge or two at once, ahead of time or as it goes. A card is powered while it lies in
the field and the antenna is on; lifted (even for a moment) it forgets its state and comes back IDLE.
The clock is passed in: the kernel tier's CUSE server (cuse_spi.py) runs it on the guest's monotonic
clock; bornes' fast tests on a virtual one that the driver's waits move forward.

Standard library only: the VM's own python3 runs it.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

FC = 13.56e6
BIT = 128 / FC  # one bit at 106 kbit/s
FRAME_DELAY = 1236 / FC  # ISO 14443-3: a card answers this long after the reader's last bit
RESET_TIME = 0.0005  # after SoftReset, CommandReg shows PowerDown until the oscillator runs again

REGISTER_RESET = {
    0x01: 0x20, 0x02: 0x80, 0x03: 0x00, 0x04: 0x14, 0x05: 0x00, 0x06: 0x00, 0x07: 0x21, 0x08: 0x00,
    0x0A: 0x00, 0x0B: 0x08, 0x0C: 0x10, 0x0D: 0x00, 0x0E: 0xA0, 0x11: 0x3F, 0x12: 0x00, 0x13: 0x00,
    0x14: 0x80, 0x15: 0x00, 0x16: 0x10, 0x17: 0x84, 0x18: 0x84, 0x19: 0x4D, 0x1C: 0x62, 0x1D: 0x00,
    0x1F: 0xEB, 0x21: 0xFF, 0x22: 0xFF, 0x24: 0x26, 0x26: 0x48, 0x27: 0x88, 0x28: 0x20, 0x29: 0x20,
    0x2A: 0x00, 0x2B: 0x00, 0x2C: 0x00, 0x2D: 0x00,
}
CRC_PRESETS = (0x0000, 0x6363, 0xA671, 0xFFFF)


def crc_a(data: bytes, preset: int = 0x6363) -> int:
    """ISO 14443-3 annex B: the CRC as a 16-bit number (sent low byte first)."""
    crc = preset
    for byte in data:
        byte ^= crc & 0xFF
        byte = (byte ^ (byte << 4)) & 0xFF
        crc = (crc >> 8) ^ (byte << 8) ^ (byte << 3) ^ (byte >> 4)
    return crc


def with_crc(data: bytes) -> bytes:
    crc = crc_a(data)
    return data + bytes([crc & 0xFF, crc >> 8])


def bits_of(data: bytes, count: int | None = None) -> list[int]:
    """A frame's bits as sent, least significant bit of each byte first."""
    bits = [(byte >> i) & 1 for byte in data for i in range(8)]
    return bits if count is None else bits[:count]


def bytes_of(bits: list[int]) -> bytes:
    out = bytearray((len(bits) + 7) // 8)
    for i, bit in enumerate(bits):
        out[i // 8] |= bit << (i % 8)
    return bytes(out)


# -- the cards ------------------------------------------------------------------------------------------

#: kind -> (ATQA for a 4-byte UID (a 7-byte one sets bit 6), final SAK, pages of a Type 2 tag or 0, CC)
KINDS: dict[str, tuple[int, int, int, bytes]] = {
    "classic1k": (0x0004, 0x08, 0, b""),
    "classic4k": (0x0002, 0x18, 0, b""),
    "ultralight": (0x0004, 0x00, 16, bytes(4)),
    "ntag213": (0x0004, 0x00, 45, bytes([0xE1, 0x10, 0x12, 0x00])),
    "ntag215": (0x0004, 0x00, 135, bytes([0xE1, 0x10, 0x3E, 0x00])),
    "ntag216": (0x0004, 0x00, 231, bytes([0xE1, 0x10, 0x6D, 0x00])),
}


def ndef_text(text: str) -> bytes:
    """An NDEF message TLV holding one Text record (NFC Forum), as a phone app or ``bornes tags write`` writes it."""
    payload = b"\x02en" + text.encode()
    record = bytes([0xD1, 0x01, len(payload)]) + b"T" + payload
    return bytes([0x03, len(record)]) + record + b"\xfe"


@dataclass(eq=False)
class Card:
    """One PICC: its UID (4, 7 or 10 bytes), kind, memory (Type 2 tags) and ISO 14443-3 state."""

    uid: bytes
    kind: str = "ntag213"
    pages: bytearray = field(default_factory=bytearray)
    state: str = "POWER-OFF"
    star: bool = False  # woken from HALT: READY*/ACTIVE*
    level: int = 0
    noisy: float = 0.0  # chance that an answer of this card is garbled (held at the edge of the field)
    selected: int = 0  # times a reader completed its SELECT (it knew the whole UID): for the bench's counts

    def __post_init__(self) -> None:
        if len(self.uid) not in (4, 7, 10):
            raise ValueError("a UID is 4, 7 or 10 bytes")
        _, _, page_count, cc = KINDS[self.kind]
        if page_count and not self.pages:
            memory = bytearray(page_count * 4)
            uid = self.uid.ljust(7, b"\0")
            memory[0:3] = uid[0:3]
            memory[3] = 0x88 ^ uid[0] ^ uid[1] ^ uid[2]
            memory[4:8] = uid[3:7]
            memory[8] = uid[3] ^ uid[4] ^ uid[5] ^ uid[6]
            memory[12:16] = cc
            self.pages = memory

    @classmethod
    def tag(cls, kind: str, uid: str | bytes, text: str | None = None) -> Card:
        """A card of ``kind`` with ``uid`` (hex or bytes); an NTAG/Ultralight may carry an ``MB-…`` text."""
        card = cls(bytes.fromhex(uid) if isinstance(uid, str) else uid, kind)
        if text is not None:
            if not card.pages:
                raise ValueError(f"a {kind} has no memory for text")
            data = ndef_text(text)
            card.pages[16:16 + len(data)] = data
        return card

    @property
    def atqa(self) -> int:
        base = KINDS[self.kind][0]
        return base | {4: 0x00, 7: 0x40, 10: 0x80}[len(self.uid)]

    def levels(self) -> list[bytes]:
        """The four UID bytes of each cascade level (with the cascade tag where another level follows)."""
        u = self.uid
        if len(u) == 4:
            return [u]
        if len(u) == 7:
            return [bytes([0x88]) + u[:3], u[3:]]
        return [bytes([0x88]) + u[:3], bytes([0x88]) + u[3:6], u[6:]]

    def power(self, on: bool) -> None:
        if not on:
            self.state, self.star, self.level = "POWER-OFF", False, 0
        elif self.state == "POWER-OFF":
            self.state, self.star, self.level = "IDLE", False, 0

    def _back(self) -> None:
        """An unexpected frame: back to IDLE, or to HALT for a card woken from HALT (ISO 14443-3 fig. 5)."""
        self.state, self.level = ("HALT" if self.star else "IDLE"), 0

    def receive(self, bits: list[int]) -> list[int] | None:
        """The card's answer to a frame (as bits), or None for silence; changes its state."""
        short = len(bits) == 7
        data = bytes_of(bits)
        command = data[0] if data else -1
        if self.state in ("IDLE", "HALT"):
            if short and (command == 0x52 or (command == 0x26 and self.state == "IDLE")):
                self.star = self.state == "HALT"
                self.state, self.level = "READY", 0
                return bits_of(bytes([self.atqa & 0xFF, self.atqa >> 8]))
            return None
        if self.state == "READY":
            return self._ready(bits, data)
        if self.state == "ACTIVE":
            return self._active(data)
        return None

    def _ready(self, bits: list[int], data: bytes) -> list[int] | None:
        levels = self.levels()
        select = (0x93, 0x95, 0x97)[self.level] if self.level < 3 else -1
        if len(data) < 2 or data[0] != select:
            self._back()
            return None
        part = levels[self.level]
        cl = bits_of(part + bytes([part[0] ^ part[1] ^ part[2] ^ part[3]]))
        nvb = data[1]
        if nvb == 0x70:
            if len(data) != 9 or crc_a(data[:7]) != data[7] | data[8] << 8 or bytes_of(bits[16:56]) != bytes_of(cl):
                self._back()
                return None
            if self.level + 1 < len(levels):
                self.level += 1
                return bits_of(with_crc(bytes([0x04])))
            self.state = "ACTIVE"
            self.selected += 1
            return bits_of(with_crc(bytes([KINDS[self.kind][1]])))
        known = (nvb >> 4) * 8 + (nvb & 0x0F) - 16
        if not 0 <= known < 40 or len(bits) != 16 + known:
            self._back()
            return None
        if bits[16:] != cl[:known]:
            return None  # another card's branch of the anticollision: stays READY, silent
        return cl[known:]

    def _active(self, data: bytes) -> list[int] | None:
        if len(data) == 4 and data[:2] == b"\x50\x00" and crc_a(data[:2]) == data[2] | data[3] << 8:
            self.state, self.level = "HALT", 0
            return None
        pages = len(self.pages) // 4
        if len(data) == 4 and data[0] == 0x30 and crc_a(data[:2]) == data[2] | data[3] << 8 and pages:
            page = data[1]
            if page < pages:
                memory = bytes(self.pages)  # four pages, rolling over to page 0 past the last
                chunk = b"".join(memory[(page + i) % pages * 4:(page + i) % pages * 4 + 4] for i in range(4))
                return bits_of(with_crc(chunk))
        self._back()
        return [0, 0, 0, 0]  # NAK (4 bits)


@dataclass
class Placement:
    card: Card
    spans: list[list[float]] = field(default_factory=list)  # [laid at, lifted at (inf: still there)]

    def present(self, t: float) -> bool:
        return any(start <= t < end for start, end in self.spans)

    def throughout(self, t0: float, t1: float) -> bool:
        return any(start <= t0 and t1 < end for start, end in self.spans)


class Field:
    """The cards near one antenna over time; thread-safe (the test lays cards while the chip is read)."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.placements: dict[int, Placement] = {}

    def _placement(self, card: Card) -> Placement:
        return self.placements.setdefault(id(card), Placement(card))

    def lay(self, card: Card, at: float, until: float = float("inf")) -> None:
        with self.lock:
            self._placement(card).spans.append([at, until])

    def lift(self, card: Card, at: float) -> None:
        with self.lock:
            for span in self._placement(card).spans:
                if span[0] <= at < span[1]:
                    span[1] = at

    def flicker(self, card: Card, at: float, gaps: list[tuple[float, float]], until: float) -> None:
        """Laid at ``at`` till ``until``, but out of the field during each (start, length) of ``gaps``."""
        start = at
        for gap_start, length in sorted(gaps):
            self.lay(card, start, gap_start)
            start = gap_start + length
        self.lay(card, start, until)

    def clear(self) -> None:
        with self.lock:
            self.placements.clear()

    def cards(self) -> list[Placement]:
        with self.lock:
            return list(self.placements.values())


# -- the chip ------------------------------------------------------------------------------------------


class Mfrc522Model:
    """The chip behind a chip select: ``spi_frame(mosi) -> miso`` is one frame under the chip select."""

    def __init__(self, version: int = 0x92, *, clock: Callable[[], float] = time.monotonic,
                 field_: Field | None = None, seed: int = 0) -> None:
        self.version = version
        self.clock = clock
        self.field = field_ if field_ is not None else Field()
        self.random = random.Random(seed)
        self.lock = threading.RLock()
        #: None: wired; 0x00 or 0xFF: nothing answers (MISO held low, or floating high), writes go nowhere.
        self.miso_stuck: int | None = None
        self.frames = 0
        self.transceives = 0
        self._reset_registers()
        self._last_look = self.clock()
        self._antenna_since: float | None = None

    def _reset_registers(self) -> None:
        self.regs = bytearray(64)
        for address, value in REGISTER_RESET.items():
            self.regs[address] = value
        self.regs[0x37] = self.version
        self.fifo = bytearray()
        self.crc_running = False
        self.crc_value = 0
        self.reset_until = 0.0
        self.rx_at: float | None = None  # when the pending answer is complete
        self.rx_data: tuple[bytes, int, int, int] | None = None  # data, last bits, error bits, collision pos
        self.timer_at: float | None = None
        self.timer_started = 0.0
        self.timer_period = 0.0

    # -- SPI -----------------------------------------------------------------------------------------------

    def spi_frame(self, mosi: bytes) -> bytes:
        """One chip-select frame (datasheet §8.1.2.3)."""
        with self.lock:
            self.frames += 1
            if self.miso_stuck is not None or not mosi:
                return bytes([self.miso_stuck or 0]) * len(mosi)
            address = (mosi[0] >> 1) & 0x3F
            if mosi[0] & 0x80:
                out = bytearray([0])
                for byte in mosi[1:]:
                    out.append(self.read(address))
                    address = (byte >> 1) & 0x3F
                return bytes(out)
            for byte in mosi[1:]:
                self.write(address, byte)
            return bytes(len(mosi))

    def transfer(self, frames: Sequence[bytes]) -> list[bytes]:
        """The driver's SpiPort: a message of frames, each under its own chip select."""
        return [self.spi_frame(frame) for frame in frames]

    def close(self) -> None:
        """The SpiPort's close: nothing to release."""

    # -- registers -------------------------------------------------------------------------------------

    def read(self, address: int) -> int:
        now = self.clock()
        self._advance(now)
        if address == 0x09:
            return self.fifo.pop(0) if self.fifo else 0x00
        if address == 0x0A:
            return len(self.fifo)
        if address == 0x01:
            if now < self.reset_until:
                return 0x10 | 0x0F
            return self.regs[0x01]
        if address in (0x2E, 0x2F):
            left = 0
            if self.timer_at is not None and now < self.timer_at:
                prescaler = ((self.regs[0x2A] & 0x0F) << 8) | self.regs[0x2B]
                left = int((self.timer_at - now) * FC / (2 * prescaler + 1))
            return (left >> 8) & 0xFF if address == 0x2E else left & 0xFF
        return self.regs[address]

    def write(self, address: int, value: int) -> None:
        now = self.clock()
        self._advance(now)
        if address in (0x07, 0x37):
            return  # read-only: Status1Reg, VersionReg
        if address == 0x09:
            if len(self.fifo) >= 64:
                self.regs[0x06] |= 0x10  # BufferOvfl
            else:
                self.fifo.append(value)
                if self.crc_running:  # CalcCRC goes on with each byte written (datasheet §10.3.1.4)
                    self._calc_crc()
            return
        if address == 0x0A:
            if value & 0x80:
                self.fifo.clear()
                self.regs[0x06] &= ~0x10 & 0xFF
            return
        if address in (0x04, 0x05):  # Set1 / Set2: set or clear the marked bits
            mask = value & 0x7F
            if value & 0x80:
                self.regs[address] |= mask
            else:
                self.regs[address] &= ~mask & 0xFF
            return
        if address == 0x01:
            self._command(value, now)
            return
        if address == 0x0D:
            self.regs[0x0D] = value & 0x7F
            if value & 0x80 and self.regs[0x01] & 0x0F == 0x0C:
                self._transceive(now)
            return
        if address == 0x14:
            was = self.regs[0x14] & 0x03
            self.regs[0x14] = value
            if bool(was) != bool(value & 0x03):
                self._antenna(bool(value & 0x03), now)
            return
        self.regs[address] = value

    def _command(self, value: int, now: float) -> None:
        command = value & 0x0F
        if command == 0x0F:  # SoftReset: every register to its reset value, the antenna off
            self._antenna(False, now)
            self._reset_registers()
            self.reset_until = now + RESET_TIME
            return
        self.regs[0x01] = value & 0x3F
        self.crc_running = command == 0x03
        if command == 0x03:
            self.crc_value = CRC_PRESETS[self.regs[0x11] & 0x03]
            self._calc_crc()
        elif command == 0x00:  # Idle stops whatever ran (a pending answer is dropped, the timer runs on)
            self.rx_at = self.rx_data = None

    def _calc_crc(self) -> None:
        """The coprocessor takes the FIFO's bytes into the running CRC; the result is in CRCResultReg."""
        self.crc_value = crc_a(bytes(self.fifo), self.crc_value)
        self.fifo.clear()
        self.regs[0x21], self.regs[0x22] = self.crc_value >> 8, self.crc_value & 0xFF
        self.regs[0x05] |= 0x04  # CRCIRq

    def _antenna(self, on: bool, now: float) -> None:
        self._look(now)
        self._antenna_since = now if on else None
        for placement in self.field.cards():
            placement.card.power(False)
        self._last_look = now

    # -- the air ---------------------------------------------------------------------------------------

    def _look(self, now: float) -> list[Card]:
        """Power the cards as the timeline says: a card that left the field since the last look forgot its state."""
        powered = []
        antenna = self._antenna_since is not None
        for placement in self.field.cards():
            if antenna and placement.throughout(max(self._last_look, self._antenna_since or now), now):
                placement.card.power(True)
                powered.append(placement.card)
            else:
                placement.card.power(False)
                if antenna and placement.present(now):
                    placement.card.power(True)
                    powered.append(placement.card)
        self._last_look = now
        return powered

    def _transceive(self, now: float) -> None:
        self.transceives += 1
        data = bytes(self.fifo)
        self.fifo.clear()
        last = self.regs[0x0D] & 0x07
        if self.regs[0x12] & 0x80 and not last:  # TxCRCEn: the chip appends CRC_A
            crc = crc_a(data, CRC_PRESETS[self.regs[0x11] & 0x03])
            data += bytes([crc & 0xFF, crc >> 8])
        count = len(data) * 8 - (8 - last if last else 0)
        sent = bits_of(data, count)
        self.regs[0x06] &= 0x10  # the errors of the last command are cleared as this one starts
        tx_end = now + (count + count // 8 + 2) * BIT
        answers = []
        for card in self._look(now):
            answer = card.receive(sent)
            if answer is not None:
                if card.noisy and self.random.random() < card.noisy:
                    answer = [bit ^ self.random.getrandbits(1) for bit in answer]
                    answers.append((answer, True))
                else:
                    answers.append((answer, False))
        prescaler = ((self.regs[0x2A] & 0x0F) << 8) | self.regs[0x2B]
        reload_ = (self.regs[0x2C] << 8) | self.regs[0x2D]
        period = (2 * prescaler + 1) * (reload_ + 1) / FC
        self.timer_at = tx_end + period if self.regs[0x2A] & 0x80 else None
        self.rx_at = self.rx_data = None
        receiving = not self.regs[0x01] & 0x20  # RcvOff
        if answers and receiving and (self.timer_at is None or tx_end + FRAME_DELAY < self.timer_at):
            self.timer_at = None  # an answer's first bits stop the timer (TAuto)
            self.rx_data = self._combine(answers)
            longest = max(len(bits) for bits, _ in answers)
            self.rx_at = tx_end + FRAME_DELAY + (longest + longest // 8 + 2) * BIT

    def _combine(self, answers: list[tuple[list[int], bool]]) -> tuple[bytes, int, int, int]:
        """What the receiver makes of one or several answers: a collision at the first bit they differ in."""
        length = max(len(bits) for bits, _ in answers)
        combined, first = [], 0
        for i in range(length):
            values = {bits[i] if i < len(bits) else None for bits, _ in answers}
            if len(values) > 1 and not first:
                first = i + 1
            combined.append(1 if 1 in values else 0)
        error = 0
        if first:
            error |= 0x08  # CollErr
        if any(noisy for _, noisy in answers):
            error |= 0x02  # ParityErr: a garbled answer
        return bytes_of(combined), length % 8, error, first

    def _advance(self, now: float) -> None:
        """What happened on air up to ``now``: an answer received, or the timer run out."""
        if self.rx_at is not None and now >= self.rx_at and self.rx_data is not None:
            data, last, error, first = self.rx_data
            self.rx_at = self.rx_data = None
            for byte in data:
                if len(self.fifo) < 64:
                    self.fifo.append(byte)
            self.regs[0x0C] = (self.regs[0x0C] & 0xF8) | last
            self.regs[0x06] |= error
            if first:
                self.regs[0x0E] = (self.regs[0x0E] & 0x80) | (first if first < 32 else 0) | \
                    (0x20 if first > 32 else 0)
            self.regs[0x04] |= 0x20 | (0x02 if error else 0)  # RxIRq, ErrIRq
        if self.timer_at is not None and now >= self.timer_at:
            self.timer_at = None
            self.regs[0x04] |= 0x01  # TimerIRq


def build(spec: dict[str, object]) -> Card:
    """A card from a JSON description: ``{"kind": "ntag213", "uid": "04A1…", "text": "MB-…", "noisy": 0.3}``."""
    text = spec.get("text")
    card = Card.tag(str(spec["kind"]), str(spec["uid"]), text if isinstance(text, str) else None)
    noisy = spec.get("noisy")
    card.noisy = float(noisy) if isinstance(noisy, int | float) else 0.0
    return card
