"""The pairing screen: a QR code of the web page's address beside the PIN a phone must type.

Its own renderer (the table screens are drawn elsewhere). The QR code is made by ``segno`` (pure
Python, installed with the ``web`` extra); without it the screen shows the address as text.
A QR code needs a light quiet zone around dark modules, so on the panel it is drawn inverted:
white background, black modules, at the largest whole scale that fits the 64-pixel height.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image

from bornes.firmware.language.i18n import _
from bornes.firmware.screens.canvas import BLACK, WHITE, Canvas


@dataclass(frozen=True, slots=True)
class PairingView:
    """What the pairing screen shows: the PIN, the page's address and the seconds left."""

    pin: str
    url: str
    seconds_left: int


def qr_matrix(url: str) -> list[list[bool]] | None:
    """The QR code's modules (True = dark), or None without segno."""
    try:
        import segno
    except ImportError:
        return None
    code = segno.make(url, error="l", micro=False)
    return [[bool(cell) for cell in row] for row in code.matrix]


def render_pairing(view: PairingView, size: tuple[int, int] = (128, 64), mode: str | None = None) -> Image.Image:
    canvas = Canvas(size, mode or ("L" if size[0] >= 256 else "1"))
    height = canvas.height
    matrix = qr_matrix(view.url)
    left = 0
    if matrix is not None:
        modules = len(matrix)
        quiet = 2  # modules of white margin; phones read 2 fine on a lit panel
        scale = max(1, height // (modules + 2 * quiet))
        side = (modules + 2 * quiet) * scale
        top = (height - side) // 2
        canvas.box((0, top, side - 1, top + side - 1), fill=WHITE)
        for y, row in enumerate(matrix):
            for x, dark in enumerate(row):
                if dark:
                    x0, y0 = (x + quiet) * scale, top + (y + quiet) * scale
                    canvas.box((x0, y0, x0 + scale - 1, y0 + scale - 1), fill=BLACK)
        left = side + 3
    right = canvas.width
    # Any button puts the table back; a long BACK forgets every paired phone (firmware/appliance/referee.py).
    hint = _("Hold BACK: unpair all")
    room = right - left - 2
    hint_lines = [hint] if canvas.fits(hint, "tiny", room) else canvas.wrap(hint, "tiny", room)[:2]
    hint_top = height - 7 * len(hint_lines)
    canvas.text_center(0, _("Pair a phone"), "small", left=left, right=right)
    top = 12
    if len(hint_lines) == 1:  # a narrow panel gives the PIN's label row to the hint's second line
        canvas.text_center(top, _("PIN"), "small", left=left, right=right)
        top = 22
    pin = view.pin if len(view.pin) != 6 else f"{view.pin[:3]} {view.pin[3:]}"
    font = "huge" if canvas.text_width(pin, "huge") <= right - left else "big"
    canvas.text_center(top, pin, font, left=left, right=right)
    if matrix is None:
        lines = canvas.wrap(view.url, "tiny", right - left)[:max(0, (hint_top - top - 22) // 7)]
        for index, line in enumerate(lines):
            canvas.text_center(top + 21 + 7 * index, line, "tiny", left=left, right=right)
    else:
        canvas.text_center(top + 21, _("{seconds} s left").format(seconds=view.seconds_left), "small", left=left,
                           right=right)
    for index, line in enumerate(hint_lines):
        canvas.text_center(hint_top + 7 * index, line, "tiny", left=left, right=right)
    return canvas.finish()
