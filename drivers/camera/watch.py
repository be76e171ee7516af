"""A play is an event in time: frames in, reads and refusals out. Pure: no I/O, no clock.

The watcher keeps a small copy of each frame (160 x 120, in colour: a teal card on a brown table may
have the table's lightness) and asks three questions of it, each a count of changed pixels:

* **What lies still?** The pixels that differ from the empty zone (learnt at the start, slowly
  following the lamp) and have not moved over the last two frames. A card laid down lies still
  while the hand that brought it is still leaving; nothing that moves is looked at, and a card
  being brought in or taken away moves.
* **Is the zone empty?** Then the next card is a new card, even of the same kind.
* **Is what lies still new?** (against the last scene decided on): a card that stays, a hand that
  rests on it and goes, is not new.

Only a scene with something new lying still is shown to the recognizer
(:mod:`bornes.drivers.camera.vision`), and only the part of the frame that lies still. A card is
read when two frames agree on its kind and none says another (or one frame is sure by a wide
margin); a card that is not clearly one kind after a few frames is refused once ("show it
again"); a scene with no card in it (a resting hand) says nothing. The same card, read again where
it lay, is not a second read.

Bad frames (black, blinding, another size) are dropped without touching any of this, each run of
them reported once.
"""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from bornes.drivers.camera.vision import Deck, Image, Sighting, Verdict, as_image

SMALL_W, SMALL_H = 160, 120
PIXELS = SMALL_W * SMALL_H


class FrameFault(enum.Enum):
    """Why a frame was dropped."""

    BLACK = "black"
    BLINDING = "overexposed"
    SIZE = "size"
    UNREADABLE = "unreadable"


@dataclass(frozen=True)
class Read:
    """A card was played: its kind, and the frame that decided it."""

    kind: str
    frame: str
    sighting: Sighting = field(compare=False)


@dataclass(frozen=True)
class Refusal:
    """A card was shown but is not clearly one kind: it is not read, the player shows it again."""

    frame: str
    reason: str
    best: str | None = None  # the likeliest kind, for the log only: never played
    runner_up: str | None = None


@dataclass(frozen=True)
class Dropped:
    """The first of a run of bad frames, and why (the rest of the run says nothing)."""

    frame: str
    fault: FrameFault
    detail: str


Outcome = Read | Refusal | Dropped


@dataclass(frozen=True)
class WatchTuning:
    """When a scene counts as still, new, empty; how many frames must agree. Counts of the 160 x 120 copy."""

    moving_level: int = 18  # grey levels: a pixel that changed by more since the last frame has moved
    still_fraction: float = 0.015  # at most this share of pixels moving: the whole zone is still (a hand
    # holding a card trembles a little)
    still_frames: int = 2  # frames in a row a pixel must keep before it lies still (0.2 s at 10 frames a second)
    changed_level: int = 22
    steady_fraction: float = 0.03  # at least this share of the zone lying still and unlike the empty zone: a
    # card may be there (a card is about 7 % of a zone twice its size)
    new_fraction: float = 0.02  # share of the zone lying still unlike the last decided scene: something new
    empty_fraction: float = 0.008  # share of pixels unlike the empty zone: the zone is empty
    votes: int = 2  # frames that must agree on a kind...
    sure_margin: float = 0.3  # ...unless one frame's best kind wins by this much
    attempts: int = 6  # frames that saw a card before it is refused when no kind is clear
    blank_looks: int = 3  # frames in a row, all still, that saw no card before the scene is let be
    same_place: float = 0.35  # a read this close to the last (in card diagonals), of its kind: the same card


DEFAULT_WATCH = WatchTuning()


