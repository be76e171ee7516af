"""Which kind of card lies in a frame: pure functions and values, no I/O, no clock.

Two steps, each doing what it is good at:

1. **Where is the card?** ORB corners of the frame (only inside the part that changed) are matched
   with the corners of every enrolment shot; the shots of the kinds with the most distinctive matches
   are fitted with a RANSAC homography, which places the card's face in the frame whatever its
   position, rotation, tilt or scale, and despite a hand over part of it.
2. **Which kind is it?** The frame, seen through that homography, is a flat picture of the face. It is
   compared with every kind's enrolment faces, colour included (Stop and Roll differ by a lamp's
   colour), on a small normalised grid where the worst quarter of the cells is ignored (a thumb, a
   glare spot). The best kind must beat the second by a margin, or the answer is "unsure": the table
   asks to show the card again rather than guess.

Kinds are the strings of the card codes (``D25`` … ``RIGHTOFWAY``); nothing here knows a rule.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

#: The face, flattened, for features (about the size a card has in a 640 x 480 frame) and for comparing.
FACE_W, FACE_H = 142, 220
LOOK_W, LOOK_H, LOOK_CELL = 72, 108, 12
#: A cell this flat (spread in Lab units) is compared as flat: noise in it is not a pattern.
LOOK_FLOOR = 6.0
#: The corners of a face in its own picture: top-left, top-right, bottom-right, bottom-left.
FACE_CORNERS = np.float32([(0, 0), (FACE_W - 1, 0), (FACE_W - 1, FACE_H - 1), (0, FACE_H - 1)])
CARD_ASPECT = 56 / 87

Image = np.ndarray


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
    score: float = 0.0  # appearance similarity of the best kind, 0..1
    margin: float = 0.0  # best minus second best
    runner_up: str | None = None
    inliers: int = 0
    corners: np.ndarray | None = field(default=None, compare=False)  # 4 x 2, the face's corners in the frame
    fits: tuple[tuple[str, int], ...] = ()  # the kinds fitted with a homography, and their inliers
    ranking: tuple[tuple[str, float], ...] = ()  # every kind by its appearance score, best first

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


@dataclass(frozen=True)
class Tuning:
    """The recognizer's thresholds, in one place (docs/camera.md says how they were chosen)."""

    features: int = 500  # ORB corners looked for in the changed part of a frame
    face_features: int = 250  # per enrolment shot
    ratio: float = 0.8  # Lowe's ratio test
    max_distance: int = 70  # Hamming distance of a usable match (of 256 bits)
    candidates: int = 3  # kinds whose shots are fitted with a homography
    min_inliers: int = 12
    reprojection: float = 5.0  # pixels, RANSAC
    min_score: float = 0.3  # appearance (a cell correlation, -1..1) plus fit a kind needs at all
    min_margin: float = 0.12  # by how much the best kind must beat the second
    fit_weight: float = 0.2  # the weight of a kind's homography inliers (as a share of the best) in its score
    trim: float = 0.25  # the worst quarter of the grid is ignored (a finger, a glare spot)


DEFAULT_TUNING = Tuning()


# -- faces -----------------------------------------------------------------------------------------


def order_corners(points: np.ndarray) -> np.ndarray:
    """Four corners as top-left, top-right, bottom-right, bottom-left of a *portrait* card."""
    pts = np.asarray(points, np.float32).reshape(4, 2)
    centre = pts.mean(axis=0)
    angles = np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0])
    pts = pts[np.argsort(angles)]  # clockwise in image coordinates, from the left-most angle
    # Start where the first side is a short one, so the face comes out portrait.
    first, second = np.linalg.norm(pts[0] - pts[1]), np.linalg.norm(pts[1] - pts[2])
    if first > second:
        pts = np.roll(pts, -1, axis=0)
    return pts


def flatten(image: Image, corners: np.ndarray, size: tuple[int, int] = (FACE_W, FACE_H)) -> Image:
    """The face seen straight on, ``size`` pixels, from its four corners in ``image``."""
    w, h = size
    target = np.float32([(0, 0), (w - 1, 0), (w - 1, h - 1), (0, h - 1)])
    matrix = cv2.getPerspectiveTransform(np.asarray(corners, np.float32), target)
    return cv2.warpPerspective(image, matrix, (w, h), flags=cv2.INTER_AREA)


