"""The machine's GPIO chips, found by their label, and who holds a line: the kernel's own answers.

A chip's number is no name for it: a Pi 5's header chip was ``gpiochip4`` until kernel 6.6.45 and is
``gpiochip0`` since, and later kernels list others before it (raspberrypi/linux #6144, gpiozero
#1166, Adafruit_Blinka #1119); a USB bridge's chip takes whatever number is free. Its label is what
its driver calls it, every time: ``pinctrl-rp1`` (Pi 5), ``pinctrl-bcm2711`` (Pi 4, 400, CM4),
``pinctrl-bcm2835`` (Pi 1 to 3, Zero, Zero 2 W), ``cp2112_gpio`` (a Silicon Labs CP2112 USB bridge,
drivers/hid/hid-cp2112.c). Both answers come from the GPIO character device's ioctls
(include/uapi/linux/gpio.h): ``GPIO_GET_CHIPINFO_IOCTL`` and ``GPIO_V2_GET_LINEINFO_IOCTL``.
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
import os
import struct
import threading
import time
from dataclasses import dataclass

#: The labels of the Raspberry Pi header's GPIO chip, newest board first.
HEADER_LABELS = ("pinctrl-rp1", "pinctrl-bcm2711", "pinctrl-bcm2835")

_CHIPINFO = 0x8044B401  # _IOR(0xB4, 0x01, struct gpiochip_info): name[32], label[32], __u32 lines
_LINEINFO = 0xC100B405  # _IOWR(0xB4, 0x05, struct gpio_v2_line_info): 256 bytes
_LINE_USED = 1  # GPIO_V2_LINE_FLAG_USED


@dataclass(frozen=True, slots=True)
class Chip:
    """One GPIO chip as the kernel describes it."""

    path: str  # /dev/gpiochipN
    name: str  # gpiochipN
    label: str
    lines: int

    @property
    def number(self) -> int:
        """N of gpiochipN: what lgpio's ``gpiochip_open`` (and gpiozero's ``LGPIOFactory(chip=N)``) takes."""
        return int(self.name.removeprefix("gpiochip"))

    def describe(self) -> str:
        return f"{self.name} [{self.label}] ({self.lines} lines)"


def chip_at(path: str) -> Chip:
    """What the kernel says of the chip at ``path``; OSError when it is gone or not a GPIO chip."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        info = fcntl.ioctl(fd, _CHIPINFO, bytes(68))
    finally:
        os.close(fd)
    name, label, lines = struct.unpack("32s32sI", info)
    return Chip(path, name.rstrip(b"\0").decode(errors="replace"), label.rstrip(b"\0").decode(errors="replace"),
                lines)


def chips() -> list[Chip]:
    """Every GPIO chip this process can open, by number."""
    found = []
    for path in sorted(glob.glob("/dev/gpiochip*"), key=lambda p: int(p.removeprefix("/dev/gpiochip") or 0)):
        try:
            found.append(chip_at(path))
        except (OSError, ValueError):
            continue
    return found


def find(labels: tuple[str, ...]) -> Chip | None:
    """The first chip whose label is one of ``labels`` (in the order of ``labels``), or None."""
    present = chips()
    for label in labels:
        for chip in present:
            if chip.label == label:
                return chip
    return None


def described(labels: tuple[str, ...]) -> str:
    """``labels`` as a person reads them: ``'cp2112_gpio'`` or ``'pinctrl-rp1', … or …``."""
    quoted = [f"'{label}'" for label in labels]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def missing(labels: tuple[str, ...]) -> str:
    """One line: no chip has one of ``labels``, and the chips there are (those this user cannot open, and why)."""
    seen = []
    for path in sorted(glob.glob("/dev/gpiochip*")):
        try:
            seen.append(chip_at(path).describe())
        except OSError as error:
            seen.append(f"{os.path.basename(path)} ({(error.strerror or str(error)).lower()})")
    return f"no GPIO chip labelled {described(labels)} (chips here: {', '.join(seen) or 'none'})"


