"""Keyboard-mode readers on Linux evdev: find the device, grab it, read its keys.

The reader thread is the same :class:`~bornes.drivers.readers.serial_reader.SerialReader` as for
the serial readers (its reconnect loop, status events and double-read filter), with
:func:`open_hid` as its port factory and :class:`HidLink` as its loop body. The device is
*grabbed* (``EVIOCGRAB``): while the referee holds it, no keystroke reaches a console, a login
prompt or another program; closing the port releases it, and so does the kernel if we die.

python-evdev is imported here only, when a keyboard-mode reader is configured or listed.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import struct
import sys
import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bornes.drivers.parts import LAYOUT_TEST_CODE, VENDOR_PRODUCT
from bornes.drivers.readers.base import DecoderStats
from bornes.drivers.readers.hid import LAYOUT_NAMES, HidDecoder, HidProblem, K

BY_ID = Path("/dev/input/by-id")
_VENDOR_PRODUCT = VENDOR_PRODUCT
LED_NUML, LED_CAPSL = 0, 1
#: ``EVIOCSCLOCKID`` (``_IOW('E', 0xa0, int)``): the clock the kernel stamps this device's events with.
EVIOCSCLOCKID = 0x400445A0
#: Which devices a part may use, judged by the key codes a device says it has.
KeysTest = Callable[[Collection[int]], bool]
EV_MSC = 4
#: ``EVIOCSMASK``, ``_IOW('E', 0x93, struct input_mask)`` (linux/input.h, Linux 4.4 and later): which
#: events the kernel queues for this reader. ``struct input_mask`` is type, codes_size, codes_ptr.
EVIOCSMASK = 0x40104593
_INPUT_MASK = struct.Struct("=IIQ")


def queue_keys_only(fd: int) -> bool:
    """Ask the kernel to queue no EV_MSC events for this reader (False where it cannot: an old kernel).

    A USB keyboard sends MSC_SCAN (the HID usage) before every key event: over a third of what a
    scan puts in the reader's queue, which holds 64 events and drops the rest when the reader is
    read late (SYN_DROPPED: the code is refused, to be scanned again). The decoder never reads
    them; without them a scan takes a third fewer places in the queue (a key is two events, not three)."""
    try:
        fcntl.ioctl(fd, EVIOCSMASK, _INPUT_MASK.pack(EV_MSC, 0, 0))  # an empty bitmap: no MSC code at all
    except OSError:
        return False
    return True


#: python-evdev's asyncio flavour of its device class, which :func:`evdev_module` leaves out.
ASYNC_FLAVOUR = "evdev.eventio_async"
_IMPORTING = threading.Lock()


class HidUnavailable(OSError):
    """python-evdev is not installed (the ``hid`` extra, or Debian's python3-evdev)."""


def evdev_module() -> Any:
    """python-evdev, without its asyncio flavour of the device class: the referee reads its devices
    in threads and never uses it, and it imports asyncio and, through asyncio, ssl and OpenSSL: 0.6 to
    0.9 s of every referee start in the kernel tier's guest, about 0.07 s on this machine. evdev's
    ``device`` module falls back to its plain ``eventio`` when that import fails, as it does for a
    ``None`` in ``sys.modules``; the ``None`` is taken out again, so code that wants the asyncio
    flavour can still import it by name afterwards."""
    with _IMPORTING:  # two readers' threads starting at once must not undo each other's None
        blocked = "evdev" not in sys.modules and "asyncio" not in sys.modules and ASYNC_FLAVOUR not in sys.modules
        if blocked:
            sys.modules[ASYNC_FLAVOUR] = None  # type: ignore[assignment]
        try:
            import evdev
        except ImportError:
            raise HidUnavailable("python-evdev is not installed: apt install python3-evdev "
                                 "(or pip install 'bornes[hid]')") from None
        finally:
            if blocked and sys.modules.get(ASYNC_FLAVOUR, 0) is None:
                del sys.modules[ASYNC_FLAVOUR]
    return evdev


def types_codes(keys: Collection[int]) -> bool:
    """It can type a payload and end it: Enter (or keypad Enter, or Tab), and digits."""
    ends = K["KEY_ENTER"] in keys or K["KEY_KPENTER"] in keys or K["KEY_TAB"] in keys
    return ends and (K["KEY_1"] in keys or K["KEY_KP1"] in keys)


def _device_keys(device: Any) -> set[int]:
    return set(device.capabilities().get(1, ()))  # EV_KEY


def stable_names() -> dict[str, str]:
    """``/dev/input/eventN`` -> its ``/dev/input/by-id/…`` name (udev's, stable across replugs)."""
    names: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for link in sorted(BY_ID.iterdir()):
            if "event" in link.name:
                with contextlib.suppress(OSError):
                    names.setdefault(str(link.resolve()), str(link))
    return names


@dataclass(frozen=True, slots=True)
class InputDeviceInfo:
    """One keyboard-like input device, as ``bornes scan-test --list`` shows it."""

    path: str
    stable: str | None
    name: str
    vendor: int
    product: int

    @property
    def vendor_product(self) -> str:
        return f"{self.vendor:04x}:{self.product:04x}"

    def line(self) -> str:
        return f"{self.stable or self.path}  {self.vendor_product}  {self.name}"


def keyboard_devices(accept: KeysTest = types_codes) -> list[InputDeviceInfo]:
    """Every input device this process may open whose keys ``accept`` takes (by default: keyboard-like,
    able to type a code); the others are skipped silently."""
    evdev = evdev_module()
    names = stable_names()
    found = []
    for path in sorted(evdev.list_devices()):
        try:
            device = evdev.InputDevice(path)
        except OSError:
            continue
        try:
            if accept(_device_keys(device)):
                found.append(InputDeviceInfo(path, names.get(path), device.name, device.info.vendor,
                                             device.info.product))
        finally:
            device.close()
    return found


def resolve_device(port: str, accept: KeysTest = types_codes) -> str:
    """The event node a config's ``port`` names: a path (``/dev/input/by-id/…``) or ``vvvv:pppp`` (the
    first device with those ids whose keys ``accept`` takes)."""
    match = _VENDOR_PRODUCT.fullmatch(port)
    if match is None:
        if not os.path.exists(port):
            raise FileNotFoundError(2, "No such file or directory", port)
        return port
    vendor, product = (int(part, 16) for part in match.groups())
    for device in keyboard_devices(accept):
        if (device.vendor, device.product) == (vendor, product):
            return device.path
    raise FileNotFoundError(2, f"no keyboard-like input device {port} (plugged in? readable?)")


class HidPort:
    """One grabbed evdev device, with a pipe that wakes a waiting read on close().

    Its events are stamped on the monotonic clock (``EVIOCSCLOCKID``), which :attr:`clock` reads:
    a key held down is timed against the same clock as its press, and a Pi that sets its date
    from the network at boot does not make a press last an hour.
    """

    def __init__(self, port: str, accept: KeysTest = types_codes) -> None:
        evdev = evdev_module()
        self.path = resolve_device(port, accept)
        self.device = evdev.InputDevice(self.path)
        try:
            self.device.grab()
        except OSError as error:
            self.device.close()
            raise OSError(error.errno, f"{port} is held by another program (grabbed)") from None
        self.clock: Callable[[], float] = time.monotonic
        try:
            fcntl.ioctl(self.device.fd, EVIOCSCLOCKID, struct.pack("i", time.CLOCK_MONOTONIC))
        except OSError:  # a kernel before 3.4: the events keep the wall clock, and so do we
            self.clock = time.time
        self.keys_only = queue_keys_only(self.device.fd)
        self._wake_read, self._wake_write = os.pipe()

    def leds(self) -> set[int]:
        with contextlib.suppress(OSError):
            return set(self.device.leds())
        return set()

    def set_leds(self, caps_lock: bool, num_lock: bool) -> None:
        """Light the device's lock LEDs as the referee reads its keys. Grabbed, the device no longer
        hears the console's lock state (nor its own Caps Lock presses reach the console), so nobody
        else would: this is what any host does for a keyboard, and a scanner set to follow the
        host's Caps Lock sees the state its codes are read with."""
        with contextlib.suppress(OSError):
            self.device.set_led(LED_CAPSL, int(caps_lock))
            self.device.set_led(LED_NUML, int(num_lock))

    def read_events(self, timeout: float) -> list[Any]:
        """The events waiting (at most ``timeout`` s of waiting); [] when woken by close()."""
        ready, _, _ = select.select([self.device.fd, self._wake_read], [], [], timeout)
        if self._wake_read in ready or not ready:
            return []
        try:
            return list(self.device.read())
        except BlockingIOError:
            return []

    def cancel_read(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self._wake_write, b"x")

    def close(self) -> None:
        """Release the grab and the device; safe to call twice."""
        with contextlib.suppress(OSError):
            self.device.ungrab()
        with contextlib.suppress(OSError):
            self.device.close()
        for fd in (self._wake_read, self._wake_write):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._wake_read = self._wake_write = -1


def open_hid(port: str, baudrate: int, timeout: float) -> HidPort:
    """The ``serial_factory`` of a keyboard-mode reader (``baudrate`` means nothing to USB HID)."""
    return HidPort(port)


class HidLink:
    """The loop body: read key events, decode them, report readings and refusals."""

    def __init__(self, decoder: HidDecoder, read_timeout: float = 1.0) -> None:
        self.decoder = decoder
        self.read_timeout = read_timeout
        self._locks = (decoder.caps_lock, decoder.num_lock)  # as last shown on the device's LEDs
        self.clock: Callable[[], float] = time.monotonic

    @property
    def stats(self) -> DecoderStats:
        return self.decoder.stats

    def start(self, port: Any, sink: Any) -> None:
        self.decoder.reset()
        self.clock = getattr(port, "clock", time.monotonic)  # the clock the device stamps its events with
        leds = port.leds()
        self.decoder.caps_lock = LED_CAPSL in leds
        self.decoder.num_lock = LED_NUML in leds
        self._locks = (self.decoder.caps_lock, self.decoder.num_lock)

    def step(self, port: Any, sink: Any) -> None:
        items = self.decoder.feed(port.read_events(self.read_timeout))
        items += self.decoder.poll(self.clock())
        locks = (self.decoder.caps_lock, self.decoder.num_lock)
        if locks != self._locks:  # Caps or Num Lock pressed on the reader: its LEDs say so
            self._locks = locks
            port.set_leds(*locks)
        for item in items:
            if isinstance(item, HidProblem):
                sink.problem(item.kind, item.detail)
            elif item.raw == LAYOUT_TEST_CODE:
                layout = self.decoder.layout or "us"
                sink.problem("layout", f"keyboard layout {LAYOUT_NAMES[layout]} (layout = \"{layout}\")")
            else:
                sink.reading(item)
