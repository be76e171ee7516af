"""The reader thread on real pyserial: loop://, pseudo-terminals, unplug and replug."""

from __future__ import annotations

import os
import queue
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import serial

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
from bornes.drivers.readers import BindingTable, ReaderConfigError, make_link, open_reader
from bornes.drivers.readers.em4100 import em4100_frame
from bornes.drivers.readers.ntag import encode_text_tlv
from bornes.drivers.readers.serial_reader import SerialReader
from bornes.engine.cards import Card, CardKind
from tests.readers.fakes import FakePn532, FakeTag, PtyDevice, drain, wait_for

Events = queue.Queue[Any]


def is_back(event: object) -> bool:
    return isinstance(event, ReaderBack)


def card_of(event: object) -> str | None:
    return event.card.code() if isinstance(event, CardScanned) else None


class LoopFactory:
    """Hands the reader a loop:// port the test can also write into."""

    def __init__(self) -> None:
        self.port = serial.serial_for_url("loop://", timeout=0.2)

    def __call__(self, port: str, baudrate: int, timeout: float) -> Any:
        self.port.timeout = timeout
        return self.port


def test_lines_over_loop() -> None:
    events: Events = queue.Queue()
    loop = LoopFactory()
    reader = open_reader("lines", "loop://", events, serial_factory=loop, prefix="*")
    try:
        wait_for(events, is_back)
        loop.port.write(b"*MB-D100-07\r\nMB-CMD-OK\rhello\nmb-stop-03\r\n")
        got = wait_for(events, lambda e: isinstance(e, CardScanned) and e.card.kind is CardKind.STOP)
        assert isinstance(got[0], CardScanned) and got[0].card == Card(CardKind.D100, 7)
        assert isinstance(got[1], ControlScanned) and got[1].name == "OK"
        assert isinstance(got[2], UnknownScanned) and got[2].raw == "hello"
    finally:
        reader.close()
        reader.close()  # idempotent


def test_em4100_over_loop_collapses_repeats_with_an_injected_clock() -> None:
    events: Events = queue.Queue()
    loop = LoopFactory()
    clock = [100.0]
    bindings = {"0F00A1B2C3": "MB-D200-01", "1122334455": "MB-CMD-UNDO"}
    reader = open_reader(
        "em4100", "loop://", events, serial_factory=loop, bindings=bindings, monotonic=lambda: clock[0]
    )
    try:
        wait_for(events, is_back)
        for _ in range(20):  # the tag sits on the antenna: the module repeats the frame
            loop.port.write(em4100_frame("0F00A1B2C3"))
            clock[0] += 0.1
        loop.port.write(em4100_frame("1122334455", crlf=True))
        got = wait_for(events, lambda e: isinstance(e, ControlScanned))
        assert [card_of(e) for e in got].count("MB-D200-01") == 1
        clock[0] += 3.0  # long quiet gap and outside the double-read window: a new arrival
        loop.port.write(em4100_frame("0F00A1B2C3"))
        got = wait_for(events, lambda e: isinstance(e, CardScanned))
        assert card_of(got[-1]) == "MB-D200-01"
        loop.port.write(em4100_frame("ABCDEF0123"))
        got = wait_for(events, lambda e: isinstance(e, UnknownScanned))
        assert got[-1].raw == "ABCDEF0123" and "not enrolled" in got[-1].reason
    finally:
        reader.close()


def test_double_read_suppressed_in_the_driver() -> None:
    events: Events = queue.Queue()
    loop = LoopFactory()
    clock = [0.0]
    reader = open_reader("lines", "loop://", events, serial_factory=loop, monotonic=lambda: clock[0])
    try:
        wait_for(events, is_back)
        loop.port.write(b"MB-D50-02\n")
        wait_for(events, lambda e: isinstance(e, CardScanned))
        clock[0] = 1.0
        loop.port.write(b"MB-D50-02\nMB-D50-03\n")
        got = wait_for(events, lambda e: card_of(e) == "MB-D50-03")
        assert [card_of(e) for e in got] == ["MB-D50-03"]
        clock[0] = 3.0
        loop.port.write(b"MB-D50-02\n")
        assert card_of(wait_for(events, lambda e: isinstance(e, CardScanned))[-1]) == "MB-D50-02"
        assert reader.stats.double_reads == 1
    finally:
        reader.close()


