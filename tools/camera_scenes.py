"""Camera scenes and sequences made from scratch, with the truth beside them, for tests and the bench.

A *table* is one setting: its cloth (wood, cloth or felt), its lamp (a lighting gradient, sometimes a
glare spot on glossy cards), the camera's focus, sensor noise and JPEG, the players' skin tone. A
*sequence* is what a camera sees at 10 frames a second while cards are played: a card brought in by
a hand (motion blur), held still at any position, rotation, tilt and scale (the hand over part of it,
or gone), taken away; hands passing or resting with no card; two cards of one kind in a row. Each
play is recorded with its frames (:class:`PlayTruth`), so a bench can count what the recognizer got
right, wrong, twice, or out of nothing.

Used by ``bench/camera.py``, the camera tests and, from the command line, to write folders for
``bornes camera-test`` and the emulator's camera twin::

    python -m tools.camera_scenes enrol --edition road --seed 7 --out enrol/
    python -m tools.camera_scenes plays --edition road --seed 8 --plays 20 --out frames/
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from tools.camera_cards import EDITIONS, HEIGHT, KINDS, WIDTH, face

FRAME_W, FRAME_H = 640, 480
FPS = 10.0
Image = NDArray[np.uint8]


def _u8(picture: cv2.typing.MatLike) -> Image:
    """An OpenCV result as the 8-bit picture it is (no copy)."""
    return np.asarray(picture, np.uint8)


def face_bgr(kind: str, edition: str) -> Image:
    return np.ascontiguousarray(face(kind, edition)[:, :, ::-1])


_CARD_MASK = np.zeros((HEIGHT, WIDTH), np.uint8)
cv2.rectangle(_CARD_MASK, (0, 0), (WIDTH - 1, HEIGHT - 1), 255, -1)
for _cx, _cy in ((14, 14), (WIDTH - 15, 14), (14, HEIGHT - 15), (WIDTH - 15, HEIGHT - 15)):  # rounded corners
    _corner = np.zeros_like(_CARD_MASK)
    _corner[max(0, _cy - 14):_cy + 15, max(0, _cx - 14):_cx + 15] = 255
    cv2.circle(_corner, (_cx, _cy), 14, 0, -1)
    _box = (slice(0, 15) if _cy < 100 else slice(HEIGHT - 15, HEIGHT), slice(0, 15) if _cx < 100 else
            slice(WIDTH - 15, WIDTH))
    _CARD_MASK[_box] = np.where(_corner[_box] > 0, 0, _CARD_MASK[_box])


# -- where things lie ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pose:
    """A card on the table: centre, rotation (degrees), height in pixels, and a perspective tilt
    (each corner moved by up to ``tilt`` of the card's size, as a camera not straight above does)."""

    x: float
    y: float
    angle: float
    height: float
    tilt: tuple[float, ...] = (0.0,) * 8

    def corners(self) -> NDArray[np.float32]:
        """The face's corners in the frame: top-left, top-right, bottom-right, bottom-left."""
        h = self.height
        w = h * WIDTH / HEIGHT
        local = np.array([(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)], np.float64)
        local += np.array(self.tilt, np.float64).reshape(4, 2) * h
        a = math.radians(self.angle)
        rotation = np.array([(math.cos(a), -math.sin(a)), (math.sin(a), math.cos(a))])
        return np.asarray(local @ rotation.T + (self.x, self.y), np.float32)

    def moved(self, dx: float, dy: float, turn: float = 0.0) -> Pose:
        return Pose(self.x + dx, self.y + dy, self.angle + turn, self.height, self.tilt)


@dataclass(frozen=True)
class Hand:
    """A hand seen from above: the palm's centre, the way the fingers point (degrees), its size."""

    x: float
    y: float
    angle: float
    scale: float = 1.0

    def moved(self, dx: float, dy: float) -> Hand:
        return Hand(self.x + dx, self.y + dy, self.angle, self.scale)


@dataclass
class Table:
    """One setting: the table top under its lamp, the camera's faults, the players' skin."""

    background: Image
    light: NDArray[np.float32]  # per-pixel gain, float32 H x W x 1
    glare: tuple[float, float, float, float] | None  # x, y, radius, strength: the lamp mirrored in a glossy card
    blur: float
    noise: float
    jpeg: int | None
    skin: tuple[int, int, int]
    shadow: tuple[float, float, float]  # dx, dy, darkness
    name: str = ""
    lit: Image = field(default_factory=lambda: np.zeros((0, 0, 3), np.uint8))
    glare_map: NDArray[np.float32] | None = None
    _noise_bank: list[tuple[Image, Image]] = field(default_factory=list)
    _cards: dict[object, tuple[tuple[int, int, int, int], Image]] = field(default_factory=dict)


def make_table(rng: np.random.Generator, kind: str | None = None) -> Table:
    kind = kind or str(rng.choice(["wood", "cloth", "felt"]))
    background = _texture(rng, kind)
    yy, xx = np.mgrid[0:FRAME_H, 0:FRAME_W].astype(np.float32)
    a = rng.uniform(0, 2 * math.pi)
    ramp = (xx - FRAME_W / 2) * math.cos(a) + (yy - FRAME_H / 2) * math.sin(a)
    ramp /= np.abs(ramp).max()
    low, high = rng.uniform(0.6, 0.9), rng.uniform(1.0, 1.15)
    light = ((low + high) / 2 + ramp * (high - low) / 2)[..., None].astype(np.float32)
    glare = None
    if rng.random() < 0.5:
        glare = (rng.uniform(120, 520), rng.uniform(100, 380), rng.uniform(20, 60), rng.uniform(50, 130))
    skin = [(140, 170, 220), (110, 140, 190), (80, 110, 160), (60, 80, 120), (170, 190, 230)][int(rng.integers(5))]
    table = Table(
        background=background, light=light, glare=glare, blur=float(rng.uniform(0.0, 1.2)),
        noise=float(rng.uniform(1.5, 6.0)), jpeg=int(rng.integers(50, 92)) if rng.random() < 0.6 else None,
        skin=skin, shadow=(rng.uniform(3, 10), rng.uniform(3, 10), rng.uniform(0.5, 0.8)), name=kind,
    )
    table.lit = np.clip(background.astype(np.float32) * light, 0, 255).astype(np.uint8)
    if glare is not None:
        table.glare_map = _blob(*glare)
    for _ in range(6):  # a few noise frames to pick from: fast, and still no two frames alike
        noise = rng.normal(0, table.noise, (FRAME_H, FRAME_W, 3))
        table._noise_bank.append((np.clip(noise, 0, 255).astype(np.uint8), np.clip(-noise, 0, 255).astype(np.uint8)))
    return table


def _texture(rng: np.random.Generator, kind: str) -> Image:
    yy, xx = np.mgrid[0:FRAME_H, 0:FRAME_W].astype(np.float32)
    if kind == "wood":
        base = np.array(rng.choice([(60, 100, 150), (40, 70, 110), (90, 130, 170), (30, 50, 80)]), np.float32)
        a = rng.uniform(-0.3, 0.3)
        u = yy * math.cos(a) + xx * math.sin(a)
        warp = 6 * np.sin(xx / rng.uniform(40, 90)) + 3 * np.sin(xx / 13.0)
        grain = np.sin((u + warp) / rng.uniform(2.5, 5)) * 0.5 + np.sin((u + warp * 2) / 17.0) * 0.5
        value = 1 + 0.18 * grain[..., None]
        planks = (np.floor((xx * math.cos(a) - yy * math.sin(a)) / rng.uniform(110, 200)) % 2)[..., None]
        value = value * (1 - 0.08 * planks)
    elif kind == "cloth":
        base = np.array(rng.choice([(160, 160, 150), (60, 60, 140), (140, 90, 60), (200, 200, 210)]), np.float32)
        period = rng.uniform(3, 6)
        weave = np.sin(xx / period * math.pi) * np.sin(yy / period * math.pi)
        value = (1 + 0.1 * weave + 0.05 * np.sin(xx / 37.0 + yy / 23.0))[..., None]
    else:  # felt
        base = np.array(rng.choice([(40, 110, 30), (40, 40, 120), (90, 60, 30), (60, 60, 60)]), np.float32)
        value = np.ones((FRAME_H, FRAME_W, 1), np.float32)
    speckle = cv2.GaussianBlur(rng.normal(0, 1, (FRAME_H, FRAME_W)).astype(np.float32), (0, 0), 1.5)[..., None]
    image = base * value * (1 + 0.12 * speckle)
    return np.asarray(np.clip(image, 0, 255), np.uint8)


# -- drawing a frame -------------------------------------------------------------------------------


def _warp_into(image: Image, matrix: NDArray[np.float64], roi: tuple[int, int, int, int], flags: int) -> Image:
    x0, y0, x1, y1 = roi
    moved = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ matrix
    return _u8(cv2.warpPerspective(image, moved, (x1 - x0, y1 - y0), flags=flags))


def _roi(points: NDArray[np.float32], margin: float) -> tuple[int, int, int, int] | None:
    x0 = max(0, int(points[:, 0].min() - margin))
    y0 = max(0, int(points[:, 1].min() - margin))
    x1 = min(FRAME_W, int(points[:, 0].max() + margin) + 1)
    y1 = min(FRAME_H, int(points[:, 1].max() + margin) + 1)
    return (x0, y0, x1, y1) if x1 - x0 > 2 and y1 - y0 > 2 else None


def _hand_mask(hand: Hand) -> Image:
    """Palm, four fingers, a thumb and the arm back to the frame's edge, filled."""
    mask = np.zeros((FRAME_H, FRAME_W), np.uint8)
    s = hand.scale
    a = math.radians(hand.angle)
    forward = np.array((math.cos(a), math.sin(a)))
    side = np.array((-math.sin(a), math.cos(a)))
    palm = np.array((hand.x, hand.y))

    def at(f: float, lateral: float) -> tuple[int, int]:
        p = palm + forward * f * s + side * lateral * s
        return round(p[0]), round(p[1])

    cv2.ellipse(mask, at(0, 0), (int(46 * s), int(42 * s)), hand.angle, 0, 360, 255, -1)
    for lateral, length in ((-28, 58), (-9, 70), (10, 68), (28, 54)):
        cv2.line(mask, at(30, lateral), at(30 + length, lateral * 1.1), 255, max(2, int(16 * s)))
    cv2.line(mask, at(0, 38), at(40, 70), 255, max(2, int(18 * s)))
    cv2.line(mask, at(-20, 0), at(-900, 0), 255, max(2, int(70 * s)))  # the arm
    return mask


def _soft(mask: Image, sigma: float) -> Image:
    """A wide Gaussian blur done at a quarter of the size: shadows and shading need no more."""
    h, w = mask.shape[:2]
    small = cv2.resize(mask, (max(1, w // 4), max(1, h // 4)), interpolation=cv2.INTER_AREA)
    return _u8(cv2.resize(cv2.GaussianBlur(small, (0, 0), max(0.5, sigma / 4)), (w, h), interpolation=cv2.INTER_LINEAR))


def _card_on_table(table: Table, kind: str, edition: str, pose: Pose,
                   motion: tuple[float, float] | None) -> tuple[tuple[int, int, int, int], Image] | None:
    """The table with one card on it (shadow, light, glare), inside the card's box: cached, since a card
    lying still is the same picture frame after frame."""
    key = (kind, edition, pose, motion)
    found = table._cards.get(key)
    if found is not None:
        return found
    dx, dy, darkness = table.shadow
    corners = pose.corners()
    roi = _roi(corners, 16 + max(abs(dx), abs(dy)) + _blur_length(motion))
    if roi is None:
        return None
    x0, y0, x1, y1 = roi
    source = np.array([(0, 0), (WIDTH - 1, 0), (WIDTH - 1, HEIGHT - 1), (0, HEIGHT - 1)], np.float32)
    matrix = np.asarray(cv2.getPerspectiveTransform(source, corners), np.float64)
    picture = _warp_into(face_bgr(kind, edition), matrix, roi, cv2.INTER_AREA)
    mask = _warp_into(_CARD_MASK, matrix, roi, cv2.INTER_LINEAR)
    if motion is not None:
        picture, mask = _motion_blur(picture, motion), _motion_blur(mask, motion)
    part = table.lit[y0:y1, x0:x1].astype(np.float32)
    shadow = _soft(_u8(cv2.warpAffine(mask, np.array([[1, 0, dx], [0, 1, dy]], np.float32), (x1 - x0, y1 - y0))), 3)
    part *= 1 - (shadow.astype(np.float32) * ((1 - darkness) / 255))[..., None]
    lit = picture.astype(np.float32) * table.light[y0:y1, x0:x1]
    if table.glare_map is not None:
        lit += table.glare_map[y0:y1, x0:x1]
    alpha = (mask.astype(np.float32) / 255)[..., None]
    result = (roi, np.clip(part + (lit - part) * alpha, 0, 255).astype(np.uint8))
    if len(table._cards) > 64:
        table._cards.clear()
    table._cards[key] = result
    return result


def render(table: Table, rng: np.random.Generator, cards: Sequence[tuple[str, str, Pose]] = (),
           hand: Hand | None = None, motion: tuple[float, float] | None = None,
           moving_cards: Sequence[int] = ()) -> Image:
    """One frame: the table, its cards (with shadows and glare), a hand, the light, the camera's faults.

    ``motion`` blurs the hand and the cards listed in ``moving_cards`` along that shift (pixels per frame).
    Every layer is drawn only inside its own box, so a frame costs a few milliseconds.
    """
    frame = table.lit.copy()
    dx, dy, darkness = table.shadow
    for index, (kind, edition, pose) in enumerate(cards):
        drawn = _card_on_table(table, kind, edition, pose, motion if index in moving_cards else None)
        if drawn is not None:
            (x0, y0, x1, y1), picture = drawn
            frame[y0:y1, x0:x1] = picture
    if hand is not None:
        mask = _hand_mask(hand)
        x, y, w, h = cv2.boundingRect(mask)
        if w > 0 and h > 0:
            margin = int(12 + 2 * max(abs(dx), abs(dy)) + (_blur_length(motion) if motion else 0))
            x0, y0 = max(0, x - margin), max(0, y - margin)
            x1, y1 = min(FRAME_W, x + w + margin), min(FRAME_H, y + h + margin)
            mask = mask[y0:y1, x0:x1]
            if motion is not None:
                mask = _motion_blur(mask, motion)
            part = frame[y0:y1, x0:x1].astype(np.float32)
            offset = np.array([[1, 0, dx * 2], [0, 1, dy * 2]], np.float32)
            shadow = _soft(_u8(cv2.warpAffine(mask, offset, (x1 - x0, y1 - y0))), 5)
            part *= 1 - (shadow.astype(np.float32) * ((1 - darkness) * 0.8 / 255))[..., None]
            shade = _soft(mask, 6).astype(np.float32)[..., None] / 255
            skin = np.array(table.skin, np.float32) * (0.75 + 0.25 * shade) * table.light[y0:y1, x0:x1]
            alpha = (mask.astype(np.float32) / 255)[..., None]
            frame[y0:y1, x0:x1] = np.clip(part + (skin - part) * alpha, 0, 255).astype(np.uint8)
    if table.blur > 0.3:
        frame = _u8(cv2.GaussianBlur(frame, (0, 0), table.blur))
    plus, minus = table._noise_bank[int(rng.integers(len(table._noise_bank)))]
    frame = _u8(cv2.subtract(cv2.add(frame, plus), minus))
    if table.jpeg is not None:
        _ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, table.jpeg])
        frame = np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR), np.uint8)
    return frame


