"""The OLED, or its desktop twin: frames in, skipped when unchanged, never an exception out.

``open_display(...)`` builds a :class:`Display` for a real panel (ssd1306, sh1106, ssd1309 at
128×64, ssd1322 at 256×64, over I2C or SPI), for a luma.emulator twin (pygame window, terminal
view, PNG per frame, GIF recording) or for luma's dummy device (tests). The referee hands it a
PIL image per change; the display:

* sends nothing if the frame's bytes equal the last frame sent (``skipped`` counts them), and
  otherwise only the part that changed (:mod:`bornes.drivers.display.partial`; luma's own
  ``diff_to_previous`` framebuffer on the ssd1322);
* on an ``OSError`` from the device (the I2C "[Errno 121] Remote I/O error", a panel pulled
  off) marks itself degraded ("panel lost" in the log), drops the luma device and retries on
  later frames or :meth:`Display.tick` with exponential backoff (up to ``max_backoff``),
  re-creating the device ("panel back"); it never raises into the referee and never sleeps;
* for a panel on a bus that can go away (``/dev/i2c-N`` of a USB bridge), :meth:`Display.tick`
  also notices the node is gone while nothing is drawn: the device is dropped then, which closes
  the bus. That matters to the kernel: it removes an I2C adapter only once nobody holds it
  open (``i2c_del_adapter`` waits for the last reference), and until then the USB hub's
  thread waits too, so a bridge plugged back in would not even be enumerated.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import logging
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PIL import Image

from bornes.drivers.errors import EX_CONFIG, UserError
from bornes.drivers.parts import EMULATORS, PANELS, SCREENS

log = logging.getLogger(__name__)

#: ssd1322 change detection: 4×4 segments of 64×16 pixels (luma's default is 2×2).
SSD1322_SEGMENTS = 16
#: Seconds between two looks at a healthy panel's bus node (from :meth:`Display.tick`: a stat, no I/O).
WATCH_EVERY = 1.0
Clock = Callable[[], float]


@dataclass(frozen=True, slots=True)
class DisplayStats:
    sent: int
    skipped: int
    failures: int
    degraded: bool
    last_error: str | None


class Display:
    """A luma device behind change detection and error recovery. ``make_device`` builds the device."""

    def __init__(self, make_device: Callable[[], Any], size: tuple[int, int], *, name: str = "display",
                 clock: Clock = time.monotonic, backoff: float = 0.5, max_backoff: float = 30.0,
                 where: str | None = None, watch: Callable[[], str | None] | None = None) -> None:
        self.name = name
        #: Where the panel is, for the log's lost and back lines ("ssd1306 on /dev/i2c-1 at 0x3C").
        self.where = where or name
        self.size = size
        self._make_device = make_device
        self._clock = clock
        self._backoff = backoff
        self._max_backoff = max_backoff
        #: Says why the panel's bus is gone (None: it is there); asked from tick() while healthy.
        self._watch = watch
        self._watched_at = 0.0
        self._device: Any = None
        self._last_sent: bytes | None = None
        self._last_image: Image.Image | None = None
        self._pending: Image.Image | None = None
        self._retry_at = 0.0
        self._closed = False
        self.sent = 0
        self.skipped = 0
        self.failures = 0
        self.degraded = False
        self.last_error: str | None = None
        self._attempt_open()

    # --- device life ----------------------------------------------------------------------

    def _attempt_open(self) -> bool:
        try:
            self._device = self._make_device()
            return True
        except OSError as error:
            self._fail(error)
            return False
        except Exception as error:  # luma's DeviceNotFoundError & co: same treatment, the panel may come back
            self._fail(error)
            return False

    def _fail(self, error: BaseException) -> None:
        self.failures += 1
        self.last_error = f"{type(error).__name__}: {error}"
        if not self.degraded:
            log.warning("panel lost: %s: %s; trying it again until it answers", self.where, self.last_error)
        self.degraded = True
        delay = min(self._max_backoff, self._backoff * 2 ** min(self.failures - 1, 16))
        self._retry_at = self._clock() + delay
        self._drop_device()

    def _drop_device(self) -> None:
        device, self._device = self._device, None
        if device is not None:
            with contextlib.suppress(Exception):
                device.cleanup = _nothing  # luma's atexit hook must not talk to a broken bus
            serial = getattr(device, "_serial_interface", None)
            with contextlib.suppress(Exception):
                if serial is not None:
                    serial.cleanup()

    @property
    def device(self) -> Any:
        """The luma device in use (None while degraded); tests read ``device.image`` on the dummy."""
        return self._device

    @property
    def mode(self) -> str:
        return str(getattr(self._device, "mode", "1"))

    # --- frames ---------------------------------------------------------------------------

    def show(self, image: Image.Image) -> bool:
        """Show ``image`` if it changed. Returns True if a frame went to the device."""
        if self._closed:
            return False
        if image.size != self.size:
            raise ValueError(f"frame is {image.size}, the panel is {self.size}")
        if self.degraded:
            self._pending = image
            return self.tick()
        return self._send(image)

    def tick(self) -> bool:
        """Retry a degraded display when its backoff is over, and look at a healthy one's bus (call it
        from the referee's loop, idle or not). Returns True when a frame went to the panel."""
        if self._closed:
            return False
        if not self.degraded:
            self._look()
            return False
        if self._pending is None or self._clock() < self._retry_at:
            return False
        if self._device is None and not self._attempt_open():
            return False
        image, self._pending = self._pending, None
        self._last_sent = None  # the panel may have lost its picture: send even an unchanged frame
        if self._send(image):
            log.warning("panel back: %s (after %d failed tries)", self.where, self.failures)
            self.degraded = False
            self.failures = 0
            return True
        return False

    @property
    def watch_every(self) -> float | None:
        """How often an idle loop should call tick() so a bus gone between frames is noticed (None: no bus to
        watch). The referee's idle loop otherwise wakes at half its watchdog's period: 30 s under a 60 s one."""
        return WATCH_EVERY if self._watch is not None and not self._closed else None

    def _look(self) -> None:
        """The panel's bus gone while nothing was drawn (a USB bridge pulled out): lost now, not at the next frame."""
        if self._watch is None or self._device is None or self._clock() < self._watched_at + WATCH_EVERY:
            return
        self._watched_at = self._clock()
        problem = self._watch()
        if problem is not None:
            self._pending = self._last_image  # the picture to put back once the panel answers again
            self._fail(OSError(errno.ENODEV, problem))

    def _send(self, image: Image.Image) -> bool:
        device = self._device
        if device is None:
            self._pending = image
            return False
        frame = image if image.mode == device.mode else image.convert(device.mode)
        data = frame.tobytes()
        if data == self._last_sent:
            self.skipped += 1
            return False
        try:
            device.display(frame)
        except Exception as error:  # an I2C error, a panel pulled off, a terminal too small: never the referee's end
            self._pending = image
            self._fail(error)
            return False
        self._last_sent = data
        self._last_image = image
        self.sent += 1
        return True

    def stats(self) -> DisplayStats:
        return DisplayStats(self.sent, self.skipped, self.failures, self.degraded, self.last_error)

    def close(self) -> None:
        """Release the device (and write the GIF of a recording). Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        device, self._device = self._device, None
        if device is None:
            return
        # luma registers cleanup (and the GIF writer) with atexit; run them now, exactly once.
        for method in ("write_animation", "cleanup"):
            bound = getattr(device, method, None)
            if bound is None:
                continue
            atexit.unregister(bound)
            with contextlib.suppress(Exception):
                bound()
            with contextlib.suppress(Exception):
                setattr(device, method, _nothing)  # luma's own atexit hook calls device.cleanup() again

    def __enter__(self) -> Display:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _nothing() -> None:
    """Stands in for a luma device's cleanup once we have cleaned up ourselves."""


