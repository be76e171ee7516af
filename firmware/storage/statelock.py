"""One writer per state directory: an exclusive ``flock`` on ``<state dir>/bornes.lock``.

The referee holds it for its whole life; ``feed --state-dir``, ``enroll`` and ``archive`` take it
for as long as they write. A second writer is refused with one line naming the holder's PID.
Readers (``history``, ``export``, ``doctor``, the web companion) never take it: SQLite's WAL lets
them read while the referee writes. The kernel drops the lock when the holder dies, however it
dies, so a stale lock file never blocks a restart.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import os
import stat
import time
from pathlib import Path

from bornes.drivers.errors import EX_CANTCREAT, EX_TEMPFAIL, UserError

LOCK_FILE = "bornes.lock"

log = logging.getLogger("bornes.statelock")


class StateDirBusy(UserError):
    """Another bornes process writes to this state directory."""

    exit_code = EX_TEMPFAIL


class StateLock:
    """An exclusive lock on a state directory; ``close()`` releases it and is idempotent."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, state_dir: str | os.PathLike[str], purpose: str) -> StateLock:
        """Take the lock now or raise :class:`StateDirBusy` (never waits: a person is waiting)."""
        path = Path(state_dir) / LOCK_FILE
        _move_aside_if_not_a_file(path)
        flags = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        try:
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | flags, 0o644)
            except PermissionError:  # left by another user (sudo bornes …): flock works on a read-only fd
                fd = os.open(path, os.O_RDONLY | flags)
        except OSError as error:
            reason = error.strerror or error
            raise UserError(f"state directory {state_dir}: cannot open {path.name}: {reason}; "
                            f"remove it and start again", EX_CANTCREAT) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            os.close(fd)
            if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise StateDirBusy(
                    f"state directory {state_dir} is in use by {holder_text(state_dir)}; "
                    "stop it first (sudo systemctl stop bornes) or use another state directory"
                ) from None
            raise UserError(f"state directory {state_dir}: cannot lock {path.name}: {error.strerror}",
                            EX_CANTCREAT) from None
        with contextlib.suppress(OSError):  # who holds it, for the refusal a second writer sees (if writable)
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()} {purpose}\n".encode(), 0)
        return cls(path, fd)

    def close(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)  # closing the descriptor releases the flock
            self._fd = None

    def __enter__(self) -> StateLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _move_aside_if_not_a_file(path: Path) -> None:
    """A folder, a symlink (dangling or not) or a FIFO named ``bornes.lock`` holds no lock and stopped
    every start: it goes aside as ``bornes.lock.moved-<time>`` (nothing is deleted) and a file replaces it."""
    try:
        info = path.lstat()
    except OSError:
        return
    if stat.S_ISREG(info.st_mode):
        return
    target = path.with_name(f"{path.name}.moved-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}")
    try:
        os.rename(path, target)
    except OSError as error:
        raise UserError(f"{path} is not a file and cannot be moved aside ({error.strerror or error}); "
                        "remove it and start again", EX_CANTCREAT) from None
    log.warning("%s was not a file; moved aside to %s", path, target.name)


def holder(state_dir: str | os.PathLike[str]) -> tuple[int, str] | None:
    """``(pid, purpose)`` of the process holding the lock, or None when nobody does."""
    path = Path(state_dir) / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            text = os.pread(fd, 200, 0).decode("utf-8", "replace").split()
            if text and text[0].isdigit():
                return int(text[0]), " ".join(text[1:]) or "bornes"
            return 0, "bornes"
        return None  # we got it, so nobody holds it exclusively (closing releases ours)
    finally:
        os.close(fd)


def holder_text(state_dir: str | os.PathLike[str]) -> str:
    found = holder(state_dir)
    if found is None:
        return "another bornes process"
    pid, purpose = found
    return f"bornes {purpose} (PID {pid})" if pid else "another bornes process (PID unknown)"
