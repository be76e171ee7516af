"""A play is an event in time: frames in, reads, refusals and the camera's status out. Pure: no I/O, no clock.

Every frame comes with its moment, in seconds (:meth:`PlayWatcher.feed`): every rule here is in seconds,
not frames, so a webcam that drops to 5 frames a second in dim light, or a Pi that cannot look at every
frame, reads the same plays as one at 15.

The watcher keeps a small copy of each frame (160 x 120, in colour: a teal card on a brown table may
have the table's lightness) and asks three questions of it, each a count of changed pixels, always
through :mod:`bornes.drivers.camera.light` (the other picture first brought to this one's light, so a
webcam's exposure, a lamp switched, a shadow, mains bands or a PWM lamp change nothing):

* **What lies still?** The pixels that differ from the empty zone (learnt at the start, following
  the lamp) and have not moved over the last 0.2 s. A card laid down lies still while the hand that
  brought it is still leaving; nothing that moves is looked at, and a card being brought in or taken
  away moves.
* **Is the zone empty?** Then the next card is a new card, even of the same kind.
* **Is what lies still new?** (against the last scene decided on): a card that stays, a hand that
  rests on it and goes, is not new.

Only a scene with something new lying still is shown to the recognizer
(:mod:`bornes.drivers.camera.vision`), and only the part of the frame that lies still. A card is
read when two looks at least 0.1 s apart agree on its kind and none says another (or one look is sure
by a wide margin). The table is never left to guess that the camera missed something:

* a card that is not clearly one kind after 0.5 s of looking is refused once ("show it again");
* so is anything card-shaped (its outline in the changed pixels) that has lain still for 1.5 s
  without being read, even where the recognizer could not place it (out of focus, dazzled);
* so is a card glimpsed and taken away before either: twice, the recognizer's matches placed a card at
  one place over what lay there (its quad filled by the changed pixels), with no kind's face to be
  seen on it (a small card out of focus, held by the hand until it is taken back);
* a scene with no card in it (a resting hand) says nothing, and after a second of it, it becomes the
  empty zone (a cup put down, a camera knocked to a new view).

Bad frames (black, blinding, another size) are dropped without touching any of this, each run of them
reported once. When the camera cannot see a steady picture for 2 s (bad frames, or a light changing in
patches faster than it can follow, a camera being knocked about), the watcher says so once
(:class:`Blind`), and once more when the picture has been steady for a second (:class:`Seeing`): the
table shows it as a reader status.
"""

from __future__ import annotations

import enum
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import TypeVar

import cv2
import numpy as np
from numpy.typing import NDArray

from bornes.drivers.camera.light import Picture, blend, compare, picture
from bornes.drivers.camera.vision import CARD_ASPECT, Deck, Image, Sighting, Verdict, as_image

T = TypeVar("T")
SMALL_W, SMALL_H = 160, 120
PIXELS = SMALL_W * SMALL_H
#: The rate a watcher assumes when it is not told each frame's moment (the camera's default).
DEFAULT_FPS = 10.0
#: Two moments closer than this are the same (frame times are sums of fractions).
EPSILON = 1e-6


class FrameFault(enum.Enum):
    """Why a frame was dropped."""

    BLACK = "black"
    BLINDING = "overexposed"
    SIZE = "size"
    UNREADABLE = "unreadable"


#: Why the camera cannot see: a run of bad frames (a FrameFault's value), or this.
UNSTEADY = "unsteady"


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


@dataclass(frozen=True)
class Blind:
    """The camera has not seen a steady picture for ``blind_s``: ``reason`` is ``unsteady`` (a light wavering
    beyond what it follows, a camera knocked about) or the fault of a run of bad frames (``black``…)."""

    frame: str
    reason: str
    detail: str


@dataclass(frozen=True)
class Seeing:
    """The picture has been steady again for ``seeing_s``: the camera sees (after a :class:`Blind`)."""

    frame: str


Outcome = Read | Refusal | Dropped | Blind | Seeing

_BLIND_DETAIL = {
    UNSTEADY: "no steady picture (a light wavering, the camera moving?)",
    FrameFault.BLACK.value: "the camera sees black (lens covered, lamp off?)",
    FrameFault.BLINDING.value: "the picture is overexposed (a lamp or the sun in the lens?)",
    FrameFault.SIZE.value: "the camera sends pictures of another size",
    FrameFault.UNREADABLE.value: "the camera sends pictures that cannot be read",
}


