"""Which kind of card lies in a frame: pure functions and values, no I/O, no clock.

Two steps, each doing what it is good at:

1. **Where is the card?** ORB corners of the frame (only inside the part that changed) are matched
   with the corners of every enrolment shot. For the kinds with the most distinctive matches, a
   RANSAC fit of a *similarity* (turn, scale, shift: what a card lying on a table under a camera
   looking down does) finds the matches that agree; a homography through those alone adds the
   small tilt of a camera not straight above. Fitting the similarity first matters: a face with a
   repeated pattern (a tyre's tread, stripes) gives many matches that fit a folded homography.
2. **Which kind is it?** The frame, seen through that fit, is a flat picture of the face. It is
   compared with every kind's enrolment faces on a grid of cells, each cell by two things: its
   pattern (lightness and colour, normalised, so a lamp's gradient or a dimmer room change nothing)
   and its colour (chromaticity, which a lamp's brightness does not change: the French 100 and 200
   differ by their colour more than by their pattern). The worst cells of each comparison are left
   out (a thumb, a glare spot). The best kind must beat the second by a margin, or the answer is
   "unsure": the table asks to show the card again rather than guess.

Kinds are the strings of the card codes (``D25`` … ``RIGHTOFWAY``); nothing here knows a rule.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
from numpy.typing import NDArray

#: A picture: BGR (height x width x 3) or grey (height x width), 8 bits.
Image = NDArray[np.uint8]
#: Points in a picture, N x 2, in pixels.
Points = NDArray[np.float32]

#: The face, flattened, for features (about the size a card has in a 640 x 480 frame) and for comparing.
FACE_W, FACE_H = 142, 220
#: The look a face is compared by: LOOK_W x LOOK_H pixels in cells of LOOK_CELL.
LOOK_W, LOOK_H, LOOK_CELL = 72, 108, 12
LOOK_CELLS = (LOOK_W // LOOK_CELL) * (LOOK_H // LOOK_CELL)
#: A cell this flat (spread in grey levels) is compared as flat: noise in it is not a pattern.
LOOK_FLOOR = 6.0
#: BGR to lightness, red-green and yellow-blue: the opponent axes, as columns.
OPPONENT = np.array([[1 / 3, 0.0, -0.5], [1 / 3, -0.5, 0.25], [1 / 3, 0.5, 0.25]], np.float32)
#: The corners of a face in its own picture: top-left, top-right, bottom-right, bottom-left.
FACE_CORNERS: Points = np.array([(0, 0), (FACE_W - 1, 0), (FACE_W - 1, FACE_H - 1), (0, FACE_H - 1)], np.float32)
CARD_ASPECT = 56 / 87


def as_image(picture: cv2.typing.MatLike) -> Image:
    """An OpenCV result as the 8-bit picture it is (no copy)."""
    return np.asarray(picture, dtype=np.uint8)


def as_points(points: cv2.typing.MatLike | Sequence[Sequence[float]]) -> Points:
    """Any N x 2 (or N x 1 x 2) coordinates as float32 N x 2 (no copy when they already are)."""
    return np.asarray(points, dtype=np.float32).reshape(-1, 2)


class Verdict(enum.Enum):
    """What one frame says."""

    CARD = "card"  # one kind, clearly
    UNSURE = "unsure"  # a card, but not clearly one kind
    NOTHING = "nothing"  # no card found (a hand, the table, a blur)


@dataclass(frozen=True)
class Sighting:
    """One frame's answer: the verdict, the best kind and by how much it won, where the card lies."""

    verdict: Verdict
    kind: str | None = None
    score: float = 0.0  # appearance similarity of the best kind, about 0..1
    margin: float = 0.0  # best minus second best
    runner_up: str | None = None
    inliers: int = 0
    corners: Points | None = field(default=None, compare=False)  # 4 x 2, the face's corners in the frame
    fits: tuple[tuple[str, int], ...] = ()  # the kinds fitted, and their inliers
    ranking: tuple[tuple[str, float], ...] = ()  # every kind by its score, best first
    outlined: bool = False  # placed by the card's outline, no matches (a small card out of focus)

    @property
    def centre(self) -> tuple[float, float] | None:
        if self.corners is None:
            return None
        x, y = self.corners.mean(axis=0)
        return float(x), float(y)

    @property
    def size(self) -> float:
        """The card's diagonal in pixels (0 when unknown)."""
        if self.corners is None:
            return 0.0
        return float(np.linalg.norm(self.corners[0] - self.corners[2]))

    @property
    def height(self) -> float:
        """The card's height in pixels, along its long side (0 when unknown)."""
        if self.corners is None:
            return 0.0
        return _height(self.corners)


