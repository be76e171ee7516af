"""RC522 readers, timed: the ``rc522`` part of ``python -m bench``, or alone: ``python -m bench.rc522``.

The chips are the model of tools/kernel/guest/mfrc522_model.py behind the driver's SPI seam, on the real
clock, in this process; the readers are the real reader threads (drivers/readers/rc522.py), polling as
on a Pi. Three measures:

* **laid → acknowledged**: a scripted game's cards laid one at a time on one RC522 (NTAGs carrying their
  code and enrolled MIFARE Classic cards, taking turns), each at a random moment of the poll, into the
  real referee (table flow, engine, SQLite journal with its durable write): the time from the card
  entering the field to the referee's acknowledgement, and the process's CPU per play;
* **lay/lift cycles**: four readers at once (the seats' pads, sharing one double-read filter as a table's
  readers do; a queue each, to count each pad's reads), each laying and lifting cards: plain (a person's
  half second), resting, flickering at the edge of the field (in and out within 0.3 s), and two at once;
  counted against what was laid: doubled, missed, wrong (a card read that was not laid alone), and the
  two-at-once refusals; a missed laying the reader never selected (its thread did not get to poll while
  the card lay there: a machine too loaded to run it) is told apart from one it selected and still missed;
* **idle CPU**: the four readers polling empty fields: each reader thread's CPU time (its own clock,
  ``pthread_getcpuclockid``) less what the model took inside its calls, as a share of one core here, and
  ×10 for a Pi Zero 2 W (the bench's rule of thumb, README *Performance*), plus what a Pi's kernel makes
  the CPU busy-wait for in the poll's SPI messages, reckoned from its SPI driver's rules (no SPI controller
  here to measure; the kernel tier's CUSE figures are in docs/system.md). The ×10 is on the safe side for
  the wake-ups: nearly all of a wake-up's cost here is this host's kernel (a container on a virtual
  machine), which the rule of thumb for Python's work does not describe; the rows below it say how much.
  The same readers are measured again at the earlier interval, 60 ms, in the same run: the idle cost
  follows the poll rate.

It measures and prints; it asserts nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import logging
import queue
import random
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bornes.drivers.events import CardScanned, ControlScanned, ReaderBack, ReaderProblem
from bornes.drivers.readers import BindingTable, DoubleReadFilter, open_reader
from bornes.drivers.readers.rc522 import POLL_INTERVAL, SPI_SPEED_HZ, Rc522Link
from tools.kernel.guest.mfrc522_model import Card, Mfrc522Model

BenchRow = tuple[str, str, str, bool | None]
PI_FACTOR = 10  # a Pi Zero 2 W against this machine (README, Performance)
#: What a Pi's kernel makes its CPU wait for in an SPI message, from its sources: the Pi's SPI controller
#: driver (drivers/spi/spi-bcm2835.c) busy-polls a transfer it reckons shorter than polling_limit_us (30 µs, at
#: 9 SPI clocks a byte: 8 bits and an idle one), and the SPI core (drivers/spi/spi.c,
#: _spi_transfer_cs_change_delay) waits 10 µs with udelay at each chip-select change inside a message when none
#: is asked (spidev asks none). Longer transfers go by interrupt: the CPU is free meanwhile (not counted).
POLLING_LIMIT_US, CLOCKS_PER_BYTE, CS_CHANGE_DELAY = 30, 9, 10e-6
#: The poll interval before this one, measured beside it: the idle cost follows the poll rate.
EARLIER_INTERVAL = 0.06


def quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


class TimedModel:
    """The model as the reader's SPI port, keeping the CPU time its own calls took (to leave it out)."""

    def __init__(self, model: Mfrc522Model) -> None:
        self.model = model
        self.cpu_ns = 0

    def transfer(self, frames: Sequence[bytes]) -> list[bytes]:
        started = time.thread_time_ns()
        try:
            return self.model.transfer(frames)
        finally:
            self.cpu_ns += time.thread_time_ns() - started

    def close(self) -> None:
        """Nothing to release."""


