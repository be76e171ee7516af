"""Card faces drawn from scratch for the camera's tests and bench: 19 kinds in three editions.

No publisher's artwork: every face is made here of plain shapes (traffic lights, pumps, tyres,
road signs, tools), large numerals and words in English or French, so the repository can hold the
deck it measures the camera on. The editions differ the way real ones do: layout, colours, the
drawing of each icon and the language, so "two editions' faces" really are two different decks.

``face(kind, edition)`` is the card as printed (RGB, 224 x 348 pixels, a 56 x 87 mm card at
4 px/mm); a scene puts it on a table (``tools/camera_scenes.py``).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numpy.typing import NDArray
from PIL import Image, ImageDraw, ImageFont

WIDTH, HEIGHT = 224, 348
KINDS: tuple[str, ...] = ("D25", "D50", "D75", "D100", "D200", "ACCIDENT", "OUTOFGAS", "FLATTIRE", "SPEEDLIMIT",
                          "STOP", "REPAIRS", "GASOLINE", "SPARETIRE", "ENDOFLIMIT", "ROLL", "DRIVINGACE", "EXTRATANK",
                          "PUNCTUREPROOF", "RIGHTOFWAY")
#: The editions this generator draws: an English "road" deck, a French "route" deck, a third "night" one.
EDITIONS: tuple[str, ...] = ("road", "route", "night")

ENGLISH = {"D25": "25 MILES", "D50": "50 MILES", "D75": "75 MILES", "D100": "100 MILES", "D200": "200 MILES",
           "ACCIDENT": "ACCIDENT", "OUTOFGAS": "OUT OF GAS", "FLATTIRE": "FLAT TIRE", "SPEEDLIMIT": "SPEED LIMIT",
           "STOP": "STOP", "REPAIRS": "REPAIRS", "GASOLINE": "GASOLINE", "SPARETIRE": "SPARE TIRE",
           "ENDOFLIMIT": "END OF LIMIT", "ROLL": "ROLL", "DRIVINGACE": "DRIVING ACE", "EXTRATANK": "EXTRA TANK",
           "PUNCTUREPROOF": "PUNCTURE-PROOF", "RIGHTOFWAY": "RIGHT OF WAY"}
FRENCH = {"D25": "25 KM", "D50": "50 KM", "D75": "75 KM", "D100": "100 KM", "D200": "200 KM",
          "ACCIDENT": "ACCIDENT", "OUTOFGAS": "PANNE D'ESSENCE", "FLATTIRE": "CREVAISON",
          "SPEEDLIMIT": "LIMITE DE VITESSE", "STOP": "FEU ROUGE", "REPAIRS": "REPARATIONS", "GASOLINE": "ESSENCE",
          "SPARETIRE": "ROUE DE SECOURS", "ENDOFLIMIT": "FIN DE LIMITE", "ROLL": "FEU VERT",
          "DRIVINGACE": "AS DU VOLANT", "EXTRATANK": "CITERNE", "PUNCTUREPROOF": "INCREVABLE",
          "RIGHTOFWAY": "PRIORITAIRE"}

RGB = tuple[int, int, int]
HAZARD, REMEDY, SAFETY, DISTANCE = "hazard", "remedy", "safety", "distance"
CATEGORY = {**dict.fromkeys(("D25", "D50", "D75", "D100", "D200"), DISTANCE),
            **dict.fromkeys(("ACCIDENT", "OUTOFGAS", "FLATTIRE", "SPEEDLIMIT", "STOP"), HAZARD),
            **dict.fromkeys(("REPAIRS", "GASOLINE", "SPARETIRE", "ENDOFLIMIT", "ROLL"), REMEDY),
            **dict.fromkeys(("DRIVINGACE", "EXTRATANK", "PUNCTUREPROOF", "RIGHTOFWAY"), SAFETY)}

#: Each edition's colour for a category, and for each distance.
PALETTES: dict[str, dict[str, RGB]] = {
    "road": {HAZARD: (200, 30, 40), REMEDY: (30, 140, 60), SAFETY: (30, 70, 170), "D25": (230, 160, 20),
             "D50": (60, 150, 210), "D75": (150, 80, 170), "D100": (220, 90, 40), "D200": (40, 40, 40)},
    "route": {HAZARD: (230, 80, 20), REMEDY: (20, 110, 110), SAFETY: (200, 160, 0), "D25": (120, 170, 40),
              "D50": (30, 90, 160), "D75": (170, 40, 90), "D100": (90, 60, 30), "D200": (190, 30, 30)},
    "night": {HAZARD: (250, 60, 90), REMEDY: (60, 220, 140), SAFETY: (240, 200, 60), "D25": (90, 200, 250),
              "D50": (250, 150, 60), "D75": (180, 120, 250), "D100": (120, 240, 90), "D200": (250, 250, 250)},
}


def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return _font(size)


@functools.lru_cache(maxsize=64)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def colour_of(kind: str, edition: str) -> RGB:
    palette = PALETTES[edition]
    return palette[kind] if kind in palette else palette[CATEGORY[kind]]


def words(kind: str, edition: str) -> str:
    return FRENCH[kind] if edition == "route" else ENGLISH[kind]


@functools.lru_cache(maxsize=128)
def face(kind: str, edition: str) -> NDArray[np.uint8]:
    """The printed face of ``kind`` in ``edition``: an RGB array, HEIGHT x WIDTH x 3, uint8."""
    if kind not in CATEGORY or edition not in EDITIONS:
        raise ValueError(f"no face for {kind!r} in {edition!r}")
    image = {"road": _road, "route": _route, "night": _night}[edition](kind)
    array = np.asarray(image.convert("RGB"), dtype=np.uint8).copy()
    array.setflags(write=False)
    return array


# -- the three layouts -----------------------------------------------------------------------------


def _road(kind: str) -> Image.Image:
    """White border, a coloured title band at the top, the icon in a white field, numerals in two corners."""
    colour = colour_of(kind, "road")
    image = Image.new("RGB", (WIDTH, HEIGHT), (250, 250, 245))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((10, 10, WIDTH - 11, HEIGHT - 11), 14, outline=colour, width=5)
    draw.rectangle((18, 18, WIDTH - 19, 78), fill=colour)
    _text(draw, (WIDTH // 2, 48), words(kind, "road"), 22 if len(words(kind, "road")) < 12 else 17, (255, 255, 255))
    _icon(draw, kind, "road", (WIDTH // 2, 200), 70)
    if CATEGORY[kind] == DISTANCE:
        number = kind[1:]
        _text(draw, (44, 104), number, 28, colour)
        _text(draw, (WIDTH - 44, HEIGHT - 36), number, 28, colour)
    else:
        _text(draw, (WIDTH // 2, HEIGHT - 38), CATEGORY[kind].upper(), 18, colour)
    return image


def _route(kind: str) -> Image.Image:
    """Full-bleed colour, a white oval with the icon low on the card, French words on a band at the foot."""
    colour = colour_of(kind, "route")
    image = Image.new("RGB", (WIDTH, HEIGHT), colour)
    draw = ImageDraw.Draw(image)
    for y in range(0, HEIGHT, 24):  # diagonal stripes in a lighter tone: texture a real print has
        light = tuple(min(255, c + 35) for c in colour)
        draw.line((0, y, WIDTH, y + 60), fill=light, width=6)
    draw.ellipse((22, 92, WIDTH - 23, 280), fill=(245, 240, 225), outline=(30, 30, 30), width=4)
    _icon(draw, kind, "route", (WIDTH // 2, 186), 62)
    draw.rectangle((0, HEIGHT - 62, WIDTH, HEIGHT - 16), fill=(30, 30, 30))
    text = words(kind, "route")
    _text(draw, (WIDTH // 2, HEIGHT - 39), text, 20 if len(text) < 11 else 15, (250, 250, 250))
    if CATEGORY[kind] == DISTANCE:
        _text(draw, (WIDTH // 2, 48), kind[1:], 56, (255, 255, 255), stroke=(30, 30, 30))
    else:
        mark = {HAZARD: "!", REMEDY: "+", SAFETY: "*"}[CATEGORY[kind]]
        draw.ellipse((14, 14, 70, 70), fill=(250, 250, 250), outline=(30, 30, 30), width=3)
        _text(draw, (42, 42), mark, 40, colour)
    return image


def _night(kind: str) -> Image.Image:
    """Dark card, the icon in the upper half drawn in light strokes, the name and a numeral below."""
    colour = colour_of(kind, "night")
    image = Image.new("RGB", (WIDTH, HEIGHT), (25, 30, 45))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((6, 6, WIDTH - 7, HEIGHT - 7), 18, outline=(200, 200, 210), width=3)
    draw.rectangle((20, 24, WIDTH - 21, 190), outline=colour, width=4)
    _icon(draw, kind, "night", (WIDTH // 2, 108), 60)
    text = words(kind, "night")
    _text(draw, (WIDTH // 2, 222), text, 19 if len(text) < 12 else 15, colour)
    if CATEGORY[kind] == DISTANCE:
        _text(draw, (WIDTH // 2, 284), kind[1:], 54, (240, 240, 240))
    else:
        for i in range(1 + KINDS.index(kind) % 5):  # a row of dots: each kind its own count
            x = WIDTH // 2 + (i - KINDS.index(kind) % 5 / 2) * 22
            draw.ellipse((x - 7, 272, x + 7, 286), fill=colour)
        _text(draw, (WIDTH // 2, 318), CATEGORY[kind].upper(), 16, (200, 200, 210))
    return image


# -- drawing helpers -------------------------------------------------------------------------------


def _text(draw: ImageDraw.ImageDraw, centre: tuple[float, float], text: str, size: int, fill: RGB,
          stroke: RGB | None = None) -> None:
    draw.text(centre, text, font=font(size), fill=fill, anchor="mm", stroke_width=2 if stroke else 0,
              stroke_fill=stroke)


def _icon(draw: ImageDraw.ImageDraw, kind: str, edition: str, centre: tuple[int, int], r: int) -> None:
    """The picture of a kind: the same idea in each edition, drawn differently (line widths, colours)."""
    light = edition == "night"
    ink: RGB = (235, 235, 240) if light else (30, 30, 30)
    colour = colour_of(kind, edition)
    x, y = centre
    w = 3 if edition == "road" else 5
    if CATEGORY[kind] == DISTANCE:
        _milestone(draw, x, y, r, ink, colour, kind[1:], edition)
    elif kind in ("STOP", "ROLL"):
        _traffic_light(draw, x, y, r, ink, lit="red" if kind == "STOP" else "green", edition=edition)
    elif kind in ("SPEEDLIMIT", "ENDOFLIMIT"):
        _speed_sign(draw, x, y, r, ink, ended=kind == "ENDOFLIMIT", edition=edition)
    elif kind in ("OUTOFGAS", "GASOLINE"):
        _pump(draw, x, y, r, ink, colour, empty=kind == "OUTOFGAS", width=w)
    elif kind in ("FLATTIRE", "SPARETIRE", "PUNCTUREPROOF"):
        _tyre(draw, x, y, r, ink, colour, kind, width=w)
    elif kind in ("ACCIDENT", "REPAIRS"):
        if kind == "ACCIDENT":
            _crash(draw, x, y, r, ink, colour, width=w)
        else:
            _wrench(draw, x, y, r, ink, colour, width=w)
    elif kind == "DRIVINGACE":
        _steering_wheel(draw, x, y, r, ink, colour, width=w)
    elif kind == "EXTRATANK":
        _tanker(draw, x, y, r, ink, colour, width=w)
    elif kind == "RIGHTOFWAY":
        _beacon(draw, x, y, r, ink, colour, width=w)


def _milestone(draw: ImageDraw.ImageDraw, x: int, y: int, r: int, ink: RGB, colour: RGB, number: str,
               edition: str) -> None:
    """A French "borne": a stone with a rounded top, its cap in the distance's colour, the number on it."""
    draw.rounded_rectangle((x - r * 0.7, y - r, x + r * 0.7, y + r), int(r * 0.6), fill=(245, 245, 240),
                           outline=ink, width=4)
    draw.chord((x - r * 0.7, y - r, x + r * 0.7, y - r * 0.1), 180, 360, fill=colour, outline=ink, width=3)
    _text(draw, (x, y + r * 0.35), number, int(r * (0.62 if len(number) < 3 else 0.48)), (20, 20, 20))
    if edition == "road":  # a road running off behind the stone
        draw.polygon([(x - r * 1.3, y + r * 1.25), (x - r * 0.2, y + r * 1.02), (x + r * 0.2, y + r * 1.02),
                      (x + r * 1.3, y + r * 1.25)], fill=(120, 120, 120))


