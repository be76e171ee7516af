"""Follow a table's journal as a reader: notice changes cheaply, and turn a game into live data.

The journal belongs to the referee; this side opens it read-only through journal.py's public
read functions and never writes it. A change is noticed by the size and time of the database
and its WAL (two ``stat`` calls per poll, nothing read until they move), so an idle table costs
next to nothing.

NOTE: issue 13 owns ``firmware/live.py`` (the shared follower and table snapshot). This module is
the small subset the bridge needs, written before that landed; fold it into live.py when merged.
"""

from __future__ import annotations

import contextlib
import os
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from engine.actions import parse_action
from engine.game import Game
from engine.record import read_header
from engine.rules import Accepted
from engine.views import table_dict
from firmware.journal import FILENAME, GameInfo, GameRecord, Journal, JournalError

Signature = tuple[tuple[int, int, int] | None, ...]


def _stat(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


class JournalFollower:
    """The referee's journal, opened read-only on first use and re-read only when it changes."""

    def __init__(self, state_dir: str | os.PathLike[str]) -> None:
        self.state_dir = Path(state_dir)
        self.path = self.state_dir / FILENAME
        self._journal: Journal | None = None
        self._seen: Signature | None = None

    def signature(self) -> Signature:
        return (_stat(self.path), _stat(Path(f"{self.path}-wal")))

    def changed(self) -> bool:
        """True once per change of the files (and the first time)."""
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


def live_dict(record: GameRecord | None, game: Game | None, words: list[str]) -> dict[str, object]:
    """The live message's body: what a club page needs to draw the table."""
    if record is None or game is None:
        return {"state": "idle", "game": None}
    setup = game.setup
    return {
        "state": "playing" if record.status == "in-progress" else record.status,
        "game": record.game_id,
        "created": record.created,
        "actions": len(record.lines),
        "edition": setup.edition,
        "teams": setup.teams,
        "names": list(setup.names),
        "table": table_dict(game.state),
        "last": words,
    }
