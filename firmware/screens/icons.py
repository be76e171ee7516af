"""Tiny icons for the hazards, the safeties and the battle states, kept as text.

Each icon is rows of ``#`` (lit) and ``.`` (dark), so a person can read and edit it in a diff.
Hazard and battle icons are 11×11 and safety icons 10×10, each safety a different silhouette
(diamond, can, ring, star) so they can be told apart across a table. Roomier layouts scale them by a whole
number so they stay crisp. Compact table cells use each one less a repeated row (11×10, 10×9), so that
a dark row is left between every mark in a 28-row cell.
"""

from __future__ import annotations

from functools import cache

from PIL import Image

_HAZARD_ICONS: dict[str, str] = {
    # A stop sign: an octagon with a white band.
    "STOP": """
...#####...
..#######..
.#########.
###########
#.........#
#.........#
#.........#
###########
.#########.
..#######..
...#####...
""",
    # A petrol pump with its hose.
    "OUTOFGAS": """
######.....
#....#.#...
#....#..#..
#....#..#..
######..#..
######..#..
######.##..
######.#...
######.#...
######.....
########...
""",
    # A wheel whose tyre is squashed flat at the bottom.
    "FLATTIRE": """
...#####...
..#.....#..
.#..###..#.
.#.#...#.#.
#..#.#.#..#
#..#...#..#
#...###...#
#.........#
###########
###########
...........
""",
    # A crash: a starburst.
    "ACCIDENT": """
.....#.....
.#...#...#.
..#.###.#..
...#####...
..#######..
###########
..#######..
...#####...
..#.###.#..
.#...#...#.
.....#.....
""",
    # The speed-limit roundel with 50 in it.
    "SPEEDLIMIT": """
...#####...
..#.....#..
.#.......#.
#.###.###.#
#.#...#.#.#
#.###.#.#.#
#...#.#.#.#
#.###.###.#
.#.......#.
..#.....#..
...#####...
""",
    # Rolling: a solid go arrow, filling its square.
    "rolling": """
.....#.....
.....##....
.....###...
.....####..
##########.
###########
##########.
.....####..
.....###...
.....##....
.....#.....
""",
    # Waiting for a Roll (not started, or after a remedy): an hourglass, nothing like the arrow.
    "needs roll": """
###########
#.........#
.#.......#.
..#.....#..
...#.#.#...
....#.#....
...#...#...
..#..#..#..
.#..###..#.
#.#######.#
###########
""",
}
_HAZARD_ICONS["not started"] = _HAZARD_ICONS["needs roll"]

_SAFETY_ICONS: dict[str, str] = {
    # Right of Way: the priority-road diamond, solid with a hollow ring.
    "RIGHTOFWAY": """
....##....
...####...
..##..##..
.##.##.##.
##.####.##
##.####.##
.##.##.##.
..##..##..
...####...
....##....
""",
    # Extra Tank: a jerrycan, square with its handle and embossed cross.
    "EXTRATANK": """
.####.....
.#..#.....
##########
#........#
#.#....#.#
#..#..#..#
#...##...#
#..#..#..#
#.#....#.#
##########
""",
    # Puncture-Proof: a thick round tyre around its hub.
    "PUNCTUREPROOF": """
...####...
.########.
.###..###.
###....###
##..##..##
##..##..##
###....###
.###..###.
.########.
...####...
""",
    # Driving Ace: a star, the ace of the road.
    "DRIVINGACE": """
....##....
....##....
...####...
##########
.########.
..######..
..######..
.###..###.
.##....##.
##......##
""",
}


#: The draw pile, before its bare count in the header ("89" alone would say nothing): two cards.
_DECK_ICON = """
..####
..#..#
####.#
#..#.#
#..###
#..#..
####..
"""


def _parse(art: str) -> Image.Image:
    rows = [row for row in art.strip().splitlines()]
    width = len(rows[0])
    if any(len(row) != width for row in rows):
        raise ValueError("icon rows differ in length")
    image = Image.new("1", (width, len(rows)), 0)
    for y, row in enumerate(rows):
        for x, char in enumerate(row):
            if char == "#":
                image.putpixel((x, y), 1)
    return image


@cache
def hazard_icon(name: str, scale: int = 1) -> Image.Image:
    """The 11×11 (times ``scale``) mask for a hazard value or a battle state."""
    icon = _parse(_HAZARD_ICONS.get(name, _HAZARD_ICONS["STOP"]))
    return icon if scale == 1 else icon.resize((icon.width * scale, icon.height * scale), Image.Resampling.NEAREST)


#: The row each hazard icon gives up in its 11×10 form (compact cells have ten rows for it, with a
#: dark row above the safeties): a repeated row where there is one, so the silhouette is unchanged.
_COMPACT_DROPPED_ROW: dict[str, int] = {
    "STOP": 5, "OUTOFGAS": 4, "FLATTIRE": 10, "ACCIDENT": 0, "SPEEDLIMIT": 9, "rolling": 0,
    "needs roll": 5, "not started": 5,
}


@cache
def compact_hazard_icon(name: str) -> Image.Image:
    """The 11×10 mask for a hazard value or a battle state: :func:`hazard_icon` less one row."""
    key = name if name in _HAZARD_ICONS else "STOP"
    rows = _HAZARD_ICONS[key].strip().splitlines()
    del rows[_COMPACT_DROPPED_ROW.get(key, 5)]
    return _parse("\n".join(rows))


#: The row each safety icon gives up in its 10×9 form, for the same cells: again a repeated row.
_COMPACT_DROPPED_SAFETY_ROW: dict[str, int] = {"RIGHTOFWAY": 4, "EXTRATANK": 3, "PUNCTUREPROOF": 4, "DRIVINGACE": 0}


@cache
def compact_safety_icon(name: str) -> Image.Image:
    """The 10×9 mask for a safety value: :func:`safety_icon` less one row."""
    rows = _SAFETY_ICONS[name].strip().splitlines()
    del rows[_COMPACT_DROPPED_SAFETY_ROW[name]]
    return _parse("\n".join(rows))


@cache
def safety_icon(name: str, scale: int = 1) -> Image.Image:
    """The 10×10 (times ``scale``) mask for a safety value."""
    icon = _parse(_SAFETY_ICONS[name])
    return icon if scale == 1 else icon.resize((icon.width * scale, icon.height * scale), Image.Resampling.NEAREST)


@cache
def deck_icon() -> Image.Image:
    """The 6×7 mask of the draw pile, drawn before its count when "Draw 89" does not fit."""
    return _parse(_DECK_ICON)


def icon_names() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The names with an icon: (hazards and battle states, safeties)."""
    return tuple(_HAZARD_ICONS), tuple(_SAFETY_ICONS)