@dataclass(frozen=True)
class Tuning:
    """The recognizer's thresholds, in one place (docs/camera.md says how they were chosen)."""

    features: int = 300  # ORB corners looked for in the changed part of a frame
    face_features: int = 150  # per enrolment shot
    levels: int = 4  # ORB pyramid levels (scale 1.25 each: a card 0.5 to 2 times its enrolled size)
    enlarged: int = 2  # more levels, of the frame enlarged (1.25 each): a card a fifth of the picture's height
    # The camera's cards known to be tall (the last one read was at least ``tall`` pixels: a mount does not move
    # between plays), the enlarged levels are left out: they took the larger share of ``features`` at scales no
    # face is matched at, and matching costs by the corner (at 170 px the frame's own scale meets the faces'
    # smallest, 113 px, two levels down). Known to be small, the two smallest levels are (a 170 px card is
    # smaller there than any face), and the levels kept have as many corners as before.
    tall: float = 170.0
    tall_features: int = 200
    small_features: int = 240
    ratio: float = 0.8  # Lowe's ratio test, against the best match of another kind
    max_distance: int = 70  # Hamming distance of a usable match (of 256 bits)
    candidates: int = 3  # kinds whose matches are fitted
    rival_fit: float = 0.5  # a placement with this share of the best one's inliers is looked at too
    min_inliers: int = 10  # matches that must agree on a placement
    least_inliers: int = 15  # a kind is never read from fewer (chance matches on a bare arm reached 24)
    read_inliers: int = 25  # below this many, a placement is weak evidence (the card has barely landed, or is
    few_matches: float = 0.15  # covered) and a kind read from it needs up to this much more margin
    outline_margin: float = 0.1  # a kind read where only the card's outline placed it needs this much more margin
    similar_px: float = 8.0  # RANSAC threshold of the similarity fit (a tilted card strays from it by a few px)
    scales: tuple[float, float] = (0.4, 2.5)  # the card's height in the frame over the face's (80 to 550 px)
    hypotheses: int = 300  # pairs of matches tried
    reprojection: float = 4.0  # pixels, the homography through the similarity's inliers
    card_score: float = 0.42  # below this likeness to every kind, what was placed is no card (a hand)
    min_score: float = 0.45  # the score a kind needs to be read...
    strong_score: float = 0.6  # ...and below this, its margin must be wider by the shortfall
    min_margin: float = 0.1  # by how much the best kind must beat the second (at a strong score)
    fit_weight: float = 0.1  # the weight of a kind's own inliers (as a share of the best fit's) in its score
    colour_weight: float = 0.5  # a cell's score: pattern correlation and colour likeness, this much colour
    colour_scale: float = 0.08  # chromaticity distance at which two cells' colours count as unlike
    trim: float = 0.3  # the share of cells left out: those the likeliest kinds explain worst (a finger, glare)
    explainers: int = 3  # the likeliest kinds, whose best cells say which cells are seen


DEFAULT_TUNING = Tuning()


# -- faces -----------------------------------------------------------------------------------------


def order_corners(points: NDArray[np.floating] | Points) -> Points:
    """Four corners as top-left, top-right, bottom-right, bottom-left of a *portrait* card."""
    pts = as_points(points)
    centre = pts.mean(axis=0)
    angles = np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0])
    pts = pts[np.argsort(angles)]  # clockwise in image coordinates, from the left-most angle
    # Start where the first side is a short one, so the face comes out portrait.
    first, second = np.linalg.norm(pts[0] - pts[1]), np.linalg.norm(pts[1] - pts[2])
    if first > second:
        pts = np.roll(pts, -1, axis=0)
    return pts


def flatten(image: Image, corners: Points, size: tuple[int, int] = (FACE_W, FACE_H)) -> Image:
    """The face seen straight on, ``size`` pixels, from its four corners in ``image``."""
    w, h = size
    target = np.array([(0, 0), (w - 1, 0), (w - 1, h - 1), (0, h - 1)], np.float32)
    matrix = cv2.getPerspectiveTransform(as_points(corners), target)
    return as_image(cv2.warpPerspective(image, matrix, (w, h), flags=cv2.INTER_AREA))


def find_card(image: Image, background: Image | None = None) -> Points | None:
    """The corners of the one card in an enrolment picture, or None.

    With the empty zone (``background``) the card is what changed; without it, the largest
    four-sided outline; a picture that is all card (a scan) is taken whole.
    """
    h, w = image.shape[:2]
    gray = as_image(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)) if image.ndim == 3 else image
    masks: list[Image] = []
    if background is not None and background.shape == image.shape:
        diff = as_image(cv2.absdiff(image, background))
        diff = diff.max(axis=2) if diff.ndim == 3 else diff
        _, changed = cv2.threshold(cv2.GaussianBlur(diff, (5, 5), 0), 30, 255, cv2.THRESH_BINARY)
        masks.append(as_image(cv2.morphologyEx(changed, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))))
    for mask in [*masks, *_edge_masks(image, gray)]:
        found = _largest_quad(mask, w * h)
        if found is not None:
            return order_corners(found)
    aspect = min(w, h) / max(w, h)
    if abs(aspect - CARD_ASPECT) < 0.08:  # a scan or a crop: the picture is the card
        return order_corners(np.array([(0, 0), (w - 1, 0), (w - 1, h - 1), (0, h - 1)], np.float32))
    return None


