"""The panel's fonts, redrawn where a glyph reads as another, and the check that none does (issues 29, 40).

The X11 misc-fixed fonts are public domain and crisp at one pixel a dot, but at the sizes of a
0.96" panel some glyphs differ from others by a pixel or none ("é" from "e" in 4×6, "œ" from "æ"),
or read as another beside their neighbours: the 5×8 period is a small cross ("suiv." read "suiv+"),
a "+" between two names touches them ("Léa+Wim" read "LéatWim"), the 5×8 "É" wears its accent as
a hook ("Étape" read "£tape"), the 4×6 "É" in its top bar ("E'lodie"), the 4×6 "ë" touching its e
("Maxlle"), the 5×8 "+" touching the figure after it ("+475" one bar). :data:`GLYPHS` redraws those,
drawn after the same family; every other glyph is left as converted
(``firmware/screens/assets/LICENSE-fonts.txt``). The redrawn glyphs are ours and public domain too.
Run from the checkout, any number of times (a glyph taken out of :data:`GLYPHS` needs the converted
font back first: ``git checkout`` the ``.pil`` and ``.pbm`` of that font as converted, before any
redraw)::

    .venv/bin/python -m tools.panel_fonts            # redraw (writes the .pil and .pbm files)
    .venv/bin/python -m tools.panel_fonts --check    # list what still reads as something else
    .venv/bin/python -m tools.panel_fonts --sheet OUT.png   # every glyph the table shows, 4x

``tests/display/test_glyphs.py`` runs :func:`problems` on every font the panel uses.
"""

from __future__ import annotations

import argparse
import itertools
import re
import struct
import sys
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from PIL import Image, ImageDraw

from bornes.firmware.screens.fonts import JOIN_GLYPH

ROOT = Path(__file__).resolve().parents[1]
ASSETS = ROOT / "firmware" / "screens" / "assets"
CATALOGUE = ROOT / "firmware" / "language" / "locale" / "fr" / "LC_MESSAGES" / "bornes.po"
RECORD = struct.Struct(">hhhhhhhhhh")  # dx, dy, destination box, source box (PIL font metrics)

#: The glyph strip of each font as converted from the PCF (its width); redrawn glyphs go after it.
SHIPPED_WIDTH: dict[str, int] = {
    "misc-fixed-4x6": 800, "misc-fixed-5x8": 800, "misc-fixed-6x10": 798,
    "misc-fixed-7x13B": 798, "misc-fixed-9x15B": 792, "misc-fixed-10x20": 800,
}

