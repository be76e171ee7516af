"""A small drawing surface over Pillow that knows our fonts, icons and the two panel modes.

Everything is drawn on an ``"L"`` image. On a monochrome panel (mode ``"1"``) the dim colour
is drawn as a dotted pattern and the result is thresholded, so the same layout code serves a
128×64 ssd1306 and a 256×64 grayscale ssd1322.
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from firmware.screens import fonts

WHITE = 255
BLACK = 0


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

    # --- text -----------------------------------------------------------------------------

    def text_width(self, text: str, font: str) -> int:
        return len(fonts.printable(text)) * fonts.cell(font)[0]

    def fit(self, text: str, font: str, width: int) -> str:
        """The text cut to fit ``width`` pixels, ending in a dot when it had to be cut."""
        text = fonts.printable(text)
        room = max(0, width // fonts.cell(font)[0])
        if len(text) <= room:
            return text
        return text[: max(0, room - 1)] + "." if room > 1 else text[:room]

    def text(self, xy: tuple[int, int], text: str, font: str, fill: int = WHITE, width: int | None = None) -> int:
        """Draw text at its cell's top-left corner; returns the x just after it."""
        text = self.fit(text, font, width) if width is not None else fonts.printable(text)
        self.draw.text(xy, text, font=fonts.font(font), fill=fill)
        return xy[0] + self.text_width(text, font)

    def text_right(self, right: int, y: int, text: str, font: str, fill: int = WHITE) -> int:
        """Draw text ending at x = ``right``; returns its left x."""
        text = fonts.printable(text)
        left = right - self.text_width(text, font)
        self.draw.text((left, y), text, font=fonts.font(font), fill=fill)
        return left

    def text_center(
        self, y: int, text: str, font: str, fill: int = WHITE, left: int = 0, right: int | None = None
    ) -> None:
        right = self.width if right is None else right
        text = self.fit(text, font, right - left)
        x = left + (right - left - self.text_width(text, font)) // 2
        self.draw.text((x, y), text, font=fonts.font(font), fill=fill)

    def wrap(self, text: str, font: str, width: int) -> list[str]:
        """Greedy word wrap to ``width`` pixels; a word longer than a line is cut."""
        room = max(1, width // fonts.cell(font)[0])
        lines: list[str] = []
        line = ""
        for word in fonts.printable(text).split():
            candidate = f"{line} {word}" if line else word
            if len(candidate) <= room:
                line = candidate
                continue
            if line:
                lines.append(line)
            while len(word) > room:
                lines.append(word[:room])
                word = word[room:]
            line = word
        if line:
            lines.append(line)
        return lines

    def banner(self, y: int, height: int, text: str, font: str, left: int = 0, right: int | None = None) -> None:
        """An inverted bar with centred text: titles and warnings."""
        right = self.width if right is None else right
        self.draw.rectangle((left, y, right - 1, y + height - 1), fill=WHITE)
        cell_h = fonts.cell(font)[1]
        self.text_center(y + (height - cell_h) // 2, text, font, fill=BLACK, left=left, right=right)

    # --- shapes ---------------------------------------------------------------------------

    def icon(self, xy: tuple[int, int], mask: Image.Image, fill: int = WHITE) -> None:
        self.draw.bitmap(xy, mask, fill=fill)

    def box(self, xy: tuple[int, int, int, int], fill: int = WHITE) -> None:
        self.draw.rectangle(xy, fill=fill)

    def frame(self, xy: tuple[int, int, int, int], fill: int = WHITE) -> None:
        self.draw.rectangle(xy, outline=fill)

    def hline_dim(self, x0: int, x1: int, y: int) -> None:
        """A faint line: gray on a grayscale panel, every other dot on a monochrome one."""
        if self.gray:
            self.draw.line((x0, y, x1, y), fill=self.dim)
        else:
            for x in range(x0, x1 + 1, 2):
                self.draw.point((x, y), fill=WHITE)

    def bar(self, x: int, y: int, width: int, height: int, value: int, total: int) -> None:
        """A progress bar: a faint track the full width, filled in proportion to value/total."""
        total = max(1, total)
        filled = round(width * max(0, min(value, total)) / total)
        if self.gray:
            self.draw.rectangle((x, y, x + width - 1, y + height - 1), fill=40)
        else:
            # Track: the last row dotted, plus a tick at each end, so an empty bar still shows its length.
            self.hline_dim(x, x + width - 1, y + height - 1)
            self.draw.line((x + width - 1, y, x + width - 1, y + height - 1), fill=WHITE)
        if filled:
            self.draw.rectangle((x, y, x + filled - 1, y + height - 1), fill=WHITE)

    def finish(self) -> Image.Image:
        """The image in the panel's mode."""
        if self.mode == "1":
            return self.image.point(lambda v: 255 if v >= 128 else 0).convert("1")
        if self.mode == "RGB":
            return self.image.convert("RGB")
        return self.image.copy()