def _edge_masks(image: Image, gray: Image) -> Iterable[Image]:
    """Outlines in ``image``, strongest first: lightness edges at three contrasts (a card darker or lighter
    than the table by a little), then colour edges (a card of the table's lightness but not its colour)."""
    smooth = cv2.GaussianBlur(gray, (5, 5), 0)
    for low, high in ((40, 120), (20, 60), (10, 30)):
        yield as_image(cv2.dilate(cv2.Canny(smooth, low, high), np.ones((3, 3), np.uint8)))
    if image.ndim == 3:
        lab = as_image(cv2.cvtColor(image, cv2.COLOR_BGR2LAB))
        for channel in (1, 2):
            edges = cv2.Canny(cv2.GaussianBlur(lab[..., channel], (5, 5), 0), 8, 24)
            yield as_image(cv2.dilate(edges, np.ones((3, 3), np.uint8)))


def outline(frame: Image, changed: Image) -> Points | None:
    """The corners of a card-shaped outline inside the part of ``frame`` that ``changed`` marks, or None.

    What ORB cannot do, an outline can: a small card out of focus has no corners left to match, but its
    edge against the table stays sharp enough to find (light cannot change a card's outline). Only edges
    inside the changed part count, so the table's grain does not join the card's edge."""
    x, y, w, h = cv2.boundingRect(changed)
    if w < 20 or h < 20:
        return None
    part, inside = frame[y:y + h, x:x + w], changed[y:y + h, x:x + w] > 0
    gray = as_image(cv2.cvtColor(part, cv2.COLOR_BGR2GRAY))
    for mask in _edge_masks(part, gray):
        mask[~inside] = 0
        found = _largest_quad(mask, w * h)
        if found is not None:
            return order_corners(found + np.array([x, y], np.float32))
    return None


def _largest_quad(mask: Image, area: float) -> Points | None:
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    best: Points | None = None
    best_area = area * 0.03
    for contour in contours:
        hull = cv2.convexHull(contour)
        hull_area = cv2.contourArea(hull)
        if hull_area <= best_area or hull_area > area * 0.95:
            continue
        rect = cv2.minAreaRect(hull)
        (_, _), (rw, rh), _ = rect
        if rw < 1 or rh < 1:
            continue
        if hull_area / (rw * rh) < 0.85 or abs(min(rw, rh) / max(rw, rh) - CARD_ASPECT) > 0.12:
            continue  # not a card-shaped rectangle (a hand, two cards, a shadow)
        quad = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True)
        best = as_points(quad) if len(quad) == 4 else as_points(cv2.boxPoints(rect))
        best_area = hull_area
    return best


# -- looks: what faces are compared by ----------------------------------------------------------------


@dataclass(frozen=True)
class Look:
    """A face as a grid of cells: each cell's pattern (LOOK_CELL² pixels of lightness and two colour axes,
    zero mean, unit spread per channel) and its colour (mean chromaticity r, g of the cell: a lamp's
    brightness cancels out)."""

    pattern: NDArray[np.float32]  # LOOK_CELLS x (LOOK_CELL * LOOK_CELL * 3)
    colour: NDArray[np.float32]  # LOOK_CELLS x 2


def look(face: Image) -> Look:
    """The look of a flat face (any size: it is brought to LOOK_W x LOOK_H)."""
    small = as_image(cv2.resize(cv2.GaussianBlur(face, (0, 0), 2.0), (LOOK_W, LOOK_H), interpolation=cv2.INTER_AREA))
    rows, columns = LOOK_H // LOOK_CELL, LOOK_W // LOOK_CELL
    opponent = small.astype(np.float32) @ OPPONENT  # lightness and two colour axes, linear (Lab's tables cost 5 MB)
    cells = opponent.reshape(rows, LOOK_CELL, columns, LOOK_CELL, 3).transpose(0, 2, 1, 3, 4).reshape(LOOK_CELLS, -1, 3)
    centred = cells - cells.mean(axis=1, keepdims=True)
    spread = np.sqrt((centred**2).mean(axis=1, keepdims=True))
    pattern = (centred / np.maximum(spread, LOOK_FLOOR)).reshape(LOOK_CELLS, -1)
    bgr = small.astype(np.float32).reshape(rows, LOOK_CELL, columns, LOOK_CELL, 3).mean(axis=(1, 3))
    total = np.maximum(bgr.sum(axis=2, keepdims=True), 30.0)  # a black cell has no colour to speak of
    colour = (bgr[..., 1:] / total).reshape(LOOK_CELLS, 2)  # g and r shares (b = 1 - both)
    return Look(np.ascontiguousarray(pattern, np.float32), np.ascontiguousarray(colour, np.float32))


def cell_scores(patterns: NDArray[np.float32], colours: NDArray[np.float32], seen: Look,
                tuning: Tuning = DEFAULT_TUNING) -> NDArray[np.float32]:
    """Every template's likeness to ``seen``, cell by cell (templates x LOOK_CELLS), about -1..1."""
    correlation = np.einsum("tck,ck->tc", patterns, seen.pattern) / patterns.shape[2]
    distance = np.sqrt(((colours - seen.colour[None]) ** 2).sum(axis=2))
    alike = 1.0 - np.minimum(distance / tuning.colour_scale, 2.0)
    w = tuning.colour_weight
    return np.asarray((1 - w) * correlation + w * alike, np.float32)


def trimmed_mean(scores: NDArray[np.float32], trim: float) -> NDArray[np.float32]:
    """Each row's mean with its worst ``trim`` share of cells left out."""
    keep = max(1, int(scores.shape[1] * (1 - trim)))
    best = -np.partition(-scores, keep - 1, axis=1)[:, :keep]
    return np.asarray(best.mean(axis=1), np.float32)


