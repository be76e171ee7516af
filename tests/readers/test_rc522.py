"""The RC522 reader against a model of the MFRC522 and of ISO 14443-3 cards (tools/kernel/guest/mfrc522_model.py).

The model is behind the driver's SPI seam (``SpiPort.transfer``: the frames of one SPI message), the same
model the kernel tier serves as a real ``/dev/spidev0.0`` through CUSE (tests/kernel/test_rc522.py). Here
it runs on a virtual clock that the driver's own waits move forward, so a whole timeline of cards laid,
lifted, flickering and two at once plays in milliseconds and the same way every time. One test runs the
reader's real thread on the real clock (the one fast check of that family); the unplug test is slow.
"""

from __future__ import annotations

import queue
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from bornes.drivers.events import (
    CardScanned,
    ControlScanned,
    DeviceFailure,
    Failure,
    ReaderBack,
    ReaderLost,
    ReaderProblem,
    UnknownScanned,
)
from bornes.drivers.readers import BindingTable, CardResolver, open_reader
from bornes.drivers.readers.base import Reading
from bornes.drivers.readers.mfrc522 import Mfrc522, Pcd, Rc522Error, crc_a
from bornes.drivers.readers.rc522 import POLL_INTERVAL, Rc522Link, Stays
from bornes.drivers.readers.spidev import (
    SPI_IOC_RD_MODE,
    SPI_IOC_WR_BITS_PER_WORD,
    SPI_IOC_WR_MAX_SPEED_HZ,
    SPI_IOC_WR_MODE,
    spi_ioc_message,
)
from tests.readers.fakes import FakePn532, FakeTag, wait_for
from tools.kernel.guest.mfrc522_model import Card, Mfrc522Model
from tools.kernel.guest.mfrc522_model import crc_a as model_crc


class Clock:
    """Virtual seconds: the model reads them, the driver's waits move them on."""

    def __init__(self) -> None:
        self.t = 1000.0

    def now(self) -> float:
        return self.t

    def wait(self, seconds: float) -> bool:
        self.t += max(seconds, 1e-6)
        return False


