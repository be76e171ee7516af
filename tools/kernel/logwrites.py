"""A replayer of dm-log-writes logs: rebuild a block device as it stood at any entry of its log.

The kernel's ``log-writes`` device-mapper target (drivers/md/dm-log-writes.c, documented in
Documentation/admin-guide/device-mapper/log-writes.rst) passes every write to a device and copies
it to a second, the log, in the order the writes reached the medium: a plain write is logged only
once a flush (``REQ_PREFLUSH``) that follows it completes, just before that flush; a write with
``REQ_FUA`` as soon as it completes; a mark (``dmsetup message DEV 0 mark TEXT``) when it is sent.
So the writes logged between two flushes are the ones a power cut during the second flush could
leave on the medium in any subset and any order, and everything logged before a flush is durable.

The log's format, from the kernel's source (all little-endian):

* sector 0, the super: ``magic`` (u64, 0x6a736677736872), ``version`` (u64, 1), ``nr_entries``
  (u64), ``sectorsize`` (u32: the logged device's logical block size, also the unit of the log);
* from byte ``sectorsize`` on, ``nr_entries`` entries, each one sector holding ``sector``,
  ``nr_sectors``, ``flags``, ``data_len`` (four u64; a mark's text follows them in that sector),
  then, unless it is a discard, the ``nr_sectors`` sectors the write carried;
* flags: 1 flush, 2 FUA, 4 discard, 8 mark, 16 metadata (``REQ_META``).

The super's count is brought up to date at each FUA, mark and when the target is removed
(``dmsetup remove`` logs a last mark, ``dm-log-writes-end``): read a log after removing the target.

This is our own reading of that format (xfstests' ``replay-log`` is not packaged by Debian).
Standard library only.
"""

from __future__ import annotations

import ctypes
import os
import random
import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

MAGIC = 0x6A736677736872
VERSION = 1
FLUSH, FUA, DISCARD, MARK, METADATA = 1, 2, 4, 8, 16
_SUPER = struct.Struct("<QQQI")
_ENTRY = struct.Struct("<QQQQ")
_FALLOC_FL_KEEP_SIZE, _FALLOC_FL_PUNCH_HOLE = 1, 2
_ZERO_CHUNK = 4096


class LogError(ValueError):
    """The file is not a dm-log-writes log, or it is cut short."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry of the log: a write (its bytes at ``data_at`` in the log file), a flush, a discard or a mark."""

    index: int
    sector: int  # in the log's sectors (``Log.sectorsize``)
    sectors: int
    flags: int
    data_at: int  # where the written bytes start in the log file
    mark: str | None = None

    @property
    def flush(self) -> bool:
        return bool(self.flags & FLUSH)

    @property
    def fua(self) -> bool:
        return bool(self.flags & FUA)

    @property
    def discard(self) -> bool:
        return bool(self.flags & DISCARD)

    @property
    def durable_point(self) -> bool:
        """A flush or a FUA: once it completed, everything logged up to here was on the medium."""
        return bool(self.flags & (FLUSH | FUA))

    @property
    def writes(self) -> bool:
        """It changes the device's bytes (a write with data, or a discard)."""
        return self.sectors > 0 and not self.flags & MARK