#: Redrawn glyphs: font -> character -> the whole cell, rows top to bottom ("|" between rows), "#" lit.
#: A row's length is the glyph's advance, its blank columns included.
GLYPHS: dict[str, dict[str, str]] = {
    "misc-fixed-4x6": {
        # Issue 24: M, N, W, m and w wider, so that they cannot be read as H ("Dmitri" read "DHitri").
        "M": "#...#.|##.##.|#.#.#.|#...#.|#...#.|......",
        "N": "#..#.|##.#.|#.##.|#..#.|#..#.|.....",
        "W": "#...#.|#...#.|#.#.#.|##.##.|#...#.|......",
        "m": "......|####..|#.#.#.|#.#.#.|#.#.#.|......",
        "w": "......|#...#.|#.#.#.|#.#.#.|.#.#..|......",
        # Issue 29. Punctuation: the period a dot two columns wide (a cut name's mark, "Chl."), the comma
        # a dot with a tail, the colon's dots apart, each two pixels from the others; the partners' "+"
        # (its own slot, fonts.JOIN_GLYPH) with two dark columns each side, so that it stands apart.
        ".": "..|..|..|..|#.|..",
        ",": "....|....|....|.#..|.#..|#...",
        ":": "....|.#..|....|.#..|....|....",
        ";": "....|.#..|....|....|.#..|#...",
        "\x81": "......|..#...|.###..|..#...|......|......",
        # Letters a pixel apart from another: O wider than 0 and C, Q's tail longer; K apart from H, X
        # and k; l with a foot (not I), k and h with taller stems (not R, n), d's stem taller than a's
        # bowl, q's tail longer, u's bottom flat (not v); Ç's cedilla and œ/æ (they were the same).
        "O": ".##..|#..#.|#..#.|#..#.|.##..|.....",
        "Q": ".##..|#..#.|#..#.|#..#.|.##..|..##.",
        "K": "#..#.|#.#..|##...|#.#..|#..#.|.....",
        "k": "#...|#...|#.#.|##..|#.#.|....",
        "h": "#...|#...|##..|#.#.|#.#.|....",
        "l": "##..|.#..|.#..|.#..|.##.|....",
        "d": "..#.|..#.|.##.|#.#.|.##.|....",
        "q": "....|.##.|#.#.|.##.|..#.|..#.",
        "u": "....|#.#.|#.#.|#.#.|###.|....",
        "Ç": ".#..|#.#.|#...|#.#.|.#..|##..",
        "æ": "......|.###..|#.#.#.|#.##..|.####.|......",
        "œ": "......|.#.#..|#.#.#.|#.##..|.#.##.|......",
        # Accents (issue 40): an accent stands on the top row alone, a dark row under it, above a body of
        # three rows; two pixels each, never a dot ("Léa" read "Lėa"), told apart by where they are: the
        # grave over the left two columns, the circumflex the middle two, the acute the right two (é a
        # column wider for it, so that it clears the next letter), the diaeresis the two sides (ë read
        # "x" when its dots touched the e). É, È, Ê and Ë on an E four columns wide, as Ô and Ü are (its
        # middle bar two, so that it reads as an E, not a block), so that they differ from Î and Ï; î
        # and ï on a bare stem, so that they differ from i, Î and Ï.
        "è": "##..|....|#.#.|##..|.##.|....",
        "é": "..##.|.....|#.#..|##...|.##..|.....",
        "ê": ".##.|....|#.#.|##..|.##.|....",
        "ë": "#.#.|....|#.#.|##..|.##.|....",
        "È": "##...|.....|####.|##...|####.|.....",
        "É": "..##.|.....|####.|##...|####.|.....",
        "Ê": ".##..|.....|####.|##...|####.|.....",
        "Ë": "#..#.|.....|####.|##...|####.|.....",
        "à": "##..|....|.##.|#.#.|.##.|....",
        "â": ".##.|....|.##.|#.#.|.##.|....",
        "À": "##..|....|.#..|###.|#.#.|....",
        "Â": ".##.|....|.#..|###.|#.#.|....",
        "î": ".##.|....|.#..|.#..|.#..|....",
        "ï": "#.#.|....|.#..|.#..|.#..|....",
        "Î": ".##.|....|###.|.#..|###.|....",
        "Ï": "#.#.|....|###.|.#..|###.|....",
        "ô": ".##.|....|.#..|#.#.|.#..|....",
        "Ô": ".##..|.....|.##..|#..#.|.##..|.....",
        "ù": "##..|....|#.#.|#.#.|###.|....",
        "û": ".##.|....|#.#.|#.#.|###.|....",
        "ü": "#.#.|....|#.#.|#.#.|###.|....",
        "Ù": "##...|.....|#..#.|#..#.|.##..|.....",
        "Û": ".##..|.....|#..#.|#..#.|.##..|.....",
        "Ü": "#..#.|.....|#..#.|#..#.|.##..|.....",
        # Œ and Æ a column wider: their ink filled the cell and touched the next letter.
        "Œ": ".#.#.|#.#..|#.##.|#.#..|.###.|.....",
        "Æ": ".###.|#.#..|####.|#.#..|#.##.|.....",
    },
    # The larger fonts (issue 29): "+" with a dark column before it and two after (the next letter has
    # none before its ink), so it stands as far from both names; the period a dot, not a small cross;
    # an accented capital's accent on a row of its own above a body one row shorter (as X11's own Ë,
    # Ï and Ü of 5x8), the four accents told apart by where their two pixels are; î and ï, ê and ë
    # told apart by taller dots; l with a foot (not I), 6x10's c open (not o); Ç and ç with a
    # cedilla of two pixels.
    "misc-fixed-5x8": {
        # Issue 40: the points' "+" (the hand's points, "+475", "+manche") a cross of three, apart from the
        # figure after it (its arm and the 4's bar made one line); Y, m, w, Ÿ, œ and æ a column wider,
        # their ink filled the cell and touched the next letter; Î's circumflex two pixels, not a dot.
        "+": ".....|.....|.....|..#..|.###.|..#..|.....|.....",
        "Y": "......|#...#.|#...#.|.#.#..|..#...|..#...|..#...|......",
        "m": "......|......|......|##.#..|#.#.#.|#.#.#.|#.#.#.|......",
        "w": "......|......|......|#...#.|#.#.#.|#.#.#.|.#.#..|......",
        "œ": "......|......|......|.###..|#.#.#.|#.##..|.####.|......",
        "Î": ".##..|.....|.###.|..#..|..#..|..#..|.###.|.....",
        "Ÿ": ".#.#..|......|#...#.|.#.#..|..#...|..#...|..#...|......",
        "æ": "......|......|......|####..|.##.#.|#.##..|.####.|......",
        "À": "##...|.....|.##..|#..#.|####.|#..#.|#..#.|.....",
        "Â": ".##..|.....|.##..|#..#.|####.|#..#.|#..#.|.....",
        "È": "##...|.....|####.|#....|###..|#....|####.|.....",
        "É": "..##.|.....|####.|#....|###..|#....|####.|.....",
        "Ê": ".##..|.....|####.|#....|###..|#....|####.|.....",
        "Ë": "#..#.|.....|####.|#....|###..|#....|####.|.....",
        "Ô": ".##..|.....|.##..|#..#.|#..#.|#..#.|.##..|.....",
        "Ù": "##...|.....|#..#.|#..#.|#..#.|#..#.|.##..|.....",
        "Û": ".##..|.....|#..#.|#..#.|#..#.|#..#.|.##..|.....",
        "Ü": "#..#.|.....|#..#.|#..#.|#..#.|#..#.|.##..|.....",
        "Ç": ".....|.##..|#..#.|#....|#....|#..#.|.##..|..##.",
        "ç": ".....|.....|.....|..##.|.#...|.#...|..##.|.##..",
        "l": ".....|.##..|..#..|..#..|..#..|..#..|..##.|.....",
        ".": "...|...|...|...|...|##.|##.|...",
        "\x81": "......|......|......|..#...|.###..|..#...|......|......",
        "ä": ".#.#.|.#.#.|.....|.###.|#..#.|#..#.|.###.|.....",
        "ë": ".#.#.|.#.#.|.....|.##..|#.##.|##...|.##..|.....",
        "ï": ".#.#.|.#.#.|.....|.##..|..#..|..#..|.###.|.....",
        "ö": "#..#.|#..#.|.....|.##..|#..#.|#..#.|.##..|.....",
        "ü": "#..#.|#..#.|.....|#..#.|#..#.|#..#.|.###.|.....",
        "ÿ": "#..#.|#..#.|.....|#..#.|#..#.|.###.|#..#.|.##..",
    },
    "misc-fixed-6x10": {
        "Æ": ".......|..####.|.#.#...|#..#...|#..###.|####...|#..#...|#..###.|.......|.......",  # a column wider (40)
        "æ": ".......|.......|.......|.####..|...#.#.|.#####.|#..#...|.#####.|.......|.......",
        "À": "##....|......|.###..|#...#.|#...#.|#####.|#...#.|#...#.|......|......",
        "Â": ".###..|......|.###..|#...#.|#...#.|#####.|#...#.|#...#.|......|......",
        "È": "##....|......|#####.|#.....|####..|#.....|#.....|#####.|......|......",
        "É": "...##.|......|#####.|#.....|####..|#.....|#.....|#####.|......|......",
        "Ê": ".###..|......|#####.|#.....|####..|#.....|#.....|#####.|......|......",
        "Ë": "#...#.|......|#####.|#.....|####..|#.....|#.....|#####.|......|......",
        "Î": ".###..|......|.###..|..#...|..#...|..#...|..#...|.###..|......|......",
        "Ï": "#...#.|......|.###..|..#...|..#...|..#...|..#...|.###..|......|......",
        "Ô": ".###..|......|.###..|#...#.|#...#.|#...#.|#...#.|.###..|......|......",
        "Ù": "##....|......|#...#.|#...#.|#...#.|#...#.|#...#.|.###..|......|......",
        "Û": ".###..|......|#...#.|#...#.|#...#.|#...#.|#...#.|.###..|......|......",
        "Ü": "#...#.|......|#...#.|#...#.|#...#.|#...#.|#...#.|.###..|......|......",
        "Ÿ": "#...#.|......|#...#.|.#.#..|..#...|..#...|..#...|..#...|......|......",
        "l": "......|.##...|..#...|..#...|..#...|..#...|..#...|...##.|......|......",
        "c": "......|......|......|.####.|#.....|#.....|#.....|.####.|......|......",
        ".": "......|......|......|......|......|......|..##..|..##..|......|......",
        "\x81": "........|........|...#....|...#....|.#####..|...#....|...#....|........|........|........",
        "ä": ".#.#..|.#.#..|......|.###..|....#.|.####.|#...#.|.####.|......|......",
        "ë": ".#.#..|.#.#..|......|.###..|#...#.|#####.|#.....|.###..|......|......",
        "ï": ".#.#..|.#.#..|......|.##...|..#...|..#...|..#...|.###..|......|......",
        "ö": ".#.#..|.#.#..|......|.###..|#...#.|#...#.|#...#.|.###..|......|......",
        "ü": ".#.#..|.#.#..|......|#...#.|#...#.|#...#.|#..##.|.##.#.|......|......",
        "ÿ": ".#.#..|.#.#..|......|#...#.|#...#.|#..##.|.##.#.|....#.|#...#.|.###..",
    },
    "misc-fixed-7x13B": {
        "œ": ("........|........|........|........|........|.##.##..|##.##.#.|##.####.|##.##...|##.##.#.|"
              ".##.##..|........|........"),  # a column wider (issue 40): it touched the next letter
        "\x81": (".........|.........|.........|.........|...##....|...##....|.######..|.######..|...##....|"
              "...##....|.........|.........|........."),
    },
    "misc-fixed-9x15B": {
        "œ": ("..........|..........|..........|..........|..........|.###.###..|##.###.##.|##..#..##.|"
              "##..#####.|##..#.....|##.###.##.|.###.###..|..........|..........|.........."),  # wider (40)
        "\x81": ("...........|...........|...........|...........|....##.....|....##.....|....##.....|"
              ".########..|....##.....|....##.....|....##.....|...........|...........|...........|"
              "..........."),
    },
    "misc-fixed-10x20": {
        "\x81": ("............|............|............|............|............|............|.....##.....|"
              ".....##.....|.....##.....|..########..|.....##.....|.....##.....|.....##.....|............|"
              "............|............|............|............|............|............"),
    },
}


