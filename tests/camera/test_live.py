"""The live camera through its real process: the folder twin, ``bornes camera-reader``, the pipe, the queue.

Each test starts a real :class:`CameraReader` (so a real child process running OpenCV) on a folder the
test writes frames into, and reads the events the referee's loop would get.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from bornes.drivers.camera.reader import CameraReader  # noqa: E402
from bornes.drivers.camera.wire import CameraSettings  # noqa: E402
from bornes.drivers.events import (  # noqa: E402
    CameraBlind,
    CameraSees,
    KindShown,
    ReaderBack,
    ReaderLost,
    ReaderProblem,
)
from bornes.engine import CardKind  # noqa: E402
from tests.camera.live import (  # noqa: E402
    Twin,
    careful_plays,
    empty_frames,
    events_until,
    teach_from_faces,
    unsteady_frames,
)

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return teach_from_faces(tmp_path_factory.mktemp("taught") / "camera")


@pytest.fixture
def twin(tmp_path: Path) -> Twin:
    return Twin(tmp_path / "frames")


def camera(twin: Twin, templates: Path, **settings: object) -> CameraSettings:
    return CameraSettings("folder", str(twin.folder), fps=50, templates=str(templates), **settings)  # type: ignore[arg-type]


@pytest.fixture
def events() -> queue.Queue[object]:
    return queue.Queue()


@pytest.fixture
def reader_of(events: queue.Queue[object]) -> Iterator[list[CameraReader]]:
    started: list[CameraReader] = []
    yield started
    for reader in started:
        reader.close()


def start(readers: list[CameraReader], settings: CameraSettings, events: queue.Queue[object],
          unusable_wait: float = 60.0) -> CameraReader:
    reader = CameraReader(settings, events, min_backoff=0.1, max_backoff=0.5, unusable_wait=unusable_wait)
    readers.append(reader.start())
    return reader


def back(seen: list[object]) -> bool:
    return any(isinstance(e, ReaderBack) for e in seen)


def kinds(seen: list[object]) -> list[str]:
    return [e.kind.value for e in seen if isinstance(e, KindShown)]


def test_cards_shown_are_kinds_on_the_queue_in_order(twin: Twin, templates: Path, events: queue.Queue[object],
                                                     reader_of: list[CameraReader]) -> None:
    twin.write(careful_plays(["ROLL", "D100", "D100"]))
    reader = start(reader_of, camera(twin, templates), events)
    seen = events_until(events, lambda s: len(kinds(s)) >= 3)
    assert isinstance(seen[0], ReaderBack) and seen[0].reader == "camera", seen
    assert kinds(seen) == ["ROLL", "D100", "D100"], seen
    shown = [e for e in seen if isinstance(e, KindShown)]
    assert all(e.reader == "camera" and e.frame.endswith(".png") for e in shown)
    assert not [e for e in seen if isinstance(e, ReaderProblem | ReaderLost)], seen
    assert reader.reads == 3 and reader.connected


@pytest.mark.slow  # a camera process a test: the fast tier keeps the cards read in order, the referee free of cv2
def test_pictures_written_later_are_read_as_they_come(twin: Twin, templates: Path, events: queue.Queue[object],
                                                      reader_of: list[CameraReader]) -> None:
    twin.write(empty_frames(4))
    start(reader_of, camera(twin, templates), events)
    assert back(events_until(events, back))
    twin.write(careful_plays(["STOP"], seed=11)[4:])
    assert kinds(events_until(events, lambda s: bool(kinds(s)))) == ["STOP"]


@pytest.mark.slow  # a camera process a test: the fast tier keeps the cards read in order, the referee free of cv2
def test_bad_frames_each_give_one_problem_and_no_read(twin: Twin, templates: Path, events: queue.Queue[object],
                                                      reader_of: list[CameraReader]) -> None:
    calm = empty_frames(12)
    black = np.zeros_like(calm[0])
    white = np.full_like(calm[0], 255)
    small = cv2.resize(calm[0], (320, 240))
    twin.write(calm[:3])
    twin.write([black, black, black])  # a lens covered for a moment: one line for the run
    twin.write(calm[3:5])
    twin.write([white, white])  # the lamp in the lens
    twin.write(calm[5:7])
    twin.write([small])  # another camera's picture
    twin.write(calm[7:9])
    twin.write([b"\xff\xd8 not a whole picture"], suffix=".jpg")
    twin.write(calm[9:])
    start(reader_of, camera(twin, templates), events)
    problems = [e for e in events_until(events, lambda s: len([e for e in s if isinstance(e, ReaderProblem)]) >= 4)
                if isinstance(e, ReaderProblem)]
    assert [(p.kind, p.detail) for p in problems] == [("camera-frame", "black"), ("camera-frame", "overexposed"),
                                                       ("camera-frame", "size"), ("camera-frame", "unreadable")]
    later = events_until(events, lambda s: False, timeout=1.0)
    assert not later, later  # nothing more: no read, no second line for the same run


@pytest.mark.slow
def test_a_camera_that_cannot_see_a_steady_picture_is_a_status_until_it_sees_and_then_it_reads(
        twin: Twin, templates: Path, events: queue.Queue[object], reader_of: list[CameraReader]) -> None:
    """Three seconds of a light changing in patches every frame: one CameraBlind (the table's "Camera: the light
    flickers"), nothing read or refused meanwhile; steady again: one CameraSees, and the next card is read."""
    twin.write(empty_frames(4))
    twin.write(unsteady_frames(30))
    twin.write(empty_frames(12, seed=14))
    twin.write(careful_plays(["ROLL"], seed=15))
    start(reader_of, camera(twin, templates), events)
    seen = events_until(events, lambda s: bool(kinds(s)))
    assert [type(e) for e in seen] == [ReaderBack, CameraBlind, CameraSees, KindShown], seen
    blind = seen[1]
    assert isinstance(blind, CameraBlind) and blind.reason == "unsteady" and blind.reader == "camera"
    assert "no steady picture" in blind.detail


@pytest.mark.slow  # a camera process a test: the fast tier keeps the cards read in order, the referee free of cv2
def test_a_camera_never_taught_is_lost_once_and_says_how_to_teach_it(
        twin: Twin, tmp_path: Path, events: queue.Queue[object], reader_of: list[CameraReader]) -> None:
    twin.write(careful_plays(["ROLL"]))
    reader = start(reader_of, camera(twin, tmp_path / "nothing-taught"), events)
    seen = events_until(events, lambda s: bool(s))
    seen += events_until(events, lambda s: False, timeout=2.0)
    assert len(seen) == 1 and isinstance(seen[0], ReaderLost), seen
    assert "not been taught" in str(seen[0].detail) and "bornes enroll --camera" in str(seen[0].detail)
    assert reader.pid is not None  # the process stays, its camera open, to be taught from the panel


@pytest.mark.slow  # a camera process a test: the fast tier keeps the cards read in order, the referee free of cv2
def test_a_folder_unplugged_mid_game_is_lost_then_back_and_reads_again(
        twin: Twin, templates: Path, events: queue.Queue[object], reader_of: list[CameraReader]) -> None:
    twin.write(careful_plays(["ROLL"]))
    start(reader_of, camera(twin, templates), events)
    assert kinds(events_until(events, lambda s: bool(kinds(s)))) == ["ROLL"]
    away = twin.folder.with_name("unplugged")
    twin.folder.rename(away)
    lost = events_until(events, lambda s: any(isinstance(e, ReaderLost) for e in s))
    assert [type(e) for e in lost] == [ReaderLost], lost
    assert "gone" in lost[0].detail  # type: ignore[attr-defined]
    time.sleep(0.5)  # a few reopenings fail meanwhile: still one line
    away.rename(twin.folder)
    twin.write(careful_plays(["D50"], seed=12))
    again = events_until(events, lambda s: bool(kinds(s)))
    assert [type(e) for e in again] == [ReaderBack, KindShown], again
    assert kinds(again) == ["D50"]


@pytest.mark.slow  # a camera process a test: the fast tier keeps the cards read in order, the referee free of cv2
def test_the_camera_process_killed_is_lost_restarted_and_reads_again(
        twin: Twin, templates: Path, events: queue.Queue[object], reader_of: list[CameraReader]) -> None:
    twin.write(empty_frames(4))
    reader = start(reader_of, camera(twin, templates), events)
    assert back(events_until(events, back))
    first = reader.pid
    assert first is not None
    os.kill(first, signal.SIGKILL)
    seen = events_until(events, back)
    assert [type(e) for e in seen] == [ReaderLost, ReaderBack], seen
    assert "killed by SIGKILL" in seen[0].detail  # type: ignore[attr-defined]
    assert reader.restarts == 1 and reader.pid not in (None, first)
    twin.write(careful_plays(["GASOLINE"], seed=13)[4:])
    assert kinds(events_until(events, lambda s: bool(kinds(s)))) == ["GASOLINE"]


@pytest.mark.slow  # a camera process a test: the fast tier keeps the cards read in order, the referee free of cv2
def test_a_zone_outside_the_picture_is_one_line_and_no_restart_loop(
        twin: Twin, templates: Path, events: queue.Queue[object], reader_of: list[CameraReader]) -> None:
    twin.write(empty_frames(3))
    reader = start(reader_of, camera(twin, templates, zone=(400, 300, 400, 300)), events, unusable_wait=60.0)
    seen = events_until(events, lambda s: bool(s))
    seen += events_until(events, lambda s: False, timeout=2.0)
    assert len(seen) == 1 and isinstance(seen[0], ReaderLost), seen
    assert seen[0].detail == "camera.zone 400,300,400,300 lies outside the 640x480 picture"
    assert reader.pid is None and reader.restarts == 0


@pytest.mark.slow  # a camera process a test: the fast tier keeps the cards read in order, the referee free of cv2
def test_the_zone_is_all_the_camera_looks_at(twin: Twin, templates: Path, events: queue.Queue[object],
                                            reader_of: list[CameraReader]) -> None:
    frames = careful_plays(["ROLL", "STOP"])
    for frame in frames:  # a hand forever moving in the corner, outside the zone: never "still", unless cut out
        frame[:60, :60] = np.random.default_rng(len(frame)).integers(0, 255, (60, 60, 3), np.uint8)
    twin.write(frames)
    start(reader_of, camera(twin, templates, zone=(60, 60, 580, 420)), events)
    assert kinds(events_until(events, lambda s: len(kinds(s)) >= 2)) == ["ROLL", "STOP"]


@pytest.mark.slow  # a camera process a test: the fast tier keeps the cards read in order, the referee free of cv2
def test_the_camera_process_ends_when_the_referee_dies(twin: Twin, templates: Path, tmp_path: Path) -> None:
    twin.write(empty_frames(3))
    settings = camera(twin, templates)
    fields = {name: getattr(settings, name) for name in settings.__slots__}
    script = textwrap.dedent(f"""
        import queue, sys, time
        from bornes.drivers.camera.reader import CameraReader
        from bornes.drivers.camera.wire import CameraSettings
        events = queue.Queue()
        reader = CameraReader(CameraSettings(**{fields!r}), events).start()
        events.get(timeout=60)
        print(reader.pid, flush=True)
        time.sleep(600)
    """)
    referee = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=REPO)
    try:
        assert referee.stdout is not None
        child = int(referee.stdout.readline())
        os.kill(referee.pid, signal.SIGKILL)  # no close(), no goodbye: only the pipe's end tells the camera
        referee.wait(10)
        deadline = time.monotonic() + 10
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(child), "the camera's process outlived the referee (and kept the camera)"
    finally:
        referee.kill()
        referee.wait()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().split(") ")[1][0] != "Z"
    except FileNotFoundError:
        return False


