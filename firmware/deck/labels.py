"""Printable sticker sheets for a deck: one label per physical card plus the control cards.

Each label carries a Code 128 barcode (or a DataMatrix on the small A4 sheet, where a
Code 128 of 19 characters would be too dense to scan; reportlab only makes the 44 x 44
symbol, so that sheet needs a 2D imager), the human-readable payload and
the card's name. Sheet geometry follows the common Avery layouts; ``--outline`` draws
the label edges to check alignment on plain paper first.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from reportlab.graphics.barcode import code128
from reportlab.graphics.barcode.ecc200datamatrix import ECC200DataMatrix
from reportlab.lib.pagesizes import A4, LETTER
from reportlab.lib.units import inch, mm
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

from bornes.engine import Card, CardCodeError
from bornes.firmware.language.i18n import N_, _
from bornes.firmware.language.words import card_copy

CONTROL_TITLES: Mapping[str, str] = MappingProxyType(
    {"CF": N_("Coup fourré"), "DISCARD": N_("Discard"), "UNDO": N_("Undo"), "OK": "OK", "NEXT": N_("Next"),
     "BACK": N_("Back")}
)


@dataclass(frozen=True, slots=True)
class Sheet:
    """A sticker sheet: page size, grid, label size and pitch, all in points."""

    name: str
    title: str
    page: tuple[float, float]
    columns: int
    rows: int
    width: float
    height: float
    left: float
    top: float
    pitch_x: float
    pitch_y: float
    symbology: str  # "code128" or "datamatrix"

    @property
    def per_page(self) -> int:
        return self.columns * self.rows

    def origin(self, slot: int) -> tuple[float, float]:
        """Bottom-left corner of label ``slot`` (0 = top-left, across then down)."""
        row, column = divmod(slot % self.per_page, self.columns)
        x = self.left + column * self.pitch_x
        y = self.page[1] - self.top - row * self.pitch_y - self.height
        return x, y


SHEETS: Mapping[str, Sheet] = MappingProxyType(
    {
        sheet.name: sheet
        for sheet in (
            Sheet("a4-l7160", "A4, Avery L7160 / J8160: 21 labels 63.5 x 38.1 mm", A4, 3, 7,
                  63.5 * mm, 38.1 * mm, 7.2 * mm, 15.15 * mm, 66.0 * mm, 38.1 * mm, "code128"),
            Sheet("a4-l7651", "A4, Avery L7651 / J8651: 65 labels 38.1 x 21.2 mm (DataMatrix)", A4, 5, 13,
                  38.1 * mm, 21.2 * mm, 4.7 * mm, 10.7 * mm, 40.6 * mm, 21.2 * mm, "datamatrix"),
            Sheet("letter-5160", "US Letter, Avery 5160 / 8160: 30 labels 2 5/8 x 1 in", LETTER, 3, 10,
                  2.625 * inch, 1.0 * inch, 0.1875 * inch, 0.5 * inch, 2.75 * inch, 1.0 * inch, "code128"),
        )
    }
)
DEFAULT_SHEET = "a4-l7160"

_PAD = 1.5 * mm
_MAX_MODULE = 0.5 * mm


def label_title(payload: str, edition: str | None = None) -> str:
    """The name printed under the code, in the table's language: "25 miles #1", "25 km n° 1"."""
    from bornes.drivers.parts import LAYOUT_TEST_CODE

    if payload == LAYOUT_TEST_CODE:
        return _("Scanner layout test (keyboard mode)")
    if payload.startswith("MB-CMD-"):
        name = payload[len("MB-CMD-") :]
        return _("Control: {name}").format(name=_(CONTROL_TITLES.get(name, name)))
    try:
        return card_copy(Card.from_code(payload), edition)
    except CardCodeError:
        return payload


def _fit(text: str, font: str, size: float, width: float) -> float:
    while size > 4 and stringWidth(text, font, size) > width:
        size -= 0.5
    return size


