"""Free space where the journal lives, as cards and games that still fit (doctor, the panel, run's start)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from bornes.drivers.errors import en_

#: What one card needs beyond its rows: the frames of its commit in the WAL (8-29 KiB measured with
#: 4 KiB pages), a new page when a B-tree node splits, and the primer of the next WAL after a checkpoint.
COMMIT_RESERVE = 64 * 1024
BYTES_PER_ACTION = 48  # the main file grows by about 42 bytes per action (bench: 200 games of 351)
BYTES_PER_GAME = 16 * 1024  # a long two-player game of 351 actions, header and summary: about 14.6 KiB
LOW_SPACE = 4 * 1024 * 1024  # below this the panel and doctor warn: about 250 games left


@dataclass(frozen=True, slots=True)
class Headroom:
    """Free space where the journal lives, as cards and games that still fit."""

    free: int  # bytes this user may still write (statvfs f_bavail: root's reserve not counted)

    @property
    def cards(self) -> int:
        return max(0, self.free - COMMIT_RESERVE) // BYTES_PER_ACTION

    @property
    def games(self) -> int:
        return max(0, self.free - COMMIT_RESERVE) // BYTES_PER_GAME

    @property
    def full(self) -> bool:
        """Not even one more card can be made durable."""
        return self.free < COMMIT_RESERVE

    @property
    def low(self) -> bool:
        return self.free < LOW_SPACE

    def describe(self) -> str:
        """One line in English (logs, run's error), a Said ``bornes doctor`` says in the table's language."""
        size = f"{self.free / 1024 / 1024:.1f} MiB" if self.free >= 1024 * 1024 else f"{self.free // 1024} KiB"
        if self.full:
            return en_("{size} free: not enough to record one more card; free some space", size=size)
        return en_("{size} free: room for about {cards} cards ({games} games)", size=size,
                    cards=f"{self.cards:,}".replace(",", " "), games=f"{self.games:,}".replace(",", " "))


def headroom(state_dir: str | os.PathLike[str]) -> Headroom:
    """The free space of the file system holding ``state_dir`` (or its nearest existing parent)."""
    where = Path(state_dir)
    while not where.exists() and where != where.parent:
        where = where.parent
    info = os.statvfs(where)
    return Headroom(info.f_bavail * info.f_frsize)


# -- who holds it, and can we write it ------------------------------------------------------------
