"""The tournament board's own SQLite database: tables, actions, results, entrants, rounds.

A repeat is recognised by its key, never counted twice: an action by (table, game, created,
seq), a result by (table, game, created). ``created`` is the journal's start time of the game,
so a table whose journal was replaced (game numbers starting again) is not mistaken for a repeat.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bornes.engine import EDITIONS, GameSetup, OptionError, SetupError, check_name
from bornes.firmware.club import topics
from bornes.firmware.club.pairing import Pair, PairingError, round_robin, swiss

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tables (
    table_id TEXT PRIMARY KEY, live TEXT, live_at REAL, status TEXT, seen REAL
);
CREATE TABLE IF NOT EXISTS actions (
    table_id TEXT NOT NULL, game INTEGER NOT NULL, created TEXT NOT NULL, seq INTEGER NOT NULL,
    line TEXT NOT NULL, PRIMARY KEY (table_id, game, created, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS results (
    table_id TEXT NOT NULL, game INTEGER NOT NULL, created TEXT NOT NULL, finished TEXT,
    edition TEXT NOT NULL, teams INTEGER NOT NULL, sides TEXT NOT NULL, winner INTEGER, tie INTEGER NOT NULL,
    hands INTEGER, record TEXT NOT NULL, received REAL NOT NULL, assignment TEXT,
    PRIMARY KEY (table_id, game, created)
);
CREATE TABLE IF NOT EXISTS entrants (name TEXT PRIMARY KEY, members TEXT NOT NULL, position INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS rounds (number INTEGER PRIMARY KEY, pairing TEXT NOT NULL, created REAL NOT NULL,
    closed INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS assignments (
    id TEXT PRIMARY KEY, round INTEGER NOT NULL, table_id TEXT, entrants TEXT NOT NULL, names TEXT NOT NULL,
    edition TEXT NOT NULL, teams INTEGER, dealer INTEGER NOT NULL, options TEXT NOT NULL, published REAL
);
CREATE TABLE IF NOT EXISTS rejects (at REAL NOT NULL, topic TEXT NOT NULL, problem TEXT NOT NULL);
"""

WIN, TIE = 2, 1  # match points; a bye counts as a win without game points
PAIRINGS = ("round-robin", "swiss", "manual")


class TournamentError(ValueError):
    """An organiser's request that cannot be done; the text says why in one line."""


@dataclass
class Line:
    """One row of the standings."""

    name: str
    played: int = 0
    wins: int = 0
    ties: int = 0
    losses: int = 0
    byes: int = 0
    match_points: int = 0
    points: int = 0
    members: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "played": self.played, "wins": self.wins, "ties": self.ties,
                "losses": self.losses, "byes": self.byes, "match_points": self.match_points, "points": self.points}


def standings_from_results(results: list[dict[str, Any]], byes: list[list[str]] | None = None,
                           team_names: dict[frozenset[str], str] | None = None) -> dict[str, list[Line]]:
    """Standings by player and by team from result bodies (sides, winner, tie): match points, then points."""
    players: dict[str, Line] = {}
    teams: dict[str, Line] = {}
    names = team_names or {}
    for result in results:
        for index, side in enumerate(result["sides"]):
            won = not result["tie"] and result["winner"] == index
            lines = [players.setdefault(p, Line(p)) for p in side["players"]]
            if len(side["players"]) > 1:
                team = names.get(frozenset(side["players"]), " & ".join(side["players"]))
                lines.append(teams.setdefault(team, Line(team, members=list(side["players"]))))
            for line in lines:
                line.played += 1
                line.points += int(side["total"])
                if result["tie"]:
                    line.ties += 1
                    line.match_points += TIE
                elif won:
                    line.wins += 1
                    line.match_points += WIN
                else:
                    line.losses += 1
    for members in byes or []:
        targets = [players.setdefault(p, Line(p)) for p in members]
        if len(members) > 1:
            team = names.get(frozenset(members), " & ".join(members))
            targets.append(teams.setdefault(team, Line(team, members=list(members))))
        for line in targets:
            line.byes += 1
            line.match_points += WIN

    def order(table: dict[str, Line]) -> list[Line]:
        return sorted(table.values(), key=lambda line: (-line.match_points, -line.points, line.name))

    return {"players": order(players), "teams": order(teams)}


