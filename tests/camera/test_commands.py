"""The owner's commands for the camera: ``bornes enroll --camera`` (live, photos, list, snapshot), ``doctor``,
``run --camera``, and the messages between the referee and the camera's process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bornes.drivers.camera.wire import (
    Back,
    BadFrame,
    CameraSettings,
    Lost,
    Seen,
    Steady,
    Teaching,
    Unsteady,
    Unsure,
    Unusable,
    WireError,
    decode,
    encode,
)

REPO = Path(__file__).resolve().parents[2]
BORNES = [sys.executable, "-m", "bornes.firmware.cli"]


def bornes(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*BORNES, *args], cwd=REPO, capture_output=True, text=True, timeout=timeout)


def config(tmp_path: Path, camera: str, *, game: str = "") -> Path:
    path = tmp_path / "table.toml"
    path.write_text(f'[pins]\nfactory = "mock"\n[display]\npanel = "dummy"\n[state]\ndir = "{tmp_path / "state"}"\n'
                    f"{game}[camera]\n{camera}")
    return path


# -- the wire ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("message", [
    Back("webcam /dev/video0, 640x480"), Lost("no camera at /dev/video0 (unplugged?)"), Unusable("zone outside"),
    Seen("D100", "000123"), Unsure("000124", "two kinds", "STOP", "ROLL"), Unsure("000125", "not clear"),
    BadFrame("000126", "black", "the camera sees black"), Teaching("show", "D25", 1, 19),
    Unsteady("000127", "unsteady", "no steady picture (a light wavering, the camera moving?)"), Steady("000147"),
    Teaching("taught", index=18, total=19, detail="…", alike=(("D100", "D200"),)),
])
def test_every_message_crosses_the_pipe_unchanged(message: object) -> None:
    line = encode(message)  # type: ignore[arg-type]
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert decode(line) == message


@pytest.mark.parametrize("line", [b"not json\n", b"[1, 2]\n", b'{"type": "explode"}\n', b'{"type": "seen"}\n',
                                  b'{"type": "seen", "kind": "D25", "frame": "1", "extra": 1}\n',
                                  b'{"type": "seen", "kind": ["D25"], "frame": "1"}\n',
                                  b'{"type": "teaching", "step": "taught", "alike": [["D100"]]}\n',
                                  b'{"type": "lost", "detail": "' + b"x" * 70_000 + b'"}\n'])
def test_a_line_that_is_not_a_message_is_refused_in_one_line(line: bytes) -> None:
    with pytest.raises(WireError) as caught:
        decode(line)
    assert "\n" not in str(caught.value)


def test_the_settings_make_the_camera_process_command() -> None:
    settings = CameraSettings("v4l2", "/dev/v4l/by-id/usb-cam-video-index0", 800, 600, 10, (10, 20, 300, 400), "/t")
    argv = settings.argv(["bornes"])
    assert argv == ["bornes", "camera-reader", "--source", "v4l2", "--device", "/dev/v4l/by-id/usb-cam-video-index0",
                    "--size", "800x600", "--fps", "10", "--templates", "/t", "--zone", "10,20,300,400"]
    with pytest.raises(ValueError, match="x, y, width, height"):
        CameraSettings(zone=(1, 2, 3))


# -- bornes enroll --camera --------------------------------------------------------------------------------


@pytest.mark.slow  # a live camera process taught; the watcher's enrolment stays in the fast tier
def test_teaching_a_few_kinds_again_from_the_live_camera_says_each_step(tmp_path: Path) -> None:
    pytest.importorskip("cv2")
    from tests.camera.live import Twin, careful_teaching, teach_from_faces

    teach_from_faces(tmp_path / "state" / "camera")  # taught before; two kinds are shown again
    twin = Twin(tmp_path / "frames")
    twin.write(careful_teaching(["STOP", "ROLL"]))
    table = config(tmp_path, f'source = "folder"\ndevice = "{twin.folder}"\nfps = 50\n')
    done = bornes("enroll", "--camera", "--kind", "stop", "--kind", "ROLL", "--config", str(table), "--seconds", "120")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Teaching the camera (frames from ")
    assert lines[1] == "Show Stop (STOP), 1 of 2: lay it in the zone and take your hand away."
    assert "  shot 1 of 3 (nudge the card a little)" in lines and "  shot 3 of 3: take it away" in lines
    assert "Show Roll (ROLL), 2 of 2: lay it in the zone and take your hand away." in lines
    assert any(line.startswith("Taught: ") and "of 19 kinds read back" in line for line in lines), lines
    index = json.loads((tmp_path / "state" / "camera" / "templates.json").read_text())
    assert index["generation"] == 2 and len(index["kinds"]) == 19
    assert set(index["kinds"]["STOP"]) == {"faces", "checks"}  # shown again: its held-back shot checks it
    listed = bornes("enroll", "--camera", "--list", "--config", str(table))
    assert listed.returncode == 0 and "STOP           Stop" in listed.stdout, listed.stdout


@pytest.mark.slow  # the fast tier teaches from the live camera above; the panel's French teaching is a picture test
def test_teaching_in_french_speaks_french(tmp_path: Path) -> None:
    pytest.importorskip("cv2")
    from tests.camera.live import Twin, careful_teaching

    twin = Twin(tmp_path / "frames")
    twin.write(careful_teaching(["ROLL"]))
    table = config(tmp_path, f'source = "folder"\ndevice = "{twin.folder}"\nfps = 50\n',
                   game='[game]\nedition = "dujardin"\nplayers = 2\nnames = ["Anaïs", "Bruno"]\n')
    done = bornes("enroll", "--camera", "--kind", "ROLL", "--config", str(table), "--seconds", "120")
    assert "Montrez Feu Vert (ROLL), 1 sur 1\u00a0: posez-la dans la zone et retirez la main." in done.stdout, \
        done.stdout + done.stderr


def test_a_snapshot_shows_the_zone(tmp_path: Path) -> None:
    cv2 = pytest.importorskip("cv2")
    from tests.camera.live import Twin, empty_frames

    twin = Twin(tmp_path / "frames")
    twin.write(empty_frames(2))
    table = config(tmp_path, f'source = "folder"\ndevice = "{twin.folder}"\nzone = [100, 50, 400, 300]\n')
    done = bornes("enroll", "--camera", "--snapshot", str(tmp_path / "seen.png"), "--config", str(table))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{tmp_path / 'seen.png'}: 640x480 from frames from ")
    picture = cv2.imread(str(tmp_path / "seen.png"))
    assert tuple(picture[50, 250]) == (0, 0, 255) and tuple(picture[200, 100]) == (0, 0, 255)  # the zone, in red


@pytest.mark.parametrize(("args", "camera", "said", "code"), [
    (["--kind", "D300"], 'source = "folder"\ndevice = "."\n', "D300 is not a kind code; the kinds are D25, D50", 65),
    (["--pictures", "nowhere"], 'source = "folder"\ndevice = "."\n', "nowhere is not a folder", 65),
    ([], None, "No [camera] section in the config", 78),
])
def test_a_teaching_that_cannot_start_says_why_in_one_line(tmp_path: Path, args: list[str], camera: str | None,
                                                           said: str, code: int) -> None:
    table = config(tmp_path, camera or "") if camera is not None else tmp_path / "none.toml"
    if camera is None:
        table.write_text('[pins]\nfactory = "mock"\n')
    done = bornes("enroll", "--camera", *args, "--config", str(table))
    assert done.returncode == code, done.stderr
    errors = [line for line in done.stderr.splitlines() if line]
    assert len(errors) == 1 and said in errors[0], done.stderr


# -- doctor, run ----------------------------------------------------------------------------------------------


def test_doctor_says_what_the_camera_lacks(tmp_path: Path) -> None:
    table = config(tmp_path, 'source = "v4l2"\ndevice = "/dev/no-such-video"\n')
    lines = [line for line in bornes("doctor", "--config", str(table), timeout=120).stdout.splitlines()
             if line.split()[1] == "camera"]
    assert lines == ["FAIL camera /dev/no-such-video: does not exist; plug the webcam in, or set camera.device "
                     "(ls /dev/v4l/by-id/)",
                     f"FAIL camera templates: not taught yet (no {tmp_path}/state/camera/templates.json): bornes "
                     "enroll --camera, or Teach the camera in the panel's menu"]


def test_doctor_names_look_alike_kinds(tmp_path: Path) -> None:
    folder = tmp_path / "state" / "camera"
    folder.mkdir(parents=True)
    (folder / "templates.json").write_text(json.dumps({
        "format": "bornes-camera-templates", "version": 1, "generation": 3,
        "kinds": {kind: {"faces": []} for kind in ("D25", "D50", "D100", "D200")},
        "read_back": ["D25", "D50"], "lookalikes": [["D100", "D200", 0.02]]}))
    table = config(tmp_path, f'source = "folder"\ndevice = "{tmp_path}"\n')
    lines = [line for line in bornes("doctor", "--config", str(table), timeout=120).stdout.splitlines()
             if "camera templates" in line]
    assert len(lines) == 1 and lines[0].startswith("WARN camera templates: 4 kinds taught, 2 read back by the check; "
                                                   "not taught: D75, ACCIDENT"), lines
    assert lines[0].endswith("look alike: D100 / D200 (show them again: bornes enroll --camera --kind …)")


def test_run_with_a_camera_that_is_not_there_stops_in_one_line(tmp_path: Path) -> None:
    done = bornes("run", "--emulate", "--camera", str(tmp_path / "nowhere"), "--config",
                  str(config(tmp_path, "")), timeout=60)
    assert done.returncode == 66
    assert done.stderr.strip() == f"bornes: --camera {tmp_path / 'nowhere'}: no such folder or video file"


def test_the_sample_configs_camera_section_works_once_uncommented(tmp_path: Path) -> None:
    import re

    from bornes.firmware.appliance.config import load_config

    sample = (REPO / "config" / "bornes.sample.toml").read_text()
    assert load_config(str(REPO / "config" / "bornes.sample.toml")).camera is None  # commented out: no camera
    keys = r"\[camera\]|source =|device =|width =|height =|fps =|zone =|templates ="
    start = sample.index("# [camera]")  # the camera's block only: other sections have a "# device =" too (rc522)
    end = sample.find("\n\n", start)
    block = re.sub(rf"(?m)^# ({keys})", r"\1", sample[start:end])
    on = tmp_path / "on.toml"
    on.write_text(sample[:start] + block + sample[end:])
    camera = load_config(str(on)).camera
    assert camera is not None and camera.source == "v4l2" and camera.zone == (80, 40, 480, 400)


# -- bornes camera-test ---------------------------------------------------------------------------------------


@pytest.mark.slow
def test_camera_test_prints_reads_and_refusals_as_json_and_the_cameras_status_on_standard_error(
        tmp_path: Path) -> None:
    """A recording with three seconds of a light it cannot follow, a card it reads, and a card of a deck it was
    never taught left lying there: one JSON line for the read, one for the refusal; the status on stderr."""
    cv2 = pytest.importorskip("cv2")
    import numpy as np

    from bornes.drivers.camera.index import KINDS
    from tests.camera.live import Twin, careful_plays, empty_frames, table, unsteady_frames
    from tools.camera_scenes import Pose, face_bgr, render

    faces = Twin(tmp_path / "faces")
    for kind in KINDS:
        cv2.imwrite(str(faces.folder / f"{kind}.png"), face_bgr(kind, "road"))
    frames = Twin(tmp_path / "frames")
    frames.write(empty_frames(4) + unsteady_frames(30) + empty_frames(12, seed=14) + careful_plays(["ROLL"], seed=15))
    rng = np.random.default_rng(16)
    stranger = ("STOP", "night", Pose(320, 240, 10.0, 220.0))
    frames.write([render(table(), rng, [stranger]) for _ in range(25)] + empty_frames(4, seed=17))
    done = bornes("camera-test", "--enrol", str(faces.folder), "--frames", str(frames.folder), "--json")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [sorted(line) for line in lines] == [["frame", "kind"], ["frame", "refused"]], lines
    assert lines[0]["kind"] == "ROLL"
    status = [line.split(": ", 1)[1] for line in done.stderr.splitlines() if ": camera " in line]
    assert status == ["camera cannot see: no steady picture (a light wavering, the camera moving?)",
                      "camera sees again"], done.stderr