def _traffic_light(draw: ImageDraw.ImageDraw, x: int, y: int, r: int, ink: RGB, lit: str, edition: str) -> None:
    body = (40, 40, 40) if edition != "night" else (70, 75, 90)
    draw.rounded_rectangle((x - r * 0.45, y - r * 1.05, x + r * 0.45, y + r * 1.05), 10, fill=body, outline=ink,
                           width=3)
    lamps = [(y - r * 0.65, (220, 30, 30)), (y, (230, 170, 20)), (y + r * 0.65, (30, 190, 60))]
    for index, (ly, on) in enumerate(lamps):
        active = (lit == "red" and index == 0) or (lit == "green" and index == 2)
        fill = on if active else (90, 90, 90)
        draw.ellipse((x - r * 0.28, ly - r * 0.28, x + r * 0.28, ly + r * 0.28), fill=fill, outline=ink, width=2)
    if lit == "red" and edition != "night":
        draw.regular_polygon((x + r * 1.0, y - r * 0.75, r * 0.32), 8, fill=(200, 20, 20), outline=(255, 255, 255))
    if lit == "green":
        draw.polygon([(x + r * 0.7, y + r * 0.5), (x + r * 1.2, y + r * 0.75), (x + r * 0.7, y + r)],
                     fill=(30, 170, 60))