class Log:
    """A dm-log-writes log file, its entries read once (the data stays in the file until applied)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file = open(path, "rb")  # noqa: SIM115 - closed by close()
        head = self._file.read(_SUPER.size)
        if len(head) < _SUPER.size:
            raise LogError(f"{path}: {len(head)} bytes, too short for a log's super")
        magic, version, count, sectorsize = _SUPER.unpack(head)
        if magic != MAGIC:
            raise LogError(f"{path}: magic {magic:#x} is not dm-log-writes' {MAGIC:#x}")
        if version != VERSION:
            raise LogError(f"{path}: log version {version}, this replayer reads {VERSION}")
        if sectorsize < 512 or sectorsize & (sectorsize - 1):
            raise LogError(f"{path}: sector size {sectorsize} is not a power of two of at least 512")
        self.sectorsize = sectorsize
        self.entries: list[Entry] = list(self._read(count))

    def _read(self, count: int) -> Iterator[Entry]:
        at = self.sectorsize
        size = os.fstat(self._file.fileno()).st_size
        for index in range(count):
            self._file.seek(at)
            raw = self._file.read(self.sectorsize)
            if len(raw) < self.sectorsize:
                raise LogError(f"{self.path}: entry {index} of {count} is cut short at byte {at}")
            sector, sectors, flags, data_len = _ENTRY.unpack_from(raw)
            mark = None
            if flags & MARK:
                mark = raw[_ENTRY.size:_ENTRY.size + data_len].decode("utf-8", "replace")
            at += self.sectorsize
            yield Entry(index, sector, sectors, flags, at, mark)
            if not flags & (DISCARD | MARK):
                at += sectors * self.sectorsize
                if at > size:
                    raise LogError(f"{self.path}: the data of entry {index} runs past the end of the file")

    def data(self, entry: Entry) -> bytes:
        """The bytes a write carried (empty for a flush, a discard or a mark)."""
        if entry.flags & (DISCARD | MARK) or entry.sectors == 0:
            return b""
        self._file.seek(entry.data_at)
        return self._file.read(entry.sectors * self.sectorsize)

    def marks(self) -> list[Entry]:
        return [entry for entry in self.entries if entry.mark is not None]

    def find_mark(self, text: str) -> Entry:
        for entry in self.entries:
            if entry.mark == text:
                return entry
        raise LogError(f"{self.path}: no mark {text!r}")

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> Log:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_libc = ctypes.CDLL(None, use_errno=True)
_libc.fallocate.argtypes = (ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64)


def punch(fd: int, offset: int, length: int) -> None:
    """Make ``length`` bytes at ``offset`` read as zeros without storing them (a hole in a sparse file)."""
    if _libc.fallocate(fd, _FALLOC_FL_PUNCH_HOLE | _FALLOC_FL_KEEP_SIZE, offset, length) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"fallocate(PUNCH_HOLE): {os.strerror(error)}")


class Device:
    """An image file standing for the logged device: entries are applied to it in the order given.

    Zeros (a discard, or a write of zeros, as mkfs writes its inode tables) are stored as holes, so
    copies of the image stay as small as what the filesystem holds."""

    def __init__(self, path: Path, size: int, log: Log, *, fresh: bool = True) -> None:
        self.path, self.size, self.log = path, size, log
        flags = os.O_RDWR | os.O_CREAT | (os.O_TRUNC if fresh else 0)
        self.fd = os.open(path, flags, 0o600)
        os.ftruncate(self.fd, size)
        self.applied = 0  # entries of the log applied in order (see :meth:`play_to`)

    def write(self, offset: int, data: bytes) -> None:
        if offset + len(data) > self.size:
            raise LogError(f"a write at byte {offset} of {len(data)} bytes runs past the device's {self.size}")
        for start in range(0, len(data), _ZERO_CHUNK):
            chunk = data[start:start + _ZERO_CHUNK]
            if chunk.count(0) == len(chunk):
                punch(self.fd, offset + start, len(chunk))
            else:
                os.pwrite(self.fd, chunk, offset + start)

    def apply(self, entry: Entry, limit: int | None = None) -> None:
        """One entry: its data written (only the first ``limit`` bytes: a torn write), a discard zeroed."""
        offset = entry.sector * self.log.sectorsize
        if entry.discard:
            punch(self.fd, offset, min(entry.sectors * self.log.sectorsize, self.size - offset))
            return
        data = self.log.data(entry)
        if data:
            self.write(offset, data if limit is None else data[:limit])

    def play_to(self, index: int) -> None:
        """Apply the log's entries in order up to and including entry ``index`` (from where it was left)."""
        if index < self.applied - 1:
            raise LogError(f"the image is already past entry {index}; start a new one")
        for entry in self.log.entries[self.applied:index + 1]:
            self.apply(entry)
        self.applied = max(self.applied, index + 1)

    def copy_to(self, target: Path) -> Device:
        """A copy of the image as it is now (holes kept), to mount or to change without touching this one."""
        os.fsync(self.fd)
        with open(target, "wb") as out:
            out.truncate(self.size)
            offset = 0
            while offset < self.size:
                try:
                    data = os.lseek(self.fd, offset, os.SEEK_DATA)
                except OSError:  # ENXIO: only a hole is left
                    break
                hole = os.lseek(self.fd, data, os.SEEK_HOLE)
                while data < hole:
                    chunk = os.pread(self.fd, min(1 << 20, hole - data), data)
                    out.seek(data)
                    out.write(chunk)
                    data += len(chunk)
                offset = hole
        copy = Device(target, self.size, self.log, fresh=False)
        copy.applied = self.applied
        return copy

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


