"""``render(view, size, mode) -> Image``: every screen, as a pure function of its view.

No I/O and no clock: the same view always gives the same pixels, which is what lets the
display skip unchanged frames and the tests compare golden PNGs pixel for pixel.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PIL import Image

from bornes.firmware.language import names as naming
from bornes.firmware.language.buttons import button_phrasings, key_word, keyed
from bornes.firmware.language.i18n import N_, _, pgettext
from bornes.firmware.screens import fonts, icons
from bornes.firmware.screens.canvas import BLACK, MARGIN, WHITE, Canvas
from bornes.firmware.screens.canvas import layout_problems as canvas_problems
from bornes.firmware.screens.legend import LEGEND, LEGEND_TITLE, legend_sample
from bornes.firmware.screens.model import (
    KIND_TITLES,
    CoupFourrePrompt,
    ExtensionPrompt,
    FeedbackView,
    GameOverView,
    LegendView,
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
from bornes.firmware.screens.table import render_table

#: The two panel geometries: the 128×64 monochrome panels and the 256×64 grayscale ssd1322.
SMALL: tuple[int, int] = (128, 64)
WIDE: tuple[int, int] = (256, 64)

TITLE_H = 11
#: The key-hint line at the foot of a screen: the 5×8 font, whose M, N, H and W differ (in the
#: 4×6 font "NEXT/BACK move" read "HEXT/BACK Hove").
HINT_FONT = "small"
HINT_H = 8


def default_mode(size: tuple[int, int]) -> str:
    """``"1"`` for the monochrome 128-wide panels, ``"L"`` (16 grays on the ssd1322) for 256 wide."""
    return "L" if size[0] >= 256 else "1"


def render(view: ScreenView, size: tuple[int, int] = SMALL, mode: str | None = None) -> Image.Image:
    """Draw ``view`` on a fresh image of ``size`` in ``mode`` (default: see :func:`default_mode`)."""
    return draw(view, size, mode).finish()


def draw(view: ScreenView, size: tuple[int, int] = SMALL, mode: str | None = None) -> Canvas:
    """The drawn canvas, with the boxes of every mark (what the layout check reads)."""
    canvas = Canvas(size, mode or default_mode(size))
    drawer = _DRAWERS.get(type(view))
    if drawer is None:
        raise TypeError(f"no screen for {type(view).__name__}")
    drawer(canvas, view)
    return canvas


def layout_problems(view: ScreenView, size: tuple[int, int] = SMALL) -> list[str]:
    """Overlaps, marks off the panel and cut texts of one screen (empty when the layout is right)."""
    return canvas_problems(draw(view, size).boxes, size)


# --- building blocks ----------------------------------------------------------------------


def _title(c: Canvas, text: str | Sequence[str], right_text: str = "") -> None:
    c.box((0, 0, c.width - 1, TITLE_H - 1))
    if right_text:
        right = c.text_right(c.width - 2, 1, right_text, "text", fill=BLACK)
        chosen, font = c.choose_font(text, ("text", "small"), right - 6, words_first=True)
        c.text((2, 1 if font == "text" else 2), chosen, font, fill=BLACK)
    else:
        chosen, font = c.choose_font(text, ("text", "small"), c.width - 4, words_first=True)
        c.text_center(1 if font == "text" else 2, chosen, font, fill=BLACK)


def _hint(c: Canvas, text: str | Sequence[str]) -> None:
    """The buttons this screen waits for, on the last line, in the longest phrasing that fits; on a
    keypad table, named by their keys ("+ more   Enter back": ``language/buttons.py``)."""
    phrasings = [keyed(text)] if isinstance(text, str) else [keyed(option) for option in text]
    c.text_center(c.height - HINT_H, c.choose(phrasings, HINT_FONT, c.width - 2 * MARGIN), HINT_FONT,
                  left=MARGIN, right=c.width - MARGIN)


def _menu_hint() -> tuple[str, ...]:
    return (_("NEXT/BACK move  OK choose"), _("NEXT/BACK  OK choose"), _("NEXT / OK"))


def _largest_fit(c: Canvas, text: str, width: int, height: int, choices: Sequence[str]) -> tuple[str, list[str]]:
    """The largest font in ``choices`` whose word-wrapped text fits the box, and its lines."""
    for name in choices:
        lines = c.wrap(text, name, width)
        if len(lines) * fonts.cell(name)[1] <= height and all(c.fits(line, name, width) for line in lines):
            return name, lines
    name = choices[-1]
    return name, c.wrap(text, name, width)


def _paragraph(c: Canvas, text: str, top: int, bottom: int, left: int = MARGIN, right: int | None = None,
               choices: Sequence[str] = ("huge", "big", "bold7", "text", "small")) -> None:
    """Text as large as it fits in the box, centred both ways (a text too long shows as cut)."""
    right = c.width - MARGIN if right is None else right
    name, lines = _largest_fit(c, text, right - left, bottom - top, choices)
    line_h = fonts.cell(name)[1]
    room = max(1, (bottom - top) // line_h)
    y = top + max(0, (bottom - top - len(lines) * line_h) // 2)
    for index, line in enumerate(lines[:room]):
        c.text_center(y, line, name, left=left, right=right)
        if index == room - 1 and len(lines) > room:
            c.record("text", (left, y, right - 1, y + line_h - 1), " ".join(lines[room:]), cut=True)
        y += line_h


def item_phrasings(item: str) -> tuple[str, ...]:
    """A menu item, then shorter forms: without its bracketed detail, then before its colon."""
    options = [item]
    if " (" in item:
        options.append(item.split(" (")[0])
    return tuple(options)


def _list(c: Canvas, items: Sequence[str], selected: int, top: int, bottom: int, font: str = "text") -> None:
    """A scrolling list with the selected item inverted; arrows show there is more.

    Each item takes the largest font in which one of its phrasings fits the line; an item too
    long for one line even in the smallest font is wrapped onto two lines, never cut.
    """
    width = c.width - 14
    line_h = fonts.cell(font)[1] + 1
    entries: list[tuple[list[str], str, int]] = []  # lines, font, height
    for item in items:
        chosen, item_font = c.choose_font(item_phrasings(item), (font, "small", "tiny"), width)
        if c.fits(chosen, item_font, width):
            entries.append(([chosen], item_font, line_h))
        else:
            lines = c.wrap(item, "tiny", width)
            entries.append((lines, "tiny", max(line_h, 7 * len(lines) + 1)))
    if not entries:
        return
    selected = max(0, min(selected, len(entries) - 1))
    room = bottom - top
    first = last = selected
    used = entries[selected][2]
    above = (room - used) // 2
    while first > 0 and entries[first - 1][2] <= above:
        first -= 1
        above -= entries[first][2]
        used += entries[first][2]
    while last + 1 < len(entries) and used + entries[last + 1][2] <= room:
        last += 1
        used += entries[last][2]
    while first > 0 and used + entries[first - 1][2] <= room:
        first -= 1
        used += entries[first][2]
    y = top
    for index in range(first, last + 1):
        lines, item_font, height = entries[index]
        fill = WHITE
        if index == selected:  # its last row stays dark: an accent on the next item must not join it
            c.box((0, y, c.width - 10, y + height - 2))
            fill = BLACK
        cell_h = fonts.cell(item_font)[1]
        for number, line in enumerate(lines):
            dy = (height - len(lines) * cell_h) // 2 if len(lines) == 1 else 1 + number * 7
            c.text((3, y + max(0, dy)), line, item_font, fill=fill)
        y += height
    right = c.width - 1 - MARGIN
    if first > 0:
        c.polygon([(right - 4, top + 4), (right, top + 4), (right - 2, top + 1)])
    if last + 1 < len(entries):
        b = y - 2
        c.polygon([(right - 4, b - 3), (right, b - 3), (right - 2, b)])


# --- screens ------------------------------------------------------------------------------


def _table(c: Canvas, view: TableView) -> None:
    if view.message is not None and view.message.refused:
        _refusal(c, view.message, view)
        return
    render_table(c, view)


def _refusal(c: Canvas, message: FeedbackView, view: TableView) -> None:
    """A refused input: the reason in the largest type that fits; it stays until the next input. A refused
    card asks for the card back; a refused button (a hand the engine would not end) does not."""
    c.box((0, 0, c.width - 1, 12))
    c.text_center(0, _("REFUSED"), "bold7", fill=BLACK)
    text = message.text
    if message.short and not all(c.fits(word, "small", c.width - 2 * MARGIN) for word in text.split()):
        text = message.short[-1]  # a word (a long scanned code) wider than the panel: the short form
    if not message.card:  # a button or a reader's trouble: nothing to take back, the reason has the room
        _paragraph(c, text, 14, c.height - 1)
        return
    _paragraph(c, text, 14, c.height - HINT_H - 1)
    if view.turn_name:
        _hint(c, (_("{name}: take the card back").format(name=view.turn_name), _("Take the card back"),
                  _("Card back")))
    else:
        _hint(c, (_("Take the card back"), _("Card back")))


def _coup_fourre(c: Canvas, view: CoupFourrePrompt) -> None:
    timer = f"{view.seconds_left}s" if view.seconds_left is not None else ""
    _title(c, (_("COUP FOURRÉ?"), _("CF?")), timer)
    c.icon((4, TITLE_H + 6), icons.hazard_icon(view.hazard, 2))
    hazard = card_title(view.hazard)
    text, font = c.choose_font(hazard, ("bold7", "text", "small"), c.width - 32 - MARGIN)
    c.text((32, TITLE_H + 3), text, font)
    names = naming.forms(naming.players(view.side_name))
    said = [phrase for name in names for phrase in (_("on {side}").format(side=name), name)]
    on, font = c.choose_font(said, ("text", "small", "tiny"), c.width - 32 - MARGIN, words_first=True)
    c.text((32, TITLE_H + 17), on, font)
    scan = c.choose((_("Scan your safety now"), _("Scan the safety")), "small", c.width - 2 * MARGIN)
    c.text_center(c.height - HINT_H - 10, scan, "small")
    _hint(c, _("or press CF"))


def _target(c: Canvas, view: TargetPrompt) -> None:
    title = card_title(view.hazard) if view.hazard else view.card_title
    _title(c, (_("{card}: on whom?").format(card=title), _("On whom?")))
    left = 0
    if view.hazard is not None and c.width >= 256:
        c.icon((6, TITLE_H + 8), icons.hazard_icon(view.hazard, 2))
        left = 34
    sub = Canvas((c.width - left, c.height - TITLE_H - HINT_H - 2), c.mode)
    _list(sub, view.options, view.selected, 1, sub.height)
    c.paste(sub, (left, TITLE_H + 1))
    _hint(c, (_("NEXT choose   OK play"), _("NEXT / OK")))


def _partner(c: Canvas, view: PartnerPrompt) -> None:
    _title(c, (_("Coup fourré by?"), _("Who?")))
    _list(c, view.names, view.selected, TITLE_H + 2, c.height - HINT_H - 1)
    _hint(c, (*view.hint, _("NEXT / OK")) if view.hint else (_("NEXT choose   OK confirm"), _("NEXT / OK")))


def _extension(c: Canvas, view: ExtensionPrompt) -> None:
    _title(c, _("EXTENSION"))
    said = (_("{name} reached {miles}.").format(name=view.player_name, miles=view.trip_from),
            _("{miles} reached.").format(miles=view.trip_from))
    c.text_center(TITLE_H + 2, c.choose(said, "text", c.width - 2 * MARGIN), "text")
    go_on, font = c.choose_font((_("Go on to {miles}?").format(miles=view.trip_to), _("{miles}?").format(
        miles=view.trip_to)), ("bold7", "text"), c.width - 2 * MARGIN)
    c.text_center(TITLE_H + 11, go_on, font)
    half = c.width // 2
    for index, (label, chosen) in enumerate(((_("YES"), view.selected_yes), (_("NO"), not view.selected_yes))):
        x0 = index * half + 8
        x1 = (index + 1) * half - 9
        y0, y1 = c.height - HINT_H - 18, c.height - HINT_H - 2
        if chosen:
            c.box((x0, y0, x1, y1))
        else:
            c.frame((x0, y0, x1, y1))
        shown, font = c.choose_font(label, ("bold7", "text", "small"), x1 - x0 - 2)
        c.text_center(y0 + 2 + (fonts.cell("bold7")[1] - fonts.cell(font)[1]) // 2, shown, font,
                      fill=BLACK if chosen else WHITE, left=x0 + 1, right=x1)
    _hint(c, (_("NEXT switch   OK confirm"), _("NEXT switch  OK confirm"), _("NEXT / OK")))


def _undo(c: Canvas, view: UndoPrompt) -> None:
    _title(c, _("UNDO?"))
    _paragraph(c, view.last_action_text, TITLE_H + 1, c.height - HINT_H - 1, choices=("big", "bold7", "text", "small"))
    _hint(c, (_("OK undo it   BACK keep it"), _("OK undo  BACK keep"), _("OK / BACK")))


def _menu(c: Canvas, view: MenuView) -> None:
    _title(c, view.title)
    longest = max((len(item) for item in view.items), default=0)
    font = "text" if longest * fonts.cell("text")[0] <= c.width - 14 else "small"
    hint = _menu_hint() if view.hint is None else view.hint
    _list(c, view.items, view.selected, TITLE_H + 2, c.height - (HINT_H + 1 if hint else 0), font=font)
    if hint:
        _hint(c, hint)


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
    at = cursor - first  # the letter under the cursor, inverted; the letters each side of it one word each
    before, under, after = shown[:at], shown[at:at + 1], shown[at + 1:]
    if before.strip():
        c.text((x0, y), before, font)
    c.box((x0 + at * cell_w, y, x0 + (at + 1) * cell_w - 1, y + cell_h - 1))
    c.text((x0 + at * cell_w, y), under, font, fill=BLACK)
    if after.strip():  # a column further: the inverted letter keeps a dark column before the next one
        c.text((x0 + (at + 1) * cell_w + 1, y), after, font)
    _hint(c, view.hint or (_("NEXT/BACK letter CF Aa OK next"), _("NEXT/BACK letter OK next"),
                           _("NEXT/BACK  OK next")))


def _setup_summary(c: Canvas, view: SetupSummaryView) -> None:
    """Edition in the title bar, the sides as large as they fit, who deals, and the two buttons."""
    _title(c, view.edition)
    detail_top = c.height - HINT_H - 1 - fonts.cell("small")[1]
    _paragraph(c, view.sides, TITLE_H + 1, detail_top - 1, choices=("big", "bold7", "text", "small", "tiny"))
    if view.detail:  # "Maximilienne deals · house rules" takes the tiny font on 128 px
        detail, font = c.choose_font((view.detail, view.detail.split(" · ")[0]), ("small", "tiny"),
                                     c.width - 2 * MARGIN)
        c.text_center(detail_top + (fonts.cell("small")[1] - fonts.cell(font)[1]) // 2, detail, font)
    _hint(c, view.hint or (_("OK to start, NEXT to change"), _("OK start  NEXT change"), _("OK / NEXT")))


#: Short labels for the official rows when the panel is narrow.
_SHORT_ROWS: dict[str, str] = {
    "Milestones": N_("Miles"),
    "Safeties": N_("Safeties"),
    "Coups fourrés": N_("Coups f."),
    "Trip completed": N_("Trip"),
    "Delayed action": N_("Delayed"),
    "Safe trip": N_("Safe"),
    "Shut-out": N_("Shut-out"),
    "Extension": N_("Extend"),
    "Miles in hand": N_("In hand"),
    "Total for deal": N_("Hand"),
    "Brought forward": N_("Before"),
    "Combined total": N_("TOTAL"),
}
#: The official rows, marked for the catalogue.
_ROW_TITLES = (N_("Milestones"), N_("Coups fourrés"), N_("Trip completed"), N_("Delayed action"), N_("Safe trip"),
               N_("Extension"), N_("Miles in hand"), N_("Total for deal"), N_("Brought forward"),
               N_("Combined total"))
_TOTAL_ROWS = ("Total for deal", "Combined total")
#: Rows that are sums of points, so a side with none shows 0 there; the other rows show "-".
_SUM_ROWS = ("Total for deal", "Brought forward", "Combined total")


def _sheet_font(size: tuple[int, int]) -> tuple[str, int]:
    font = "small" if size[0] >= 256 else "tiny"
    return font, fonts.cell(font)[1] + (0 if size[0] >= 256 else 1)


def _sheet_top(view: ScoreSheetView, size: tuple[int, int]) -> int:
    """The first row's top: below the title and the names (two lines of them where partners are stacked)."""
    return TITLE_H + (16 if _sheet_names(view, size)[1] else 10)


