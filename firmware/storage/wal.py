"""The WAL walker: read SQLite's write-ahead log ourselves, before SQLite replays it.

SQLite replays a WAL up to the first frame that fails its checks and silently ignores the rest,
so one flipped bit in an old frame gives back a shorter game and every reader says all is well.
This module walks the log with the format's own rules (https://www.sqlite.org/fileformat2.html,
"The WAL File Format") and says whether what SQLite is about to ignore is a write cut short by a
power cut (normal: that transaction was never acknowledged) or damage (stop, keep every file).

The format, in short. A 32-byte header of eight big-endian 32-bit words: magic (0x377f0682 or
0x377f0683), format version (3007000), page size, checkpoint sequence, salt-1, salt-2, and a
checksum pair over the first 24 bytes. Then frames: a 24-byte frame header (page number, the
database size in pages for a frame that commits a transaction and 0 otherwise, the two salts
copied from the header, a checksum pair) followed by one page. The checksum is cumulative: it
runs over the header's first 24 bytes, then over each frame's first 8 header bytes and its page,
frame after frame, reading 32-bit words in the byte order the magic names (0x...82 little-endian,
0x...83 big-endian); the pair stored in each frame header (always big-endian) is the running
value after that frame. A frame belongs to the log while its salts match the header's and its
stored pair matches the running value.

What counts as damage (:attr:`WalWalk.problem`):

* the header fails its checksum (or names no WAL) while whole frames follow it;
* a frame of this log (its salts within one bit of the header's) fails its checksum while a later
  frame carrying the header's salts verifies and commits a transaction: a transaction durable
  after the broken frame means the broken frame was durable too, so SQLite would drop
  acknowledged work.

What is not: a frame with another generation's salts (left from before a checkpoint), a partial
frame at the end (a write cut short), frames after the break that commit nothing (a transaction
rolled back after a full disk). A break in the very last frame of the file (:attr:`WalWalk.
last_frame_broken`) looks exactly like a commit cut short by a power cut: the walker cannot tell
one from the other, and the journal's pending note (firmware/storage/note.py) decides, because it
says how many actions were acknowledged.
"""

from __future__ import annotations

import errno
import os
import stat
import struct
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

HEADER_SIZE = 32
FRAME_HEADER_SIZE = 24
MAGIC_LITTLE = 0x377F0682  # checksum words read little-endian
MAGIC_BIG = 0x377F0683  # checksum words read big-endian
FORMAT_VERSION = 3007000
_MASK = 0xFFFFFFFF
_HEADER = struct.Struct(">8I")
_FRAME_HEADER = struct.Struct(">6I")

# -- the checksum ---------------------------------------------------------------------------------


def checksum(data: bytes, big_endian: bool, seed: tuple[int, int] = (0, 0)) -> tuple[int, int]:
    """The format's checksum of ``data`` (a multiple of 8 bytes) continuing from ``seed``: for each pair
    of 32-bit words (x, y), ``s0 += x + s1; s1 += y + s0``, modulo 2**32."""
    words = struct.unpack(f"{'>' if big_endian else '<'}{len(data) // 4}I", data)
    s0, s1 = seed
    pairs = iter(words)
    for x, y in zip(pairs, pairs, strict=True):
        s0 = (s0 + x + s1) & _MASK
        s1 = (s1 + y + s0) & _MASK
    return s0, s1


# -- the walk -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame header, as stored."""

    page: int
    db_size: int  # pages after the commit; 0 for a frame that does not commit
    salts: tuple[int, int]
    stored: tuple[int, int]  # the cumulative checksum pair written in the frame header


