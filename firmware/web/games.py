"""Stored games for the pages: history, replays, score sheets and statistics, read-only.

Every figure comes from replaying the game's record with the engine (the action log is the game),
never from a second reading of the rules. A finished game never changes, so its replay is cached by
game id; games in progress are replayed on each request (the follower keeps the live one).
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bornes.engine import Action, CoupFourre, Game, GameSetup, GameState
from bornes.firmware.storage.journal import FINISHED, GameInfo, GameRecord, Journal, JournalError
from bornes.firmware.storage.live import GameUnreadable, open_readonly, replay
from bornes.firmware.storage.records import render
from bornes.firmware.web.guard import csv_row

#: Score sheet rows that count a feat, as the engine names them (engine/scoring.py).
TRIP_ROW = "Trip completed"
SAFE_TRIP_ROW = "Safe trip"
SHUT_OUT_ROW = "Shut-out"


@dataclass
class StoredGame:
    """One game from the journal, replayed: its setup, final state and the state before each action."""

    info: GameRecord
    setup: GameSetup
    game: Game
    states: list[GameState]

    @property
    def state(self) -> GameState:
        return self.game.state

    @property
    def actions(self) -> list[Action]:
        return self.game.log


@dataclass
class Line:
    """One side's result in one finished game (a row of the statistics)."""

    game_id: int
    date: str
    players: tuple[str, ...]
    total: int
    won: bool
    coups_fourres: dict[str, int]  # per player of the side
    safe_trips: int
    shut_outs: int
    trips: int
    hand_points: list[int]


@dataclass
class Tally:
    """Statistics of one player or one team over every finished game."""

    name: str
    games: int = 0
    wins: int = 0
    points: int = 0
    coups_fourres: int = 0
    safe_trips: int = 0
    shut_outs: int = 0
    trips: int = 0
    results: list[tuple[int, str, int, bool]] = field(default_factory=list)  # game, date, points, won

    @property
    def average(self) -> float:
        return self.points / self.games if self.games else 0.0


class NoJournal(JournalError):
    """No game has been played yet."""


class Library:
    """The journal's games, for pages. Opens the journal read-only for each question (cheap, and it
    follows the referee coming and going)."""

    def __init__(self, state_dir: str | os.PathLike[str]) -> None:
        self.state_dir = Path(state_dir)
        self._replays: dict[int, StoredGame] = {}

    @contextlib.contextmanager
    def _journal(self) -> Iterator[Journal]:
        if not Journal.exists(self.state_dir):  # a journal lost beside its WAL or note raises JournalCorrupt
            raise NoJournal(f"no journal in {self.state_dir} yet")
        journal = open_readonly(self.state_dir)
        try:
            yield journal
        finally:
            journal.close()

    def history(self) -> list[GameInfo]:
        try:
            with self._journal() as journal:
                return journal.history()
        except NoJournal:
            return []

    def load(self, game_id: int) -> StoredGame | None:
        """A game replayed; None when there is no such game. :class:`GameUnreadable` if it does not replay."""
        cached = self._replays.get(game_id)
        if cached is not None:
            return cached
        try:
            with self._journal() as journal:
                record = journal.load(game_id)
        except NoJournal:
            return None
        if record is None:
            return None
        game, states = replay(record.header, record.lines)
        stored = StoredGame(record, game.setup, game, states)
        if record.status == FINISHED:
            self._replays[game_id] = stored
        return stored

    def latest_id(self) -> int | None:
        games = self.history()
        in_progress = [g.game_id for g in games if g.status == "in-progress"]
        if in_progress:
            return in_progress[-1]
        return games[-1].game_id if games else None

    # -- statistics -------------------------------------------------------------------------------

    def lines(self) -> list[Line]:
        """Every side of every finished game that replays, oldest first."""
        result: list[Line] = []
        for info in self.history():
            if info.status != FINISHED:
                continue
            try:
                stored = self.load(info.game_id)
            except GameUnreadable:
                continue
            if stored is None:
                continue
            result.extend(side_lines(stored))
        return result

    def players(self) -> list[str]:
        names: set[str] = set()
        for info in self.history():
            names.update(players_of(info.header))
        return sorted(names, key=str.casefold)