# -- templates -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Template:
    """One enrolment shot of one kind: its flat face, and the face's ORB corners."""

    kind: str
    face: Image  # FACE_H x FACE_W x 3, uint8 (BGR)
    points: Points  # N x 2, in face coordinates
    descriptors: Image  # N x 32 uint8


_ORB_CACHE: dict[tuple[int, int, int, int], cv2.ORB] = {}


def orb(features: int, fast: int = 10, levels: int = 4, first: int = 0) -> cv2.ORB:
    """ORB at scale steps of 1.25: ``levels`` of them, the picture itself at level ``first`` (the levels before it
    are the picture enlarged)."""
    key = (features, fast, levels + first, first)
    if key not in _ORB_CACHE:
        _ORB_CACHE[key] = cv2.ORB.create(nfeatures=features, scaleFactor=1.25, nlevels=levels + first,
                                         edgeThreshold=15, firstLevel=first, patchSize=21, fastThreshold=fast)
    return _ORB_CACHE[key]


def make_template(kind: str, face: Image, tuning: Tuning = DEFAULT_TUNING) -> Template:
    """A template from a flat face (any size: it is brought to FACE_W x FACE_H)."""
    flat = as_image(cv2.resize(face, (FACE_W, FACE_H), interpolation=cv2.INTER_AREA))
    gray = cv2.cvtColor(flat, cv2.COLOR_BGR2GRAY)
    keypoints, descriptors = orb(tuning.face_features, 8, tuning.levels).detectAndCompute(gray, None)
    if descriptors is None or not len(keypoints):
        return Template(kind, flat, np.zeros((0, 2), np.float32), np.zeros((0, 32), np.uint8))
    return Template(kind, flat, as_points([k.pt for k in keypoints]), as_image(descriptors))


def turned(template: Template) -> Template:
    """The same shot upside down (a card has no up on the table)."""
    face = np.ascontiguousarray(template.face[::-1, ::-1])
    points = np.array([FACE_W - 1, FACE_H - 1], np.float32) - template.points
    return Template(template.kind, face, points, template.descriptors)


def oriented_alike(templates: Iterable[Template], tuning: Tuning = DEFAULT_TUNING) -> list[Template]:
    """Each kind's shots turned to lie the same way up as its first, so the matches of all its shots agree
    on one placement (an owner lays a card either way up)."""
    first: dict[str, Look] = {}
    out: list[Template] = []
    for template in templates:
        seen = look(template.face)
        if template.kind not in first:
            first[template.kind] = seen
            out.append(template)
            continue
        reference = first[template.kind]
        candidates = [template, turned(template)]
        looks = [seen, look(candidates[1].face)]
        scores = [float(trimmed_mean(cell_scores(reference.pattern[None], reference.colour[None], x, tuning),
                                     tuning.trim)[0]) for x in looks]
        out.append(candidates[int(np.argmax(scores))])
    return out


