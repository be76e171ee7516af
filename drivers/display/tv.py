"""The panel without an OLED: each frame kept in a small file for the TV page to show.

``[display] panel = "tv"`` gives the referee this device instead of a luma one. It has the panel's
size (128×64, one bit a pixel: the screens are drawn exactly as for the OLED) and writes each frame
the :class:`~bornes.drivers.display.Display` sends as a PNG inside ``tv.json`` (a few hundred
bytes), replaced atomically, in the referee's runtime folder (``/run/bornes``, a tmpfs: nothing
wears the SD card). ``bornes web`` follows that file and pushes each frame to the TV page
(``/tv``), which scales it by a whole number, pixel for pixel, to fill a TV, a monitor or a tablet.

A frame that cannot be written (the folder gone) is an ``OSError`` like an I2C error: the display
retries with backoff and never stops the referee. Closing removes the file, so the page says the
referee is not running rather than show a stale table.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import os
from pathlib import Path

from PIL import Image

from bornes.drivers.tvfile import FORMAT, SIZE, write_atomically

__all__ = ["SIZE", "TvScreen", "frame_json"]

def frame_json(image: Image.Image, seq: int) -> bytes:
    """One frame as ``tv.json`` holds it."""
    png = io.BytesIO()
    image.convert("1").save(png, "PNG", optimize=True)
    return json.dumps({"format": FORMAT, "seq": seq, "width": image.width, "height": image.height,
                       "png": base64.b64encode(png.getvalue()).decode("ascii")}).encode()


class TvScreen:
    """A luma-like device (``display``, ``mode``, ``cleanup``) whose frames go to ``path``."""

    mode = "1"

    def __init__(self, path: str | os.PathLike[str], size: tuple[int, int] = SIZE) -> None:
        self.path = Path(path)
        self.width, self.height = size
        self.seq = 0
        if not self.path.parent.is_dir():
            raise FileNotFoundError(2, "no such folder for the TV page's screen", str(self.path.parent))

    def display(self, image: Image.Image) -> None:
        self.seq += 1
        write_atomically(self.path, frame_json(image, self.seq))

    def cleanup(self) -> None:
        """The referee stops: the TV page says so instead of showing the last table."""
        with contextlib.suppress(OSError):
            self.path.unlink()
