"""Send the panel only what changed: page-window updates for the monochrome controllers.

On I2C at 400 kHz a whole 128×64 frame (1024 bytes of pixels) takes ~23 ms, and that, not the
Pi, sets the time from a tap to light. luma's greyscale driver (ssd1322) already sends only the
changed regions (its ``diff_to_previous`` framebuffer); luma's ssd1306, ssd1309 and sh1106
always send the whole frame. These subclasses keep luma's init, contrast and cleanup and
replace only ``display``: they compare the new frame with the last one, page by page (a page
is 8 pixel rows, one byte per column), and write just the changed column range of each
changed page, or one window over them all when that is cheaper. The first frame, and the first
after the device is re-created, is sent whole.
"""

from __future__ import annotations

from typing import Any

from luma.oled import device as oled
from PIL import Image

#: Bytes on an I2C bus to open a window: the command transaction (address, control and COLUMNADDR
#: a b PAGEADDR c d on the ssd1306; page, column low, column high on the sh1106) plus the address
#: and control bytes of the data transaction that follows.
WINDOW_COST = 2 + 6 + 2
PAGE_COST = 2 + 3 + 2


def page_bytes(image: Image.Image) -> bytes:
    """A 1-bit frame as the controller's RAM: page by page, one byte per column, bit 0 on top."""
    width, height = image.size
    pages = height // 8
    # Transposed and mirrored, each row of the packed image is one column, bottom pixel first:
    # byte k of that row is page (pages - 1 - k) of that column.
    packed = image.convert("1").transpose(Image.Transpose.TRANSPOSE).transpose(
        Image.Transpose.FLIP_LEFT_RIGHT).tobytes()
    out = bytearray(width * pages)
    for page in range(pages):
        out[page * width:(page + 1) * width] = packed[pages - 1 - page::pages]
    return bytes(out)


def changed_runs(old: bytes, new: bytes, width: int, gap: int) -> list[tuple[int, int, int]]:
    """(page, first column, last column) runs that changed; runs closer than ``gap`` columns are
    merged, since opening a window costs about that many bytes."""
    runs: list[tuple[int, int, int]] = []
    for page in range(len(new) // width):
        a = old[page * width:(page + 1) * width]
        b = new[page * width:(page + 1) * width]
        if a == b:
            continue
        start = last = -1
        for column in range(width):
            if a[column] == b[column]:
                continue
            if start >= 0 and column - last > gap:
                runs.append((page, start, last))
                start = -1
            if start < 0:
                start = column
            last = column
        runs.append((page, start, last))
    return runs


class _PageDiff:
    """The changed part of a page-organised frame, shared by the partial drivers."""

    _previous: bytes | None = None

    def _windows(self, frame: bytes, width: int, cost: int) -> list[tuple[int, int, int, int]]:
        """(first page, last page, first column, last column) windows covering every change.

        ``cost`` is what opening one window costs in bytes on the bus: changed runs of a page
        closer than that are sent as one, and if one window over everything is cheaper than
        the runs, that is sent instead.
        """
        pages = len(frame) // width
        if self._previous is None:
            return [(0, pages - 1, 0, width - 1)]
        runs = changed_runs(self._previous, frame, width, cost)
        if not runs:
            return []
        first_page, last_page = runs[0][0], runs[-1][0]
        left, right = min(r[1] for r in runs), max(r[2] for r in runs)
        cost_one = cost + (last_page - first_page + 1) * (right - left + 1)
        cost_each = sum(cost + b - a + 1 for _p, a, b in runs)
        if cost_one <= cost_each:
            return [(first_page, last_page, left, right)]
        return [(p, p, a, b) for p, a, b in runs]


class ssd1306(oled.ssd1306, _PageDiff):  # type: ignore[misc]  # luma is untyped
    """luma's ssd1306 (horizontal addressing), sending only the changed window(s)."""

    def display(self, image: Image.Image) -> None:
        assert image.mode == self.mode and image.size == self.size
        frame = page_bytes(self.preprocess(image))
        width = self._w
        for first_page, last_page, left, right in self._windows(frame, width, WINDOW_COST):
            self.command(self._const.COLUMNADDR, self._colstart + left, self._colstart + right,
                         self._const.PAGEADDR, first_page, last_page)
            data = bytearray()
            for page in range(first_page, last_page + 1):
                data += frame[page * width + left:page * width + right + 1]
            self.data(list(data))
        self._previous = frame


class ssd1309(oled.ssd1309, _PageDiff):  # type: ignore[misc]  # luma is untyped
    """luma's ssd1309, sending only the changed window(s) (same addressing as the ssd1306)."""

    display = ssd1306.display


class sh1106(oled.sh1106, _PageDiff):  # type: ignore[misc]  # luma is untyped
    """luma's sh1106 (page addressing only), sending only each page's changed columns."""

    def display(self, image: Image.Image) -> None:
        assert image.mode == self.mode and image.size == self.size
        frame = page_bytes(self.preprocess(image))
        width = self._w
        for first_page, last_page, left, right in self._windows(frame, width, PAGE_COST):
            for p in range(first_page, last_page + 1):
                column = self._page_address_offset + left
                self.command(0xB0 + p, column & 0x0F, 0x10 | (column >> 4))
                self.data(list(frame[p * width + left:p * width + right + 1]))
        self._previous = frame


PARTIAL: dict[str, Any] = {"ssd1306": ssd1306, "ssd1309": ssd1309, "sh1106": sh1106}
