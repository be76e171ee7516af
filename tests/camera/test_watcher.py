"""The camera's recognizer and watcher on generated scenes: plays read once, bad frames dropped in one line."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from numpy.typing import NDArray

cv2 = pytest.importorskip("cv2")

from bornes.drivers.camera.enrol import AllTaught, Enroller  # noqa: E402
from bornes.drivers.camera.templates import Taught  # noqa: E402
from bornes.drivers.camera.watch import Dropped, FrameFault, PlayWatcher, Read, Refusal  # noqa: E402
from tools.camera_scenes import enrolment_sequence, play_sequence  # noqa: E402

KINDS = ("STOP", "STOP", "ROLL", "D100", "D25", "GASOLINE")


@functools.cache
def taught() -> Taught:
    """An owner's enrolment, on its own table and seed: the plays below are never seen in it."""
    frames, _ = enrolment_sequence(11, "road", kinds=sorted(set(KINDS)))
    enroller = Enroller(kinds=sorted(set(KINDS)))
    for frame in frames.frames:
        for news in enroller.feed(frame):
            if isinstance(news, AllTaught):
                return news.taught
    raise AssertionError("the enrolment never finished")


@functools.cache
def plays() -> tuple[list[NDArray[np.uint8]], list[tuple[str, int, int]]]:
    chunk, _ = next(play_sequence(21, "road", len(KINDS), kinds=KINDS))
    return chunk.frames, [(p.kind, p.first, p.last) for p in chunk.plays]


def outcomes(frames: list[NDArray[np.uint8] | None]) -> list[tuple[int, str]]:
    watcher = PlayWatcher(taught().deck())
    found = []
    for index, frame in enumerate(frames):
        for outcome in watcher.feed(frame, str(index)):
            if isinstance(outcome, Read):
                found.append((index, outcome.kind))
            elif isinstance(outcome, Refusal):
                found.append((index, "refused"))
    return found


def test_enrolment_reads_every_kind_back() -> None:
    assert taught().describe_check().endswith("kinds read back"), taught().describe_check()


def test_each_read_is_a_card_played_never_a_wrong_kind_twice_or_out_of_nothing() -> None:
    frames, truth = plays()
    reads = outcomes(list(frames))
    matched: set[int] = set()
    for index, kind in reads:
        play = next((n for n, (_, first, last) in enumerate(truth) if first <= index <= last + 1), None)
        assert play is not None, f"a read at frame {index} with no card played"
        if kind == "refused":
            continue
        assert kind == truth[play][0], f"frame {index}: read {kind}, played {truth[play][0]}"
        assert play not in matched, f"play {play} read twice"
        matched.add(play)
    assert len(matched) >= len(truth) - 2, f"read {len(matched)} of {len(truth)}: {reads}"


def test_bad_frames_each_give_one_line_and_change_nothing() -> None:
    frames, _ = plays()
    clean = outcomes(list(frames))
    black = np.zeros_like(frames[0])
    white = np.full_like(frames[0], 255)
    other = cv2.resize(frames[0], (320, 240))
    spoilt: list[NDArray[np.uint8] | None] = []
    where = {5: black, 6: black, 30: white, 31: white, 32: white, 55: other, 80: None}
    for index, frame in enumerate(frames):
        if index in where:  # an extra bad frame (or run) before this one, as a camera would deliver it
            spoilt.append(where[index])
            if index in (5, 30, 31):
                continue
        spoilt.append(frame)
    watcher = PlayWatcher(taught().deck())
    dropped = [o for i, f in enumerate(spoilt) for o in watcher.feed(f, str(i)) if isinstance(o, Dropped)]
    assert [d.fault for d in dropped] == [FrameFault.BLACK, FrameFault.BLINDING, FrameFault.SIZE,
                                          FrameFault.UNREADABLE]
    assert all("\n" not in d.detail for d in dropped)
    assert [kind for _, kind in outcomes(spoilt)] == [kind for _, kind in clean]


@pytest.mark.parametrize("where", [(170.0, 150.0), (470.0, 330.0)])
def test_a_card_found_in_the_changed_part_is_placed_where_it_lies_in_the_frame(where: tuple[float, float]) -> None:
    """The recognizer looks only inside the changed part's box: its corners must come back in the frame's
    coordinates (once they came back in the box's own, and every masked frame was flattened from elsewhere)."""
    from tools.camera_scenes import Pose, make_table, render

    rng = np.random.default_rng(5)
    table = make_table(rng, "wood")
    table.jpeg = None
    pose = Pose(where[0], where[1], 20.0, 210.0)
    empty = render(table, rng)
    frame = render(table, rng, [("ROLL", "road", pose)])
    changed = (cv2.absdiff(frame, empty).max(axis=2) > 30).astype(np.uint8) * 255
    sighting = taught().deck().recognise(frame, changed)
    assert sighting.kind == "ROLL", sighting
    assert sighting.corners is not None
    centre = sighting.corners.mean(axis=0)
    assert np.hypot(centre[0] - where[0], centre[1] - where[1]) < 15, (centre, where)
