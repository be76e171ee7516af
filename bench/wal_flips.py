"""Issue 19's red-team case as numbers: a referee killed after 50 acknowledged cards, then one bit flipped.

For each flip spread evenly over the WAL (every frame) and over the main file, a reader opens a
copy and reads the game in progress: identical (all 50 cards), reported (a one-line error), or
silent (fewer cards, and nothing said). Uses only the journal's public API, so it measures any
version of bornes on the path: ``PYTHONPATH=<old checkout> python -m bench.wal_flips`` for the before.

    python -m bench.wal_flips [flips per file]          # the WAL and the main file after a kill
    python -m bench.wal_flips --old-journal [step]        # +16 at every step-th byte of the schema-1 fixture
    python -m bench.wal_flips --exit-codes [flips]        # random flips: history and export exit statuses
"""

from __future__ import annotations

import contextlib
import io
import random
import shutil
import sys
import tempfile
from pathlib import Path

from bornes.firmware.storage.journal import FILENAME, Journal, JournalError

CARDS = 50


def _line(seq: int) -> str:
    return f"{'AB'[seq % 2]} play MB-D{25 * (1 + seq % 4)}-{seq:02d}"


def killed(state: Path) -> dict[str, bytes]:
    """The files as a SIGKILL after the 50th acknowledged card leaves them (copied while still open)."""
    journal = Journal.open(state)
    game = journal.new_game('[Format "bornes-record 1"]\n[Edition "winning-moves"]\n[Players "Anne; Bruno"]')
    for seq in range(CARDS):
        journal.append(game, seq, _line(seq))
    files = {p.name: p.read_bytes() for p in state.iterdir() if p.name.startswith(FILENAME) and p.is_file()}
    journal.close()
    return files


def sweep(files: dict[str, bytes], name: str, count: int, where: Path) -> tuple[int, int, int, int]:
    """(identical, reported, silent, cards lost silently) over ``count`` flips spread over file ``name``."""
    data = files[name]
    identical = reported = silent = lost = 0
    bits = len(data) * 8
    for k in range(min(count, bits)):
        bit = k * bits // min(count, bits) + k % 8
        bit = min(bit, bits - 1)
        changed = bytearray(data)
        changed[bit // 8] ^= 1 << (bit % 8)
        shutil.rmtree(where, ignore_errors=True)
        where.mkdir()
        for other, content in files.items():
            (where / other).write_bytes(bytes(changed) if other == name else content)
        try:
            with Journal.open(where, readonly=True) as journal:
                current = journal.current_game()
            got = 0 if current is None else len(current.lines)
        except JournalError:
            reported += 1
            continue
        if got >= CARDS:
            identical += 1
        else:
            silent += 1
            lost += CARDS - got
    return identical, reported, silent, lost


def main(count: int) -> None:
    with tempfile.TemporaryDirectory(prefix="bornes-flips-", dir="/dev/shm") as scratch:
        files = killed(Path(scratch) / "live")
        for name in (f"{FILENAME}-wal", FILENAME):
            size = len(files.get(name, b""))
            if size == 0:
                print(f"{name}: {size} bytes after the kill: no acknowledged card is there to lose")
                continue
            identical, reported, silent, lost = sweep(files, name, count, Path(scratch) / "flip")
            print(f"{name}: {size} bytes, {identical + reported + silent} flips: {identical} identical, "
                  f"{reported} reported, {silent} silent ({lost} of {silent * CARDS} acknowledged cards lost)")


def old_journal(step: int) -> None:
    """Issue 19, item 2: +16 at every ``step``-th byte of the schema-1 fixture, every reader's view compared."""
    fixture = Path(__file__).resolve().parent.parent / "tests" / "appliance" / "data" / "journal-v1.sqlite"
    original = fixture.read_bytes()

    def everything(where: Path) -> object:
        with Journal.open(where, readonly=True) as journal:
            history = journal.history()
            return journal.current_game(), history, [journal.load(g.game_id) for g in history]

    with tempfile.TemporaryDirectory(prefix="bornes-v1-", dir="/dev/shm") as scratch:
        where = Path(scratch)
        (where / FILENAME).write_bytes(original)
        baseline = everything(where)
        identical = reported = silent = 0
        for byte in range(0, len(original), step):
            data = bytearray(original)
            data[byte] = (data[byte] + 16) % 256
            (where / FILENAME).write_bytes(data)
            try:
                seen = everything(where)
            except JournalError:
                reported += 1
                continue
            except Exception:  # a raw error is not a report a person can act on
                silent += 1
                continue
            identical, silent = (identical + 1, silent) if seen == baseline else (identical, silent + 1)
    print(f"schema-1 fixture, {len(range(0, len(original), step))} bytes +16: {identical} identical, "
          f"{reported} reported, {silent} silent")


def exit_codes(flips: int) -> None:
    """Issue 19, item 3: random single-bit flips of a journal; the statuses of ``history --all`` and ``export``."""
    from bench.journal import build
    from bornes.firmware.cli import main as cli

    with tempfile.TemporaryDirectory(prefix="bornes-codes-", dir="/dev/shm") as scratch:
        made, state = Path(scratch) / "made", Path(scratch) / "state"
        build(made, 4)
        with Journal.open(made) as journal:
            game = journal.new_game('[Edition "winning-moves"]\n[Players "Anne; Bruno"]')
            for seq in range(30):
                journal.append(game, seq, f"A play MB-D100-{seq:02d}")
        original = (made / FILENAME).read_bytes()
        state.mkdir()
        config = Path(scratch) / "config.toml"
        config.write_text(f'[state]\ndir = "{state}"\n')
        rng = random.Random(19)
        codes: dict[int, int] = {}
        for k in range(flips):
            byte = rng.randrange(100, 4096) if k % 3 == 0 else rng.randrange(len(original))
            data = bytearray(original)
            data[byte] ^= 1 << rng.randrange(8)
            (state / FILENAME).write_bytes(data)
            for command in (["history", "--all"], ["export", "5"]):
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                    code = cli([*command, "--config", str(config)])
                codes[code] = codes.get(code, 0) + 1
    print(f"{flips} random flips, history and export: exit statuses {dict(sorted(codes.items()))}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--old-journal"]:
        old_journal(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    elif sys.argv[1:2] == ["--exit-codes"]:
        exit_codes(int(sys.argv[2]) if len(sys.argv) > 2 else 300)
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 400)