def _draw_code128(canvas: Canvas, payload: str, x: float, y: float, width: float, height: float) -> None:
    probe = code128.Code128(payload, barWidth=1, quiet=False)
    modules = probe.width + 20  # bars plus a 10-module quiet zone each side
    module = min(width / modules, _MAX_MODULE)
    bars = code128.Code128(
        payload, barWidth=module, barHeight=height, quiet=True, lquiet=10 * module, rquiet=10 * module
    )
    bars.drawOn(canvas, x + (width - bars.width) / 2, y)


def _draw_datamatrix(canvas: Canvas, payload: str, x: float, y: float, size: float) -> float:
    """Draw a square DataMatrix at most ``size`` wide; returns its side."""
    probe = ECC200DataMatrix(value=payload, barWidth=1)
    probe.validate()
    probe.encode()
    modules = int(probe.col_modules) + 2 * 2  # symbol plus a 2-module quiet zone each side
    module = float(min(size / modules, _MAX_MODULE * 1.5))
    matrix = ECC200DataMatrix(value=payload, barWidth=module)
    matrix.validate()
    matrix.encode()  # reportlab draws from the encoded matrix but does not build it itself
    matrix.x = matrix.y = 0  # drawOn translates to the label; the widget draws at its own x, y
    matrix.drawOn(canvas, x + 2 * module, y + 2 * module)
    return module * modules


def draw_label(canvas: Canvas, sheet: Sheet, payload: str, x: float, y: float, outline: bool = False,
               edition: str | None = None) -> None:
    w, h = sheet.width, sheet.height
    if outline:
        canvas.setLineWidth(0.25)
        canvas.setStrokeGray(0.6)
        canvas.roundRect(x, y, w, h, 1.5 * mm)
    canvas.setFillGray(0)
    title = label_title(payload, edition)
    if sheet.symbology == "code128":
        text_h = h * 0.34
        _draw_code128(canvas, payload, x + _PAD, y + text_h, w - 2 * _PAD, h - text_h - _PAD * 2)
        size = _fit(payload, "Courier-Bold", min(10.0, text_h * 0.42), w - 2 * _PAD)
        canvas.setFont("Courier-Bold", size)
        canvas.drawCentredString(x + w / 2, y + text_h * 0.55, payload)
        size = _fit(title, "Helvetica", min(9.0, text_h * 0.36), w - 2 * _PAD)
        canvas.setFont("Helvetica", size)
        canvas.drawCentredString(x + w / 2, y + text_h * 0.12, title)
    else:
        side = _draw_datamatrix(canvas, payload, x + _PAD, y + (h - min(h - 2 * _PAD, w * 0.4)) / 2,
                                min(h - 2 * _PAD, w * 0.4))
        text_x = x + _PAD + side + _PAD
        text_w = x + w - _PAD - text_x
        size = _fit(payload, "Courier-Bold", min(8.0, h * 0.22), text_w)
        canvas.setFont("Courier-Bold", size)
        canvas.drawString(text_x, y + h * 0.56, payload)
        size = _fit(title, "Helvetica", min(8.0, h * 0.2), text_w)
        canvas.setFont("Helvetica", size)
        canvas.drawString(text_x, y + h * 0.22, title)


def write_labels(
    path: str | os.PathLike[str],
    payloads: Sequence[str],
    sheet: Sheet,
    *,
    skip: int = 0,
    outline: bool = False,
    title: str = "Mille Bornes card labels",
    edition: str | None = None,
) -> int:
    """Write the PDF; ``skip`` leaves that many labels blank on a partly used first sheet.

    Returns the number of pages.
    """
    canvas = Canvas(os.fspath(path), pagesize=sheet.page)
    canvas.setTitle(title)
    canvas.setCreator("bornes labels")
    slot = skip
    pages = 1
    for payload in payloads:
        if slot and slot % sheet.per_page == 0:
            canvas.showPage()
            pages += 1
        x, y = sheet.origin(slot)
        draw_label(canvas, sheet, payload, x, y, outline, edition)
        slot += 1
    canvas.showPage()
    canvas.save()
    return pages