def _speed_sign(draw: ImageDraw.ImageDraw, x: int, y: int, r: int, ink: RGB, ended: bool, edition: str) -> None:
    if ended:
        draw.ellipse((x - r, y - r, x + r, y + r), fill=(245, 245, 245), outline=(60, 60, 60), width=4)
        for offset in (-0.25, 0.0, 0.25):
            draw.line((x - r * 0.65 + offset * r, y + r * 0.65 + offset * r, x + r * 0.65 + offset * r,
                       y - r * 0.65 + offset * r), fill=(40, 40, 40), width=5)
    else:
        draw.ellipse((x - r, y - r, x + r, y + r), fill=(245, 245, 245), outline=(210, 20, 20),
                     width=int(r * 0.2))
        _text(draw, (x, y), "50", int(r * 0.8), (20, 20, 20))
    if edition == "route":
        draw.rectangle((x - 3, y + r, x + 3, y + r * 1.35), fill=ink)


def _pump(draw: ImageDraw.ImageDraw, x: int, y: int, r: int, ink: RGB, colour: RGB, empty: bool,
          width: int) -> None:
    draw.rectangle((x - r * 0.55, y - r * 0.9, x + r * 0.3, y + r), fill=colour, outline=ink, width=width)
    draw.rectangle((x - r * 0.4, y - r * 0.7, x + r * 0.15, y - r * 0.2), fill=(240, 240, 240), outline=ink, width=2)
    draw.line((x + r * 0.3, y - r * 0.5, x + r * 0.7, y - r * 0.3, x + r * 0.7, y + r * 0.4), fill=ink,
              width=width + 1)
    if empty:  # a gauge at zero and a cross
        draw.line((x - r * 0.35, y - r * 0.25, x - r * 0.05, y - r * 0.6), fill=(200, 0, 0), width=3)
        draw.line((x - r * 0.9, y - r, x + r * 0.9, y + r), fill=(200, 0, 0), width=width + 3)
    else:  # a drop of fuel
        draw.ellipse((x + r * 0.5, y + r * 0.45, x + r * 0.95, y + r * 0.9), fill=(240, 190, 0), outline=ink)
        draw.polygon([(x + r * 0.725, y + r * 0.15), (x + r * 0.53, y + r * 0.6), (x + r * 0.92, y + r * 0.6)],
                     fill=(240, 190, 0))


