"""Every screen, for 2, 3 and 4 sides and both panel sizes, against its approved PNG."""

from __future__ import annotations

import pytest

from bornes.firmware.screens import SMALL, WIDE, render
from bornes.firmware.screens.samples import sample_screens
from tests.display.golden import check_golden

SCREENS = sample_screens()


@pytest.mark.parametrize("size", [SMALL, WIDE], ids=["128x64", "256x64"])
@pytest.mark.parametrize("name", sorted(SCREENS))
def test_screen_matches_golden(name: str, size: tuple[int, int]) -> None:
    image = render(SCREENS[name], size)
    assert image.size == size
    assert image.mode == ("1" if size == SMALL else "L")
    check_golden(f"{name}-{size[0]}x{size[1]}", image)
