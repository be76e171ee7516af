"""A year of play, then ten: start and ``history`` with thousands of finished games in the journal.

Also (``python -m bench.journal [cards] [folder]``) what durability costs a tap: the time a card
takes before its chirp (SQLite's commit and the pending note) and after it (the referee's upkeep),
and the WAL's size, with the upkeep and without it.

Builds a journal of N real finished games (one bot-played game's actions, header and summary,
written under new ids through :meth:`Journal.import_games`), then measures against an empty
journal: daemon start to READY (sd_notify), the journal's open check, and ``bornes history``'s
work in process (default view and ``--all``). It also times what start used to run, SQLite's
``PRAGMA quick_check`` over the whole file, to show what the O(current game) open check saves.

    python -m bench --only journal [--journal-games 20000]
"""

from __future__ import annotations

import contextlib
import io
import json
import socket
import sqlite3
import tempfile
import time
from argparse import Namespace
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bench.driver import Daemon, Pty, script_games, write_config
from bornes.engine.actions import parse_action
from bornes.engine.game import Game
from bornes.engine.record import write_header
from bornes.firmware.storage.journal import FILENAME, FINISHED, GameRecord, Journal
from bornes.firmware.storage.store import summary


@dataclass
class JournalFigures:
    games: int
    actions_per_game: int
    megabytes: float
    build_seconds: float
    ready_empty: list[float]
    ready_full: list[float]
    open_empty: float
    open_full: float
    history_default: float
    history_all: float
    quick_check: float


def build(state_dir: Path, games: int, batch: int = 500) -> int:
    """Write ``games`` finished games into a new journal; returns the actions per game."""
    script = script_games(players=2, seed=1, games=1)
    lines = script.notations()[: script.ends[0]]
    game = Game(script.setup, [parse_action(line) for line in lines])
    record = GameRecord(0, FINISHED, "2026-01-01T20:00:00+00:00", "2026-01-01T20:40:00+00:00",
                        write_header(script.setup), json.dumps(summary(game.state), ensure_ascii=False), lines)
    with Journal.open(state_dir) as journal:
        done = 0
        while done < games:
            count = min(batch, games - done)
            journal.import_games([record] * count)
            done += count
    return len(lines)


def ready_times(state_dir: Path, runs: int) -> list[float]:
    """Seconds from Popen to READY=1 for a daemon on ``state_dir``, once per run."""
    times = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="bornes-ready-") as scratch:
            where = Path(scratch)
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            listener.bind(str(where / "notify.sock"))
            listener.settimeout(30)
            pty = Pty(where / "reader")
            daemon = Daemon(write_config(where, pty.link, state=state_dir),
                            env={"NOTIFY_SOCKET": str(where / "notify.sock")})
            try:
                while "READY=1" not in listener.recv(4096).decode().splitlines():
                    pass
                times.append(time.perf_counter() - daemon.started)
            finally:
                daemon.stop()
                listener.close()
                pty.close()
    return times


def _best(runs: int, work: object) -> float:
    assert callable(work)
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best


def _history(state_dir: Path, every: bool) -> None:
    from bornes.firmware.commands import history

    config = state_dir / "history.toml"
    if not config.exists():
        config.write_text(f'[state]\ndir = "{state_dir}"\n')
    with contextlib.redirect_stdout(io.StringIO()):
        history.run(Namespace(config=str(config), all=every, last=history.DEFAULT_LAST, lang=None))


def _quick_check(path: Path) -> None:
    with contextlib.closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as db:
        db.execute("PRAGMA quick_check").fetchall()


@contextlib.contextmanager
def _journals(games: int) -> Iterator[tuple[Path, Path, int, float]]:
    with tempfile.TemporaryDirectory(prefix="bornes-year-") as scratch:
        empty, full = Path(scratch) / "empty", Path(scratch) / "full"
        Journal.open(empty).close()
        started = time.perf_counter()
        per_game = build(full, games)
        yield empty, full, per_game, time.perf_counter() - started


