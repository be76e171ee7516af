"""The game journal: every accepted action is on disk before the player hears the accept chirp.

The engine's action log *is* the game, so a game here is its record header (opaque text holding
the edition, players and options) and an ordered list of action lines (opaque text, one action
each). SQLite in WAL mode with ``synchronous=FULL`` makes each append durable when it returns, so
a power cut loses at most the action being acknowledged.

Integrity, so that no single flipped bit resumes a shorter game:

* every action row carries a CRC32 of ``game|seq|line``;
* every game row carries how many actions it holds and a running CRC32 over them (``digest``),
  plus a CRC32 over all its own columns; reading a game checks the numbering 0..n-1, each row,
  the count and the digest, so a row that moved, vanished or appeared is damage, never a prefix;
* one ``ledger`` row (with its own CRC) says which game ids exist (``first_id..last_id``, always
  consecutive) and which one is in progress, so a game row that vanished is damage too.

Opening checks the ledger, the newest game row and the game in progress: O(current game), not
O(file), so a journal of ten years starts as fast as an empty one. Every read checks what it
returns. :meth:`Journal.verify` (``bornes doctor``, and the referee when idle) checks everything,
SQLite's page structure included. Damage raises :class:`JournalCorrupt` and the file is left
exactly as it was; only :meth:`Journal.quarantine`, called on purpose, moves it aside.

No acknowledged action lives only in the WAL (docs/journal.md). SQLite stops replaying a WAL at
the first frame whose checksum fails, so a flipped bit there would silently roll the game back.
So every write transaction ends with ``PRAGMA wal_checkpoint(TRUNCATE)`` before it returns (before
the chirp): the action is in the main file, where the checks above cover it, and the WAL is empty
again. If the checkpoint cannot finish (a reader holds an old snapshot for long, the disk cannot
grow the main file), the writer first leaves a note, ``bornes.sqlite3-pending``, saying how many
actions the newest game holds, with its own CRC; every opening reads the note before SQLite
replays the WAL, and a journal holding less than the note says is damage, never a shorter game.

A lock, a read-only file or a full disk is not damage: :class:`JournalBusy`,
:class:`JournalUnwritable`, :class:`JournalFull` and :class:`JournalIOError` each say what is
true and how to fix it.

Read-only API for other processes (the web companion, the MQTT bridge). Never write SQL against
the file; these keep working across schema migrations::

    with Journal.open(state_dir, readonly=True) as journal:   # never writes, never migrates the file
        journal.current_game()      # CurrentGame(game_id, header, lines) or None
        journal.load(game_id)       # GameRecord, every row checked, or None
        journal.history()           # [GameInfo] oldest first, from the game rows (no actions read)
        journal.recent(20)          # the newest 20 GameInfo, O(20)
        journal.game_count()        # how many games, O(1)
        journal.data_version()      # changes whenever another connection commits: poll it cheaply

Schema history: version 1 had no counts, digests or ledger; a version-1 file is verified with
its old checksums and upgraded in place when opened for writing, or upgraded in memory when
opened read-only (the file itself is never touched by a reader).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import json
import logging
import os
import pwd
import sqlite3
import stat
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

from bornes.drivers.errors import EX_DATAERR, EX_IOERR, EX_TEMPFAIL, UserError

FILENAME = "bornes.sqlite3"
PENDING = f"{FILENAME}-pending"  # acknowledged actions the WAL holds and the main file does not yet
CHECKPOINT_WAIT_MS = 250  # how long a commit waits for readers before it leaves the pending note instead
SCHEMA_VERSION = 2
IN_PROGRESS = "in-progress"
FINISHED = "finished"
ABANDONED = "abandoned"
STATUSES = (IN_PROGRESS, FINISHED, ABANDONED)
BUSY_TIMEOUT = 5.0  # seconds to wait for another program holding a lock before saying so
PAGE_SIZE = 4096  # SQLite's default; the bit-flip test builds a small journal with 512

_SCHEMA_V1 = f"""
CREATE TABLE schema_version (version INTEGER NOT NULL);
INSERT INTO schema_version VALUES (1);
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    header TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('{IN_PROGRESS}', '{FINISHED}', '{ABANDONED}')),
    created TEXT NOT NULL,
    finished TEXT,
    summary TEXT,
    crc INTEGER NOT NULL
);
CREATE TABLE actions (
    game_id INTEGER NOT NULL REFERENCES games (id),
    seq INTEGER NOT NULL CHECK (seq >= 0),
    line TEXT NOT NULL,
    crc INTEGER NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
"""

_MIGRATE_1_TO_2 = """
ALTER TABLE games ADD COLUMN actions INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN digest INTEGER NOT NULL DEFAULT 0;
CREATE TABLE ledger (
    one INTEGER PRIMARY KEY CHECK (one = 1),
    first_id INTEGER NOT NULL,
    last_id INTEGER NOT NULL,
    current_id INTEGER,
    crc INTEGER NOT NULL
);
"""

log = logging.getLogger("bornes.journal")

_GAME_COLUMNS = "id, header, status, created, finished, summary, actions, digest, crc"
GameRow = tuple[int, str, str, str, str | None, str | None, int, int, int]


class JournalError(UserError):
    """The journal cannot be used (disk full, unwritable, locked…): one line naming the file."""

    exit_code = EX_IOERR


class JournalCorrupt(JournalError):
    """The journal file is damaged. It has been left untouched; see :meth:`Journal.quarantine`."""

    exit_code = EX_DATAERR

    def __init__(self, path: Path, problem: str) -> None:
        problem = " ".join(problem.split())  # SQLite's check can report several lines; a person sees one
        super().__init__(
            f"journal {path} is damaged ({problem}); it was left untouched: move it aside to start a new journal"
        )
        self.path = path
        self.problem = problem


class JournalBusy(JournalError):
    """Another program holds the journal's lock: nothing is wrong with the file, so wait or stop it."""

    exit_code = EX_TEMPFAIL

    def __init__(self, path: Path) -> None:
        holders = lock_holders(path)
        who = f"PID {', '.join(map(str, holders))}" if holders else "PID unknown"
        super().__init__(f"journal {path}: the journal is in use by another program ({who}); stop it and try again")
        self.path = path
        self.holders = holders


class JournalUnwritable(JournalError):
    """The file, its folder or its file system cannot be written; the message says the one-line fix."""


class JournalFull(JournalError):
    """No space left on the device holding the journal."""


class JournalIOError(JournalError):
    """The storage failed a read or write (a dying SD card, a pulled USB stick)."""


class CurrentGame(NamedTuple):
    """The game to resume: replay ``lines`` on top of ``header`` and the table is back."""

    game_id: int
    header: str
    lines: list[str]


@dataclass(frozen=True, slots=True)
class GameInfo:
    """One row of the history list (no actions read: ``actions`` is the stored count)."""

    game_id: int
    status: str
    created: str
    finished: str | None
    header: str
    summary: str | None
    actions: int


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A whole stored game."""

    game_id: int
    status: str
    created: str
    finished: str | None
    header: str
    summary: str | None
    lines: list[str]


# -- checksums --------------------------------------------------------------------------------------


def action_crc(game_id: int, seq: int, line: str) -> int:
    """CRC32 of ``game_id|seq|line``: binds the text to its place so a moved or rotted row shows."""
    return zlib.crc32(f"{game_id}|{seq}|{line}".encode())


def next_digest(digest: int, seq: int, line: str) -> int:
    """The running digest after action ``seq``: a CRC32 over every ``seq|line`` so far, in order."""
    return zlib.crc32(f"{seq}|{line}\n".encode(), digest)


def lines_digest(lines: Iterable[str]) -> int:
    digest = 0
    for seq, line in enumerate(lines):
        digest = next_digest(digest, seq, line)
    return digest


def game_crc_v1(game_id: int, header: str, status: str, created: str, finished: str | None, summary: str | None) -> int:
    """Schema 1's CRC32 over a game row (kept to verify a journal before upgrading it)."""
    text = "|".join([str(game_id), header, status, created, finished or "", summary or "", str(summary is None)])
    return zlib.crc32(text.encode())


def game_crc(row: GameRow) -> int:
    """CRC32 over every column of a game row but the CRC itself, count and digest included."""
    game_id, header, status, created, finished, summary, actions, digest = row[:8]
    text = "|".join(
        [str(game_id), header, status, created, finished or "", summary or "", str(summary is None), str(actions),
         str(digest)]
    )
    return zlib.crc32(text.encode())


def _ledger_crc(first_id: int, last_id: int, current_id: int | None) -> int:
    return zlib.crc32(f"ledger|{first_id}|{last_id}|{current_id}".encode())


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _fsync_dir(directory: Path) -> None:
    """Make a new directory entry durable (a rename or link is not, until its folder is synced)."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# -- the pending note: acknowledged actions that only the WAL holds ----------------------------


def _pending_crc(game_id: int, count: int, digest: int) -> int:
    return zlib.crc32(f"pending|{game_id}|{count}|{digest}".encode())


def read_pending(path: Path) -> tuple[int, int, int] | None:
    """``(game_id, actions, digest)`` from the pending note beside the journal ``path``, or None if none.

    A note that does not read or fails its CRC is damage: it exists only while the WAL holds
    acknowledged actions, so it cannot be trusted to say nothing.
    """
    note = path.parent / PENDING
    try:
        raw = read_small(note)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise JournalCorrupt(path, f"{PENDING} cannot be read: {error.strerror or error}") from None
    fields = raw.decode("ascii", "replace").split()
    try:
        tag, game_id, count, digest, crc = fields[0], *map(int, fields[1:5])
    except (ValueError, IndexError):
        raise JournalCorrupt(path, f"{PENDING} does not read") from None
    if tag != "bornes-pending" or len(fields) != 5 or _pending_crc(game_id, count, digest) != crc:
        raise JournalCorrupt(path, f"{PENDING} fails its checksum")
    return game_id, count, digest


def read_small(path: Path, limit: int = 4096) -> bytes:
    """A side file's bytes (not following a symlink, not blocking on a FIFO); OSError if it is no file."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        return os.read(fd, limit)
    finally:
        os.close(fd)


def _write_pending(directory: Path, game_id: int, count: int, digest: int) -> None:
    """Durably replace the note (write, fsync, rename, fsync the folder): it is whole or absent."""
    temp = directory / f".{PENDING}.new"
    text = f"bornes-pending {game_id} {count} {digest} {_pending_crc(game_id, count, digest)}\n"
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        try:
            os.write(fd, text.encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        os.rename(temp, directory / PENDING)
        _fsync_dir(directory)
    except OSError:
        with contextlib.suppress(OSError):
            temp.unlink(missing_ok=True)
        raise


# -- disk headroom ------------------------------------------------------------------------------

#: What one card needs beyond its rows: the frames of its commit in the WAL (8-29 KiB measured with
#: 4 KiB pages), a new page when a B-tree node splits, and the pending note if a reader is slow.
COMMIT_RESERVE = 64 * 1024
BYTES_PER_ACTION = 48  # the main file grows by about 42 bytes per action (bench: 200 games of 351)
BYTES_PER_GAME = 16 * 1024  # a long two-player game of 351 actions, header and summary: about 14.6 KiB
LOW_SPACE = 4 * 1024 * 1024  # below this the panel and doctor warn: about 250 games left


@dataclass(frozen=True, slots=True)
class Headroom:
    """Free space where the journal lives, as cards and games that still fit."""

    free: int  # bytes this user may still write (statvfs f_bavail: root's reserve not counted)

    @property
    def cards(self) -> int:
        return max(0, self.free - COMMIT_RESERVE) // BYTES_PER_ACTION

    @property
    def games(self) -> int:
        return max(0, self.free - COMMIT_RESERVE) // BYTES_PER_GAME

    @property
    def full(self) -> bool:
        """Not even one more card can be made durable."""
        return self.free < COMMIT_RESERVE

    @property
    def low(self) -> bool:
        return self.free < LOW_SPACE

    def describe(self) -> str:
        size = f"{self.free / 1024 / 1024:.1f} MiB" if self.free >= 1024 * 1024 else f"{self.free // 1024} KiB"
        if self.full:
            return f"{size} free: not enough to record one more card; free some space"
        return f"{size} free: room for about {self.cards:,} cards ({self.games:,} games)".replace(",", " ")


def headroom(state_dir: str | os.PathLike[str]) -> Headroom:
    """The free space of the file system holding ``state_dir`` (or its nearest existing parent)."""
    where = Path(state_dir)
    while not where.exists() and where != where.parent:
        where = where.parent
    info = os.statvfs(where)
    return Headroom(info.f_bavail * info.f_frsize)


# -- who holds it, and can we write it ------------------------------------------------------------


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


def _user() -> str:
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
            where = _mount_point(directory)
            return f"journal {path}: the file system is mounted read-only; fix: sudo mount -o remount,rw {where}"
    except OSError as error:
        return f"journal {path}: cannot reach its folder: {error.strerror or error}"
    if not os.access(directory, os.W_OK | os.X_OK):
        user = _user()
        return f"journal {path}: folder {directory} is not writable by {user}; fix: sudo chown {user}: {directory}"
    for candidate in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        try:
            fd = os.open(candidate, os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except FileNotFoundError:
            continue
        except OSError as error:
            if error.errno in (errno.EACCES, errno.EPERM):
                user = _user()
                return f"journal {candidate} cannot be written by user {user}; fix: sudo chown {user}: {candidate}"
            if error.errno == errno.EROFS:
                return f"journal {candidate}: the file system is mounted read-only; remount it read-write"
            return f"journal {candidate}: cannot open for writing: {error.strerror or error}"
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return f"journal {candidate} is not a regular file; move it away"
        finally:
            os.close(fd)
    return None


def _pid_gone(text: str) -> bool:
    """True when ``text`` names no running process (a temporary file's owner that died)."""
    try:
        os.kill(int(text), 0)
    except ValueError:
        return False
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def _mount_point(directory: Path) -> Path:
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
        return JournalFull(f"journal {path}: the storage is full ({text}); free some space")
    if code in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM, sqlite3.SQLITE_AUTH):
        return JournalUnwritable(writability_problem(path) or f"journal {path}: {text}")
    if code == sqlite3.SQLITE_IOERR:
        return JournalIOError(f"journal {path}: the storage failed ({text}); check the SD card or disk")
    return JournalError(f"journal {path}: {text}")


@contextlib.contextmanager
def said_in_one_line(path: Path) -> Iterator[None]:
    """SQLite's errors, and a stored text that is not UTF-8, as the one-line JournalError they mean."""
    try:
        yield
    except sqlite3.Error as error:
        raise classify(path, error) from None
    except UnicodeDecodeError:
        raise JournalCorrupt(path, "a stored text is not valid UTF-8") from None


# -- the journal ----------------------------------------------------------------------------------


class Journal:
    """The durable store of games. Open with :meth:`open`; one writer process at a time."""

    def __init__(self, path: Path, connection: sqlite3.Connection, readonly: bool) -> None:
        self.path = path
        self.readonly = readonly
        self._db: sqlite3.Connection | None = connection
        self._pending = (path.parent / PENDING).exists()

    # -- opening ----------------------------------------------------------------------------------

    @classmethod
    def open(cls, state_dir: str | os.PathLike[str], *, readonly: bool = False) -> Journal:
        """Open (creating if absent, unless ``readonly``) and check the journal in ``state_dir``.

        Raises :class:`JournalCorrupt` for a damaged file (left untouched), :class:`JournalBusy`
        when another program holds it, and another :class:`JournalError` when the folder or file
        cannot be used. The check is O(game in progress); see :meth:`verify` for the whole file.
        """
        directory = Path(state_dir)
        path = directory / FILENAME
        try:
            info = path.lstat()
        except FileNotFoundError:
            info = None
        except PermissionError:
            raise JournalUnwritable(
                f"journal {path}: user {_user()} cannot reach it; fix: sudo chown {_user()}: {directory}"
            ) from None
        except OSError as error:
            doing = "open" if readonly else "create"
            raise JournalError(f"journal {path}: cannot {doing}: {error.strerror or error}") from None
        if info is None:
            wal = Path(f"{path}-wal")
            if wal.exists() and wal.stat().st_size > 0:
                raise JournalCorrupt(path, f"the database is missing but {wal.name} holds data")
            if readonly:
                raise JournalError(f"journal {path} does not exist yet (no game has been played)")
            cls._create(directory, path)
        elif not stat.S_ISREG(info.st_mode):
            raise JournalError(f"journal {path} is not a regular file; move it away")
        elif info.st_size == 0:
            raise JournalCorrupt(path, "the file is empty")
        if not readonly:
            problem = writability_problem(path)
            if problem:
                raise JournalUnwritable(problem)
        version = cls._check(path)
        if readonly:
            connection = cls._connect(path, readonly=True)
            if version == 1:
                connection = cls._upgraded_copy(path, connection)
            return cls(path, connection, readonly=True)
        connection = cls._connect(path, readonly=False)
        try:
            with said_in_one_line(path):
                mode = connection.execute("PRAGMA journal_mode=WAL").fetchone()[0]
                connection.execute("PRAGMA synchronous=FULL")
                connection.execute("PRAGMA foreign_keys=ON")
                if version == 1:
                    _migrate(path, connection)
        except JournalError:
            connection.close()
            raise
        if mode != "wal":
            connection.close()
            raise JournalError(f"journal {path}: cannot use write-ahead logging (got journal_mode {mode})")
        journal = cls(path, connection, readonly=False)
        journal._settle()  # what the last run left in the WAL goes into the main file now
        return journal

    @staticmethod
    def _connect(path: Path, *, readonly: bool) -> sqlite3.Connection:
        """A connection (usable from any one thread at a time). A reader that may not write the folder
        cannot make the WAL's ``-shm`` index; while there is no ``-wal`` there is no writer either,
        so the file cannot change and is opened ``immutable``."""
        uri = f"{path.resolve().as_uri()}?mode={'ro' if readonly else 'rw'}"
        if readonly and not Path(f"{path}-wal").exists() and not os.access(path.parent, os.W_OK):
            uri += "&immutable=1"
        try:
            connection = sqlite3.connect(
                uri, uri=True, isolation_level=None, timeout=BUSY_TIMEOUT, check_same_thread=False
            )
        except sqlite3.Error as error:
            raise classify(path, error) from None
        connection.execute("PRAGMA cell_size_check=ON")  # a damaged page is an error, not odd rows
        return connection

    @staticmethod
    def _upgraded_copy(path: Path, disk: sqlite3.Connection) -> sqlite3.Connection:
        """A reader of a schema-1 file gets an upgraded copy in memory; the file waits for the referee."""
        memory = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        try:
            with said_in_one_line(path):
                disk.backup(memory)
                _migrate(path, memory)
        except JournalError:
            memory.close()
            raise
        finally:
            disk.close()
        return memory

    @staticmethod
    def _create(directory: Path, path: Path) -> None:
        """Build the empty schema under a temporary name and link it in, so a half-made file never
        sits under the real name (an empty or partial ``bornes.sqlite3`` then always means damage)."""
        temp = directory / f".{FILENAME}.new-{os.getpid()}"
        leftovers = (temp, Path(f"{temp}-journal"), Path(f"{temp}-wal"), Path(f"{temp}-shm"))
        try:
            directory.mkdir(parents=True, exist_ok=True)
            for stale in directory.glob(f".{FILENAME}.new-*"):  # a create killed half way, ours or another's
                if _pid_gone(stale.name.split(".new-", 1)[1].split("-")[0]):
                    stale.unlink(missing_ok=True)
            for leftover in leftovers:
                leftover.unlink(missing_ok=True)
            connection = sqlite3.connect(temp, isolation_level=None)
            try:
                connection.execute(f"PRAGMA page_size={int(PAGE_SIZE)}")
                connection.execute("PRAGMA synchronous=FULL")
                connection.executescript(f"BEGIN; {_SCHEMA_V1} COMMIT;")
                _migrate(temp, connection)
                connection.execute("PRAGMA journal_mode=WAL")
            finally:
                connection.close()
            fd = os.open(temp, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
            with contextlib.suppress(FileExistsError):  # another process won the race: use theirs
                os.link(temp, path)
            temp.unlink()
            _fsync_dir(directory)
        except (sqlite3.Error, OSError) as error:
            for leftover in leftovers:  # never leave a half-made file behind (a full disk, say)
                with contextlib.suppress(OSError):
                    leftover.unlink(missing_ok=True)
            if isinstance(error, sqlite3.Error):
                raise classify(path, error) from None
            if error.errno == errno.ENOSPC:
                raise JournalFull(f"journal {path}: cannot create: the storage is full; free some space") from None
            raise JournalUnwritable(
                writability_problem(path) or f"journal {path}: cannot create: {error.strerror or error}"
            ) from None

    @classmethod
    def _check(cls, path: Path) -> int:
        """Verify through a read-only connection, so a damaged file (and its WAL) is never written.

        Returns the schema version (1 needs upgrading). Schema 1 is checked in full, as it was,
        because upgrading re-signs every row; schema 2 is checked in O(game in progress).
        """
        note = read_pending(path)  # before the snapshot: a note written after it would be newer than it
        connection = cls._connect(path, readonly=True)
        try:
            with said_in_one_line(path):
                connection.execute("BEGIN")
                tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
                if not {"schema_version", "games", "actions"} <= tables:
                    raise JournalCorrupt(path, "not a bornes journal: tables are missing")
                versions = connection.execute("SELECT version FROM schema_version").fetchall()
                version = versions[0][0] if len(versions) == 1 else None
                if version in (1, SCHEMA_VERSION) and _schema(connection) != _expected_schema(version):
                    raise JournalCorrupt(path, "its table definitions are not the ones bornes wrote")
                if version == 1 and "ledger" not in tables:
                    _check_v1(path, connection)
                    return 1
                if version != SCHEMA_VERSION or "ledger" not in tables:
                    if isinstance(version, int) and version > SCHEMA_VERSION:
                        raise JournalError(f"journal {path} was written by a newer bornes (schema {version})")
                    raise JournalCorrupt(path, f"unknown schema version {version!r}")
                reader = _Reader(path, connection)
                reader.check_open()
                if note is not None:
                    reader.check_pending(*note)
                return SCHEMA_VERSION
        finally:
            with contextlib.suppress(sqlite3.Error):
                connection.close()

    @staticmethod
    def quarantine(state_dir: str | os.PathLike[str]) -> Path | None:
        """Move a damaged journal (and its WAL) aside as ``bornes.sqlite3.corrupt-<timestamp>``.

        Nothing is deleted or overwritten. Returns the new name, or None if there was nothing to move.
        """
        directory = Path(state_dir)
        path = directory / FILENAME
        wal, shm = Path(f"{path}-wal"), Path(f"{path}-shm")
        if not path.exists() and not wal.exists() and not (directory / PENDING).exists():
            return None
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        target = directory / f"{FILENAME}.corrupt-{stamp}"
        counter = 1
        while any(Path(f"{target}{suffix}").exists() for suffix in ("", "-wal", "-pending")):
            counter += 1
            target = directory / f"{FILENAME}.corrupt-{stamp}-{counter}"
        pending = directory / PENDING
        try:
            if pending.exists():  # it names what the damaged file lost: keep it with the file
                os.rename(pending, f"{target}-pending")
            if wal.exists():
                os.rename(wal, f"{target}-wal")
            if path.exists():
                os.rename(path, target)
            shm.unlink(missing_ok=True)  # only an index rebuilt from the WAL; it holds no data
            _fsync_dir(directory)
        except OSError as error:
            raise JournalError(f"journal {path}: cannot move aside: {error.strerror or error}") from None
        return target

    # -- writing ----------------------------------------------------------------------------------

    def new_game(self, header: str) -> int:
        """Start a game; refuses while another is in progress, so no game is ever orphaned silently."""
        with self._write() as reader:
            first, last, current = reader.ledger()
            if current is not None:
                raise JournalError(f"journal {self.path}: game {current} is still in progress; finish or abandon it")
            game_id = last + 1
            row: GameRow = (game_id, header, IN_PROGRESS, _now(), None, None, 0, 0, 0)
            reader.db.execute(
                f"INSERT INTO games ({_GAME_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", (*row[:8], game_crc(row))
            )
            reader.set_ledger(first, game_id, game_id)
        return game_id

    def append(self, game_id: int, seq: int, line: str) -> None:
        """Store action number ``seq`` (0-based, must be the next one). Durable when this returns."""
        if "\n" in line or "\r" in line:
            raise ValueError("an action line cannot contain a line break")
        with self._write() as reader:
            row = reader.in_progress(game_id)
            count, digest = row[6], row[7]
            if seq != count:
                raise ValueError(f"game {game_id}: action {seq} is out of order; the next one is {count}")
            reader.db.execute(
                "INSERT INTO actions (game_id, seq, line, crc) VALUES (?, ?, ?, ?)",
                (game_id, seq, line, action_crc(game_id, seq, line)),
            )
            reader.update_game(row, actions=count + 1, digest=next_digest(digest, seq, line))

    def truncate(self, game_id: int, seq: int) -> int:
        """Undo: delete action ``seq`` and everything after it, durably. Returns how many went."""
        if seq < 0:
            raise ValueError("seq cannot be negative")
        with self._write() as reader:
            row = reader.in_progress(game_id)
            lines = reader.lines(row)  # the whole game checked before any of it is rewritten
            kept = lines[:seq]
            gone = reader.db.execute("DELETE FROM actions WHERE game_id = ? AND seq >= ?", (game_id, seq)).rowcount
            reader.update_game(row, actions=len(kept), digest=lines_digest(kept))
            return gone

    def finish(self, game_id: int, summary_json: str) -> None:
        """Mark a game finished with its summary (JSON text: winner, totals); it stays as history."""
        json.loads(summary_json)  # a malformed summary is a bug in the caller: fail before writing
        self._close_game(game_id, FINISHED, summary_json)

    def abandon(self, game_id: int) -> None:
        """Give up on an in-progress game without a result; it is kept as history."""
        self._close_game(game_id, ABANDONED, None)

    def _close_game(self, game_id: int, status: str, summary: str | None) -> None:
        with self._write() as reader:
            row = reader.in_progress(game_id)
            reader.lines(row)  # never seal a game whose actions do not add up
            reader.update_game(row, status=status, finished=_now(), summary=summary)
            first, last, _ = reader.ledger()
            reader.set_ledger(first, last, None)
        # The pages of a finished game are not read again: give the cache back, so a referee that
        # runs for months holds one game's pages, not every game's up to SQLite's 2 MB cache.
        with contextlib.suppress(sqlite3.Error):
            self._connection().execute("PRAGMA shrink_memory")

    def import_games(self, games: Iterable[GameRecord]) -> list[int]:
        """Append whole closed games (finished or abandoned) in one transaction; their ids are new.

        For restoring archived games and for building large journals in the bench; the referee
        itself only ever appends one action at a time.
        """
        ids: list[int] = []
        with self._write() as reader:
            first, last, current = reader.ledger()
            if current is not None:
                raise JournalError(f"journal {self.path}: game {current} is in progress; finish or abandon it first")
            for record in games:
                if record.status not in (FINISHED, ABANDONED):
                    raise ValueError(f"only finished or abandoned games can be imported, not {record.status}")
                last += 1
                row: GameRow = (
                    last, record.header, record.status, record.created, record.finished, record.summary,
                    len(record.lines), lines_digest(record.lines), 0,
                )
                reader.db.execute(
                    f"INSERT INTO games ({_GAME_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", (*row[:8], game_crc(row))
                )
                reader.db.executemany(
                    "INSERT INTO actions (game_id, seq, line, crc) VALUES (?, ?, ?, ?)",
                    ((last, seq, line, action_crc(last, seq, line)) for seq, line in enumerate(record.lines)),
                )
                ids.append(last)
            reader.set_ledger(first, last, None)
        return ids

    def remove_before(self, game_id: int) -> int:
        """Delete every game older than ``game_id`` (for retention, after :func:`archive` wrote them out).

        Only finished or abandoned games can go; returns how many went.
        """
        with self._write() as reader:
            first, last, current = reader.ledger()
            cutoff = min(game_id, last + 1, current if current is not None else last + 1)
            if cutoff <= first:
                return 0
            db = reader.db
            db.execute("DELETE FROM actions WHERE game_id < ?", (cutoff,))
            gone = db.execute("DELETE FROM games WHERE id < ?", (cutoff,)).rowcount
            if gone != cutoff - first:
                raise JournalCorrupt(self.path, f"games {first} to {cutoff - 1} are {gone} rows, not {cutoff - first}")
            reader.set_ledger(cutoff, last, current)
            return gone

    # -- reading ----------------------------------------------------------------------------------

    def current_game(self) -> CurrentGame | None:
        """The game in progress, to resume exactly where it was, or None."""
        with self._read() as reader:
            current = reader.ledger()[2]
            if current is None:
                return None
            row = reader.game(current)
            if row is None:
                raise JournalCorrupt(self.path, f"game {current} in progress is missing")
            return CurrentGame(row[0], row[1], reader.lines(row))

    def load(self, game_id: int) -> GameRecord | None:
        """One game with all its actions, every checksum verified; None if there is no such game."""
        with self._read() as reader:
            first, last, _ = reader.ledger()
            if not first <= game_id <= last:
                return None
            row = reader.game(game_id)
            if row is None:
                raise JournalCorrupt(self.path, f"game {game_id} is missing")
            lines = reader.lines(row)
            return GameRecord(row[0], row[2], row[3], row[4], row[1], row[5], lines)

    def history(self) -> list[GameInfo]:
        """Every game, oldest first, without its actions (one pass over the game rows)."""
        with self._read() as reader:
            first, last, current = reader.ledger()
            rows = reader.db.execute(f"SELECT {_GAME_COLUMNS} FROM games ORDER BY id").fetchall()
            reader.check_rows(rows, first, last, current)
        return [GameInfo(r[0], r[2], r[3], r[4], r[1], r[5], r[6]) for r in rows]

    def recent(self, count: int) -> list[GameInfo]:
        """The newest ``count`` games, oldest first: O(count), for screens and live views."""
        with self._read() as reader:
            first, last, current = reader.ledger()
            low = max(first, last - max(0, count) + 1)
            rows = reader.db.execute(f"SELECT {_GAME_COLUMNS} FROM games WHERE id >= ? ORDER BY id", (low,)).fetchall()
            reader.check_rows(rows, low, last, current)
        return [GameInfo(r[0], r[2], r[3], r[4], r[1], r[5], r[6]) for r in rows]

    def game_count(self) -> int:
        """How many games the journal holds (from the ledger: O(1))."""
        with self._read() as reader:
            first, last, _ = reader.ledger()
        return last - first + 1

    def data_version(self) -> int:
        """A number that changes when another connection commits (``PRAGMA data_version``): a cheap poll."""
        try:
            return int(self._connection().execute("PRAGMA data_version").fetchone()[0])
        except sqlite3.Error as error:
            raise classify(self.path, error) from None

    def verify(self) -> int:
        """Check everything: SQLite's page structure, every game, every action, no orphan rows.

        O(file): for ``bornes doctor`` and the idle referee, not for start. Returns games checked.
        """
        with self._read() as reader:
            _sqlite_check(self.path, reader.db)
        games = self.history()
        total = 0
        for info in games:
            record = self.load(info.game_id)
            assert record is not None  # history() proved every id in the ledger's range is there
            total += len(record.lines)
        with self._read() as reader:
            stored = reader.db.execute("SELECT count(*) FROM actions").fetchone()[0]
        if stored != total:
            raise JournalCorrupt(self.path, f"{stored - total} action rows belong to no game")
        return len(games)

    def close(self) -> None:
        """Close the database; safe to call twice."""
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- plumbing ---------------------------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            raise ValueError(f"journal {self.path} is closed")
        return self._db

    @contextlib.contextmanager
    def _read(self) -> Iterator[_Reader]:
        db = self._connection()
        with said_in_one_line(self.path):
            db.execute("BEGIN")
            try:
                yield _Reader(self.path, db)
            finally:
                db.execute("COMMIT")

    @contextlib.contextmanager
    def _write(self) -> Iterator[_Reader]:
        """One durable transaction: COMMIT returns after the WAL is fsynced (synchronous=FULL), and this
        returns after the main file holds it too (see :meth:`_settle`)."""
        if self.readonly:
            raise ValueError(f"journal {self.path} was opened read-only")
        db = self._connection()
        with said_in_one_line(self.path):
            try:
                db.execute("BEGIN IMMEDIATE")
                yield _Reader(self.path, db)
                db.execute("COMMIT")
                self._settle()
            except BaseException:
                with contextlib.suppress(sqlite3.Error):  # SQLite may have rolled back already (disk full)
                    if db.in_transaction:
                        db.execute("ROLLBACK")
                raise


    def _settle(self) -> None:
        """Move what was just committed into the main file and empty the WAL, before it is acknowledged.

        Readers get :data:`CHECKPOINT_WAIT_MS` to finish; if the checkpoint still cannot finish, the
        pending note records what the WAL alone holds, so a flipped bit there is damage, not a rollback.
        """
        db = self._connection()
        wait = 0 if self._pending else CHECKPOINT_WAIT_MS  # a long reader (doctor) costs one wait, not one a card
        try:
            db.execute(f"PRAGMA busy_timeout = {wait}")
            try:
                busy, frames, copied = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            finally:
                db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT * 1000)}")
            settled, why = busy == 0 and frames == copied, "readers held it"
        except sqlite3.Error as error:
            settled, why = False, " ".join(str(error).split())
        directory = self.path.parent
        if settled:
            if self._pending:
                with contextlib.suppress(OSError):
                    (directory / PENDING).unlink(missing_ok=True)
                    _fsync_dir(directory)
                self._pending = False
            return
        try:  # the commit stands whatever happens here: it is durable in the WAL already
            last = db.execute("SELECT last_id FROM ledger").fetchone()[0]
            row = db.execute("SELECT actions, digest FROM games WHERE id = ?", (last,)).fetchone()
            count, digest = row if row is not None else (0, 0)
            _write_pending(directory, last, count, digest)
            self._pending = True
        except (sqlite3.Error, TypeError) as error:  # no ledger row to read: the next open reports that
            log.warning("journal %s: checkpoint deferred (%s), no note: %s", self.path, why, error)
            return
        except OSError as error:  # a full disk: the action is durable in the WAL, only less guarded
            log.warning("journal %s: checkpoint deferred (%s) and %s not written: %s", self.path, why, PENDING,
                        error.strerror or error)
            return
        log.info("journal %s: checkpoint deferred (%s); %s notes game %d at %d actions",
                 self.path, why, PENDING, last, count)


class _Reader:
    """The checked reads, inside one transaction."""

    def __init__(self, path: Path, db: sqlite3.Connection) -> None:
        self.path = path
        self.db = db

    def damaged(self, problem: str) -> JournalCorrupt:
        return JournalCorrupt(self.path, problem)

    def ledger(self) -> tuple[int, int, int | None]:
        rows = self.db.execute("SELECT one, first_id, last_id, current_id, crc FROM ledger").fetchall()
        if len(rows) != 1:
            raise self.damaged(f"the ledger has {len(rows)} rows, not 1")
        one, first, last, current, crc = rows[0]
        if (
            one != 1
            or not all(isinstance(v, int) for v in (first, last, crc))
            or not (current is None or isinstance(current, int))
            or _ledger_crc(first, last, current) != crc
            or first < 1
            or last < first - 1
            or (current is not None and current != last)
        ):
            raise self.damaged("the ledger fails its checksum")
        return first, last, current

    def set_ledger(self, first: int, last: int, current: int | None) -> None:
        self.db.execute(
            "UPDATE ledger SET first_id = ?, last_id = ?, current_id = ?, crc = ? WHERE one = 1",
            (first, last, current, _ledger_crc(first, last, current)),
        )

    def game(self, game_id: int) -> GameRow | None:
        row = self.db.execute(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            return None
        self.check_row(row)
        return row  # type: ignore[no-any-return]

    def check_row(self, row: tuple[object, ...]) -> None:
        if (
            len(row) != 9
            or not all(isinstance(row[i], int) for i in (0, 6, 7, 8))
            or not all(isinstance(row[i], str) for i in (1, 2, 3))
            or not all(row[i] is None or isinstance(row[i], str) for i in (4, 5))
            or row[2] not in STATUSES
            or game_crc(row) != row[8]  # type: ignore[arg-type]
        ):
            raise self.damaged(f"game {row[0]} fails its checksum")

    def check_rows(self, rows: list[tuple[object, ...]], first: int, last: int, current: int | None) -> None:
        """Game rows ``first..last`` all there, in order, each sound, and only ``current`` in progress."""
        if len(rows) != last - first + 1:
            raise self.damaged(f"the ledger lists {last - first + 1} games but {len(rows)} are there")
        for expected, row in enumerate(rows, start=first):
            if row[0] != expected:
                raise self.damaged(f"game {expected} is missing")
            self.check_row(row)
            if (row[2] == IN_PROGRESS) != (row[0] == current):
                raise self.damaged(f"game {row[0]} is {row[2]} but the ledger disagrees")

    def in_progress(self, game_id: int) -> GameRow:
        row = self.game(game_id)
        if row is None:
            raise ValueError(f"there is no game {game_id}")
        if row[2] != IN_PROGRESS:
            raise ValueError(f"game {game_id} is {row[2]}, not in progress")
        if self.ledger()[2] != game_id:
            raise self.damaged(f"game {game_id} is in progress but the ledger disagrees")
        return row

    def update_game(
        self, row: GameRow, *, status: str | None = None, finished: str | None = None, summary: str | None = None,
        actions: int | None = None, digest: int | None = None,
    ) -> None:
        new: GameRow = (
            row[0], row[1], status or row[2], row[3], finished or row[4], summary if status else row[5],
            row[6] if actions is None else actions, row[7] if digest is None else digest, 0,
        )
        self.db.execute(
            "UPDATE games SET status = ?, finished = ?, summary = ?, actions = ?, digest = ?, crc = ? WHERE id = ?",
            (new[2], new[4], new[5], new[6], new[7], game_crc(new), new[0]),
        )

    def lines(self, row: GameRow) -> list[str]:
        """A game's actions, each row checked, numbered 0..n-1 in order, and adding up to the game row."""
        game_id, count, digest = row[0], row[6], row[7]
        lines: list[str] = []
        running = 0
        for expected, (seq, line, crc) in enumerate(
            self.db.execute("SELECT seq, line, crc FROM actions WHERE game_id = ? ORDER BY seq", (game_id,))
        ):
            if seq != expected:
                raise self.damaged(f"game {game_id} is missing action {expected}")
            if not isinstance(line, str) or action_crc(game_id, seq, line) != crc:
                raise self.damaged(f"game {game_id} action {seq} fails its checksum")
            running = next_digest(running, seq, line)
            lines.append(line)
        if len(lines) != count:
            raise self.damaged(f"game {game_id} should hold {count} actions but {len(lines)} are readable")
        if running != digest:
            raise self.damaged(f"game {game_id}'s actions do not match their digest")
        return lines

    def check_pending(self, game_id: int, count: int, digest: int) -> None:
        """The journal holds at least what the pending note says was acknowledged."""
        first, last, _ = self.ledger()
        if game_id < first:
            return  # archived since; the note is left from before
        row = self.game(game_id) if game_id <= last else None
        if row is None:
            raise self.damaged(f"game {game_id} was acknowledged but is missing (the WAL lost it)")
        if row[6] < count or (row[6] == count and row[7] != digest):
            raise self.damaged(
                f"game {game_id} holds {row[6]} actions but {count} were acknowledged (the WAL lost some)"
            )

    def check_open(self) -> None:
        """What opening checks: the ledger, the id range's ends, the newest game and the game in progress."""
        first, last, current = self.ledger()
        low, high = self.db.execute("SELECT min(id), max(id) FROM games").fetchone()
        if last < first:
            if low is not None:
                raise self.damaged("the ledger lists no games but there are some")
            return
        if (low, high) != (first, last):
            raise self.damaged(f"the ledger lists games {first} to {last} but {low} to {high} are there")
        newest = self.game(last)
        if newest is None:
            raise self.damaged(f"game {last} is missing")
        if (newest[2] == IN_PROGRESS) != (current == last):
            raise self.damaged(f"game {last} is {newest[2]} but the ledger disagrees")
        if current is not None:
            self.lines(newest)


def _schema(db: sqlite3.Connection) -> list[tuple[str, str, str, str]]:
    return db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").fetchall()


@functools.cache
def _expected_schema(version: int) -> list[tuple[str, str, str, str]]:
    """The table definitions bornes writes for schema ``version``: a damaged one is damage, found at
    open, not as ``no such column`` in the middle of a game."""
    with contextlib.closing(sqlite3.connect(":memory:")) as db:
        db.executescript(_SCHEMA_V1 if version == 1 else _SCHEMA_V1 + _MIGRATE_1_TO_2)
        return _schema(db)


def _sqlite_check(path: Path, db: sqlite3.Connection) -> None:
    """SQLite's full ``integrity_check``: unlike ``quick_check`` it sees a row out of key order, so a
    row whose game number changed is damage, not a row of another game."""
    problems = [row[0] for row in db.execute("PRAGMA integrity_check(1)")]
    if problems != ["ok"]:
        raise JournalCorrupt(path, f"SQLite check failed: {problems[0]}")


def _check_v1(path: Path, db: sqlite3.Connection) -> None:
    """Schema 1's full check: SQLite's, then every game row and every game's actions by their old CRCs."""
    _sqlite_check(path, db)
    orphans = db.execute("SELECT count(*) FROM actions WHERE game_id NOT IN (SELECT id FROM games)").fetchone()[0]
    if orphans:
        raise JournalCorrupt(path, f"{orphans} action rows belong to no game")
    ids = [row[0] for row in db.execute("SELECT id FROM games ORDER BY id")]
    if not all(isinstance(game_id, int) for game_id in ids):
        raise JournalCorrupt(path, "a game number is not a number")
    if ids and ids != list(range(ids[0], ids[0] + len(ids))):
        raise JournalCorrupt(path, "game numbers are not consecutive")
    for game_id, header, status, created, finished, summary, crc in db.execute(
        "SELECT id, header, status, created, finished, summary, crc FROM games"
    ).fetchall():
        if game_crc_v1(game_id, header, status, created, finished, summary) != crc:
            raise JournalCorrupt(path, f"game {game_id} fails its checksum")
        for expected, (seq, line, line_crc) in enumerate(
            db.execute("SELECT seq, line, crc FROM actions WHERE game_id = ? ORDER BY seq", (game_id,))
        ):
            if seq != expected:
                raise JournalCorrupt(path, f"game {game_id} is missing action {expected}")
            if not isinstance(line, str) or action_crc(game_id, seq, line) != line_crc:
                raise JournalCorrupt(path, f"game {game_id} action {seq} fails its checksum")


def _migrate(path: Path, db: sqlite3.Connection) -> None:
    """Schema 1 -> 2 in one transaction: counts, digests and the ledger, every row re-signed.

    The caller has verified the file with schema 1's checks first, so nothing damaged is laundered.
    """
    db.execute("BEGIN IMMEDIATE")
    try:
        for statement in _MIGRATE_1_TO_2.split(";"):
            if statement.strip():
                db.execute(statement)
        rows = db.execute("SELECT id, header, status, created, finished, summary FROM games ORDER BY id").fetchall()
        ids = [row[0] for row in rows]
        if ids and ids != list(range(ids[0], ids[0] + len(ids))):
            raise JournalCorrupt(path, "game numbers are not consecutive")
        in_progress = [row[0] for row in rows if row[2] == IN_PROGRESS]
        if len(in_progress) > 1 or (in_progress and in_progress[0] != ids[-1]):
            raise JournalCorrupt(path, f"games {in_progress} are in progress at once")
        for row in rows:
            lines = [r[0] for r in db.execute("SELECT line FROM actions WHERE game_id = ? ORDER BY seq", (row[0],))]
            new: GameRow = (*row, len(lines), lines_digest(lines), 0)
            db.execute(
                "UPDATE games SET actions = ?, digest = ?, crc = ? WHERE id = ?",
                (new[6], new[7], game_crc(new), row[0]),
            )
        first, last = (ids[0], ids[-1]) if ids else (1, 0)
        current = in_progress[0] if in_progress else None
        db.execute(
            "INSERT INTO ledger (one, first_id, last_id, current_id, crc) VALUES (1, ?, ?, ?, ?)",
            (first, last, current, _ledger_crc(first, last, current)),
        )
        db.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))
        db.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK")
        raise