def _sheet_columns(view: ScoreSheetView, size: tuple[int, int]) -> tuple[int, int]:
    """The labels' width, from the panel's edge, and each side's column's width."""
    label_w = 86 if size[0] >= 256 else 38  # from the panel's edge: the labels start after the margin
    return label_w, (size[0] - MARGIN - label_w) // max(1, len(view.columns))


def _sheet_names(view: ScoreSheetView, size: tuple[int, int]) -> tuple[list[tuple[tuple[str, ...], str]], bool]:
    """Each column's name, as lines and their font, and whether partners are stacked on two lines.

    One font for the row, and the way that loses the fewest letters of the names: one line in the 5×8
    font ("Dmitri", not the 4×6 "DHitri"), one line in the 4×6 font, or partners one above the other
    in the 4×6 font. Never shorter than the fewest letters that keep the sides apart (``names``)."""
    _label_w, col_w = _sheet_columns(view, size)
    room = col_w - 3  # three dark columns at least between two sides' names ("Marc Chloé", not "MarcChloé")
    sides = [naming.players(name) for name, _values in view.columns]
    least = naming.least_letters(sides)
    probe = Canvas((1, 1), "L")

    def one_line(side: Sequence[str], font: str) -> int:
        keep = naming.most_kept(side, lambda k: probe.fits(naming.side_form(side, max(k, least)), font, room))
        return naming.letters_lost(side, max(keep, least))

    def two_lines(side: Sequence[str]) -> int:
        keep = naming.most_kept(side, lambda k: all(probe.fits(naming.cut(name, max(k, least)), "tiny", room)
                                                    for name in side))
        return naming.letters_lost(side, max(keep, least))

    ways = [(sum(one_line(side, font) for side in sides), index, font) for index, font in enumerate(("small", "tiny"))]
    if any(len(side) > 1 for side in sides):
        ways.append((sum(two_lines(side) for side in sides), 2, "stacked"))
    _lost, _order, way = min(ways)  # the fewest letters lost; on a tie the larger font, then one line
    named: list[tuple[tuple[str, ...], str]] = []
    for side in sides:
        if way == "stacked":
            forms = naming.line_forms(side, least)
            lines = next((f for f in forms if all(probe.fits(line, "tiny", room) for line in f)), forms[-1])
            named.append((lines, "tiny"))
        else:
            line = probe.choose(naming.forms(side, least), way, room)
            named.append(((line,), way))
    return named, way == "stacked"