class Deck:
    """Every kind's templates, ready to match: the one value the recognizer needs."""

    def __init__(self, templates: Iterable[Template], tuning: Tuning = DEFAULT_TUNING) -> None:
        self.tuning = tuning
        templates = oriented_alike((t for t in templates if len(t.descriptors)), tuning)
        if not templates:
            raise ValueError("no usable template: every enrolment shot was blank")
        self.kinds: list[str] = sorted({t.kind for t in templates})
        # Only what matching and comparing need is kept (not the faces): the camera reader lives on a Pi.
        owner = np.concatenate([np.full(len(t.descriptors), i, np.int32) for i, t in enumerate(templates)])
        self.descriptors = np.concatenate([t.descriptors for t in templates])
        self.points: Points = np.concatenate([t.points for t in templates])
        self.kind_index: NDArray[np.int32] = np.array([self.kinds.index(templates[i].kind) for i in owner], np.int32)
        looks = [look(t.face) for t in templates]
        self.patterns = np.stack([x.pattern for x in looks])
        self.colours = np.stack([x.colour for x in looks])
        self.look_kinds = np.array([self.kinds.index(t.kind) for t in templates], np.int32)
        self._matcher = cv2.BFMatcher(cv2.NORM_HAMMING)
        self._matcher.add([self.descriptors])
        self._matcher.train()

    # -- the two steps ---------------------------------------------------------------------------

    def recognise(self, frame: Image, changed: Image | None = None, *, card_height: float | None = None) -> Sighting:
        """One frame (BGR). ``changed``: a mask of the frame's size, non-zero where the scene changed (the
        table's own texture gives corners too, which only cost time and mislead). ``card_height``: how tall, in
        pixels, this camera's cards were seen last (None: unknown), for the scales worth looking at."""
        found = self._by_matches(frame, changed, card_height)
        if found.verdict is Verdict.CARD or changed is None:
            return found
        corners = outline(frame, changed)
        if corners is None:
            return found
        if found.kind is not None and found.corners is not None:
            # The matches named a kind but not clearly, and placed the card near this outline: their kind, judged
            # on the face where the outline puts it (a fit on part of a blurred card is a few per cent off).
            if not _near(found.corners, corners):
                return found
            refined = self._judge(self.appearance(frame, corners), corners, found.inliers, found.fits, {found.kind})
            return refined if refined.kind == found.kind and refined.verdict is Verdict.CARD else found
        outlined = self._judge(self.appearance(frame, corners), corners, 0, (), set(), outlined=True)
        return outlined if outlined.verdict is not Verdict.NOTHING or found.corners is None else found

    def _by_matches(self, frame: Image, changed: Image | None, card_height: float | None) -> Sighting:
        """The card as ORB's matches place it, and its kind."""
        tuning = self.tuning
        x0, y0 = 0, 0
        gray = as_image(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
        part, mask = gray, None
        if changed is not None:
            x, y, w, h = cv2.boundingRect(changed)
            if w < 40 or h < 40:
                return Sighting(Verdict.NOTHING)
            x0, y0 = x, y
            part, mask = gray[y:y + h, x:x + w], changed[y:y + h, x:x + w]
        keypoints, descriptors = self._finder(card_height).detectAndCompute(part, mask)
        if descriptors is None or len(keypoints) < tuning.min_inliers:
            return Sighting(Verdict.NOTHING)
        points = as_points([k.pt for k in keypoints]) + np.array([x0, y0], np.float32)  # in the frame's coordinates
        fits, more = self._locate(points, as_image(descriptors))
        if not fits:
            return Sighting(Verdict.NOTHING)
        counts = tuple((kind, count) for kind, (_, count) in fits.items())
        most = max(count for _, count in counts)
        # Kinds alike in parts may place the card differently (a hand over the rest): each distinct placement
        # backed by enough matches is looked at, and the one whose face a kind explains best is the card.
        placements: list[tuple[Points, int]] = []
        for corners, inliers in sorted(fits.values(), key=lambda fit: -fit[1]):
            if inliers < tuning.rival_fit * most:
                break
            if not any(_same_place(corners, other) for other, _ in placements):
                placements.append((corners, inliers))
        sightings = [self._judge(self.appearance(frame, corners), corners, inliers, counts,
                                 {kind for kind, (where, _) in fits.items() if _same_place(where, corners)}, more)
                     for corners, inliers in placements]
        chosen = max(sightings, key=lambda sighting: sighting.score)
        for other in sightings:  # another placement's best kind is a rival too
            if other is not chosen and other.kind not in (None, chosen.kind) and chosen.score - other.score < \
                    chosen.margin:
                chosen = self._rivalled(chosen, other.kind, other.score)
        return chosen

    def _finder(self, card_height: float | None) -> cv2.ORB:
        """ORB at the scales a card of ``card_height`` pixels is matched at (every scale when unknown)."""
        tuning = self.tuning
        if card_height is None:
            return orb(tuning.features, 10, tuning.levels, tuning.enlarged)
        if card_height >= tuning.tall:
            return orb(tuning.tall_features, 10, tuning.levels)
        return orb(tuning.small_features, 10, tuning.levels - tuning.enlarged, tuning.enlarged)

    def _locate(self, points: Points, descriptors: Image
                ) -> tuple[dict[str, tuple[Points, int]], Callable[[str], tuple[Points, int] | None]]:
        """The card's corners in the frame as each likely kind's matches place it (one search of the deck).

        Every shot of a kind is a flat face in the same coordinates, turned the same way up, so the
        matches of all its shots fit one placement together."""
        tuning = self.tuning
        votes: dict[int, float] = {}
        pooled: dict[int, tuple[list[int], list[int]]] = {}  # kind: (template point, frame point) indices
        kind_of = self.kind_index
        for candidates in self._matcher.knnMatch(descriptors, k=3):
            if not candidates or candidates[0].distance > tuning.max_distance:
                continue
            first = candidates[0]
            kind = int(kind_of[first.trainIdx])
            other = next((m for m in candidates[1:] if kind_of[m.trainIdx] != kind), None)
            distinct = other is None or first.distance < tuning.ratio * other.distance
            # Shared by several kinds (a border, a title band): good for placing the card, not for naming it.
            votes[kind] = votes.get(kind, 0.0) + (1.0 if distinct else 0.2)
            for match in candidates:
                if match.distance > tuning.max_distance or (match is not first and kind_of[match.trainIdx] == kind
                                                            and match.distance > first.distance * 1.05):
                    continue
                source, target = pooled.setdefault(int(kind_of[match.trainIdx]), ([], []))
                source.append(match.trainIdx)
                target.append(match.queryIdx)
        fits: dict[str, tuple[Points, int]] = {}
        tried: dict[str, tuple[Points, int] | None] = {}

        def fit(name: str) -> tuple[Points, int] | None:
            """The placement ``name``'s own matches give (once a frame), or None."""
            if name not in tried:
                source, target = pooled.get(self.kinds.index(name), ([], []))
                tried[name] = self._fit(self.points[source], points[target]) \
                    if len(source) >= tuning.min_inliers else None
            return tried[name]

        for kind in sorted(votes, key=votes.__getitem__, reverse=True)[: tuning.candidates]:
            found = fit(self.kinds[kind])
            if found is not None:
                fits[self.kinds[kind]] = found
        return fits, fit

    def _fit(self, source: Points, target: Points) -> tuple[Points, int] | None:
        """Face-to-frame placement: a similarity by RANSAC, then a homography through its inliers alone."""
        tuning = self.tuning
        found = fit_similarity(source, target, tuning.similar_px, tuning.scales, tuning.hypotheses)
        if found is None:
            return None
        similarity, agree = found
        inliers = int(agree.sum())
        if inliers < tuning.min_inliers:
            return None
        flat_corners = as_points(cv2.transform(FACE_CORNERS.reshape(-1, 1, 2), similarity))
        if not plausible_card(flat_corners):
            return None
        corners = flat_corners
        if inliers >= 8:
            matrix = fit_homography(source[agree], target[agree], tuning.reprojection)
            if matrix is not None:
                tilted = project(matrix, FACE_CORNERS)
                stray = float(np.abs(tilted - flat_corners).max())
                height = float(np.linalg.norm(flat_corners[0] - flat_corners[3]))
                if plausible_card(tilted) and stray <= 0.15 * height:  # a tilt, not a fold
                    corners = tilted
        return corners, inliers

    def classify(self, frame: Image, corners: Points, inliers: int = 0,
                 fits: tuple[tuple[str, int], ...] = ()) -> Sighting:
        """Compare the face at ``corners`` with every kind's shots, both ways up; a kind must win clearly."""
        return self._judge(self.appearance(frame, corners), corners, inliers, fits, {kind for kind, _ in fits})

    def appearance(self, frame: Image, corners: Points) -> NDArray[np.float32]:
        """How much the face at ``corners`` looks like each kind (in the order of ``kinds``), about -1..1."""
        tuning = self.tuning
        face = flatten(frame, corners)
        seen = (look(face), look(np.ascontiguousarray(face[::-1, ::-1])))
        cells = np.concatenate([cell_scores(self.patterns, self.colours, x, tuning) for x in seen])
        kinds = np.concatenate([self.look_kinds, self.look_kinds])
        best = _best_by_kind(trimmed_mean(cells, tuning.trim), kinds, len(self.kinds))
        # The cells no likely kind explains are covered (a finger, a glare spot): leave those out for every
        # kind alike. Trimming each kind's own worst cells instead would drop the very cells where a wrong
        # kind differs from the card, and every look-alike would come close.
        rows = best[1][np.argsort(-best[0])[: tuning.explainers]]
        explained = cells[rows].max(axis=0)
        keep = np.argsort(-explained)[: max(1, int(len(explained) * (1 - tuning.trim)))]
        return _best_by_kind(np.asarray(cells[:, keep].mean(axis=1), np.float32), kinds, len(self.kinds))[0]

    def _judge(self, appearance: NDArray[np.float32], corners: Points, inliers: int,
               fits: tuple[tuple[str, int], ...], here: set[str],
               more: Callable[[str], tuple[Points, int] | None] | None = None, *, outlined: bool = False) -> Sighting:
        """The verdict on one placement: ``here`` are the kinds whose own matches placed the card there, whose
        inliers (as a share of the best fit's) are evidence of their own, weighed in.

        Only the likeliest kinds by their matches' votes were fitted; a kind that was not, but looks close
        enough to the best that a fit of its own could change the verdict, is fitted now (``more``): a
        look-alike's fit alone must never decide between them (the road deck's 25 and 100 miles, a card
        half out of the picture: read as 25 on 31 matches of their shared milestone, 0.03 ahead in looks,
        the 100's matches never fitted)."""
        tuning = self.tuning
        if float(appearance.max()) < tuning.card_score:  # no kind's face is there: a hand, a shadow, the table
            return Sighting(Verdict.NOTHING, inliers=inliers, corners=corners, fits=fits, outlined=outlined)
        fits, here = self._fitted_rivals(appearance, fits, here, corners, more)
        best = appearance.copy()
        most = max((count for _, count in fits), default=1)
        for kind, count in fits:
            if kind in here:
                best[self.kinds.index(kind)] += tuning.fit_weight * count / most
        order = np.argsort(-best)
        ranked = tuple((self.kinds[i], float(best[i])) for i in order)
        kind, score = ranked[0]
        runner_up, second = ranked[1] if len(ranked) > 1 else (None, 0.0)
        sighting = Sighting(Verdict.CARD, kind, score, score - second, runner_up, inliers, corners, fits, ranked,
                            outlined)
        return self._rivalled(sighting, runner_up, second)

    def _fitted_rivals(self, appearance: NDArray[np.float32], fits: tuple[tuple[str, int], ...], here: set[str],
                       corners: Points, more: Callable[[str], tuple[Points, int] | None] | None,
                       ) -> tuple[tuple[tuple[str, int], ...], set[str]]:
        """``fits`` and ``here`` with the kinds fitted now that were not and might rival the best (at most two)."""
        tuning = self.tuning
        if more is None:
            return fits, here
        fitted = {name for name, _ in fits}
        most = max((count for _, count in fits), default=1)
        leader = max(float(appearance[self.kinds.index(name)]) + tuning.fit_weight * count / most
                     for name, count in fits if name in here) if here else float(appearance.max())
        reach = leader - tuning.min_margin - tuning.fit_weight  # a full fit bonus brings these within the margin
        added = list(fits)
        here = set(here)
        for i in np.argsort(-appearance)[:tuning.candidates + 2]:
            name = self.kinds[int(i)]
            if name in fitted or float(appearance[i]) < reach:
                continue
            found = more(name)
            if found is not None:
                added.append((name, found[1]))
                if _same_place(found[0], corners):
                    here.add(name)
        return tuple(added), here

    def _rivalled(self, sighting: Sighting, rival: str | None, score: float) -> Sighting:
        """``sighting`` with ``rival`` as its runner-up (when closer than the one it has): a kind must beat
        every other by the margin, or it is not clear."""
        margin = min(sighting.margin, sighting.score - score)
        runner_up = rival if sighting.score - score <= sighting.margin else sighting.runner_up
        tuning = self.tuning
        # A weaker likeness (a card half covered), or a placement backed by fewer matches (a card that has barely
        # landed), needs a wider lead: wrong placements reached 0.5, or 0.78 on 18 matches, with narrow ones.
        needed = tuning.min_margin + max(0.0, tuning.strong_score - sighting.score)
        if sighting.outlined:  # no matches behind it: the card's outline and its face alone
            needed += tuning.outline_margin
            placed = True
        else:
            needed += tuning.few_matches * max(0.0, 1 - sighting.inliers / tuning.read_inliers)
            placed = sighting.inliers >= tuning.least_inliers
        clear = sighting.score >= tuning.min_score and margin >= needed and placed
        return replace(sighting, verdict=Verdict.CARD if clear else Verdict.UNSURE, margin=margin,
                       runner_up=runner_up)


#: SplitMix64's increment and mixing constants (Steele, Lea and Flood, "Fast splittable pseudorandom number
#: generators", 2014).
_GOLDEN, _MIX1, _MIX2 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


def index_pairs(count: int, hypotheses: int) -> NDArray[np.int64]:
    """``hypotheses`` pairs of indices below ``count``, spread as a random draw would and seeded by ``count``.

    SplitMix64 over 0, 1, 2, ... rather than ``numpy.random``: importing that brings ``secrets``, ``hashlib`` and
    OpenSSL's libcrypto into the camera's process, 4.6 MB of its resident memory on x86-64 (issue 41 gives the
    process 80 MB; a Pi Zero 2 W has 512) for 600 small integers a look."""
    with np.errstate(over="ignore"):  # uint64 arithmetic wraps, as the generator means it to
        z = np.uint64(count) + np.arange(1, 2 * hypotheses + 1, dtype=np.uint64) * _GOLDEN
        z = (z ^ (z >> np.uint64(30))) * _MIX1
        z = (z ^ (z >> np.uint64(27))) * _MIX2
        z ^= z >> np.uint64(31)
    return (z % np.uint64(count)).astype(np.int64).reshape(hypotheses, 2)


def fit_similarity(source: Points, target: Points, threshold: float, scales: tuple[float, float],
                   hypotheses: int) -> tuple[NDArray[np.float64], NDArray[np.bool_]] | None:
    """The turn, scale and shift taking most ``source`` points to their ``target`` within ``threshold`` pixels,
    by RANSAC over pairs of matches, only at a scale a card can have (2 x 3 matrix, and which matches agree).

    OpenCV's own estimator knows no scale: on a face whose small print repeats (PUNCTURE-PROOF), its best
    fit shrank the whole card onto one word. Points are complex numbers here: ``target = a * source + b``.
    Seeded by the input, so the same frame always gives the same answer."""
    count = len(source)
    if count < 2:
        return None
    p = source[:, 0].astype(np.float64) + 1j * source[:, 1]
    q = target[:, 0].astype(np.float64) + 1j * target[:, 1]
    pairs = index_pairs(count, hypotheses)
    pairs = pairs[np.abs(p[pairs[:, 1]] - p[pairs[:, 0]]) > 4.0]  # two points of one place say nothing of a turn
    a = (q[pairs[:, 1]] - q[pairs[:, 0]]) / (p[pairs[:, 1]] - p[pairs[:, 0]])
    sane = (np.abs(a) >= scales[0]) & (np.abs(a) <= scales[1])
    if not sane.any():
        return None
    a, first = a[sane], pairs[sane, 0]
    b = q[first] - a * p[first]
    best: NDArray[np.bool_] = np.zeros(count, bool)
    most = -1
    for start in range(0, len(a), 32):  # in blocks: all hypotheses at once would cost megabytes
        agree = np.abs(a[start:start + 32, None] * p[None] + b[start:start + 32, None] - q[None]) < threshold
        counts = agree.sum(axis=1)
        if int(counts.max()) > most:
            most = int(counts.max())
            best = agree[int(np.argmax(counts))]
    for _ in range(2):  # least squares on the matches that agree, then who agrees with that
        if best.sum() < 2:
            return None
        pm, qm = p[best].mean(), q[best].mean()
        spread = float((np.abs(p[best] - pm) ** 2).sum())
        if spread <= 0:
            return None
        a1 = complex(((q[best] - qm) * np.conj(p[best] - pm)).sum() / spread)
        if not scales[0] <= abs(a1) <= scales[1]:
            return None
        b1 = complex(qm - a1 * pm)
        best = np.abs(a1 * p + b1 - q) < threshold
    matrix = np.array([[a1.real, -a1.imag, b1.real], [a1.imag, a1.real, b1.imag]], np.float64)
    return matrix, best


def fit_homography(source: Points, target: Points, threshold: float) -> NDArray[np.float64] | None:
    """The homography (3 x 3) through matches already known to agree, refitted once without those further than
    ``threshold`` pixels. No RANSAC: the similarity chose them. OpenCV's ``findHomography`` with method 0
    is the fit wanted: least squares through every point given, then a Levenberg-Marquardt refinement of
    the reprojection error."""
    keep = np.ones(len(source), bool)
    matrix: NDArray[np.float64] | None = None
    for _ in range(2):
        if keep.sum() < 6:
            return matrix
        found, _ = cv2.findHomography(source[keep], target[keep], 0)
        if found is None or abs(float(found[2, 2])) < 1e-12:
            return None
        matrix = np.asarray(found / found[2, 2], np.float64)
        keep = np.linalg.norm(project(matrix, source) - target, axis=1) <= threshold
    return matrix


def project(matrix: NDArray[np.float64], points: Points) -> Points:
    """``points`` through the homography ``matrix``; a point sent to infinity (a degenerate fit) comes back
    as inf or nan, which no card is (:func:`plausible_card`) and no match agrees with."""
    mapped = np.c_[points.astype(np.float64), np.ones(len(points))] @ matrix.T
    with np.errstate(divide="ignore", invalid="ignore"):
        return as_points(mapped[:, :2] / mapped[:, 2:3])


def _height(corners: Points) -> float:
    return float(np.linalg.norm(corners[0] - corners[3]))


def _same_place(a: Points, b: Points) -> bool:
    """Two placements of a card agree: no corner further apart than a twelfth of its height, either way up."""
    apart = min(float(np.linalg.norm(a - np.roll(b, turn, axis=0), axis=1).max()) for turn in (0, 2))
    return apart <= _height(b) / 12


def _near(a: Points, b: Points) -> bool:
    """Two placements of one card, one maybe a little off: centres within a quarter of its height, heights within
    a quarter of each other."""
    height_a, height_b = _height(a), _height(b)
    apart = float(np.linalg.norm(a.mean(axis=0) - b.mean(axis=0)))
    return apart <= 0.25 * max(height_a, height_b) and min(height_a, height_b) >= 0.75 * max(height_a, height_b)


def _best_by_kind(scores: NDArray[np.float32], kinds: NDArray[np.int32],
                  count: int) -> tuple[NDArray[np.float32], NDArray[np.intp]]:
    """Each kind's best score and the row it came from."""
    best = np.full(count, -2.0, np.float32)
    rows = np.zeros(count, np.intp)
    for row in np.argsort(scores):  # ascending: the best row of a kind is written last
        best[kinds[row]] = scores[row]
        rows[kinds[row]] = row
    return best, rows


def plausible_card(corners: Points, frame_diagonal: float = 800.0) -> bool:
    """A fit's picture of a card: convex, not folded, card-shaped, of a size a card can have."""
    quad = as_points(corners)
    if not np.isfinite(quad).all() or not cv2.isContourConvex(quad.reshape(-1, 1, 2)):
        return False
    sides = [float(np.linalg.norm(quad[i] - quad[(i + 1) % 4])) for i in range(4)]
    width, height = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
    if min(sides) < 20 or height > frame_diagonal:
        return False
    if max(sides[0], sides[2]) > 1.6 * min(sides[0], sides[2]) or max(sides[1], sides[3]) > 1.6 * min(sides[1],
                                                                                                          sides[3]):
        return False
    return abs(width / height - CARD_ASPECT) < 0.2


# -- the owner's check: which kinds look alike --------------------------------------------------------


@dataclass(frozen=True)
class Lookalike:
    """Two kinds the camera cannot tell apart with confidence on this table (from the check shots)."""

    first: str
    second: str
    margin: float


def check_deck(deck: Deck, check_faces: Mapping[str, Sequence[Image]]) -> tuple[list[str], list[Lookalike]]:
    """Read every kind's held-back shots with the deck: the kinds read right, and the pairs that look alike
    (a shot read as another kind, or won by less than the margin a read needs)."""
    read_right: list[str] = []
    alike: dict[tuple[str, str], float] = {}
    for kind, faces in check_faces.items():
        ok = bool(faces)
        for face in faces:
            flat = as_image(cv2.resize(face, (FACE_W, FACE_H), interpolation=cv2.INTER_AREA))
            shown = as_image(cv2.copyMakeBorder(flat, 60, 60, 60, 60, cv2.BORDER_CONSTANT, value=(128, 128, 128)))
            sighting = deck.recognise(shown)  # the whole path a frame takes, on a face it was not taught from
            if sighting.kind != kind or sighting.verdict is not Verdict.CARD:
                ok = False
                other = sighting.runner_up if sighting.kind == kind else sighting.kind
                if other is not None:
                    a, b = sorted((kind, other))
                    margin = sighting.margin if sighting.kind == kind else -sighting.margin
                    alike[a, b] = min(alike.get((a, b), 1.0), margin)
        if ok:
            read_right.append(kind)
    return read_right, [Lookalike(a, b, m) for (a, b), m in sorted(alike.items())]
