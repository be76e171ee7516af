"""A real tmpfs for storage tests: a disk that fills up, and can be remounted read-only."""

from __future__ import annotations

import errno
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def mounted_tmpfs(where: Path, size: str) -> Iterator[Path]:
    """``where`` with a tmpfs of ``size`` mounted on it, unmounted afterwards (skips without CAP_SYS_ADMIN)."""
    where.mkdir()
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True)
    if result.returncode != 0:  # a container without CAP_SYS_ADMIN; max_page_count still tests SQLITE_FULL
        pytest.skip(f"cannot mount a tmpfs here: {result.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill(disk: Path) -> Path:
    """Take every free byte of ``disk`` with one file."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        for size in (65536, 4096, 512, 1):
            while True:
                try:
                    os.write(fd, b"\1" * size)
                except OSError as error:
                    assert error.errno == errno.ENOSPC
                    break
    finally:
        os.close(fd)
    return filler