def _rows(art: str) -> list[str]:
    rows = art.split("|")
    if len({len(row) for row in rows}) != 1:
        raise ValueError(f"rows of unequal length: {art!r}")
    return rows


def redraw() -> list[str]:
    """Write every font of :data:`GLYPHS` with its glyphs redrawn; the fonts changed."""
    changed = []
    for stem, glyphs in GLYPHS.items():
        pil_path, pbm_path = ASSETS / f"{stem}.pil", ASSETS / f"{stem}.pbm"
        raw = pil_path.read_bytes()
        start = raw.index(b"DATA\n") + len(b"DATA\n")
        metrics = bytearray(raw[start:start + 256 * RECORD.size])
        with Image.open(pbm_path) as opened:
            shipped = opened.convert("1").crop((0, 0, SHIPPED_WIDTH[stem], opened.height))
        top = min(RECORD.unpack_from(metrics, code * RECORD.size)[3] for code in range(256))
        extra = sum(len(_rows(art)[0]) for art in glyphs.values())
        strip = Image.new("1", (SHIPPED_WIDTH[stem] + extra, shipped.height), 0)
        strip.paste(shipped, (0, 0))
        x = SHIPPED_WIDTH[stem]
        for char, art in glyphs.items():
            rows = _rows(art)
            width, height = len(rows[0]), len(rows)
            for row, line in enumerate(rows):
                for column, dot in enumerate(line):
                    if dot == "#":
                        strip.putpixel((x + column, row), 1)
            code = ord(char.encode("cp1252")) if char != JOIN_GLYPH else ord(JOIN_GLYPH)
            RECORD.pack_into(metrics, code * RECORD.size, width, 0, 0, top, width, top + height, x, 0, x + width,
                             height)
            x += width
        pil_path.write_bytes(raw[:start] + bytes(metrics) + raw[start + len(metrics):])
        strip.save(pbm_path, "PNG")  # the shipped .pbm is a PNG too (Pillow reads it by content)
        changed.append(f"{stem}: {''.join(glyphs)}")
    return changed