def _port(port: object) -> Callable[[str, int, float], object]:
    """The reader thread's factory (serial_reader.SerialFactory) handing it ``port``, at every (re)connection."""
    return lambda path, speed, timeout: port


def uid_of(code: str) -> str:
    """A stable 4-byte UID for an enrolled card (the first byte never 88h, the cascade tag)."""
    digest = hashlib.sha256(code.encode()).digest()
    return bytes([digest[0] & 0x7F, *digest[1:4]]).hex().upper()


def card_for(code: str, number: int) -> Card:
    """Every other card an NTAG213 carrying its code (bornes tags write), the others enrolled MIFARE Classics."""
    if number % 2:
        return Card.tag("classic1k", uid_of(code))
    digest = hashlib.sha256(code.encode()).digest()
    return Card.tag("ntag213", bytes([0x04, *digest[:6]]), code)


# -- laid → acknowledged -------------------------------------------------------------------------------


@dataclass
class Latency:
    seconds: list[float] = field(default_factory=list)
    cpu_per_play: float = 0.0


def laid_to_acknowledged(plays: int, seed: int = 5) -> Latency:
    from bench.driver import NAMES, script_games
    from bornes.drivers.display import open_display
    from bornes.firmware.appliance.referee import STOP, Referee
    from bornes.firmware.storage.journal import Journal
    from bornes.firmware.storage.store import JournalStore
    from bornes.firmware.table.flow import TableFlow

    script = script_games(players=2, seed=seed, games=max(1, plays // 150 + 1))
    payloads = [tap for step in script.steps for tap in step.taps][:plays]
    cards = {code: card_for(code, number) for number, code in enumerate(dict.fromkeys(payloads))}
    bindings = BindingTable({card.uid.hex().upper(): code for code, card in cards.items() if card.kind == "classic1k"})
    handler = logging.StreamHandler(io.StringIO())
    logger = logging.getLogger("bornes")
    logger.addHandler(handler)
    old_level = logger.level
    logger.setLevel(logging.INFO)
    result = Latency()
    model = Mfrc522Model(clock=time.monotonic)
    with tempfile.TemporaryDirectory(prefix="bornes-bench-rc522-") as scratch:
        journal = Journal.open(scratch)
        setup = script.setup
        flow = TableFlow(edition=setup.edition, players=setup.seats, names=NAMES[: setup.seats], dealer=0,
                         store=JournalStore(journal))
        events: queue.Queue[Any] = queue.Queue()
        done: queue.Queue[tuple[object, Any, float]] = queue.Queue()
        display = open_display("dummy")
        reader = open_reader("rc522", "/dev/spidev0.0", events, bindings=bindings, double_read_window=0.0,
                             serial_factory=lambda port, speed, timeout: model)
        referee = Referee(flow, events, display=display, watchdog=False,
                          on_outcome=lambda e, o: done.put((e, o, time.monotonic())))
        failure: list[BaseException] = []

        def person() -> None:
            try:
                event, _, _ = done.get(timeout=10)
                if not isinstance(event, ReaderBack):
                    raise RuntimeError(f"expected the reader to come up first, got {event}")
                shuffle = random.Random(seed)
                cpu = time.process_time()
                last = ""
                for code in payloads:
                    if code == last:  # the same card laid again (the setup's OKs): after the reader's quiet_gap
                        time.sleep(0.5 + 2 * POLL_INTERVAL)
                    last = code
                    time.sleep(shuffle.uniform(0.0, POLL_INTERVAL))  # any moment of the poll
                    laid = time.monotonic()
                    model.field.lay(cards[code], laid)
                    try:
                        event, outcome, acknowledged = done.get(timeout=10)
                    except queue.Empty:
                        raise RuntimeError(f"{code} laid (tap {len(result.seconds) + 1}): no answer in 10 s") from None
                    code_read = event.card.code() if isinstance(event, CardScanned) else \
                        f"MB-CMD-{event.name}" if isinstance(event, ControlScanned) else str(event)
                    if code_read != code or outcome.refused:
                        raise RuntimeError(f"{code}: read as {code_read}, {outcome.verdict}: {outcome.message}")
                    result.seconds.append(acknowledged - laid)
                    model.field.lift(cards[code], time.monotonic())
                    time.sleep(3 * POLL_INTERVAL)  # lifted: the reader sees the field empty before the next
                result.cpu_per_play = (time.process_time() - cpu) / len(payloads)
            except BaseException as error:
                failure.append(error)
            finally:
                events.put(STOP)

        tapper = threading.Thread(target=person, name="person", daemon=True)
        tapper.start()
        try:
            referee.run()
        finally:
            tapper.join(10)
            reader.close()
            display.close()
            journal.close()
            logger.removeHandler(handler)
            logger.setLevel(old_level)
    if failure:
        raise failure[0]
    return result


# -- four readers, lay/lift cycles --------------------------------------------------------------------------


PADS = ("A", "B", "C", "D")


@dataclass
class Tally:
    layings: int = 0
    pairs: int = 0
    read: int = 0
    doubled: int = 0
    missed: int = 0
    wrong: int = 0
    refusals: int = 0
    starved: int = 0  # of the missed, layings the reader never selected (its thread did not get to poll them)
    kinds: dict[str, int] = field(default_factory=dict)


def cycles(count: int, seed: int = 7) -> tuple[dict[str, Tally], float]:
    """``count`` cycles on each of four readers at once; the tally per pad and the seconds it took.

    A cycle's reads are counted once its reader has polled twice after the lifting: every reading of a poll
    that began before it is on the queue by then, however late a loaded machine runs the reader's thread."""
    from bornes.engine.cards import full_deck

    deck = [card.code() for card in full_deck()]
    shared = DoubleReadFilter(1.5)  # a table's readers share one (reader_options.open_table_readers)
    models = {pad: Mfrc522Model(clock=time.monotonic, seed=n) for n, pad in enumerate(PADS)}
    bindings = BindingTable({uid_of(code): code for code in deck})
    inboxes: dict[str, queue.Queue[Any]] = {pad: queue.Queue() for pad in PADS}  # one each: counted per pad
    readers = {pad: open_reader("rc522", f"/dev/spidev{n // 2}.{n % 2}", inboxes[pad], bindings=bindings,
                                name=f"pad {pad}", pad=pad, double_reads=shared, serial_factory=_port(models[pad]))
               for n, pad in enumerate(PADS)}
    tallies = {pad: Tally() for pad in PADS}
    started = time.monotonic()

    def drive(n: int, pad: str) -> None:
        rng = random.Random(seed * 100 + n)
        model, tally, inbox, reader = models[pad], tallies[pad], inboxes[pad], readers[pad]
        own = deck[n::4]  # each pad its own cards: a card seen again comes back after 26 cycles
        while not isinstance(inbox.get(timeout=10), ReaderBack):
            pass
        for cycle in range(count):
            code, other = own[cycle % len(own)], own[(cycle + 13) % len(own)]
            now = time.monotonic()
            kind = rng.choices(("plain", "resting", "edge", "pair"), (6, 1, 2, 1))[0]
            tally.kinds[kind] = tally.kinds.get(kind, 0) + 1
            card = Card.tag("classic1k", uid_of(code))
            if kind == "plain":  # laid, read, picked up: a person's half second
                held = rng.uniform(0.3, 0.6)
                model.field.lay(card, now, now + held)
            elif kind == "resting":
                held = rng.uniform(1.0, 2.0)
                model.field.lay(card, now, now + held)
            elif kind == "edge":  # in and out at the edge of the field: gaps under 0.3 s
                held = rng.uniform(0.7, 1.0)
                gaps = [(now + 0.2 + i * 0.25 + rng.uniform(0, 0.05), rng.uniform(0.03, 0.12)) for i in range(2)]
                model.field.flicker(card, now, gaps, now + held)
            else:
                held = rng.uniform(0.3, 0.6)
                model.field.lay(card, now, now + held)
                model.field.lay(Card.tag("classic1k", uid_of(other)), now, now + held)
            link = reader.link
            assert isinstance(link, Rc522Link)
            time.sleep(held)
            lifted = link.polls
            while link.polls < lifted + 3:  # the poll under way at the lifting, and two that see it empty
                time.sleep(POLL_INTERVAL / 2)
            seen: list[Any] = []
            while True:
                try:
                    seen.append(inbox.get_nowait())
                except queue.Empty:
                    break
            reads = [e.card.code() for e in seen if isinstance(e, CardScanned)]
            tally.refusals += sum(isinstance(e, ReaderProblem) and e.kind == "one-card-at-a-time" for e in seen)
            if kind == "pair":
                tally.pairs += 1
                tally.wrong += len(reads)
                continue
            tally.layings += 1
            mine = reads.count(code)
            tally.read += min(mine, 1)
            tally.doubled += max(0, mine - 1)
            tally.missed += mine == 0
            tally.starved += mine == 0 and card.selected == 0
            tally.wrong += len(reads) - mine

    drivers = [threading.Thread(target=drive, args=(n, pad), daemon=True) for n, pad in enumerate(PADS)]
    for thread in drivers:
        thread.start()
    for thread in drivers:
        thread.join()
    seconds = time.monotonic() - started
    for reader in readers.values():
        reader.close()
    return tallies, seconds


# -- idle CPU -----------------------------------------------------------------------------------------------


def bare_waits(seconds: float) -> tuple[float, float]:
    """A thread doing nothing but an idle poll's two waits on the reader's stop event (the interval, then a
    Transceive's 0.8 ms): its CPU share is what the machine makes those wake-ups cost now, the floor under the
    readers' figure. And the share of it that is Python's own (the same waits with
    nothing to wait for: Event.wait's bookkeeping, no sleep), the part a Pi's slower core multiplies."""
    stop = threading.Event()
    spent: list[float] = []

    def loop() -> None:
        started, clock = time.monotonic(), time.thread_time()
        while not stop.wait(POLL_INTERVAL):
            stop.wait(0.0008)
        spent.append((time.thread_time() - clock) / (time.monotonic() - started))

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    time.sleep(seconds)
    stop.set()
    thread.join()
    idle = threading.Event()
    best = float("inf")
    for _ in range(3):
        clock = time.thread_time()
        for _ in range(20000):
            idle.wait(0.0)
            idle.wait(0.0)
        best = min(best, (time.thread_time() - clock) / 20000)
    return spent[0], best / POLL_INTERVAL


class VirtualClock:
    """A clock that moves only when waited on: the driver's polls back to back, its waits costing nothing."""

    t = 0.0

    def now(self) -> float:
        return self.t

    def wait(self, seconds: float) -> bool:
        self.t += seconds
        return False


def spi_busy_per_idle_poll() -> tuple[float, int, int]:
    """The seconds a Pi's CPU busy-waits in its kernel for one idle poll's SPI messages at SPI_SPEED_HZ (the
    rules of POLLING_LIMIT_US above), from the messages the driver sends in an idle poll; and their count and
    bytes. Reckoned, not measured: no SPI controller here."""
    messages: list[list[bytes]] = []

    class Recording(TimedModel):
        def transfer(self, frames: Sequence[bytes]) -> list[bytes]:
            messages.append(list(frames))
            return super().transfer(frames)

    clock = VirtualClock()
    port = Recording(Mfrc522Model(clock=clock.now))
    link = Rc522Link()
    link.start(port, clock)
    link.step(port, clock)  # the first poll sets the timer's reload once
    messages.clear()
    link.step(port, clock)
    byte_limit = SPI_SPEED_HZ // (CLOCKS_PER_BYTE * 1_000_000 // POLLING_LIMIT_US)
    busy = 0.0
    for frames in messages:
        busy += sum(len(frame) * CLOCKS_PER_BYTE / SPI_SPEED_HZ for frame in frames if len(frame) < byte_limit)
        busy += CS_CHANGE_DELAY * (len(frames) - 1)
    return busy, len(messages), sum(len(frame) for frames in messages for frame in frames)


def poll_work(polls: int = 5000) -> float:
    """The driver's own CPU per idle poll, without its waits: polls back to back on a virtual clock (the
    model's time left out), seconds per poll. What the code costs, whatever the machine's load."""

    clock = VirtualClock()
    port = TimedModel(Mfrc522Model(clock=clock.now))
    link = Rc522Link()
    link.start(port, clock)
    best = float("inf")
    for _ in range(3):
        started, model = time.thread_time_ns(), port.cpu_ns
        for _ in range(polls):
            link.step(port, clock)
        best = min(best, (time.thread_time_ns() - started - (port.cpu_ns - model)) / polls / 1e9)
    return best


def idle_cpu(seconds: float, interval: float = POLL_INTERVAL) -> tuple[list[float], float]:
    """Four readers on empty fields, a poll every ``interval``: each reader thread's CPU share (model left out),
    and polls a second."""
    events: queue.Queue[Any] = queue.Queue()
    ports = [TimedModel(Mfrc522Model(clock=time.monotonic, seed=n)) for n in range(len(PADS))]
    readers = [open_reader("rc522", f"/dev/spidev{n // 2}.{n % 2}", events, name=f"pad {pad}", pad=pad,
                           serial_factory=_port(ports[n])) for n, pad in enumerate(PADS)]
    for reader in readers:
        assert isinstance(reader.link, Rc522Link)
        reader.link.poll_interval = interval
    try:
        deadline = time.monotonic() + 10
        while not all(reader.connected for reader in readers) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)  # past the start-up's resets
        threads = [reader._thread for reader in readers]
        clocks = [time.pthread_getcpuclockid(thread.ident) for thread in threads
                  if thread is not None and thread.ident is not None]
        before = [time.clock_gettime(clock) for clock in clocks]
        model_before = [port.cpu_ns for port in ports]
        polls_before = sum(port.model.transceives for port in ports)
        started = time.monotonic()
        time.sleep(seconds)
        wall = time.monotonic() - started
        after = [time.clock_gettime(clock) for clock in clocks]
        model_cpu = [(port.cpu_ns - b) / 1e9 for port, b in zip(ports, model_before, strict=True)]
        polls = (sum(port.model.transceives for port in ports) - polls_before) / wall / len(ports)
    finally:
        for reader in readers:
            reader.close()
    return [(a - b - m) / wall for a, b, m in zip(after, before, model_cpu, strict=True)], polls


# -- the rows ------------------------------------------------------------------------------------------------


def rows(plays: int = 1000, cycle_count: int = 1000, idle_s: float = 30.0) -> list[BenchRow]:
    import os

    load = os.getloadavg()[0]
    latency = laid_to_acknowledged(plays)
    p50, p99 = quantile(latency.seconds, 0.5), quantile(latency.seconds, 0.99)
    out: list[BenchRow] = [
        (f"RC522: card laid → play acknowledged (durable), {len(latency.seconds)} plays, a poll every "
         f"{POLL_INTERVAL * 1000:.0f} ms (p50 / p99; load {load:.1f})",
         f"{p50 * 1000:.1f} ms / {p99 * 1000:.1f} ms", "p99 ≤ 150 ms", p99 <= 0.150),
        ("  CPU per play: reader, referee, journal (×10 for a Pi Zero 2 W)",
         f"{latency.cpu_per_play * 1000:.2f} ms (×10: {latency.cpu_per_play * 1000 * PI_FACTOR:.1f} ms)", "—", None),
    ]
    tallies, seconds = cycles(cycle_count)
    for pad, tally in tallies.items():
        kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(tally.kinds.items()))
        out.append((f"RC522 pad {pad}: {cycle_count} lay/lift cycles, four readers at once ({kinds}): "
                    "doubled / missed / wrong",
                    f"{tally.doubled} / {tally.missed} / {tally.wrong} ({tally.read} of {tally.layings} layings read, "
                    f"{tally.missed - tally.starved} of the missed selected; {tally.refusals} refusals for "
                    f"{tally.pairs} pairs)",
                    "0 / 0 / 0", tally.doubled == tally.missed == tally.wrong == 0 and tally.refusals == tally.pairs))
    out.append(("  the four readers' cycles took", f"{seconds:.0f} s", "—", None))
    shares, polls = idle_cpu(idle_s)
    worst = max(shares) * 100
    busy, messages, sent = spi_busy_per_idle_poll()
    spi_share = busy / POLL_INTERVAL * 100
    estimate = worst * PI_FACTOR + spi_share
    out.append((f"RC522 idle polling, one reader on a Pi Zero 2 W, reckoned: its thread's CPU here (worst of four, "
                f"{idle_s:g} s, {polls:.1f} polls a second each) ×10, and its kernel's SPI busy-waits",
                f"{worst * PI_FACTOR:.2f} % + {spi_share:.2f} % = {estimate:.2f} % of its core",
                "< 1 % of a Pi Zero 2 W core", estimate < 1.0))
    out.append(("  one reader thread's CPU here, model left out (worst of four; the four together)",
                f"{worst:.3f} % of a core ({sum(shares) * 100:.3f} %)", "—", None))
    out.append((f"  the kernel's SPI busy-waits on a Pi, an idle poll ({messages} messages, {sent} bytes at "
                f"{SPI_SPEED_HZ / 1e6:g} MHz; from spi-bcm2835.c and spi.c, not measured)",
                f"{busy * 1e6:.0f} µs; {1 / POLL_INTERVAL:.1f} polls a second: {spi_share:.2f} % of its core",
                "—", None))
    work = poll_work(500 if idle_s < 5 else 5000)
    out.append(("  the driver's own work per idle poll, its waits left out (best of 3 runs, virtual clock)",
                f"{work * 1e6:.1f} µs; ×10 for a Pi, {1 / POLL_INTERVAL:.1f} polls a second: "
                f"{work * PI_FACTOR / POLL_INTERVAL * 100:.2f} % of its core", "—", None))
    floor, python = bare_waits(min(idle_s, 10.0))
    load = os.getloadavg()[0]
    out.append((f"  of which the wake-ups alone: a bare thread with the same two waits (load {load:.1f}); the share "
                "of it that is Python's (the waits' bookkeeping, no sleep)",
                f"{floor * 100:.3f} % of a core here; {python * 100:.4f} %", "—", None))
    earlier, earlier_polls = idle_cpu(idle_s, EARLIER_INTERVAL)
    out.append((f"  the same with a poll every {EARLIER_INTERVAL * 1000:.0f} ms (the interval before issue 44's second "
                f"session), same run, {earlier_polls:.1f} polls a second: worst of four; the four together",
                f"{max(earlier) * 100:.3f} % of a core here; {sum(earlier) * 100:.3f} %", "—", None))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.rc522", description=__doc__.splitlines()[0])
    parser.add_argument("--plays", type=int, default=1000)
    parser.add_argument("--cycles", type=int, default=1000)
    parser.add_argument("--idle", type=float, default=30.0)
    args = parser.parse_args(argv)
    found = rows(args.plays, args.cycles, args.idle)
    for figure, measured, budget, met in found:
        print(f"| {figure} | {measured} | {budget} | {'' if met is None else 'yes' if met else 'NO'} |")
    return 0 if all(met is not False for *_, met in found) else 1


if __name__ == "__main__":
    sys.exit(main())