def _blob(x: float, y: float, radius: float, strength: float) -> NDArray[np.float32]:
    yy, xx = np.ogrid[0:FRAME_H, 0:FRAME_W]
    return (strength * np.exp(-((xx - x) ** 2 + (yy - y) ** 2) / (2 * radius**2))).astype(np.float32)[..., None]


def _blur_length(motion: tuple[float, float] | None) -> int:
    """A frame's exposure is a fraction of its interval: the streak is a third of the move, at most 31 px."""
    if motion is None:
        return 0
    return min(31, round(math.hypot(*motion) / 3))


def _motion_blur(image: Image, motion: tuple[float, float]) -> Image:
    length = _blur_length(motion)
    if length < 3:
        return image
    kernel = np.zeros((length, length), np.float32)
    c = (length - 1) / 2
    a = math.atan2(motion[1], motion[0])
    cv2.line(kernel, (round(c - math.cos(a) * c), round(c - math.sin(a) * c)),
             (round(c + math.cos(a) * c), round(c + math.sin(a) * c)), 1.0, 1)
    kernel /= max(kernel.sum(), 1e-6)
    h, w = image.shape[:2]
    half = cv2.resize(image, (max(1, w // 2), max(1, h // 2)), interpolation=cv2.INTER_AREA)
    small = np.asarray(cv2.resize(kernel, (max(1, length // 2),) * 2, interpolation=cv2.INTER_AREA), np.float32)
    shrunk = float(np.asarray(cv2.resize(kernel, (max(1, length // 2),) * 2), np.float32).sum())
    half = cv2.filter2D(half, -1, small / np.float32(max(1e-6, shrunk)))
    return _u8(cv2.resize(half, (w, h), interpolation=cv2.INTER_LINEAR))


# -- sequences -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlayTruth:
    """One card played: its kind, the frame it came in, the first frame it lay still, the last it was seen."""

    kind: str
    first: int
    still: int
    last: int


@dataclass
class Sequence_:
    """Frames and what happened in them (plays, and the frames where a hand moved with no card)."""

    frames: list[Image] = field(default_factory=list)
    plays: list[PlayTruth] = field(default_factory=list)


def random_pose(rng: np.random.Generator, *, flat: bool = False) -> Pose:
    height = rng.uniform(185, 255)
    margin_x, margin_y = height * 0.52 + 10, height * 0.52 + 10
    tilt = tuple(rng.uniform(-0.05, 0.05, 8)) if not flat else tuple(rng.uniform(-0.02, 0.02, 8))
    return Pose(rng.uniform(margin_x, FRAME_W - margin_x), rng.uniform(margin_y, FRAME_H - margin_y),
                rng.uniform(0, 360), height, tilt)


def _away(rng: np.random.Generator, pose: Pose) -> tuple[float, float]:
    """A direction out of the frame, and the distance to get there from ``pose``."""
    a = rng.uniform(0, 2 * math.pi)
    return math.cos(a) * 520, math.sin(a) * 520


def _holding(pose: Pose, rng: np.random.Generator) -> tuple[float, float, Hand]:
    """A hand gripping the card by one edge, from outside: the fingers over 10 to 30 % of the card.

    A hand is about as wide as a card is tall, so its size follows the card's."""
    a = rng.uniform(0, 2 * math.pi)
    scale = pose.height / 110 * rng.uniform(0.9, 1.1)
    reach = pose.height * rng.uniform(0.2, 0.4)  # fingertips this far from the card's centre
    fingertips = 30 + 70  # palm centre to the fingertips, in the hand's own units
    fx, fy = pose.x + math.cos(a) * reach, pose.y + math.sin(a) * reach
    palm = fingertips * scale
    return a, reach, Hand(fx + math.cos(a) * palm, fy + math.sin(a) * palm, math.degrees(a) + 180, scale)


class Player:
    """Writes the frames of plays, one after another, on one table; keeps the truth of each."""

    def __init__(self, rng: np.random.Generator, edition: str, table: Table | None = None) -> None:
        self.rng = rng
        self.edition = edition
        self.table = table or make_table(rng)
        self.out = Sequence_()

    def _frame(self, **scene: object) -> None:
        self.out.frames.append(render(self.table, self.rng, **scene))  # type: ignore[arg-type]

    def empty(self, frames: int) -> None:
        for _ in range(frames):
            self._frame()

    def hand_passes(self) -> None:
        """A hand crosses the zone (reaching for a pile, pointing) without a card."""
        rng = self.rng
        start = Hand(rng.uniform(-80, FRAME_W + 80), rng.uniform(-80, FRAME_H + 80), 0, rng.uniform(1.7, 2.3))
        target = (rng.uniform(150, 490), rng.uniform(120, 360))
        frames = int(rng.integers(3, 7))
        angle = math.degrees(math.atan2(target[1] - start.y, target[0] - start.x))
        step = ((target[0] - start.x) * 2 / frames, (target[1] - start.y) * 2 / frames)
        rest = int(rng.integers(3, 6)) if rng.random() < 0.25 else 0  # sometimes it rests a moment, no card
        for i in range(frames):
            hand = Hand(start.x + step[0] * i, start.y + step[1] * i, angle, start.scale)
            self._frame(hand=hand, motion=step)
            if i == frames // 2 and rest:
                for _ in range(rest):
                    self._frame(hand=hand.moved(rng.normal(0, 0.6), rng.normal(0, 0.6)))

    def play(self, kind: str, *, hold: int | None = None) -> PlayTruth:
        """A card brought in with a hand, held still (the hand on it or gone), then taken away."""
        rng = self.rng
        pose = random_pose(rng)
        first = len(self.out.frames)
        away = _away(rng, pose)
        a, _reach, hand = _holding(pose, rng)
        steps = int(rng.integers(2, 5))
        card = (kind, self.edition)
        for i in range(steps, 0, -1):  # in: from outside, slowing down
            f = (i / (steps + 1)) ** 1.5
            shift = (away[0] * f, away[1] * f)
            motion = (away[0] * (f - ((i - 1) / (steps + 1)) ** 1.5) * 0.6,
                      away[1] * (f - ((i - 1) / (steps + 1)) ** 1.5) * 0.6)
            self._frame(cards=[(*card, pose.moved(*shift))], hand=hand.moved(*shift), motion=motion, moving_cards=[0])
        still = len(self.out.frames)
        hold = hold if hold is not None else int(rng.integers(5, 12))
        keep_hand = rng.random() < 0.4
        let_go = hold if keep_hand else int(rng.integers(1, max(2, hold - 3)))
        out_dir = (math.cos(a) * 60, math.sin(a) * 60)
        for i in range(hold):
            jitter = pose.moved(rng.normal(0, 0.5), rng.normal(0, 0.5), rng.normal(0, 0.2))
            if i < let_go:
                self._frame(cards=[(*card, jitter)], hand=hand.moved(rng.normal(0, 0.7), rng.normal(0, 0.7)))
            elif i < let_go + 2:  # the hand leaves
                k = i - let_go + 1
                self._frame(cards=[(*card, pose)], hand=hand.moved(out_dir[0] * k * 1.5, out_dir[1] * k * 1.5),
                            motion=out_dir)
            else:
                self._frame(cards=[(*card, pose)])
        if not keep_hand:  # the hand comes back for it
            self._frame(cards=[(*card, pose)], hand=hand.moved(out_dir[0] * 1.5, out_dir[1] * 1.5), motion=out_dir)
        steps = int(rng.integers(2, 5))
        for i in range(1, steps + 1):  # out: speeding up
            f = (i / (steps + 1)) ** 1.5
            shift = (away[0] * f, away[1] * f)
            self._frame(cards=[(*card, pose.moved(*shift))], hand=hand.moved(*shift),
                        motion=(away[0] * f * 0.3, away[1] * f * 0.3), moving_cards=[0])
        truth = PlayTruth(kind, first, still, len(self.out.frames) - 1)
        self.out.plays.append(truth)
        return truth


def play_sequence(seed: int, edition: str, plays: int, *, kinds: Sequence[str] | None = None,
                  table_every: int = 25) -> Iterator[tuple[Sequence_, Table]]:
    """``plays`` plays in chunks of ``table_every`` (a new table and lamp each time), each chunk yielded with
    its frames and truth. Kinds are drawn at random (a kind again, 15 % of the time) unless given."""
    rng = np.random.default_rng(seed)
    done = 0
    previous: str | None = None
    while done < plays:
        player = Player(rng, edition)
        player.empty(int(rng.integers(6, 10)))
        for _ in range(min(table_every, plays - done)):
            if kinds is not None:
                kind = kinds[done]
            elif previous is not None and rng.random() < 0.15:
                kind = previous
            else:
                kind = str(rng.choice(KINDS))
            player.play(kind)
            previous = kind
            done += 1
            player.empty(int(rng.integers(3, 7)))
            if rng.random() < 0.2:
                player.hand_passes()
                player.empty(int(rng.integers(2, 4)))
        yield player.out, player.table


def enrolment_shots(seed: int, edition: str, shots: int = 3) -> dict[str, list[Image]]:
    """What an owner's enrolment leaves: each kind laid alone in the zone, ``shots`` times, on one table
    under one lamp (their own), the card nudged between shots. Never the scenes a bench measures."""
    rng = np.random.default_rng(seed)
    table = make_table(rng, "wood")
    table.jpeg = None
    out: dict[str, list[Image]] = {}
    for kind in KINDS:
        pose = random_pose(rng, flat=True)
        pose = Pose(FRAME_W / 2 + rng.uniform(-40, 40), FRAME_H / 2 + rng.uniform(-30, 30), pose.angle, 220, pose.tilt)
        out[kind] = [render(table, rng, cards=[(kind, edition, pose.moved(rng.uniform(-25, 25), rng.uniform(-20, 20),
                                                                         rng.uniform(-25, 25)))])
                     for _ in range(shots)]
    return out


def enrolment_sequence(seed: int, edition: str, *, shots: int = 3, kinds: Sequence[str] = KINDS,
                       find_s: tuple[float, float] = (2.0, 3.5)) -> tuple[Sequence_, Table]:
    """An owner teaching the camera, at 10 frames a second: each kind found in the deck (``find_s`` seconds),
    brought in (0.3 s), laid in the zone and left still for each shot (0.2 s for the camera, 0.6 s for the
    owner to notice), nudged between shots, then taken away (0.4 s). The first frames show the empty zone."""
    rng = np.random.default_rng(seed)
    player = Player(rng, edition, make_table(rng, "wood"))
    player.table.jpeg = None
    player.empty(8)
    for kind in kinds:
        player.empty(int(rng.integers(round(find_s[0] * FPS), round(find_s[1] * FPS))))  # finding the card
        pose = Pose(FRAME_W / 2 + rng.uniform(-40, 40), FRAME_H / 2 + rng.uniform(-30, 30), rng.uniform(0, 360), 220,
                    tuple(rng.uniform(-0.02, 0.02, 8)))
        first = len(player.out.frames)
        a, _reach, hand = _holding(pose, rng)
        out = (math.cos(a) * 60, math.sin(a) * 60)
        for step in range(3, 0, -1):
            shift = (out[0] * step * 2, out[1] * step * 2)
            player._frame(cards=[(kind, edition, pose.moved(*shift))], hand=hand.moved(*shift), motion=out,
                          moving_cards=[0])
        for shot in range(shots):
            for k in (1, 2):  # the hand lets go
                player._frame(cards=[(kind, edition, pose)], hand=hand.moved(out[0] * k * 1.5, out[1] * k * 1.5),
                              motion=out)
            for _ in range(8):  # still while the camera takes the shot
                player._frame(cards=[(kind, edition, pose)])
            if shot < shots - 1:  # a nudge: the hand turns it a little
                player._frame(cards=[(kind, edition, pose)], hand=hand, motion=out)
                pose = pose.moved(rng.uniform(-20, 20), rng.uniform(-15, 15), rng.uniform(-20, 20))
                player._frame(cards=[(kind, edition, pose)], hand=hand, motion=out)
        player._frame(cards=[(kind, edition, pose)], hand=hand, motion=out)
        for step in (1, 2, 3):
            shift = (out[0] * step * 2.5, out[1] * step * 2.5)
            player._frame(cards=[(kind, edition, pose.moved(*shift))], hand=hand.moved(*shift), motion=out,
                          moving_cards=[0])
        player.out.plays.append(PlayTruth(kind, first, first + 5, len(player.out.frames) - 1))
    player.empty(6)
    return player.out, player.table


# -- the command line: folders for bornes camera-test and the emulator's camera twin ------------------


def write_frames(frames: Sequence[Image], out: Path, start: int = 0, suffix: str = ".jpg") -> list[str]:
    out.mkdir(parents=True, exist_ok=True)
    names = []
    for index, frame in enumerate(frames, start):
        name = f"{index:06d}{suffix}"
        cv2.imwrite(str(out / name), frame, [cv2.IMWRITE_JPEG_QUALITY, 95] if suffix == ".jpg" else [])
        names.append(name)
    return names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.camera_scenes", description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("enrol", "plays", "sheet"))
    parser.add_argument("--edition", default="road", choices=EDITIONS)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--plays", type=int, default=20)
    parser.add_argument("--kinds", help="comma-separated kinds to play in this order (default: random)")
    parser.add_argument("--shots", type=int, default=2)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.what == "enrol":
        args.out.mkdir(parents=True, exist_ok=True)
        for kind, images in enrolment_shots(args.seed, args.edition, args.shots).items():
            for n, image in enumerate(images, 1):
                cv2.imwrite(str(args.out / f"{kind}-{n}.png"), image)
        return 0
    if args.what == "sheet":
        args.out.mkdir(parents=True, exist_ok=True)
        for kind in KINDS:
            cv2.imwrite(str(args.out / f"{kind}.png"), face_bgr(kind, args.edition))
        return 0
    kinds = args.kinds.split(",") if args.kinds else None
    count = len(kinds) if kinds else args.plays
    truth = []
    written = 0
    for chunk, _table in play_sequence(args.seed, args.edition, count, kinds=kinds):
        names = write_frames(chunk.frames, args.out, written)
        truth += [{"kind": p.kind, "first": names[p.first], "still": names[p.still], "last": names[p.last]}
                  for p in chunk.plays]
        written += len(names)
    (args.out / "truth.json").write_text(json.dumps(truth, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
