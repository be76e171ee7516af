"""The pending note: the count of acknowledged actions, kept outside the WAL, that proves the WAL whole.

``bornes.sqlite3-pending`` says which game is the newest, how many actions it holds and their
running digest (rows.py). The referee writes it after every commit that changes them and before
the chirp, so it is the second of the two syncs a card costs (the first is SQLite's commit of the
WAL). Checkpointing the WAL into the main file can then wait until after the chirp.

Why it is needed: the WAL walker (wal.py) proves every frame of the WAL but the last one. A bit
flipped in the final frame looks exactly like a commit cut short by a power cut, and SQLite then
replays the WAL without it: the newest card is gone and every check of the main file passes. The
note says that card was acknowledged, so the journal holding one action fewer is damage.

What the journal may hold, given the note (game G, ``actions`` N, ``digest`` D):

* exactly N actions with digest D;
* N + 1 actions whose first N have digest D: the next card was committed and the referee died
  before it could write the note (that card was never acknowledged; keeping it is fine);
* the state an undo started from (``undo_from``), written to the note before the undo commits, so
  a power cut in the middle of an undo is not taken for lost actions. After the commit the note is
  written again without it: an undo costs three syncs, a card two.

The file holds two copies (512 bytes each) written in turn, each with a sequence number and a
CRC: a write torn by a power cut spoils only the copy being written, and the other still proves
everything acknowledged before it. The file is made once (written, synced, renamed) and then
only overwritten in place, so updating it is one ``pwrite`` and one ``fdatasync``, with no change
to the folder.

Round two's note (one line, ``bornes-pending <game> <actions> <digest> <crc>``, written only while a
reader held the checkpoint) is still read: the journal must hold at least that many actions.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import zlib
from dataclasses import dataclass
from pathlib import Path

FILENAME = "bornes.sqlite3-pending"
#: The name :meth:`NoteWriter.create` writes a new note under before renaming it to FILENAME: a power cut between
#: the two leaves it behind, holding no card (the next create truncates it and renames it over the note).
TEMPORARY = f".{FILENAME}.new"
SLOT = 512  # one copy; the file is two
TAG = "bornes-note"
_OLD_TAG = "bornes-pending"


@dataclass(frozen=True, slots=True)
class Acknowledged:
    """What the note says was acknowledged: game ``game`` holds ``actions`` actions with ``digest``."""

    game: int
    actions: int
    digest: int
    undo_from: tuple[int, int] | None = None  # (actions, digest) an undo in flight started from
    at_least: bool = False  # round two's note: any longer game is fine too
    seq: int = 0

    def problem(self, actions: int, digest: int, prefix_digest: int | None) -> str | None:
        """Why the journal's game (``actions``, ``digest``; ``prefix_digest`` the digest of its first
        ``self.actions`` when it holds more) contradicts the note, or None when it agrees."""
        if (actions, digest) == (self.actions, self.digest):
            return None
        if self.undo_from is not None and (actions, digest) == self.undo_from:
            return None  # the undo being written when the process died: not acknowledged yet
        if actions > self.actions and prefix_digest == self.digest and (self.at_least or actions == self.actions + 1):
            return None  # the next card, committed but not acknowledged (or round two's "at least")
        if actions < self.actions:
            return f"game {self.game} holds {actions} actions but {self.actions} were acknowledged (the WAL lost some)"
        return (f"game {self.game} holds {actions} actions that are not the {self.actions} acknowledged "
                "(the WAL lost some)")

    def text(self) -> str:
        undo = "- -" if self.undo_from is None else f"{self.undo_from[0]} {self.undo_from[1]}"
        fields = f"{self.seq} {self.game} {self.actions} {self.digest} {undo}"
        return f"{TAG} {fields} {zlib.crc32(fields.encode())}"


@dataclass(frozen=True, slots=True)
class NoteReading:
    """The note as found: the newest sound copy, and what is wrong with the rest (None: nothing)."""

    exists: bool = False
    acknowledged: Acknowledged | None = None
    damage: str | None = None  # a copy, or the whole note, fails its check
    claimed: int | None = None  # the action count a damaged note seems to give (not trusted)
    old_format: bool = False

    @property
    def whole(self) -> bool:
        return self.exists and self.damage is None


def read_note(directory: Path) -> NoteReading:
    """The note beside the journal in ``directory``; NoteReading() when there is none.

    Raises OSError when the path exists but is no regular file or cannot be read.
    """
    try:
        raw = _read_small(directory / FILENAME)
    except FileNotFoundError:
        return NoteReading()
    if raw.startswith(_OLD_TAG.encode()):
        return _read_old(raw)
    copies = [_parse(raw[k * SLOT : (k + 1) * SLOT]) for k in range(2)]
    sound = [c for c in copies if isinstance(c, Acknowledged)]
    damage = None
    if len(raw) != 2 * SLOT:
        damage = f"{FILENAME} is {len(raw)} bytes, not {2 * SLOT}"
    elif len(sound) < 2:
        damage = f"{FILENAME}: {2 - len(sound)} of its 2 copies fail their checksum"
    newest = max(sound, key=lambda c: c.seq, default=None)
    claims = [c for c in copies if isinstance(c, int)]
    return NoteReading(True, newest, damage, max(claims, default=None))


def _parse(slot: bytes) -> Acknowledged | int | None:
    """A sound copy; else the action count it seems to hold (an int), or None when it says nothing."""
    fields = slot.decode("ascii", "replace").split()
    try:
        tag, seq, game, actions, digest = fields[0], *map(int, fields[1:5])
        was = None if fields[5:7] == ["-", "-"] else (int(fields[5]), int(fields[6]))
        crc = int(fields[7])
    except (ValueError, IndexError):
        try:
            return int(fields[3])
        except (ValueError, IndexError):
            return None
    if tag != TAG or len(fields) != 8 or zlib.crc32(" ".join(fields[1:7]).encode()) != crc:
        return actions
    return Acknowledged(game, actions, digest, was, False, seq)


def _read_old(raw: bytes) -> NoteReading:
    fields = raw.decode("ascii", "replace").split()
    try:
        game, actions, digest, crc = map(int, fields[1:5])
    except (ValueError, IndexError):
        return NoteReading(True, None, f"{FILENAME} does not read", None, True)
    if len(fields) != 5 or zlib.crc32(f"pending|{game}|{actions}|{digest}".encode()) != crc:
        return NoteReading(True, None, f"{FILENAME} fails its checksum", actions, True)
    return NoteReading(True, Acknowledged(game, actions, digest, None, True), None, None, True)


def _read_small(path: Path, limit: int = 4096) -> bytes:
    """A side file's bytes (not following a symlink, not blocking on a FIFO); OSError if it is no file."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        return os.read(fd, limit)
    finally:
        os.close(fd)