# -- what the table can show, and the check ----------------------------------------------------------


@cache
def table_characters() -> str:
    """Every character the panel can be asked to draw, as its fonts index them: the letters, digits
    and punctuation of the table's catalogue (English msgids and French msgstrs, placeholders left
    out), the letters the name editor offers, A-Z, a-z, 0-9, the partners' "+" and the "?" that
    stands for a character the fonts lack."""
    from bornes.firmware.language.names import NAME_LETTERS
    from bornes.firmware.screens.fonts import printable

    text = CATALOGUE.read_text(encoding="utf-8")
    quoted = "".join(re.findall(r'^(?:msgid|msgstr|msgctxt|)\s*"(.*)"$', text, re.MULTILINE))
    quoted = re.sub(r"\{[^{}]*\}", "", quoted.replace('\\"', '"').replace("\\n", " "))
    found = set(quoted) | set(NAME_LETTERS) | set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+?")
    found.add(JOIN_GLYPH)
    shown = {printable(char) for char in found if char == JOIN_GLYPH or (char.isprintable() and not char.isspace())}
    return "".join(sorted(char for char in shown if len(char) == 1))


Glyph = frozenset[tuple[int, int]]


@dataclass(frozen=True)
class Face:
    """A font as the check reads it: each glyph's lit pixels (drawn at the cell's origin), its advance
    in pixels, and the cell's height."""

    ink: dict[str, Glyph]
    advance: dict[str, int]
    height: int

    @classmethod
    def of(cls, font: str, chars: Iterable[str] | None = None) -> Face:
        """A font of ``bornes.firmware.screens.fonts`` (``"tiny"``...), for the characters the table shows."""
        from bornes.firmware.screens import fonts

        chars = [*(chars if chars is not None else table_characters()), "H"]
        return cls({char: ink(char, font) for char in chars}, {char: fonts.width(char, font) for char in chars},
                   fonts.cell(font)[1])

    def with_glyph(self, char: str, art: str) -> Face:
        """The same face with one glyph drawn as ``art`` (rows of "#" and ".", "|" between rows)."""
        rows = _rows(art)
        lit = frozenset((x, y) for y, row in enumerate(rows) for x, dot in enumerate(row) if dot == "#")
        return Face({**self.ink, char: lit}, {**self.advance, char: len(rows[0])}, self.height)


