"""Why the journal cannot be used, in one line a person can act on.

A lock, a read-only file or a full disk is not damage: :class:`JournalBusy`,
:class:`JournalUnwritable`, :class:`JournalFull` and :class:`JournalIOError` each say what is
true and how to fix it; :class:`JournalCorrupt` (exit 65) is the only one that means the files
are not what bornes wrote. :func:`classify` turns SQLite's errors into these.
"""

from __future__ import annotations

import contextlib
import errno
import os
import pwd
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

from bornes.drivers.errors import EX_DATAERR, EX_IOERR, EX_TEMPFAIL, Said, UserError, en_
from bornes.drivers.events import DeviceFailure


class JournalError(UserError):
    """The journal cannot be used (disk full, unwritable, locked…): one line naming the file."""

    exit_code = EX_IOERR


class JournalCorrupt(JournalError):
    """The journal file is damaged. It has been left untouched; see :meth:`Journal.quarantine`."""

    exit_code = EX_DATAERR

    def __init__(self, path: Path, problem: str) -> None:
        if not isinstance(problem, Said):
            problem = " ".join(problem.split())  # SQLite's check can report several lines; a person sees one
        super().__init__(en_("journal {path} is damaged ({problem}); it was left untouched: move it aside to start "
                              "a new journal", path=path, problem=problem))
        self.path = path
        self.problem = problem


class JournalBusy(JournalError):
    """Another program holds the journal's lock: nothing is wrong with the file, so wait or stop it."""

    exit_code = EX_TEMPFAIL

    def __init__(self, path: Path) -> None:
        holders = lock_holders(path)
        who = en_("PID {pids}", pids=", ".join(map(str, holders))) if holders else en_("PID unknown")
        super().__init__(en_("journal {path}: the journal is in use by another program ({who}); stop it and try "
                              "again", path=path, who=who))
        self.path = path
        self.holders = holders


class JournalUnwritable(JournalError):
    """The file, its folder or its file system cannot be written; the message says the one-line fix."""


class JournalFull(JournalError):
    """No space left on the device holding the journal."""


class JournalIOError(JournalError):
    """The storage failed a read or write (a dying SD card, a pulled USB stick)."""


def lock_holders(path: Path) -> list[int]:
    """PIDs holding a POSIX or flock lock on the journal, its WAL/SHM or the state directory's lock file.

    Read from ``/proc/locks`` (Linux), so it names any program, not only another bornes.
    """
    inodes: set[tuple[int, int]] = set()
    for candidate in (path, Path(f"{path}-wal"), Path(f"{path}-shm"), path.parent / "bornes.lock"):
        with contextlib.suppress(OSError):
            info = candidate.stat()
            inodes.add((info.st_dev, info.st_ino))
    found: list[int] = []
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as locks:
            text = locks.read(1 << 20)
    except OSError:
        return found
    for line in text.splitlines():
        fields = line.replace("->", "").split()
        if len(fields) < 6:
            continue
        try:
            pid = int(fields[4])
            major, minor, inode = fields[5].split(":")
            device = os.makedev(int(major, 16), int(minor, 16))
            key = (device, int(inode))
        except ValueError:
            continue
        if key in inodes and pid != os.getpid() and pid not in found:
            found.append(pid)
    return found


def user_name() -> str:
    try:
        return pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:
        return str(os.geteuid())


def writability_problem(path: Path) -> str | None:
    """Why this process could not write the journal (file, WAL, SHM or folder), with the fix; None if it can.

    Opens each existing file for writing (without writing), so it is true for root too.
    """
    directory = path.parent
    try:
        if os.statvfs(directory).f_flag & os.ST_RDONLY:
            where = mount_point(directory)
            return en_("journal {path}: the file system is mounted read-only; fix: sudo mount -o remount,rw {where}",
                        path=path, where=where)
    except OSError as error:
        return en_("journal {path}: cannot reach its folder: {reason}", path=path,
                    reason=DeviceFailure.of(error, str(directory)))
    if not os.access(directory, os.W_OK | os.X_OK):
        user = user_name()
        return en_("journal {path}: folder {directory} is not writable by {user}; fix: {command}", path=path,
                    directory=directory, user=user, command=f"sudo chown {user}: {directory}")
    for candidate in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        try:
            fd = os.open(candidate, os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except FileNotFoundError:
            continue
        except OSError as error:
            if error.errno in (errno.EACCES, errno.EPERM):
                user = user_name()
                return en_("journal {path} cannot be written by user {user}; fix: {command}", path=candidate,
                            user=user, command=f"sudo chown {user}: {candidate}")
            if error.errno == errno.EROFS:
                return en_("journal {path}: the file system is mounted read-only; remount it read-write",
                            path=candidate)
            return en_("journal {path}: cannot open for writing: {reason}", path=candidate,
                        reason=DeviceFailure.of(error, str(candidate)))
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return en_("journal {path} is not a regular file; move it away", path=candidate)
        finally:
            os.close(fd)
    return None


def mount_point(directory: Path) -> Path:
    current = directory.resolve()
    while not os.path.ismount(current) and current != current.parent:
        current = current.parent
    return current


#: SQLite codes that, for the fixed statements of this module, can only mean the file is not what
#: it wrote: a damaged page, a damaged schema (``no such column``), a value of the wrong type or size.
_DAMAGE_CODES = frozenset({
    sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_FORMAT,
    sqlite3.SQLITE_MISMATCH, sqlite3.SQLITE_TOOBIG, sqlite3.SQLITE_CONSTRAINT, sqlite3.SQLITE_RANGE,
})
#: The same, said by Python's sqlite3 (no code) or by SQLite's generic SQLITE_ERROR.
_DAMAGE_WORDS = (
    "malformed", "not a database", "Could not decode", "no such column", "no such table", "no such index",
    "unsupported file format", "corrupt", "has no column",
)


def classify(path: Path, error: sqlite3.Error) -> JournalError:
    """Turn an SQLite error into the true one-line reason: damage, busy, unwritable, full, I/O, or other."""
    code = (getattr(error, "sqlite_errorcode", 0) or 0) & 0xFF
    text = " ".join(str(error).split())[:200]
    if code in _DAMAGE_CODES or any(words in text for words in _DAMAGE_WORDS):
        return JournalCorrupt(path, text)
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or "locked" in text:
        return JournalBusy(path)
    if code == sqlite3.SQLITE_FULL:
        return JournalFull(en_("journal {path}: the storage is full ({reason}); free some space", path=path,
                                reason=text))
    if code in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM, sqlite3.SQLITE_AUTH):
        return JournalUnwritable(writability_problem(path) or en_("journal {path}: {reason}", path=path, reason=text))
    if code == sqlite3.SQLITE_IOERR:
        return JournalIOError(en_("journal {path}: the storage failed ({reason}); check the SD card or disk",
                                   path=path, reason=text))
    return JournalError(en_("journal {path}: {reason}", path=path, reason=text))


@contextlib.contextmanager
def said_in_one_line(path: Path) -> Iterator[None]:
    """SQLite's errors, and a stored text that is not UTF-8, as the one-line JournalError they mean."""
    try:
        yield
    except sqlite3.Error as error:
        raise classify(path, error) from None
    except UnicodeDecodeError:
        raise JournalCorrupt(path, en_("a stored text is not valid UTF-8")) from None


# -- the journal ----------------------------------------------------------------------------------
