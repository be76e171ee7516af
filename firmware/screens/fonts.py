"""The bitmap fonts screens use: X11 misc-fixed, public domain, crisp at one pixel per dot.

Some glyphs are redrawn so that none reads as another (tools/panel_fonts.py): the 4×6 font's M, N,
W, m and w are wider, and in every font "+" stands apart from the names it joins, so widths are
measured (:func:`width`), never counted in characters.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from importlib import resources

from PIL import ImageFont

#: Our names for the shipped fonts, smallest first: name -> (file stem, cell width, cell height).
FONTS: dict[str, tuple[str, int, int]] = {
    "tiny": ("misc-fixed-4x6", 4, 6),
    "small": ("misc-fixed-5x8", 5, 8),
    "text": ("misc-fixed-6x10", 6, 10),
    "bold7": ("misc-fixed-7x13B", 7, 13),
    "big": ("misc-fixed-9x15B", 9, 15),
    "huge": ("misc-fixed-10x20", 10, 20),
}


@cache
def font(name: str) -> ImageFont.ImageFont:
    """Load a shipped font by our name (``"small"``, ``"big"``...)."""
    stem = FONTS[name][0]
    folder = resources.files("bornes.firmware.screens.assets")
    with resources.as_file(folder / f"{stem}.pil") as path:
        return ImageFont.load(str(path))


def cell(name: str) -> tuple[int, int]:
    """Width and height of one character cell (the advance of most glyphs: some are wider, redrawn by
    ``tools/panel_fonts.py`` so that they cannot be read as another)."""
    _, width, height = FONTS[name]
    return width, height


@lru_cache(maxsize=8192)
def width(text: str, name: str) -> int:
    """The pixels ``text`` (already :func:`printable`) advances in font ``name``."""
    return int(font(name).getlength(text))


@lru_cache(maxsize=8192)
def ink(text: str, name: str) -> tuple[int, int, int, int] | None:
    """The box of the pixels ``text`` lights in font ``name``, from its cell's top-left corner (None: no
    pixel). A screen records the ink of every text it draws, and redraws the same few hundred texts all game."""
    return font(name).getmask(text).getbbox() if text else None


def _windows_1252_slots() -> dict[str, str]:
    """Œ œ Ÿ € … -> the 0x80-0x9F slots where Windows-1252 (and so the shipped fonts) keep them."""
    slots: dict[str, str] = {}
    for byte in range(0x80, 0xA0):
        try:
            slots[bytes([byte]).decode("cp1252")] = chr(byte)
        except UnicodeDecodeError:  # 0x81, 0x8D, 0x8F, 0x90, 0x9D are unused
            continue
    return slots


_REPLACEMENTS = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "–": "-", "—": "-", "→": ">", "…": "...",
                               **{k: v for k, v in _windows_1252_slots().items() if k not in "’‘“”–—…"}})


#: The glyph of the "+" that joins partners' names ("Léa+Wim"), in a slot Windows-1252 leaves unused:
#: a plus with two dark columns on each side (tools/panel_fonts.py), so that it is never read as a
#: letter of either name ("LéatWim"). The "+" of the points ("4200 +1400") keeps its tight glyph.
JOIN_GLYPH = "\x81"
_JOINED = re.compile(r"(?<=[^\W\d_]|\.)\+(?=[^\W\d_])")


@lru_cache(maxsize=4096)
def printable(text: str) -> str:
    """The text as the fonts' 256 glyphs index it: Latin-1 plus the Windows-1252 extras (Œ, œ, Ÿ),
    and a "+" between two names (after a letter or a cut name's point, before a letter) as
    :data:`JOIN_GLYPH`.

    French names need œ and Ÿ, which Latin-1 lacks; the shipped fonts carry them in the
    0x80-0x9F slots, where Windows-1252 puts them. Anything else becomes '?'. Applying it twice
    changes nothing.
    """
    text = _JOINED.sub(JOIN_GLYPH, text.translate(_REPLACEMENTS))
    return text.encode("latin-1", "replace").decode("latin-1")