def find_card(image: Image, background: Image | None = None) -> np.ndarray | None:
    """The corners of the one card in an enrolment picture, or None.

    With the empty zone (``background``) the card is what changed; without it, the largest
    four-sided outline; a picture that is all card (a scan) is taken whole.
    """
    h, w = image.shape[:2]
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    masks: list[Image] = []
    if background is not None and background.shape == image.shape:
        diff = cv2.absdiff(image, background)
        diff = diff.max(axis=2) if diff.ndim == 3 else diff
        _, changed = cv2.threshold(cv2.GaussianBlur(diff, (5, 5), 0), 30, 255, cv2.THRESH_BINARY)
        masks.append(cv2.morphologyEx(changed, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8)))
    smooth = cv2.GaussianBlur(gray, (5, 5), 0)
    for low, high in ((40, 120), (20, 60), (10, 30)):  # a card darker or lighter than the table by a little
        masks.append(cv2.dilate(cv2.Canny(smooth, low, high), np.ones((3, 3), np.uint8)))
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB) if image.ndim == 3 else None
    if lab is not None:  # a card of the table's lightness but not its colour
        for channel in (1, 2):
            masks.append(cv2.dilate(cv2.Canny(cv2.GaussianBlur(lab[..., channel], (5, 5), 0), 8, 24),
                                    np.ones((3, 3), np.uint8)))
    for mask in masks:
        found = _largest_quad(mask, w * h)
        if found is not None:
            return order_corners(found)
    aspect = min(w, h) / max(w, h)
    if abs(aspect - CARD_ASPECT) < 0.08:  # a scan or a crop: the picture is the card
        return order_corners(np.float32([(0, 0), (w - 1, 0), (w - 1, h - 1), (0, h - 1)]))
    return None


def _largest_quad(mask: Image, area: float) -> np.ndarray | None:
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    best: np.ndarray | None = None
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
        best = quad.reshape(4, 2).astype(np.float32) if len(quad) == 4 else cv2.boxPoints(rect).astype(np.float32)
        best_area = hull_area
    return best


# -- templates -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Template:
    """One enrolment shot of one kind: its flat face, and the face's ORB corners."""

    kind: str
    face: Image  # FACE_H x FACE_W x 3, uint8 (BGR)
    points: np.ndarray  # N x 2 float32, in face coordinates
    descriptors: np.ndarray  # N x 32 uint8


_ORB_CACHE: dict[tuple[int, int], cv2.ORB] = {}


def orb(features: int, fast: int = 10) -> cv2.ORB:
    key = (features, fast)
    if key not in _ORB_CACHE:
        _ORB_CACHE[key] = cv2.ORB_create(nfeatures=features, scaleFactor=1.25, nlevels=6, edgeThreshold=15,
                                         patchSize=21, fastThreshold=fast)
    return _ORB_CACHE[key]


def make_template(kind: str, face: Image, tuning: Tuning = DEFAULT_TUNING) -> Template:
    """A template from a flat face (any size: it is brought to FACE_W x FACE_H)."""
    flat = cv2.resize(face, (FACE_W, FACE_H), interpolation=cv2.INTER_AREA)
    gray = cv2.cvtColor(flat, cv2.COLOR_BGR2GRAY)
    keypoints, descriptors = orb(tuning.face_features, 8).detectAndCompute(gray, None)
    if descriptors is None:
        points, descriptors = np.zeros((0, 2), np.float32), np.zeros((0, 32), np.uint8)
    else:
        points = np.float32([k.pt for k in keypoints])
    return Template(kind, flat, points, descriptors)