def players_of(header: str) -> list[str]:
    from bornes.firmware.storage.live import setup_of

    try:
        return list(setup_of(header).names)
    except GameUnreadable:
        return []


def side_lines(stored: StoredGame) -> list[Line]:
    state = stored.state
    setup = stored.setup
    coups = [0] * setup.seats
    for action in stored.actions:
        if isinstance(action, CoupFourre):
            coups[action.seat] += 1
    lines = []
    for side in range(setup.side_count):
        seats = setup.side_seats(side)

        def count(row: str, side: int = side) -> int:
            total = 0
            for sheet in state.sheets:
                values = dict(sheet.rows).get(row)
                if values is not None and values[side] > 0:
                    total += 1
            return total

        lines.append(
            Line(
                game_id=stored.info.game_id,
                date=(stored.info.finished or stored.info.created)[:10],
                players=tuple(setup.names[s] for s in seats),
                total=state.totals[side],
                won=state.winner == side,
                coups_fourres={setup.names[s]: coups[s] for s in seats},
                safe_trips=count(SAFE_TRIP_ROW),
                shut_outs=count(SHUT_OUT_ROW),
                trips=count(TRIP_ROW),
                hand_points=[sheet.total_for_deal[side] for sheet in state.sheets],
            )
        )
    return lines


def tallies(lines: list[Line]) -> tuple[list[Tally], list[Tally]]:
    """(per player, per team): a team is the same partners, in any seat order."""
    players: dict[str, Tally] = {}
    teams: dict[str, Tally] = {}

    def add(tally: Tally, line: Line, coups: int) -> None:
        tally.games += 1
        tally.wins += line.won
        tally.points += line.total
        tally.coups_fourres += coups
        tally.safe_trips += line.safe_trips
        tally.shut_outs += line.shut_outs
        tally.trips += line.trips
        tally.results.append((line.game_id, line.date, line.total, line.won))

    for line in lines:
        for name in line.players:
            add(players.setdefault(name, Tally(name)), line, line.coups_fourres[name])
        if len(line.players) > 1:
            key = " & ".join(sorted(line.players, key=str.casefold))
            add(teams.setdefault(key, Tally(key)), line, sum(line.coups_fourres.values()))

    def order(t: Tally) -> tuple[int, float, str]:
        return (-t.wins, -t.average, t.name.casefold())

    return sorted(players.values(), key=order), sorted(teams.values(), key=order)


# -- downloads --------------------------------------------------------------------------------------


def record_text(record: GameRecord) -> str:
    return render(record, "record")


def game_json(stored: StoredGame) -> str:
    """The game for programs: the stored record, every action, each hand's score sheet, the result."""
    from bornes.engine import sheets_list, table_dict
    document: dict[str, Any] = json.loads(render(stored.info, "json"))
    document["table"] = table_dict(stored.state)
    document["sheets"] = sheets_list(stored.state)
    return json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def history_csv(infos: list[GameInfo], library: Library) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["game", "started", "finished", "status", "edition", "players", "teams", "winner", "totals",
                     "hands", "actions"])
    for info in infos:
        summary: dict[str, Any] = {}
        if info.summary:
            with contextlib.suppress(ValueError):
                loaded = json.loads(info.summary)
                summary = loaded if isinstance(loaded, dict) else {}
        from bornes.firmware.storage.live import setup_of

        try:
            setup = setup_of(info.header)
            edition, names, teams = setup.edition, "; ".join(setup.names), "yes" if setup.teams else "no"
        except GameUnreadable:
            edition, names, teams = "?", "?", "?"
        totals = summary.get("totals")
        totals_text = "; ".join(f"{k}: {v}" for k, v in totals.items()) if isinstance(totals, dict) else ""
        writer.writerow(csv_row([info.game_id, info.created, info.finished or "", info.status, edition, names, teams,
                                 summary.get("winner") or "", totals_text, summary.get("hands", ""), info.actions]))
    return out.getvalue()
