"""Golden-image comparison: pixel for pixel, with the actual image written beside a failure.

To approve a changed screen, look at ``tests/golden/<name>.actual.png`` and copy it over
``<name>.png`` (or run ``BORNES_APPROVE=1 .venv/bin/pytest tests/display`` to write them all).
"""

from __future__ import annotations

import os
from pathlib import Path

from PIL import Image, ImageChops

GOLDEN_DIR = Path(__file__).resolve().parent.parent / "golden"


def check_golden(name: str, actual: Image.Image) -> None:
    """Fail unless ``actual`` equals ``tests/golden/<name>.png`` exactly (size, mode and pixels)."""
    expected_path = GOLDEN_DIR / f"{name}.png"
    actual_path = GOLDEN_DIR / f"{name}.actual.png"
    if os.environ.get("BORNES_APPROVE") == "1":
        GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
        actual.save(expected_path)
        actual_path.unlink(missing_ok=True)
        return
    if not expected_path.exists():
        actual.save(actual_path)
        raise AssertionError(f"no golden image {expected_path.name}; wrote {actual_path}. "
                             f"Look at it and approve it with: cp {actual_path} {expected_path}")
    with Image.open(expected_path) as opened:
        expected = opened.copy()
    same = (expected.size == actual.size and expected.mode == actual.mode
            and ImageChops.difference(expected, actual).getbbox() is None)
    if not same:
        actual.save(actual_path)
        raise AssertionError(f"{name} differs from its golden image; wrote {actual_path}. "
                             f"If the new image is right, approve it with: cp {actual_path} {expected_path}")
    actual_path.unlink(missing_ok=True)
