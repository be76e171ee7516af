"""``render(view, size, mode) -> Image``: every screen, as a pure function of its view.

No I/O and no clock: the same view always gives the same pixels, which is what lets the
display skip unchanged frames and the tests compare golden PNGs pixel for pixel.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PIL import Image

from firmware.screens import fonts, icons
from firmware.screens.canvas import BLACK, WHITE, Canvas
from firmware.screens.model import (
    KIND_TITLES,
    CoupFourrePrompt,
    ExtensionPrompt,
    FeedbackView,
    GameOverView,
    MenuView,
    NameEditView,
    PartnerPrompt,
    ScoreSheetView,
    ScreenView,
    SetupSummaryView,
    StatusView,
    TableView,
    TargetPrompt,
    UndoPrompt,
)
from firmware.screens.table import render_table

#: The two panel geometries: the 128×64 monochrome panels and the 256×64 grayscale ssd1322.
SMALL: tuple[int, int] = (128, 64)
WIDE: tuple[int, int] = (256, 64)

TITLE_H = 11


def default_mode(size: tuple[int, int]) -> str:
    """``"1"`` for the monochrome 128-wide panels, ``"L"`` (16 grays on the ssd1322) for 256 wide."""
    return "L" if size[0] >= 256 else "1"


def render(view: ScreenView, size: tuple[int, int] = SMALL, mode: str | None = None) -> Image.Image:
    """Draw ``view`` on a fresh image of ``size`` in ``mode`` (default: see :func:`default_mode`)."""
    canvas = Canvas(size, mode or default_mode(size))
    drawer = _DRAWERS.get(type(view))
    if drawer is None:
        raise TypeError(f"no screen for {type(view).__name__}")
    drawer(canvas, view)
    return canvas.finish()


# --- building blocks ----------------------------------------------------------------------


def _title(c: Canvas, text: str, right_text: str = "") -> None:
    c.box((0, 0, c.width - 1, TITLE_H - 1))
    if right_text:
        right = c.text_right(c.width - 2, 1, right_text, "text", fill=BLACK)
        c.text((2, 1), text, "text", fill=BLACK, width=right - 6)
    else:
        c.text_center(1, text, "text", fill=BLACK)


def _hint(c: Canvas, text: str) -> None:
    c.text_center(c.height - 6, text, "tiny")


def _largest_fit(c: Canvas, text: str, width: int, height: int, choices: Sequence[str]) -> tuple[str, list[str]]:
    """The largest font in ``choices`` whose word-wrapped text fits the box, and its lines."""
    for name in choices:
        lines = c.wrap(text, name, width)
        if len(lines) * fonts.cell(name)[1] <= height:
            return name, lines
    name = choices[-1]
    lines = c.wrap(text, name, width)
    return name, lines[: max(1, height // fonts.cell(name)[1])]


def _paragraph(c: Canvas, text: str, top: int, bottom: int, left: int = 0, right: int | None = None,
               choices: Sequence[str] = ("huge", "big", "bold7", "text", "small")) -> None:
    """Text as large as it fits in the box, centred both ways."""
    right = c.width if right is None else right
    name, lines = _largest_fit(c, text, right - left - 2, bottom - top, choices)
    line_h = fonts.cell(name)[1]
    y = top + (bottom - top - len(lines) * line_h) // 2
    for line in lines:
        c.text_center(y, line, name, left=left, right=right)
        y += line_h


def _list(c: Canvas, items: Sequence[str], selected: int, top: int, bottom: int, font: str = "text") -> None:
    """A scrolling list with the selected item inverted; arrows show there is more."""
    line_h = fonts.cell(font)[1] + 1
    visible = max(1, (bottom - top) // line_h)
    selected = max(0, min(selected, len(items) - 1)) if items else 0
    first = max(0, min(selected - visible // 2, len(items) - visible))
    for row, index in enumerate(range(first, min(len(items), first + visible))):
        y = top + row * line_h
        fill = WHITE
        if index == selected:
            c.box((0, y, c.width - 9, y + line_h - 1))
            fill = BLACK
        c.text((3, y + 1 if line_h > 9 else y), items[index], font, fill=fill, width=c.width - 14)
    if first > 0:
        c.draw.polygon([(c.width - 6, top + 4), (c.width - 2, top + 4), (c.width - 4, top + 1)], fill=WHITE)
    if first + visible < len(items):
        b = top + visible * line_h - 2
        c.draw.polygon([(c.width - 6, b - 3), (c.width - 2, b - 3), (c.width - 4, b)], fill=WHITE)


# --- screens ------------------------------------------------------------------------------


def _table(c: Canvas, view: TableView) -> None:
    if view.message is not None and view.message.refused:
        _refusal(c, view.message, view)
        return
    render_table(c, view)


def _refusal(c: Canvas, message: FeedbackView, view: TableView) -> None:
    """A refused play: the reason in the largest type that fits; it stays until the next input."""
    c.box((0, 0, c.width - 1, 12))
    c.text_center(0, "REFUSED", "bold7", fill=BLACK)
    _paragraph(c, message.text, 14, c.height - 8)
    _hint(c, f"{view.turn_name}: take the card back" if view.turn_name else "take the card back")


def _coup_fourre(c: Canvas, view: CoupFourrePrompt) -> None:
    title = "COUP FOURRE?"
    timer = f"{view.seconds_left}s" if view.seconds_left is not None else ""
    _title(c, title, timer)
    c.icon((4, TITLE_H + 6), icons.hazard_icon(view.hazard, 2))
    hazard = KIND_TITLES.get(view.hazard, view.hazard)
    c.text((32, TITLE_H + 3), hazard, "bold7", width=c.width - 33)
    c.text((32, TITLE_H + 17), f"on {view.side_name}", "text", width=c.width - 33)
    c.text_center(c.height - 17, "Scan your safety now", "small")
    _hint(c, "or press CF")


def _target(c: Canvas, view: TargetPrompt) -> None:
    _title(c, f"{view.card_title}: on whom?")
    left = 0
    if view.hazard is not None and c.width >= 256:
        c.icon((6, TITLE_H + 8), icons.hazard_icon(view.hazard, 2))
        left = 34
    sub = Canvas((c.width - left, c.height - TITLE_H - 8), c.mode)
    _list(sub, view.options, view.selected, 1, sub.height)
    c.image.paste(sub.image, (left, TITLE_H + 1))
    _hint(c, "NEXT choose   OK play")


def _partner(c: Canvas, view: PartnerPrompt) -> None:
    _title(c, "Coup fourre by?")
    _list(c, view.names, view.selected, TITLE_H + 2, c.height - 7)
    _hint(c, view.hint)


def _extension(c: Canvas, view: ExtensionPrompt) -> None:
    _title(c, "EXTENSION")
    c.text_center(TITLE_H + 2, f"{view.player_name} reached {view.trip_from}.", "text")
    c.text_center(TITLE_H + 13, f"Go on to {view.trip_to}?", "bold7")
    half = c.width // 2
    for index, (label, chosen) in enumerate((("YES", view.selected_yes), ("NO", not view.selected_yes))):
        x0 = index * half + 8
        x1 = (index + 1) * half - 9
        y0, y1 = c.height - 19, c.height - 3
        if chosen:
            c.box((x0, y0, x1, y1))
        else:
            c.frame((x0, y0, x1, y1))
        c.text_center(y0 + 2, label, "bold7", fill=BLACK if chosen else WHITE, left=x0, right=x1 + 1)


def _undo(c: Canvas, view: UndoPrompt) -> None:
    _title(c, "UNDO?")
    _paragraph(c, view.last_action_text, TITLE_H + 1, c.height - 8, choices=("big", "bold7", "text", "small"))
    _hint(c, "OK undo it   BACK keep it")


def _menu(c: Canvas, view: MenuView) -> None:
    _title(c, view.title)
    longest = max((len(item) for item in view.items), default=0)
    font = "text" if longest * fonts.cell("text")[0] <= c.width - 14 else "small"
    _list(c, view.items, view.selected, TITLE_H + 2, c.height - (7 if view.hint else 0), font=font)
    if view.hint:
        _hint(c, view.hint)


def _name_edit(c: Canvas, view: NameEditView) -> None:
    _title(c, view.title)
    font = "huge"
    cell_w, cell_h = fonts.cell(font)
    text = fonts.printable(view.text)
    cursor = max(0, min(view.cursor, len(text)))
    shown = text + (" " if cursor == len(text) else "")
    room = (c.width - 4) // cell_w
    first = max(0, cursor - room + 1)
    shown = shown[first : first + room]
    x0 = (c.width - len(shown) * cell_w) // 2
    y = TITLE_H + 8
    for index, char in enumerate(shown):
        x = x0 + index * cell_w
        fill = WHITE
        if first + index == cursor:
            c.box((x, y, x + cell_w - 1, y + cell_h - 1))
            fill = BLACK
        c.text((x, y), char, font, fill=fill)
    _hint(c, view.hint)


def _setup_summary(c: Canvas, view: SetupSummaryView) -> None:
    """Edition in the title bar, the sides as large as they fit, who deals, and the two buttons."""
    _title(c, view.edition)
    detail_top = c.height - 7 - fonts.cell("small")[1]
    _paragraph(c, view.sides, TITLE_H + 1, detail_top - 1, choices=("big", "bold7", "text", "small", "tiny"))
    if view.detail:
        c.text_center(detail_top, view.detail, "small")
    _hint(c, view.hint)


#: Short labels for the official rows when the panel is narrow.
_SHORT_ROWS: dict[str, str] = {
    "Milestones": "Miles",
    "Safeties": "Safeties",
    "Coups fourrés": "Coups f.",
    "Trip completed": "Trip",
    "Delayed action": "Delayed",
    "Safe trip": "Safe",
    "Shut-out": "Shut-out",
    "Extension": "Extend",
    "Total for deal": "Hand",
    "Brought forward": "Before",
    "Combined total": "TOTAL",
}
_TOTAL_ROWS = ("Total for deal", "Combined total")


def _sheet_font(size: tuple[int, int]) -> tuple[str, int]:
    font = "small" if size[0] >= 256 else "tiny"
    return font, fonts.cell(font)[1] + 1


def score_sheet_pages(view: ScoreSheetView, size: tuple[int, int] = SMALL) -> int:
    """How many pages the score sheet needs on a panel of ``size``."""
    _, line_h = _sheet_font(size)
    per_page = max(1, (size[1] - TITLE_H - 9) // line_h)
    return max(1, -(-len(view.rows) // per_page))


def _score_sheet(c: Canvas, view: ScoreSheetView) -> None:
    font, line_h = _sheet_font((c.width, c.height))
    per_page = max(1, (c.height - TITLE_H - 9) // line_h)
    pages = score_sheet_pages(view, (c.width, c.height))
    page = view.page % pages  # NEXT and BACK cycle through the pages, both ways
    _title(c, view.title, f"{page + 1}/{pages}")
    wide = c.width >= 256
    columns = view.columns
    label_w = 84 if wide else 34
    col_w = (c.width - label_w) // max(1, len(columns))
    names_y = TITLE_H + 1
    for index, (name, _values) in enumerate(columns):
        right = label_w + (index + 1) * col_w - 1
        c.text_right(right, names_y, c.fit(name, "small", col_w - 2), "small")
    top = names_y + 9
    rows = view.rows[page * per_page : (page + 1) * per_page]
    for offset, label in enumerate(rows):
        row = page * per_page + offset
        y = top + offset * line_h
        shown = label if wide else _SHORT_ROWS.get(label, label)
        if label in _TOTAL_ROWS:
            c.hline_dim(0, c.width - 1, y - 1)
        c.text((0, y), shown, font, width=label_w - 1)
        for index, (_name, values) in enumerate(columns):
            value = values[row] if row < len(values) else 0
            right = label_w + (index + 1) * col_w - 1
            c.text_right(right, y, "-" if value == 0 and label not in _TOTAL_ROWS else str(value), font)


def _game_over(c: Canvas, view: GameOverView) -> None:
    _title(c, "GAME OVER")
    verb = "win" if view.partners else "wins"
    c.text_center(TITLE_H + 1, f"{view.winner} {verb}!", "big")
    totals = sorted(view.totals, key=lambda item: -item[1])
    font = "small"
    y = TITLE_H + 18
    columns = 2 if len(totals) > 3 or c.width >= 256 else 1
    col_w = c.width // columns
    for index, (name, total) in enumerate(totals):
        col, line = index % columns, index // columns
        x0 = col * col_w
        yy = y + line * 9
        c.text((x0 + 4, yy), name, font, width=col_w - 34)
        c.text_right(x0 + col_w - 4, yy, str(total), font)


def _status(c: Canvas, view: StatusView) -> None:
    c.box((0, 0, c.width - 1, 14))
    c.text_center(1, f"! {view.title}", "bold7", fill=BLACK)
    if view.detail:
        _paragraph(c, view.detail, 16, c.height - 1, choices=("bold7", "text", "small", "tiny"))


_DRAWERS: dict[type, Callable[[Canvas, Any], None]] = {
    TableView: _table,
    CoupFourrePrompt: _coup_fourre,
    TargetPrompt: _target,
    PartnerPrompt: _partner,
    ExtensionPrompt: _extension,
    UndoPrompt: _undo,
    MenuView: _menu,
    SetupSummaryView: _setup_summary,
    NameEditView: _name_edit,
    ScoreSheetView: _score_sheet,
    GameOverView: _game_over,
    StatusView: _status,
}