def look(face: Image) -> Image:
    """The picture faces are compared by: a small grid of cells (LOOK_CELL pixels), each cell of each channel
    (lightness and the two colour axes) brought to zero mean and unit spread. Comparing two looks is then a
    normalised correlation per cell: a lamp's gradient, a warmer light or a dimmer room change nothing."""
    small = cv2.resize(cv2.GaussianBlur(face, (0, 0), 2.0), (LOOK_W, LOOK_H), interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    cells = lab.reshape(LOOK_H // LOOK_CELL, LOOK_CELL, LOOK_W // LOOK_CELL, LOOK_CELL, 3)
    centred = cells - cells.mean(axis=(1, 3), keepdims=True)
    spread = np.sqrt((centred**2).mean(axis=(1, 3), keepdims=True))
    return np.asarray(centred / np.maximum(spread, LOOK_FLOOR), np.float32)


class Deck:
    """Every kind's templates, ready to match: the one value the recognizer needs."""

    def __init__(self, templates: Iterable[Template], tuning: Tuning = DEFAULT_TUNING) -> None:
        self.tuning = tuning
        self.templates: list[Template] = [t for t in templates if len(t.descriptors)]
        if not self.templates:
            raise ValueError("no usable template: every enrolment shot was blank")
        self.kinds: list[str] = sorted({t.kind for t in self.templates})
        self.owner = np.concatenate([np.full(len(t.descriptors), i, np.int32) for i, t in enumerate(self.templates)])
        self.descriptors = np.concatenate([t.descriptors for t in self.templates])
        self.points = np.concatenate([t.points for t in self.templates])
        self.kind_index = np.int32([self.kinds.index(self.templates[i].kind) for i in self.owner])
        self.looks = np.stack([look(t.face) for t in self.templates])
        self.look_kinds = [t.kind for t in self.templates]
        self._matcher = cv2.BFMatcher(cv2.NORM_HAMMING)
        self._matcher.add([self.descriptors])
        self._matcher.train()

    def by_kind(self) -> Mapping[str, list[int]]:
        found: dict[str, list[int]] = {}
        for index, template in enumerate(self.templates):
            found.setdefault(template.kind, []).append(index)
        return found

    # -- the two steps ---------------------------------------------------------------------------

    def recognise(self, frame: Image, changed: Image | None = None) -> Sighting:
        """One frame (BGR). ``changed``: a mask of the frame's size, non-zero where the scene changed (the
        table's own texture gives corners too, which only cost time and mislead)."""
        tuning = self.tuning
        x0, y0 = 0, 0
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        part, mask = gray, None
        if changed is not None:
            x, y, w, h = cv2.boundingRect(changed)
            if w < 40 or h < 40:
                return Sighting(Verdict.NOTHING)
            x0, y0 = x, y
            part, mask = gray[y:y + h, x:x + w], changed[y:y + h, x:x + w]
        keypoints, descriptors = orb(tuning.features).detectAndCompute(part, mask)
        if descriptors is None or len(keypoints) < tuning.min_inliers:
            return Sighting(Verdict.NOTHING)
        points = np.float32([k.pt for k in keypoints]) + np.float32([x0, y0])
        located = self._locate(points, descriptors)
        if located is None:
            return Sighting(Verdict.NOTHING)
        corners, inliers = located
        return self.classify(frame, corners, inliers, tuple(self.last_fits))

    def _locate(self, points: np.ndarray, descriptors: np.ndarray) -> tuple[np.ndarray, int] | None:
        """The card's corners in the frame, from the likeliest kinds' matches (one search of the whole deck).

        Every shot is a flat face in the same coordinates, so a kind's matches from all its shots fit one
        homography together."""
        tuning = self.tuning
        votes: dict[int, float] = {}
        pooled: dict[int, tuple[list[np.ndarray], list[np.ndarray]]] = {}
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
                source.append(self.points[match.trainIdx])
                target.append(points[match.queryIdx])
        if not votes:
            return None
        best_fit: tuple[np.ndarray, int] | None = None
        self.last_fits: list[tuple[str, int]] = []
        for kind in sorted(votes, key=votes.__getitem__, reverse=True)[: tuning.candidates]:
            source, target = pooled.get(kind, ([], []))
            if len(source) < tuning.min_inliers:
                continue
            fit = self._fit(np.float32(source), np.float32(target))
            if fit is not None:
                self.last_fits.append((self.kinds[kind], fit[1]))
            if fit is not None and (best_fit is None or fit[1] > best_fit[1]):
                best_fit = fit
        return best_fit

    def _fit(self, source: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, int] | None:
        tuning = self.tuning
        matrix, mask = cv2.findHomography(source, target, cv2.RANSAC, tuning.reprojection, maxIters=300,
                                          confidence=0.98)
        if matrix is None or mask is None:
            return None
        inliers = int(mask.sum())
        if inliers < tuning.min_inliers:
            return None
        corners = cv2.perspectiveTransform(FACE_CORNERS.reshape(-1, 1, 2), matrix).reshape(4, 2)
        if not plausible_card(corners):
            return None
        return corners, inliers

    def classify(self, frame: Image, corners: np.ndarray, inliers: int = 0,
                 fits: tuple[tuple[str, int], ...] = ()) -> Sighting:
        """Compare the face at ``corners`` with every kind's shots, both ways up; a kind must win clearly."""
        tuning = self.tuning
        face = flatten(frame, corners)
        seen = look(face)
        turned = look(face[::-1, ::-1])  # upside down: the homography of a kind alike may have flipped it
        errors = np.minimum(_trimmed_error(self.looks, seen, tuning.trim), _trimmed_error(self.looks, turned,
                                                                                           tuning.trim))
        best_by_kind: dict[str, float] = {}
        for kind, error in zip(self.look_kinds, errors, strict=True):
            score = 1.0 - float(error)
            if score > best_by_kind.get(kind, -1.0):
                best_by_kind[kind] = score
        if fits:  # the corners each kind's own matches fit: evidence of their own, weighed in
            most = max(count for _, count in fits)
            for kind, count in fits:
                best_by_kind[kind] = best_by_kind.get(kind, 0.0) + tuning.fit_weight * count / most
        ranked = sorted(best_by_kind.items(), key=lambda item: item[1], reverse=True)
        kind, score = ranked[0]
        runner_up, second = ranked[1] if len(ranked) > 1 else (None, 0.0)
        margin = score - second
        verdict = Verdict.CARD if score >= tuning.min_score and margin >= tuning.min_margin else Verdict.UNSURE
        return Sighting(verdict, kind, score, margin, runner_up, inliers, corners, fits, tuple(ranked))


def _trimmed_error(looks: np.ndarray, seen: np.ndarray, trim: float) -> np.ndarray:
    """1 - the mean per-cell correlation with each template's look, the worst ``trim`` of the cells left out."""
    correlation = (looks * seen[None]).mean(axis=(2, 4))  # N x rows x columns x channels
    cells = correlation.mean(axis=3).reshape(len(looks), -1)
    keep = max(1, int(cells.shape[1] * (1 - trim)))
    best = -np.partition(-cells, keep - 1, axis=1)[:, :keep]
    return np.asarray(1.0 - best.mean(axis=1), np.float64)


def plausible_card(corners: np.ndarray, frame_diagonal: float = 800.0) -> bool:
    """A homography's picture of a card: convex, not folded, card-shaped, of a size a card can have."""
    quad = np.asarray(corners, np.float32).reshape(4, 2)
    if not cv2.isContourConvex(quad.reshape(-1, 1, 2)):
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
            flat = cv2.resize(face, (FACE_W, FACE_H), interpolation=cv2.INTER_AREA)
            shown = cv2.copyMakeBorder(flat, 60, 60, 60, 60, cv2.BORDER_CONSTANT, value=(128, 128, 128))
            sighting = deck.recognise(shown)  # the whole path a frame takes, on a face it was not taught from
            if sighting.kind != kind or sighting.verdict is not Verdict.CARD:
                ok = False
                other = sighting.runner_up if sighting.kind == kind else sighting.kind
                if other is not None:
                    pair = tuple(sorted((kind, other)))
                    margin = sighting.margin if sighting.kind == kind else -sighting.margin
                    alike[pair] = min(alike.get(pair, 1.0), margin)  # type: ignore[index]
        if ok:
            read_right.append(kind)
    return read_right, [Lookalike(a, b, m) for (a, b), m in sorted(alike.items())]
