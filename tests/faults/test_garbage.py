"""Garbage: 10 000 malformed frames per reader protocol, through the real reader on a pty, into a
referee holding a game in progress. No exception escapes and the game does not change.

The frames are seeded mutations of good ones (bad checksums, wrong lengths, bytes outside the
payload alphabet, truncations, noise), so each protocol's decoder meets every way a frame can be
wrong. Every event the reader produces is handed to the referee, exactly as the daemon's loop does.
"""

from __future__ import annotations

import contextlib
import os
import queue
import random
import time
from collections.abc import Callable
from typing import Any

import pytest

from bench.driver import script_games
from bornes.drivers.events import CardScanned, ControlScanned, ReaderBack, ReaderLost
from bornes.drivers.readers import open_reader
from bornes.drivers.readers.em4100 import em4100_frame
from bornes.drivers.readers.pn532 import ACK_FRAME, CHIP_TFI, build_frame
from bornes.drivers.readers.resolver import CardResolver
from bornes.firmware.appliance.referee import Referee
from bornes.firmware.table.flow import TableFlow
from tests.readers.fakes import FakePn532
from tests.tiers import tiered

FRAMES = 10_000


def _game_in_progress() -> TableFlow:
    """A 2-player game some way in: the referee the garbage is thrown at."""
    script = script_games(players=2, seed=11, games=1)
    flow = TableFlow(players=2, names=("Anne", "Bruno"))
    resolver = CardResolver()
    for step in script.steps[:40]:
        for payload in step.taps:
            flow.handle(resolver.resolve(payload))
    assert flow.game is not None and len(flow.game.log) == 40
    return flow


def _bad_line(rng: random.Random) -> bytes:
    good = rng.choice([b"MB-D100-07", b"MB-CMD-OK", b"MB-ROLL-01", b"MB-STOP-02"])
    kind = rng.randrange(6)
    if kind == 0:  # bytes outside printable ASCII inside the payload
        cut = rng.randrange(1, len(good))
        return good[:cut] + bytes([rng.choice([0x80, 0xFF, 0x07, 0x1B, 0x9B])]) + good[cut:] + b"\r\n"
    if kind == 1:  # an over-long line
        return bytes(rng.choice(b"ABCDEF0123-") for _ in range(rng.randint(129, 400))) + b"\n"
    if kind == 2:  # a near miss of a card code: unknown kind or number
        return b"MB-" + bytes(rng.choice(b"XYZQ") for _ in range(4)) + b"-" + str(rng.randrange(1000)).encode() + b"\r"
    if kind == 3:  # control tag that is not a control
        return b"MB-CMD-" + bytes(rng.choice(b"ABCXYZ") for _ in range(rng.randint(1, 9))) + b"\n"
    if kind == 4:  # random printable noise
        return bytes(rng.randrange(0x21, 0x7F) for _ in range(rng.randint(1, 60))) + b"\r\n"
    return bytes(rng.randrange(256) for _ in range(rng.randint(1, 40))).replace(b"\r", b"").replace(b"\n", b"") + b"\n"


def _bad_em4100(rng: random.Random) -> bytes:
    uid = "".join(rng.choice("0123456789ABCDEF") for _ in range(10))
    frame = bytearray(em4100_frame(uid, crlf=rng.random() < 0.5))
    kind = rng.randrange(5)
    if kind == 0:  # bad checksum
        good = em4100_frame(uid)
        return em4100_frame(uid, checksum=(int(good[11:13], 16) + rng.randint(1, 255)) % 256)
    if kind == 1:  # a non-hex digit
        frame[rng.randint(1, 10)] = rng.choice(b"GZ!@ \x00")
        return bytes(frame)
    if kind == 2:  # truncated: STX and part of the body, then the next frame's STX
        return bytes(frame[: rng.randint(1, len(frame) - 1)])
    if kind == 3:  # too long before ETX
        return bytes(frame[:-1]) + b"00112233" + bytes([0x03])
    return bytes(rng.randrange(256) for _ in range(rng.randint(1, 20))).replace(b"\x02", b"")


