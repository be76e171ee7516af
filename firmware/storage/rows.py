"""The journal's rows and their checksums, and the checked reads every opening and reader makes.

A game here is its record header (opaque text holding the edition, players and options) and an
ordered list of action lines (opaque text, one action each). So that no single flipped bit gives
back a shorter game:

* every action row carries a CRC32 of ``game|seq|line``;
* every game row carries how many actions it holds and a running CRC32 over them (``digest``),
  plus a CRC32 over all its own columns; reading a game checks the numbering 0..n-1, each row,
  the count and the digest, so a row that moved, vanished or appeared is damage, never a prefix;
* one ``ledger`` row (with its own CRC) says which game ids exist (``first_id..last_id``, always
  consecutive) and which one is in progress, so a game row that vanished is damage too.
"""

from __future__ import annotations

import sqlite3
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from bornes.firmware.storage.errors import JournalCorrupt

IN_PROGRESS = "in-progress"
FINISHED = "finished"
ABANDONED = "abandoned"
STATUSES = (IN_PROGRESS, FINISHED, ABANDONED)
GAME_COLUMNS = "id, header, status, created, finished, summary, actions, digest, crc"
GameRow = tuple[int, str, str, str, str | None, str | None, int, int, int]


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


def ledger_crc(first_id: int, last_id: int, current_id: int | None) -> int:
    return zlib.crc32(f"ledger|{first_id}|{last_id}|{current_id}".encode())


class CheckedReader:
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
            or ledger_crc(first, last, current) != crc
            or first < 1
            or last < first - 1
            or (current is not None and current != last)
        ):
            raise self.damaged("the ledger fails its checksum")
        return first, last, current

    def set_ledger(self, first: int, last: int, current: int | None) -> None:
        self.db.execute(
            "UPDATE ledger SET first_id = ?, last_id = ?, current_id = ?, crc = ? WHERE one = 1",
            (first, last, current, ledger_crc(first, last, current)),
        )

    def game(self, game_id: int) -> GameRow | None:
        row = self.db.execute(f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?", (game_id,)).fetchone()
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

    def prefix_digest(self, game_id: int, count: int) -> int:
        """The running digest of a game's first ``count`` actions (to tell the next card from a lost one)."""
        digest = 0
        for seq, line in self.db.execute(
            "SELECT seq, line FROM actions WHERE game_id = ? AND seq < ? ORDER BY seq", (game_id, count)
        ):
            digest = next_digest(digest, seq, line if isinstance(line, str) else "")
        return digest

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