def test_the_referees_process_never_loads_numpy_or_opencv(twin: Twin, templates: Path) -> None:
    twin.write(careful_plays(["ROLL"]))
    settings = camera(twin, templates)
    fields = {name: getattr(settings, name) for name in settings.__slots__}
    script = textwrap.dedent(f"""
        import queue, sys
        from bornes.drivers.camera.reader import CameraReader
        from bornes.drivers.camera.wire import CameraSettings
        from bornes.drivers.events import KindShown
        events = queue.Queue()
        with CameraReader(CameraSettings(**{fields!r}), events):
            while not isinstance(events.get(timeout=60), KindShown):
                pass
        print(sorted(m for m in sys.modules if m.split(".")[0] in ("numpy", "cv2")))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=90, cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_every_kind_code_is_a_card_kind() -> None:
    from bornes.drivers.camera.index import KINDS

    assert tuple(kind.value for kind in CardKind) == KINDS


@pytest.mark.slow  # a camera process a test: the fast tier keeps the cards read in order, the referee free of cv2
def test_the_pi_camera_without_picamera2_is_one_line_and_no_restart_loop(
        tmp_path: Path, templates: Path, events: queue.Queue[object], reader_of: list[CameraReader]) -> None:
    import importlib.util

    if importlib.util.find_spec("picamera2") is not None:
        pytest.skip("picamera2 is installed here: this is the line a machine without it shows")
    settings = CameraSettings("picamera2", "0", templates=str(templates))
    reader = start(reader_of, settings, events)
    seen = events_until(events, lambda s: bool(s))
    seen += events_until(events, lambda s: False, timeout=1.5)
    assert len(seen) == 1 and isinstance(seen[0], ReaderLost), seen
    assert str(seen[0].detail).startswith("picamera2 is not installed: sudo apt install python3-picamera2")
    assert reader.pid is None and reader.restarts == 0
