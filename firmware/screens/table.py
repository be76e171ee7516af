"""The table screen: every side at once, whose turn it is, the draw pile and the score.

The panel below the 8-pixel header is cut into cells, one per side, each 28 pixels high, inside
a margin of two dark columns at each edge (``canvas.MARGIN``: a case's bezel hides them):

* roomy cells (124 wide): the name (after an arrow on the side to play), the game total and
  this hand's points, the miles in 20-pixel type, the battle state and the speed limit as
  11-pixel icons, the four safety slots as 10-pixel icons in a square, and a miles bar;
* wide rows (256 wide, two sides): the same with doubled battle and safety icons;
* compact cells (60 wide): the name and points in one line, miles in 15-pixel type beside the
  battle and limit icons (11×10), the safeties in a row of 10×9 icons, a dark row between each.

Two sides take two roomy rows (wide rows on 256). Three or four take a 2×2 grid: roomy cells
on 256, compact ones on 128. Five or six take compact cells: all at once on 256 (3×2); on 128
two pages of four that alternate, each with the side to play. Every text is chosen from
phrasings written for the room it has, so nothing is ever cut.
"""

from __future__ import annotations

from collections.abc import Sequence

from bornes.firmware.language.i18n import _
from bornes.firmware.screens import fonts, icons
from bornes.firmware.screens.canvas import BLACK, MARGIN, Canvas
from bornes.firmware.screens.model import SAFETIES, SideView, TableView

HEADER_H = 8
CELL_H = 28


def _points(side: SideView) -> list[str]:
    """The game total and this hand's points so far, longest phrasing first.

    Always a space between them: ``4200+1400`` reads as a sum, ``4200 +1400`` as a total and a
    gain (the legend says so, and the wide panel labels it).
    """
    return [
        _("{total} pts +{hand}").format(total=side.score, hand=side.hand_points),
        f"{side.score} +{side.hand_points}",
    ]


def shortened(name: str, least: int = 1) -> list[str]:
    """A name, then shorter forms that still read as that name: "Dmitri", "Dmit.", "Dmi.", ... "D";
    partners each keep their first letters ("Ann+Chloé", "Ann+Chl", "An+Ch", "A+C"). No form keeps
    fewer than ``least`` letters of a name."""
    parts = name.split("+")
    longest = max(len(part) for part in parts)
    forms = [name]
    for keep in range(longest - 1, least - 1, -1):
        if len(parts) > 1:
            forms.append("+".join(part[:keep] for part in parts))
        elif keep < len(name):
            forms.append(f"{name[:keep]}." if keep > 1 else name[:1])
    return list(dict.fromkeys(forms))


def _names(side: SideView) -> list[str]:
    """The side's name, then shorter forms: a first name alone, the name shortened ("Chl."), then
    the seat letters (as on the seat buttons), so a name is never cut without a mark."""
    options = [side.name]
    parts = side.name.split("+")
    if len(parts) == 1:
        words = side.name.replace("-", " ").split()
        if len(words) > 1:
            options.append(words[0])
        options += shortened(options[-1], least=3)[1:]  # partners keep whole names, or their seats
    if side.seats:
        options.append(side.seats)
    return list(dict.fromkeys(options))


#: The mark of the side to play: a solid arrow before the name, as readable as an inverted name
#: but a few columns wide, so passing the turn costs the bus a few bytes instead of two names, and
#: no lit background sits against the header or the cell above. Columns it takes, in a roomy
#: cell's name line and in a compact cell's tiny one.
TURN_MARK = 7
TURN_MARK_TINY = 4


def _marked_name(c: Canvas, side: SideView, x: int, y: int, width: int, choices: Sequence[str],
                 mark: int = TURN_MARK) -> None:
    """The name after the turn mark's column (``width`` holds both); the mark, a solid arrow, only on
    the side to play. A full name in a smaller font beats seat letters in a larger one; in a compact
    cell's tiny line only the side to play gives the mark its columns (a name is worth them more)."""
    if mark == TURN_MARK_TINY and not side.is_turn:
        mark = 0
    if side.is_turn:  # as tall as the name's capitals: ten rows in a roomy cell, five in a tiny line
        if mark == TURN_MARK:
            c.polygon([(x, y + 1), (x + 4, y + 6), (x, y + 11)])
        else:
            c.polygon([(x, y), (x + 2, y + 2), (x, y + 4)])
    text, font = c.choose_font(_names(side), choices, width - mark, words_first=True)
    c.text((x + mark, y), text, font)


