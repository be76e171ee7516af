"""Tap to screen: scans through the real chain, in one process, timed stage by stage.

pty master (the "reader") → ``open_reader("lines")`` thread → queue → :class:`Referee` →
:class:`TableFlow` → engine → store → ``render`` → luma's dummy device. The code under test is
not changed: the stages are timed by wrapping objects from the outside (a timing proxy around
the store, a timed ``apply`` seen by :mod:`bornes.engine.game`) and by the referee's own
``keep_timings``. The reader's parse stage is the same bytes fed to the same decoder and
resolver in isolation, since the reader thread exposes no timestamps.
"""

from __future__ import annotations

import io
import logging
import os
import queue
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import bornes.engine.game
from bench.compiled import require_python_engine
from bench.driver import NAMES, Script
from bornes.drivers.events import InputEvent, ReaderBack
from bornes.drivers.readers.lines import LineDecoder
from bornes.drivers.readers.resolver import CardResolver
from bornes.engine.actions import Action
from bornes.engine.game import Game
from bornes.firmware.appliance.referee import STOP, Referee
from bornes.firmware.storage.store import MemoryStore, Store
from bornes.firmware.table.flow import Outcome, TableFlow


class _Clock:
    """Seconds spent in one stage since the last reset (one scan)."""

    def __init__(self) -> None:
        self.spent = 0.0

    @contextmanager
    def timing(self) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.spent += time.perf_counter() - started

    def take(self) -> float:
        spent, self.spent = self.spent, 0.0
        return spent


class TimedStore:
    """A store proxy: every call is the durable-write stage."""

    def __init__(self, inner: Store, clock: _Clock) -> None:
        self.inner = inner
        self.clock = clock

    def start(self, game: Game) -> None:
        with self.clock.timing():
            self.inner.start(game)

    def append(self, game: Game, action: Action, pad: str | None = None) -> None:
        with self.clock.timing():
            self.inner.append(game, action)

    def undo(self, game: Game) -> None:
        with self.clock.timing():
            self.inner.undo(game)

    def finish(self, game: Game) -> None:
        with self.clock.timing():
            self.inner.finish(game)


@contextmanager
def timed_engine(clock: _Clock) -> Iterator[None]:
    """Time every ``apply`` that ``Game.check`` and ``Game.push`` make (the engine stage)."""
    require_python_engine("the tap's engine stage")
    module = vars(bornes.engine.game)  # Game calls the name it imported, so wrap it where Game looks it up
    original = module["apply"]

    def apply(state: Any, action: Any) -> Any:
        with clock.timing():
            return original(state, action)

    module["apply"] = apply
    try:
        yield
    finally:
        module["apply"] = original


@dataclass
class TapResult:
    """Per-scan seconds for each stage, and the process CPU spent per scan."""

    store: str
    total: list[float] = field(default_factory=list)
    parse: list[float] = field(default_factory=list)
    engine: list[float] = field(default_factory=list)
    write: list[float] = field(default_factory=list)
    render: list[float] = field(default_factory=list)
    flow: list[float] = field(default_factory=list)
    cpu_per_scan: float = 0.0


def parse_times(payloads: list[str]) -> list[float]:
    """The reader's work per scan: split the frame, then resolve it to an event."""
    decoder = LineDecoder()
    resolver = CardResolver()
    out = []
    for payload in payloads:
        data = payload.encode("ascii") + b"\r\n"
        started = time.perf_counter()
        for reading in decoder.feed(data):
            resolver.resolve(reading.raw, is_uid=reading.is_uid)
        out.append(time.perf_counter() - started)
    return out


def run_taps(script: Script, scans: int, *, durable: bool) -> TapResult:
    """Tap the first ``scans`` payloads of ``script`` through the chain, one at a time."""
    from bornes.drivers.display import open_display
    from bornes.drivers.readers import open_reader
    from bornes.firmware.storage.journal import Journal
    from bornes.firmware.storage.store import JournalStore

    payloads = [tap for step in script.steps for tap in step.taps][:scans]
    if len(payloads) < scans:
        raise ValueError(f"the script holds only {len(payloads)} taps")
    # the daemon logs one line per accepted or refused card: pay for it as the daemon does
    handler = logging.StreamHandler(io.StringIO())
    handler.setFormatter(logging.Formatter("bornes: %(message)s"))
    logger = logging.getLogger("bornes")
    old_level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    write_clock, engine_clock = _Clock(), _Clock()
    result = TapResult("journal" if durable else "memory")
    with tempfile.TemporaryDirectory(prefix="bornes-bench-") as scratch, timed_engine(engine_clock):
        journal = Journal.open(scratch) if durable else None
        inner: Store = JournalStore(journal) if journal is not None else MemoryStore()
        store = TimedStore(inner, write_clock)
        setup = script.setup
        flow = TableFlow(edition=setup.edition, players=setup.seats, names=NAMES[: setup.seats], dealer=0,
                         store=store)
        events: queue.Queue[Any] = queue.Queue()
        done: queue.Queue[tuple[InputEvent, Outcome, float]] = queue.Queue()
        master, slave = os.openpty()
        display = open_display("dummy")
        reader = open_reader("lines", os.ttyname(slave), events, double_read_window=0.0)
        referee = Referee(flow, events, display=display, watchdog=False, keep_timings=True,
                          on_outcome=lambda e, o: done.put((e, o, time.perf_counter())))
        failure: list[BaseException] = []

        def driver() -> None:  # the person tapping; the referee keeps the main thread, as in the daemon
            try:
                _drive(master, payloads, done, referee, write_clock, engine_clock, result)
            except BaseException as error:
                failure.append(error)
            finally:
                events.put(STOP)

        tapper = threading.Thread(target=driver, name="tapper", daemon=True)
        tapper.start()
        try:
            referee.run()  # SQLite connections belong to the thread that opened them
        finally:
            tapper.join(10)
            reader.close()
            display.close()
            os.close(master)
            os.close(slave)
            if journal is not None:
                journal.close()
            logger.removeHandler(handler)
            logger.setLevel(old_level)
        if failure:
            raise failure[0]
    result.parse = parse_times(payloads)
    return result


def _drive(master: int, payloads: list[str], done: queue.Queue[tuple[InputEvent, Outcome, float]], referee: Referee,
           write_clock: _Clock, engine_clock: _Clock, result: TapResult) -> None:
    event, _outcome, _at = done.get(timeout=10)
    if not isinstance(event, ReaderBack):
        raise RuntimeError(f"expected the reader to come up first, got {event}")
    write_clock.take()
    engine_clock.take()
    cpu_before = time.process_time()
    for payload in payloads:
        data = payload.encode("ascii") + b"\r\n"
        sent = time.perf_counter()
        os.write(master, data)
        _event, outcome, finished = done.get(timeout=10)
        if outcome.refused:
            raise RuntimeError(f"{payload}: refused: {outcome.message}")
        flow_s, render_s, display_s = referee.timings.history[-1]
        result.total.append(finished - sent)
        result.flow.append(flow_s)
        result.render.append(render_s + display_s)
        result.write.append(write_clock.take())
        result.engine.append(engine_clock.take())
    result.cpu_per_scan = (time.process_time() - cpu_before) / len(payloads)
