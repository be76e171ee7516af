"""Teaching the camera, frame by frame: pure, so ``bornes enroll --camera`` and the bench share it.

The owner lays each kind in the zone and takes the hand away; each time the scene settles (the card
laid down, or nudged and let go: still for the watcher's ``still_s``, in seconds, whatever the frame
rate) and differs from the empty zone (light taken out, as the watcher compares), a shot is taken: the card is found
against the empty zone and flattened. After ``shots`` shots the card is taken away and the next kind
is asked for. The last shot of each kind is held back to check the others with, so the check reads
every kind with pictures it was not taught from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bornes.drivers.camera.index import KINDS
from bornes.drivers.camera.light import Picture, compare, picture
from bornes.drivers.camera.templates import Taught
from bornes.drivers.camera.vision import Image, find_card, flatten
from bornes.drivers.camera.watch import DEFAULT_FPS, DEFAULT_WATCH, EPSILON, PIXELS, WatchTuning, shrink


@dataclass(frozen=True)
class Asked:
    """Show this kind now (``index`` of ``total``)."""

    kind: str
    index: int
    total: int


@dataclass(frozen=True)
class ShotTaken:
    kind: str
    shot: int
    shots: int


@dataclass(frozen=True)
class NoCard:
    """A still scene in which no card could be found (two cards, a hand left on it)."""

    kind: str


@dataclass(frozen=True)
class AllTaught:
    taught: Taught


News = Asked | ShotTaken | NoCard | AllTaught


class Enroller:
    """Feed every frame; it says what to show next and when a shot was taken.

    The first kind is asked for only once the empty zone is learnt (the camera's first still picture). Asked
    for before, as the command once did as it started the camera, a card laid at once was learnt as part of the
    empty zone and never seen: no shot, no word (a clean-clone CI run of the kernel tier's webcam met it)."""

    def __init__(self, kinds: Sequence[str] = KINDS, shots: int = 3, tuning: WatchTuning = DEFAULT_WATCH, *,
                 fps: float = DEFAULT_FPS) -> None:
        if shots < 2:
            raise ValueError("at least two shots a kind: one to learn from, one to check with")
        self.kinds = list(kinds)
        self.shots = shots
        self.tuning = tuning
        self.fps = fps  # the moment of a frame fed without one: its number over this
        self.index = 0
        self.faces: dict[str, list[Image]] = {}
        self.frames = 0
        self.done = False
        self._empty_small: Picture | None = None
        self._empty: Image | None = None
        self._previous: tuple[float, Picture] | None = None
        self._still_since: float | None = None
        self._shot = False  # a shot was taken of this settling (the next comes once something moves)
        self._waiting_for_empty = False

    @property
    def kind(self) -> str | None:
        return self.kinds[self.index] if self.index < len(self.kinds) else None

    def feed(self, frame: Image, at: float | None = None) -> list[News]:
        """One frame, taken at ``at`` seconds (by default its number over ``fps``)."""
        if self.done:
            return []
        moment = at if at is not None else self.frames / self.fps
        self.frames += 1
        now = picture(shrink(frame))
        previous, self._previous = self._previous, (moment, now)
        if previous is None:
            return []
        t = self.tuning
        if compare(previous[1], now, t.moving_level).differs.sum() <= t.still_fraction * PIXELS:
            if self._still_since is None:
                self._still_since = previous[0]
        else:
            self._still_since, self._shot = None, False
        if self._still_since is None or moment - self._still_since < t.still_s - EPSILON:
            return []
        if self._empty_small is None:
            self._empty_small, self._empty = now, frame.copy()
            return [Asked(self.kinds[0], 1, len(self.kinds))]
        empty = compare(self._empty_small, now, t.changed_level).differs.sum() <= t.empty_fraction * PIXELS
        if self._waiting_for_empty:
            if not empty:
                return []
            self._waiting_for_empty = False
            self.index += 1
            if self.index == len(self.kinds):
                self.done = True
                faces = {k: v[:-1] for k, v in self.faces.items()}
                checks = {k: v[-1:] for k, v in self.faces.items()}
                return [AllTaught(Taught(faces, checks).checked())]
            return [Asked(self.kinds[self.index], self.index + 1, len(self.kinds))]
        if empty or self._shot:
            return []  # a shot is taken once each time the card settles (laid down, or nudged and let go)
        self._shot = True
        kind = self.kinds[self.index]
        corners = find_card(frame, self._empty)
        if corners is None:
            return [NoCard(kind)]
        taken = self.faces.setdefault(kind, [])
        taken.append(flatten(frame, corners))
        if len(taken) >= self.shots:
            self._waiting_for_empty = True
        return [ShotTaken(kind, len(taken), self.shots)]