@dataclass(frozen=True, slots=True)
class WalWalk:
    """What the WAL holds, as SQLite will read it, and whether anything SQLite would ignore is damage."""

    size: int = 0  # bytes in the file
    page_size: int = 0
    frames: int = 0  # whole frames in the file
    valid: int = 0  # leading frames that belong to the log (what SQLite reads)
    committed: int = 0  # of those, up to and including the last commit frame (what SQLite replays)
    transactions: int = 0  # commit frames among them
    header_ok: bool = True  # False: the header names no WAL or fails its checksum
    broken_at: int | None = None  # 1-based index of the first whole frame that does not belong
    problem: str | None = None  # damage, in words; None when every byte is accounted for

    @property
    def last_frame_broken(self) -> bool:
        """The break is in the final whole frame: a flipped bit there and a commit cut short by a power
        cut look the same. Only the pending note can tell them apart."""
        return self.problem is None and self.broken_at is not None and self.broken_at == self.frames

    @property
    def whole(self) -> bool:
        """Every whole frame belongs to the log: the checksum chain runs unbroken to the end (a partial
        frame after it, or frames that never committed, are writes cut short, not damage). Such a WAL
        proves it lost nothing, whatever a damaged pending note said."""
        return self.problem is None and self.header_ok and self.broken_at is None

    def describe(self) -> str:
        if not self.size:
            return "empty"
        return (f"{self.size} bytes, {self.frames} frames, {self.committed} replayed in {self.transactions} "
                f"transactions" + (f", frame {self.broken_at} does not belong" if self.broken_at else ""))


def _salt_distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    return (a[0] ^ b[0]).bit_count() + (a[1] ^ b[1]).bit_count()


def walk(data: bytes, page_size_hint: int | None = None) -> WalWalk:
    """Walk the bytes of a WAL file. ``page_size_hint`` (the main file's page size) sizes the frames
    when the header cannot be trusted, to tell "whole frames follow" from "nothing follows"."""
    size = len(data)
    if size < HEADER_SIZE:
        return WalWalk(size=size)  # empty, or a header cut short: nothing was ever written after it
    magic, version, page_size, _seq, salt1, salt2, sum1, sum2 = _HEADER.unpack_from(data)
    big = magic == MAGIC_BIG
    good_page = 512 <= page_size <= 65536 and page_size & (page_size - 1) == 0
    header_ok = (
        magic in (MAGIC_LITTLE, MAGIC_BIG) and good_page and version == FORMAT_VERSION
        and checksum(data[:24], big) == (sum1, sum2)
    )
    if not header_ok:
        frame_size = FRAME_HEADER_SIZE + (page_size if good_page else page_size_hint or 512)
        frames = (size - HEADER_SIZE) // frame_size
        problem = (f"its WAL header fails its checksum while {frames} frames follow it" if frames else None)
        return WalWalk(size=size, page_size=page_size, frames=frames, header_ok=False, problem=problem)
    frame_size = FRAME_HEADER_SIZE + page_size
    frames = (size - HEADER_SIZE) // frame_size
    salts = (salt1, salt2)
    running = (sum1, sum2)
    valid = committed = transactions = 0
    for index in range(frames):
        offset = HEADER_SIZE + index * frame_size
        frame = _frame(data, offset)
        if frame.salts != salts:
            break
        through = checksum(data[offset : offset + 8] + data[offset + FRAME_HEADER_SIZE : offset + frame_size], big,
                           running)
        if through != frame.stored:
            break
        running = through  # the chain up to here: the seed of the next frame
        valid += 1
        if frame.db_size:
            committed, transactions = valid, transactions + 1
    else:
        return WalWalk(size, page_size, frames, valid, committed, transactions)
    broken_at = valid + 1
    problem = _damage_after(data, broken_at, frames, frame_size, salts, big, running)
    return WalWalk(size, page_size, frames, valid, committed, transactions, True, broken_at, problem)


def _frame(data: bytes, offset: int) -> Frame:
    page, db_size, salt1, salt2, sum1, sum2 = _FRAME_HEADER.unpack_from(data, offset)
    return Frame(page, db_size, (salt1, salt2), (sum1, sum2))


