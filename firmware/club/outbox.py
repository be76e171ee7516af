"""The bridge's own state: how far each game has been acknowledged, in its own small SQLite file.

Never the journal: the journal is the referee's, and the bridge only reads it. Losing this file
costs only duplicates (everything is sent again and the board ignores repeats), never results.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

FILENAME = "bridge.sqlite3"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    game_id INTEGER NOT NULL,
    created TEXT NOT NULL,
    acked INTEGER NOT NULL DEFAULT 0,      -- actions 0..acked-1 acknowledged by the broker (QoS 1)
    confirmed INTEGER NOT NULL DEFAULT 0,  -- the board has stored this game's result (its receipt)
    tail TEXT NOT NULL DEFAULT '',         -- the text of action acked-1: an undo while away shows as a change
    PRIMARY KEY (game_id, created)
);
"""


@dataclass
class Position:
    game_id: int
    created: str
    acked: int = 0
    confirmed: bool = False
    tail: str = ""


class Outbox:
    """Positions per game, written when they move; one process (the bridge) uses the file."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        path = Path(directory)
        path.mkdir(parents=True, exist_ok=True)
        self.path = path / FILENAME
        self._db = sqlite3.connect(self.path, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # a lost update only means a resend
        self._db.executescript(_SCHEMA)

    def get_meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def position(self, game_id: int, created: str) -> Position:
        row = self._db.execute(
            "SELECT acked, confirmed, tail FROM games WHERE game_id = ? AND created = ?", (game_id, created)
        ).fetchone()
        if row is None:
            return Position(game_id, created)
        return Position(game_id, created, int(row[0]), bool(row[1]), str(row[2]))

    def save(self, positions: list[Position]) -> None:
        if not positions:
            return
        self._db.execute("BEGIN")
        self._db.executemany(
            "INSERT OR REPLACE INTO games (game_id, created, acked, confirmed, tail) VALUES (?, ?, ?, ?, ?)",
            [(p.game_id, p.created, p.acked, int(p.confirmed), p.tail) for p in positions],
        )
        self._db.execute("COMMIT")

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self._db.close()
