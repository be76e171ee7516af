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

from collections.abc import Callable, Sequence

from bornes.firmware.language import names as naming
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


#: The fewest letters a name keeps on one line before its cell gives up something else for it: the
#: hand's points, then the total (compact cells), or the one line (roomy cells stack the partners).
GOOD_NAME = 3


def _names(side: SideView, least: int) -> list[str]:
    """The side's name, then shorter forms by the panel's one rule (``naming``), none shorter than ``least``
    letters a name: the fewest that keep the sides of this screen apart."""
    return naming.forms(naming.players(side.name), least)


#: The mark of the side to play: a solid arrow before the name, as readable as an inverted name
#: but a few columns wide, so passing the turn costs the bus a few bytes instead of two names, and
#: no lit background sits against the header or the cell above. Columns it takes, in a roomy
#: cell's name line and in a compact cell's tiny one.
TURN_MARK = 7
TURN_MARK_TINY = 4


def _marked_name(c: Canvas, side: SideView, x: int, y: int, width: int, choices: Sequence[str], least: int,
                 mark: int = TURN_MARK, stack: bool = False) -> None:
    """The name after the turn mark's column (``width`` holds both); the mark, a solid arrow, only on
    the side to play. A fuller name in a smaller font beats a shorter one in a larger font; in a compact
    cell's tiny line only the side to play gives the mark its columns (a name is worth them more).

    With ``stack`` (a roomy cell has the rows: :func:`stacked`), partners are written one above the
    other in the 4×6 font, each line cut alike.
    """
    if mark == TURN_MARK_TINY and not side.is_turn:
        mark = 0
    if side.is_turn:  # as tall as the name's capitals: ten rows in a roomy cell, five in a tiny line
        if mark == TURN_MARK:
            c.polygon([(x, y + 1), (x + 4, y + 6), (x, y + 11)])
        else:
            c.polygon([(x, y), (x + 2, y + 2), (x, y + 4)])
    partners = naming.players(side.name)
    if stack and len(partners) > 1:
        stacked = naming.line_forms(partners, least)
        lines = next((f for f in stacked if all(c.fits(line, "tiny", width - mark) for line in f)), stacked[-1])
        for number, line in enumerate(lines):
            c.text((x + mark, y + 7 * number), c.choose(line, "tiny", width - mark), "tiny")
        return
    text, font = c.choose_font(_names(side, least), choices, width - mark, words_first=True)
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


#: The room of a roomy cell's name and of a wide row's, the turn mark's column included.
ROOMY_NAME_W = 44
WIDE_NAME_W = 85
NAME_FONTS = ("bold7", "small", "tiny")


def stacked(c: Canvas, sides: Sequence[SideView], width: int, least: int) -> bool:
    """Whether a screen's roomy cells write partners one above the other (then every side with partners
    is, alike): where their names lose fewer letters so, in the 4×6 font, than on one line in any font."""
    room = width - TURN_MARK
    partners = [naming.players(side.name) for side in sides if len(naming.players(side.name)) > 1]
    if not partners:
        return False
    def one_line(side: Sequence[str]) -> Callable[[int], bool]:
        return lambda keep: any(c.fits(naming.side_form(side, max(keep, least)), font, room) for font in NAME_FONTS)

    def two_lines(side: Sequence[str]) -> Callable[[int], bool]:
        return lambda keep: all(c.fits(naming.cut(name, max(keep, least)), "tiny", room) for name in side)

    def lost(way: Callable[[Sequence[str]], Callable[[int], bool]]) -> int:
        return sum(naming.letters_lost(p, max(naming.most_kept(p, way(p)), least)) for p in partners)

    return lost(two_lines) < lost(one_line)


def roomy_cell(c: Canvas, side: SideView, x: int, y: int, least: int = 1, stack: bool = False) -> None:
    """A side in a 124×28 cell."""
    _marked_name(c, side, x, y, ROOMY_NAME_W, NAME_FONTS, least, stack=stack)
    points, font = c.choose_font(_points(side)[1:], ("small", "tiny"), 44)
    c.text((x + 1, y + 15), points, font)
    c.text_right(x + 86, y + 3, str(side.miles), "huge")
    c.icon((x + 88, y + 2), icons.hazard_icon(side.battle))
    if side.limited:
        c.icon((x + 88, y + 14), icons.hazard_icon("SPEEDLIMIT"))  # a dark row above the miles bar
    _safeties(c, side, ((x + 102, y + 2), (x + 114, y + 2), (x + 102, y + 14), (x + 114, y + 14)), 1)
    c.bar(x, y + 26, ROOMY_W, 1, side.miles, side.trip)


