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

import fcntl
import glob
import os
import struct
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
