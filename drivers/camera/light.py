"""Comparing two small pictures of the play zone through a change of light: pure, no I/O, no clock.

A room's light moves under a card: a webcam's auto-exposure answers a hand coming into view, a lamp
is switched on, a player's shadow crosses the zone, mains flicker rolls bands through a rolling
shutter's rows, a PWM-dimmed bulb wavers a few per cent from frame to frame. Each of these *multiplies*
what the camera sees by a gain that changes slowly across the picture; a card, a hand or a shadow's
sharp edge does not. So before two pictures are compared pixel by pixel, the gain that takes the one's
light to the other's is found and taken out:

1. Both pictures are cut into blocks (:data:`ROWS` x :data:`COLS`: rows of 8 pixels of the 160 x 120
   copy, so mains bands, a third of the picture apart, are followed) and each block's gain is the
   difference of its mean *logarithms* (a gain is a shift there), in each colour channel.
2. A block speaks for the light only if what is inside it changed by one gain throughout, or by one
   changing smoothly through it (its pixels' log ratios stray little from the blocks' gains spread
   over the pixels: a card or a hand over a textured table makes them stray; a shadow's soft edge does
   not), and without a change of colour the rest of the picture does not share (a white lamp
   brightens, it does not tint; a teal card on a brown table does).
3. The gain is those blocks' own; the blocks that did not speak (a card, a hand, what lies under them)
   take that of the blocks around them that did; then it is spread smoothly over the pixels. (A flat
   pale card on a flat pale cloth may speak for a gain of its own: its inside then differs no more,
   but its outline and its print still do, and a flat inside gives the recognizer nothing anyway.)

What differs once that gain is taken out is what light cannot do: a card laid, a hand moved. How many
blocks spoke for the light (:attr:`Comparison.speaking`) says how far it could be followed: a hand
moving over a part of the zone silences the blocks under it; a light changing in patches from frame to
frame, a camera being knocked about, silence most of them, and the watcher then says it cannot see a
steady picture.

The model is the one a rolling-shutter sensor under mains light gives: each row is exposed at its own
moment, so a lamp flickering at twice the mains frequency, under an exposure shorter than or not a
multiple of its period, darkens rows in bands that roll from frame to frame (the Raspberry Pi forum's
"Understanding Flicker Banding", viewtopic.php?t=207440: banding unless the exposure is a multiple of
10 ms on 50 Hz mains). A gain per pixel, smooth along rows and columns, covers it and the rest.
Costs about a millisecond a comparison
on this machine; the logarithms of each picture are taken once (:func:`picture`).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

#: Blocks the gain is found in: rows of 8 and columns of 20 pixels of the 160 x 120 copy.
ROWS, COLS = 15, 8
#: Added to every level before its logarithm: a dark pixel's noise is not a large ratio.
OFFSET = 8.0
#: A block whose pixels' log ratios spread more than this (about 7 %) changed by more than a gain.
SPREAD = 0.07
#: A block's colour (or its gain against its neighbours') may differ from the rest by this much (8 %).
TINT = 0.08
#: The most a gain may be: a lamp switched off or on is at most about that (more is a black or blinding frame).
MOST = 1.0


@dataclass(frozen=True)
class Picture:
    """One small copy of a frame and what comparing it needs, computed once."""

    small: NDArray[np.uint8]  # H x W x 3
    values: NDArray[np.float32]  # small + OFFSET, H x W x 3
    light: NDArray[np.float32]  # the log of each pixel's lightness (mean of the channels' logs), H x W
    blocks: NDArray[np.float32]  # each block's mean log, ROWS x COLS x 3


def picture(small: NDArray[np.uint8]) -> Picture:
    """``small`` (a colour picture whose sides divide by COLS and ROWS) ready to compare."""
    values = small.astype(np.float32) + np.float32(OFFSET)
    logs = np.log(values)
    blocks = np.asarray(cv2.resize(logs, (COLS, ROWS), interpolation=cv2.INTER_AREA), np.float32)
    return Picture(small, values, np.asarray(logs.mean(axis=2), np.float32), blocks)


@dataclass(frozen=True)
class Comparison:
    """Where ``now`` differs from ``then`` by more than a light can do, and how well the light was followed."""

    differs: NDArray[np.bool_]  # H x W
    speaking: float  # share of the blocks that spoke for the light (changed by one gain throughout)


def gain(then: Picture, now: Picture) -> tuple[NDArray[np.float32], NDArray[np.bool_]]:
    """The log gain in each block and channel that takes ``then``'s light to ``now``'s (ROWS x COLS x 3),
    and which blocks spoke for it."""
    change = now.blocks - then.blocks
    mean = change.mean(axis=2)
    # How far each block's pixels stray from a gain that changes smoothly through it (a shadow's soft edge
    # crosses a block): their log ratios against the blocks' gains spread over the pixels.
    height, width = then.light.shape
    smooth = cv2.resize(mean, (width, height), interpolation=cv2.INTER_LINEAR)
    stray = now.light - then.light - smooth
    square = cv2.resize(stray * stray, (COLS, ROWS), interpolation=cv2.INTER_AREA)
    offset = cv2.resize(stray, (COLS, ROWS), interpolation=cv2.INTER_AREA)
    spread = np.sqrt(np.maximum(square - offset * offset, 0.0))
    tint = change - mean[..., None]
    usual = np.median(tint.reshape(-1, 3), axis=0)
    speaks = (spread < SPREAD) & (np.abs(tint - usual).max(axis=2) < TINT)
    weight = speaks.astype(np.float32)
    if weight.sum() < 3:  # nothing to go by (everything changed): one gain for all, the middle one
        middle = np.median(change.reshape(-1, 3), axis=0)
        return np.asarray(np.broadcast_to(np.clip(middle, -MOST, MOST), change.shape), np.float32), speaks
    # The blocks that did not speak take the gain of those around them that did (a card, a hand, and what
    # lies under them); further than two blocks from any, the picture's own.
    total = cv2.GaussianBlur(change * weight[..., None], (0, 0), 1.0, borderType=cv2.BORDER_REPLICATE)
    near = cv2.GaussianBlur(weight, (0, 0), 1.0, borderType=cv2.BORDER_REPLICATE)[..., None]
    around = total / np.maximum(near, 1e-3)
    alone = near[..., 0] < 0.05
    if alone.any():
        around[alone] = (change * weight[..., None]).sum(axis=(0, 1)) / weight.sum()
    field = np.where(speaks[..., None], change, around)
    return np.asarray(np.clip(field, -MOST, MOST), np.float32), speaks


def relit(then: Picture, now: Picture) -> NDArray[np.float32]:
    """``then`` as it would look in ``now``'s light (float, H x W x 3, with the OFFSET)."""
    field, _ = gain(then, now)
    height, width = then.light.shape
    up = cv2.resize(np.exp(field), (width, height), interpolation=cv2.INTER_LINEAR)
    return np.asarray(then.values * up, np.float32)


def compare(then: Picture, now: Picture, level: float) -> Comparison:
    """Where ``now`` differs from ``then`` by more than ``level`` grey levels in any channel, ``then`` first
    brought to ``now``'s light."""
    field, speaks = gain(then, now)
    height, width = then.light.shape
    up = cv2.resize(np.exp(field), (width, height), interpolation=cv2.INTER_LINEAR)
    differs = np.asarray(np.abs(now.values - then.values * up).max(axis=2) > level)
    return Comparison(differs, float(speaks.mean()))


def blend(then: Picture, now: Picture, weight: float) -> Picture:
    """``then`` brought to ``now``'s light and mixed with it, ``weight`` of ``now`` (an empty zone following)."""
    mixed = relit(then, now) * (1 - weight) + now.values * weight - OFFSET
    return picture(np.clip(mixed + 0.5, 0, 255).astype(np.uint8))