def fsync_dir(directory: Path) -> None:
    """Make a new directory entry durable (a rename or link is not, until its folder is synced)."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class NoteWriter:
    """The referee's handle on the note: one ``pwrite`` and one ``fdatasync`` per update."""

    def __init__(self, directory: Path, fd: int, seq: int) -> None:
        self.directory = directory
        self._fd: int | None = fd
        self.seq = seq
        self.last: Acknowledged | None = None

    @classmethod
    def create(cls, directory: Path, acknowledged: Acknowledged) -> NoteWriter:
        """Replace the note with a new file holding ``acknowledged`` in both copies: written under a
        temporary name, synced, renamed and the folder synced, so it is whole or absent."""
        temp = directory / TEMPORARY
        copies = [Acknowledged(acknowledged.game, acknowledged.actions, acknowledged.digest, acknowledged.undo_from,
                               False, seq) for seq in (2, 1)]
        data = b"".join(map(_slot, copies))  # copy ``seq`` lives at (seq % 2) * SLOT: 2 first, then 1
        try:
            fd = os.open(temp, os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
            try:
                os.write(fd, data)
                os.fsync(fd)
                os.rename(temp, directory / FILENAME)
                fsync_dir(directory)
            except BaseException:
                os.close(fd)
                raise
        except OSError:
            with contextlib.suppress(OSError):
                temp.unlink(missing_ok=True)
            raise
        writer = cls(directory, fd, 2)
        writer.last = acknowledged
        return writer

    @classmethod
    def reopen(cls, directory: Path, newest: Acknowledged) -> NoteWriter:
        """Keep writing a sound note of this format, after its newest copy."""
        fd = os.open(directory / FILENAME, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
        writer = cls(directory, fd, newest.seq)
        writer.last = newest
        return writer

    def record(self, game: int, actions: int, digest: int, undo_from: tuple[int, int] | None = None) -> None:
        """Durably note that ``game`` holds ``actions`` with ``digest`` (OSError if the storage fails)."""
        if self._fd is None:
            raise OSError(errno.EBADF, f"{FILENAME} is closed")
        seq = self.seq + 1
        acknowledged = Acknowledged(game, actions, digest, undo_from, False, seq)
        os.pwrite(self._fd, _slot(acknowledged), (seq % 2) * SLOT)
        os.fdatasync(self._fd)
        self.seq, self.last = seq, acknowledged

    def close(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None


def _slot(acknowledged: Acknowledged) -> bytes:
    return acknowledged.text().encode("ascii").ljust(SLOT - 1) + b"\n"
