"""The table screen: every side at once, plus whose turn it is, the draw pile and the score.

Rows are laid out by the height they get (2, 3 or 4 sides on a 64-pixel-high panel; 5 or 6 in two
columns of compact cells) and the
panel width (128 or 256). Each row shows, left to right: the name (inverted on the side whose
turn it is) with the running score, the miles in the largest type that fits, the battle
state as an icon, the speed-limit mark, the four safety slots (a coup fourré is drawn
inverted), and a miles bar against the trip length along the bottom.
"""

from __future__ import annotations

from dataclasses import dataclass

from firmware.screens import icons
from firmware.screens.canvas import BLACK, WHITE, Canvas
from firmware.screens.model import KIND_TITLES, NEEDS_ROLL, NOT_STARTED, ROLLING, SAFETIES, SideView, TableView

HEADER_H = 8

#: Short words for the battle state, for layouts with room for a label beside the icon.
BATTLE_LABELS: dict[str, str] = {
    ROLLING: "Rolling",
    NOT_STARTED: "Start?",
    NEEDS_ROLL: "Roll?",
    "STOP": "Stop",
    "OUTOFGAS": "No gas",
    "FLATTIRE": "Flat",
    "ACCIDENT": "Accident",
}


@dataclass(frozen=True)
class RowLayout:
    """Where each part of a side's row goes, relative to the row's top-left corner."""

    name_font: str
    name_w: int  # width of the name box (inverted on the side to play)
    name_box_h: int
    score_font: str
    score_xy: tuple[int, int] | None  # None: the score goes top-right
    miles_font: str
    miles_right: int
    miles_dy: int
    battle_x: int
    battle_scale: int
    label: tuple[int, int, str] | None  # (x, dy, font) for a word beside the battle icon
    limit_x: int
    limit_scale: int
    safety_x: int
    safety_dy: int
    safety_pitch: int
    safety_scale: int
    cf_margin: int  # margin of the inverted box that marks a coup fourré
    bar_h: int
    seats: bool  # room for the seats ("A+C") after the name


def _layout(row_h: int, wide: bool) -> RowLayout:
    if row_h >= 26:  # two sides
        if wide:
            return RowLayout("bold7", 84, 14, "small", (1, 15), "huge", 132, -1, 138, 2, (166, 0, "bold7"),
                             226, 2, 167, 15, 12, 1, 1, 3, True)
        return RowLayout("bold7", 43, 14, "small", (1, 15), "huge", 86, -1, 89, 2, None,
                         115, 1, 46, 15, 10, 1, 1, 3, False)
    if row_h >= 17:  # three sides
        if wide:
            return RowLayout("text", 70, 10, "tiny", (1, 9), "big", 112, 0, 116, 1, (130, 3, "small"),
                             172, 1, 188, 3, 11, 1, 1, 2, True)
        return RowLayout("small", 35, 9, "tiny", (1, 9), "big", 72, 0, 73, 1, None,
                         85, 1, 97, 4, 8, 1, 0, 2, False)
    if wide:  # four sides
        return RowLayout("text", 66, 13, "small", None, "bold7", 96, 0, 100, 1, (114, 3, "small"),
                         158, 1, 176, 3, 10, 1, 1, 1, True)
    return RowLayout("small", 35, 13, "tiny", None, "bold7", 65, -1, 67, 1, None,
                     79, 1, 93, 6, 9, 1, 0, 1, False)


