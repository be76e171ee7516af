"""Follow a table's journal as a reader: notice changes cheaply, and turn a game into live data.

The journal belongs to the referee; this side opens it read-only through journal.py's public
read functions and never writes it. A change is noticed by SQLite's ``PRAGMA data_version`` on a
read-only connection of our own (it reads no table, so a schema migration cannot break it), plus
the file's identity (a journal moved aside and started afresh). Size and time alone are not
enough: once the WAL has wrapped, a commit can leave both as they were within one clock tick.

NOTE: issue 13 owns ``firmware/live.py`` (the shared follower and table snapshot). This module is
the small subset the bridge needs, written before that landed; fold it into live.py when merged.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from engine.actions import parse_action
from engine.cards import CardKind
from engine.game import Game
from engine.record import read_header
from engine.rules import Accepted
from engine.views import table_dict
from firmware.journal import FILENAME, GameInfo, GameRecord, Journal, JournalError


def _stat(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_dev)


class JournalFollower:
    """The referee's journal, opened read-only on first use and re-read only when it changes."""

    def __init__(self, state_dir: str | os.PathLike[str]) -> None:
        self.state_dir = Path(state_dir)
        self.path = self.state_dir / FILENAME
        self._journal: Journal | None = None
        self._probe: sqlite3.Connection | None = None
        self._probe_inode: int | None = None
        self._seen: tuple[int | None, int] | None = None

    def signature(self) -> tuple[int | None, int]:
        identity = _stat(self.path)
        inode = identity[0] if identity else None
        if identity is None:
            self._close_probe()
            return (None, -1)
        try:
            if self._probe is None or self._probe_inode != inode:
                self._close_probe()
                self._probe = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True,
                                              isolation_level=None, timeout=1.0)
                self._probe_inode = inode
            version = int(self._probe.execute("PRAGMA data_version").fetchone()[0])
        except sqlite3.Error:
            self._close_probe()
            return (inode, -1)
        return (inode, version)

    def _close_probe(self) -> None:
        if self._probe is not None:
            with contextlib.suppress(sqlite3.Error):
                self._probe.close()
            self._probe = None

    def changed(self) -> bool:
        """True once per commit to the journal (and the first time)."""
        now = self.signature()
        if now == self._seen:
            return False
        self._seen = now
        return True

    def journal(self) -> Journal:
        """The open journal; raises :class:`JournalError` while there is none (no game played yet)."""
        if self._journal is None:
            self._journal = Journal.open(self.state_dir, readonly=True)
        return self._journal

    def history(self) -> list[GameInfo]:
        return self.journal().history()

    def load(self, game_id: int) -> GameRecord | None:
        return self.journal().load(game_id)

    def reopen(self) -> None:
        """After an error (the file was moved aside, say), open afresh next time."""
        self.close()
        self._seen = None

    def close(self) -> None:
        self._close_probe()
        if self._journal is not None:
            with contextlib.suppress(JournalError):
                self._journal.close()
            self._journal = None


@dataclass
class _Replay:
    game_id: int
    created: str
    lines: list[str]
    game: Game
    words: deque[str]


class LiveTable:
    """A game replayed incrementally from its journal lines: a new action costs one engine push."""

    WORDS = 6

    def __init__(self) -> None:
        self._replay: _Replay | None = None

    def update(self, record: GameRecord) -> Game:
        replay = self._replay
        reusable = (
            replay is not None
            and replay.game_id == record.game_id
            and replay.created == record.created
            and record.lines[: len(replay.lines)] == replay.lines
        )
        if not reusable:
            setup = read_header(line for line in record.header.splitlines() if line.strip())
            replay = _Replay(record.game_id, record.created, [], Game(setup), deque(maxlen=self.WORDS))
        assert replay is not None
        for line in record.lines[len(replay.lines):]:
            verdict = replay.game.push(parse_action(line))
            if not isinstance(verdict, Accepted):
                raise ValueError(f"game {record.game_id}: {line!r} does not replay: {verdict}")
            replay.words.extend(event.message for event in verdict.events if event.message)
            replay.lines.append(line)
        self._replay = replay
        return replay.game

    def words(self) -> list[str]:
        return list(self._replay.words) if self._replay else []


BATTLE_WORDS = {"rolling": "rolling", "not started": "not started", "needs roll": "needs a Roll"}


def battle_words(status: str) -> str:
    """``battle_status`` as the card's printed title ("Out of Gas"), for pages that know no engine."""
    if status in BATTLE_WORDS:
        return BATTLE_WORDS[status]
    try:
        return CardKind(status).title
    except ValueError:
        return status


def live_dict(record: GameRecord | None, game: Game | None, words: list[str]) -> dict[str, object]:
    """The live message's body: what a club page needs to draw the table."""
    if record is None or game is None:
        return {"state": "idle", "game": None}
    setup = game.setup
    table = table_dict(game.state)
    for side in table["sides"]:  # type: ignore[attr-defined]
        side["battle_words"] = battle_words(side["battle"])
    return {
        "state": "playing" if record.status == "in-progress" else record.status,
        "game": record.game_id,
        "created": record.created,
        "actions": len(record.lines),
        "edition": setup.edition,
        "teams": setup.teams,
        "names": list(setup.names),
        "table": table,
        "last": words,
    }