def _tyre(draw: ImageDraw.ImageDraw, x: int, y: int, r: int, ink: RGB, colour: RGB, kind: str, width: int) -> None:
    squash = 0.65 if kind == "FLATTIRE" else 1.0
    box = (x - r, y - r * squash + (r - r * squash), x + r, y + r)
    draw.ellipse(box, fill=(35, 35, 35), outline=ink, width=width)
    inner = 0.5
    draw.ellipse((x - r * inner, box[1] + (box[3] - box[1]) * 0.25, x + r * inner, box[3] - (box[3] - box[1]) * 0.25),
                 fill=(190, 190, 190), outline=ink, width=2)
    for angle in range(0, 360, 30):  # tread marks
        a = math.radians(angle)
        draw.line((x + math.cos(a) * r * 0.8, (box[1] + box[3]) / 2 + math.sin(a) * (box[3] - box[1]) / 2 * 0.8,
                   x + math.cos(a) * r * 0.97, (box[1] + box[3]) / 2 + math.sin(a) * (box[3] - box[1]) / 2 * 0.97),
                  fill=(110, 110, 110), width=3)
    if kind == "FLATTIRE":
        draw.polygon([(x + r * 0.2, y - r * 0.9), (x + r * 0.35, y - r * 0.1), (x + r * 0.05, y - r * 0.1)],
                     fill=(200, 0, 0))
    elif kind == "PUNCTUREPROOF":  # a shield over the tyre
        draw.polygon([(x, y - r * 1.05), (x + r * 0.6, y - r * 0.75), (x + r * 0.45, y + r * 0.2), (x, y + r * 0.5),
                      (x - r * 0.45, y + r * 0.2), (x - r * 0.6, y - r * 0.75)], fill=colour, outline=ink,
                     width=width)
    else:  # a spare: the rim's bolts
        for angle in range(0, 360, 72):
            a = math.radians(angle)
            draw.ellipse((x + math.cos(a) * r * 0.25 - 4, y + math.sin(a) * r * 0.25 - 4,
                          x + math.cos(a) * r * 0.25 + 4, y + math.sin(a) * r * 0.25 + 4), fill=colour)