def _run_reader(protocol: str, port: str, flow: TableFlow, feed: Callable[[], int]) -> dict[str, int]:
    """Open the protocol's reader on ``port``, run ``feed`` (which returns the frames it sent),
    and hand every event to a referee; count the events by kind."""
    events: queue.Queue[Any] = queue.Queue()
    referee = Referee(flow, events, watchdog=False)
    reader = open_reader(protocol, port, events, double_read_window=0.0, quiet_gap=0.05)
    counts: dict[str, int] = {}
    errors: list[str] = []
    try:
        # Feed once the port is open: pyserial empties the input when it opens, like a real reader.
        while True:
            first = events.get(timeout=60)
            counts[type(first).__name__] = counts.get(type(first).__name__, 0) + 1
            referee.step(first)
            if isinstance(first, ReaderBack | ReaderLost):
                break
        sent = feed()
        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline:
            try:
                event = events.get(timeout=0.5)
            except queue.Empty:
                break
            counts[type(event).__name__] = counts.get(type(event).__name__, 0) + 1
            outcome = referee.step(event)
            if outcome.reason == "internal-error":
                errors.append(f"{event}: {outcome.message}")
            assert not isinstance(event, CardScanned | ControlScanned) or outcome.verdict != "accepted", event
    finally:
        reader.close()
    counts["frames"] = sent
    assert not errors, errors[:5]
    return counts


@pytest.mark.parametrize("protocol", tiered(["lines", "em4100"], {"em4100"}))  # lines: its fuzzer is fast
def test_passive_reader_garbage_changes_nothing(protocol: str) -> None:
    flow = _game_in_progress()
    assert flow.game is not None
    before_log, before_state = list(flow.game.log), flow.game.state
    rng = random.Random(f"garbage-{protocol}")
    make = _bad_line if protocol == "lines" else _bad_em4100
    master, slave = os.openpty()

    def feed() -> int:
        blob = b"".join(make(rng) for _ in range(FRAMES))
        for start in range(0, len(blob), 4096):
            os.write(master, blob[start : start + 4096])
            time.sleep(0.002)  # the pty holds a few KiB: let the reader keep up
        return FRAMES

    try:
        counts = _run_reader(protocol, os.ttyname(slave), flow, feed)
    finally:
        os.close(master)
        os.close(slave)
    print(f"\ngarbage {protocol}: {counts}")
    assert flow.game is not None
    assert flow.game.log == before_log and flow.game.state == before_state
    assert counts.get("ReaderLost", 0) == 0


class _GarbagePn532(FakePn532):
    """A PN532 whose every answer to a poll carries malformed frames before the real reply."""

    def __init__(self, rng: random.Random, per_answer: int) -> None:
        self.rng = rng
        self.per_answer = per_answer
        self.sent = 0
        self.budget = FRAMES
        super().__init__()

    def _answer(self, code: int, params: bytes) -> None:
        if code != 0x4A or self.budget <= 0:
            super()._answer(code, params)
            return
        count = min(self.per_answer, self.budget)
        junk = b"".join(self._bad(code) for _ in range(count))
        self.budget -= count
        self.sent += count
        with contextlib.suppress(OSError):
            self.device.write(ACK_FRAME + junk + build_frame(bytes([code + 1, 0]), tfi=CHIP_TFI))

    def _bad(self, code: int) -> bytes:
        rng = self.rng
        body = bytes([code + 1, 1, 1, 0, 0x44, 0, 7]) + bytes(rng.randrange(256) for _ in range(7))
        frame = bytearray(build_frame(body, tfi=CHIP_TFI))
        kind = rng.randrange(5)
        if kind == 0:  # bad data checksum
            frame[-2] ^= rng.randint(1, 255)
        elif kind == 1:  # bad length checksum
            frame[4] ^= rng.randint(1, 255)
        elif kind == 2:  # a frame from the host, not the chip
            frame[5] = 0xD4
            frame[-2] = (frame[-2] - 0x01) % 256
        elif kind == 3:  # noise with no start code
            return bytes(rng.randrange(1, 256) for _ in range(rng.randint(1, 12))).replace(b"\xff", b"")
        else:  # an answer to a command never sent: checksummed, well formed, wrong
            frame = bytearray(build_frame(bytes([0x99]) + bytes(rng.randrange(256) for _ in range(4)), tfi=CHIP_TFI))
        return bytes(frame)


@pytest.mark.slow
def test_pn532_garbage_changes_nothing() -> None:
    flow = _game_in_progress()
    assert flow.game is not None
    before_log, before_state = list(flow.game.log), flow.game.state
    chip = _GarbagePn532(random.Random("garbage-pn532"), per_answer=100)

    def feed() -> int:
        deadline = time.monotonic() + 60
        while chip.budget > 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        return chip.sent

    try:
        counts = _run_reader("pn532", chip.path, flow, feed)
    finally:
        chip.close()
    print(f"\ngarbage pn532: {counts}")
    assert counts["frames"] == FRAMES
    assert flow.game is not None
    assert flow.game.log == before_log and flow.game.state == before_state
