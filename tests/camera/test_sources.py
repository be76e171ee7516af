"""The frame sources on their own: the pace they keep, the folder twin and a video, a webcam that is not there."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

cv2 = pytest.importorskip("cv2")

from bornes.drivers.camera.sources import (  # noqa: E402
    FolderSource,
    Pacer,
    SourceLost,
    SourceUnusable,
    V4l2Source,
    open_source,
)


class Clock:
    """A clock the test moves: the pacer's time and its sleeps."""

    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(round(seconds, 6))
        self.now += seconds


def test_the_pacer_keeps_ten_frames_a_second_and_never_bursts_after_a_slow_one() -> None:
    clock = Clock()
    pacer = Pacer(10, clock.monotonic, clock.sleep)
    pacer.wait()  # the first frame at once
    clock.now += 0.03  # 30 ms of work on it
    pacer.wait()
    assert clock.slept == [0.07]
    clock.now += 0.5  # a slow frame
    pacer.wait()
    pacer.wait()
    assert clock.slept == [0.07, 0.1]  # the next one a full interval later, not at once


def test_a_live_camera_faster_than_wanted_has_its_extra_frames_dropped() -> None:
    clock = Clock()
    pacer = Pacer(10, clock.monotonic, clock.sleep)
    let_through = []
    for _ in range(30):  # a camera at 30 frames a second, for one second
        let_through.append(pacer.due())
        clock.now += 1 / 30
    assert sum(let_through) == 10 and not clock.slept


def picture(value: int) -> NDArray[np.uint8]:
    return np.full((48, 64, 3), value, np.uint8)


def test_the_folder_twin_reads_in_name_order_then_what_comes_later_never_half_a_picture(tmp_path: Path) -> None:
    for name, value in (("000002.png", 20), ("000001.png", 10), (".000003.png", 99), ("notes.txt", 0)):
        if name.endswith(".png"):
            cv2.imwrite(str(tmp_path / name), picture(value))
        else:
            (tmp_path / name).write_text("not a picture")
    source = FolderSource(str(tmp_path), pace=False)
    assert source.open() == f"frames from {tmp_path}"
    got = [source.frame() for _ in range(3)]
    read = [(frame[0], int(frame[1][0, 0, 0])) for frame in got[:2] if frame is not None and frame[1] is not None]
    assert read == [("000001.png", 10), ("000002.png", 20)]
    assert got[2] is None  # waiting: the hidden one is still being written
    (tmp_path / ".000003.png").rename(tmp_path / "000003.png")
    frame = source.frame()
    assert frame is not None and frame[0] == "000003.png"
    (tmp_path / "000004.jpg").write_bytes(b"\xff\xd8 cut short")
    assert source.frame() == ("000004.jpg", None)  # a picture it cannot decode: the watcher's bad frame


def test_a_video_file_is_a_camera_that_stops_at_its_end(tmp_path: Path) -> None:
    path = tmp_path / "game.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10, (64, 48))
    for value in (40, 80, 120):
        writer.write(picture(value))
    writer.release()
    source = FolderSource(str(path), pace=False)
    assert source.open() == f"video {path}"
    names = [frame[0] for frame in iter(source.frame, None)]
    assert names == ["000001", "000002", "000003"]
    source.close()
    source.close()  # twice is fine


def test_what_is_neither_a_folder_nor_a_video_is_unusable_and_a_missing_folder_is_lost(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(SourceUnusable, match="neither a folder of pictures nor a video"):
        FolderSource(str(tmp_path / "notes.txt")).open()
    with pytest.raises(SourceLost, match="no folder"):
        FolderSource(str(tmp_path / "gone")).open()


def test_a_webcam_that_is_not_there_is_lost_and_a_file_is_no_webcam(tmp_path: Path) -> None:
    with pytest.raises(SourceLost, match=r"no camera at /dev/no-such-video \(unplugged\?\)"):
        V4l2Source("/dev/no-such-video").open()
    (tmp_path / "video0").write_text("")
    with pytest.raises(SourceUnusable, match="is not a video device"):
        V4l2Source(str(tmp_path / "video0")).open()
    with pytest.raises(SourceUnusable, match="unknown camera source"):
        open_source("usb", "/dev/video0")
