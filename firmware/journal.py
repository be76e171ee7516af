"""The game journal: every accepted action is on disk before the player hears the accept chirp.

The engine's action log *is* the game, so a game here is its record header (opaque text holding
the edition, players and options) and an ordered list of action lines (opaque text, one action
each). SQLite in WAL mode with ``synchronous=FULL`` makes each append durable when it returns, so
a power cut loses at most the action being acknowledged.

Damage is reported, never papered over: a file that is not a database, fails SQLite's check, or
holds a row whose CRC32 does not match raises :class:`JournalCorrupt` and is left exactly as it
was. Only :meth:`Journal.quarantine`, called on purpose, moves it aside so a fresh journal can start.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

from firmware.errors import EX_DATAERR, EX_IOERR, UserError

FILENAME = "bornes.sqlite3"
SCHEMA_VERSION = 1
IN_PROGRESS = "in-progress"
FINISHED = "finished"
ABANDONED = "abandoned"
STATUSES = (IN_PROGRESS, FINISHED, ABANDONED)
BUSY_TIMEOUT = 5.0  # seconds to wait for another bornes process (e.g. ``history``) holding a lock

_SCHEMA = f"""
CREATE TABLE schema_version (version INTEGER NOT NULL);
INSERT INTO schema_version VALUES ({SCHEMA_VERSION});
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


class CurrentGame(NamedTuple):
    """The game to resume: replay ``lines`` on top of ``header`` and the table is back."""

    game_id: int
    header: str
    lines: list[str]


@dataclass(frozen=True, slots=True)
class GameInfo:
    """One row of the history list (no actions)."""

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


def action_crc(game_id: int, seq: int, line: str) -> int:
    """CRC32 of ``game_id|seq|line``: binds the text to its place so a moved or rotted row shows."""
    return zlib.crc32(f"{game_id}|{seq}|{line}".encode())