def _damage_after(data: bytes, broken_at: int, frames: int, frame_size: int, salts: tuple[int, int], big: bool,
                  running: tuple[int, int]) -> str | None:
    """Is the break at frame ``broken_at`` damage? Only if the broken frame is one of this log's (its salts
    within one flipped bit of the header's) and a later frame of this log verifies and commits.

    A later frame verifies when its checksum continues either the pair stored in the frame before it
    (the bit flipped in that frame's page or numbers) or the pair computed through it (the bit flipped
    in the stored pair itself): one flip leaves one of the two right. ``running`` is the chain up to
    the frame before the broken one.
    """
    first = HEADER_SIZE + (broken_at - 1) * frame_size
    if _salt_distance(_frame(data, first).salts, salts) > 1:
        return None  # a frame of an older generation, or never written: the log ends here
    previous_stored = _frame(data, first).stored
    computed = checksum(data[first : first + 8] + data[first + FRAME_HEADER_SIZE : first + frame_size], big, running)
    for index in range(broken_at, frames):
        offset = HEADER_SIZE + index * frame_size
        frame = _frame(data, offset)
        body = data[offset : offset + 8] + data[offset + FRAME_HEADER_SIZE : offset + frame_size]
        if frame.salts == salts:
            from_stored = checksum(body, big, previous_stored)
            from_computed = checksum(body, big, computed)
            if frame.db_size and frame.stored in (from_stored, from_computed):
                return (f"WAL frame {broken_at} of {frames} fails its checksum, but frame {index + 1} after it "
                        "commits a transaction of the same log: SQLite would drop acknowledged work")
        else:
            from_computed = checksum(body, big, computed)
        previous_stored, computed = frame.stored, from_computed
    return None


# -- reading the file, while a writer may be appending to it ----------------------------------------


class WalUnreadable(OSError):
    """The WAL path exists but is no regular file (a folder, a FIFO, a symlink) or cannot be read."""


def read_wal(path: Path, limit: int = 1 << 30) -> bytes | None:
    """The WAL's bytes, or None when there is none. Never follows a symlink or blocks on a FIFO."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise WalUnreadable(error.errno, "is a symlink, not the journal's WAL") from None
        raise WalUnreadable(error.errno, error.strerror or str(error)) from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise WalUnreadable(errno.EISDIR, "is a folder, not the journal's WAL")
        if not stat.S_ISREG(info.st_mode):
            raise WalUnreadable(errno.EINVAL, "is not a regular file, not the journal's WAL")
        chunks: list[bytes] = []
        read = 0
        while read < limit:
            chunk = os.read(fd, min(1 << 20, limit - read))
            if not chunk:
                break
            chunks.append(chunk)
            read += len(chunk)
        return b"".join(chunks)
    except WalUnreadable:
        raise
    except OSError as error:
        raise WalUnreadable(error.errno, error.strerror or str(error)) from None
    finally:
        os.close(fd)


#: Seconds a reader waits before it reads a damaged-looking WAL again: a writer in the middle of an append
#: has moved the file by then. Only the wait's length is tunable: the second read and the comparison always run.
CONFIRM_PAUSE = 0.02


def inspect(path: Path, page_size_hint: int | None = None, *, writer_may_run: bool = True,
            attempts: int = 5) -> WalWalk:
    """Walk the WAL at ``path`` (an absent file walks as empty).

    A reader may run beside the referee, which appends frames and restarts the log while we read: a
    frame read half-written can look like a break with a good frame after it. So damage is believed
    only when a second read, a moment later, holds the same bytes up to the evidence; otherwise the
    file moved and it is read again. ``writer_may_run=False`` (the referee itself, holding the state
    folder's lock) believes the first read. The wait between the reads is
    :data:`CONFIRM_PAUSE`.
    """
    walked = WalWalk()
    for _ in range(max(1, attempts)):
        data = read_wal(path)
        if data is None:
            return WalWalk()
        walked = walk(data, page_size_hint)
        if walked.problem is None or not writer_may_run:
            return walked
        time.sleep(CONFIRM_PAUSE)
        again = read_wal(path)
        if again is not None and again[: len(data)] == data:
            return walked
    return walked


def frame_offsets(walked: WalWalk) -> Sequence[int]:
    """Byte offset of each whole frame (for tests and the bench's flip sweeps)."""
    frame_size = FRAME_HEADER_SIZE + walked.page_size
    return [HEADER_SIZE + k * frame_size for k in range(walked.frames)]
