"""The WAL walker (firmware/storage/wal.py) on WALs that SQLite itself wrote.

Every bit of the WAL header and of every frame header is flipped (and bits of the pages): each
flip outside the final frame must be damage, and a flip in the final frame must look like a write
cut short (the pending note decides there). Writes cut short, frames of an older generation and
the other byte order are not damage.
"""

from __future__ import annotations

import random
import sqlite3
import struct
from pathlib import Path

import pytest

from bornes.firmware.storage.wal import FRAME_HEADER_SIZE, HEADER_SIZE, MAGIC_BIG, checksum, walk

PAGE = 512


def _wal(tmp: Path, transactions: int, rows_each: int = 3) -> bytes:
    """A WAL of ``transactions`` commits, several pages each, copied while SQLite keeps it."""
    db = sqlite3.connect(tmp / "db.sqlite3", isolation_level=None)
    db.execute(f"PRAGMA page_size = {PAGE}")
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA wal_autocheckpoint = 0")
    db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)")
    db.execute("CREATE INDEX tv ON t (v)")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for n in range(transactions):
        db.execute("BEGIN")
        for r in range(rows_each):
            db.execute("INSERT INTO t (v) VALUES (?)", (f"{n}-{r}-" + "x" * 150,))
        db.execute("COMMIT")
    data = (tmp / "db.sqlite3-wal").read_bytes()
    db.close()
    return data


@pytest.fixture(scope="module")
def wal(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    data = _wal(tmp_path_factory.mktemp("wal"), 6)
    walked = walk(data)
    assert walked.whole and walked.frames >= 12 and walked.transactions == 6, walked.describe()
    previous_commit = max(k for k in range(walked.frames - 1) if _db_size(data, k))
    assert walked.frames - previous_commit - 1 >= 2, "the final transaction must span several frames"
    return data


def _db_size(data: bytes, k: int) -> int:
    return int(struct.unpack_from(">I", data, HEADER_SIZE + k * (FRAME_HEADER_SIZE + PAGE) + 4)[0])


def _flipped(data: bytes, byte: int, bit: int) -> bytes:
    changed = bytearray(data)
    changed[byte] ^= 1 << bit
    return bytes(changed)


@pytest.mark.parametrize("every", [pytest.param(1, marks=pytest.mark.slow, id="every bit"),
                                   pytest.param(7, id="every 7th bit")])
def test_every_bit_of_every_header_outside_the_final_frame_is_damage(wal: bytes, every: int) -> None:
    """The whole suite flips every bit of every header; the fast tier every 7th, which meets every byte."""
    frames = walk(wal).frames
    last = HEADER_SIZE + (frames - 1) * (FRAME_HEADER_SIZE + PAGE)
    heads = [HEADER_SIZE + k * (FRAME_HEADER_SIZE + PAGE) + d for k in range(frames) for d in range(FRAME_HEADER_SIZE)]
    missed = []
    for n, byte in enumerate([*range(HEADER_SIZE), *heads]):
        for bit in range(n % every, 8, every):
            walked = walk(_flipped(wal, byte, bit), PAGE)
            if byte >= last:
                assert walked.problem is None and walked.last_frame_broken, (byte, bit)
            elif walked.problem is None:
                missed.append((byte, bit))
    assert missed == []


def test_bits_of_every_page_outside_the_final_frame_are_damage(wal: bytes) -> None:
    rng = random.Random(34)
    frames = walk(wal).frames
    for k in range(frames):
        start = HEADER_SIZE + k * (FRAME_HEADER_SIZE + PAGE) + FRAME_HEADER_SIZE
        for byte in rng.sample(range(start, start + PAGE), 16):
            walked = walk(_flipped(wal, byte, rng.randrange(8)), PAGE)
            assert (walked.problem is None) == (k == frames - 1), (k, byte, walked.describe())


def test_a_write_cut_short_anywhere_in_the_last_transaction_is_not_damage(wal: bytes) -> None:
    walked = walk(wal)
    frame = FRAME_HEADER_SIZE + PAGE
    before_last = max(k for k in range(walked.frames - 1) if _db_size(wal, k)) + 1  # frames up to the previous commit
    for cut in range(HEADER_SIZE + before_last * frame, len(wal) + 1, 37):
        cut_walk = walk(wal[:cut], PAGE)
        assert cut_walk.problem is None, cut
        assert cut_walk.committed == (walked.committed if cut == len(wal) else before_last), cut


def test_frames_of_an_older_generation_are_not_damage(tmp_path: Path) -> None:
    """After a checkpoint SQLite starts the log again with new salts over the old frames."""
    db = sqlite3.connect(tmp_path / "db.sqlite3", isolation_level=None)
    db.execute(f"PRAGMA page_size = {PAGE}")
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA wal_autocheckpoint = 0")
    db.execute("CREATE TABLE t (v TEXT)")
    for _ in range(20):
        db.execute("INSERT INTO t VALUES (?)", ("y" * 300,))
    db.execute("PRAGMA wal_checkpoint(RESTART)")  # no truncation: the old frames stay in the file
    db.execute("INSERT INTO t VALUES ('new')")
    data = (tmp_path / "db.sqlite3-wal").read_bytes()
    db.close()
    walked = walk(data)
    assert walked.problem is None and walked.broken_at is not None and walked.committed >= 1
    assert walked.frames > walked.committed + 5  # the old generation follows, and is ignored


def _big_endian(data: bytes) -> bytes:
    """The same WAL as a big-endian machine writes it: magic 0x377f0683, checksums over big-endian words."""
    out = bytearray(data)
    struct.pack_into(">I", out, 0, MAGIC_BIG)
    running = checksum(bytes(out[:24]), True)
    struct.pack_into(">II", out, 24, *running)
    frame = FRAME_HEADER_SIZE + PAGE
    for k in range((len(out) - HEADER_SIZE) // frame):
        at = HEADER_SIZE + k * frame
        running = checksum(bytes(out[at : at + 8]) + bytes(out[at + FRAME_HEADER_SIZE : at + frame]), True, running)
        struct.pack_into(">II", out, at + 16, *running)
    return bytes(out)


def test_the_big_endian_checksum_order_walks_the_same(wal: bytes) -> None:
    other = _big_endian(wal)
    assert walk(other).whole and walk(other).committed == walk(wal).committed
    assert walk(_flipped(other, HEADER_SIZE + 3, 0), PAGE).problem is not None  # first frame's page number
    assert walk(wal[:HEADER_SIZE] + other[HEADER_SIZE:], PAGE).problem is None  # wrong order: no frame belongs


def test_a_header_that_fails_with_frames_behind_it_is_damage_and_without_them_is_not(wal: bytes) -> None:
    said = f"its WAL header fails its checksum while {walk(wal).frames} frames follow it"
    assert walk(_flipped(wal, 28, 0), PAGE).problem == said
    assert walk(_flipped(wal, 28, 0)[:HEADER_SIZE + 100], PAGE).problem is None  # no whole frame follows
    assert walk(b"\0" * 10).problem is None and walk(b"").problem is None