class PlayWatcher:
    """Feed it every frame in order; it answers with what happened (mostly nothing)."""

    def __init__(self, deck: Deck | None, tuning: WatchTuning = DEFAULT_WATCH, *,
                 size: tuple[int, int] | None = None) -> None:
        self.deck = deck
        self.tuning = tuning
        self.size = size  # (width, height) every frame must have; None: the first good frame's
        self.frames = 0
        self.looked = 0  # frames shown to the recognizer
        self._previous: Image | None = None
        self._moved: list[NDArray[np.bool_]] = []  # where pixels moved between the last frames, newest last
        self._changed: list[NDArray[np.bool_]] = []  # where the last frames differed from the empty zone
        self._empty: Image | None = None
        self._reference: Image | None = None
        self._still = 0
        self._episode: list[Sighting] = []
        self._blank = 0
        self._last_read: Sighting | None = None
        self._fault: FrameFault | None = None

    # -- the one entry point -------------------------------------------------------------------------

    def feed(self, frame: Image | None, name: str) -> list[Outcome]:
        """One frame (BGR, uint8), or None for one that could not be decoded."""
        self.frames += 1
        fault = self._fault_of(frame)
        if fault is not None:
            first = fault[0] is not self._fault
            self._fault = fault[0]
            return [Dropped(name, *fault)] if first else []
        self._fault = None
        assert frame is not None
        small = shrink(frame)
        previous, self._previous = self._previous, small
        if previous is None:
            return []
        t = self.tuning
        moved = _differs(small, previous, t.moving_level)
        self._moved = [*self._moved[-(t.still_frames - 1):], moved] if t.still_frames > 1 else [moved]
        self._still = self._still + 1 if _count(moved) <= t.still_fraction * PIXELS else 0
        if self._empty is None:  # the zone at start, once still: what "empty" looks like
            if self._still >= t.still_frames:
                self._empty = small.copy()
                self._reference = small
            return []
        changed = _differs(small, self._empty, t.changed_level)
        self._changed = [*self._changed[-t.still_frames:], changed]
        if _count(changed) <= t.empty_fraction * PIXELS:
            if self._still >= t.still_frames:
                cv2.addWeighted(self._empty, 0.8, small, 0.2, 0, dst=self._empty)  # follow the lamp, slowly
            # A card seen but never made out, and taken away: say so (the player may not have looked).
            said = self._decide_unclear(small, name) if len(self._episode) >= 2 else []
            self._reference = small
            self._last_read = None  # the zone was emptied: the next card is a new card
            self._close()
            return said
        if len(self._moved) < t.still_frames or len(self._changed) <= t.still_frames:
            return []
        # What lies still: unlike the empty zone in the last frames, and not moved (nor next to a move: a
        # blurred edge) between them. Both, because the inside of a plain arm sweeping across shows no move.
        moving = np.bitwise_or.reduce(np.stack(self._moved), axis=0)
        covered = np.bitwise_and.reduce(np.stack(self._changed), axis=0)
        steady = covered & ~as_image(cv2.dilate(moving.astype(np.uint8), np.ones((3, 3), np.uint8))).astype(bool)
        if _count(steady) < t.steady_fraction * PIXELS:
            return []
        assert self._reference is not None
        unlike = _differs(small, self._reference, t.changed_level) & steady
        if _count(unlike) <= t.new_fraction * PIXELS:
            return []  # the scene already decided on: a card staying, a hand gone again
        return self._look(frame, small, steady, name)

    # -- looking at a still, new scene -----------------------------------------------------------------

    def _look(self, frame: Image, small: Image, steady: NDArray[np.bool_], name: str) -> list[Outcome]:
        t = self.tuning
        if self.deck is None:
            return []
        self.looked += 1
        sighting = self.deck.recognise(frame, self._mask(steady, frame.shape))
        if sighting.verdict is Verdict.NOTHING:
            # A whole zone still with no card in it (a resting hand, a shadow): let it be until it changes. While
            # something moves, a card may be landing whose pixels have not settled yet: keep looking.
            self._blank = self._blank + 1 if self._still >= t.still_frames else 0
            if self._blank >= t.blank_looks:
                self._reference = small
                self._blank = 0
            return []
        self._blank = 0
        if self._episode and not _same_place(self._episode[-1], sighting, t.same_place):
            self._episode = []  # another card, elsewhere: start counting again
        self._episode.append(sighting)
        votes = Counter(seen.kind for seen in self._episode if seen.verdict is Verdict.CARD and seen.kind)
        if votes:
            (kind, count), *others = votes.most_common()
            lead = count - (others[0][1] if others else 0)
            # Two frames agreeing, and ahead of any other kind by two (the frame a card lands in may be
            # blurred); or, alone, one frame sure by a wide margin.
            sure = not others and sighting.verdict is Verdict.CARD and sighting.margin >= t.sure_margin
            if (count >= t.votes and lead >= t.votes) or sure:
                chosen = next(seen for seen in reversed(self._episode) if seen.kind == kind)
                return self._decide_read(kind, chosen, small, name)
        if len(self._episode) < t.attempts:
            return []
        return self._decide_unclear(small, name)

    def _decide_read(self, kind: str, sighting: Sighting, small: Image, name: str) -> list[Outcome]:
        self._reference = small
        self._close()
        last = self._last_read
        self._last_read = sighting
        if last is not None and last.kind == kind and _same_place(last, sighting, self.tuning.same_place):
            return []  # the card already read, still there (nudged, uncovered)
        return [Read(kind, name, sighting)]

    def _decide_unclear(self, small: Image, name: str) -> list[Outcome]:
        episode = self._episode
        kinds = {seen.kind for seen in episode if seen.verdict is Verdict.CARD}
        self._reference = small
        self._close()
        if not episode:
            return []  # no card in it (a resting hand, a shadow): nothing to say
        last = self._last_read
        if last is not None and all(_same_place(last, seen, self.tuning.same_place) and
                                    last.kind in (seen.kind, seen.runner_up) for seen in episode):
            return []  # the card already read, half covered: nothing new
        ranked: dict[str, int] = {}
        for seen in episode:
            if seen.kind is not None:
                ranked[seen.kind] = ranked.get(seen.kind, 0) + 1
        order = sorted(ranked, key=ranked.__getitem__, reverse=True)
        reason = "two kinds" if len(kinds) > 1 else "not clear"
        return [Refusal(name, reason, order[0] if order else None, order[1] if len(order) > 1 else None)]

    def _close(self) -> None:
        self._episode = []
        self._blank = 0

    @staticmethod
    def _mask(steady: NDArray[np.bool_], shape: tuple[int, ...]) -> Image:
        """What lies still, at the frame's size, widened a little: the card (and a hand resting on it)."""
        mask = as_image(cv2.dilate(steady.astype(np.uint8) * 255, np.ones((7, 7), np.uint8)))
        return as_image(cv2.resize(mask, (shape[1], shape[0]), interpolation=cv2.INTER_NEAREST))

    # -- bad frames -------------------------------------------------------------------------------------

    def _fault_of(self, frame: Image | None) -> tuple[FrameFault, str] | None:
        if frame is None or not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3 \
                or frame.dtype != np.uint8:
            return FrameFault.UNREADABLE, "a frame that is not a colour picture"
        height, width = frame.shape[:2]
        if self.size is None:
            self.size = (width, height)
        if (width, height) != self.size:
            return FrameFault.SIZE, f"a frame of {width}x{height}, not {self.size[0]}x{self.size[1]}"
        probe = cv2.resize(frame, (80, 60), interpolation=cv2.INTER_AREA)
        mean, spread = float(probe.mean()), float(probe.std())
        if mean < 18 and spread < 8:
            return FrameFault.BLACK, "the camera sees black (lens covered, lamp off?)"
        if float((probe.min(axis=2) > 245).mean()) > 0.5:
            return FrameFault.BLINDING, "the picture is overexposed (a lamp or the sun in the lens?)"
        return None


def _count(mask: NDArray[np.bool_]) -> int:
    return int(np.count_nonzero(mask))


def shrink(frame: Image) -> Image:
    """The small copy the watcher and the enroller compare: SMALL_W x SMALL_H, colour, a little blurred."""
    return as_image(cv2.GaussianBlur(cv2.resize(frame, (SMALL_W, SMALL_H), interpolation=cv2.INTER_AREA), (3, 3), 0))


def _differs(a: Image, b: Image, level: int) -> NDArray[np.bool_]:
    """Where two small pictures differ by more than ``level`` in any channel."""
    diff = np.asarray(cv2.absdiff(a, b))
    return (diff.max(axis=2) if diff.ndim == 3 else diff) > level


def _share(a: Image, b: Image, level: int) -> float:
    """The share of pixels that differ by more than ``level`` (in any channel)."""
    return _count(_differs(a, b, level)) / float(a.shape[0] * a.shape[1])


def _same_place(a: Sighting, b: Sighting, tolerance: float) -> bool:
    if a.centre is None or b.centre is None:
        return False
    size = max(a.size, b.size, 1.0)
    return float(np.hypot(a.centre[0] - b.centre[0], a.centre[1] - b.centre[1])) <= tolerance * size