def _safeties(c: Canvas, side: SideView, spots: Sequence[tuple[int, int]], scale: int, margin: int = 1,
              compact: bool = False) -> None:
    """The four safety slots; a coup fourré is drawn inverted (where the cell leaves a dark row
    around it), an empty slot as a faint dot. ``compact``: the 10×9 icons, plain."""
    played = dict(side.safeties)
    size = 10 * scale
    for (x, y), kind in zip(spots, SAFETIES, strict=True):
        if kind not in played:
            c.dot((x + size // 2, y + (9 if compact else size) // 2))
        elif compact:
            c.icon((x, y), icons.compact_safety_icon(kind))
        elif played[kind]:
            c.box((x - margin, y - margin, x + size - 1 + margin, y + size - 1 + margin))
            c.icon((x, y), icons.safety_icon(kind, scale), fill=BLACK)
        else:
            c.icon((x, y), icons.safety_icon(kind, scale))


ROOMY_W = 124


def roomy_cell(c: Canvas, side: SideView, x: int, y: int) -> None:
    """A side in a 124×28 cell."""
    _marked_name(c, side, x, y, 44, ("bold7", "small", "tiny"))
    points, font = c.choose_font(_points(side)[1:], ("small", "tiny"), 44)
    c.text((x + 1, y + 15), points, font)
    c.text_right(x + 86, y + 3, str(side.miles), "huge")
    c.icon((x + 88, y + 2), icons.hazard_icon(side.battle))
    if side.limited:
        c.icon((x + 88, y + 14), icons.hazard_icon("SPEEDLIMIT"))  # a dark row above the miles bar
    _safeties(c, side, ((x + 102, y + 2), (x + 114, y + 2), (x + 102, y + 14), (x + 114, y + 14)), 1)
    c.bar(x, y + 26, ROOMY_W, 1, side.miles, side.trip)


def wide_row(c: Canvas, side: SideView, y: int) -> None:
    """A side across the 256-wide panel, 28 high: two-sided games."""
    x = MARGIN
    _marked_name(c, side, x, y, 85, ("bold7", "small", "tiny"))
    points, font = c.choose_font(_points(side), ("small", "tiny"), 86)
    c.text((x + 1, y + 15), points, font)
    c.text_right(129, y + 3, str(side.miles), "huge")
    c.icon((132, y + 2), icons.hazard_icon(side.battle, 2))
    if side.limited:
        c.icon((156, y + 2), icons.hazard_icon("SPEEDLIMIT"))
    _safeties(c, side, [(171 + i * 21, y + 2) for i in range(4)], 2, margin=0)
    c.bar(x, y + 26, c.width - 2 * MARGIN, 1, side.miles, side.trip)


COMPACT_W = 60


def compact_cell(c: Canvas, side: SideView, x: int, y: int) -> None:
    """A side in a 60×28 cell: name and points, then miles and state, then safeties."""
    # The fullest name beside both figures; where even the seat letters leave no room (five-digit
    # totals), the game total alone.
    points = str(side.score)
    mark = TURN_MARK_TINY if side.is_turn else 0
    for option in (_points(side)[-1], points):
        if any(mark + c.text_width(name, "tiny") + 2 + c.text_width(option, "tiny") <= COMPACT_W
               for name in _names(side)):
            points = option
            break
    left = c.text_right(x + COMPACT_W - 1, y, points, "tiny")
    _marked_name(c, side, x, y, left - x - 2, ("tiny",), TURN_MARK_TINY)  # two dark columns before the points
    # Rows: the name line (0-4, a descender 5), dark, the miles and the 11×10 battle and limit
    # icons (7-16), dark, the 10×9 safeties (18-26), dark above the name line of the cell below. The
    # full-size icons leave no dark row between the marks, and a safety resting on the next name
    # reads as that side's card.
    c.text_right(x + 35, y + 5, str(side.miles), "big")
    c.icon((x + 37, y + 7), icons.compact_hazard_icon(side.battle))
    if side.limited:
        c.icon((x + 49, y + 7), icons.compact_hazard_icon("SPEEDLIMIT"))
    # An inverted coup fourré would need a lit row around it, which the cell has not got: here it
    # is drawn plain (its points show in "+hand").
    _safeties(c, side, [(x + 1 + i * 12, y + 18) for i in range(4)], 1, margin=0, compact=True)


def table_pages(view: TableView, width: int) -> list[tuple[int, ...]]:
    """Which sides each page shows: one page, unless the sides need more cells than fit (128 wide, 5+ sides)."""
    count = len(view.sides)
    per_page = 4 if width < 256 else 6
    if count <= per_page:
        return [tuple(range(count))]
    turn = next((i for i, s in enumerate(view.sides) if s.is_turn), 0)
    others = [i for i in range(count) if i != turn]
    pages = []
    for start in range(0, len(others), per_page - 1):
        pages.append(tuple(sorted((turn, *others[start:start + per_page - 1]))))
    return pages


def draw_header(c: Canvas, view: TableView, page: str) -> None:
    """The top line: the last action or prompt (or whose turn), a warning, and the draw pile."""
    if view.status:
        c.banner(0, HEADER_H - 1, view.status, "small")
        return
    if view.play_out:
        piles = [_("Play out"), _("Out")]
    else:  # the bare count stands after the draw-pile icon (the legend names it), never alone
        piles = [_("Draw {count}").format(count=view.draw_pile), f"{view.draw_pile}"]
    if view.message is not None and not view.message.refused:
        options = [view.message.text, *view.message.short]
    else:
        name = view.turn_name
        options = []
        if view.edition_title:
            options.append(_("{edition} · Hand {hand} · {name} to play").format(
                edition=view.edition_title, hand=view.hand_number, name=name))
        options += [
            _("Hand {hand} · {name} to play").format(hand=view.hand_number, name=name),
            _("{name} to play").format(name=name),
            name,
        ]
    pile_icon = not view.play_out
    deck = icons.deck_icon()

    def pile_width(pile: str, page: str) -> int:
        width = c.text_width(f"{page} {pile}" if page else pile, "small")
        return width + (deck.width + 2 if pile_icon and pile == piles[-1] else 0)

    # The longest message that fits beside some phrasing of the pile, with the longest such pile;
    # the page number gives way before the message does.
    room = c.width - 2 * MARGIN
    chosen = (options[-1], piles[-1], "")
    for pages in ((page, "") if page else ("",)):
        for option in options:
            fitting = [p for p in piles if c.text_width(option, "small") + 4 + pile_width(p, pages) <= room]
            if fitting:
                chosen = (option, fitting[0], pages)
                break
        else:
            continue
        break
    message, pile, page = chosen
    line = _header_line((message, pile, page))
    right = c.width - MARGIN
    right = c.text_right(right, line[pile][1], pile, line[pile][0])
    if pile_icon and pile == piles[-1]:
        right -= deck.width + 2
        c.icon((right + 1, 0), deck)
    if page:
        right = c.text_right(right - fonts.cell("small")[0], line[page][1], page, line[page][0])
    font, y = line[message]
    c.text((MARGIN, y), c.choose(message, font, right - 4 - MARGIN), font)


def _ink_rows(text: str, font: str) -> tuple[int, int]:
    """The first and last rows ``text`` lights in its font's cell."""
    box = fonts.font(font).getmask(fonts.printable(text) or " ").getbbox()
    return (box[1], box[3] - 1) if box else (0, 0)


def _header_line(texts: Sequence[str]) -> dict[str, tuple[str, int]]:
    """The font and top y of each header text, so that its ink stays in rows 0-6 and row 7 stays
    dark above the cells' first line (a "y" of "to play" on row 7 would join the points below).

    The 5×8 font lights rows 1-6 and a descender row 7: a line with a descender moves up a row,
    and a text in it that also has an accent on row 0 ("Coup fourré!") is set in the 4×6 font,
    on the same baseline.
    """
    shown = [t for t in texts if t]
    top = -1 if any(_ink_rows(t, "small")[1] > HEADER_H - 2 for t in shown) else 0
    return {t: ("tiny", 1) if _ink_rows(t, "small")[0] + top < 0 else ("small", top) for t in shown}


def render_table(c: Canvas, view: TableView) -> None:
    count = len(view.sides)
    if not 2 <= count <= 6:
        raise ValueError(f"the table screen shows 2 to 6 sides, not {count}")
    pages = table_pages(view, c.width)
    shown = pages[view.page % len(pages)]
    draw_header(c, view, f"{view.page % len(pages) + 1}/{len(pages)}" if len(pages) > 1 else "")
    wide = c.width >= 256
    if count == 2:
        for index, side in enumerate(view.sides):
            y = HEADER_H + index * CELL_H
            if wide:
                wide_row(c, side, y)
            else:
                roomy_cell(c, side, MARGIN, y)
        return
    if wide and count <= 4:
        for place, index in enumerate(shown):
            row, column = divmod(place, 2)
            roomy_cell(c, view.sides[index], MARGIN + column * (c.width // 2), HEADER_H + row * CELL_H)
        return
    columns = 2 if c.width < 256 else 3  # on 256, three roomier columns keep cells well apart
    pitch = (c.width - 2 * MARGIN) // columns
    for place, index in enumerate(shown):
        row, column = divmod(place, columns)
        x = MARGIN + column * pitch + (pitch - COMPACT_W) // 2
        compact_cell(c, view.sides[index], x, HEADER_H + row * CELL_H)