def ink(char: str, font: str) -> Glyph:
    """The lit pixels of one glyph drawn at the cell's origin, in a font of ``bornes.firmware.screens.fonts``."""
    from bornes.firmware.screens import fonts

    width, height = fonts.width(char, font), fonts.cell(font)[1]
    image = Image.new("1", (width + 2, height), 0)
    ImageDraw.Draw(image).text((0, 0), char, font=fonts.font(font), fill=1)
    return frozenset((x, y) for x in range(image.width) for y in range(height) if image.getpixel((x, y)))


def _marks(pixels: Iterable[tuple[int, int]]) -> list[Glyph]:
    """The marks the pixels make (8-connected: a diagonal step joins), each as its pixels."""
    left, found = set(pixels), []
    while left:
        mark = {left.pop()}
        stack = list(mark)
        while stack:
            x, y = stack.pop()
            for near in ((x + dx, y + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)):
                if near in left:
                    left.remove(near)
                    mark.add(near)
                    stack.append(near)
        found.append(frozenset(mark))
    return found


def _components(pixels: Iterable[tuple[int, int]]) -> int:
    """How many marks the pixels make (8-connected: a diagonal step joins)."""
    return len(_marks(pixels))


#: Accents that stand above a letter (a cedilla hangs from it, as in print).
_ABOVE = {"\u0300", "\u0301", "\u0302", "\u0308"}
#: Marks written between two words without a space: the "+" that joins partners ("Léa+Wim", drawn
#: with its own glyph, ``fonts.JOIN_GLYPH``). Beside a letter it keeps two dark columns or more, more
#: than the letters of a word, and as many on both sides, so that it is read on its own and never as
#: a letter of either name ("LéatWim").
SEPARATORS = JOIN_GLYPH
#: Glyphs that are one character drawn twice: the points' "+" and the partners' (their own slot,
#: wider apart), which may look alike.
SAME_CHARACTER = {frozenset(("+", JOIN_GLYPH))}


