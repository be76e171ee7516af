"""The replayer of dm-log-writes logs (tools/kernel/logwrites.py) on a log laid out byte for byte as the kernel
lays it (drivers/md/dm-log-writes.c: the super, then each entry's sector and its data).

The replayer is proven against the kernel's own log in tests/kernel/test_power_cut.py (the whole log
replayed gives the VM's very files); here, without a VM, what the sweep builds on it: which states are
durable, what a crash between two flushes may leave, a torn write, a discard, and a log cut short.
"""

from __future__ import annotations

import random
import struct
from pathlib import Path

import pytest

from tools.kernel.logwrites import (
    DISCARD,
    FLUSH,
    FUA,
    MAGIC,
    MARK,
    Device,
    Log,
    LogError,
    apply_crash,
    intervals,
    reorderings,
    tearings,
)

SECTOR = 512


def _log(path: Path, entries: list[tuple[int, int, int, bytes | str]]) -> Path:
    """(sector, sectors, flags, data or mark text) each, as the kernel writes them."""
    body = b""
    for sector, sectors, flags, payload in entries:
        if flags & MARK:
            text = str(payload).encode()
            body += (struct.pack("<QQQQ", 0, 0, flags, len(text)) + text).ljust(SECTOR, b"\0")
        else:
            data = bytes(payload) if isinstance(payload, bytes) else b""
            body += struct.pack("<QQQQ", sector, sectors, flags, 0).ljust(SECTOR, b"\0")
            body += b"" if flags & DISCARD else data
    path.write_bytes(struct.pack("<QQQI", MAGIC, 1, len(entries), SECTOR).ljust(SECTOR, b"\0") + body)
    return path


def _device_bytes(device: Device) -> bytes:
    return device.path.read_bytes()


def test_a_crash_between_two_flushes_keeps_what_was_flushed_and_any_part_of_the_rest(tmp_path: Path) -> None:
    a, b, c = b"A" * SECTOR, b"B" * 2 * SECTOR, b"C" * SECTOR
    log = Log(_log(tmp_path / "log", [(0, 1, 0, a), (0, 0, FLUSH, b""), (2, 2, 0, b), (8, 1, 0, c),
                                      (0, 0, MARK, "acked-1"), (0, 0, FLUSH, b""), (4, 1, FUA | FLUSH, c)]))
    assert [e.mark for e in log.marks()] == ["acked-1"]
    assert [e.index for e in log.entries if e.durable_point] == [1, 5, 6]
    before, interval = intervals(log)  # the FUA after the second flush has no write before it: no third
    assert (before.start, before.end, [e.index for e in before.writes]) == (-1, 1, [0])
    assert (interval.start, interval.end, [e.index for e in interval.writes]) == (1, 5, [2, 3])
    device = Device(tmp_path / "dev", 16 * SECTOR, log)
    device.play_to(1)
    base = _device_bytes(device)
    assert base[:SECTOR] == a and base[SECTOR:] == bytes(15 * SECTOR)
    for crash in reorderings(interval, 20, random.Random(1)):
        image = device.copy_to(tmp_path / "crash")
        apply_crash(image, crash)
        seen = _device_bytes(image)
        assert seen[:SECTOR] == a  # flushed before: always there
        for entry, data in ((log.entries[2], b), (log.entries[3], c)):
            at = entry.sector * SECTOR
            assert seen[at:at + len(data)] == (data if entry in crash.order else bytes(len(data)))
        image.close()
    device.play_to(6)
    whole = _device_bytes(device)
    assert whole[2 * SECTOR:4 * SECTOR] == b and whole[4 * SECTOR:5 * SECTOR] == c == whole[8 * SECTOR:9 * SECTOR]


def test_a_torn_write_keeps_only_its_first_bytes_and_zeros_are_holes(tmp_path: Path) -> None:
    big = bytes(range(256)) * 32  # 8 KiB
    log = Log(_log(tmp_path / "log", [(0, 0, FLUSH, b""), (16, 16, 0, big), (48, 8, 0, bytes(4096)),
                                      (0, 0, FLUSH, b""), (16, 8, DISCARD, b""), (0, 0, FLUSH, b"")]))
    first = intervals(log)[0]
    torn = tearings(first, log, random.Random(2))
    assert [crash.torn for crash in torn] == [512, 4096]  # only the 8 KiB write is longer than each
    device = Device(tmp_path / "dev", 64 * SECTOR, log)
    device.play_to(0)
    for crash in torn:
        image = device.copy_to(tmp_path / "torn")
        apply_crash(image, crash)
        seen = _device_bytes(image)[16 * SECTOR:32 * SECTOR]
        assert crash.torn is not None
        assert seen == big[:crash.torn] + bytes(len(big) - crash.torn)
        image.close()
    device.play_to(5)  # the discard zeroes the first 4 KiB of the write, as a hole
    assert _device_bytes(device)[16 * SECTOR:32 * SECTOR] == bytes(4096) + big[4096:]
    assert device.path.stat().st_blocks * 512 < 64 * SECTOR  # zeros stored as holes


def test_a_log_that_is_not_one_or_is_cut_short_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    bad.write_bytes(b"\0" * 1024)
    with pytest.raises(LogError, match="is not dm-log-writes'"):
        Log(bad)
    cut = _log(tmp_path / "cut", [(0, 4, 0, b"x" * 4 * SECTOR)])
    cut.write_bytes(cut.read_bytes()[:-SECTOR])
    with pytest.raises(LogError, match="runs past the end of the file"):
        Log(cut)