def seating(edition: str, entrants: list[list[str]], teams: bool) -> list[str]:
    """Names in seat order so that each entrant's members are partners (seats side, side+k, …)."""
    count = len(entrants)
    width = max(len(members) for members in entrants)
    names = [""] * (count * width)
    for side, members in enumerate(entrants):
        if len(members) != width:
            raise TournamentError("every entrant at a table needs the same number of players")
        for j, name in enumerate(members):
            names[side + j * count] = name
    try:
        GameSetup.create(edition, names, teams=teams)
    except SetupError as error:
        raise TournamentError(str(error)) from None
    return names


class ClubStore:
    """One connection shared by the MQTT thread and the web handlers, under a lock (all queries are small)."""

    def __init__(self, path: str | Path) -> None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        # Actions and statuses are re-sent by the bridges if lost; a result is written with FULL (see add_result).
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        self._lock = threading.RLock()
        # The live tables are kept in memory only: the broker retains each table's latest and hands
        # it back when the board reconnects, and writing ~20 updates a second to disk buys nothing.
        self._live: dict[str, tuple[str, float]] = {}

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- settings --------------------------------------------------------------------------------

    def meta(self, key: str, default: str = "") -> str:
        rows = self._rows("SELECT value FROM meta WHERE key = ?", (key,))
        return str(rows[0][0]) if rows else default

    def configure(self, *, edition: str | None = None, options: dict[str, str] | None = None,
                  name: str | None = None) -> None:
        if edition is not None and edition not in EDITIONS:
            raise TournamentError(f"unknown edition {edition!r}; choose one of {', '.join(EDITIONS)}")
        ed = edition or self.edition()
        if options is not None:
            try:
                EDITIONS[ed].options.with_strings(options)
            except OptionError as error:
                raise TournamentError(str(error)) from None
        with self._tx() as db:
            for key, value in (("edition", edition), ("name", name),
                               ("options", None if options is None else json.dumps(options))):
                if value is not None:
                    db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def edition(self) -> str:
        return self.meta("edition", "winning-moves")

    def options(self) -> dict[str, str]:
        return dict(json.loads(self.meta("options", "{}")))

    # -- what the tables send ----------------------------------------------------------------------

    def set_live(self, table: str, live: str, at: float) -> None:
        with self._lock:
            known = table in self._live
            self._live[table] = (live, at)
        if not known:
            with self._tx() as db:
                db.execute("INSERT OR IGNORE INTO tables (table_id, seen) VALUES (?, ?)", (table, time.time()))

    def clear_live(self, table: str) -> None:
        with self._lock:
            self._live.pop(table, None)

    def set_status(self, table: str, status: str) -> None:
        with self._tx() as db:
            db.execute("INSERT INTO tables (table_id, status, seen) VALUES (?, ?, ?) ON CONFLICT (table_id)"
                       " DO UPDATE SET status = excluded.status, seen = excluded.seen", (table, status, time.time()))

    def add_action(self, table: str, game: int, created: str, seq: int, line: str) -> str:
        """'new', 'repeat' (already seen) or 'replaced' (the table undid and played again)."""
        with self._tx() as db:
            row = db.execute("SELECT line FROM actions WHERE table_id = ? AND game = ? AND created = ? AND seq = ?",
                             (table, game, created, seq)).fetchone()
            if row is not None and row[0] == line:
                return "repeat"
            if row is not None:
                db.execute("DELETE FROM actions WHERE table_id = ? AND game = ? AND created = ? AND seq >= ?",
                           (table, game, created, seq))
            db.execute("INSERT INTO actions VALUES (?, ?, ?, ?, ?)", (table, game, created, seq, line))
            return "new" if row is None else "replaced"

    def trim_actions(self, table: str, game: int, created: str, count: int) -> None:
        """The table has ``count`` actions now: any beyond were undone."""
        with self._tx() as db:
            db.execute("DELETE FROM actions WHERE table_id = ? AND game = ? AND created = ? AND seq >= ?",
                       (table, game, created, count))

    def add_result(self, table: str, body: dict[str, Any], lines: list[str] | None = None) -> bool:
        """Store a finished game once; False if it was already stored (a repeat). Links it to its assignment.

        ``lines`` (the record's actions) also complete the game's actions: an action message the
        broker lost in a crash after acknowledging it is filled in from the record.
        """
        sides = body["sides"]
        for side in sides:
            if not (isinstance(side, dict) and isinstance(side.get("players"), list)
                    and all(isinstance(p, str) for p in side["players"]) and isinstance(side.get("total"), int)
                    and not isinstance(side.get("total"), bool)):
                raise ValueError("result message: each side needs players (names) and a total (a number)")
        winner = body.get("winner")
        if winner is not None and not (isinstance(winner, int) and 0 <= winner < len(sides)):
            raise ValueError("result message: winner is not a side")
        names = sorted(p for side in sides for p in side["players"])
        with self._lock:
            self._db.execute("PRAGMA synchronous=FULL")  # the receipt goes out after this: it must be on disk
            try:
                return self._add_result(table, body, lines, sides, winner, names)
            finally:
                self._db.execute("PRAGMA synchronous=NORMAL")

    def _add_result(self, table: str, body: dict[str, Any], lines: list[str] | None, sides: list[Any],
                    winner: int | None, names: list[str]) -> bool:
        with self._tx() as db:
            if db.execute("SELECT 1 FROM results WHERE table_id = ? AND game = ? AND created = ?",
                          (table, body["game"], body["created"])).fetchone():
                return False
            assignment = None
            candidates = db.execute(
                "SELECT a.id, a.names FROM assignments a JOIN rounds r ON r.number = a.round"
                " WHERE a.table_id = ? AND a.published IS NOT NULL AND r.closed = 0"
                " AND NOT EXISTS (SELECT 1 FROM results x WHERE x.assignment = a.id) ORDER BY a.round",
                (table,)).fetchall()
            for assignment_id, assigned in candidates:
                if sorted(json.loads(assigned)) == names:
                    assignment = assignment_id
                    break
            db.execute("INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (table, body["game"], body["created"], body.get("finished"), body["edition"],
                        int(body["teams"]), json.dumps(sides, ensure_ascii=False), winner, int(body["tie"]),
                        body.get("hands"), body["record"], time.time(), assignment))
            if lines is not None:
                key = (table, body["game"], body["created"])
                db.execute("DELETE FROM actions WHERE table_id = ? AND game = ? AND created = ? AND seq >= ?",
                           (*key, len(lines)))
                db.executemany("INSERT OR REPLACE INTO actions VALUES (?, ?, ?, ?, ?)",
                               [(*key, seq, line) for seq, line in enumerate(lines)])
            return True

    def reject(self, topic: str, problem: str) -> None:
        with self._tx() as db:
            db.execute("INSERT INTO rejects VALUES (?, ?, ?)", (time.time(), topic[:200], problem[:300]))
            db.execute("DELETE FROM rejects WHERE rowid <= (SELECT max(rowid) - 200 FROM rejects)")

    # -- reading -----------------------------------------------------------------------------------

    def tables(self) -> list[dict[str, Any]]:
        rows = self._rows("SELECT table_id, status, seen FROM tables ORDER BY table_id")
        with self._lock:
            live = dict(self._live)
        return [_table_entry(t, live[t][0] if t in live else None, status, seen) for t, status, seen in rows]

    def results(self, *, counted_only: bool = False) -> list[dict[str, Any]]:
        sql = ("SELECT r.table_id, r.game, r.created, r.finished, r.edition, r.teams, r.sides, r.winner, r.tie,"
               " r.hands, r.assignment, a.round FROM results r LEFT JOIN assignments a ON a.id = r.assignment")
        if counted_only:
            sql += " WHERE r.assignment IS NOT NULL"
        rows = self._rows(sql + " ORDER BY a.round, r.received")
        keys = ("table", "game", "created", "finished", "edition", "teams", "sides", "winner", "tie", "hands",
                "assignment", "round")
        out = []
        for row in rows:
            item = dict(zip(keys, row, strict=True))
            item["sides"] = json.loads(item["sides"])
            item["teams"], item["tie"] = bool(item["teams"]), bool(item["tie"])
            out.append(item)
        return out

    def record(self, table: str, game: int, created: str) -> str | None:
        rows = self._rows("SELECT record FROM results WHERE table_id = ? AND game = ? AND created = ?",
                          (table, game, created))
        return str(rows[0][0]) if rows else None

    def action_count(self) -> int:
        return int(self._rows("SELECT count(*) FROM actions")[0][0])

    def rejects(self) -> list[dict[str, Any]]:
        rows = self._rows("SELECT at, topic, problem FROM rejects ORDER BY rowid DESC LIMIT 50")
        return [{"at": at, "topic": topic, "problem": problem} for at, topic, problem in rows]

    def standings(self) -> dict[str, list[Line]]:
        byes = [json.loads(e) for (e,) in self._rows(
            "SELECT a.names FROM assignments a JOIN rounds r ON r.number = a.round"
            " WHERE a.table_id IS NULL AND a.published IS NOT NULL")]
        team_names = {frozenset(members): name for name, members in self.entrants() if len(members) > 1}
        return standings_from_results(self.results(counted_only=True), byes, team_names)

    # -- entrants and rounds -----------------------------------------------------------------------

    def entrants(self) -> list[tuple[str, list[str]]]:
        return [(name, json.loads(members)) for name, members in
                self._rows("SELECT name, members FROM entrants ORDER BY position")]

    def add_entrant(self, name: str, members: list[str] | None = None) -> None:
        members = [m.strip() for m in (members or [name]) if m.strip()]
        name = name.strip()
        if not name or not members:
            raise TournamentError("an entrant needs a name")
        for who in (name, *members):  # a team's name too: it reaches the pages, the CSV and the tables' panels
            refusal = check_name(who)
            if refusal is not None:
                raise TournamentError(refusal.message)
        taken = {m for _, ms in self.entrants() for m in ms}
        if any(m in taken for m in members):
            raise TournamentError(f"{', '.join(m for m in members if m in taken)} already plays in this tournament")
        with self._tx() as db:
            if db.execute("SELECT 1 FROM entrants WHERE name = ?", (name,)).fetchone():
                raise TournamentError(f"there is already an entrant called {name!r}")
            position = db.execute("SELECT coalesce(max(position), 0) + 1 FROM entrants").fetchone()[0]
            db.execute("INSERT INTO entrants VALUES (?, ?, ?)", (name, json.dumps(members, ensure_ascii=False),
                                                                 position))

    def rounds(self) -> list[dict[str, Any]]:
        rounds = []
        for number, pairing, created, closed in self._rows("SELECT number, pairing, created, closed FROM rounds"
                                                          " ORDER BY number"):
            rows = self._rows("SELECT id, table_id, entrants, names, edition, teams, options, published"
                              " FROM assignments WHERE round = ? ORDER BY table_id IS NULL, table_id", (number,))
            assignments = [{"id": i, "table": t, "entrants": json.loads(e), "names": json.loads(n), "edition": ed,
                            "teams": None if tm is None else bool(tm), "options": json.loads(o),
                            "published": p is not None} for i, t, e, n, ed, tm, o, p in rows]
            rounds.append({"number": number, "pairing": pairing, "created": created, "closed": bool(closed),
                           "assignments": assignments})
        return rounds

    def assignment(self, assignment_id: str) -> dict[str, Any] | None:
        rows = self._rows("SELECT id, round, table_id, names, edition, teams, dealer, options FROM assignments"
                          " WHERE id = ?", (assignment_id,))
        if not rows:
            return None
        i, rnd, table, names, edition, teams, dealer, options = rows[0]
        return {"id": i, "round": rnd, "table": table, "names": json.loads(names), "edition": edition,
                "teams": None if teams is None else bool(teams), "dealer": dealer, "options": json.loads(options)}

    def new_round(self, pairing: str, tables: list[str], manual: list[list[str]] | None = None) -> int:
        """Pair the next round and seat it at ``tables`` in order; returns the round number (not yet published)."""
        if pairing not in PAIRINGS:
            raise TournamentError(f"pairing must be one of {', '.join(PAIRINGS)}")
        entrants = dict(self.entrants())
        if len(entrants) < 2:
            raise TournamentError("add at least two entrants first")
        previous = self.rounds()
        if previous and not previous[-1]["closed"]:
            raise TournamentError(f"round {previous[-1]['number']} is still open; close it first")
        number = len(previous) + 1
        pairs: list[Pair]
        try:
            if pairing == "round-robin":
                pairs = round_robin(list(entrants), number)
            elif pairing == "swiss":
                pairs = self._swiss(entrants, previous)
            else:
                pairs = self._manual(entrants, manual or [])
        except PairingError as error:
            raise TournamentError(str(error)) from None
        games = [pair for pair in pairs if pair[1] is not None]
        if len(games) > len(tables):
            raise TournamentError(f"round {number} needs {len(games)} tables; {len(tables)} given")
        edition, options = self.edition(), self.options()
        rows: list[tuple[str, int, str | None, list[str], list[str], bool]] = []
        for index, (first, second) in enumerate(pairs):
            if second is None:
                rows.append((f"r{number}-bye-{first}", number, None, [first], entrants[first], False))
                continue
            members = [entrants[first], entrants[second]]
            teams = len(members[0]) > 1
            rows.append((f"r{number}-{tables[index]}", number, tables[index], [first, second],
                         seating(edition, members, teams), teams))
        with self._tx() as db:
            db.execute("INSERT INTO rounds VALUES (?, ?, ?, 0)", (number, pairing, time.time()))
            for aid, rnd, table, who, names, teams in rows:
                db.execute("INSERT INTO assignments VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, NULL)",
                           (aid, rnd, table, json.dumps(who, ensure_ascii=False), json.dumps(names, ensure_ascii=False),
                            edition, int(teams), json.dumps(options)))
        return number

    def _swiss(self, entrants: dict[str, list[str]], previous: list[dict[str, Any]]) -> list[Pair]:
        lines = {line.name: line for line in self.standings()["players"]}
        teams = {line.name: line for line in self.standings()["teams"]}

        def rank(name: str) -> tuple[int, int]:
            source = teams if len(entrants[name]) > 1 else lines
            line = source.get(name) if len(entrants[name]) > 1 else lines.get(entrants[name][0])
            return (-(line.match_points if line else 0), -(line.points if line else 0))

        ranked = sorted(entrants, key=lambda name: (*rank(name), list(entrants).index(name)))
        met: set[frozenset[str]] = set()
        had_bye: set[str] = set()
        for round_ in previous:
            for a in round_["assignments"]:
                if len(a["entrants"]) == 2:
                    met.add(frozenset(a["entrants"]))
                else:
                    had_bye.update(a["entrants"])
        return swiss(ranked, met, had_bye)

    @staticmethod
    def _manual(entrants: dict[str, list[str]], manual: list[list[str]]) -> list[Pair]:
        pairs: list[Pair] = []
        seen: set[str] = set()
        for pair in manual:
            if len(pair) != 2 or any(name not in entrants for name in pair):
                raise TournamentError(f"each table needs two known entrants, not {pair!r}")
            if seen & set(pair):
                raise TournamentError(f"{', '.join(seen & set(pair))} is seated twice")
            seen.update(pair)
            pairs.append((pair[0], pair[1]))
        if not pairs:
            raise TournamentError("a manual round needs at least one table")
        return pairs

    def publish_round(self, number: int) -> list[dict[str, Any]]:
        """Mark a round's assignments published; returns them for the broker."""
        with self._tx() as db:
            if not db.execute("SELECT 1 FROM rounds WHERE number = ? AND closed = 0", (number,)).fetchone():
                raise TournamentError(f"there is no open round {number}")
            db.execute("UPDATE assignments SET published = ? WHERE round = ? AND published IS NULL",
                       (time.time(), number))
        ids = [i for (i,) in self._rows("SELECT id FROM assignments WHERE round = ? AND table_id IS NOT NULL",
                                        (number,))]
        return [a for a in (self.assignment(i) for i in ids) if a is not None]

    def close_round(self, number: int) -> None:
        with self._tx() as db:
            if db.execute("UPDATE rounds SET closed = 1 WHERE number = ?", (number,)).rowcount == 0:
                raise TournamentError(f"there is no round {number}")


def _table_entry(table: str, live: str | None, status: str | None, seen: float) -> dict[str, Any]:
    """One table for the pages, read on its own: a stored text that is not strict JSON (which the checks on the
    way in never let through) makes this table "unreadable", never the list of every table."""
    entry: dict[str, Any] = {"table": table, "live": None, "status": None, "seen": seen}
    try:
        entry["live"] = topics.strict_loads(live) if live else None
        entry["status"] = topics.strict_loads(status) if status else None
    except (ValueError, RecursionError):
        entry["unreadable"] = True
    return entry
