"""Every glyph the table can show reads as itself, in every font the panel uses (issues 29 and 40).

Players read "suiv." as "suiv+" (the 5×8 period was a small cross), "Léa+Wim" as "LéatWim" (the
"+" touched both names), "Étape" as "£tape" and "é" as "ɛ"; then, in the 4×6 font, "Élodie" as
"E'lodie" (the accent in the E's top bar), "Maëlle" as "Maxlle" (the dots touched the e), "Léa" as
"Lėa" (a one-pixel accent), and "+475" as one bar (the 5×8 "+" touched the 4). ``tools/panel_fonts.py``
redraws those glyphs; this is its check, over the letters, digits and punctuation of the table's
catalogue and the name editor's letters, and a proof that the check sees each misreading when it is
put back.
"""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from bornes.firmware.language.names import NAME_LETTERS
from bornes.firmware.screens import fonts
from bornes.firmware.screens.fonts import JOIN_GLYPH
from tools.panel_fonts import Face, gaps, problems, table_characters


@pytest.mark.parametrize("font", list(fonts.FONTS))
def test_every_glyph_the_table_shows_reads_as_itself(font: str) -> None:
    assert problems(font) == []


def test_the_characters_checked_are_those_the_table_can_show() -> None:
    shown = table_characters()
    for char in "ÉéèêëàâçîïôûùüÿœŒ" + NAME_LETTERS.strip(" ") + "0123456789+.,:;!?'-/()«»":
        assert fonts.printable(char) in shown, char
    assert "{" not in shown and "}" not in shown  # placeholders are not shown


@pytest.mark.parametrize("font", list(fonts.FONTS))
def test_the_gaps_the_check_measures_are_those_the_panel_draws(font: str) -> None:
    """``gaps`` sets glyphs by their advances; Pillow's own drawing of "H+H" (partners) agrees."""
    text = fonts.printable("H+H")
    assert text == f"H{JOIN_GLYPH}H" and fonts.printable("4200 +1400") == "4200 +1400"
    image = Image.new("1", (fonts.width(text, font) + 4, fonts.cell(font)[1]), 0)
    ImageDraw.Draw(image).text((0, 0), text, font=fonts.font(font), fill=1)
    lit = [x for x in range(image.width) if any(image.getpixel((x, y)) for y in range(image.height))]
    start, end = fonts.width("H", font), fonts.width(text[:2], font)
    h_first = [x for x in lit if x < start]
    plus = [x for x in lit if start <= x < end]
    h_second = [x for x in lit if x >= end]
    assert gaps(Face.of(font, JOIN_GLYPH), JOIN_GLYPH) == (min(plus) - max(h_first) - 1, min(h_second) - max(plus) - 1)


#: Glyphs as the X11 fonts drew them before issue 29 (their pixels, as shipped), each with the
#: misreading it caused and the words the check says about it.
MISREAD = [
    ("small", {".": ".....|.....|.....|.....|.....|..#..|.###.|..#.."}, "'.' is not a dot"),  # "suiv+"
    ("text", {".": "......|......|......|......|......|......|..#...|.###..|..#...|......"}, "'.' is not a dot"),
    ("tiny", {JOIN_GLYPH: ".#..|.#..|###.|.#..|.#..|...."}, "'+' beside letters keeps 1 and 1"),  # "LéatWim"
    ("small", {JOIN_GLYPH: ".....|.....|..#..|..#..|#####|..#..|..#..|....."}, "'+' beside letters keeps 1 and 0"),
    ("tiny", {"é": "..#.|.#..|#.#.|##..|.##.|...."}, "'é' differs from 'e' by less than two pixels"),  # "ɛ"
    ("small", {"É": "..#..|.#...|####.|#....|###..|#....|####.|....."}, "the accent of 'É' touches"),  # "£"
    ("tiny", {"æ": "....|.###|#.##|#.#.|.###|....", "œ": "....|.###|#.##|#.#.|.###|...."}, "differ by 0"),
    ("text", {"l": "......|.##...|..#...|..#...|..#...|..#...|..#...|.###..|......|......"}, "'I' and 'l'"),
    ("tiny", {"K": "#.#.|#.#.|##..|#.#.|#.#.|...."}, "'H' and 'K' differ by 1"),
    # Issue 40: the 4x6 glyphs of names and the 5x8 "+" of the points, as issue 29 left them.
    ("tiny", {"É": "##.#.|#....|##...|#....|###..|....."}, "the accent of 'É' is in its letter's rows"),  # E'lodie
    ("tiny", {"ë": "#.#.|.#..|#.#.|##..|.##.|...."}, "the accent of 'ë' touches its letter"),  # "Maxlle"
    ("tiny", {"é": "..#.|....|#.#.|##..|.##.|...."}, "the accent of 'é' is one pixel"),  # "Lėa"
    ("tiny", {"è": "#...|....|#.#.|##..|.##.|...."}, "the accent of 'è' is one pixel"),
    ("tiny", {"à": "#...|.#..|.##.|#.#.|.##.|...."}, "the accent of 'à' touches its letter"),
    ("tiny", {"Æ": ".###|#.#.|####|#.#.|#.##|...."}, "'Æ' touches the glyph after it"),
    ("small", {"+": ".....|.....|..#..|..#..|#####|..#..|..#..|....."}, "'+4'"),  # "+475" one bar
    ("small", {"m": ".....|.....|.....|##.#.|#.#.#|#.#.#|#.#.#|....."}, "'m' touches the glyph after it"),
]


@pytest.mark.parametrize(("font", "glyphs", "said"), MISREAD,
                         ids=[f"{f}-{''.join(g).replace(JOIN_GLYPH, 'join')}" for f, g, _s in MISREAD])
def test_the_check_sees_each_misreading_put_back(font: str, glyphs: dict[str, str], said: str) -> None:
    face = Face.of(font)
    for char, art in glyphs.items():
        face = face.with_glyph(fonts.printable(char), art)
    found = problems(face, font)
    assert any(said in line for line in found), found
