"""Camera scenes and sequences made from scratch, with the truth beside them, for tests and the bench.

A *table* is one setting: its cloth (wood, cloth or felt), its lamp (a lighting gradient, sometimes a
glare spot on glossy cards), the camera's mount (how tall a card is in its pictures: a fifth to two
thirds of their height), its focus (sometimes slightly out of it), sensor noise and JPEG, the players'
skin tone. A *light* is how the room's light and the webcam's exposure move while it plays
(:data:`LIGHTS`): ``steady`` (sensor noise only), ``room`` (auto-exposure answering a hand, lamps
switched, slow drifts, shadows crossing, rolling mains bands, a PWM lamp), ``failing`` (each frame its
own exposure, a failing lamp) and ``stress`` (each frame its own light, in patches: no webcam does it).

A *sequence* is what a camera sees while cards are played: a card brought in by a hand (motion blur),
held still at any position, rotation, tilt and scale (the hand over part of it, or gone), taken away;
hands passing or resting with no card; two cards of one kind in a row. A sequence is planned in
**seconds** and sampled at the camera's rate (``fps``): the same seed gives the same plays, tables and
light at 5, 7.5, 10 or 15 frames a second, only sampled more or less often (per-frame noise aside).
Each play is recorded with its frames and times (:class:`PlayTruth`), so a bench can count what the
recognizer got right, wrong, twice, or out of nothing.

Used by ``bench/camera.py``, the camera tests and, from the command line, to write folders for
``bornes camera-test`` and the emulator's camera twin::

    python -m tools.camera_scenes enrol --edition road --seed 7 --out enrol/
    python -m tools.camera_scenes plays --edition road --seed 8 --plays 20 --light room --fps 10 --out frames/
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from tools.camera_cards import EDITIONS, HEIGHT, KINDS, WIDTH, face

FRAME_W, FRAME_H = 640, 480
FPS = 10.0
#: A card's height in a table's pictures: from a fifth to two thirds of the picture's (a camera mounted
#: high with a wide lens, or low with a narrow one).
CARD_HEIGHTS = (FRAME_H / 5, FRAME_H * 2 / 3)
Image = NDArray[np.uint8]
#: A light's gain on a frame: one number, one a row (H x 1 x 1) or one a pixel (H x W x 1).
Gain = float | NDArray[np.float32]


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
    card_height: float = 220.0  # a card's height in this camera's pictures, in pixels (its mount)
    lit: Image = field(default_factory=lambda: np.zeros((0, 0, 3), np.uint8))
    glare_map: NDArray[np.float32] | None = None
    _noise_bank: list[tuple[Image, Image]] = field(default_factory=list)
    _cards: dict[object, tuple[tuple[int, int, int, int], Image]] = field(default_factory=dict)


def make_table(rng: np.random.Generator, kind: str | None = None, *, mount: bool = False) -> Table:
    """A table under its lamp. ``mount``: the camera's mount is drawn too (cards from a fifth to two thirds
    of the picture's height, log-uniform; a quarter of the cameras slightly out of focus); without it,
    cards are about 220 pixels tall and the focus is good, as the camera's own tests have them."""
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
    blur = float(rng.uniform(0.0, 1.2))
    card_height = 220.0
    if mount:
        card_height = float(math.exp(rng.uniform(math.log(CARD_HEIGHTS[0]), math.log(CARD_HEIGHTS[1]))))
        if rng.random() < 0.25:  # slightly out of focus (the lens turned by a knock, a camera too close)
            blur = float(rng.uniform(1.2, 2.0))
    table = Table(
        background=background, light=light, glare=glare, blur=blur,
        noise=float(rng.uniform(1.5, 6.0)), jpeg=int(rng.integers(50, 92)) if rng.random() < 0.6 else None,
        skin=skin, shadow=(rng.uniform(3, 10), rng.uniform(3, 10), rng.uniform(0.5, 0.8)), name=kind,
        card_height=card_height,
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
           moving_cards: Sequence[int] = (), light: Callable[[Image], Gain] | None = None) -> Image:
    """One frame: the table, its cards (with shadows and glare), a hand, the light, the camera's faults.

    ``motion`` blurs the hand and the cards listed in ``moving_cards`` along that shift (pixels per frame).
    ``light`` is the room's light and the camera's exposure at this moment: given the scene, the gain on
    it (one number, one per row, or one per pixel), applied before the lens's blur and the sensor's noise.
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
    if light is not None:
        gain = light(frame)
        if not (isinstance(gain, float) and gain == 1.0):
            frame = np.clip(frame.astype(np.float32) * np.asarray(gain, np.float32), 0, 255).astype(np.uint8)
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


# -- the light of a room, and the webcam's exposure ---------------------------------------------------

#: The light models: a bench table each (docs/camera.md).
LIGHTS: tuple[str, ...] = ("steady", "room", "failing", "stress")
MAINS_FLICKER_HZ = 100.0  # a lamp on 50 Hz mains flickers at twice that


class Light:
    """The light while a table plays, frame after frame: :meth:`at` gives the gain for the frame at ``t``
    seconds (given the scene, for the exposure's answer to it), or None for none. Steady: none at all,
    only the sensor's noise (which :func:`render` adds to every frame)."""

    name = "steady"

    def __init__(self, rng: np.random.Generator) -> None:
        # Its own events from a generator of its own: the same at any frame rate (per-frame draws use ``noise``).
        self.rng = np.random.default_rng(int(rng.integers(2**63)))
        self.events: list[tuple[float, str]] = []  # (seconds, what happened): for a person reading a run

    def at(self, t: float, noise: np.random.Generator) -> Callable[[Image], Gain] | None:
        return None


class RoomLight(Light):
    """A room's light and a webcam's automatic exposure, each room its own mix:

    * **auto-exposure** (three rooms in four): the camera's gain follows the scene's mean back to the
      one it started on, over a few frames (a time constant of 0.15 to 0.4 s): a hand, a light card or
      a lamp switched moves the whole picture, and the picture comes back;
    * **lamp steps**: a lamp switched on or off, the whole picture 15 to 30 % brighter or darker at once
      (about one every 20 s), sometimes with the gradient of a lamp on one side;
    * **a slow drift** (evening coming, a cloud): up to ±12 % over a minute or two;
    * **shadows crossing**: a player leaning over, a soft shadow 20 to 45 % deep crossing the zone in
      about a second, resting 0.5 to 4 s, leaving (about one every 15 s);
    * **rolling bands** (a room in three): mains flicker read by a rolling shutter, horizontal bands of
      3 to 10 % rolling through the picture (their phase is the mains', so they move every frame);
    * **a PWM lamp** (a room in four): each frame 4 to 8 % brighter or darker than the last, at random.
    """

    name = "room"

    def __init__(self, rng: np.random.Generator) -> None:
        super().__init__(rng)
        r = self.rng
        self.exposure_tau = float(r.uniform(0.15, 0.4)) if r.random() < 0.75 else 0.0
        self.pwm = float(r.uniform(0.04, 0.08)) if r.random() < 0.25 else 0.0
        self.bands = (float(r.uniform(0.03, 0.10)), float(r.uniform(120, 200))) if r.random() < 1 / 3 else None
        self.drift = (float(r.uniform(0.0, 0.12)), float(r.uniform(60, 150)), float(r.uniform(0, 2 * math.pi)))
        self.level = 1.0
        self.side: NDArray[np.float32] | None = None  # a lamp on one side: its gradient, while it is on
        self.next_step = float(r.exponential(20.0)) + 2.0
        self.shadow: _Shadow | None = None
        self.next_shadow = float(r.exponential(15.0)) + 2.0
        self.gain = 1.0  # the camera's exposure gain
        self.metered: float | None = None  # the mean its exposure settles on (the first frame's)
        self.last: float | None = None
        self._yy = (np.arange(FRAME_H, dtype=np.float32) / FRAME_H)[:, None, None]

    def _advance(self, t: float) -> None:
        r = self.rng
        while t >= self.next_step:
            up = r.random() < (0.75 if self.level < 0.85 else 0.25 if self.level > 1.2 else 0.5)
            factor = float(r.uniform(1.15, 1.3)) if up else float(r.uniform(0.7, 0.85))
            self.level *= factor
            if r.random() < 0.3:  # a lamp at one side: its light falls off across the zone
                a = r.uniform(0, 2 * math.pi)
                yy, xx = np.mgrid[0:FRAME_H // 4, 0:FRAME_W // 4].astype(np.float32) * 4
                ramp = ((xx - FRAME_W / 2) * math.cos(a) + (yy - FRAME_H / 2) * math.sin(a)) / (FRAME_W / 2)
                small = np.asarray(1 + float(r.uniform(0.1, 0.25)) * ramp, np.float32)
                self.side = np.asarray(cv2.resize(small, (FRAME_W, FRAME_H)), np.float32)[..., None]
            elif self.side is not None and r.random() < 0.5:
                self.side = None
            self.events.append((self.next_step, f"lamp x{factor:.2f}"))
            self.next_step += float(r.exponential(20.0)) + 3.0
        if self.shadow is not None and t >= self.shadow.end:
            self.shadow = None
        while self.shadow is None and t >= self.next_shadow:
            self.shadow = _Shadow.make(r, self.next_shadow)
            self.events.append((self.next_shadow, f"shadow {self.shadow.depth:.2f} deep"))
            self.next_shadow = self.shadow.end + float(r.exponential(15.0)) + 2.0
            if t >= self.shadow.end:
                self.shadow = None

    def at(self, t: float, noise: np.random.Generator) -> Callable[[Image], Gain]:
        self._advance(t)
        amplitude, period, phase = self.drift
        overall = self.level * (1 + amplitude * math.sin(2 * math.pi * t / period + phase))
        if self.pwm:
            overall *= 1 + float(noise.uniform(-self.pwm, self.pwm))
        field: Gain = overall
        if self.bands is not None:
            depth, rows = self.bands
            roll = 2 * math.pi * (MAINS_FLICKER_HZ * t % 1.0)
            field = overall * (1 + depth * np.sin(2 * math.pi * self._yy * (FRAME_H / rows) + roll)).astype(np.float32)
        if self.side is not None:
            field = field * self.side
        if self.shadow is not None:
            field = field * self.shadow.field(t)
        dt = 0.0 if self.last is None else t - self.last
        self.last = t

        def expose(frame: Image) -> Gain:
            if not self.exposure_tau:
                return field
            mean = float(frame[::8, ::8].mean()) * float(np.mean(field))  # what the sensor meters
            if self.metered is None:
                self.metered = mean
            wanted = min(1.6, max(0.6, self.metered / max(mean, 1.0)))
            self.gain += (wanted - self.gain) * (1 - math.exp(-dt / self.exposure_tau))
            return field * self.gain

        return expose


@dataclass
class _Shadow:
    """A soft shadow (a player leaning over): it comes in from outside, rests, and goes."""

    start: float
    arrive: float
    leave: float
    end: float
    come_from: tuple[float, float]
    rest: tuple[float, float]
    go_to: tuple[float, float]
    radii: tuple[float, float]
    soft: float
    depth: float

    @classmethod
    def make(cls, r: np.random.Generator, start: float) -> _Shadow:
        rest = (float(r.uniform(100, FRAME_W - 100)), float(r.uniform(80, FRAME_H - 80)))

        def outside() -> tuple[float, float]:
            a = r.uniform(0, 2 * math.pi)
            return rest[0] + math.cos(a) * 700, rest[1] + math.sin(a) * 700

        come, go = outside(), outside()
        arrive = start + float(r.uniform(0.8, 2.0))
        leave = arrive + float(r.uniform(0.5, 4.0))
        return cls(start, arrive, leave, leave + float(r.uniform(0.8, 2.0)), come, rest, go,
                   (float(r.uniform(150, 300)), float(r.uniform(120, 260))), float(r.uniform(40, 80)),
                   float(r.uniform(0.2, 0.45)))

    def field(self, t: float) -> NDArray[np.float32]:
        if t < self.arrive:
            u = (t - self.start) / (self.arrive - self.start)
            a, b = self.come_from, self.rest
        elif t < self.leave:
            u, a, b = 0.0, self.rest, self.rest
        else:
            u = (t - self.leave) / (self.end - self.leave)
            a, b = self.rest, self.go_to
        x, y = a[0] + (b[0] - a[0]) * u, a[1] + (b[1] - a[1]) * u
        yy, xx = np.mgrid[0:FRAME_H // 4, 0:FRAME_W // 4].astype(np.float32) * 4
        r = np.sqrt(((xx - x) / self.radii[0]) ** 2 + ((yy - y) / self.radii[1]) ** 2)
        inside = 1 / (1 + np.exp(np.clip((r - 1) * self.radii[0] / self.soft * 4, -30, 30)))
        small = np.asarray(1 - self.depth * inside, np.float32)
        return np.asarray(cv2.resize(small, (FRAME_W, FRAME_H)), np.float32)[..., None]


class FailingLight(Light):
    """Each frame its own exposure, up to ±15 % (a failing lamp, a camera hunting for its exposure)."""

    name = "failing"

    def at(self, t: float, noise: np.random.Generator) -> Callable[[Image], Gain]:
        gain = 1 + float(noise.uniform(-0.15, 0.15))
        return lambda frame: gain


class StressLight(Light):
    """Each frame its own light, in patches: a gain of 0.7 to 1.3, a gradient of up to ±25 % in any way, bands
    up to 12 %, and patches from a fifth of the picture down to a sixteenth of it wide, up to ±20 % (leaves
    swaying before a window in the sun, a disco ball). No webcam does it, nor can the watcher follow the
    finer patches: it should say it cannot see a steady picture, not guess."""

    name = "stress"

    def at(self, t: float, noise: np.random.Generator) -> Callable[[Image], Gain]:
        w, h = FRAME_W // 8, FRAME_H // 8
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32) * 8
        a = noise.uniform(0, 2 * math.pi)
        ramp = ((xx - FRAME_W / 2) * math.cos(a) + (yy - FRAME_H / 2) * math.sin(a)) / (FRAME_W / 2)
        patches = cv2.resize(noise.normal(0, 1, (6, 8)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
        fine = cv2.resize(noise.normal(0, 1, (24, 32)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
        bands = np.sin(2 * math.pi * yy / noise.uniform(100, 200) + noise.uniform(0, 2 * math.pi))
        small = (noise.uniform(0.7, 1.3) * (1 + noise.uniform(-0.25, 0.25) * ramp) * (1 + 0.2 * np.clip(patches, -1, 1))
                 * (1 + 0.2 * np.clip(fine, -1, 1)) * (1 + noise.uniform(0, 0.12) * bands))
        field = np.asarray(cv2.resize(np.asarray(small, np.float32), (FRAME_W, FRAME_H)), np.float32)[..., None]
        return lambda frame: field


def make_light(name: str, rng: np.random.Generator) -> Light:
    """The light model ``name`` (one of :data:`LIGHTS`) for one table."""
    kinds: dict[str, type[Light]] = {"steady": Light, "room": RoomLight, "failing": FailingLight,
                                     "stress": StressLight}
    if name not in kinds:
        raise ValueError(f"no light model {name!r}; choose one of {', '.join(LIGHTS)}")
    return kinds[name](rng)


# -- sequences, planned in seconds ---------------------------------------------------------------------


@dataclass(frozen=True)
class PlayTruth:
    """One card played: its kind, the frame it came in, the first frame it lay still, the last it was seen
    (frame numbers), and the same moments in seconds."""

    kind: str
    first: int
    still: int
    last: int
    start_s: float = 0.0
    still_s: float = 0.0
    end_s: float = 0.0


@dataclass
class Sequence_:
    """Frames, the moment of each (seconds), and what happened in them (plays)."""

    frames: list[Image] = field(default_factory=list)
    plays: list[PlayTruth] = field(default_factory=list)
    times: list[float] = field(default_factory=list)


@dataclass(frozen=True)
class Scene:
    """What is in view at one moment: cards, a hand, and how fast what moves moves (pixels a second)."""

    cards: tuple[tuple[str, str, Pose], ...] = ()
    hand: Hand | None = None
    velocity: tuple[float, float] | None = None
    moving_cards: tuple[int, ...] = ()


def random_pose(rng: np.random.Generator, *, flat: bool = False, height: float = 220.0) -> Pose:
    """A card lying anywhere in the picture, about ``height`` pixels tall, turned any way: inside the picture
    but for a sliver (a corner may poke out by up to 4 % of its height, as a card laid carelessly does)."""
    height = float(np.clip(height * rng.uniform(0.92, 1.08), CARD_HEIGHTS[0], CARD_HEIGHTS[1]))
    angle = float(rng.uniform(0, 360))
    tilt = tuple(rng.uniform(-0.05, 0.05, 8)) if not flat else tuple(rng.uniform(-0.02, 0.02, 8))
    corners = Pose(0.0, 0.0, angle, height, tilt).corners()
    low, high = corners.min(axis=0) + 0.04 * height, corners.max(axis=0) - 0.04 * height
    x = rng.uniform(-low[0], FRAME_W - high[0]) if FRAME_W - high[0] > -low[0] else FRAME_W / 2
    y = rng.uniform(-low[1], FRAME_H - high[1]) if FRAME_H - high[1] > -low[1] else FRAME_H / 2
    return Pose(float(x), float(y), angle, height, tilt)


def _away(rng: np.random.Generator, pose: Pose) -> tuple[float, float]:
    """A direction out of the frame, and the distance to get there from ``pose``."""
    a = rng.uniform(0, 2 * math.pi)
    reach = 520 + pose.height
    return math.cos(a) * reach, math.sin(a) * reach


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


def _constant(scene: Scene) -> Callable[[float, np.random.Generator], Scene]:
    return lambda u, noise: scene


def _speed(path: Callable[[float], float], u: float, seconds: float) -> float:
    """d(path)/dt at ``u`` of a span ``seconds`` long (path of u in 0..1)."""
    step = 1e-3
    return (path(min(1.0, u + step)) - path(max(0.0, u - step))) / (min(1.0, u + step) - max(0.0, u - step)) / seconds


class Player:
    """Writes the frames of plays, one after another, on one table under one light; keeps the truth of each.

    Everything a play is (its kind, where it lies, how long it is held, the hand) is drawn from ``rng``
    in seconds, before any frame; what differs frame to frame (the hand's tremor, the sensor's noise, a
    PWM lamp) from a generator of its own. So the same ``rng`` gives the same plays at any ``fps``."""

    def __init__(self, rng: np.random.Generator, edition: str, table: Table | None = None, *, fps: float = FPS,
                 light: str = "steady", mount: bool = False) -> None:
        self.rng = rng
        self.edition = edition
        self.table = table or make_table(rng, mount=mount)
        self.light = make_light(light, rng)
        self.noise = np.random.default_rng(int(rng.integers(2**63)))
        self.fps = fps
        self.t = 0.0
        self.out = Sequence_()

    def _span(self, seconds: float, scene: Callable[[float, np.random.Generator], Scene]) -> None:
        """The frames that fall in the next ``seconds``: ``scene(u, noise)`` for u from 0 to 1."""
        start, end = self.t, self.t + seconds
        while (t := len(self.out.frames) / self.fps) < end - 1e-9:
            self._frame(scene((t - start) / seconds if seconds > 0 else 0.0, self.noise), t)
        self.t = end

    def _frame(self, scene: Scene, t: float) -> None:
        motion = None if scene.velocity is None else (scene.velocity[0] / self.fps, scene.velocity[1] / self.fps)
        self.out.frames.append(render(self.table, self.noise, scene.cards, scene.hand, motion, scene.moving_cards,
                                      self.light.at(t, self.noise)))
        self.out.times.append(t)

    def empty(self, seconds: float) -> None:
        self._span(seconds, _constant(Scene()))

    def hand_passes(self) -> None:
        """A hand crosses the zone (reaching for a pile, pointing) without a card; sometimes it rests a moment."""
        rng = self.rng
        size = self.table.card_height / 220
        start = Hand(rng.uniform(-80, FRAME_W + 80), rng.uniform(-80, FRAME_H + 80), 0, rng.uniform(1.7, 2.3) * size)
        target = (rng.uniform(150, 490), rng.uniform(120, 360))
        seconds = int(rng.integers(3, 7)) / 10
        angle = math.degrees(math.atan2(target[1] - start.y, target[0] - start.x))
        travel = ((target[0] - start.x) * 2, (target[1] - start.y) * 2)
        velocity = (travel[0] / seconds, travel[1] / seconds)
        rest = int(rng.integers(3, 6)) / 10 if rng.random() < 0.25 else 0.0

        def at(u: float) -> Hand:
            return Hand(start.x + travel[0] * u, start.y + travel[1] * u, angle, start.scale)

        self._span(seconds / 2, lambda u, noise: Scene(hand=at(u / 2), velocity=velocity))
        if rest:
            middle = at(0.5)
            self._span(rest, lambda u, noise: Scene(hand=middle.moved(noise.normal(0, 0.6), noise.normal(0, 0.6))))
        self._span(seconds / 2, lambda u, noise: Scene(hand=at(0.5 + u / 2), velocity=velocity))

    def play(self, kind: str, *, hold: float | None = None) -> PlayTruth:
        """A card brought in with a hand, held still (the hand on it or gone), then taken away."""
        rng = self.rng
        pose = random_pose(rng, height=self.table.card_height)
        first, start_s = len(self.out.frames), self.t
        away = _away(rng, pose)
        a, _reach, hand = _holding(pose, rng)
        steps = int(rng.integers(2, 5))
        card = (kind, self.edition)

        def coming(u: float) -> float:  # the share of ``away`` still to go, slowing down
            return float(((steps - u * steps) / (steps + 1)) ** 1.5)

        def brought(u: float, noise: np.random.Generator) -> Scene:
            f, v = coming(u), abs(_speed(coming, u, steps / 10)) * 0.6
            shift = (away[0] * f, away[1] * f)
            return Scene(((*card, pose.moved(*shift)),), hand.moved(*shift), (away[0] * v, away[1] * v), (0,))

        self._span(steps / 10, brought)
        still, still_s = len(self.out.frames), self.t
        held = hold if hold is not None else int(rng.integers(5, 12)) / 10
        keep_hand = rng.random() < 0.4
        let_go = held if keep_hand else int(rng.integers(1, max(2, round(held * 10) - 3))) / 10
        out_dir = (math.cos(a) * 60, math.sin(a) * 60)

        def holding(u: float, noise: np.random.Generator) -> Scene:
            jitter = pose.moved(noise.normal(0, 0.5), noise.normal(0, 0.5), noise.normal(0, 0.2))
            return Scene(((*card, jitter),), hand.moved(noise.normal(0, 0.7), noise.normal(0, 0.7)))

        self._span(let_go, holding)
        if not keep_hand:
            gone = min(0.2, held - let_go)
            self._letting_go(gone, card, pose, hand, out_dir)
            self._span(held - let_go - gone, _constant(Scene(((*card, pose),))))
            self._span(0.1, _constant(Scene(((*card, pose),), hand.moved(out_dir[0] * 1.5, out_dir[1] * 1.5),
                                            (out_dir[0] * 15, out_dir[1] * 15))))
        steps = int(rng.integers(2, 5))

        def going(u: float) -> float:  # the share of ``away`` gone, speeding up
            return float(((u * steps + 1) / (steps + 1)) ** 1.5)

        def taken(u: float, noise: np.random.Generator) -> Scene:
            f, v = going(u), abs(_speed(going, u, steps / 10)) * 0.6
            shift = (away[0] * f, away[1] * f)
            return Scene(((*card, pose.moved(*shift)),), hand.moved(*shift), (away[0] * v, away[1] * v), (0,))

        self._span(steps / 10, taken)
        truth = PlayTruth(kind, first, still, len(self.out.frames) - 1, start_s, still_s, self.t)
        self.out.plays.append(truth)
        return truth


    def _letting_go(self, seconds: float, card: tuple[str, str], pose: Pose, hand: Hand,
                    out: tuple[float, float]) -> None:
        """The hand leaving a card it laid, along ``out`` (pixels each tenth of a second)."""
        self._span(seconds, lambda u, noise: Scene(((*card, pose),), hand.moved(out[0] * 1.5 * (1 + 2 * u),
                                                                                out[1] * 1.5 * (1 + 2 * u)),
                                                   (out[0] * 15, out[1] * 15)))

    def teach(self, kind: str, pose: Pose, shots: int) -> None:
        """An owner's teaching of one kind: brought in, still for each shot, nudged between them, taken away."""
        rng = self.rng
        first, start_s = len(self.out.frames), self.t
        a, _reach, hand = _holding(pose, rng)
        out = (math.cos(a) * 60, math.sin(a) * 60)
        speed = (out[0] * 10, out[1] * 10)
        card = (kind, self.edition)

        def shifted(lying: Pose, k: float) -> Scene:
            return Scene(((*card, lying.moved(out[0] * k, out[1] * k)),), hand.moved(out[0] * k, out[1] * k), speed,
                         (0,))

        self._span(0.3, lambda u, noise: shifted(pose, 6 * (1 - u)))
        still, still_s = len(self.out.frames), self.t
        for shot in range(shots):
            self._letting_go(0.2, card, pose, hand, out)
            self._span(0.8, _constant(Scene(((*card, pose),))))
            if shot < shots - 1:  # a nudge: the hand turns it a little
                self._span(0.1, _constant(Scene(((*card, pose),), hand, speed)))
                pose = pose.moved(rng.uniform(-20, 20), rng.uniform(-15, 15), rng.uniform(-20, 20))
                self._span(0.1, _constant(Scene(((*card, pose),), hand, speed)))
        self._span(0.1, _constant(Scene(((*card, pose),), hand, speed)))
        self._span(0.3, lambda u, noise: shifted(pose, 2.5 * (1 + 3 * u)))
        self.out.plays.append(PlayTruth(kind, first, still, len(self.out.frames) - 1, start_s, still_s, self.t))

def play_sequence(seed: int, edition: str, plays: int, *, kinds: Sequence[str] | None = None,
                  table_every: int = 25, fps: float = FPS, light: str = "steady",
                  mount: bool = False) -> Iterator[tuple[Sequence_, Table]]:
    """``plays`` plays in chunks of ``table_every`` (a new table, lamp and light each time), each chunk yielded
    with its frames and truth, sampled at ``fps``. Kinds are drawn at random (a kind again, 15 % of the
    time) unless given. ``mount``: each table's camera mount and focus drawn too (:func:`make_table`)."""
    rng = np.random.default_rng(seed)
    done = 0
    previous: str | None = None
    while done < plays:
        player = Player(rng, edition, fps=fps, light=light, mount=mount)
        player.empty(int(rng.integers(6, 10)) / 10)
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
            player.empty(int(rng.integers(3, 7)) / 10)
            if rng.random() < 0.2:
                player.hand_passes()
                player.empty(int(rng.integers(2, 4)) / 10)
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
                       find_s: tuple[float, float] = (2.0, 3.5), fps: float = FPS) -> tuple[Sequence_, Table]:
    """An owner teaching the camera: each kind found in the deck (``find_s`` seconds), brought in (0.3 s), laid
    in the zone and left still for each shot (0.2 s for the hand to let go, 0.8 s still), nudged between
    shots, then taken away (0.4 s). The first frames show the empty zone. Steady light, ``fps`` frames a second."""
    rng = np.random.default_rng(seed)
    player = Player(rng, edition, make_table(rng, "wood"), fps=fps)
    player.table.jpeg = None
    player.empty(0.8)
    for kind in kinds:
        player.empty(int(rng.integers(round(find_s[0] * FPS), round(find_s[1] * FPS))) / FPS)  # finding the card
        pose = Pose(FRAME_W / 2 + rng.uniform(-40, 40), FRAME_H / 2 + rng.uniform(-30, 30), rng.uniform(0, 360), 220,
                    tuple(rng.uniform(-0.02, 0.02, 8)))
        player.teach(kind, pose, shots)
    player.empty(0.6)
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