def _sheet_bottom(size: tuple[int, int]) -> int:
    """The rows end above the key hint (a row's last pixel row is blank)."""
    return size[1] - HINT_H + 1


def _sheet_layout(view: ScoreSheetView, size: tuple[int, int]) -> list[list[tuple[int, int]]]:
    """The pages of the sheet: (row index, y) for each row. A total row has a faint rule above it,
    with a clear pixel row on each side, so the rule never touches a figure."""
    _font, line_h = _sheet_font(size)
    pages: list[list[tuple[int, int]]] = [[]]
    top = y = _sheet_top(view, size)
    for index, label in enumerate(view.rows):
        need = line_h + (2 if label in _TOTAL_ROWS else 0)
        if pages[-1] and y + need > _sheet_bottom(size):
            pages.append([])
            y = top
        if label in _TOTAL_ROWS and pages[-1]:
            y += 2
        pages[-1].append((index, y))
        y += line_h
    return pages


def score_sheet_pages(view: ScoreSheetView, size: tuple[int, int] = SMALL) -> int:
    """How many pages the score sheet needs on a panel of ``size``."""
    return len(_sheet_layout(view, size))


def _score_sheet(c: Canvas, view: ScoreSheetView) -> None:
    size = (c.width, c.height)
    font, _line_h = _sheet_font(size)
    pages = _sheet_layout(view, size)
    page = view.page % len(pages)  # NEXT and BACK cycle through the pages, both ways
    _title(c, view.title, f"{page + 1}/{len(pages)}")
    columns = view.columns
    label_w, col_w = _sheet_columns(view, size)
    names, _stacked = _sheet_names(view, size)
    for index, (lines, name_font) in enumerate(names):
        right = label_w + (index + 1) * col_w - 1
        for number, line in enumerate(lines):
            c.choose(line, name_font, col_w - 3)  # recorded as cut if even this does not fit
            c.text_right(right, TITLE_H + 1 + number * 7 + (1 if name_font == "tiny" and len(lines) == 1 else 0),
                         line, name_font)
    for offset, (row, y) in enumerate(pages[page]):
        label = view.rows[row]
        if label in _TOTAL_ROWS and offset:
            c.hline_dim(MARGIN, c.width - 1 - MARGIN, y - 2)
        short = _(_SHORT_ROWS.get(label, label))
        shown = c.choose((_(label), short, *abbreviated(short)), font, label_w - MARGIN - 2)
        c.text((MARGIN, y), shown, font)
        for index, (_name, values) in enumerate(columns):
            value = values[row] if row < len(values) else 0
            right = label_w + (index + 1) * col_w - 1
            c.text_right(right, y, "-" if value == 0 and label not in _SUM_ROWS else str(value), font)
    if len(pages) == 1:  # NEXT has nothing to turn to
        _hint(c, (_("OK next hand"), _("OK")))
    elif page == len(pages) - 1:  # NEXT wraps round to the first page
        _hint(c, (_("NEXT first   OK next hand"), _("NEXT first  OK next hand"), _("NEXT / OK")))
    else:
        _hint(c, (_("NEXT more   OK next hand"), _("NEXT more  OK next hand"), _("NEXT / OK")))