def _crash(draw: ImageDraw.ImageDraw, x: int, y: int, r: int, ink: RGB, colour: RGB, width: int) -> None:
    for side, tilt in ((-1, 0.25), (1, -0.25)):
        cx = x + side * r * 0.55
        body = [(cx - r * 0.5, y + r * (0.1 + tilt)), (cx + r * 0.5, y + r * (0.1 - tilt)),
                (cx + r * 0.5, y + r * (0.55 - tilt)), (cx - r * 0.5, y + r * (0.55 + tilt))]
        draw.polygon(body, fill=colour if side < 0 else (90, 120, 200), outline=ink)
        draw.ellipse((cx - r * 0.35, y + r * 0.45, cx - r * 0.1, y + r * 0.7), fill=ink)
        draw.ellipse((cx + r * 0.1, y + r * 0.45, cx + r * 0.35, y + r * 0.7), fill=ink)
    star = [(x + math.cos(math.radians(a)) * r * (0.55 if i % 2 else 0.25),
             y - r * 0.35 + math.sin(math.radians(a)) * r * (0.55 if i % 2 else 0.25))
            for i, a in enumerate(range(0, 360, 30))]
    draw.polygon(star, fill=(250, 200, 0), outline=ink, width=width - 1)


def _wrench(draw: ImageDraw.ImageDraw, x: int, y: int, r: int, ink: RGB, colour: RGB, width: int) -> None:
    draw.line((x - r * 0.7, y + r * 0.7, x + r * 0.45, y - r * 0.45), fill=ink, width=int(r * 0.28))
    draw.ellipse((x + r * 0.2, y - r * 0.95, x + r * 0.95, y - r * 0.2), fill=ink)
    draw.rectangle((x + r * 0.5, y - r * 0.75, x + r * 0.75, y - r * 0.45), fill=(245, 245, 240))
    draw.line((x - r * 0.7, y - r * 0.6, x + r * 0.6, y + r * 0.75), fill=colour, width=int(r * 0.2))
    draw.rectangle((x - r * 0.95, y - r * 0.9, x - r * 0.4, y - r * 0.45), fill=colour, outline=ink, width=width)


