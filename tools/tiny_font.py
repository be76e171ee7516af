"""Redraw the 4x6 font's M, N, W, m and w so they cannot be read as H (issue 24: "Dmitri" read "DHitri").

In the X11 4x6 font every glyph is three pixels wide, and M, N, H and W differ by a pixel or two.
This gives M, W, m and w five pixels (a six-pixel advance) and N four (a five-pixel advance), drawn
after the 5x8 font of the same family; every other glyph is left as shipped. The font stays public
domain (firmware/screens/assets/LICENSE-fonts.txt). Run from the checkout, any number of times:

    .venv/bin/python -m tools.tiny_font
"""

from __future__ import annotations

import struct
from pathlib import Path

from PIL import Image

ASSETS = Path(__file__).resolve().parents[1] / "firmware" / "screens" / "assets"
STEM = "misc-fixed-4x6"
SHIPPED_WIDTH = 800  # the glyph strip as converted from the PCF; redrawn glyphs go after it
RECORD = struct.Struct(">hhhhhhhhhh")  # dx, dy, destination box, source box (PIL font metrics)

#: Rows 0-4 stand on the baseline (capitals), row 5 is below it, as in the shipped glyphs.
GLYPHS: dict[str, str] = {
    "M": "#...#|##.##|#.#.#|#...#|#...#|.....",
    "N": "#..#|##.#|#.##|#..#|#..#|....",
    "W": "#...#|#...#|#.#.#|##.##|#...#|.....",
    "m": ".....|####.|#.#.#|#.#.#|#.#.#|.....",
    "w": ".....|#...#|#.#.#|#.#.#|.#.#.|.....",
}


def redraw() -> None:
    pil_path, pbm_path = ASSETS / f"{STEM}.pil", ASSETS / f"{STEM}.pbm"
    raw = pil_path.read_bytes()
    start = raw.index(b"DATA\n") + len(b"DATA\n")
    metrics = bytearray(raw[start:start + 256 * RECORD.size])
    with Image.open(pbm_path) as opened:
        shipped = opened.convert("1").crop((0, 0, SHIPPED_WIDTH, opened.height))
    extra = sum(len(art.split("|")[0]) + 1 for art in GLYPHS.values())
    strip = Image.new("1", (SHIPPED_WIDTH + extra, shipped.height), 0)
    strip.paste(shipped, (0, 0))
    x = SHIPPED_WIDTH
    for char, art in GLYPHS.items():
        rows = art.split("|")
        width = len(rows[0]) + 1  # a blank column after each glyph
        for row, line in enumerate(rows):
            for column, dot in enumerate(line):
                if dot == "#":
                    strip.putpixel((x + column, row), 1)
        code = ord(char)
        _dx, dy, _d0, d1, _d2, d3, *_source = RECORD.unpack_from(metrics, code * RECORD.size)
        RECORD.pack_into(metrics, code * RECORD.size, width, dy, 0, d1, width, d3, x, 0, x + width, len(rows))
        x += width
    pil_path.write_bytes(raw[:start] + bytes(metrics) + raw[start + len(metrics):])
    strip.save(pbm_path, "PNG")  # the shipped .pbm is a PNG too (Pillow reads it by content)


if __name__ == "__main__":
    redraw()
    print(f"redrew {', '.join(GLYPHS)} in {STEM}")
