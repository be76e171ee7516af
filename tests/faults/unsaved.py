"""Journals caught the way a SIGKILL or a power cut leaves them, for the bit-flip sweeps (issues 19, 34).

The referee makes two things durable before a card's chirp: SQLite's commit to the WAL and the
pending note's count. The WAL is checkpointed into the main file after the chirp, when nobody taps
(``Journal.upkeep``). So a kill finds three kinds of cards, all built here: cards checkpointed into
the main file, cards acknowledged but only in the WAL (killed before the upkeep, or a reader held
the checkpoint; the note counts them), and the card being tapped, committed but not yet noted (not
acknowledged: losing it is allowed, losing any other is not).
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
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


def killed(state: Path, *, saved: int, deferred: int, in_flight: int, page_size: int = 512) -> Snapshot:
    """A finished game, then a game in progress: ``saved`` actions checkpointed after their chirp,
    ``deferred`` acknowledged while the checkpoint waited (only in the WAL, counted by the note), and
    ``in_flight`` committed but killed before the note was written (not acknowledged).

    512-byte pages (SQLite's smallest) keep the sweeps quick.
    """
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(journal_module, "PAGE_SIZE", page_size)
        journal = Journal.open(state)
        done = journal.new_game(HEADER)
        for seq in range(3):
            journal.append(done, seq, line(seq))
            journal.upkeep(force=True)
        journal.finish(done, '{"winner": "Anne", "totals": {"Anne": 700, "Bruno": 300}}')
        game = journal.new_game(HEADER)
        journal.upkeep(force=True)
        lines = [line(seq) for seq in range(saved + deferred + in_flight)]
        for seq in range(saved):
            journal.append(game, seq, lines[seq])
            journal.upkeep(force=True)  # the referee's checkpoint after the chirp
        for seq in range(saved, saved + deferred):
            journal.append(game, seq, lines[seq])  # no upkeep: killed before it, or a reader held it
        patch.setattr(journal, "_record_note", lambda *args, **kwargs: None)  # dies right after COMMIT
        for seq in range(saved + deferred, len(lines)):
            journal.append(game, seq, lines[seq])
        snapshot = Snapshot(_copy(state), lines[: saved + deferred], lines[saved + deferred:])
    journal.close()
    return snapshot


def everything(state: Path) -> object:
    """All a reader can get out of the journal (the API history, export, web and bridge use)."""
    with Journal.open(state, readonly=True) as journal:
        return _everything_of(journal)


def _everything_of(journal: Journal) -> object:
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
    """Outcomes of one sweep. ``last`` counts apart the flips inside the WAL's final frame, the one frame
    where a flipped bit and a commit cut short by a power cut look the same (the note decides there)."""

    identical: int = 0
    reported: int = 0
    silent: list[str] = field(default_factory=list)
    last: Sweep | None = None

    def add(self, verdict: str, where: str) -> None:
        if verdict == "identical":
            self.identical += 1
        elif verdict == "reported":
            self.reported += 1
        else:
            self.silent.append(f"{where}: {verdict}")

    def line(self, what: str) -> str:
        said = f"{what}: {self.identical} identical, {self.reported} reported, {len(self.silent)} silent"
        if self.last is not None:
            said += f" (the last frame apart: {self.last.line('').lstrip(': ')})"
        return said


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
    judge: Callable[[Path], str], apart: range | None = None,
) -> Sweep:
    """Flip each ``(byte, bit)`` of file ``name`` in a copy of ``snapshot``; ``judge`` names the outcome.
    Flips of a byte in ``apart`` (the WAL's final frame) are counted in ``result.last``."""
    original = snapshot.files[name]
    result = Sweep(last=Sweep() if apart is not None else None)
    for byte, bit in targets:
        changed = bytearray(original)
        changed[byte] ^= 1 << bit
        snapshot.write(where, {name: bytes(changed)})
        tally = result.last if result.last is not None and apart is not None and byte in apart else result
        tally.add(judge(where), f"{name} byte {byte} bit {bit}")
    return result


def last_frame(wal: bytes, page_size: int) -> range:
    """The bytes of the WAL's final whole frame."""
    frame = 24 + page_size
    frames = (len(wal) - 32) // frame
    return range(32 + (frames - 1) * frame, 32 + frames * frame)


def judge_against(snapshot: Snapshot) -> Callable[[Path], str]:
    """Identical: the game holds every acknowledged action (the one in flight may be there or not).
    Reported: a one-line JournalError. Anything else is a silent loss."""
    def judge(where: Path) -> str:
        try:  # one opening for both questions: the files do not change between them (read-only)
            with Journal.open(where, readonly=True) as journal:
                current = journal.current_game()
                got = None if current is None else current.lines
                _everything_of(journal)
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
