"""The game store: the journal seen as a sequence of engine actions.

The action log *is* the game, so the store keeps exactly that: the record header and the
notation of each accepted action, written durably before the table hears the chirp.
"""

from __future__ import annotations

import json
from typing import Protocol

from bornes.drivers.errors import EX_DATAERR, UserError
from bornes.engine import Action, Game, GameState, RecordError, ReplayError, parse_action, read_header, write_header
from bornes.firmware.storage.journal import Journal
from bornes.firmware.storage.padnotes import action_text, journal_line


class Store(Protocol):
    """What the table flow needs from persistence."""

    def start(self, game: Game) -> None: ...

    def append(self, game: Game, action: Action, pad: str | None = None) -> None: ...

    def undo(self, game: Game) -> None: ...

    def finish(self, game: Game) -> None: ...


class GameDoesNotReplay(UserError):
    """The game in progress is in the journal but its actions no longer replay (another version's rules?)."""

    def __init__(self, game_id: int, path: object, problem: str) -> None:
        super().__init__(f"game {game_id} in {path} does not replay: {problem}", EX_DATAERR)
        self.game_id = game_id


class MemoryStore:
    """Keeps nothing: for ``bornes feed`` without a state directory, and for tests."""

    def start(self, game: Game) -> None:
        pass

    def append(self, game: Game, action: Action, pad: str | None = None) -> None:
        pass

    def undo(self, game: Game) -> None:
        pass

    def finish(self, game: Game) -> None:
        pass


def summary(state: GameState) -> dict[str, object]:
    """The summary stored with a finished game: winner and totals per side."""
    setup = state.setup
    return {
        "winner": None if state.winner is None else setup.side_name(state.winner),
        "tie": state.tie,
        "totals": {setup.side_name(i): total for i, total in enumerate(state.totals)},
        "hands": len(state.sheets),
    }


class JournalStore:
    """Every accepted action goes to the SQLite journal before it is acknowledged."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self.game_id: int | None = None

    def start(self, game: Game) -> None:
        current = self.journal.current_game()
        if current is not None:  # a game the table walked away from: keep it in history
            self.journal.abandon(current.game_id)
        self.game_id = self.journal.new_game(write_header(game.setup))

    def append(self, game: Game, action: Action, pad: str | None = None) -> None:
        """``pad``: where the card was laid, kept as a comment on the line (firmware/storage/padnotes.py)."""
        assert self.game_id is not None
        self.journal.append(self.game_id, len(game.log), journal_line(action, pad))

    def undo(self, game: Game) -> None:
        assert self.game_id is not None
        self.journal.truncate(self.game_id, len(game.log) - 1)

    def finish(self, game: Game) -> None:
        if self.game_id is not None:
            self.journal.finish(self.game_id, json.dumps(summary(game.state), ensure_ascii=False))
            self.game_id = None

    def resume(self) -> Game | None:
        """The game in progress, rebuilt by replaying its actions, or None."""
        current = self.journal.current_game()
        if current is None:
            return None
        try:
            setup = read_header(line for line in current.header.splitlines() if line.strip())
            game = Game(setup, [parse_action(action_text(line)) for line in current.lines])
        except (RecordError, ReplayError, ValueError) as error:
            raise GameDoesNotReplay(current.game_id, self.journal.path, str(error)) from None
        self.game_id = current.game_id
        if game.state.over:  # stopped between the last card and marking the game finished
            self.finish(game)
        return game
