"""The TV page's two small files: what the referee writes for it and ``bornes web`` reads.

``tv.json`` holds the panel's latest frame (drivers/display/tv.py), ``tv-sound.json`` the latest
chirp's name (drivers/sound.py); firmware/web/tv.py follows both. The standard library only: the
web process reads them without loading the display's imaging.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

#: What ``tv.json`` says it is (the web refuses anything else).
FORMAT = "bornes-tv"
#: What ``tv-sound.json`` says it is.
SOUND_FORMAT = "bornes-tv-sound"
#: The panel the TV page shows: the 128×64 layout, whose 2:1 fills a 16:9 screen at 15× on 1080p.
SIZE = (128, 64)
#: The largest ``tv.json`` a reader accepts (a 128×64 frame is under 2 KiB).
MAX_BYTES = 64 * 1024


def write_atomically(path: Path, data: bytes) -> None:
    """``path`` holds ``data`` whole, or keeps what it had: a reader never sees half a frame."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temporary, 0o640)  # the web's group reads it (systemd's UMask=0027 would say so too)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