def test_checksum_errors_are_reported_and_the_next_frame_reads() -> None:
    events: Events = queue.Queue()
    loop = LoopFactory()
    reader = open_reader("em4100", "loop://", events, serial_factory=loop, bindings={"0102030405": "MB-ROLL-01"})
    try:
        wait_for(events, is_back)
        loop.port.write(em4100_frame("0102030405", checksum=0xEE) + em4100_frame("0102030405"))
        got = wait_for(events, lambda e: isinstance(e, ReaderProblem) and e.kind == "checksum")
        if not any(isinstance(e, CardScanned) for e in got):  # the problem is reported after the step that read both
            got += wait_for(events, lambda e: isinstance(e, CardScanned))
        assert card_of(next(e for e in got if isinstance(e, CardScanned))) == "MB-ROLL-01"
        assert reader.stats.bad_checksums == 1
    finally:
        reader.close()


@pytest.mark.parametrize("protocol", ["lines", "em4100"])
def test_passive_reader_on_a_pty_survives_unplug_and_replug_under_a_stable_name(protocol: str, tmp_path: Path) -> None:
    def send(device: PtyDevice) -> None:
        device.write(b"MB-D75-04\r\n" if protocol == "lines" else em4100_frame("0F00A1B2C3", crlf=True))

    events: Events = queue.Queue()
    stable = tmp_path / "bornes-reader"
    first = PtyDevice()
    stable.symlink_to(first.path)
    bindings = {"0F00A1B2C3": "MB-D75-04"}
    reader = open_reader(protocol, str(stable), events, bindings=bindings, max_backoff=0.4, double_read_window=0.5)
    try:
        wait_for(events, is_back)
        send(first)
        assert card_of(wait_for(events, lambda e: isinstance(e, CardScanned))[-1]) == "MB-D75-04"

        first.unplug()  # the cable is pulled: the device node goes away
        stable.unlink()
        wait_for(events, lambda e: isinstance(e, ReaderLost))
        time.sleep(0.5)  # several failed reopen attempts, but only one ReaderLost
        assert not [e for e in drain(events, 0.1) if isinstance(e, ReaderLost)]

        second = PtyDevice()  # plugged back in: a new node behind the same stable name
        stable.symlink_to(second.path)
        wait_for(events, is_back)  # no stopwatch here: a loaded machine may pause any thread (backoff: 0.4 s at most)
        send(second)
        assert card_of(wait_for(events, lambda e: isinstance(e, CardScanned))[-1]) == "MB-D75-04"
        assert reader.stats.reconnects == 1
        second.unplug()
    finally:
        reader.close()


class CountingStop(threading.Event):
    """A reader's stop flag that records each backoff it is asked to wait instead of waiting; set after ``limit``."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit
        self.waits: list[float | None] = []

    def wait(self, timeout: float | None = None) -> bool:
        self.waits.append(timeout)
        if len(self.waits) >= self.limit:
            self.set()
        return self.is_set()


def test_the_backoff_doubles_up_to_its_ceiling_and_stays_there() -> None:
    """The reconnect promise (a replugged reader is read again within max_backoff), without a stopwatch:
    the reader's loop is run in this thread and the waits it asks for are recorded, not slept."""
    attempts: list[str] = []

    def absent(port: str, baudrate: int, timeout: float) -> Any:
        attempts.append(port)
        raise serial.SerialException(2, f"could not open port {port}: No such file or directory")

    events: Events = queue.Queue()
    reader = SerialReader("/dev/bornes-reader", events, make_link("lines"), baudrate=9600, max_backoff=2.0,
                          serial_factory=absent)
    stop = CountingStop(limit=9)
    reader._stop = stop
    reader._run()
    assert stop.waits == [0.1, 0.2, 0.4, 0.8, 1.6, 2.0, 2.0, 2.0, 2.0]
    assert len(attempts) == 9
    lost = drain(events, 0)
    assert len(lost) == 1 and isinstance(lost[0], ReaderLost)  # said once, not at every attempt


def test_replug_on_the_same_path_and_missing_port_at_start(tmp_path: Path) -> None:
    events: Events = queue.Queue()
    port = tmp_path / "ttyUSB0"
    reader = open_reader("lines", str(port), events, max_backoff=0.2)
    try:
        lost = wait_for(events, lambda e: isinstance(e, ReaderLost))[-1]
        assert isinstance(lost.detail, DeviceFailure) and lost.detail.kind is Failure.NOT_FOUND
        assert "cannot open" in str(lost.detail)  # the technical line logs keep
        device = PtyDevice()
        port.symlink_to(device.path)
        wait_for(events, is_back)
        device.write(b"MB-GASOLINE-06\n")
        assert card_of(wait_for(events, lambda e: isinstance(e, CardScanned))[-1]) == "MB-GASOLINE-06"
        device.unplug()
        wait_for(events, lambda e: isinstance(e, ReaderLost))
    finally:
        reader.close()
    assert not any(t.name.startswith("bornes-") for t in threading.enumerate() if t.is_alive())


