"""The OLED drawn in a terminal, pixel for pixel, above a scrolling log and a prompt.

``bornes run --emulate`` on a laptop without a window shows the panel here. Each pair of pixel
rows becomes one line of half blocks ("▄": background = upper pixel, foreground = lower), so a
128×64 panel takes exactly 128 columns × 32 lines and is never rescaled into mush. The frame is
drawn at the top of the screen between "save cursor" and "restore cursor", under the same lock
as the console's log lines, so a frame never lands in the middle of the line being typed.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Any, TextIO

from luma.core.device import dummy
from PIL import Image

#: Held while anything writes to the terminal: a frame, a log line, the prompt redrawn.
TERMINAL_LOCK = threading.RLock()
#: Lines kept below the panel for the log and the prompt: the six lines of help, a log line, the prompt.
LOG_LINES = 8


def panel_rows(size: tuple[int, int]) -> int:
    """Terminal lines the panel takes: two pixel rows per line of half blocks."""
    return (size[1] + 1) // 2


def needed(size: tuple[int, int]) -> tuple[int, int]:
    """The smallest terminal (columns, lines) that shows the panel 1:1 with a log and a prompt below."""
    return size[0], panel_rows(size) + 1 + LOG_LINES


def terminal_size(stream: TextIO | None = None) -> tuple[int, int]:
    """(columns, lines) of the terminal behind ``stream`` (standard output), (0, 0) when unknown."""
    stream = stream or sys.stdout
    try:
        size = os.get_terminal_size(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return 0, 0
    return size.columns, size.lines


def too_small(size: tuple[int, int], stream: TextIO | None = None) -> str | None:
    """Why this terminal cannot show the panel, with the fix; None when it fits."""
    columns, lines = terminal_size(stream)
    want_columns, want_lines = needed(size)
    if columns >= want_columns and lines >= want_lines:
        return None
    return (f"the terminal is {columns}x{lines}, too small for the {size[0]}x{size[1]} panel: "
            f"enlarge the terminal to at least {want_columns}x{want_lines} or use --display pygame")


def _color(r: int, g: int, b: int) -> int:
    """The xterm-256 gray (232-255) or black/white nearest to a pixel: the panels are monochrome or gray."""
    level = (r * 299 + g * 587 + b * 114) // 1000
    if level < 8:
        return 16
    if level > 247:
        return 231
    return 232 + min(23, (level - 8) // 10)


class TerminalPanel(dummy):  # type: ignore[misc]
    """luma's dummy device (so ``image`` holds the last frame) that also paints the frame at the top of the terminal."""

    def __init__(self, width: int = 128, height: int = 64, rotate: int = 0, mode: str = "RGB",
                 stream: TextIO | None = None, **_: Any) -> None:
        super().__init__(width=width, height=height, rotate=rotate, mode=mode)
        self._stream = stream or sys.stdout

    def display(self, image: Image.Image) -> None:
        super().display(image)
        pixels = self.preprocess(image).convert("RGB").load()
        width, height = self.width, self.height
        out = ["\0337"]  # save the cursor: the typed line stays where it is
        for row in range(panel_rows((width, height))):
            out.append(f"\033[{row + 1};1H")
            previous: tuple[int, int] | None = None
            for x in range(width):
                upper = _color(*pixels[x, 2 * row][:3])
                lower = _color(*pixels[x, 2 * row + 1][:3]) if 2 * row + 1 < height else 16
                if (lower, upper) != previous:
                    out.append(f"\033[38;5;{lower};48;5;{upper}m")
                    previous = (lower, upper)
                out.append("▄")
            out.append("\033[0m")
        out.append("\0338")  # back to the prompt
        with TERMINAL_LOCK:
            self._stream.write("".join(out))
            self._stream.flush()