def game_crc(game_id: int, header: str, status: str, created: str, finished: str | None, summary: str | None) -> int:
    """CRC32 over every column of a game row."""
    text = "|".join([str(game_id), header, status, created, finished or "", summary or "", str(summary is None)])
    return zlib.crc32(text.encode())


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _fsync_dir(directory: Path) -> None:
    """Make a new directory entry durable (a rename or link is not, until its folder is synced)."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Journal:
    """The durable store of games. Open with :meth:`open`; one writer process at a time."""

    def __init__(self, path: Path, connection: sqlite3.Connection, readonly: bool) -> None:
        self.path = path
        self.readonly = readonly
        self._db: sqlite3.Connection | None = connection

    # -- opening ----------------------------------------------------------------------------------

    @classmethod
    def open(cls, state_dir: str | os.PathLike[str], *, readonly: bool = False) -> Journal:
        """Open (creating if absent, unless ``readonly``) and check the journal in ``state_dir``.

        Raises :class:`JournalCorrupt` for a damaged file (left untouched) and :class:`JournalError`
        when the folder or file cannot be used.
        """
        directory = Path(state_dir)
        path = directory / FILENAME
        if not path.exists():
            wal = Path(f"{path}-wal")
            if wal.exists() and wal.stat().st_size > 0:
                raise JournalCorrupt(path, f"the database is missing but {wal.name} holds data")
            if readonly:
                raise JournalError(f"journal {path} does not exist yet (no game has been played)")
            cls._create(directory, path)
        cls._check(path)
        if readonly:
            return cls(path, cls._connect(path, readonly=True), readonly=True)
        connection = cls._connect(path, readonly=False)
        try:
            mode = connection.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            connection.execute("PRAGMA synchronous=FULL")
            connection.execute("PRAGMA foreign_keys=ON")
        except sqlite3.Error as error:
            connection.close()
            raise JournalError(f"journal {path}: cannot open for writing: {error}") from None
        if mode != "wal":
            connection.close()
            raise JournalError(f"journal {path}: cannot use write-ahead logging (got journal_mode {mode})")
        return cls(path, connection, readonly=False)

    @staticmethod
    def _connect(path: Path, *, readonly: bool) -> sqlite3.Connection:
        uri = f"{path.resolve().as_uri()}?mode={'ro' if readonly else 'rw'}"
        try:
            return sqlite3.connect(uri, uri=True, isolation_level=None, timeout=BUSY_TIMEOUT)
        except sqlite3.Error as error:
            raise JournalError(f"journal {path}: cannot open: {error}") from None

    @staticmethod
    def _create(directory: Path, path: Path) -> None:
        """Build the empty schema under a temporary name and link it in, so a half-made file never
        sits under the real name (an empty or partial ``bornes.sqlite3`` then always means damage)."""
        temp = directory / f".{FILENAME}.new-{os.getpid()}"
        try:
            directory.mkdir(parents=True, exist_ok=True)
            for leftover in (temp, Path(f"{temp}-journal"), Path(f"{temp}-wal"), Path(f"{temp}-shm")):
                leftover.unlink(missing_ok=True)
            connection = sqlite3.connect(temp, isolation_level=None)
            try:
                connection.execute("PRAGMA synchronous=FULL")
                connection.executescript(f"BEGIN; {_SCHEMA} COMMIT;")
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
        except (OSError, sqlite3.Error) as error:
            reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
            raise JournalError(f"journal {path}: cannot create: {reason}") from None

    @classmethod
    def _check(cls, path: Path) -> None:
        """Verify through a read-only connection, so a damaged file (and its WAL) is never written."""
        try:
            if path.stat().st_size == 0:
                raise JournalCorrupt(path, "the file is empty")
            connection = cls._connect(path, readonly=True)
        except OSError as error:
            raise JournalError(f"journal {path}: cannot open: {error.strerror or error}") from None
        try:
            tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not {"schema_version", "games", "actions"} <= tables:
                raise JournalCorrupt(path, "not a bornes journal: tables are missing")
            version = connection.execute("SELECT max(version) FROM schema_version").fetchone()[0]
            if version != SCHEMA_VERSION:
                if isinstance(version, int) and version > SCHEMA_VERSION:
                    raise JournalError(f"journal {path} was written by a newer bornes (schema {version})")
                raise JournalCorrupt(path, f"unknown schema version {version!r}")
            problems = [row[0] for row in connection.execute("PRAGMA quick_check")]
            if problems != ["ok"]:
                raise JournalCorrupt(path, f"SQLite check failed: {problems[0]}")
            games = connection.execute("SELECT id, header, status, created, finished, summary, crc FROM games")
            for row in games:
                _verify_game(path, row)
            for (game_id,) in connection.execute("SELECT id FROM games WHERE status = ?", (IN_PROGRESS,)).fetchall():
                _read_lines(path, connection, game_id)
        except sqlite3.DatabaseError as error:
            raise JournalCorrupt(path, str(error)) from None
        finally:
            connection.close()

    @staticmethod
    def quarantine(state_dir: str | os.PathLike[str]) -> Path | None:
        """Move a damaged journal (and its WAL) aside as ``bornes.sqlite3.corrupt-<timestamp>``.

        Nothing is deleted or overwritten. Returns the new name, or None if there was nothing to move.
        """
        directory = Path(state_dir)
        path = directory / FILENAME
        wal, shm = Path(f"{path}-wal"), Path(f"{path}-shm")
        if not path.exists() and not wal.exists():
            return None
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        target = directory / f"{FILENAME}.corrupt-{stamp}"
        counter = 1
        while any(Path(f"{target}{suffix}").exists() for suffix in ("", "-wal")):
            counter += 1
            target = directory / f"{FILENAME}.corrupt-{stamp}-{counter}"
        try:
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
        with self._write() as db:
            row = db.execute("SELECT id FROM games WHERE status = ?", (IN_PROGRESS,)).fetchone()
            if row is not None:
                raise JournalError(f"journal {self.path}: game {row[0]} is still in progress; finish or abandon it")
            created = _now()
            cursor = db.execute(
                "INSERT INTO games (header, status, created, crc) VALUES (?, ?, ?, 0)", (header, IN_PROGRESS, created)
            )
            game_id = int(cursor.lastrowid or 0)
            crc = game_crc(game_id, header, IN_PROGRESS, created, None, None)
            db.execute("UPDATE games SET crc = ? WHERE id = ?", (crc, game_id))
        return game_id

    def append(self, game_id: int, seq: int, line: str) -> None:
        """Store action number ``seq`` (0-based, must be the next one). Durable when this returns."""
        if "\n" in line or "\r" in line:
            raise ValueError("an action line cannot contain a line break")
        with self._write() as db:
            self._require_in_progress(db, game_id)
            count = db.execute("SELECT count(*) FROM actions WHERE game_id = ?", (game_id,)).fetchone()[0]
            if seq != count:
                raise ValueError(f"game {game_id}: action {seq} is out of order; the next one is {count}")
            db.execute(
                "INSERT INTO actions (game_id, seq, line, crc) VALUES (?, ?, ?, ?)",
                (game_id, seq, line, action_crc(game_id, seq, line)),
            )

    def truncate(self, game_id: int, seq: int) -> int:
        """Undo: delete action ``seq`` and everything after it, durably. Returns how many went."""
        if seq < 0:
            raise ValueError("seq cannot be negative")
        with self._write() as db:
            self._require_in_progress(db, game_id)
            return db.execute("DELETE FROM actions WHERE game_id = ? AND seq >= ?", (game_id, seq)).rowcount

    def finish(self, game_id: int, summary_json: str) -> None:
        """Mark a game finished with its summary (JSON text: winner, totals); it stays as history."""
        json.loads(summary_json)  # a malformed summary is a bug in the caller: fail before writing
        self._close_game(game_id, FINISHED, summary_json)

    def abandon(self, game_id: int) -> None:
        """Give up on an in-progress game without a result; it is kept as history."""
        self._close_game(game_id, ABANDONED, None)

    def _close_game(self, game_id: int, status: str, summary: str | None) -> None:
        with self._write() as db:
            header, created = self._require_in_progress(db, game_id)
            finished = _now()
            db.execute(
                "UPDATE games SET status = ?, finished = ?, summary = ?, crc = ? WHERE id = ?",
                (status, finished, summary, game_crc(game_id, header, status, created, finished, summary), game_id),
            )

    def _require_in_progress(self, db: sqlite3.Connection, game_id: int) -> tuple[str, str]:
        row = db.execute(
            "SELECT id, header, status, created, finished, summary, crc FROM games WHERE id = ?", (game_id,)
        ).fetchone()
        if row is None:
            raise ValueError(f"there is no game {game_id}")
        _verify_game(self.path, row)
        if row[2] != IN_PROGRESS:
            raise ValueError(f"game {game_id} is {row[2]}, not in progress")
        return row[1], row[3]

    # -- reading ----------------------------------------------------------------------------------

    def current_game(self) -> CurrentGame | None:
        """The game in progress, to resume exactly where it was, or None."""
        with self._read() as db:
            row = db.execute(
                "SELECT id, header FROM games WHERE status = ? ORDER BY id DESC LIMIT 1", (IN_PROGRESS,)
            ).fetchone()
            if row is None:
                return None
            return CurrentGame(row[0], row[1], _read_lines(self.path, db, row[0]))

    def load(self, game_id: int) -> GameRecord | None:
        """One game with all its actions, every checksum verified; None if there is no such game."""
        with self._read() as db:
            row = db.execute(
                "SELECT id, header, status, created, finished, summary, crc FROM games WHERE id = ?", (game_id,)
            ).fetchone()
            if row is None:
                return None
            _verify_game(self.path, row)
            lines = _read_lines(self.path, db, game_id)
            return GameRecord(row[0], row[2], row[3], row[4], row[1], row[5], lines)

    def history(self) -> list[GameInfo]:
        """Every game, oldest first, without its actions."""
        with self._read() as db:
            rows = db.execute(
                "SELECT g.id, g.header, g.status, g.created, g.finished, g.summary, g.crc,"
                " (SELECT count(*) FROM actions a WHERE a.game_id = g.id) FROM games g ORDER BY g.id"
            ).fetchall()
        infos = []
        for row in rows:
            _verify_game(self.path, row[:7])
            infos.append(GameInfo(row[0], row[2], row[3], row[4], row[1], row[5], row[7]))
        return infos

    def verify(self) -> int:
        """Check every row of every game (the open check covers only games in progress). Returns games checked."""
        games = self.history()
        for info in games:
            self.load(info.game_id)
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
    def _read(self) -> Iterator[sqlite3.Connection]:
        db = self._connection()
        try:
            db.execute("BEGIN")
            try:
                yield db
            finally:
                db.execute("COMMIT")
        except sqlite3.DatabaseError as error:
            self._translate(error)

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One durable transaction: COMMIT returns only after the WAL is fsynced (synchronous=FULL)."""
        if self.readonly:
            raise ValueError(f"journal {self.path} was opened read-only")
        db = self._connection()
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        except sqlite3.DatabaseError as error:
            with contextlib.suppress(sqlite3.Error):
                if db.in_transaction:
                    db.execute("ROLLBACK")
            self._translate(error)

    def _translate(self, error: sqlite3.DatabaseError) -> None:
        """Damage becomes JournalCorrupt; anything else (full disk, lock, I/O) a one-line JournalError."""
        code = getattr(error, "sqlite_errorcode", None)
        if code in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB) or "malformed" in str(error):
            raise JournalCorrupt(self.path, str(error)) from None
        raise JournalError(f"journal {self.path}: {error}") from None


def _verify_game(path: Path, row: tuple[int, str, str, str, str | None, str | None, int]) -> None:
    game_id, header, status, created, finished, summary, crc = row
    if game_crc(game_id, header, status, created, finished, summary) != crc:
        raise JournalCorrupt(path, f"game {game_id} fails its checksum")


def _read_lines(path: Path, db: sqlite3.Connection, game_id: int) -> list[str]:
    """A game's actions in order, each checked against its CRC and for gaps in the numbering."""
    lines = []
    for expected, (seq, line, crc) in enumerate(
        db.execute("SELECT seq, line, crc FROM actions WHERE game_id = ? ORDER BY seq", (game_id,))
    ):
        if seq != expected:
            raise JournalCorrupt(path, f"game {game_id} is missing action {expected}")
        if not isinstance(line, str) or action_crc(game_id, seq, line) != crc:
            raise JournalCorrupt(path, f"game {game_id} action {seq} fails its checksum")
        lines.append(line)
    return lines
