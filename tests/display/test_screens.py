"""Properties of the renderers that hold for any view: pure, sized, and honest about what they show."""

from __future__ import annotations

import dataclasses

import pytest
from PIL import ImageChops

from bornes.firmware.screens import SMALL, WIDE, render, score_sheet_pages
from bornes.firmware.screens.icons import (
    compact_hazard_icon,
    compact_safety_icon,
    hazard_icon,
    icon_names,
    safety_icon,
)
from bornes.firmware.screens.model import (
    BATTLE_HAZARDS,
    HAZARDS,
    ROLLING,
    SAFETIES,
    FeedbackView,
    ScoreSheetView,
    SideView,
    StatusView,
    TableView,
)
from bornes.firmware.screens.samples import sample_screens, sample_tables


def _same(a, b) -> bool:  # type: ignore[no-untyped-def]
    return ImageChops.difference(a, b).getbbox() is None


def test_render_is_pure() -> None:
    for view in sample_screens().values():
        assert _same(render(view), render(view))


def test_every_screen_renders_in_rgb_too() -> None:
    image = render(sample_tables()["table-4"], WIDE, "RGB")
    assert image.mode == "RGB" and image.size == WIDE


@pytest.mark.parametrize("count", [2, 3, 4, 5, 6])
def test_each_field_of_a_side_changes_the_picture(count: int) -> None:
    base = SideView("Ann", 300, 1000, ROLLING, score=100)
    table = TableView(tuple(dataclasses.replace(base, name=f"P{i}") for i in range(count)), draw_pile=30)
    variants = {
        "miles": dataclasses.replace(base, miles=325),
        "battle": dataclasses.replace(base, battle="STOP"),
        "limited": dataclasses.replace(base, limited=True),
        "safety": dataclasses.replace(base, safeties=(("EXTRATANK", False),)),
        "coup fourre": dataclasses.replace(base, safeties=(("EXTRATANK", True),)),
        "score": dataclasses.replace(base, score=150),
        "hand points": dataclasses.replace(base, hand_points=300),
        "turn": dataclasses.replace(base, is_turn=True),
    }
    for size in (SMALL, WIDE):
        before = render(dataclasses.replace(table, sides=(base, *table.sides[1:])), size)
        for what, side in variants.items():
            after = render(dataclasses.replace(table, sides=(side, *table.sides[1:])), size)
            assert not _same(before, after), f"{what} does not show with {count} sides at {size}"


def test_play_out_and_draw_pile_show() -> None:
    table = sample_tables()["table-3"]
    assert not _same(render(table), render(dataclasses.replace(table, draw_pile=16)))
    assert not _same(render(table), render(dataclasses.replace(table, draw_pile=0, play_out=True)))


def test_refusal_takes_the_screen_and_accepted_action_keeps_the_table() -> None:
    table = sample_tables()["table-4"]
    refused = render(dataclasses.replace(table, message=FeedbackView("Not your turn", refused=True)))
    accepted = render(dataclasses.replace(table, message=FeedbackView("Ann: 75 miles")))
    plain = render(table)
    # The accepted action changes only the header line; the refusal changes most of the screen.
    diff_accepted = ImageChops.difference(plain, accepted).getbbox()
    assert diff_accepted is not None and diff_accepted[3] <= 8
    diff_refused = ImageChops.difference(plain, refused).getbbox()
    assert diff_refused is not None and diff_refused[3] - diff_refused[1] > 40


def test_icons_exist_and_differ() -> None:
    hazards, safeties = icon_names()
    assert set(HAZARDS) <= set(hazards) and set(SAFETIES) == set(safeties)
    masks = [hazard_icon(name).tobytes() for name in HAZARDS]
    assert len(set(masks)) == len(HAZARDS)
    assert len({safety_icon(name).tobytes() for name in SAFETIES}) == 4
    assert hazard_icon("STOP", 2).size == (22, 22)
    for name in BATTLE_HAZARDS:
        assert hazard_icon(name).size == (11, 11)
    # The compact cells' forms: a row shorter, still all different, and each the full icon less one row.
    compact = [compact_hazard_icon(name) for name in hazards]
    assert {icon.size for icon in compact} == {(11, 10)}
    assert len({icon.tobytes() for icon in compact}) == len({hazard_icon(name).tobytes() for name in hazards})
    assert {compact_safety_icon(name).size for name in SAFETIES} == {(10, 9)}
    assert len({compact_safety_icon(name).tobytes() for name in SAFETIES}) == 4
    for name in (*hazards, *SAFETIES):
        full, small = (safety_icon(name), compact_safety_icon(name)) if name in SAFETIES else (
            hazard_icon(name), compact_hazard_icon(name))
        rows = [full.crop((0, y, full.width, y + 1)).tobytes() for y in range(full.height)]
        kept = [small.crop((0, y, small.width, y + 1)).tobytes() for y in range(small.height)]
        assert any(rows[:y] + rows[y + 1:] == kept for y in range(full.height)), name


def test_score_sheet_pages_depend_on_panel_and_cycle() -> None:
    sheet = ScoreSheetView(columns=(("A", tuple(range(11))), ("B", tuple(range(11)))))
    pages = score_sheet_pages(sheet, SMALL)
    assert pages >= 2
    first, last = render(sheet), render(dataclasses.replace(sheet, page=pages - 1))
    assert not _same(first, last)
    assert _same(render(dataclasses.replace(sheet, page=pages)), first)  # NEXT on the last page wraps
    assert _same(render(dataclasses.replace(sheet, page=-1)), last)  # BACK on the first page wraps


def test_long_and_foreign_text_fits_the_panel() -> None:
    """Text longer than the panel and letters outside ASCII are drawn, clipped to the panel."""
    for view in (StatusView("Ω unknown → card", "x" * 500),
                 TableView((SideView("A" * 40, 0, 700, ROLLING), SideView("Zoë", 99999, 700, "ACCIDENT")),
                           draw_pile=999)):
        for size in (SMALL, WIDE):
            image = render(view, size)
            assert image.size == size
            assert image.getbbox() is not None, f"{type(view).__name__} drew nothing at {size}"
            assert _same(image, render(view, size))


def test_wrong_side_count_is_refused() -> None:
    with pytest.raises(ValueError):
        render(TableView((), draw_pile=0))