def open_display(
    panel: str = "ssd1306",
    interface: str = "i2c",
    *,
    i2c_port: int = 1,
    i2c_address: int = 0x3C,
    spi_port: int = 0,
    spi_device: int = 0,
    spi_dc: int = 24,
    spi_reset: int = 25,
    spi_bus_hz: int = 8_000_000,
    rotate: int = 0,
    size: tuple[int, int] | None = None,
    emulated: str | None = None,
    terminal_style: str = "asciiblock",
    capture_dir: str = ".",
    gif_path: str = "bornes.gif",
    scale: int = 2,
    tv_file: str | None = None,
    clock: Clock = time.monotonic,
    max_backoff: float = 30.0,
) -> Display:
    """Build the display named in config.

    ``panel`` is a real panel (ssd1306, sh1106, ssd1309, ssd1322) or an emulator: dummy, pygame,
    terminal (``terminal_style`` asciiblock or asciiart), capture (a PNG per frame into
    ``capture_dir``) or gif (recorded to ``gif_path`` on close). Emulators take the size of the
    panel named by ``emulated`` (default 128×64) or ``size``. ``tv`` is no OLED: the frames go to
    ``tv_file`` for the TV page of ``bornes web`` (:mod:`bornes.drivers.display.tv`). A real panel
    that fails is tried again after 0.5 s, then twice as long each time up to ``max_backoff``.
    """
    if panel in SCREENS:
        from bornes.drivers.display.tv import SIZE, TvScreen

        if tv_file is None:
            raise UserError("the tv panel needs the file its screen goes to ([display] tv_file)", EX_CONFIG)
        return Display(lambda: TvScreen(tv_file, SIZE), SIZE, name="tv", clock=clock)
    if panel in PANELS:
        node = f"/dev/i2c-{i2c_port}" if interface == "i2c" else f"/dev/spidev{spi_port}.{spi_device}"
        where = f"{panel} on {node}" + (f" at 0x{i2c_address:02X}" if interface == "i2c" else "")
        return Display(_real_factory(panel, interface, i2c_port, i2c_address, spi_port, spi_device, spi_dc,
                                     spi_reset, spi_bus_hz, rotate), PANELS[panel], name=panel, clock=clock,
                       max_backoff=max_backoff, where=where, watch=lambda: _gone(node))
    if panel not in EMULATORS:
        raise UserError(f"unknown display panel {panel!r}: use one of {', '.join((*PANELS, *EMULATORS))}", EX_CONFIG)
    if size is None:
        size = PANELS.get(emulated or "ssd1306", (128, 64))
    width, height = size
    mode = "1" if width <= 128 else "RGB"
    if panel == "dummy":
        from luma.core.device import dummy

        return Display(lambda: dummy(width=width, height=height, rotate=rotate, mode=mode), size, name="dummy",
                       clock=clock)
    if panel == "terminal" and terminal_style == "asciiblock":
        return _terminal_display(size, rotate, clock)
    if panel == "pygame":
        problem = _no_window_reason()
        if problem is not None:
            raise UserError(problem, EX_CONFIG)
    # pygame greets on import; a referee's terminal and journald are no place for banners.
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    try:
        import luma.emulator.device as emulator
    except ImportError:
        raise UserError("the desktop display needs luma.emulator and pygame: pip install 'bornes[emulator]'",
                        EX_CONFIG) from None
    common: dict[str, Any] = {"width": width, "height": height, "rotate": rotate, "mode": "RGB", "scale": scale}
    make: Callable[[], Any]
    if panel == "pygame":
        def make() -> Any:
            device = emulator.pygame(transform="scale2x" if scale == 2 else "none", **common)
            driver = device._pygame.display.get_driver()
            if driver in ("offscreen", "dummy") and not os.environ.get("SDL_VIDEODRIVER"):
                device.cleanup()
                raise RuntimeError(f"SDL found no screen (video driver {driver!r}): use --display terminal")
            return device
    elif panel == "terminal":
        if terminal_style not in ("asciiblock", "asciiart"):
            raise UserError("terminal_style must be asciiblock or asciiart", EX_CONFIG)
        cls = getattr(emulator, terminal_style)
        if not sys.stdout.isatty():
            raise UserError("the terminal display needs a terminal (stdout is not a tty)", EX_CONFIG)

        def make() -> Any:
            return cls(transform="none", **{**common, "scale": 1})
    elif panel == "capture":
        os.makedirs(capture_dir, exist_ok=True)
        template = os.path.join(capture_dir, "frame_{0:06}.png")

        def make() -> Any:
            return emulator.capture(transform="none", file_template=template, **common)
    else:
        def make() -> Any:
            return emulator.gifanim(transform="none", filename=gif_path, duration=0.5, **common)
    display = Display(make, size, name=panel, clock=clock)
    if display.degraded:
        raise UserError(f"cannot open the {panel} display: {display.last_error}", EX_CONFIG)
    return display


