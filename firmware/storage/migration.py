"""The journal's table definitions, and the upgrade from schema 1.

Schema 1 had no action counts, digests or ledger. A schema-1 file is checked in full with its old
checksums (SQLite's ``integrity_check`` too: ``quick_check`` does not see a row out of key order,
and a row whose game number changed would then read as a row of another game), and only then
upgraded, in one transaction, every row re-signed: the upgrade must never sign damage.
"""

from __future__ import annotations

import contextlib
import functools
import sqlite3
from pathlib import Path

from bornes.firmware.storage.errors import JournalCorrupt
from bornes.firmware.storage.rows import (
    ABANDONED,
    FINISHED,
    IN_PROGRESS,
    GameRow,
    action_crc,
    game_crc,
    game_crc_v1,
    ledger_crc,
    lines_digest,
)

SCHEMA_VERSION = 2

SCHEMA_V1 = f"""
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

MIGRATE_1_TO_2 = """
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


def schema(db: sqlite3.Connection) -> list[tuple[str, str, str, str]]:
    return db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").fetchall()


@functools.cache
def expected_schema(version: int) -> list[tuple[str, str, str, str]]:
    """The table definitions bornes writes for schema ``version``: a damaged one is damage, found at
    open, not as ``no such column`` in the middle of a game."""
    with contextlib.closing(sqlite3.connect(":memory:")) as db:
        db.executescript(SCHEMA_V1 if version == 1 else SCHEMA_V1 + MIGRATE_1_TO_2)
        return schema(db)


def sqlite_check(path: Path, db: sqlite3.Connection) -> None:
    """SQLite's full ``integrity_check``: unlike ``quick_check`` it sees a row out of key order, so a
    row whose game number changed is damage, not a row of another game."""
    problems = [row[0] for row in db.execute("PRAGMA integrity_check(1)")]
    if problems != ["ok"]:
        raise JournalCorrupt(path, f"SQLite check failed: {problems[0]}")


def check_v1(path: Path, db: sqlite3.Connection) -> None:
    """Schema 1's full check: SQLite's, then every game row and every game's actions by their old CRCs."""
    sqlite_check(path, db)
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


def migrate(path: Path, db: sqlite3.Connection) -> None:
    """Schema 1 -> 2 in one transaction: counts, digests and the ledger, every row re-signed.

    The caller has verified the file with schema 1's checks first, so nothing damaged is laundered.
    """
    db.execute("BEGIN IMMEDIATE")
    try:
        for statement in MIGRATE_1_TO_2.split(";"):
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
            (first, last, current, ledger_crc(first, last, current)),
        )
        db.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))
        db.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK")
        raise
