"""The RC522 reader: an MFRC522 on SPI, polled (no IRQ wire), one read per card laid down.

:class:`Rc522Link` is the loop body :class:`~bornes.drivers.readers.serial_reader.SerialReader` runs (its
thread, its lost/back events and backoff are every reader's), on an open ``/dev/spidevB.C``
(:mod:`~bornes.drivers.readers.spidev`) or, in tests, a model of the chip. Each poll wakes the field
(:class:`~bornes.drivers.readers.mfrc522.Pcd`), an idle one in a single wake-up of the thread (the WUPA goes
out before the wait and is read after it, :meth:`Rc522Link.step`); :class:`Stays` turns the polls into layings:

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

#: Seconds between two polls. An idle poll is one wake-up: the WUPA is started before the wait, answered by
#: the chip during it, and its answer read when the thread wakes (Rc522Link.step); a card is seen by the first
#: WUPA after it is laid (within 45 ms) and read at the wake-up after (within 90 ms, and a few ms of frames):
#: the issue's 100 ms. Twenty-two wake-ups a second where a poll sent and waited for at once took two, 17 times
#: a second (python -m bench --only rc522; docs/readers.md, RC522).
POLL_INTERVAL = 0.045
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
        self.polls = 0  # polls concluded
        self.looked_at = float("-inf")  # the moment the last concluded poll looked at the field
        self.unsure = 0  # polls where a frame went wrong mid-way (a card at the edge): nothing concluded
        self.fresh = 0  # polls made at once, waited for: something answered the WUPA sent ahead, or a late wake-up
        self.sent_at: float | None = None  # the WUPA sent before the wait, when
        self._due: float | None = None  # when this wake-up was meant to be

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
        self.sent_at = self._due = None

    @property
    def chip_name(self) -> str:
        return CHIPS.get(self.version, f"an unknown chip (VersionReg 0x{self.version:02X})")

    def step(self, port: Any, sink: Any) -> None:
        """One poll, then the wait till the next one's due moment, with the next poll's WUPA on air.

        The WUPA sent before the wait says, when the thread wakes, whether any card was there when it went out.
        If none answered, the field was empty then: concluded as of that moment, and the next WUPA goes out,
        one wake-up a poll. If anything answered, nothing is concluded from it (a card may have come or gone
        since): those it woke go back to rest and a fresh poll, waited for, decides, as it does after a wake-up
        too late to trust a WUPA that old. The waits are by deadline: work and late wake-ups do not push the
        next poll later."""
        pcd = self.pcd
        if pcd is None:
            raise Rc522Error("RC522 not started")
        now = sink.now()
        due = now if self._due is None else self._due
        late = now - due > self.poll_interval / 2
        sent_at, self.sent_at = self.sent_at, None
        fresh = True
        if sent_at is not None:
            woken = pcd.woken()
            if woken.timeout:
                self._conclude(pcd, Found(0), sent_at, sink)
                fresh = late
            else:
                if woken.collision:  # two kinds of card answered (their ATQAs differ): a crowd was there then
                    self._conclude(pcd, Found(2), sent_at, sink)
                pcd.halt()  # whoever it woke waits in READY: back to rest, so the fresh WUPA wakes them all
        if fresh:
            self.fresh += 1
            looked = sink.now()
            self._conclude(pcd, pcd.poll(), looked, sink)
        on_air = pcd.wake_up()
        self.sent_at = sink.now()
        self._due = due + self.poll_interval if not late else self.sent_at + self.poll_interval
        sink.wait(max(self._due - self.sent_at, on_air))

    def _conclude(self, pcd: Pcd, found: Found, looked: float, sink: Any) -> None:
        """What a poll that looked at the field at ``looked`` found: a laying read, a crowd refused, or nothing."""
        self.polls += 1
        self.looked_at = looked
        if found.unsure:
            self.unsure += 1
        elif found.cards == 0:
            self.stays.empty(looked)
        elif found.cards > 1:
            if self.stays.crowd(looked):
                sink.problem("one-card-at-a-time", "two or more tags in the field: tap one card at a time")
        elif found.cards == 1:
            if self.stays.single(found.uid_hex, looked):
                reading = self._identify(pcd, found)
                if reading is None:
                    self.stays.forget(found.uid_hex)  # it left during the read: read it at the next poll
                else:
                    self.stats.good += 1
                    sink.reading(reading)
            pcd.halt()

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