@dataclass
class Bench:
    """One reader on a virtual clock: the model, the link, and what the link said (with when)."""

    version: int = 0x92
    clock: Clock = field(default_factory=Clock)
    said: list[tuple[str, str, float]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.model = Mfrc522Model(self.version, clock=self.clock.now)
        self.link = Rc522Link()

    # the Sink the link reports to
    def reading(self, reading: Reading) -> None:
        self.said.append(("read", reading.raw, self.clock.t))

    def problem(self, kind: str, detail: str) -> None:
        self.said.append(("problem", kind, self.clock.t))

    def emit(self, event: object) -> None:
        raise AssertionError(f"the RC522 emits no whole events: {event!r}")

    def now(self) -> float:
        return self.clock.t

    def wait(self, seconds: float) -> bool:
        return self.clock.wait(seconds)

    def start(self) -> Bench:
        self.link.start(self.model, self)
        self.t0 = self.clock.t
        return self

    def at(self, seconds: float) -> float:
        return self.t0 + seconds

    def run(self, until: float) -> list[tuple[str, str, float]]:
        while self.clock.t < self.at(until):
            self.link.step(self.model, self)
        return [(kind, what, round(t - self.t0, 3)) for kind, what, t in self.said]


NTAG = "04A1B2C3D4E5F6"


def test_crc_a_is_iso_14443_annex_b_in_the_driver_the_model_and_the_chips_coprocessor() -> None:
    assert crc_a(b"\x00\x00") == bytes([0xA0, 0x1E]) and crc_a(b"\x12\x34") == bytes([0x26, 0xCF])  # annex B
    bench = Bench().start()
    chip = Mfrc522(bench.model, now=bench.now, sleep=bench.wait)
    for data in (b"\x00\x00", b"\x12\x34", b"\x93\x70\x88\x04\xa1\xb2\x9f", bytes(range(40))):
        assert chip.calc_crc(data) == crc_a(data) == model_crc(data).to_bytes(2, "little")


def test_the_ioctl_numbers_are_spidev_h_s() -> None:
    # include/uapi/linux/spi/spidev.h: _IOW('k', 0, char[32]) and friends, as the kernel computes them.
    assert spi_ioc_message(1) == 0x40206B00 and spi_ioc_message(4) == 0x40806B00
    assert (SPI_IOC_WR_MODE, SPI_IOC_RD_MODE) == (0x40016B01, 0x80016B01)
    assert (SPI_IOC_WR_BITS_PER_WORD, SPI_IOC_WR_MAX_SPEED_HZ) == (0x40016B03, 0x40046B04)


@pytest.mark.parametrize("version", [0x91, 0x92, 0x88, 0xB2])
def test_a_genuine_chip_or_a_known_clone_starts(version: int) -> None:
    bench = Bench(version).start()
    assert bench.link.version == version and bench.link.chip_name.startswith(("MFRC522", "FM17522"))
    assert bench.model.regs[0x14] & 0x03 == 0x03  # the antenna's drivers on


@pytest.mark.parametrize("stuck", [0x00, 0xFF])
def test_nothing_answering_is_the_wiring_in_one_line(stuck: int) -> None:
    bench = Bench()
    bench.model.miso_stuck = stuck
    with pytest.raises(Rc522Error, match=rf"nothing answers \(VersionReg 0x{stuck:02X}\): check the wiring"):
        bench.start()


def test_the_versionreg_of_a_chip_that_reads_00_is_nothing_answering() -> None:
    """The model's VersionReg at 0x00 (a chip that answers nothing useful): no reader, said so."""
    with pytest.raises(Rc522Error, match=r"VersionReg 0x00"):
        Bench(0x00).start()


@pytest.mark.parametrize(("kind", "uid", "sak"), [
    ("classic1k", "DEADBEEF", 0x08), ("classic4k", "0A0B0C0D", 0x18), ("ultralight", "04112233445566", 0x00),
    ("ntag213", NTAG, 0x00), ("ntag215", "04C0FFEE123456", 0x00), ("ntag216", "04AABBCCDDEEFF", 0x00),
    ("ntag213", "04112233445566778899", 0x00),  # a triple-size UID: three cascade levels
])
def test_each_kind_of_tag_gives_its_whole_uid_through_its_cascade_levels(kind: str, uid: str, sak: int) -> None:
    bench = Bench().start()
    bench.model.field.lay(Card.tag(kind, uid), bench.clock.t)
    found = Pcd(Mfrc522(bench.model, now=bench.now, sleep=bench.wait)).poll()
    assert (found.cards, found.uid_hex, found.sak) == (1, uid, sak)
    assert found.is_ntag == (sak == 0 and len(uid) == 14)


def test_what_a_laying_reads_an_ntags_text_else_its_uid() -> None:
    bench = Bench().start()
    cards = [Card.tag("ntag213", NTAG, "MB-D100-07"), Card.tag("ntag215", "04000000000001"),
             Card.tag("classic1k", "DEADBEEF"), Card.tag("ultralight", "04000000000002", "MB-CMD-OK")]
    for number, card in enumerate(cards):
        bench.model.field.lay(card, bench.at(1 + number), bench.at(1.5 + number))
    assert [what for _, what, _ in bench.run(5)] == ["MB-D100-07", "04000000000001", "DEADBEEF", "MB-CMD-OK"]


def test_one_play_per_card_laid_down() -> None:
    """The issue's timeline: resting, lifted and laid again, flickering at the edge, two at once."""
    bench = Bench().start()
    a, b, c = Card.tag("ntag213", NTAG, "MB-D100-07"), Card.tag("classic1k", "DEADBEEF"), \
        Card.tag("ntag213", "04000000000003")
    field_ = bench.model.field
    field_.lay(a, bench.at(0.2), bench.at(2.2))  # resting two seconds: read once
    field_.lay(a, bench.at(3.0), bench.at(3.5))  # lifted, laid again: a new play
    field_.flicker(b, bench.at(4.0), [(bench.at(4.3), 0.25), (bench.at(4.7), 0.1)], bench.at(5.0))  # at the edge
    field_.lay(a, bench.at(6.0), bench.at(6.8))  # two at once: refused, neither read ...
    field_.lay(c, bench.at(6.0), bench.at(6.5))  # ... and a, left alone, came with them: not read either
    field_.lay(c, bench.at(8.0), bench.at(9.5))  # c resting ...
    field_.lay(b, bench.at(8.5), bench.at(8.9))  # ... b laid on it: refused; c is not read again when b leaves
    said = bench.run(10.5)
    assert [(kind, what) for kind, what, _ in said] == [
        ("read", "MB-D100-07"), ("read", "MB-D100-07"), ("read", "DEADBEEF"), ("problem", "one-card-at-a-time"),
        ("read", "04000000000003"), ("problem", "one-card-at-a-time")], said
    laid = [0.2, 3.0, 4.0, 6.0, 8.0, 8.5]
    for (_, _, when), at in zip(said, laid, strict=True):
        assert at <= when <= at + 0.1, said  # seen within 100 ms of being laid (virtual time: the polls' own)


def test_a_card_garbled_at_the_edge_of_the_field_is_never_misread() -> None:
    bench = Bench().start()
    card = Card.tag("ntag213", NTAG, "MB-STOP-01")
    card.noisy = 0.5  # every other answer garbled
    bench.model.field.lay(card, bench.at(0.1), bench.at(3.0))
    said = bench.run(3.5)
    assert [(kind, what) for kind, what, _ in said] == [("read", "MB-STOP-01")], said
    assert bench.link.unsure > 0  # the garbled polls concluded nothing


def test_an_idle_poll_is_one_wake_up_in_two_spi_messages() -> None:
    """What the idle CPU figure rests on (python -m bench --only rc522 measures it)."""
    bench = Bench().start()
    assert bench.link.chip is not None
    before, frames = bench.link.chip.transfers, bench.model.frames
    bench.run(1.0)
    polls = bench.link.polls
    assert 1 / POLL_INTERVAL * 0.8 <= polls <= 1 / POLL_INTERVAL + 1
    assert bench.link.chip.transfers - before == 2 * polls
    # seven chip-select frames: Idle, clear the IRQs, flush, WUPA, Transceive, StartSend with 7 bits, the status
    assert bench.model.transceives == polls and bench.model.frames - frames == 7 * polls + 2  # + the timer once


def test_a_chip_that_restarts_by_itself_is_noticed_and_set_up_again() -> None:
    bench = Bench().start()
    bench.model.write(0x01, 0x0F)  # a soft reset behind the driver's back (a dip in its power)
    with pytest.raises(Rc522Error, match="restarted by itself"):
        bench.run(0.2)
    bench.link.start(bench.model, bench)  # what the reader thread does after a loss
    bench.model.field.lay(Card.tag("classic1k", "DEADBEEF"), bench.clock.t + 0.1)
    assert bench.run(1.0)[-1][:2] == ("read", "DEADBEEF")


def test_stays_alone() -> None:
    stays = Stays(quiet_gap=0.5)
    assert stays.single("A", 0.0) and not stays.single("A", 0.3) and not stays.single("A", 2.0)  # slow polls
    stays.empty(2.1)
    stays.empty(2.4)
    assert not stays.single("A", 2.9)  # missed by polls 0.3 s apart, seen 0.8 s after: still the same laying
    stays.empty(3.0)
    stays.empty(3.6)  # missed for longer than quiet_gap: gone
    assert stays.single("A", 3.7)  # a new laying
    assert stays.crowd(3.8) and not stays.crowd(3.9)  # one refusal per crowd
    assert not stays.single("B", 4.0)  # came with the crowd
    assert not stays.single("A", 4.0)  # A lay there before it: still the same laying
    stays.empty(4.1)
    assert stays.single("C", 4.2)
    assert stays.single("A", 4.3)  # C seen alone: A was gone, however short the time


# -- the real thread, the resolver and the PN532's keys -----------------------------------------------------


def _events(events: queue.Queue[Any]) -> Iterator[Any]:
    while True:
        try:
            yield events.get_nowait()
        except queue.Empty:
            return


def test_an_enrolled_deck_reads_the_same_on_a_pn532_and_an_rc522() -> None:
    """Tags enrolled through a PN532 (their UIDs, as InListPassiveTarget gives them) are the same card keys
    on an RC522: the reader thread on the real clock, over the model (the one fast check of its family)."""
    tags = {"DEADBEEF": "MB-D100-01", "04A1B2C3D4E5F6": "MB-STOP-01", "04C0FFEE123456": "MB-CMD-OK"}
    pn532 = FakePn532()
    events: queue.Queue[Any] = queue.Queue()
    uids = []
    with open_reader("pn532", pn532.path, events, double_read_window=0):
        wait_for(events, lambda e: isinstance(e, ReaderBack))
        for uid in tags:
            pn532.put(FakeTag(bytes.fromhex(uid), ntag=len(uid) == 14))
            seen = wait_for(events, lambda e: isinstance(e, UnknownScanned))[-1]
            uids.append(seen.raw)
            pn532.put()
    pn532.close()
    assert uids == list(tags)
    bindings = BindingTable(dict(zip(uids, tags.values(), strict=True)))  # what `bornes enroll` would save
    model = Mfrc522Model()
    events = queue.Queue()
    with open_reader("rc522", "/dev/spidev0.0", events, bindings=bindings, double_read_window=0,
                     serial_factory=lambda port, speed, timeout: model):
        wait_for(events, lambda e: isinstance(e, ReaderBack))
        for uid, payload in tags.items():
            card = Card.tag("classic1k" if len(uid) == 8 else "ntag213", uid)
            model.field.lay(card, model.clock())
            read = wait_for(events, lambda e: isinstance(e, CardScanned | ControlScanned))[-1]
            assert read.raw == uid and (read.card.code() if isinstance(read, CardScanned) else
                                        f"MB-CMD-{read.name}") == payload
            model.field.clear()
    assert not [e for e in _events(events) if not isinstance(e, ReaderBack)]


@pytest.mark.slow
def test_wiring_pulled_out_and_back_is_reader_lost_and_back() -> None:
    model = Mfrc522Model()
    events: queue.Queue[Any] = queue.Queue()
    with open_reader("rc522", "/dev/spidev0.0", events, double_read_window=0, max_backoff=0.2,
                     serial_factory=lambda port, speed, timeout: model):
        wait_for(events, lambda e: isinstance(e, ReaderBack))
        model.miso_stuck = 0x00
        lost = wait_for(events, lambda e: isinstance(e, ReaderLost))[-1]
        assert isinstance(lost.detail, DeviceFailure) and lost.detail.kind is Failure.NO_ANSWER, lost.detail
        assert "nothing answers" in lost.detail.system and "VersionReg 0x00" in lost.detail.system, lost.detail
        model.miso_stuck = None
        wait_for(events, lambda e: isinstance(e, ReaderBack))
        model.field.lay(Card.tag("classic1k", "DEADBEEF"), model.clock())
        assert wait_for(events, lambda e: isinstance(e, UnknownScanned))[-1].raw == "DEADBEEF"
        model.field.lay(Card.tag("ntag213", NTAG), model.clock())
        problem = wait_for(events, lambda e: isinstance(e, ReaderProblem))[-1]
        assert problem.kind == "one-card-at-a-time"


def test_the_resolver_sees_an_rc522_uid_as_it_sees_a_pn532_one() -> None:
    resolver = CardResolver({"04A1B2C3D4E5F6": "MB-D100-07"}, reader="pad A", pad="A")
    event = resolver.resolve(NTAG, is_uid=True)
    assert isinstance(event, CardScanned) and event.card.code() == "MB-D100-07" and event.pad == "A"