def meaning(char: str) -> str:
    """The character a glyph stands for: the fonts index Œ, œ and Ÿ by their Windows-1252 byte, and
    the partners' "+" has a slot of its own."""
    if char == JOIN_GLYPH:
        return "+"
    try:
        return char.encode("latin-1").decode("cp1252")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return char


def shown(text: str) -> str:
    """Glyphs as a person reads them, quoted: ``'œ'``, ``'+4'``."""
    return repr("".join(meaning(char) for char in text))


def word_characters(chars: Iterable[str]) -> str:
    """The glyphs set side by side inside a word or a number: letters, digits and the marks between
    them ("Jean-Luc", "Chl.", "Léa+Wim", "+475", "1 000")."""
    return "".join(char for char in chars if meaning(char).isalnum() or meaning(char) in "+.,'-")


def _beside(face: Face, first: str) -> Glyph:
    """The pixels beside ``first``'s ink, a diagonal corner included, where the next glyph starts."""
    advance = face.advance[first]
    return frozenset((x + dx - advance, y + dy) for x, y in face.ink[first] for dx in (-1, 0, 1) for dy in (-1, 0, 1))


def touches(face: Face, first: str, then: str) -> bool:
    """Whether ``then`` set after ``first`` (at its advance) lights a pixel beside one of ``first``'s,
    a diagonal corner included: two glyphs that touch read as one ("+475" read as one bar "+-475")."""
    return not _beside(face, first).isdisjoint(face.ink[then])


def _touching(face: Face, chars: str, name: str) -> list[str]:
    """One line for each glyph that touches another after it in a word, with a few of those pairs."""
    found = []
    word = sorted(word_characters(chars), key=lambda char: (not meaning(char).isdigit(), not meaning(char).isalpha()))
    for first in word:
        beside = _beside(face, first)
        pairs = [first + then for then in word if not beside.isdisjoint(face.ink[then])]  # figures first
        if pairs:
            more = f" and {len(pairs) - 6} more" if len(pairs) > 6 else ""
            found.append(f"{name}: {shown(first)} touches the glyph after it in "
                         f"{', '.join(shown(pair) for pair in pairs[:6])}{more}")
    return found


