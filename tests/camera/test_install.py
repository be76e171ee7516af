"""``install.sh --camera``: the camera extra, python3-picamera2 where the system has it, the video group, and a
drop-in that lets the referee's sandbox reach the camera (checked by systemd-analyze like the unit itself)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.appliance.test_systemd import ANALYZE, UNIT, needs_analyze, run_install, verify

REPO = Path(__file__).resolve().parents[2]
DROP_IN = REPO / "systemd" / "bornes-camera.conf"
MODULES = REPO / "systemd" / "bornes-camera-modules.conf"


@pytest.mark.slow  # install.sh run whole; the camera's drop-in checks stay in the fast tier
def test_install_dry_run_with_the_camera(tmp_path: Path) -> None:
    result = run_install(tmp_path, "--dry-run", "--camera")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for expected in (
        "apt-get install -y --no-install-recommends python3-picamera2",
        "usermod --append --groups gpio,i2c,dialout,audio,video bornes",
        f"/opt/bornes/venv/bin/pip install --upgrade {REPO}\\[camera\\]",
        f"install -D -m 0644 {DROP_IN} /etc/systemd/system/bornes.service.d/camera.conf",
        f"install -D -m 0644 {MODULES} /etc/modules-load.d/bornes-camera.conf",
        "modprobe videodev",
        "bornes enroll --camera",
    ):
        assert expected in out, expected
    assert not (tmp_path / "executed").exists(), "a dry run executes nothing"
    plain = run_install(tmp_path, "--dry-run").stdout
    assert "picamera2" not in plain and "[camera]" not in plain and "video" not in plain
    gone = run_install(tmp_path, "--dry-run", "--uninstall").stdout
    assert "/etc/systemd/system/bornes.service.d/camera.conf" in gone
    assert "/etc/modules-load.d/bornes-camera.conf" in gone


def test_not_a_pi_gets_no_picamera2(tmp_path: Path) -> None:
    out = run_install(tmp_path, "--dry-run", "--camera", "--no-pi").stdout
    assert "skipped: not a Pi (--no-pi): a USB webcam works through V4L2" in out
    assert "apt-get install -y --no-install-recommends python3-picamera2" not in out


@needs_analyze
def test_the_camera_drop_in_verifies_with_the_unit(tmp_path: Path) -> None:
    assert ANALYZE is not None and shutil.which("true")
    (tmp_path / "bornes.service.d").mkdir()
    (tmp_path / "bornes.service.d" / "camera.conf").write_text(DROP_IN.read_text())
    assert verify(UNIT.read_text(), tmp_path) == ""
    (tmp_path / "bornes.service.d" / "camera.conf").write_text(DROP_IN.read_text().replace("DeviceAllow", "DeviceAlow"))
    assert "DeviceAlow" in verify(UNIT.read_text(), tmp_path)  # the drop-in is read: a mistake in it is seen


def test_the_drop_in_opens_the_video_devices_and_nothing_more() -> None:
    lines = [line for line in DROP_IN.read_text().splitlines() if line and not line.startswith("#")]
    assert lines == ["[Service]", "SupplementaryGroups=video", "DeviceAllow=char-video4linux rw",
                     "DeviceAllow=char-media rw", "DeviceAllow=char-dma_heap rw", "MemoryHigh=136M", "MemoryMax=168M"]


#: The camera's process at its worst, by its budget (issue 30; python -m bench --only camera measures it).
CAMERA_MB = 80


def test_the_drop_in_makes_room_for_the_camera_process_and_still_fits_a_pi_zero() -> None:
    """The camera's own process is a child of the referee, in its unit's cgroup: the unit's MemoryHigh must
    hold the referee's measured peak and the camera's budget together (else the kernel throttles the game
    every time a card is looked at), and with the phone pages and the bridge the Pi keeps 100 MB."""
    from tests.web.test_under_attack import MEASURED, _megabytes, unit_values

    values = {**unit_values("bornes.service"), **unit_values("bornes-camera.conf")}
    referee_mb, _ = MEASURED["bornes.service"]
    assert referee_mb + CAMERA_MB < _megabytes(values["MemoryHigh"]) < _megabytes(values["MemoryMax"])
    total = _megabytes(values["MemoryMax"]) + sum(
        _megabytes(unit_values(name)["MemoryMax"]) for name in ("bornes-web.service", "bornes-bridge.service"))
    assert total <= 512 - 100, total
