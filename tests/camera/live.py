"""What the live camera's tests share: templates, a careful player's frames, the folder twin, a queue to watch.

The live tests are about the plumbing (a source, the camera's own process, the pipe, the queue, the
table), not the recognizer's accuracy, which the bench measures on thousands of plays: so the cards
here are played carefully (laid flat, the hand gone, held still for most of a second) on one table,
and the camera is taught from the printed faces themselves, as a flat scan of each card would.
"""

from __future__ import annotations

import functools
import os
import queue
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from bornes.drivers.camera.index import KINDS
from bornes.drivers.camera.templates import Taught, save
from tools.camera_scenes import FRAME_H, FRAME_W, Pose, StressLight, Table, face_bgr, make_table, render

EDITION = "road"


def teach_from_faces(folder: Path, edition: str = EDITION) -> Path:
    """Templates of every kind from its printed face (the check not run: a plumbing test needs no check)."""
    faces = {kind: [face_bgr(kind, edition)] for kind in KINDS}
    save(folder, Taught(faces, {}))
    return folder


@functools.cache
def table(seed: int = 7, kind: str = "felt") -> Table:
    """One table for a module's plays (its lamp and noise are made once: a few hundred ms)."""
    return make_table(np.random.default_rng(seed), kind)


def careful_plays(kinds: Sequence[str], *, seed: int = 5, on: Table | None = None,
                  edition: str = EDITION) -> list[NDArray[np.uint8]]:
    """Each card slid in (3 frames), held still with no hand over it (6), slid out (3), the zone empty (4)."""
    rng = np.random.default_rng(seed)
    setting = on or table()
    frames = [render(setting, rng) for _ in range(4)]
    for kind in kinds:
        pose = Pose(FRAME_W / 2 + rng.uniform(-50, 50), FRAME_H / 2 + rng.uniform(-30, 30), rng.uniform(0, 360), 220,
                    tuple(rng.uniform(-0.02, 0.02, 8)))
        card = (kind, edition)
        frames += [render(setting, rng, cards=[(*card, pose.moved(70 * s, 0))], motion=(70, 0), moving_cards=[0])
                   for s in (3, 2, 1)]
        frames += [render(setting, rng, cards=[(*card, pose)]) for _ in range(6)]
        frames += [render(setting, rng, cards=[(*card, pose.moved(-90 * s, 0))], motion=(-90, 0), moving_cards=[0])
                   for s in (1, 2, 3)]
        frames += [render(setting, rng) for _ in range(4)]
    return frames


def careful_teaching(kinds: Sequence[str], *, seed: int = 6, on: Table | None = None,
                     edition: str = EDITION) -> list[NDArray[np.uint8]]:
    """An owner teaching: each card slid in, left still for three shots (nudged between them), taken away."""
    rng = np.random.default_rng(seed)
    setting = on or table()
    frames = [render(setting, rng) for _ in range(4)]
    for kind in kinds:
        pose = Pose(FRAME_W / 2 + rng.uniform(-40, 40), FRAME_H / 2 + rng.uniform(-30, 30), rng.uniform(0, 360), 220)
        card = (kind, edition)
        frames += [render(setting, rng, cards=[(*card, pose.moved(80 * s, 0))], motion=(80, 0), moving_cards=[0])
                   for s in (2, 1)]
        for shot in range(3):
            frames += [render(setting, rng, cards=[(*card, pose)]) for _ in range(4)]
            if shot < 2:  # a nudge
                pose = pose.moved(rng.uniform(-20, 20), rng.uniform(-15, 15), rng.uniform(-15, 15))
                frames.append(render(setting, rng, cards=[(*card, pose)], motion=(10, 0), moving_cards=[0]))
        frames += [render(setting, rng, cards=[(*card, pose.moved(-90 * s, 0))], motion=(-90, 0), moving_cards=[0])
                   for s in (1, 2, 3)]
        frames += [render(setting, rng) for _ in range(4)]
    return frames


def empty_frames(count: int, *, seed: int = 9, on: Table | None = None) -> list[NDArray[np.uint8]]:
    rng = np.random.default_rng(seed)
    setting = on or table()
    return [render(setting, rng) for _ in range(count)]


def unsteady_frames(count: int, *, seed: int = 10, on: Table | None = None) -> list[NDArray[np.uint8]]:
    """The empty zone under a light that changes in patches every frame (the generator's stress), at 10 a second."""
    rng = np.random.default_rng(seed)
    setting = on or table()
    light = StressLight(rng)
    return [render(setting, rng, light=light.at(n / 10, rng)) for n in range(count)]


class Twin:
    """The camera's folder twin: frames written in name order, each whole before the camera sees it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.count = 0

    def write(self, frames: Iterable[NDArray[np.uint8] | bytes], suffix: str = ".png") -> list[str]:
        names = []
        for frame in frames:
            self.count += 1
            name = f"{self.count:06d}{suffix}"
            hidden = self.folder / f".{name}"
            if isinstance(frame, bytes):
                hidden.write_bytes(frame)
            elif not cv2.imwrite(str(hidden), frame):
                raise OSError(f"cannot write {hidden}")
            os.replace(hidden, self.folder / name)  # the camera never sees half a picture
            names.append(name)
        return names


def events_until(events: queue.Queue[object], done: Callable[[list[object]], bool],
                 timeout: float = 60.0) -> list[object]:
    """Every event until ``done(events so far)`` (or the timeout: the list so far, for the assertion)."""
    seen: list[object] = []
    deadline = time.monotonic() + timeout
    while not done(seen) and time.monotonic() < deadline:
        try:
            seen.append(events.get(timeout=0.2))
        except queue.Empty:
            continue
    return seen