# -- the points of a sweep -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Interval:
    """The writes logged after one durable point and before the next: the ones a power cut during
    the next flush may have left on the medium in any subset and order. ``start`` is the index of
    the durable point it follows (-1: the log's start), ``end`` the next durable point's."""

    start: int
    end: int
    writes: tuple[Entry, ...]


def durable_points(log: Log) -> list[Entry]:
    return [entry for entry in log.entries if entry.durable_point]


def intervals(log: Log) -> list[Interval]:
    """Every stretch of writes between two durable points (those with none left out)."""
    found: list[Interval] = []
    start, pending = -1, list[Entry]()
    for entry in log.entries:
        if entry.durable_point:
            if pending:
                found.append(Interval(start, entry.index, tuple(pending)))
            start, pending = entry.index, []
        elif entry.writes:
            pending.append(entry)
    return found


@dataclass(frozen=True, slots=True)
class Crash:
    """A state a power cut may leave inside an interval: ``order`` applied on top of the last durable
    point, the last of them cut to its first ``torn`` bytes when ``torn`` is set."""

    interval: Interval
    order: tuple[Entry, ...]
    torn: int | None = None

    def describe(self) -> str:
        shown = ",".join(str(entry.index) for entry in self.order)
        cut = f", the last torn to {self.torn} B" if self.torn else ""
        return f"after entry {self.interval.start}: writes [{shown}] of {len(self.interval.writes)}{cut}"


def reorderings(interval: Interval, count: int, rng: random.Random) -> list[Crash]:
    """``count`` seeded random subsets of the interval's writes, each in a random order (a state the
    device's cache may leave: any of them reached the medium, in any order), none of them all of it
    in the logged order (that is the next durable point, swept as such)."""
    crashes: list[Crash] = []
    writes = list(interval.writes)
    for _ in range(count):
        chosen = [entry for entry in writes if rng.random() < 0.5] or [rng.choice(writes)]
        rng.shuffle(chosen)
        crashes.append(Crash(interval, tuple(chosen)))
    return crashes


def tearings(interval: Interval, log: Log, rng: random.Random, sizes: Sequence[int] = (512, 4096)) -> list[Crash]:
    """A write of the interval torn: the writes logged before it, then only its first 512 bytes or
    4 KiB (each size shorter than the write; a write picked at random among those long enough)."""
    crashes: list[Crash] = []
    for size in sizes:
        longer = [k for k, entry in enumerate(interval.writes)
                  if not entry.discard and entry.sectors * log.sectorsize > size]
        if not longer:
            continue
        k = rng.choice(longer)
        crashes.append(Crash(interval, interval.writes[:k + 1], torn=size))
    return crashes


def apply_crash(device: Device, crash: Crash) -> None:
    """Apply a crash's writes to an image at its interval's start (a copy: this changes it)."""
    for number, entry in enumerate(crash.order):
        last = number == len(crash.order) - 1
        device.apply(entry, crash.torn if last else None)