def _gone(node: str) -> str | None:
    """Why the panel's bus is no more (its device node gone: a USB bridge pulled out), None while it is there."""
    return None if os.path.exists(node) else f"{node} is gone"


def _no_window_reason() -> str | None:
    """Why a pygame window cannot open here, before SDL quietly opens an invisible one."""
    if os.environ.get("SDL_VIDEODRIVER"):
        return None  # chosen on purpose (tests use "dummy")
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return "--display pygame needs a desktop session (DISPLAY and WAYLAND_DISPLAY are not set): " \
               "use --display terminal"
    return None


def _terminal_display(size: tuple[int, int], rotate: int, clock: Clock) -> Display:
    """The panel 1:1 in this terminal, or one line saying how big the terminal must be."""
    from bornes.drivers.display.terminal import TerminalPanel, too_small

    if not sys.stdout.isatty():
        raise UserError("the terminal display needs a terminal (stdout is not a tty)", EX_CONFIG)
    problem = too_small(size)
    if problem is not None:
        raise UserError(problem, EX_CONFIG)
    width, height = size
    display = Display(lambda: TerminalPanel(width=width, height=height, rotate=rotate), size, name="terminal",
                      clock=clock)
    if display.degraded:
        raise UserError(f"cannot open the terminal display: {display.last_error}", EX_CONFIG)
    return display


def _real_factory(panel: str, interface: str, i2c_port: int, i2c_address: int, spi_port: int, spi_device: int,
                  spi_dc: int, spi_reset: int, spi_bus_hz: int, rotate: int) -> Callable[[], Any]:
    if interface not in ("i2c", "spi"):
        raise UserError(f"display interface must be i2c or spi, not {interface!r}", EX_CONFIG)

    def make() -> Any:
        from luma.core.interface.serial import i2c, spi
        from luma.oled import device as oled

        if interface == "i2c":
            serial = i2c(port=i2c_port, address=i2c_address)
        else:
            serial = spi(port=spi_port, device=spi_device, gpio_DC=spi_dc, gpio_RST=spi_reset,
                         bus_speed_hz=spi_bus_hz)
        if panel == "ssd1322":
            # luma's greyscale driver sends only the changed regions; 16 segments keep them tight.
            from luma.core.framebuffer import diff_to_previous

            return oled.ssd1322(serial, width=256, height=64, rotate=rotate, mode="RGB",
                                framebuffer=diff_to_previous(num_segments=SSD1322_SEGMENTS))
        from bornes.drivers.display.partial import PARTIAL

        return PARTIAL[panel](serial, width=128, height=64, rotate=rotate)  # only the changed pages and columns

    return make
