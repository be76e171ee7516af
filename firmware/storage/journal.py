"""The game journal: every accepted action is on disk before the player hears the accept chirp.

The engine's action log *is* the game, so a game here is its record header and an ordered list of
action lines (rows.py). SQLite in WAL mode with ``synchronous=FULL`` holds them in
``bornes.sqlite3``; docs/journal.md says why each piece is there and what it was measured to cost.

What is durable before the chirp (two syncs, :meth:`Journal._write`):

1. SQLite's commit: the action's frames appended to the WAL and synced;
2. the pending note (note.py): the newest game's action count and digest, overwritten in place and
   synced. It proves the last WAL frame, the one frame the WAL walker cannot judge.

After the chirp, while nobody taps (:meth:`Journal.upkeep`, called by the referee loop), once the WAL
holds a few cards: the WAL is checkpointed into the main file, where the row checks cover it, and the
next WAL is started with a one-frame commit, so the next card's commit does not pay the sync of a
new WAL header.

Opening never lets SQLite near a WAL it cannot account for. Before SQLite opens anything, the WAL
walker (wal.py) reads the log with the format's own rules, the note is read, and a main file
missing beside a WAL or a note is damage. Then a read-only connection checks the ledger, the newest
game and the game in progress (O(current game), so ten years of games open as fast as none) and
compares them with the note. :meth:`Journal.verify` (``bornes doctor``, and the referee when idle)
checks everything, SQLite's page structure included. Damage raises :class:`JournalCorrupt` (exit 65)
and every file is left exactly as it was; only :meth:`Journal.quarantine`, called on purpose, moves
them aside, and it deletes nothing.

The rooms of this module: errors.py (the one-line reasons), rows.py (row formats, checksums, the
checked reads), migration.py (table definitions, the schema-1 upgrade), wal.py (the WAL walker),
note.py (the pending note), headroom.py (free space as cards).

Read-only API for other processes (the web companion, the MQTT bridge). Never write SQL against
the file; these keep working across schema migrations::

    Journal.exists(state_dir)       # False: no game was ever recorded here; JournalCorrupt if one was lost
    with Journal.open(state_dir, readonly=True) as journal:   # never writes, never migrates the file
        journal.current_game()      # CurrentGame(game_id, header, lines) or None
        journal.load(game_id)       # GameRecord, every row checked, or None
        journal.history()           # [GameInfo] oldest first, from the game rows (no actions read)
        journal.recent(20)          # the newest 20 GameInfo, O(20)
        journal.game_count()        # how many games, O(1)
        journal.data_version()      # changes whenever another connection commits: poll it cheaply
        journal.warnings            # what is odd but lost nothing (a damaged note the WAL disproves)
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import sqlite3
import stat
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path

from bornes.drivers.errors import en_
from bornes.drivers.events import DeviceFailure
from bornes.firmware.storage import wal as wal_walker
from bornes.firmware.storage.errors import (
    JournalBusy,
    JournalCorrupt,
    JournalError,
    JournalFull,
    JournalIOError,
    JournalUnwritable,
    classify,
    lock_holders,
    said_in_one_line,
    user_name,
    writability_problem,
)
from bornes.firmware.storage.headroom import Headroom, headroom
from bornes.firmware.storage.migration import (
    SCHEMA_V1,
    SCHEMA_VERSION,
    check_v1,
    expected_schema,
    migrate,
    schema,
    sqlite_check,
)
from bornes.firmware.storage.note import FILENAME as PENDING
from bornes.firmware.storage.note import Acknowledged, NoteReading, NoteWriter, fsync_dir, read_note
from bornes.firmware.storage.rows import (
    ABANDONED,
    FINISHED,
    GAME_COLUMNS,
    IN_PROGRESS,
    STATUSES,
    CheckedReader,
    CurrentGame,
    GameInfo,
    GameRecord,
    GameRow,
    action_crc,
    game_crc,
    lines_digest,
    next_digest,
)

__all__ = [
    "ABANDONED", "FILENAME", "FINISHED", "IN_PROGRESS", "PENDING", "STATUSES", "CurrentGame", "GameInfo",
    "GameRecord", "Headroom", "Journal", "JournalBusy", "JournalCorrupt", "JournalError", "JournalFull",
    "JournalIOError", "JournalUnwritable", "classify", "headroom", "lock_holders", "said_in_one_line",
    "writability_problem",
]

FILENAME = "bornes.sqlite3"
WAL = f"{FILENAME}-wal"
SHM = f"{FILENAME}-shm"
#: The prefix of the file a new journal is built in before it is linked in (then ``<pid>``): a power cut
#: between its creation and the link leaves it, holding no card, and the next start removes it.
CREATING = f".{FILENAME}.new-"
BUSY_TIMEOUT = 5.0  # seconds to wait for another program holding a lock before saying so
UPKEEP_WAIT_MS = 20  # how long the checkpoint after a chirp waits for readers; it is tried again later
#: The WAL is copied into the main file once it holds this much (about five cards with 4 KiB pages): the
#: walker and the note prove the cards in it meanwhile, and a checkpoint with its primer costs four syncs.
UPKEEP_WAL_BYTES = 64 * 1024
PAGE_SIZE = 4096  # SQLite's default; the bit-flip tests build small journals with 512
CHECK_ATTEMPTS = 5  # a reader beside a busy referee re-checks while the note moves under it

log = logging.getLogger("bornes.journal")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


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


def _main_file_page_size(path: Path) -> int | None:
    """The page size in the main file's header (bytes 16-17; 1 means 65536), to size WAL frames when
    the WAL's own header cannot be trusted."""
    try:
        with open(path, "rb") as main:
            header = main.read(100)
    except OSError:
        return None
    if len(header) < 18 or not header.startswith(b"SQLite format 3\0"):
        return None
    size = int.from_bytes(header[16:18], "big")
    return 65536 if size == 1 else size