def _steering_wheel(draw: ImageDraw.ImageDraw, x: int, y: int, r: int, ink: RGB, colour: RGB, width: int) -> None:
    draw.ellipse((x - r, y - r, x + r, y + r), outline=ink, width=int(r * 0.18))
    draw.ellipse((x - r * 0.22, y - r * 0.22, x + r * 0.22, y + r * 0.22), fill=colour, outline=ink, width=width)
    for angle in (90, 210, 330):
        a = math.radians(angle)
        draw.line((x, y, x + math.cos(a) * r * 0.9, y + math.sin(a) * r * 0.9), fill=ink, width=int(r * 0.14))
    _text(draw, (x + r * 0.85, y - r * 0.85), "A", int(r * 0.6), colour)


def _tanker(draw: ImageDraw.ImageDraw, x: int, y: int, r: int, ink: RGB, colour: RGB, width: int) -> None:
    draw.rounded_rectangle((x - r, y - r * 0.45, x + r * 0.45, y + r * 0.35), int(r * 0.3), fill=colour, outline=ink,
                           width=width)
    draw.rectangle((x + r * 0.5, y - r * 0.3, x + r, y + r * 0.35), fill=(200, 200, 200), outline=ink, width=width)
    for wx in (-0.7, -0.1, 0.75):
        draw.ellipse((x + r * wx - r * 0.18, y + r * 0.25, x + r * wx + r * 0.18, y + r * 0.61), fill=ink)
    _text(draw, (x - r * 0.28, y - r * 0.05), "FUEL", int(r * 0.3), (255, 255, 255))


def _beacon(draw: ImageDraw.ImageDraw, x: int, y: int, r: int, ink: RGB, colour: RGB, width: int) -> None:
    draw.rectangle((x - r * 0.7, y + r * 0.35, x + r * 0.7, y + r * 0.6), fill=ink)
    draw.chord((x - r * 0.5, y - r * 0.5, x + r * 0.5, y + r * 0.7), 180, 360, fill=(40, 110, 240), outline=ink,
               width=width)
    for angle in (200, 240, 270, 300, 340):
        a = math.radians(angle)
        draw.line((x + math.cos(a) * r * 0.65, y + math.sin(a) * r * 0.65, x + math.cos(a) * r * 1.05,
                   y + math.sin(a) * r * 1.05), fill=colour, width=width + 1)
    draw.polygon([(x, y - r * 1.1), (x + r * 0.25, y - r * 0.8), (x - r * 0.25, y - r * 0.8)], fill=colour)
