"""The parts bornes can drive, by the names config and the pin map use: the one list of each.

Standard library only, so the config can check names without loading a driver (a command that
only reads the config does not pay for pyserial or PIL).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

#: OLED panels luma.oled drives, with their size in pixels.
PANELS: Mapping[str, tuple[int, int]] = {"ssd1306": (128, 64), "sh1106": (128, 64), "ssd1309": (128, 64),
                                         "ssd1322": (256, 64)}
#: Desktop twins of the panel (luma.core's dummy, luma.emulator's pygame/terminal/capture/gif).
EMULATORS: tuple[str, ...] = ("dummy", "pygame", "terminal", "capture", "gif")
#: Card reader protocols, with the speed each one uses unless config says otherwise.
#: ``hid`` is a keyboard-mode USB reader (evdev): it has no line speed, the 0 is never used.
#: ``rc522`` is an MFRC522 on SPI: its figure is the SPI clock in Hz (drivers/readers/rc522.py).
DEFAULT_BAUDRATE: Mapping[str, int] = {"lines": 9600, "em4100": 9600, "pn532": 115200, "hid": 0,
                                       "rc522": 1_000_000}
PROTOCOLS: tuple[str, ...] = tuple(DEFAULT_BAUDRATE)
#: Keyboard layouts a ``hid`` reader may type in (drivers/readers/hid.py), or ``auto``.
HID_LAYOUTS: tuple[str, ...] = ("auto", "us", "fr", "de")
#: Where a camera's frames come from (docs/camera.md): a USB webcam through V4L2, the Pi's camera module
#: through picamera2, or a folder of pictures (or a video file) as the twin the tests and the emulator use.
CAMERA_SOURCES: tuple[str, ...] = ("v4l2", "picamera2", "folder")
#: The layout test label (``bornes labels``): every letter on it sits on a different key in at
#: least two of the layouts (A/Q, Z/W/Y, M), and its dash is on three different keys, so exactly
#: one layout reads it back as printed.
LAYOUT_TEST_CODE = "MB-LAYOUT-AZQWYM"
#: A keyboard-mode reader named by its USB ids, ``vvvv:pppp`` (``0c2e:0b61``).
VENDOR_PRODUCT = re.compile(r"([0-9a-fA-F]{4}):([0-9a-fA-F]{4})")


#: Readers on the Pi's SPI header rather than a port: named by bus and chip select, not by ``port``.
SPI_PROTOCOLS: tuple[str, ...] = ("rc522",)
#: The chip selects of the Pi's SPI buses an RC522 may sit on: SPI0 CE0/CE1, SPI1 CE0–CE2 (spi1-3cs).
SPI_CHIP_SELECTS: Mapping[int, tuple[int, ...]] = {0: (0, 1), 1: (0, 1, 2)}


def names_input_device(port: str) -> bool:
    """Whether ``port`` names a keyboard-mode reader (an input device, or ``vvvv:pppp``): never a serial port."""
    return port.startswith("/dev/input/") or VENDOR_PRODUCT.fullmatch(port) is not None
#: Where the table's buttons come from: the pin map's GPIO buttons, or a USB keypad (drivers/keypad.py).
BUTTON_SOURCES: tuple[str, ...] = ("gpio", "hid")
#: The key maps a keypad starts from (drivers/keypad.py's KEYMAPS; a test keeps the two equal).
KEYMAP_NAMES: tuple[str, ...] = ("numpad", "pad6")
#: Panels that are no OLED: ``tv``, the panel's screens on a web page a TV, monitor or tablet shows.
SCREENS: tuple[str, ...] = ("tv",)
#: Where the chirps can go: the pin map's buzzer, the Pi's audio (ALSA), the TV page's browser, nowhere.
SOUNDS: tuple[str, ...] = ("buzzer", "audio", "page", "none")
