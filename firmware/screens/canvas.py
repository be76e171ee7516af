"""A small drawing surface over Pillow that knows our fonts, icons and the two panel modes.

Everything is drawn on an ``"L"`` image. On a monochrome panel (mode ``"1"``) the dim colour
is drawn as a dotted pattern and the result is thresholded, so the same layout code serves a
128×64 ssd1306 and a 256×64 grayscale ssd1322.

Every mark is also recorded as a :class:`Box` (its lit pixels' bounding rectangle, what it is,
and whether a text had to be cut). The layout check in the tests reads these boxes: no two
marks overlap, nothing leaves the panel, no text is cut. A screen never cuts a word to fit:
it asks :meth:`Canvas.choose` for the first of its phrasings (longest first) that fits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from bornes.firmware.screens import fonts

WHITE = 255
BLACK = 0


@dataclass(frozen=True, slots=True)
class Box:
    """One mark on the screen: ``rect`` is (x0, y0, x1, y1), inclusive, of what it lights."""

    kind: str  # "text", "icon", "rule", "bar", "dot" are ink; "fill" is a background others sit on
    rect: tuple[int, int, int, int]
    text: str = ""
    cut: bool = False  # a text that did not fit its room and lost characters
    font: str = ""  # a text's font: lines of one font stacked at its own pitch are one column's lines

    @property
    def ink(self) -> bool:
        return self.kind != "fill"



class Canvas:
    """The image being drawn, plus text and icon helpers that work in both panel modes."""

    def __init__(self, size: tuple[int, int], mode: str) -> None:
        if mode not in ("1", "L", "RGB"):
            raise ValueError(f"unsupported image mode {mode!r}")
        self.width, self.height = size
        self.mode = mode
        self.gray = mode != "1"
        self.dim = 96 if self.gray else WHITE
        self.image = Image.new("L", size, BLACK)
        self.draw = ImageDraw.Draw(self.image)
        self.boxes: list[Box] = []
        self._unfit: set[str] = set()  # phrasings chosen only because nothing shorter was offered

    def record(self, kind: str, rect: tuple[int, int, int, int], text: str = "", cut: bool = False,
               font: str = "") -> None:
        self.boxes.append(Box(kind, rect, text, cut, font))

    # --- text -----------------------------------------------------------------------------

    def text_width(self, text: str, font: str) -> int:
        return fonts.width(fonts.printable(text), font)

    def fits(self, text: str, font: str, width: int) -> bool:
        return self.text_width(text, font) <= width

    def choose(self, phrasings: Sequence[str] | str, font: str, width: int) -> str:
        """The first phrasing (longest first) that fits ``width``; the last one if none does (then cut)."""
        options = [phrasings] if isinstance(phrasings, str) else list(phrasings)
        for option in options:
            if self.fits(option, font, width):
                return option
        self._unfit.add(fonts.printable(options[-1]))
        return options[-1]

    def choose_font(self, phrasings: Sequence[str] | str, fonts_: Sequence[str], width: int,
                    words_first: bool = False) -> tuple[str, str]:
        """The largest font of ``fonts_`` (largest first) in which some phrasing fits, and that phrasing.

        With ``words_first``, the fullest phrasing that fits in any of the fonts wins instead.
        """
        options = [phrasings] if isinstance(phrasings, str) else list(phrasings)
        pairs = ([(o, f) for o in options for f in fonts_] if words_first
                 else [(o, f) for f in fonts_ for o in options])
        for option, font in pairs:
            if self.fits(option, font, width):
                return option, font
        self._unfit.add(fonts.printable(options[-1]))
        return options[-1], fonts_[-1]

    def fit(self, text: str, font: str, width: int) -> str:
        """The text cut to ``width`` pixels (recorded as cut by :meth:`text`; screens avoid this)."""
        text = fonts.printable(text)
        while text and fonts.width(text, font) > width:
            text = text[:-1]
        return text

    def _ink(self, xy: tuple[int, int], text: str, font: str) -> tuple[int, int, int, int] | None:
        bbox = fonts.ink(text, font)
        if bbox is None:
            return None
        return (xy[0] + bbox[0], xy[1] + bbox[1], xy[0] + bbox[2] - 1, xy[1] + bbox[3] - 1)

    def _put(self, xy: tuple[int, int], text: str, font: str, fill: int, cut: bool = False) -> None:
        self.draw.text(xy, text, font=fonts.font(font), fill=fill)
        rect = self._ink(xy, text, font)
        if rect is not None:
            self.record("text", rect, text, cut or text in self._unfit, font)

    def text(self, xy: tuple[int, int], text: str, font: str, fill: int = WHITE, width: int | None = None) -> int:
        """Draw text at its cell's top-left corner; returns the x just after it.

        With ``width``, a text that does not fit is cut and recorded as cut: pass a phrasing
        chosen with :meth:`choose` instead.
        """
        text = fonts.printable(text)
        cut = False
        if width is not None:
            fitted = self.fit(text, font, width)
            cut = fitted != text
            text = fitted
        self._put(xy, text, font, fill, cut)
        return xy[0] + self.text_width(text, font)

    def text_right(self, right: int, y: int, text: str, font: str, fill: int = WHITE) -> int:
        """Draw text ending at x = ``right``; returns its left x."""
        text = fonts.printable(text)
        left = right - self.text_width(text, font)
        self._put((left, y), text, font, fill)
        return left

    def text_center(
        self, y: int, text: str, font: str, fill: int = WHITE, left: int = 0, right: int | None = None
    ) -> None:
        right = self.width if right is None else right
        text = fonts.printable(text)
        fitted = self.fit(text, font, right - left)
        x = left + (right - left - self.text_width(fitted, font)) // 2
        self._put((x, y), fitted, font, fill, cut=fitted != text)

    def wrap(self, text: str, font: str, width: int) -> list[str]:
        """Greedy word wrap to ``width`` pixels; a word longer than a line is cut (and shows as cut)."""
        lines: list[str] = []
        line = ""
        for word in fonts.printable(text).split(" "):  # never at a no-break space ("carte\u00a0:")
            if not word:
                continue
            candidate = f"{line} {word}" if line else word
            if fonts.width(candidate, font) <= width:
                line = candidate
                continue
            if line:
                lines.append(line)
            line = word  # too long for any line: left whole, so the line is drawn as cut
        if line:
            lines.append(line)
        return lines

    def banner(self, y: int, height: int, text: str, font: str, left: int = 0, right: int | None = None) -> None:
        """An inverted bar with centred text: titles and warnings."""
        right = self.width if right is None else right
        self.box((left, y, right - 1, y + height - 1))
        # The ink, not the cell, is centred: an accent ("Réseau") or a descender ("perdu") needs the
        # row a plain English word leaves blank; a text whose ink is taller than the bar takes the
        # next smaller font rather than stick out of it.
        order = tuple(fonts.FONTS)
        for name in order[order.index(font)::-1]:
            box = fonts.ink(fonts.printable(text) or " ", name)
            top, ink_h = (box[1], box[3] - box[1]) if box else (0, 0)
            if ink_h <= height:
                font = name
                break
        self.text_center(y + (height - ink_h) // 2 - top, text, font, fill=BLACK, left=left, right=right)

    # --- shapes ---------------------------------------------------------------------------

    def icon(self, xy: tuple[int, int], mask: Image.Image, fill: int = WHITE) -> None:
        self.draw.bitmap(xy, mask, fill=fill)
        bbox = mask.getbbox()
        if bbox is not None:
            self.record("icon", (xy[0] + bbox[0], xy[1] + bbox[1], xy[0] + bbox[2] - 1, xy[1] + bbox[3] - 1))

    def polygon(self, points: Sequence[tuple[int, int]], fill: int = WHITE) -> None:
        self.draw.polygon(list(points), fill=fill)
        xs = [p[0] for p in points]
        ys = [p[1] for p in points]
        self.record("icon", (min(xs), min(ys), max(xs), max(ys)))

    def box(self, xy: tuple[int, int, int, int], fill: int = WHITE) -> None:
        """A filled rectangle that text or icons are drawn on (a background)."""
        self.draw.rectangle(xy, fill=fill)
        self.record("fill", xy)

    def frame(self, xy: tuple[int, int, int, int], fill: int = WHITE) -> None:
        """An outlined rectangle: a background its contents sit inside."""
        self.draw.rectangle(xy, outline=fill)
        self.record("fill", xy)

    def dot(self, xy: tuple[int, int]) -> None:
        self.draw.point(xy, fill=self.dim)
        self.record("dot", (xy[0], xy[1], xy[0], xy[1]))

    def hline_dim(self, x0: int, x1: int, y: int) -> None:
        """A faint line: gray on a grayscale panel, every other dot on a monochrome one."""
        if self.gray:
            self.draw.line((x0, y, x1, y), fill=self.dim)
        else:
            for x in range(x0, x1 + 1, 2):
                self.draw.point((x, y), fill=WHITE)
        self.record("rule", (x0, y, x1, y))

    def bar(self, x: int, y: int, width: int, height: int, value: int, total: int) -> None:
        """A progress bar: a faint track the full width, filled in proportion to value/total."""
        total = max(1, total)
        filled = round(width * max(0, min(value, total)) / total)
        if self.gray:
            self.draw.rectangle((x, y, x + width - 1, y + height - 1), fill=40)
        else:
            # Track: the last row dotted, plus a tick at each end, so an empty bar still shows its length.
            for dx in range(0, width, 2):
                self.draw.point((x + dx, y + height - 1), fill=WHITE)
            self.draw.line((x + width - 1, y, x + width - 1, y + height - 1), fill=WHITE)
        if filled:
            self.draw.rectangle((x, y, x + filled - 1, y + height - 1), fill=WHITE)
        self.record("bar", (x, y, x + width - 1, y + height - 1))

    def paste(self, other: Canvas, xy: tuple[int, int]) -> None:
        """Draw a sub-canvas here, boxes and all."""
        self.image.paste(other.image, xy)
        dx, dy = xy
        for b in other.boxes:
            moved = (b.rect[0] + dx, b.rect[1] + dy, b.rect[2] + dx, b.rect[3] + dy)
            self.boxes.append(Box(b.kind, moved, b.text, b.cut, b.font))

    def finish(self) -> Image.Image:
        """The image in the panel's mode."""
        if self.mode == "1":
            return self.image.point(lambda v: 255 if v >= 128 else 0).convert("1")
        if self.mode == "RGB":
            return self.image.convert("RGB")
        return self.image.copy()


