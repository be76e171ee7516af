"""Journals caught the way a SIGKILL or a power cut leaves them, for the bit-flip sweeps (issue 19).

The journal checkpoints after every commit, so after an ordinary kill the WAL is empty. It holds
frames only in two cases, both built here: a commit whose checkpoint a reader blocked (the action
was acknowledged; ``bornes.sqlite3-pending`` says so), and the commit of the action being tapped
when the process died (not acknowledged yet: losing it is allowed, losing any other is not).
"""

from __future__ import annotations

import os
import random
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from bornes.firmware.storage import journal as journal_module
from bornes.firmware.storage.journal import FILENAME, PENDING, Journal, JournalError

HEADER = '[Format "bornes-record 1"]\n[Edition "winning-moves"]\n[Players "Anne; Bruno"]'
CI = os.environ.get("CI") == "true"


def line(seq: int) -> str:
    return f"{'AB'[seq % 2]} play MB-D{25 * (1 + seq % 4)}-{seq:02d}"


@dataclass(frozen=True)
class Snapshot:
    """The files of a state directory at the moment of a kill, and what had been acknowledged."""

    files: dict[str, bytes]
    acknowledged: list[str]  # the game in progress as the table heard it
    in_flight: list[str]  # committed but not acknowledged when the process died (may be lost)

    def write(self, where: Path, changed: dict[str, bytes] | None = None) -> None:
        where.mkdir(parents=True, exist_ok=True)
        for name in (FILENAME, f"{FILENAME}-wal", f"{FILENAME}-shm", PENDING):
            (where / name).unlink(missing_ok=True)
        for name, data in {**self.files, **(changed or {})}.items():
            (where / name).write_bytes(data)


def _copy(state: Path) -> dict[str, bytes]:
    return {
        name: (state / name).read_bytes()
        for name in (FILENAME, f"{FILENAME}-wal", f"{FILENAME}-shm", PENDING)
        if (state / name).exists()
    }


def killed(state: Path, *, saved: int, deferred: int, in_flight: int) -> Snapshot:
    """A finished game, then a game in progress: ``saved`` actions checkpointed, ``deferred`` acknowledged
    while a reader blocked the checkpoint (only in the WAL), and ``in_flight`` committed, not acknowledged.

    512-byte pages (SQLite's smallest) keep the sweeps quick.
    """
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(journal_module, "PAGE_SIZE", 512)
        patch.setattr(journal_module, "CHECKPOINT_WAIT_MS", 0)
        journal = Journal.open(state)
        done = journal.new_game(HEADER)
        for seq in range(3):
            journal.append(done, seq, line(seq))
        journal.finish(done, '{"winner": "Anne", "totals": {"Anne": 700, "Bruno": 300}}')
        game = journal.new_game(HEADER)
        lines = [line(seq) for seq in range(saved + deferred + in_flight)]
        for seq in range(saved):
            journal.append(game, seq, lines[seq])
        reader = sqlite3.connect(f"{(state / FILENAME).as_uri()}?mode=ro", uri=True, isolation_level=None)
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM actions").fetchone()  # an old snapshot: the checkpoint must wait
        for seq in range(saved, saved + deferred):
            journal.append(game, seq, lines[seq])
        patch.setattr(journal, "_settle", lambda: None)  # the process dies right after COMMIT
        for seq in range(saved + deferred, len(lines)):
            journal.append(game, seq, lines[seq])
        snapshot = Snapshot(_copy(state), lines[: saved + deferred], lines[saved + deferred:])
    reader.close()
    journal.close()
    return snapshot


def everything(state: Path) -> object:
    """All a reader can get out of the journal (the API history, export, web and bridge use)."""
    with Journal.open(state, readonly=True) as journal:
        history = journal.history()
        return (
            journal.current_game(),
            [(g.game_id, g.status, g.actions) for g in history],
            journal.recent(1),
            [journal.load(info.game_id) for info in history],
        )


def current_lines(state: Path) -> list[str] | None:
    with Journal.open(state, readonly=True) as journal:
        current = journal.current_game()
        return None if current is None else current.lines


@dataclass
class Sweep:
    identical: int = 0
    reported: int = 0
    silent: list[str] | None = None

    def line(self, what: str) -> str:
        return f"{what}: {self.identical} identical, {self.reported} reported, {len(self.silent or [])} silent"


def flips(size: int, rng: random.Random, every: int, must: Iterable[int] = ()) -> Iterator[tuple[int, int]]:
    """``(byte, bit)`` to flip: one random bit of every ``every``-th byte, and every bit of each byte
    in ``must`` (the headers SQLite trusts or checks first). CI runs ``every`` = 1; locally a sample."""
    whole = {b for b in must if 0 <= b < size}
    for byte in sorted({*range(rng.randrange(every), size, every), *whole}):
        if byte in whole:
            yield from ((byte, bit) for bit in range(8))
        else:
            yield byte, rng.randrange(8)


def sweep(
    snapshot: Snapshot, name: str, where: Path, targets: Iterable[tuple[int, int]],
    judge: Callable[[Path], str],
) -> Sweep:
    """Flip each ``(byte, bit)`` of file ``name`` in a copy of ``snapshot``; ``judge`` names the outcome."""
    original = snapshot.files[name]
    result = Sweep(silent=[])
    assert result.silent is not None
    for byte, bit in targets:
        changed = bytearray(original)
        changed[byte] ^= 1 << bit
        snapshot.write(where, {name: bytes(changed)})
        verdict = judge(where)
        if verdict == "identical":
            result.identical += 1
        elif verdict == "reported":
            result.reported += 1
        else:
            result.silent.append(f"{name} byte {byte} bit {bit}: {verdict}")
    return result


def judge_against(snapshot: Snapshot) -> Callable[[Path], str]:
    """Identical: the game holds every acknowledged action (the one in flight may be there or not).
    Reported: a one-line JournalError. Anything else is a silent loss."""
    def judge(where: Path) -> str:
        try:
            got = current_lines(where)
            everything(where)
        except JournalError as error:
            return "reported" if "\n" not in str(error) else f"a message of several lines: {error!r}"
        full = snapshot.acknowledged + snapshot.in_flight
        if got is not None and len(got) >= len(snapshot.acknowledged) and got == full[: len(got)]:
            return "identical"
        return f"{0 if got is None else len(got)} of {len(snapshot.acknowledged)} acknowledged actions, silently"
    return judge


@contextmanager
def in_memory(default: Path) -> Iterator[Path]:
    """A scratch folder in /dev/shm when there is one: the sweeps rewrite files thousands of times."""
    import shutil
    import tempfile

    if os.access("/dev/shm", os.W_OK):
        where = Path(tempfile.mkdtemp(dir="/dev/shm", prefix="bornes-sweep-"))
        try:
            yield where
        finally:
            shutil.rmtree(where, ignore_errors=True)
    else:
        yield default