def abbreviated(label: str) -> list[str]:
    """A row label cut after a letter and marked with a point, longest first ("Miles", "Mile.",
    "Mil."): what a scorer writes when a language's word is too long for the column."""
    return [f"{label[:keep].rstrip()}." for keep in range(len(label) - 1, 2, -1) if label[keep - 1].isalpha()]


def _game_over(c: Canvas, view: GameOverView) -> None:
    _title(c, _("GAME OVER"))
    least = naming.least_letters([naming.players(name) for name, _total in view.totals])
    said: list[str]
    if view.winner == "Tie":
        said = [_("A tie!")]
    else:
        names = naming.forms(naming.players(view.winner), least)
        win = _("{names} win!") if view.partners else _("{name} wins!")
        said = [*(win.format(names=name, name=name) for name in names), *names]
    text, font = c.choose_font(said, ("big", "bold7", "text", "small"), c.width - 2 * MARGIN, words_first=True)
    c.text_center(TITLE_H + 1, text, font)
    totals = sorted(view.totals, key=lambda item: -item[1])
    font = "small"
    y = TITLE_H + 18
    columns = 2 if len(totals) > 3 or c.width >= 256 else 1
    col_w = c.width // columns
    for index, (name, total) in enumerate(totals):
        col, line = index % columns, index // columns
        x0 = col * col_w
        yy = y + line * 9
        number = str(total)
        room = col_w - 12 - c.text_width(number, font)  # four dark columns before the total
        chosen, name_font = c.choose_font(naming.forms(naming.players(name), least), (font, "tiny"), room,
                                          words_first=True)  # "Léa+Maë." in 4×6 beats "Léa+Ma." in 5×8
        c.text((x0 + 4, yy + (0 if name_font == font else 1)), chosen, name_font)
        c.text_right(x0 + col_w - 4, yy, number, font)
    _hint(c, (_("OK: a new game"), _("OK: new game"), _("OK")))