def thread_cpu_seconds(native_id: int) -> float:
    """User plus system CPU time of one thread of this process, from /proc (Linux)."""
    stat = Path(f"/proc/self/task/{native_id}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (comm) ": field 3 (state) is fields[0]
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime: fields 14 and 15


def test_idle_reader_uses_almost_no_cpu() -> None:
    events: Events = queue.Queue()
    device = PtyDevice()
    earlier = set(threading.enumerate())
    reader = open_reader("em4100", device.path, events)
    try:
        wait_for(events, is_back)
        (thread,) = [t for t in threading.enumerate() if t not in earlier and t.name.startswith("bornes-")]
        assert thread.native_id is not None
        # The reader thread's own CPU time: the process's would count whatever else runs in it (a thread left
        # by an earlier test), and a loaded machine slows the wall clock, never this thread's own count.
        before = thread_cpu_seconds(thread.native_id)
        time.sleep(1.0)
        assert thread_cpu_seconds(thread.native_id) - before < 0.1
    finally:
        reader.close()
        device.unplug()


def test_unknown_protocol_is_a_config_error() -> None:
    with pytest.raises(ReaderConfigError, match="choose one of"):
        open_reader("wiegand", "loop://", queue.Queue())


# -- PN532 -----------------------------------------------------------------------------


def ntag(uid: str, payload: str | None = None) -> FakeTag:
    tag = FakeTag(bytes.fromhex(uid))
    if payload is not None:
        blob = encode_text_tlv(payload)
        tag.pages[16 : 16 + len(blob)] = blob
    return tag


def test_pn532_reads_payload_uid_and_two_tags(tmp_path: Path) -> None:
    fake = FakePn532()
    fake.nack_next = 1  # the first command is refused once: the client must resend it
    table = BindingTable({"DEADBEEF": "MB-SPARETIRE-02"}, path=None)
    events: Events = queue.Queue()
    reader = open_reader("pn532", fake.path, events, bindings=table)
    try:
        wait_for(events, is_back)
        assert fake.commands[:3] == [0x14, 0x14, 0x32]  # SAMConfiguration (resent after NACK), RFConfiguration
        fake.put(ntag("04A1B2C3D4E5F6", "MB-D100-07"))
        got = wait_for(events, lambda e: isinstance(e, CardScanned))
        assert got[-1].describe().split() == ["MB-D100-07", "100", "miles", "(#7)"]
        time.sleep(0.4)  # the tag stays: it is polled again and again but arrives once
        assert not [e for e in drain(events, 0.1) if isinstance(e, CardScanned)]

        fake.put(FakeTag(bytes.fromhex("DEADBEEF"), ntag=False))  # a MIFARE card bound by UID
        assert card_of(wait_for(events, lambda e: isinstance(e, CardScanned))[-1]) == "MB-SPARETIRE-02"

        fake.put(ntag("04000000000001"), ntag("04000000000002", "MB-STOP-01"))
        problem = wait_for(events, lambda e: isinstance(e, ReaderProblem))[-1]
        assert problem.kind == "one-card-at-a-time"

        fake.put(ntag("04111111111111"))  # blank NTAG, not enrolled
        unknown = wait_for(events, lambda e: isinstance(e, UnknownScanned))[-1]
        assert unknown.raw == "04111111111111"
    finally:
        reader.close()
        fake.close()


def test_pn532_unplug_and_replug(tmp_path: Path) -> None:
    stable = tmp_path / "bornes-nfc"
    fake = FakePn532()
    stable.symlink_to(fake.path)
    events: Events = queue.Queue()
    reader = open_reader("pn532", str(stable), events, max_backoff=0.4)
    try:
        wait_for(events, is_back)
        fake.close()
        stable.unlink()
        wait_for(events, lambda e: isinstance(e, ReaderLost))
        fake = FakePn532()
        stable.symlink_to(fake.path)
        wait_for(events, is_back)
        fake.put(ntag("04A1B2C3D4E5F6", "MB-CMD-NEXT"))
        assert isinstance(wait_for(events, lambda e: isinstance(e, ControlScanned))[-1], ControlScanned)
    finally:
        reader.close()
        fake.close()


def test_pn532_that_never_answers_is_reported_lost_not_crashed() -> None:
    device = PtyDevice()  # a port with nothing on it (wrong wiring)
    events: Events = queue.Queue()
    reader = open_reader("pn532", device.path, events, max_backoff=0.2)
    try:
        lost = wait_for(events, lambda e: isinstance(e, ReaderLost))[-1]
        assert isinstance(lost.detail, DeviceFailure) and lost.detail.kind is Failure.NO_ANSWER
        assert "does not answer" in str(lost.detail)
        assert reader._thread is not None and reader._thread.is_alive()
    finally:
        reader.close()
        device.unplug()