#: Columns kept dark at the panel's left and right edges: a case's bezel hides the outermost
#: columns of a 0.96" module, so no text, icon or figure may sit there (backgrounds may).
MARGIN = 2


def layout_problems(boxes: Sequence[Box], size: tuple[int, int], margin: int = MARGIN) -> list[str]:
    """What is wrong with a screen's layout: overlaps, marks off the panel, cut texts. Empty when right.

    Ink keeps ``margin`` dark columns at the left and right edges of the panel (the bezel's).

    Ink marks must not share a pixel's rectangle nor touch it (a dark pixel between any two), and two
    texts on one line need two clear columns between them ("Chloé 1000" must not read "Chloé1000").
    A background (``fill``) must either hold an ink mark whole or stay clear of it, and two
    backgrounds must nest or stay apart.
    """
    width, height = size
    problems: list[str] = []
    for b in boxes:
        x0, y0, x1, y1 = b.rect
        if x0 < 0 or y0 < 0 or x1 >= width or y1 >= height:
            problems.append(f"off the panel: {_named(b)}")
        elif b.ink and (x0 < margin or x1 >= width - margin):
            problems.append(f"in the {margin}-pixel margin: {_named(b)}")
        if b.cut:
            problems.append(f"cut: {_named(b)}")
    # Every rule below needs two marks within two columns of each other, so the pairs are found by a sweep
    # over the columns (boxes by their left edge) instead of trying every pair: the game sweeps of the
    # layout and pseudo-locale tests check tens of thousands of screens. The problems keep the order of the
    # boxes, as the plain pairwise loop gave them.
    order = sorted(range(len(boxes)), key=lambda k: boxes[k].rect[0])
    found: list[tuple[int, int, list[str]]] = []
    for at, i in enumerate(order):
        reach = boxes[i].rect[2] + 2
        for j in order[at + 1:]:
            if boxes[j].rect[0] > reach:
                break
            first, second = (i, j) if i < j else (j, i)
            pair = _pair_problems(boxes[first], boxes[second])
            if pair:
                found.append((first, second, pair))
    for _, _, pair in sorted(found, key=lambda entry: (entry[0], entry[1])):
        problems += pair
    return problems