def wide_row(c: Canvas, side: SideView, y: int, least: int = 1, stack: bool = False) -> None:
    """A side across the 256-wide panel, 28 high: two-sided games."""
    x = MARGIN
    _marked_name(c, side, x, y, WIDE_NAME_W, NAME_FONTS, least, stack=stack)
    points, font = c.choose_font(_points(side), ("small", "tiny"), 86)
    c.text((x + 1, y + 15), points, font)
    c.text_right(129, y + 3, str(side.miles), "huge")
    c.icon((132, y + 2), icons.hazard_icon(side.battle, 2))
    if side.limited:
        c.icon((156, y + 2), icons.hazard_icon("SPEEDLIMIT"))
    _safeties(c, side, [(171 + i * 21, y + 2) for i in range(4)], 2, margin=0)
    c.bar(x, y + 26, c.width - 2 * MARGIN, 1, side.miles, side.trip)


COMPACT_W = 60


def compact_cell(c: Canvas, side: SideView, x: int, y: int, least: int = 1, width: int = COMPACT_W) -> None:
    """A side in a 60×28 cell (wider on the 256 panel: the name line takes the extra room, the marks
    stand in the middle): name and points, then miles and state, then safeties."""
    # The name first: the fullest name beside the total and this hand's points, else beside this hand's
    # points while it has some (they change with every card; the total is on the last score sheet: issue
    # 40, partners' names at six players dropped "+200"), else beside the total (a name keeps three
    # letters at least, or all it has, before a figure gives way), else the shortest name that still
    # tells the sides apart beside the total, or alone.
    mark = TURN_MARK_TINY if side.is_turn else 0
    names = _names(side, least)
    good = _names(side, max(least, GOOD_NAME))
    total, both = str(side.score), _points(side)[-1]
    gained = [(f"+{side.hand_points}", good)] if side.hand_points else []
    points = ""
    for option, choices in ((both, good), *gained, (total, good), (total, names)):  # the points end a column short
        if any(mark + c.text_width(name, "tiny") + 2 + c.text_width(option, "tiny") <= width - 1 for name in choices):
            points = option
            break
    left = c.text_right(x + width - 1, y, points, "tiny") if points else x + width + 1
    _marked_name(c, side, x, y, left - x - 2, ("tiny",), least, TURN_MARK_TINY)  # two dark columns before points
    # Rows: the name line (0-4, a descender 5), dark, the miles and the 11×10 battle and limit
    # icons (7-16), dark, the 10×9 safeties (18-26), dark above the name line of the cell below. The
    # full-size icons leave no dark row between the marks, and a safety resting on the next name
    # reads as that side's card. In a wider cell the marks stand in its middle, under the name line.
    x += (width - COMPACT_W) // 2
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


#: The warning badge before a status in the header ("Reader lost"): a lit block with a dark "!", rows
#: 1-6, so that it touches neither the panel's top edge nor the cells below.
BADGE_W = 5