def _accent_problems(glyphs: dict[str, Glyph], char: str, name: str) -> list[str]:
    """What is wrong with the accent of an accented letter: it touches the letter, shares a row with
    it, or is a dot where a stroke is wanted ("Léa" read "Lėa")."""
    decomposed = unicodedata.normalize("NFD", meaning(char))
    base, marks = decomposed[0], set(decomposed[1:])
    if not marks or base not in glyphs:
        return []
    found = []
    if len(glyphs[char] ^ glyphs[base]) < 2:
        found.append(f"{name}: {shown(char)} differs from {base!r} by less than two pixels")
    if not marks <= _ABOVE:
        return found
    own = _components(glyphs[base]) - (1 if base in "ij" else 0)  # the accent takes the place of i's dot
    parts = sorted(_marks(glyphs[char]), key=lambda mark: max(y for _x, y in mark))
    if len(parts) <= own:
        return [*found, f"{name}: the accent of {shown(char)} touches its letter"]
    accent, body = parts[:len(parts) - own], parts[len(parts) - own:]
    lowest = max(y for mark in accent for _x, y in mark)
    top = min(y for mark in body for _x, y in mark)
    if lowest >= top:
        found.append(f"{name}: the accent of {shown(char)} is in its letter's rows (row {top}), not above them")
    lit = sum(len(mark) for mark in accent)
    if lit < 2:
        found.append(f"{name}: the accent of {shown(char)} is one pixel, a dot: it reads as a dotted {base!r}")
    return found


def problems(face: Face | str, name: str = "") -> list[str]:
    """What reads as something else in a font (a :class:`Face`, or a font's name), one line each
    (empty: nothing does):

    * every two glyphs the table can show differ by more than one pixel;
    * the partners' ``+`` (:data:`SEPARATORS`) keeps as many dark columns on each side beside a letter,
      two or more;
    * the period is a dot (two thirds of its box lit or more), not a small cross that reads as "+";
    * an accent above a letter is a mark of its own, never joined to the letter ("É" must not read
      "£", "ë" not "x"), in rows above the letter's, never in them ("É" must not read "E'"), and of
      two pixels or more, never a dot ("é" must not read "ė");
    * an accented letter differs from its letter by two pixels or more ("é" from "e");
    * no glyph of a word or a number touches the next one, a diagonal corner included ("+475" read
      as one bar, "Maëlle" as "Maxlle").
    """
    if isinstance(face, str):
        name, face = name or face, Face.of(face)
    chars_shown = table_characters()
    glyphs = {char: lit for char, lit in face.ink.items() if char in chars_shown}
    chars = sorted(glyphs)
    found = [f"{name}: {shown(a)} and {shown(b)} differ by {len(glyphs[a] ^ glyphs[b])} pixel(s)"
             for a, b in itertools.combinations(chars, 2)
             if len(glyphs[a] ^ glyphs[b]) <= 1 and frozenset((a, b)) not in SAME_CHARACTER]
    for mark in SEPARATORS:
        if not face.ink.get(mark):
            found.append(f"{name}: the partners' '+' has no glyph of its own (slot {ord(mark):#x} is empty)")
            continue
        left, right = gaps(face, mark)
        if min(left, right) < 2 or left != right:
            found.append(f"{name}: the partners' '+' beside letters keeps {left} and {right} dark columns "
                         "(two each wanted)")
    dot = glyphs["."]
    xs, ys = {x for x, _y in dot}, {y for _x, y in dot}
    if 3 * len(dot) < 2 * len(xs) * len(ys):  # a small cross lights 5 of its 9 pixels; a dot, 2/3 or more
        found.append(f"{name}: '.' is not a dot ({len(dot)} pixels over {len(xs)}x{len(ys)}): it reads as '+'")
    for char in chars:
        found += _accent_problems(glyphs, char, name)
    found += _touching(face, "".join(chars), name)
    return found


