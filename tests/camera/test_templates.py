"""The taught faces on disk: an incomplete set is refused in one line, naming what is missing."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("cv2")

from bornes.drivers.camera.templates import Taught, TemplateError, load, save
from tools.camera_scenes import face_bgr


def _taught(folder: Path, kinds: tuple[str, ...]) -> Path:
    save(folder, Taught({kind: [face_bgr(kind, "road")] for kind in kinds}, {}))
    return folder


def test_templates_missing_a_kind_are_refused_by_name(tmp_path: Path) -> None:
    folder = _taught(tmp_path / "camera", ("STOP", "ROLL"))
    with pytest.raises(TemplateError, match=r"not taught: D25, D50, .*ACCIDENT"):
        load(folder)
    with pytest.raises(TemplateError, match=r"not taught: D100 \(bornes enroll --camera\)"):
        load(folder, kinds=("STOP", "D100"))


def test_templates_with_the_kinds_asked_for_load(tmp_path: Path) -> None:
    folder = _taught(tmp_path / "camera", ("STOP", "ROLL"))
    assert sorted(load(folder, kinds=("STOP", "ROLL")).faces) == ["ROLL", "STOP"]
    assert sorted(load(folder, complete=False).faces) == ["ROLL", "STOP"]