def _status(c: Canvas, view: StatusView) -> None:
    c.box((0, 0, c.width - 1, 14))
    title, font = c.choose_font(f"! {view.title}", ("bold7", "text", "small"), c.width - 2 * MARGIN)
    c.text_center(1, title, font, fill=BLACK)
    if view.detail:  # "OK ends, BACK plays on": by their keys on a keypad table
        _paragraph(c, keyed(view.detail), 16, c.height - 1, choices=("bold7", "text", "small", "tiny"))


_LEGEND_ROW = 12
_LEGEND_SAMPLE = 30  # the column of the marks, before their meanings


def _legend_columns(size: tuple[int, int]) -> int:
    return 2 if size[0] >= 256 else 1


def legend_pages(size: tuple[int, int] = SMALL, keys: Sequence[tuple[str, str]] = ()) -> int:
    """How many pages the legend needs on a panel of ``size`` (with a keypad's ``keys``: theirs first)."""
    return _key_pages(size, keys) + _icon_pages(size)


def _icon_pages(size: tuple[int, int]) -> int:
    rows = (size[1] - TITLE_H - HINT_H - 2) // _LEGEND_ROW
    return -(-len(LEGEND) // (rows * _legend_columns(size)))


_KEY_ROW = 11  # a keycap 10 high (the 5x8 font and a row under its baseline), a row between two
_KEYCAP = (34, 60)  # the keycaps' width: "Enter" in the 5x8 font with room either side, up to the widest label


def _key_rows(size: tuple[int, int]) -> int:
    return (size[1] - TITLE_H - HINT_H - 1) // _KEY_ROW


def _key_pages(size: tuple[int, int], keys: Sequence[tuple[str, str]]) -> int:
    return -(-len(keys) // (_key_rows(size) * _legend_columns(size)))


def _legend(c: Canvas, view: LegendView) -> None:
    """Each key of a keypad beside its button, then each mark of the table beside its meaning:
    NEXT and BACK page through them."""
    size = (c.width, c.height)
    pages = legend_pages(size, view.keys)
    page = view.page % pages
    key_pages = _key_pages(size, view.keys)
    if page < key_pages:
        _title(c, (_("Keys of the keypad"), _("Keys")), f"{page + 1}/{pages}")
        _legend_keys(c, view.keys, page)
    else:
        _title(c, (_(LEGEND_TITLE), _("Legend")), f"{page + 1}/{pages}")
        _legend_marks(c, page - key_pages)
    if page == pages - 1:  # NEXT wraps round to the first page
        _hint(c, (_("NEXT first   OK back"), _("NEXT / OK")))
    else:
        _hint(c, (_("NEXT more   OK back"), _("NEXT / OK")))


def _legend_keys(c: Canvas, keys: Sequence[tuple[str, str]], page: int) -> None:
    """A keycap with what is printed on it, and the button that key is, both in the table's language
    ("Entrée", "DÉFAUSSE")."""
    worded = [(key_word(label), button_phrasings(button)) for label, button in keys]
    columns = _legend_columns((c.width, c.height))
    rows = _key_rows((c.width, c.height))
    per_page = rows * columns
    col_w = (c.width - 2 * MARGIN) // columns
    cap_w = min(_KEYCAP[1], max(_KEYCAP[0], *(c.text_width(label, "small") + 6 for label, _button in worded)))
    for place, (label, button) in enumerate(worded[page * per_page:(page + 1) * per_page]):
        column, row = divmod(place, rows)
        x = MARGIN + column * col_w
        y = TITLE_H + 1 + row * _KEY_ROW
        cap, font = c.choose_font((label,), ("small", "tiny"), cap_w - 4)
        c.box((x, y, x + cap_w - 1, y + _KEY_ROW - 2))  # the key, lit: what is printed on it in black
        c.text_center(y + (1 if font == "small" else 3), cap, font, fill=BLACK, left=x, right=x + cap_w)
        said, font = c.choose_font(button, ("small", "tiny"), col_w - cap_w - 6)  # "PLACE1-PLACE8", "PLACE1-8"
        c.text((x + cap_w + 4, y + (1 if font == "small" else 3)), said, font)


def _legend_marks(c: Canvas, page: int) -> None:
    size = (c.width, c.height)
    columns = _legend_columns(size)
    rows = (c.height - TITLE_H - HINT_H - 2) // _LEGEND_ROW
    per_page = rows * columns
    col_w = (c.width - 2 * MARGIN) // columns
    for place, entry in enumerate(LEGEND[page * per_page:(page + 1) * per_page]):
        column, row = divmod(place, rows)
        x = MARGIN + column * col_w
        y = TITLE_H + 2 + row * _LEGEND_ROW
        legend_sample(c, entry.kind, entry.name, x, y)
        room = col_w - _LEGEND_SAMPLE - 2
        words, font = c.choose_font(entry.words(), ("small", "tiny"), room)
        c.text((x + _LEGEND_SAMPLE, y + (2 if font == "small" else 3)), words, font)


def card_title(kind: str) -> str:
    """A hazard's or safety's title in the players' language."""
    return pgettext("card", KIND_TITLES.get(kind, kind))


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
    LegendView: _legend,
}