class Journal:
    """The durable store of games. Open with :meth:`open`; one writer process at a time."""

    def __init__(self, path: Path, connection: sqlite3.Connection, readonly: bool,
                 warnings: Iterable[str] = ()) -> None:
        self.path = path
        self.readonly = readonly
        self._db: sqlite3.Connection | None = connection
        #: Odd but harmless, found at open (a damaged pending note the WAL disproves): doctor shows them.
        self.warnings: list[str] = list(warnings)
        self._note: NoteWriter | None = None
        self._note_whole = False  # the note on disk is this format, both copies sound
        self._upkeep_owed = False  # something was committed since the last checkpoint
        self._short_of_space = False  # a write failed for space: the next upkeep empties the WAL whatever its size

    # -- opening ----------------------------------------------------------------------------------

    @staticmethod
    def exists(state_dir: str | os.PathLike[str]) -> bool:
        """True when ``state_dir`` holds a journal; False when no game was ever recorded there.

        Raises :class:`JournalCorrupt` when the main file is missing but a WAL holding data or a
        pending note says there was one: that is a lost journal, never "no games yet".
        """
        path = Path(state_dir) / FILENAME
        try:
            path.lstat()
        except FileNotFoundError:
            Journal._no_main_file(path)
            return False
        except NotADirectoryError:
            return False
        except OSError as error:
            raise JournalError(en_("journal {path}: cannot look: {reason}", path=path,
                                    reason=DeviceFailure.of(error, str(path)))) from None
        return True

    @staticmethod
    def _no_main_file(path: Path) -> None:
        """The main file is missing: damage if its WAL holds data or the note names a game."""
        directory = path.parent
        left: list[str] = []
        try:
            info = (directory / WAL).lstat()
        except OSError:
            info = None
        if info is not None and (not stat.S_ISREG(info.st_mode) or info.st_size > 0):
            left.append(f"{WAL} holds data ({info.st_size} bytes)" if stat.S_ISREG(info.st_mode) else f"{WAL} is there")
        if os.path.lexists(directory / PENDING):
            try:
                note = read_note(directory)
            except OSError:
                note = NoteReading(exists=True, damage=f"{PENDING} is not a file")
            left.append(f"{PENDING} says game {note.acknowledged.game} holds {note.acknowledged.actions} actions"
                        if note.acknowledged else f"{PENDING} is there")
        if left:
            raise JournalCorrupt(path, en_("the database is missing but {left}", left=" and ".join(left)))

    @classmethod
    def open(cls, state_dir: str | os.PathLike[str], *, readonly: bool = False) -> Journal:
        """Open (creating if absent, unless ``readonly``) and check the journal in ``state_dir``.

        Raises :class:`JournalCorrupt` for damage (every file left untouched), :class:`JournalBusy`
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
            raise JournalUnwritable(en_("journal {path}: user {user} cannot reach it; fix: {command}", path=path,
                                         user=user_name(), command=f"sudo chown {user_name()}: {directory}")) from None
        except OSError as error:
            reason = DeviceFailure.of(error, str(path))
            raise JournalError(en_("journal {path}: cannot open: {reason}", path=path, reason=reason) if readonly
                               else en_("journal {path}: cannot create: {reason}", path=path, reason=reason)) from None
        if info is None:
            cls._no_main_file(path)
            if readonly:
                raise JournalError(en_("journal {path} does not exist yet (no game has been played)", path=path))
            cls._create(directory, path)
        elif not stat.S_ISREG(info.st_mode):
            raise JournalError(en_("journal {path} is not a regular file; move it away", path=path))
        elif info.st_size == 0:
            raise JournalCorrupt(path, en_("the file is empty"))
        version, warnings, note = cls._check(path, readonly=readonly)
        if readonly:
            connection = cls._connect(path, readonly=True)
            if version == 1:
                connection = cls._upgraded_copy(path, connection)
            return cls(path, connection, readonly=True, warnings=warnings)
        problem = writability_problem(path)
        if problem:
            raise JournalUnwritable(problem)
        connection = cls._connect(path, readonly=False)
        try:
            with said_in_one_line(path):
                mode = connection.execute("PRAGMA journal_mode=WAL").fetchone()[0]
                connection.execute("PRAGMA synchronous=FULL")
                connection.execute("PRAGMA foreign_keys=ON")
                if version == 1:
                    migrate(path, connection)
        except JournalError:
            connection.close()
            raise
        if mode != "wal":
            connection.close()
            raise JournalError(f"journal {path}: cannot use write-ahead logging (got journal_mode {mode})")
        journal = cls(path, connection, readonly=False, warnings=warnings)
        for warning in warnings:
            log.warning("journal %s: %s", path, warning)
        if note.acknowledged is not None and not note.old_format and note.whole:
            with contextlib.suppress(OSError):  # not reopened: upkeep makes a new one
                journal._note = NoteWriter.reopen(directory, note.acknowledged)
                journal._note_whole = True
        journal._adopt_in_flight()
        journal._upkeep_owed = True  # what the last run left in the WAL goes into the main file now
        journal.upkeep(force=True)
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
                migrate(path, memory)
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
        temp = directory / f"{CREATING}{os.getpid()}"
        leftovers = (temp, Path(f"{temp}-journal"), Path(f"{temp}-wal"), Path(f"{temp}-shm"))
        try:
            directory.mkdir(parents=True, exist_ok=True)
            for stale in directory.glob(f"{CREATING}*"):  # a create killed half way, ours or another's
                if _pid_gone(stale.name.removeprefix(CREATING).split("-")[0]):
                    stale.unlink(missing_ok=True)
            for leftover in leftovers:
                leftover.unlink(missing_ok=True)
            connection = sqlite3.connect(temp, isolation_level=None)
            try:
                connection.execute(f"PRAGMA page_size={int(PAGE_SIZE)}")
                connection.execute("PRAGMA synchronous=FULL")
                connection.executescript(f"BEGIN; {SCHEMA_V1} COMMIT;")
                migrate(temp, connection)
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
            fsync_dir(directory)
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
    def _check(cls, path: Path, *, readonly: bool) -> tuple[int, list[str], NoteReading]:
        """Verify the journal before anyone writes it: the note, the WAL walk, then a read-only snapshot.

        Returns the schema version (1 needs upgrading), the warnings, and the note as read. Schema 1
        is checked in full, as it was, because upgrading re-signs every row; schema 2 in O(game in
        progress). A reader runs beside a referee that may commit and rewrite the note meanwhile, so
        the check stands only if the note read before the snapshot is still the note after it.
        """
        for _ in range(CHECK_ATTEMPTS):
            note = cls._read_note(path)  # before the snapshot: a note written after it may be newer than it
            walked = cls._walk(path, writer_may_run=readonly)
            connection = cls._connect(path, readonly=True)
            try:
                with said_in_one_line(path):
                    connection.execute("BEGIN")
                    version = cls._check_tables(path, connection)
                    if version == 1:
                        check_v1(path, connection)
                        return 1, [], note
                    reader = CheckedReader(path, connection)
                    reader.check_open()
                    warnings = _judge_note(reader, note, walked)
                    if not readonly or cls._read_note(path) == note:
                        return SCHEMA_VERSION, warnings, note
            finally:
                with contextlib.suppress(sqlite3.Error):
                    connection.close()
        raise JournalBusy(path)

    @staticmethod
    def _read_note(path: Path) -> NoteReading:
        try:
            return read_note(path.parent)
        except OSError as error:
            raise JournalCorrupt(path, en_("{note} cannot be read: {reason}", note=PENDING,
                                            reason=DeviceFailure.of(error, PENDING))) from None

    @staticmethod
    def _walk(path: Path, *, writer_may_run: bool) -> wal_walker.WalWalk:
        """The WAL walked before SQLite opens it: damage there is damage of the journal."""
        try:
            walked = wal_walker.inspect(Path(f"{path}-wal"), _main_file_page_size(path), writer_may_run=writer_may_run)
        except wal_walker.WalUnreadable as error:
            raise JournalCorrupt(path, f"{WAL} {error.strerror}") from None
        if walked.problem is not None:
            raise JournalCorrupt(path, walked.problem)
        return walked

    @staticmethod
    def _check_tables(path: Path, connection: sqlite3.Connection) -> int:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not {"schema_version", "games", "actions"} <= tables:
            raise JournalCorrupt(path, en_("not a bornes journal: tables are missing"))
        versions = connection.execute("SELECT version FROM schema_version").fetchall()
        version = versions[0][0] if len(versions) == 1 else None
        if version in (1, SCHEMA_VERSION) and schema(connection) != expected_schema(version):
            raise JournalCorrupt(path, en_("its table definitions are not the ones bornes wrote"))
        if version == 1 and "ledger" not in tables:
            return 1
        if version != SCHEMA_VERSION or "ledger" not in tables:
            if isinstance(version, int) and version > SCHEMA_VERSION:
                raise JournalError(en_("journal {path} was written by a newer bornes (schema {version})", path=path,
                                        version=version))
            raise JournalCorrupt(path, en_("unknown schema version {version}", version=repr(version)))
        return SCHEMA_VERSION

    @staticmethod
    def quarantine(state_dir: str | os.PathLike[str]) -> Path | None:
        """Move a damaged journal aside as ``bornes.sqlite3.corrupt-<timestamp>``, with its WAL, its
        pending note and its ``-shm`` index under the same stamp.

        Nothing is deleted or overwritten. Returns the new name, or None if there was nothing to move.
        """
        directory = Path(state_dir)
        path = directory / FILENAME
        sides = {"-pending": directory / PENDING, "-wal": directory / WAL, "-shm": directory / SHM, "": path}
        if not any(os.path.lexists(side) for suffix, side in sides.items() if suffix != "-shm"):
            return None
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        target = directory / f"{FILENAME}.corrupt-{stamp}"
        counter = 1
        while any(os.path.lexists(f"{target}{suffix}") for suffix in sides):
            counter += 1
            target = directory / f"{FILENAME}.corrupt-{stamp}-{counter}"
        try:
            for suffix, side in sides.items():  # the note first: it names what the damaged file lost
                if os.path.lexists(side):
                    os.rename(side, f"{target}{suffix}")
            fsync_dir(directory)
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
                f"INSERT INTO games ({GAME_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", (*row[:8], game_crc(row))
            )
            reader.set_ledger(first, game_id, game_id)
            self._newest = (game_id, 0, 0)
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
            digest = next_digest(digest, seq, line)
            reader.update_game(row, actions=count + 1, digest=digest)
            self._newest = (game_id, count + 1, digest)

    def truncate(self, game_id: int, seq: int) -> int:
        """Undo: delete action ``seq`` and everything after it, durably. Returns how many went.

        The note first allows both sides of the undo (written before the commit), then only the new one.
        """
        if seq < 0:
            raise ValueError("seq cannot be negative")
        with self._write() as reader:
            row = reader.in_progress(game_id)
            lines = reader.lines(row)  # the whole game checked before any of it is rewritten
            kept = lines[:seq]
            gone = reader.db.execute("DELETE FROM actions WHERE game_id = ? AND seq >= ?", (game_id, seq)).rowcount
            digest = lines_digest(kept)
            reader.update_game(row, actions=len(kept), digest=digest)
            if gone:
                self._record_note(game_id, len(kept), digest, undo_from=(row[6], row[7]), must=True)
                self._newest = (game_id, len(kept), digest)
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
                    f"INSERT INTO games ({GAME_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", (*row[:8], game_crc(row))
                )
                reader.db.executemany(
                    "INSERT INTO actions (game_id, seq, line, crc) VALUES (?, ?, ?, ?)",
                    ((last, seq, line, action_crc(last, seq, line)) for seq, line in enumerate(record.lines)),
                )
                ids.append(last)
                self._newest = (last, row[6], row[7])
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

    # -- after the chirp --------------------------------------------------------------------------

    def upkeep(self, *, force: bool = False) -> bool:
        """What can wait until after the chirp: once the WAL holds :data:`UPKEEP_WAL_BYTES` (at once when
        ``force``d, when the disk is nearly full, or after a card was refused for space), copy it into the
        main file and start the next WAL; and (re)make a pending note that is missing, damaged or of
        round two's format.

        Called by the referee loop when the table is quiet; it never raises (a reader holding an old
        snapshot, a full disk: it logs and is tried again next time). True when it checkpointed.
        """
        if self.readonly or self._db is None:
            return False
        done = False
        if self._upkeep_owed and (force or self._short_of_space or self._wal_size() >= UPKEEP_WAL_BYTES
                                  or self._nearly_full()):
            done = self._checkpoint()
            self._short_of_space = self._short_of_space and not done
        if not self._note_whole:
            self._make_note()
        return done

    def _nearly_full(self) -> bool:
        """Below :data:`LOW_SPACE` free (the panel warns) the WAL is emptied after every card, as the
        last free bytes must take cards, not frames already copied."""
        try:
            return headroom(self.path.parent).low
        except OSError:
            return True

    def _wal_size(self) -> int:
        try:
            return os.stat(self.path.parent / WAL).st_size
        except OSError:
            return 0

    def _checkpoint(self) -> bool:
        db = self._connection()
        try:
            db.execute(f"PRAGMA busy_timeout = {UPKEEP_WAIT_MS}")
            try:
                busy, frames, copied = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            finally:
                db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT * 1000)}")
            if busy != 0 or frames != copied:
                log.debug("journal %s: checkpoint deferred, readers held the WAL", self.path)
                return False
            # Start the next WAL now: its first commit writes and syncs a new WAL header, a sync the
            # next card's commit would otherwise pay before its chirp. A change of user_version is
            # the smallest commit there is (one page), and nothing reads it.
            version = db.execute("PRAGMA user_version").fetchone()[0]
            db.execute(f"PRAGMA user_version = {1 - int(version == 1)}")
        except sqlite3.Error as error:
            log.warning("journal %s: checkpoint after the chirp failed: %s", self.path, " ".join(str(error).split()))
            return False
        self._upkeep_owed = False
        return True

    def _adopt_in_flight(self) -> None:
        """A card committed but not yet noted when the last run died is part of the game from now on:
        the note must say so before anything else is written, or the next such card would put the
        journal two actions ahead of the note."""
        if self._note is None or self._note.last is None:
            return
        with self._read() as reader:
            first, last, _ = reader.ledger()
            row = reader.game(last) if last >= first else None
        newest = (last, row[6], row[7]) if row is not None else None
        last_noted = self._note.last
        if newest is not None and newest != (last_noted.game, last_noted.actions, last_noted.digest):
            self._record_note(*newest)

    def _make_note(self) -> None:
        """A new pending note for the newest game, made whole (temporary file, synced, renamed)."""
        try:
            with self._read() as reader:
                first, last, _ = reader.ledger()
                row = reader.game(last) if last >= first else None
            game, actions, digest = (last, row[6], row[7]) if row is not None else (last, 0, 0)
        except JournalError as error:
            log.warning("journal %s: %s not made: %s", self.path, PENDING, error)
            return
        if self._note is not None:
            self._note.close()
        try:
            self._note = NoteWriter.create(self.path.parent, Acknowledged(game, actions, digest))
        except OSError as error:
            self._note = None
            log.warning("journal %s: %s not made: %s", self.path, PENDING, error.strerror or error)
            return
        self._note_whole = True

    def _record_note(self, game: int, actions: int, digest: int, *, undo_from: tuple[int, int] | None = None,
                     must: bool = False) -> None:
        """Durably note what the newest game holds. ``must``: inside the transaction, before COMMIT (an undo's
        first note): a failure refuses the write. Otherwise the commit already stands: a failure is logged,
        and the note removed so that it never claims less than the WAL holds."""
        if self._note is None:
            return
        try:
            self._note.record(game, actions, digest, undo_from)
        except OSError as error:
            if must:
                raise JournalIOError(f"journal {self.path}: {PENDING} cannot be written: "
                                     f"{error.strerror or error}; the undo was not made") from None
            log.warning("journal %s: %s not written (%s): the last card is guarded by the WAL's checksums only, "
                        "until the note is made again after the chirp", self.path, PENDING, error.strerror or error)
            self._note.close()
            self._note, self._note_whole = None, False
            with contextlib.suppress(OSError):
                (self.path.parent / PENDING).unlink(missing_ok=True)
                fsync_dir(self.path.parent)

    # -- reading ----------------------------------------------------------------------------------

    def current_game(self) -> CurrentGame | None:
        """The game in progress, to resume exactly where it was, or None."""
        with self._read() as reader:
            current = reader.ledger()[2]
            if current is None:
                return None
            row = reader.game(current)
            if row is None:
                raise JournalCorrupt(self.path, en_("game {game} in progress is missing", game=current))
            return CurrentGame(row[0], row[1], reader.lines(row))

    def load(self, game_id: int) -> GameRecord | None:
        """One game with all its actions, every checksum verified; None if there is no such game."""
        with self._read() as reader:
            first, last, _ = reader.ledger()
            if not first <= game_id <= last:
                return None
            row = reader.game(game_id)
            if row is None:
                raise JournalCorrupt(self.path, en_("game {game} is missing", game=game_id))
            lines = reader.lines(row)
            return GameRecord(row[0], row[2], row[3], row[4], row[1], row[5], lines)

    def history(self) -> list[GameInfo]:
        """Every game, oldest first, without its actions (one pass over the game rows)."""
        with self._read() as reader:
            first, last, current = reader.ledger()
            rows = reader.db.execute(f"SELECT {GAME_COLUMNS} FROM games ORDER BY id").fetchall()
            reader.check_rows(rows, first, last, current)
        return [GameInfo(r[0], r[2], r[3], r[4], r[1], r[5], r[6]) for r in rows]

    def recent(self, count: int) -> list[GameInfo]:
        """The newest ``count`` games, oldest first: O(count), for screens and live views."""
        with self._read() as reader:
            first, last, current = reader.ledger()
            low = max(first, last - max(0, count) + 1)
            rows = reader.db.execute(f"SELECT {GAME_COLUMNS} FROM games WHERE id >= ? ORDER BY id", (low,)).fetchall()
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
            sqlite_check(self.path, reader.db)
        games = self.history()
        total = 0
        for info in games:
            record = self.load(info.game_id)
            assert record is not None  # history() proved every id in the ledger's range is there
            total += len(record.lines)
        with self._read() as reader:
            stored = reader.db.execute("SELECT count(*) FROM actions").fetchone()[0]
        if stored != total:
            raise JournalCorrupt(self.path, en_("{count} action rows belong to no game", count=stored - total))
        return len(games)

    def close(self) -> None:
        """Close the database (SQLite checkpoints and removes the WAL as the last one out); safe twice."""
        if self._note is not None:
            self._note.close()
            self._note = None
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- plumbing ---------------------------------------------------------------------------------

    _newest: tuple[int, int, int] | None = None  # set inside a write: what the note must say after it

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            raise ValueError(f"journal {self.path} is closed")
        return self._db

    @contextlib.contextmanager
    def _read(self) -> Iterator[CheckedReader]:
        db = self._connection()
        with said_in_one_line(self.path):
            db.execute("BEGIN")
            try:
                yield CheckedReader(self.path, db)
            finally:
                db.execute("COMMIT")

    @contextlib.contextmanager
    def _write(self) -> Iterator[CheckedReader]:
        """One durable transaction, then the note: SQLite's COMMIT returns once the WAL is synced
        (``synchronous=FULL``), and this returns once the note says what the newest game now holds.
        Those two syncs are what a card costs before its chirp; :meth:`upkeep` does the rest later."""
        if self.readonly:
            raise ValueError(f"journal {self.path} was opened read-only")
        db = self._connection()
        self._newest = None
        with said_in_one_line(self.path):
            try:
                db.execute("BEGIN IMMEDIATE")
                yield CheckedReader(self.path, db)
                db.execute("COMMIT")
            except BaseException as error:
                with contextlib.suppress(sqlite3.Error):  # SQLite may have rolled back already (disk full)
                    if db.in_transaction:
                        db.execute("ROLLBACK")
                if isinstance(error, sqlite3.Error) and isinstance(classify(self.path, error), JournalFull):
                    self._short_of_space = self._upkeep_owed = True
                raise
        self._upkeep_owed = True
        if self._newest is not None:
            self._record_note(*self._newest)


def _judge_note(reader: CheckedReader, note: NoteReading, walked: wal_walker.WalWalk) -> list[str]:
    """Compare the pending note with the snapshot: damage if the journal holds less than was acknowledged.

    A damaged note is only a warning when the WAL proves it lost nothing: its checksum chain runs
    whole to the end, or it holds at least the action count the damaged note seems to give.
    """
    acknowledged = note.acknowledged
    problem: str | None = None
    first, last, _ = reader.ledger()
    newest = reader.game(last) if last >= first else None
    if acknowledged is not None and acknowledged.game >= first:
        row = reader.game(acknowledged.game) if acknowledged.game <= last else None
        if row is None:
            problem = f"game {acknowledged.game} was acknowledged but is missing (the WAL lost it)"
        else:
            prefix = reader.prefix_digest(row[0], acknowledged.actions) if row[6] > acknowledged.actions else None
            problem = acknowledged.problem(row[6], row[7], prefix)
    if note.damage is None:
        if problem is not None:
            raise reader.damaged(problem)
        return []
    held = newest[6] if newest is not None else 0
    proven = walked.whole or (note.claimed is not None and held >= note.claimed)
    if problem is None and acknowledged is not None:
        return [en_("{damage}; the other copy agrees with the journal (the referee writes a new note)",
                     damage=note.damage)]
    if proven:
        return [en_("{damage}, but the WAL proves it lost nothing (the referee writes a new note)",
                     damage=note.damage)]
    raise reader.damaged(problem or f"{note.damage}, and the WAL cannot prove what it counted")
