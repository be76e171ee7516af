"""The RC522 reader: an MFRC522 on SPI, polled (no IRQ wire), one read per card laid down.

:class:`Rc522Link` is the loop body :class:`~bornes.drivers.readers.serial_reader.SerialReader` runs (its
thread, its lost/back events and backoff are every reader's), on an open ``/dev/spidevB.C``
(:mod:`~bornes.drivers.readers.spidev`) or, in tests, a model of the chip. Each poll wakes the field
(:class:`~bornes.drivers.readers.mfrc522.Pcd`); :class:`Stays` turns the polls into layings:

* a card resting on the reader is one laying, however many polls see it (each poll halts it again);
* a card gone for longer than ``quiet_gap`` and laid again is a new laying; one flickering in and out
  at the edge of the field for less than that is still the same one;
* two cards or more at once (a collision in the anticollision) are refused, "one card at a time",
  once; neither is read, and until the reader has been seen empty a card left alone is not read
  either: lift it and lay it again. A card that was already lying there stays what it was.

What a laying reads is what the PN532 reads (serial_reader.Pn532Link): an NTAG's ``MB-…`` text if
``bornes tags write`` put one there, else the tag's UID, the same hex the PN532 gives, so the binding
table of a deck enrolled on either reader serves both.
"""

from __future__ import annotations

import time
from typing import Any

from bornes.drivers.readers.base import DecoderStats, Reading
from bornes.drivers.readers.mfrc522 import CHIPS, NOTHING, Found, Mfrc522, Pcd, Rc522Error
from bornes.drivers.readers.ntag import FIRST_USER_PAGE, decode_text_tlv

#: Seconds between two polls: a card laid is seen within this and read within about 80 ms (the issue
#: asks 100), and an idle poll (one WUPA: two SPI messages, two wake-ups) costs, 17 times a second, about
#: 0.05 % of a core here on a quiet machine (python -m bench --only rc522; docs/readers.md, RC522).
POLL_INTERVAL = 0.06
#: The SPI clock: well within the MFRC522's 10 Mbit/s, and slow enough for the jumper wires of a kit.
SPI_SPEED_HZ = 1_000_000


def spidev_path(bus: int, device: int) -> str:
    """The kernel's name for chip select ``device`` of SPI bus ``bus``."""
    return f"/dev/spidev{bus}.{device}"


class Stays:
    """Which cards lie on one reader, from the polls that saw them; the clock is passed in.

    A card is gone once another card is seen alone, or once the polls have seen the field empty for longer
    than ``quiet_gap``: from the first poll that missed it to one that misses it still. Measured between
    misses, never from its last sighting, so a slow poll (a loaded machine) cannot stretch a flicker into
    two plays. A crowd (several cards at once) lasts until a poll sees the field empty: a card left alone
    before that came with it.
    """

    def __init__(self, quiet_gap: float) -> None:
        self.quiet_gap = quiet_gap
        self._seen: set[str] = set()
        self._missed: dict[str, float] = {}  # card -> the first poll that saw the field without it, since
        self._crowd = False

    def clear(self) -> None:
        self._seen.clear()
        self._missed.clear()
        self._crowd = False

    def _poll(self, now: float, present: str | None) -> None:
        """A poll that concluded: every card but ``present`` was missed by it; the gone ones are forgotten."""
        for uid in list(self._seen):
            if uid != present and now - self._missed.setdefault(uid, now) > self.quiet_gap:
                self._seen.discard(uid)
                del self._missed[uid]

    def single(self, uid: str, now: float) -> bool:
        """One card, ``uid``, seen alone: True if it is a laying to read. Every other card is gone for sure (in
        the field, it would have answered the wake-up too: a collision), so its next sighting is a laying."""
        known = uid in self._seen
        self._seen = {uid}
        self._missed.clear()
        return not known and not self._crowd  # a card left alone by a crowd came with it: not read

    def crowd(self, now: float) -> bool:
        """Several cards at once: True if it is a new crowd to refuse (said once, however long it lasts)."""
        self._missed.clear()  # the cards that lay there before it may be there still (we cannot tell)
        fresh, self._crowd = not self._crowd, True
        return fresh

    def empty(self, now: float) -> None:
        """Nothing answered: every card was missed, and a crowd is over."""
        self._poll(now, None)
        self._crowd = False

    def forget(self, uid: str) -> None:
        """The card left before it was read: its next sighting is a laying again."""
        self._seen.discard(uid)
        self._missed.pop(uid, None)