def draw_header(c: Canvas, view: TableView, page: str) -> None:
    """The top line: the last action or prompt (or whose turn), a warning, and the draw pile.

    A warning ("Reader lost") never hides whose turn it is: it stands at the right after a badge,
    and the draw pile, then the page number, then the longer phrasings of the turn give way to it.
    """
    if view.play_out:
        piles = [_("Play out"), _("Out")]
    else:  # the bare count stands after the draw-pile icon (the legend names it), never alone
        piles = [_("Draw {count}").format(count=view.draw_pile), f"{view.draw_pile}"]
    if view.status:
        piles.append("")  # a warning is worth more than the pile
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
    # The last resort, never a word cut without a mark: the shortest phrasing with its long words (a
    # twelve-letter name) cut by the names' rule, "Maximilienne starts" → "Maxim. starts".
    longest = max((len(word) for word in options[-1].split()), default=0)
    abridged = [naming.abridged(options[-1], keep) for keep in range(longest - 1, 2, -1)]
    pile_icon = not view.play_out
    deck = icons.deck_icon()
    space = fonts.cell("small")[0]

    def pile_width(pile: str, page: str, status: str | None) -> int:
        """The room of everything right of the message: the warning (its badge, and its words unless
        ``status`` is ""), the page and the pile."""
        shown = f"{page} {pile}".strip()
        width = c.text_width(shown, "small") if shown else 0
        width += deck.width + 2 if pile_icon and pile and pile == piles[1] else 0
        if status is not None:
            width += BADGE_W + (2 + c.text_width(status, "tiny") if status else 0) + (space if shown else 0)
        return width

    # The longest message that fits beside some phrasing of the pile, with the longest such pile;
    # the page number gives way before the message does, and the warning's words (its badge stays)
    # before a word of the message is cut: "Françoise commence !" rather than "Franço. commen. !Pavé perdu".
    room = c.width - 2 * MARGIN
    warnings = [view.status, ""] if view.status else [None]
    chosen = (abridged[-1] if abridged else options[-1], piles[-1], "", warnings[-1])
    tries = [(list(dict.fromkeys(words)), warning) for words in (options, abridged) for warning in warnings]
    for words, warning in tries:
        found = next(((option, fitting[0], pages, warning) for pages in ((page, "") if page else ("",))
                      for option in words
                      for fitting in [[p for p in piles
                                       if c.text_width(option, "small") + 4 + pile_width(p, pages, warning) <= room]]
                      if fitting), None)
        if found is not None:
            chosen = found
            break
    message, pile, page, status = chosen
    line = _header_line((message, pile, page))
    right, gap = c.width - MARGIN, 0
    if status is not None:  # at the right end, after its badge, whose lit block keeps off row 0 (the panel's
        # edge) and row 7 (above the cells); the badge stands between the warning and the pile ("Draw 17 !Reader
        # lost"), alone when the message needs the room
        if status:
            right = c.text_right(right, 1, status, "tiny") - 2  # on the badge's rows, whatever the line's baseline
        c.box((right - BADGE_W + 1, 1, right, HEADER_H - 2))
        c.text((right - BADGE_W + 1 + (BADGE_W - c.text_width("!", "tiny") + 1) // 2, 1), "!", "tiny", fill=BLACK)
        right -= BADGE_W - 1
        gap = space
    if pile:
        right -= gap
        right = c.text_right(right, line[pile][1], pile, line[pile][0])
        if pile_icon and pile == piles[1]:
            right -= deck.width + 2
            c.icon((right + 1, 0), deck)
        gap = space
    if page:
        right, gap = c.text_right(right - gap, line[page][1], page, line[page][0]), space
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
    least = naming.least_letters([naming.players(side.name) for side in view.sides])
    if count == 2:
        stack = stacked(c, view.sides, WIDE_NAME_W if wide else ROOMY_NAME_W, least)
        for index, side in enumerate(view.sides):
            y = HEADER_H + index * CELL_H
            if wide:
                wide_row(c, side, y, least, stack)
            else:
                roomy_cell(c, side, MARGIN, y, least, stack)
        return
    if wide and count <= 4:
        stack = stacked(c, view.sides, ROOMY_NAME_W, least)
        for place, index in enumerate(shown):
            row, column = divmod(place, 2)
            roomy_cell(c, view.sides[index], MARGIN + column * (c.width // 2), HEADER_H + row * CELL_H, least, stack)
        return
    columns = 2 if c.width < 256 else 3  # on 256, three roomier columns keep cells well apart
    pitch = (c.width - 2 * MARGIN) // columns
    width = COMPACT_W if c.width < 256 else pitch - 8  # the 256 panel's room goes to the names
    for place, index in enumerate(shown):
        row, column = divmod(place, columns)
        x = MARGIN + column * pitch + (pitch - width) // 2
        compact_cell(c, view.sides[index], x, HEADER_H + row * CELL_H, least, width)