@dataclass(frozen=True)
class WatchTuning:
    """When a scene counts as still, new, empty, and how long each thing takes. Shares are of the 160 x 120
    copy's pixels; times are in seconds (the same at any frame rate)."""

    moving_level: int = 18  # grey levels: a pixel that changed by more (light taken out) has moved
    still_fraction: float = 0.015  # at most this share of pixels moving: the whole zone is still (a hand
    # holding a card trembles a little)
    still_s: float = 0.2  # how long a pixel must keep before it lies still
    changed_level: int = 22
    steady_fraction: float = 0.012  # at least this share of the zone lying still and unlike the empty zone: a
    # card may be there (a card a fifth of the picture's height is about 2 % of it, a third of one 7 %)
    new_fraction: float = 0.01  # share of the zone lying still unlike the last decided scene: something new
    empty_fraction: float = 0.008  # share of pixels unlike the empty zone: the zone is empty
    votes: int = 2  # looks that must agree on a kind...
    votes_s: float = 0.1  # ...at least this far apart (two frames in a row at 15 a second are nearly one)...
    sure_margin: float = 0.3  # ...unless one look's best kind wins by this much
    backed_looks: int = 3  # ...or one look is clear and this many looks in all name its kind, none another...
    backing_margin: float = 0.05  # ...each by this much at least
    attempts_s: float = 0.5  # looking at a card this long (three looks at least) with no kind clear: refused
    unread_s: float = 1.5  # a card-shaped thing lying still this long and not read: refused
    blank_s: float = 0.2  # a still scene seen this long with no card in it: let be
    relearn_s: float = 1.0  # ...and this long: it is what the empty zone looks like now (a cup, a knocked camera)
    same_place: float = 0.35  # a read this close to the last (in card diagonals), of its kind: the same card
    glimpse_fill: float = 0.35  # share of a placed quad over what lies still: a card glimpsed (a chance
    # placement on a hand or an arm spills over it)
    follow_s: float = 0.5  # the empty zone follows a changing light with this time constant
    blind_s: float = 2.0  # no steady picture for this long: the camera says it cannot see
    seeing_s: float = 1.0  # steady for this long again: it can
    light_blocks: float = 0.6  # share of the zone's blocks that changed from the last frame by a gain alone: fewer,
    # and the light cannot be followed (a hand moves in a part of the zone: on the generated scenes of the
    # room's light, 0.39 at the least, 0.96 at the median; in light changing in patches, 0.4 at the median)
    blind_frames: float = 0.6  # share of the frames of blind_s that were unsteady or bad: blind
    seeing_frames: float = 0.2  # at most this share of the frames of seeing_s unsteady or bad: seeing


DEFAULT_WATCH = WatchTuning()


@dataclass
class _Look:
    """One look at a still scene: when, and what the recognizer said."""

    at: float
    sighting: Sighting