def gaps(face: Face, mark: str, neighbour: str = "H") -> tuple[int, int]:
    """The dark columns between ``mark`` and a letter on each side of it ("H+H"), as the font sets them:
    each glyph after the previous one's advance."""
    letter = {x for x, _y in face.ink[neighbour]}
    own = {x for x, _y in face.ink[mark]}
    start, after = face.advance[neighbour], face.advance[neighbour] + face.advance[mark]
    return start + min(own) - max(letter) - 1, after + min(letter) - (start + max(own)) - 1


# -- the contact sheet ---------------------------------------------------------------------------------

#: Pairs people misread (issues 29 and 40), shown side by side on the sheet.
CONFUSED = ("+t", ".+", "É£", "eé", "MH", "WH", "0O", "Il", "KH", "œæ", "ëx", "eéèêë", "EÉÈÊË", "aàâ", "uùûü",
            "iîï", "IÎÏ", "AÀÂ", "OÔ", "UÙÛÜ", "+4")
#: Words from the table that the misread glyphs sit in.
WORDS = ("Léa+Wim", "Marc+Maëlle", "B+D", "manche suiv.", "Chl.", "700.", "Étape", "Chloé", "Hélène",
         "Œdipe", "Zoë", "NEXT/BACK", "Dmitri", "Coups f.", "Élodie", "Maë.", "Léa", "+475", "+manche", "Noël",
         "Ève", "Loïc", "Benoît", "Jérôme", "Françoise", "Lætitia", "Ÿves", "Maxime", "Yann", "Anaïs", "Ophélie")


def sheet(path: Path, scale: int = 4) -> None:
    """Every glyph the table can show, in every font the panel uses, then the misread pairs and words,
    at ``scale`` panel pixels a pixel: white on black, as on the panel."""
    from bornes.firmware.screens import fonts

    chars = table_characters()
    label = "text"
    lines: list[tuple[str, str]] = []  # (font, text), each line 360 pixels at most: 1440 at 4x

    def wrapped(font: str, items: Sequence[str], joint: str) -> list[tuple[str, str]]:
        rows: list[str] = []
        for item in items:
            if rows and fonts.width(fonts.printable(rows[-1] + joint + item), font) <= 360:
                rows[-1] += joint + item
            else:
                rows.append(item)
        return [(font, row) for row in rows]

    for font in fonts.FONTS:
        lines.append((label, font))
        lines += wrapped(font, list(chars), " ")
        lines += wrapped(font, CONFUSED, "  ")
        lines += wrapped(font, WORDS, "  ")
    width = max(fonts.width(fonts.printable(text), font) for font, text in lines) + 8
    height = sum(fonts.cell(font)[1] + 2 for font, _text in lines) + 8
    image = Image.new("L", (width, height), 0)
    draw = ImageDraw.Draw(image)
    y = 4
    for font, text in lines:
        draw.text((4, y), fonts.printable(text), font=fonts.font(font), fill=255 if font != label or
                  text not in fonts.FONTS else 160)
        y += fonts.cell(font)[1] + 2
    image = image.resize((width * scale, height * scale), Image.Resampling.NEAREST)
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path, optimize=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.panel_fonts", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="list what reads as something else; exit 1 if any")
    parser.add_argument("--sheet", type=Path, metavar="PNG", help="write the contact sheet of every glyph, 4x")
    args = parser.parse_args(argv)
    if args.sheet:
        sheet(args.sheet)
        print(f"wrote {args.sheet}")
        return 0
    if args.check:
        from bornes.firmware.screens import fonts

        found = [line for font in fonts.FONTS for line in problems(font)]
        print("\n".join(found) or "every glyph reads as itself")
        return 1 if found else 0
    for line in redraw():
        print(f"redrew {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
