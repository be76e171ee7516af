"""The live table, seen from outside the referee: a read-only journal follower and a snapshot.

The web pages (``bornes web``) and the MQTT bridge run in their own processes. They never talk to
the referee to learn the state: they read the journal it writes, which is the game. This module

* opens the journal **read-only** and notices each commit without polling: inotify on the state
  directory wakes it when the WAL (or the database, after a checkpoint) is written, and SQLite's
  ``PRAGMA data_version`` confirms that a commit really happened;
* keeps the current game replayed incrementally (a new action is one engine step, an undo
  replays the hand), so a change costs what one tap costs the referee;
* turns the table into a :class:`LiveSnapshot` (:func:`snapshot`): a typed, JSON-able dict with
  names and words, in the table's language, the one shape the phone pages, the club bridge and the
  club board all read (mypy checks each reader against it).

Nothing here writes a file. A journal that does not exist yet, or is being written while read,
is reported as "no game" or retried on the next change, never as a traceback.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import select
import sqlite3
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, NotRequired, TypedDict

from bornes.engine import (
    SAFETY_KINDS,
    Accepted,
    Action,
    CardKind,
    Game,
    GameSetup,
    GameState,
    Phase,
    RecordError,
    ReplayError,
    apply,
    battle_status,
    hand_points,
    parse_action,
    read_header,
)
from bornes.firmware.language import words
from bornes.firmware.language.i18n import FRENCH_EDITIONS, catalogue
from bornes.firmware.storage.journal import FILENAME, Journal, JournalError
from bornes.firmware.storage.padnotes import action_text, line_pad

log = logging.getLogger("bornes.live")

#: How many of the latest actions a snapshot describes in words.
LAST_ACTIONS = 8
#: After a write to the journal's files with no commit visible yet: first recheck, and how long to keep trying.
RECHECK_FIRST = 0.002
RECHECK_FOR = 2.0

# -- words -----------------------------------------------------------------------------------------
# Every sentence comes from the phrasing layer (bornes.firmware.language.words), in the table's catalogue.


def card_name(kind: CardKind, language: str = "en", edition: str | None = None) -> str:
    """A card's name as printed, in the table's language ("Feu Vert" for Roll in French)."""
    return words.card_name(kind, edition, language)


def battle_words(status: str, language: str = "en", edition: str | None = None) -> str:
    """``battle_status`` (a state word or a hazard's payload kind) as words."""
    t = catalogue(language)
    said = {
        "rolling": t.pgettext("battle", "rolling"),
        "not started": t.pgettext("battle", "not started"),
        "needs roll": t.pgettext("battle", "needs a Roll"),
    }
    if status in said:
        return said[status]
    try:
        return card_name(CardKind(status), language, edition)
    except ValueError:
        return status


def describe(state: GameState, action: Action, language: str = "en") -> str:
    """One action in words, with the players' names: what a scorer would say aloud."""
    return words.describe(state.setup, action, language)


def pad_words(setup: GameSetup, text: str, pad: str | None, language: str = "en") -> str:
    """An action's words with the pad its card was laid on (bornes.firmware.language.words.pad_words)."""
    return words.pad_words(setup, text, pad, language)


# -- the snapshot ----------------------------------------------------------------------------------
# TypedDicts, not dataclasses: a snapshot is sent as JSON to phones and over MQTT, and a dict keeps
# its keys' order and its optional keys exactly as they always were (tests/web compares the bytes).


class LiveSafety(TypedDict):
    kind: str  # the card kind's value ("right_of_way")
    name: str  # as printed, in the table's language
    coup_fourre: bool


class LiveSide(TypedDict):
    """One side (a player, or a team) as the table shows it."""

    index: int
    name: str
    players: list[str]
    seats: str  # the seat letters ("AC")
    miles: int
    trip: int
    battle: str  # battle_status: "rolling", "not started", "needs roll" or a hazard's kind
    battle_words: str
    limit: bool
    safeties: list[LiveSafety]
    hand_points: int
    total: int
    turn: bool


class ToldAction(TypedDict):
    n: int  # the action's number in the game, from 1
    text: str
    pad: NotRequired[str]  # only for a card laid on a pile pad


class LiveSnapshot(TypedDict):
    """The live table. With no game yet (``status`` "none", :func:`empty_snapshot`) only the keys
    that are not ``NotRequired`` are there, ``sides`` is empty and ``turn_text`` says why."""

    game_id: int | None
    status: str  # the journal's "in-progress", "finished" or "abandoned"; "none" before any game
    edition: NotRequired[str]
    edition_title: NotRequired[str]
    language: str
    unit: NotRequired[Literal["km", "miles"]]
    hand: NotRequired[int]
    dealer: NotRequired[str]
    phase: NotRequired[str]
    turn: NotRequired[str]
    to_act: NotRequired[list[str]]
    turn_text: str
    trip: NotRequired[int]
    draw_pile: NotRequired[int]
    sides: list[LiveSide]
    over: NotRequired[bool]
    winner: NotRequired[str | None]
    tie: NotRequired[bool]
    action_count: int
    last_actions: list[ToldAction]
    hands_scored: NotRequired[int]
    #: Added by the club bridge: when the game began (the journal's ``created``), None before one.
    created: NotRequired[str | None]


def snapshot(
    state: GameState,
    actions: list[Action],
    *,
    game_id: int | None = None,
    status: str = "in-progress",
    language: str = "en",
    last: int = LAST_ACTIONS,
    states: list[GameState] | None = None,
    pads: list[str | None] | None = None,
) -> LiveSnapshot:
    """The table as plain data for a page or an MQTT message.

    ``states`` (the state before each action, when known) lets the last actions be told in words
    with the names as they stood; without it the final state's names are used (they never change).
    ``pads`` (the pad each action's card was laid on, from the journal) adds where it was laid.
    """
    setup = state.setup
    hand = state.hand
    turn_side = setup.side_of(hand.turn)
    points = hand_points(state)
    sides: list[LiveSide] = []
    for index, side in enumerate(hand.sides):
        status_word = battle_status(side, setup.options)
        sides.append(
            {
                "index": index,
                "name": setup.side_name(index),
                "players": [setup.names[s] for s in setup.side_seats(index)],
                "seats": setup.side_letters(index),
                "miles": side.miles,
                "trip": hand.trip,
                "battle": status_word,
                "battle_words": battle_words(status_word, language, setup.edition),
                "limit": side.limited,
                "safeties": [
                    {
                        "kind": kind.value,
                        "name": card_name(kind, language, setup.edition),
                        "coup_fourre": kind in side.coups,
                    }
                    for kind in SAFETY_KINDS
                    if side.has(kind)
                ],
                "hand_points": points[index],
                "total": state.totals[index],
                "turn": index == turn_side and state.phase is Phase.PLAY,
            }
        )
    tail = actions[-last:] if last else []
    start = len(actions) - len(tail)
    told: list[ToldAction] = []
    for offset, action in enumerate(tail):
        before = states[start + offset] if states is not None and start + offset < len(states) else state
        pad = pads[start + offset] if pads is not None and start + offset < len(pads) else None
        text = describe(before, action, language)
        entry: ToldAction = {"n": start + offset + 1, "text": pad_words(setup, text, pad, language)}
        if pad is not None:
            entry["pad"] = pad  # only for a card laid on a pad: without pads the snapshot is as before
        told.append(entry)
    to_act = state.to_act()
    turn_text = words.turn_text(state, language)
    return {
        "game_id": game_id,
        "status": status,
        "edition": setup.edition,
        "edition_title": words.edition_title(setup.edition, language),
        "language": language,
        "unit": "km" if language == "fr" or setup.edition in FRENCH_EDITIONS else "miles",
        "hand": hand.number,
        "dealer": setup.names[hand.dealer],
        "phase": state.phase.value,
        "turn": setup.names[hand.turn],
        "to_act": [setup.names[s] for s in to_act],
        "turn_text": turn_text,
        "trip": hand.trip,
        "draw_pile": hand.draw_pile,
        "sides": sides,
        "over": state.over,
        "winner": None if state.winner is None else setup.side_name(state.winner),
        "tie": state.tie,
        "action_count": len(actions),
        "last_actions": told,
        "hands_scored": len(state.sheets),
    }


def empty_snapshot(language: str = "en", reason: str = "") -> LiveSnapshot:
    """What a page shows before any game is in the journal."""
    return {
        "game_id": None,
        "status": "none",
        "language": language,
        "sides": [],
        "action_count": 0,
        "last_actions": [],
        "turn_text": reason or catalogue(language).gettext("No game yet: start one at the table"),
    }


# -- replaying a stored game -----------------------------------------------------------------------


class GameUnreadable(ValueError):
    """A stored game whose header or actions do not replay (shown as one line, never a traceback)."""


def setup_of(header: str) -> GameSetup:
    try:
        return read_header(line for line in header.splitlines() if line.strip())
    except RecordError as error:
        raise GameUnreadable(f"the game's header does not read: {error}") from None


def replay(header: str, lines: list[str]) -> tuple[Game, list[GameState]]:
    """A whole stored game and the state before each action (for words and the game viewer)."""
    setup = setup_of(header)
    game = Game(setup)
    states: list[GameState] = []
    for number, line in enumerate(lines, start=1):
        try:
            action = parse_action(action_text(line))
        except ValueError as error:
            raise GameUnreadable(f"action {number} does not read: {error}") from None
        states.append(game.state)
        verdict = game.push(action)
        if not isinstance(verdict, Accepted):
            raise GameUnreadable(f"action {number} ({line}) is refused on replay: {verdict}")
    return game, states


class _StillJournal(Journal):
    """The journal while no referee has it open, read by a process that may not write its folder.

    A WAL database needs its ``-shm`` index, which the writer makes and removes when it closes. A
    reader without write access to the folder (``bornes web`` has ``ReadOnlyPaths``) cannot make it,
    so while there is no ``-wal`` file, and hence no writer, the file cannot change and is opened
    ``immutable``. The follower reopens it normally as soon as a ``-wal`` appears.
    """

    @staticmethod
    def _connect(path: Path, *, readonly: bool) -> sqlite3.Connection:
        uri = f"{path.resolve().as_uri()}?mode=ro&immutable=1"
        try:
            return sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as error:
            raise JournalError(f"journal {path}: cannot open: {error}") from None


def _wal_exists(path: Path) -> bool:
    return Path(f"{path}-wal").exists()


def open_readonly(state_dir: str | os.PathLike[str]) -> Journal:
    """The journal for reading only, whether or not a referee has it open (see :class:`_StillJournal`).

    Raises :class:`JournalError` (one line) when there is none yet or it cannot be read.
    """
    try:
        return Journal.open(state_dir, readonly=True)
    except JournalError:
        path = Path(state_dir) / FILENAME
        if not path.exists() or _wal_exists(path) or os.access(state_dir, os.W_OK):
            raise
        return _StillJournal.open(state_dir, readonly=True)


@dataclass
class _Followed:
    """The game being followed, replayed as far as the journal goes."""

    game_id: int
    header: str
    status: str
    lines: list[str] = field(default_factory=list)
    states: list[GameState] = field(default_factory=list)
    game: Game | None = None


# -- inotify, through libc (Linux): no dependency, no polling --------------------------------------

_IN_MODIFY = 0x00000002
_IN_CLOSE_WRITE = 0x00000008
_IN_MOVED_TO = 0x00000080
_IN_CREATE = 0x00000100
_IN_DELETE = 0x00000200
_IN_NONBLOCK = 0o4000
_IN_CLOEXEC = 0o2000000
_EVENT = struct.Struct("iIII")


class _Inotify:
    """A watch on one directory; its file descriptor becomes readable when a file in it changes."""

    def __init__(self, directory: Path) -> None:
        # The interpreter's own symbols include libc's: no ctypes.util.find_library, which imports
        # subprocess and shutil (1.3 MB of a long-running process) and runs ldconfig to answer.
        self._libc = ctypes.CDLL(None, use_errno=True)
        fd = self._libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        if fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1 failed")
        self.fd: int = fd
        mask = _IN_MODIFY | _IN_CLOSE_WRITE | _IN_MOVED_TO | _IN_CREATE | _IN_DELETE
        if self._libc.inotify_add_watch(fd, os.fsencode(directory), mask) < 0:
            error = ctypes.get_errno()
            os.close(fd)
            raise OSError(error, f"cannot watch {directory}")

    def drain(self) -> set[str]:
        """Read every pending event; the names of the files they were about."""
        names: set[str] = set()
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return names
            offset = 0
            while offset < len(data):
                _wd, _mask, _cookie, length = _EVENT.unpack_from(data, offset)
                raw = data[offset + _EVENT.size : offset + _EVENT.size + length]
                names.add(raw.rstrip(b"\0").decode(errors="replace"))
                offset += _EVENT.size + length

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


#: A watch on one folder (the TV page follows the referee's screen file with it: firmware/web/tv.py).
DirectoryWatch = _Inotify


class JournalFollower:
    """Follows the game in the journal of ``state_dir`` as a reader; never writes anything.

    Use :meth:`fileno` with ``select``/``asyncio.add_reader`` (or :meth:`wait` in a thread), then
    :meth:`refresh`: it returns True when the table changed, and :meth:`snapshot` gives the new
    table. Between journal writes it costs nothing: no timer, no query.
    """

    def __init__(self, state_dir: str | os.PathLike[str], *, language: str = "en") -> None:
        self.state_dir = Path(state_dir)
        self.language = language
        self.path = self.state_dir / FILENAME
        self._watch = _Inotify(self.state_dir)
        self._journal: Journal | None = None
        self._still = False  # opened immutable, because no referee had it open
        self._probe: sqlite3.Connection | None = None
        self._data_version: int | None = None
        self._content: tuple[object, ...] | None = None  # what the last read saw (see _fingerprint)
        self._recheck_at: float | None = None
        self._recheck_end = 0.0
        self._recheck_step = RECHECK_FIRST
        self._followed: _Followed | None = None
        self._snapshot: LiveSnapshot = empty_snapshot(language)
        self.error: str | None = None
        #: How many times the journal was actually read (a bench figure: reads track writes).
        self.reads = 0
        self.refresh(force=True)

    def fileno(self) -> int:
        return self._watch.fd

    # -- following ---------------------------------------------------------------------------------

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the table changes, or ``timeout`` seconds pass (False then)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            delay = self.recheck_delay()
            step = delay if delay is not None and (left is None or delay < left) else left
            ready, _, _ = select.select([self._watch.fd], [], [], step)
            if (ready or (delay is not None and step == delay)) and self.refresh(recheck=not ready):
                return True
            if deadline is not None and time.monotonic() >= deadline:
                return False

    def recheck_delay(self) -> float | None:
        """Seconds until a write seen half-done should be looked at again; None when none is."""
        if self._recheck_at is None:
            return None
        return max(0.0, self._recheck_at - time.monotonic())

    def refresh(self, force: bool = False, recheck: bool = False) -> bool:
        """Take in what changed. True when the snapshot is new.

        SQLite appends a commit's frames to the WAL (an inotify event) *before* it publishes the
        commit in the shared-memory index (an mmap write, which inotify does not see). So after each
        write to the journal's files ``data_version`` is looked at again after 2, 4, 8… ms, for at
        most :data:`RECHECK_FOR` seconds, to catch a commit that was under way. Only writes start
        rechecks: an idle table costs nothing.
        """
        names = self._watch.drain()
        touched = any(name.startswith(FILENAME) for name in names)
        if not (force or recheck or touched):
            return False
        now = time.monotonic()
        if touched:
            self._recheck_step, self._recheck_end = RECHECK_FIRST, now + RECHECK_FOR
        elif recheck:
            self._recheck_step *= 2
        self._recheck_at = now + self._recheck_step if now + self._recheck_step < self._recheck_end else None
        if self._still and _wal_exists(self.path):
            self._close_journal()  # a referee opened it: follow its commits from now on
            force = True
        if not self._open():
            return self._set(empty_snapshot(self.language, self.error or ""))
        version = self._version()
        if not force and version is not None and version == self._data_version:
            return False
        self._data_version = version
        content = self._fingerprint()
        if not force and content is not None and content == self._content:
            return False  # the referee's checkpoint after each commit moves data_version again: nothing new
        self._content = content
        try:
            return self._reload()
        except JournalError as error:
            self.error = str(error)
            log.warning("%s", error)
            self._close_journal()  # reopen on the next change
            return False

    def _open(self) -> bool:
        if self._journal is not None:
            return True
        try:
            if not Journal.exists(self.state_dir):  # none yet; a main file lost beside its WAL is damage
                self.error = None
                return False
            try:
                self._journal = Journal.open(self.state_dir, readonly=True)
            except JournalError:
                if _wal_exists(self.path) or os.access(self.state_dir, os.W_OK):
                    raise
                self._journal = _StillJournal.open(self.state_dir, readonly=True)
                self._still = True
                self.error = None
                return True
            uri = f"{self.path.resolve().as_uri()}?mode=ro"
            self._probe = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=1.0, check_same_thread=False)
        except (JournalError, sqlite3.Error) as error:
            self.error = str(error)
            log.warning("journal not readable yet: %s", error)
            self._close_journal()
            return False
        self.error = None
        return True

    def _version(self) -> int | None:
        """SQLite's count of commits by other connections, read on a connection kept open for it."""
        if self._probe is None:
            return None
        try:
            return int(self._probe.execute("PRAGMA data_version").fetchone()[0])
        except sqlite3.Error:
            return None

    def _fingerprint(self) -> tuple[object, ...] | None:
        """The journal's content in one row: the ledger (which games exist, which is current) and the
        newest game's action count, running digest and status. Every append, undo, finish and new
        game changes it; a checkpoint does not."""
        if self._probe is None:
            return None
        try:
            row = self._probe.execute(
                "SELECT l.first_id, l.last_id, l.current_id, l.crc, g.actions, g.digest, g.status, g.crc "
                "FROM ledger AS l LEFT JOIN games AS g ON g.id = l.last_id").fetchone()
        except sqlite3.Error:
            return None  # an older schema, or a journal mid-repair: read it whole
        return tuple(row) if row is not None else None

    def _close_journal(self) -> None:
        if self._journal is not None:
            self._journal.close()
        if self._probe is not None:
            with contextlib.suppress(sqlite3.Error):
                self._probe.close()
        self._journal = None
        self._probe = None
        self._still = False
        self._data_version = None
        self._content = None

    def _reload(self) -> bool:
        journal = self._journal
        assert journal is not None
        self.reads += 1
        current = journal.current_game()
        if current is not None:
            game_id, header, status, lines = current.game_id, current.header, "in-progress", current.lines
        else:
            # Between games the page keeps showing the last one, final scores and all.
            history = journal.history()
            if not history:
                self._followed = None
                return self._set(empty_snapshot(self.language))
            latest = history[-1]
            record = journal.load(latest.game_id)
            if record is None:  # pragma: no cover - the row was just listed
                return False
            game_id, header, status, lines = record.game_id, record.header, record.status, record.lines
        try:
            followed = self._advance(game_id, header, status, lines)
        except GameUnreadable as error:
            self.error = f"game {game_id}: {error}"
            self._followed = None
            return self._set(empty_snapshot(self.language, self.error))
        assert followed.game is not None
        return self._set(
            snapshot(
                followed.game.state,
                followed.game.log,
                game_id=game_id,
                status=status,
                language=self.language,
                states=followed.states,
                pads=[line_pad(line) for line in followed.lines],
            )
        )

    def _advance(self, game_id: int, header: str, status: str, lines: list[str]) -> _Followed:
        """Bring the replayed game up to ``lines``: new actions are single engine steps."""
        followed = self._followed
        same = followed is not None and followed.game_id == game_id and followed.header == header
        if followed is not None and same and lines[: len(followed.lines)] == followed.lines:
            assert followed.game is not None
            for line in lines[len(followed.lines) :]:
                try:
                    action = parse_action(action_text(line))
                except ValueError as error:
                    raise GameUnreadable(f"action {len(followed.lines) + 1} does not read: {error}") from None
                verdict = apply(followed.game.state, action)
                if not isinstance(verdict, Accepted):
                    raise GameUnreadable(f"action {len(followed.lines) + 1} ({line}) is refused on replay")
                followed.states.append(followed.game.state)
                followed.game.commit(action, verdict)
                followed.lines.append(line)
            followed.status = status
            return followed
        try:
            game, states = replay(header, lines)
        except ReplayError as error:  # pragma: no cover - replay() turns refusals into GameUnreadable
            raise GameUnreadable(str(error)) from None
        self._followed = _Followed(game_id, header, status, list(lines), states, game)
        return self._followed

    def _set(self, new: LiveSnapshot) -> bool:
        if new == self._snapshot:
            return False
        self._snapshot = new
        return True

    # -- reading -----------------------------------------------------------------------------------

    def snapshot(self) -> LiveSnapshot:
        """The latest table (a fresh dict each call, safe to hand to another thread)."""
        return self._snapshot.copy()

    @property
    def journal(self) -> Journal | None:
        """The read-only journal (for history pages), or None before one exists."""
        if self._journal is None:
            self._open()
        return self._journal

    def close(self) -> None:
        """Stop following; safe to call twice."""
        self._close_journal()
        self._watch.close()

    def __enter__(self) -> JournalFollower:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def follow(
    state_dir: str | os.PathLike[str],
    on_change: Callable[[LiveSnapshot], None],
    stop: threading.Event,
    *,
    language: str = "en",
) -> None:
    """Call ``on_change(snapshot)`` now and after every change, until ``stop`` is set (a thread body)."""
    with JournalFollower(state_dir, language=language) as follower:
        on_change(follower.snapshot())
        while not stop.is_set():
            if follower.wait(timeout=1.0):
                on_change(follower.snapshot())