class Rc522Link:
    """Poll an RC522 and read each card laid on it once (see the module's docstring)."""

    def __init__(self, quiet_gap: float = 0.5, poll_interval: float = POLL_INTERVAL) -> None:
        self.stays = Stays(quiet_gap)
        self.poll_interval = poll_interval
        self.stats = DecoderStats()
        self.chip: Mfrc522 | None = None
        self.pcd: Pcd | None = None
        self.version = 0
        self.polls = 0
        self.unsure = 0  # polls where a frame went wrong mid-way (a card at the edge): nothing concluded

    def start(self, port: Any, sink: Any) -> None:
        chip = Mfrc522(port, now=sink.now, sleep=sink.wait)
        version = chip.version()
        if version in NOTHING:
            raise Rc522Error(f"nothing answers (VersionReg 0x{version:02X}): check the wiring (SDA to the chip "
                             "select, SCK, MOSI, MISO, 3.3 V, GND) and that SPI is on (bornes doctor)")
        chip.reset()
        chip.set_up()
        if not chip.antenna_on():
            raise Rc522Error(f"the RC522 (VersionReg 0x{version:02X}) does not keep its antenna on")
        self.chip, self.pcd, self.version = chip, Pcd(chip), version
        self.stays.clear()

    @property
    def chip_name(self) -> str:
        return CHIPS.get(self.version, f"an unknown chip (VersionReg 0x{self.version:02X})")

    def step(self, port: Any, sink: Any) -> None:
        pcd = self.pcd
        if pcd is None:
            raise Rc522Error("RC522 not started")
        found = pcd.poll()
        self.polls += 1
        now = sink.now()
        if found.unsure:
            self.unsure += 1
        elif found.cards == 0:
            self.stays.empty(now)
        elif found.cards > 1:
            if self.stays.crowd(now):
                sink.problem("one-card-at-a-time", "two or more tags in the field: tap one card at a time")
        elif found.cards == 1:
            if self.stays.single(found.uid_hex, now):
                reading = self._identify(pcd, found)
                if reading is None:
                    self.stays.forget(found.uid_hex)  # it left during the read: read it at the next poll
                else:
                    self.stats.good += 1
                    sink.reading(reading)
            pcd.halt()
        sink.wait(self.poll_interval)

    def _identify(self, pcd: Pcd, found: Found) -> Reading | None:
        """An NTAG's ``MB-…`` text (bornes tags write), else the UID; None if the card left mid-read."""
        if not found.is_ntag:
            return Reading(found.uid_hex, is_uid=True)
        memory = b""
        for page in (FIRST_USER_PAGE, FIRST_USER_PAGE + 4):
            pages = pcd.read_pages(page)
            if pages is None:
                return None
            memory += pages
        text = decode_text_tlv(memory)
        if text is not None and text.strip().upper().startswith("MB-"):
            return Reading(text.strip())
        return Reading(found.uid_hex, is_uid=True)


class ResetLine:
    """The RC522s' shared RST pin (wiring/pins.toml ``[reader] reset``): pulsed low once at start, so every
    chip starts from its reset state, then held high for the table's life (low is the chip's power-down,
    datasheet §8.8.1). A chip that restarts later on its own is set up again by its reader."""

    def __init__(self, pin: int, pin_factory: Any = None) -> None:
        from gpiozero import DigitalOutputDevice

        self.device = DigitalOutputDevice(pin, initial_value=False, pin_factory=pin_factory)
        time.sleep(0.001)  # 100 ns is the datasheet's shortest reset pulse
        self.device.on()
        time.sleep(0.05)  # the oscillator's start-up, with room (§8.8.2)

    def close(self) -> None:
        self.device.close()