def draw_side(c: Canvas, side: SideView, y: int, row_h: int) -> None:
    """One side's row, ``row_h`` pixels high from ``y``."""
    lay = _layout(row_h, c.width >= 256)
    name_fill = WHITE
    if side.is_turn:
        c.box((0, y, lay.name_w - 2, y + lay.name_box_h - 1))
        name_fill = BLACK
    name_cell_h = {"small": 8, "text": 10, "bold7": 13}[lay.name_font]
    name_y = y + max(0, (lay.name_box_h - name_cell_h) // 2)
    name = side.name
    if lay.seats and side.seats:
        name = f"{side.name} {side.seats}"
    c.text((1, name_y), name, lay.name_font, fill=name_fill, width=lay.name_w - 3)

    score = f"{side.score}"
    if lay.score_xy is not None:
        c.text((lay.score_xy[0], y + lay.score_xy[1]), f"{score} pts", lay.score_font, width=lay.name_w - 2)
    else:
        c.text_right(c.width, y, score, lay.score_font)

    c.text_right(lay.miles_right, y + lay.miles_dy, str(side.miles), lay.miles_font)

    icon_h = 11 * lay.battle_scale
    content_h = row_h - lay.bar_h - 1
    icon_y = y + max(0, (content_h - icon_h) // 2)
    c.icon((lay.battle_x, icon_y), icons.hazard_icon(side.battle, lay.battle_scale))
    if lay.label is not None:
        label_x, label_dy, label_font = lay.label
        label = BATTLE_LABELS.get(side.battle, KIND_TITLES.get(side.battle, side.battle))
        c.text((label_x, y + label_dy), label, label_font, width=lay.limit_x - label_x - 2)
    if side.limited:
        limit_h = 11 * lay.limit_scale
        c.icon((lay.limit_x, y + max(0, (content_h - limit_h) // 2)), icons.hazard_icon("SPEEDLIMIT", lay.limit_scale))

    played = dict(side.safeties)
    size = 7 * lay.safety_scale
    for index, kind in enumerate(SAFETIES):
        x = lay.safety_x + index * lay.safety_pitch
        top = y + lay.safety_dy
        if kind not in played:
            # An empty slot: a faint dot, so the four places stay readable.
            c.draw.point((x + size // 2, top + size // 2), fill=c.dim)
            continue
        mask = icons.safety_icon(kind, lay.safety_scale)
        if played[kind]:
            m = lay.cf_margin
            c.box((x - m, top - m, x + size - 1 + m, top + size - 1 + m))
            c.icon((x, top), mask, fill=BLACK)
        else:
            c.icon((x, top), mask)

    c.bar(0, y + row_h - lay.bar_h - (1 if row_h >= 17 else 0), c.width, lay.bar_h, side.miles, side.trip)


def draw_header(c: Canvas, view: TableView) -> None:
    """The top line: the hand and whose turn (or the last action, or a warning), and the draw pile."""
    wide = c.width >= 256
    pile = "PLAY OUT" if view.play_out else (f"Draw {view.draw_pile}" if wide else f"Dr {view.draw_pile}")
    if view.status:
        c.banner(0, HEADER_H - 1, f"! {view.status}", "small")
        return
    right = c.text_right(c.width, 0, pile, "small")
    if view.message is not None and not view.message.refused:
        left = f"> {view.message.text}"
    else:
        turn = f"{view.turn_name} to play" if wide else f"{view.turn_name}'s turn"
        prefix = f"{view.edition_title} - " if wide and view.edition_title else ""
        left = f"{prefix}Hand {view.hand_number}  {turn}" if wide else f"H{view.hand_number} {turn}"
    c.text((0, 0), left, "small", width=right - 3)


def draw_cell(c: Canvas, side: SideView, x: int, y: int, w: int, h: int) -> None:
    """A compact side for 5 or 6 players on their own: name and miles, then score, safeties and state."""
    name_w = w - 30
    fill = WHITE
    if side.is_turn:
        c.box((x, y, x + name_w - 1, y + 7))
        fill = BLACK
    c.text((x + 1, y), side.name, "small", fill=fill, width=name_w - 2)
    c.text_right(x + w - 13, y, str(side.miles), "small")
    c.icon((x + w - 12, y), icons.hazard_icon(side.battle, 1))
    c.text((x + 1, y + 9), str(side.score), "tiny", width=22)
    played = dict(side.safeties)
    for index, kind in enumerate(SAFETIES):
        sx = x + 20 + index * 8
        if kind not in played:
            c.draw.point((sx + 3, y + 12), fill=c.dim)
        elif played[kind]:
            c.box((sx - 1, y + 8, sx + 7, y + 16))
            c.icon((sx, y + 9), icons.safety_icon(kind, 1), fill=BLACK)
        else:
            c.icon((sx, y + 9), icons.safety_icon(kind, 1))
    if side.limited:
        c.text((x + 54, y + 10), "50", "tiny")
        c.frame((x + 53, y + 9, x + 62, y + 16))
    c.bar(x, y + h - 1, w - 2, 1, side.miles, side.trip)


def render_table(c: Canvas, view: TableView) -> None:
    count = len(view.sides)
    if not 1 <= count <= 6:
        raise ValueError(f"the table screen shows 1 to 6 sides, not {count}")
    draw_header(c, view)
    if count > 4:  # 5 or 6 players on their own: two columns of three
        cell_w = c.width // 2
        cell_h = (c.height - HEADER_H) // 3
        for index, side in enumerate(view.sides):
            column, row = divmod(index, 3)
            draw_cell(c, side, column * cell_w + (1 if column else 0), HEADER_H + row * cell_h, cell_w, cell_h)
        return
    row_h = (c.height - HEADER_H) // max(count, 2)
    for index, side in enumerate(view.sides):
        draw_side(c, side, HEADER_H + index * row_h, row_h)