class PlayWatcher:
    """Feed it every frame in order, each with its moment; it answers with what happened (mostly nothing)."""

    def __init__(self, deck: Deck | None, tuning: WatchTuning = DEFAULT_WATCH, *,
                 size: tuple[int, int] | None = None, fps: float = DEFAULT_FPS) -> None:
        self.deck = deck
        self.tuning = tuning
        self.size = size  # (width, height) every frame must have; None: the first good frame's
        self.fps = fps  # the moment of a frame fed without one: its number over this
        self.frames = 0
        self.looked = 0  # frames shown to the recognizer
        self.blind: str | None = None  # why the camera cannot see, while it cannot
        self._history: list[tuple[float, Picture]] = []  # the last frames (the newest last), still_s back
        self._changed: list[tuple[float, NDArray[np.bool_]]] = []  # where they differed from the empty zone
        self._still_since: float | None = None  # the whole zone has not moved since
        self._empty: Picture | None = None
        self._reference: Picture | None = None
        self._episode: list[_Look] = []
        self._glimpses: list[Sighting] = []  # placements of a card with no kind's face on it, since the zone emptied
        self._blank_since: float | None = None
        self._lying_since: float | None = None  # something card-shaped has lain still, new and unread, since
        self._let_be: float | None = None  # the scene decided on has had no card in it since
        self._last_read: Sighting | None = None
        self._card_height: float | None = None  # of the last card read, in pixels: is a card here small?
        self._fault: FrameFault | None = None
        self._steadiness: list[tuple[float, str | None]] = []  # (moment, why it was not steady, or None)
        self._last_moment: float | None = None

    # -- the one entry point -------------------------------------------------------------------------

    def feed(self, frame: Image | None, name: str, at: float | None = None) -> list[Outcome]:
        """One frame (BGR, uint8), or None for one that could not be decoded, taken at ``at`` seconds (any
        origin; by default its number over ``fps``). Moments must not go back."""
        moment = at if at is not None else self.frames / self.fps
        if self._last_moment is not None and moment < self._last_moment:
            moment = self._last_moment  # a clock that stepped back: the frame is as new as the last
        self._last_moment = moment
        self.frames += 1
        fault = self._fault_of(frame)
        if fault is not None:
            first = fault[0] is not self._fault
            self._fault = fault[0]
            said: list[Outcome] = [Dropped(name, *fault)] if first else []
            return said + self._steadiness_news(moment, fault[0].value, name)
        self._fault = None
        assert frame is not None
        now = picture(shrink(frame))
        unsteady, said = self._see(frame, now, moment, name)
        return self._steadiness_news(moment, UNSTEADY if unsteady else None, name) + said

    # -- what lies still, and is it new ------------------------------------------------------------------

    def _see(self, frame: Image, now: Picture, moment: float, name: str) -> tuple[bool, list[Outcome]]:
        """The three questions (see the module's doc); whether the picture was unsteady, and what was decided."""
        t = self.tuning
        previous = self._history[-1] if self._history else None
        window = _reaching(self._history, moment, t.still_s)
        self._history = [*window, (moment, now)]  # still_s back and one more: a few frames at any rate
        if previous is None:
            return False, []
        step = compare(previous[1], now, t.moving_level)
        moved = step.differs
        if window and window[0] is not previous:  # and against the frame still_s ago (at 15 a second, three back)
            moved = moved | compare(window[0][1], now, t.moving_level).differs
        if _count(moved) <= t.still_fraction * PIXELS:
            if self._still_since is None:
                self._still_since = previous[0]
        else:
            self._still_since = None
        still = self._still_since is not None and moment - self._still_since >= t.still_s - EPSILON
        unsteady = step.speaking < t.light_blocks
        if self._empty is None:  # the zone at start, once still: what "empty" looks like
            if still:
                self._empty = self._reference = now
            return unsteady, []
        changed = compare(self._empty, now, t.changed_level).differs
        self._changed = [*_reaching(self._changed, moment, t.still_s), (moment, changed)]
        if _count(changed) <= t.empty_fraction * PIXELS:
            if still:  # follow the lamp
                self._empty = blend(self._empty, now, 1 - math.exp(-(moment - previous[0]) / t.follow_s))
            # A card seen but never made out, and taken away: say so (the player may not have looked).
            said = self._decide_unclear(now, name) if len(self._episode) >= 2 or self._lying_since is not None \
                or self._glimpsed() else []
            self._reference = now
            self._last_read = None  # the zone was emptied: the next card is a new card
            self._close()
            return unsteady, said
        if moment - self._changed[0][0] < t.still_s - EPSILON:
            return unsteady, []  # not seen long enough yet
        # What lies still: unlike the empty zone in the last frames, and not moved (nor next to a move: a
        # blurred edge) between them. Both, because the inside of a plain arm sweeping across shows no move.
        covered = np.bitwise_and.reduce(np.stack([mask for _, mask in self._changed]), axis=0)
        steady = covered & ~as_image(cv2.dilate(moved.astype(np.uint8), np.ones((3, 3), np.uint8))).astype(bool)
        if _count(steady) < t.steady_fraction * PIXELS:
            return unsteady, []
        assert self._reference is not None
        unlike = compare(self._reference, now, t.changed_level).differs & steady
        if _count(unlike) <= t.new_fraction * PIXELS:
            if self._let_be is not None and still and moment - self._let_be >= t.relearn_s - EPSILON:
                self._empty = now  # a scene with no card in it, a while: the zone's new look (a cup, a knock)
                self._last_read = self._card_height = None  # (and the next card is a new card, of any size)
                self._let_be = None
            return unsteady, []  # the scene already decided on: a card staying, a hand gone again
        return unsteady, self._look(frame, now, steady, moment, still, name)

    # -- looking at a still, new scene -----------------------------------------------------------------

    def _look(self, frame: Image, now: Picture, steady: NDArray[np.bool_], moment: float, still: bool,
              name: str) -> list[Outcome]:
        t = self.tuning
        if self.deck is None:
            return []
        self.looked += 1
        sighting = self.deck.recognise(frame, self._mask(steady, frame.shape), card_height=self._card_height)
        if sighting.verdict is Verdict.NOTHING:
            glimpsed = self._glimpse(sighting, steady, frame.shape)
            return self._nothing_placed(sighting, now, steady, moment, still, name, glimpsed)
        self._blank_since = self._let_be = None
        if self._episode and not _same_place(self._episode[-1].sighting, sighting, t.same_place):
            self._episode = []  # another card, elsewhere: start counting again
        self._episode.append(_Look(moment, sighting))
        self._lay(moment)
        chosen = self._agreed()
        if chosen is not None:
            return self._decide_read(chosen, now, name)
        first, lying = self._episode[0].at, self._lying_since
        assert lying is not None
        if (len(self._episode) >= 3 and moment - first >= t.attempts_s - EPSILON) or \
                moment - lying >= t.unread_s - EPSILON:
            return self._decide_unclear(now, name)
        return []

    def _lay(self, moment: float) -> None:
        """Something card-like lies here: since the zone last stopped moving (when it was laid), or now."""
        if self._lying_since is None:
            self._lying_since = min(moment, self._still_since if self._still_since is not None else moment)

    def _agreed(self) -> Sighting | None:
        """The look a read is made from, when the looks so far agree on a kind; else None."""
        t = self.tuning
        votes = Counter(look.sighting.kind for look in self._episode
                        if look.sighting.verdict is Verdict.CARD and look.sighting.kind)
        if not votes:
            return None
        (kind, count), *others = votes.most_common()
        lead = count - (others[0][1] if others else 0)
        agreeing = [look for look in self._episode if look.sighting.kind == kind and
                    look.sighting.verdict is Verdict.CARD]
        span = agreeing[-1].at - agreeing[0].at
        latest = self._episode[-1].sighting
        # Two looks agreeing, a moment apart, and ahead of any other kind by two (the frame a card lands in
        # may be blurred); or, alone, one look sure by a wide margin.
        sure = not others and latest.verdict is Verdict.CARD and latest.margin >= t.sure_margin
        # Or one clear look backed by unclear ones that named the same kind by a margin, and none that named another:
        # a small card out of focus seldom gives two clear looks, but its unclear ones agree.
        named = [look for look in self._episode if look.sighting.kind is not None]
        backed = (not others and len(named) >= t.backed_looks and all(
            look.sighting.kind == kind and look.sighting.margin >= t.backing_margin for look in named)
            and named[-1].at - named[0].at >= t.votes_s - EPSILON)
        if (count >= t.votes and lead >= t.votes and span >= t.votes_s - EPSILON) or sure or backed:
            return next(look.sighting for look in reversed(self._episode) if look.sighting.kind == kind)
        return None

    def _glimpse(self, sighting: Sighting, steady: NDArray[np.bool_], shape: tuple[int, ...]) -> bool:
        """Keep ``sighting`` when the recognizer's matches placed a card (no kind's face on it) over what lies still,
        and not where the card last read lies; whether a card has now been glimpsed twice at one place."""
        if sighting.corners is None or sighting.inliers < (self.deck.tuning.min_inliers if self.deck else 0):
            return False
        if self._last_read is not None and _same_place(self._last_read, sighting, self.tuning.same_place):
            return False  # the card already read, a hand over it
        if _filled(sighting.corners, steady, shape) < self.tuning.glimpse_fill:
            return False
        self._glimpses.append(sighting)
        return self._glimpsed()

    def _glimpsed(self) -> bool:
        """Whether two glimpses since the zone emptied placed a card at one place."""
        latest = self._glimpses[-1] if self._glimpses else None
        return latest is not None and sum(_same_place(latest, seen, self.tuning.same_place)
                                          for seen in self._glimpses) >= self.tuning.votes

    def _nothing_placed(self, sighting: Sighting, now: Picture, steady: NDArray[np.bool_], moment: float,
                        still: bool, name: str, glimpsed: bool = False) -> list[Outcome]:
        """A still scene in which the recognizer placed no card: a resting hand, a shadow, a cup, or a card it
        cannot place. Something card-shaped is refused once it has lain there ``unread_s``; anything else
        is let be after ``blank_s``, and after ``relearn_s`` it is what the empty zone looks like now."""
        t = self.tuning
        if not still:  # something moves: a card may be landing whose pixels have not settled yet
            self._blank_since = None
            return []
        placed = sighting.corners is not None and sighting.inliers >= self.deck_least  # matches agree on a card there
        if placed or glimpsed or self._episode or _card_shaped(steady):  # a card placed but no kind's face (a hand,
            # glare on it), placed twice on what lies still, a card seen a moment ago (a hand over it now), or a
            # card's outline
            self._lay(moment)
            assert self._lying_since is not None
            if moment - self._lying_since >= t.unread_s - EPSILON:
                return self._decide_unclear(now, name)
            return []
        if self._blank_since is None:
            self._blank_since = moment
        if moment - self._blank_since >= t.blank_s - EPSILON:
            self._reference = now  # let it be until it changes
            self._let_be = self._blank_since
        return []

    def _decide_read(self, sighting: Sighting, now: Picture, name: str) -> list[Outcome]:
        self._reference = now
        self._close()
        last = self._last_read
        self._last_read = sighting
        kind = sighting.kind
        assert kind is not None
        self._card_height = sighting.height
        if last is not None and last.kind == kind and _same_place(last, sighting, self.tuning.same_place):
            return []  # the card already read, still there (nudged, uncovered)
        return [Read(kind, name, sighting)]

    def _decide_unclear(self, now: Picture, name: str) -> list[Outcome]:
        episode = [look.sighting for look in self._episode]
        outline = self._lying_since is not None or self._glimpsed()
        self._reference = now
        self._close()
        if not episode and not outline:
            return []  # no card in it (a resting hand, a shadow): nothing to say
        last = self._last_read
        if last is not None and episode and all(_same_place(last, seen, self.tuning.same_place) and
                                                last.kind in (seen.kind, seen.runner_up) for seen in episode):
            return []  # the card already read, half covered: nothing new
        ranked: Counter[str] = Counter(seen.kind for seen in episode if seen.kind is not None)
        order = [kind for kind, _ in ranked.most_common()]
        kinds = {seen.kind for seen in episode if seen.verdict is Verdict.CARD}
        reason = "two kinds" if len(kinds) > 1 else "not clear" if episode else "not placed"
        return [Refusal(name, reason, order[0] if order else None, order[1] if len(order) > 1 else None)]

    def _close(self) -> None:
        self._episode = []
        self._glimpses = []
        self._blank_since = self._lying_since = self._let_be = None

    @property
    def deck_least(self) -> int:
        """The matches the recognizer reads a kind from at the least: as many agreeing on a placement are a card."""
        return self.deck.tuning.least_inliers if self.deck is not None else 0

    @staticmethod
    def _mask(steady: NDArray[np.bool_], shape: tuple[int, ...]) -> Image:
        """What lies still, at the frame's size, widened a little: the card (and a hand resting on it)."""
        mask = as_image(cv2.dilate(steady.astype(np.uint8) * 255, np.ones((7, 7), np.uint8)))
        return as_image(cv2.resize(mask, (shape[1], shape[0]), interpolation=cv2.INTER_NEAREST))

    # -- a steady picture, or not ----------------------------------------------------------------------

    def _steadiness_news(self, moment: float, trouble: str | None, name: str) -> list[Outcome]:
        """Blind when most frames of the last ``blind_s`` were unsteady or bad; seeing again when few of the last
        ``seeing_s`` were. Shares of frames over a span of time: the same at any frame rate."""
        t = self.tuning
        self._steadiness = [*((at, why) for at, why in self._steadiness if moment - at <= t.blind_s + EPSILON),
                            (moment, trouble)]
        if self.blind is None:
            span = moment - self._steadiness[0][0]
            troubled = [why for _, why in self._steadiness if why is not None]
            if span >= t.blind_s - EPSILON and len(troubled) >= t.blind_frames * len(self._steadiness):
                reason = Counter(troubled[-max(1, len(troubled) // 4):]).most_common(1)[0][0]  # the latest trouble
                self.blind = reason
                return [Blind(name, reason, _BLIND_DETAIL.get(reason, reason))]
            return []
        recent = [why for at, why in self._steadiness if moment - at <= t.seeing_s + EPSILON]
        seen_for = moment - next(at for at, _ in self._steadiness if moment - at <= t.seeing_s + EPSILON)
        if seen_for >= t.seeing_s - EPSILON and sum(why is not None for why in recent) <= t.seeing_frames * len(recent):
            self.blind = None
            return [Seeing(name)]
        return []

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
            return FrameFault.BLACK, _BLIND_DETAIL[FrameFault.BLACK.value]
        if float((probe.min(axis=2) > 245).mean()) > 0.5:
            return FrameFault.BLINDING, _BLIND_DETAIL[FrameFault.BLINDING.value]
        return None


def _reaching(timed: list[tuple[float, T]], moment: float, span: float) -> list[tuple[float, T]]:
    """The items of the last ``span`` seconds before ``moment``, and the newest one older (so that they reach
    ``span`` back at any frame rate: at 7.5 frames a second, 0.2 s back is the frame before the last)."""
    inside = [item for item in timed if moment - item[0] <= span + EPSILON]
    if inside and moment - inside[0][0] >= span - EPSILON:
        return inside
    older = [item for item in timed if moment - item[0] > span + EPSILON]
    return [*older[-1:], *inside]


def _count(mask: NDArray[np.bool_]) -> int:
    return int(np.count_nonzero(mask))


def shrink(frame: Image) -> Image:
    """The small copy the watcher and the enroller compare: SMALL_W x SMALL_H, colour, a little blurred."""
    return as_image(cv2.GaussianBlur(cv2.resize(frame, (SMALL_W, SMALL_H), interpolation=cv2.INTER_AREA), (3, 3), 0))


def _card_shaped(steady: NDArray[np.bool_]) -> bool:
    """Whether what lies still has a card's outline: a filled rectangle of a card's sides, at least a fifth of
    the picture's height (a hand has fingers and an arm to the edge; a shadow, soft edges that do not lie
    still). The outline is what light cannot change."""
    mask = as_image(cv2.morphologyEx(steady.astype(np.uint8) * 255, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8)))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    smallest = (SMALL_H / 5) * (SMALL_H / 5 * CARD_ASPECT) * 0.7
    for contour in contours:
        area = cv2.contourArea(contour)
        if area < smallest:
            continue
        (_, _), (width, height), _ = cv2.minAreaRect(contour)
        if width < 1 or height < 1:
            continue
        if area / (width * height) >= 0.8 and abs(min(width, height) / max(width, height) - CARD_ASPECT) <= 0.15:
            return True
    return False


def _filled(corners: NDArray[np.float32], steady: NDArray[np.bool_], shape: tuple[int, ...]) -> float:
    """The share of the quad ``corners`` (in the frame of ``shape``) over which ``steady`` (the small copy) is set."""
    scale = np.array([SMALL_W / shape[1], SMALL_H / shape[0]], np.float32)
    quad = np.zeros((SMALL_H, SMALL_W), np.uint8)
    cv2.fillConvexPoly(quad, np.round(corners * scale).astype(np.int32), 1)
    inside = int(np.count_nonzero(quad))
    return _count(steady & quad.astype(bool)) / inside if inside else 0.0


def _same_place(a: Sighting, b: Sighting, tolerance: float) -> bool:
    if a.centre is None or b.centre is None:
        return False
    size = max(a.size, b.size, 1.0)
    return float(np.hypot(a.centre[0] - b.centre[0], a.centre[1] - b.centre[1])) <= tolerance * size