def holder(chip: Chip, line: int) -> str | None:
    """The consumer that holds ``line`` of ``chip`` (lgpio says ``lg``), '' for an unnamed one, None when free."""
    fd = os.open(chip.path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        request = bytearray(256)
        struct.pack_into("I", request, 64, line)  # gpio_v2_line_info.offset
        info = fcntl.ioctl(fd, _LINEINFO, bytes(request))
    finally:
        os.close(fd)
    consumer = info[32:64].rstrip(b"\0").decode(errors="replace")
    (flags,) = struct.unpack_from("Q", info, 72)
    return consumer if flags & _LINE_USED else None


#: inotify's event bits (include/uapi/linux/inotify.h): a node made, its owner or mode changed (udev gives a
#: new chip to group gpio a moment after the kernel makes it root's), a node removed.
_IN_ATTRIB, _IN_CREATE, _IN_DELETE = 0x004, 0x100, 0x200
_INOTIFY_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len; then len bytes of name


class ChipWatch:
    """Wakes a waiter the moment a ``gpiochipN`` node comes, changes hands or goes in ``/dev`` (inotify).

    Why not only a look every half second: when a USB bridge's chip goes while its lines are claimed, lgpio's
    alert thread finds their fds in error at each turn of its loop and prints "read error 19" each time, as
    fast as it can, until the lines are let go. A whole look's wait of that filled the journal past journald's
    rate limit, which then dropped the referee's own "buttons lost" (the kernel tier's wired bench, 5 unplugs).
    Where inotify is not there, :meth:`wait` is a plain timed wait."""

    def __init__(self, folder: str = "/dev") -> None:
        self._inotify = -1
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
            if fd >= 0:
                if libc.inotify_add_watch(fd, os.fsencode(folder), _IN_ATTRIB | _IN_CREATE | _IN_DELETE) >= 0:
                    self._inotify = fd
                else:
                    os.close(fd)
        except (OSError, AttributeError):  # no libc to load, no inotify in it
            pass
        self._wake_read, self._wake_write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        self._closed = False
        self._waiting = False
        self._lock = threading.Lock()

    @property
    def watching(self) -> bool:
        return self._inotify >= 0

    def wait(self, timeout: float) -> bool:
        """Up to ``timeout`` seconds, less if a chip's node changed; True once :meth:`close` was called."""
        import select

        with self._lock:
            if self._closed:
                return True
            self._waiting = True
            fds = [self._wake_read] + ([self._inotify] if self._inotify >= 0 else [])
        try:
            deadline = time.monotonic() + timeout
            while (left := deadline - time.monotonic()) > 0:
                ready, _, _ = select.select(fds, [], [], left)
                if self._wake_read in ready or self._closed:
                    return True
                if self._inotify in ready and self._chip_changed():
                    return False
            return self._closed
        finally:
            with self._lock:
                self._waiting = False
                if self._closed:
                    self._let_go()

    def _chip_changed(self) -> bool:
        try:
            data = os.read(self._inotify, 65536)
        except OSError:
            return False
        changed, offset = False, 0
        while offset + _INOTIFY_EVENT.size <= len(data):
            _wd, _mask, _cookie, length = _INOTIFY_EVENT.unpack_from(data, offset)
            name = data[offset + _INOTIFY_EVENT.size:offset + _INOTIFY_EVENT.size + length].rstrip(b"\0")
            changed = changed or name.startswith(b"gpiochip")
            offset += _INOTIFY_EVENT.size + length
        return changed

    def close(self) -> None:
        """Wake the waiter for good and let the descriptors go; safe to call twice."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            with contextlib.suppress(OSError):
                os.write(self._wake_write, b"x")
            if not self._waiting:  # else the waiter lets them go as it leaves
                self._let_go()

    def _let_go(self) -> None:
        for fd in (self._inotify, self._wake_read, self._wake_write):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._inotify = self._wake_read = self._wake_write = -1