def _named(b: Box) -> str:
    return f"{b.kind} {b.text!r} {b.rect}" if b.text else f"{b.kind} {b.rect}"


def _meets(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def _grown(r: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    return (r[0] - 1, r[1] - 1, r[2] + 1, r[3] + 1)


def _inside(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return b[0] <= a[0] and b[1] <= a[1] and a[2] <= b[2] and a[3] <= b[3]


def _pair_problems(a: Box, b: Box) -> list[str]:
    """What is wrong between two marks (``a`` drawn before ``b``); see :func:`layout_problems`."""
    problems: list[str] = []
    if a.kind == "text" and b.kind == "text" and a.rect[1] <= b.rect[3] and b.rect[1] <= a.rect[3]:
        gap = max(a.rect[0], b.rect[0]) - min(a.rect[2], b.rect[2]) - 1
        if 0 <= gap < 2:  # two texts on one line need a space between them, or they read as one
            problems.append(f"texts run together: {_named(a)} and {_named(b)}")
    a_ink, b_ink = a.ink, b.ink
    meets = _meets(a.rect, b.rect)
    if a_ink != b_ink:  # ink just outside a lit background merges with it: keep one dark pixel
        ink, back = (a, b) if a_ink else (b, a)
        if not meets and _meets(ink.rect, _grown(back.rect)):
            problems.append(f"touches its neighbour's background: {_named(ink)} and {_named(back)}")
    if (a_ink and b_ink and not meets and _meets(a.rect, _grown(b.rect))
            and not (a.kind == b.kind == "text" and a.font and a.font == b.font)):
        # Two marks with no dark pixel between read as one: a safety icon resting on the name
        # below reads as that side's card. (Lines of one font, a paragraph's or a column's,
        # keep the font's own line pitch, as on any terminal.)
        problems.append(f"touch: {_named(a)} and {_named(b)}")
    if not meets:
        return problems
    if a_ink and b_ink:
        problems.append(f"overlap: {_named(a)} and {_named(b)}")
    elif a_ink != b_ink:
        ink, back = (a, b) if a_ink else (b, a)
        if not _inside(ink.rect, back.rect):
            problems.append(f"sticks out of its background: {_named(ink)} over {_named(back)}")
    elif not (_inside(a.rect, b.rect) or _inside(b.rect, a.rect)):
        problems.append(f"backgrounds cross: {_named(a)} and {_named(b)}")
    return problems