def measure(games: int, runs: int) -> JournalFigures:
    with _journals(games) as (empty, full, per_game, built):
        size = (full / FILENAME).stat().st_size / 1024 / 1024
        open_empty = _best(runs, lambda: Journal.open(empty).close())
        open_full = _best(runs, lambda: Journal.open(full).close())
        history_default = _best(runs, lambda: _history(full, every=False))
        history_all = _best(max(1, runs // 3), lambda: _history(full, every=True))
        quick = _best(1, lambda: _quick_check(full / FILENAME))
        ready_empty, ready_full = [], []
        for _ in range(runs):  # interleaved, so a noisy neighbour hits both alike
            ready_empty += ready_times(empty, 1)
            ready_full += ready_times(full, 1)
    return JournalFigures(games, per_game, size, built, ready_empty, ready_full, open_empty, open_full,
                          history_default, history_all, quick)


# -- what durability costs a tap (issues 19, 34) -----------------------------------------------------


@dataclass
class CommitFigures:
    cards: int
    median: float  # before the chirp: SQLite's commit and the pending note
    p99: float
    upkeep_median: float  # after the chirp: checkpoint into the main file, prime the next WAL
    upkeep_p99: float
    wal_peak: int
    wal_after: int


def commit_costs(cards: int, where: Path, *, upkeep: bool = True) -> CommitFigures:
    """Append ``cards`` actions one by one (one durable transaction each, as taps are) and time each, then
    the referee's upkeep after each chirp (or none: the WAL then grows until SQLite's own checkpoint)."""
    import os

    before: list[float] = []
    after: list[float] = []
    peak = 0
    with Journal.open(where) as journal:
        game = journal.new_game('[Edition "winning-moves"]\n[Players "Anne; Bruno"]')
        journal.upkeep()
        wal = where / f"{FILENAME}-wal"
        for seq in range(cards):
            started = time.perf_counter()
            journal.append(game, seq, f"{'AB'[seq % 2]} play MB-D100-{seq % 100:02d}")
            chirp = time.perf_counter()
            peak = max(peak, os.stat(wal).st_size)
            if upkeep:
                journal.upkeep()
            before.append(chirp - started)
            after.append(time.perf_counter() - chirp)
        after_size = os.stat(wal).st_size
    before.sort()
    after.sort()
    return CommitFigures(cards, before[len(before) // 2], before[min(len(before) - 1, len(before) * 99 // 100)],
                         after[len(after) // 2], after[min(len(after) - 1, len(after) * 99 // 100)], peak, after_size)


def commit_rows(cards: int = 300, directory: str | None = None) -> list[tuple[str, str]]:
    """Per-card cost before the chirp and after it (median / p99), and the WAL's size, on a real disk."""
    rows = []
    for upkeep in (True, False):
        with tempfile.TemporaryDirectory(prefix="bornes-commit-", dir=directory) as scratch:
            found = commit_costs(cards, Path(scratch), upkeep=upkeep)
        after = (f"; after the chirp {found.upkeep_median * 1000:.2f} / {found.upkeep_p99 * 1000:.2f} ms"
                 if upkeep else "")
        rows.append((
            f"durable card, {cards} cards, {'upkeep after each chirp' if upkeep else 'no upkeep'}: before the chirp "
            "median / p99; WAL (max) / at end",
            f"{found.median * 1000:.2f} / {found.p99 * 1000:.2f} ms{after}; "
            f"{found.wal_peak / 1024:.0f} / {found.wal_after / 1024:.0f} KiB",
        ))
    return rows


if __name__ == "__main__":  # python -m bench.journal [cards] [folder on the disk to measure]
    import sys

    for label, value in commit_rows(int(sys.argv[1]) if len(sys.argv) > 1 else 300,
                                    sys.argv[2] if len(sys.argv) > 2 else None):
        print(f"{label:<90} {value}")
