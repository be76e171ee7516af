"""Issue 19's red-team case as numbers: a referee killed after 50 acknowledged cards, then one bit flipped.

For each flip spread evenly over the WAL (every frame) and over the main file, a reader opens a
copy and reads the game in progress: identical (all 50 cards), reported (a one-line error), or
silent (fewer cards, and nothing said). Uses only the journal's public API, so it measures any
version of bornes on the path: ``PYTHONPATH=<old checkout> python -m bench.wal_flips`` for the before.

    python -m bench.wal_flips [flips per file]
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from bornes.firmware.journal import FILENAME, Journal, JournalError

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


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 400)
