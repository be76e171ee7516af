"""The i2c-tiny-usb bridge (0403:c631) as a USB/IP device, with an I2C bus behind it.

The kernel drives it with its own driver, ``drivers/i2c/busses/i2c-tiny-usb.c`` (``CONFIG_I2C_TINY_USB``),
and gives user space a real I2C adapter: ``/dev/i2c-N`` through ``i2c-dev``, found by its name
``i2c-tiny-usb at bus BBB device DDD`` in ``/sys/class/i2c-dev/i2c-N/name``. Everything a program
does on that adapter (smbus2's ``i2c_rdwr``, an SMBus quick write, luma.oled's frames) reaches the
targets here as I2C messages.

Written from the driver and from the bridge's firmware (Till Harbaum's I2C-Tiny-USB,
``firmware/main.c`` and ``usbconfig.h``):

* every request is a vendor request to the interface on endpoint 0 (no other endpoint);
* ``CMD_ECHO`` 0 (IN, 2 bytes: ``wValue`` back), ``CMD_GET_FUNC`` 1 (IN, 4 bytes, little-endian:
  the firmware's ``I2C_FUNC_I2C | I2C_FUNC_SMBUS_EMUL``), ``CMD_SET_DELAY`` 2 (OUT, no data:
  ``wValue`` is the bit delay in µs, 10 by default: about 100 kHz), ``CMD_GET_STATUS`` 3 (IN, 1 byte:
  0 idle, 1 address acknowledged, 2 address not acknowledged);
* ``CMD_I2C_IO`` 4, plus ``CMD_I2C_IO_BEGIN`` 1 (a start condition, else a repeated start) and
  ``CMD_I2C_IO_END`` 2 (a stop after it): one I2C message, ``wValue`` its flags (``I2C_M_RD`` 1),
  ``wIndex`` the 7-bit address, ``wLength`` its length; a write carries the bytes in its data
  stage, whatever the length (the driver has no limit of its own: luma's 1 025-byte frame is one
  control transfer), a read returns them. After each message the driver asks ``CMD_GET_STATUS``
  and turns status 2 into ``-ENXIO``.

One choice where the original firmware is silent: it ignores a data byte the target does not
acknowledge (``usbFunctionWrite``: "TODO: set status"). The RP2040 bridges that speak the same
protocol (DragonProbe's i2c-tiny-usb mode, ``i2ctinyusb.c``) report such a write as status 2,
and so does this one: a panel that stops acknowledging mid-frame fails the write with ENXIO, as
a Pi's own controller fails it (EREMOTEIO there) instead of pretending it arrived.

The device descriptor is the firmware's (``usbconfig.h``): vendor 0x0403, product 0xc631,
bcdDevice 1.05, class 0xff, "Till Harbaum", "i2c-tiny-usb", a low-speed device (V-USB on an
AVR: 8-byte endpoint 0), one interface of class 0 with no endpoint, 10 mA.
"""

from __future__ import annotations

import struct
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING or __package__:  # the checkout's tools.kernel.guest.*; in the VM, beside this file
    from tools.kernel.guest.usbip import (
        SPEED_LOW,
        Device,
        Setup,
        Stall,
        configuration_descriptor,
        device_descriptor,
        interface_descriptor,
    )
else:
    from usbip import (
        SPEED_LOW,
        Device,
        Setup,
        Stall,
        configuration_descriptor,
        device_descriptor,
        interface_descriptor,
    )

VENDOR, PRODUCT = 0x0403, 0xC631
CMD_ECHO, CMD_GET_FUNC, CMD_SET_DELAY, CMD_GET_STATUS, CMD_I2C_IO = 0, 1, 2, 3, 4
CMD_I2C_IO_BEGIN, CMD_I2C_IO_END = 1, 2
STATUS_IDLE, STATUS_ADDRESS_ACK, STATUS_ADDRESS_NAK = 0, 1, 2
I2C_M_RD = 0x0001
#: The firmware's functionality word: I2C_FUNC_I2C | its I2C_FUNC_SMBUS_EMUL (quick, byte, byte data,
#: word data, process call, write block data (and with PEC), I2C block read and write).
FUNCTIONALITY = 0x00000001 | 0x00010000 | 0x00060000 | 0x00180000 | 0x00600000 | 0x00800000 | 0x02000000 \
    | 0x80000000 | 0x0C000000


class Target(Protocol):
    """An I2C device on the bus, as the bus's wires see it."""

    address: int

    def begin(self, read: bool) -> bool:
        """A start (or repeated start) and this address: True when it acknowledges."""

    def write(self, data: bytes) -> int:
        """Data bytes of a write: how many it acknowledged (fewer: it NAKed the next one; the rest never left)."""

    def read(self, count: int) -> bytes:
        """``count`` bytes the master clocks out of it."""

    def end(self) -> None:
        """A stop condition."""


@dataclass
class Message:
    """One I2C message as it crossed the bus: when it ended, to whom, what went."""

    at: float
    address: int
    read: bool
    length: int
    acknowledged: bool

    @property
    def wire_bytes(self) -> int:
        """Bytes clocked on the wires: the address byte, then the data (none after a NAKed address)."""
        return 1 + (self.length if self.acknowledged else 0)


@dataclass
class Bus:
    """The I2C bus behind the bridge: targets by address, and every message that crossed it."""

    targets: dict[int, Target] = field(default_factory=dict)
    messages: list[Message] = field(default_factory=list)
    wire_bytes: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, target: Target) -> None:
        self.targets[target.address] = target

    def write(self, address: int, data: bytes, begin: bool, end: bool) -> bool:
        """A write message: True when the address and every byte were acknowledged."""
        del begin  # a repeated start or a start: the same to the targets here (each begin() restarts them)
        target = self.targets.get(address)
        ok = target is not None and target.begin(read=False)
        taken = target.write(data) if ok and data and target is not None else 0
        if target is not None and (end or not ok):
            target.end()
        self._count(Message(time.monotonic(), address, False, taken + (taken < len(data)) if ok else 0, ok))
        return ok and taken == len(data)

    def read(self, address: int, count: int, end: bool) -> bytes | None:
        """A read message: the bytes, None when the address was not acknowledged."""
        target = self.targets.get(address)
        ok = target is not None and target.begin(read=True)
        data = target.read(count) if ok and target is not None else None
        if target is not None and (end or not ok):
            target.end()
        self._count(Message(time.monotonic(), address, True, count if ok else 0, ok))
        return data

    def _count(self, message: Message) -> None:
        with self.lock:
            self.messages.append(message)
            self.wire_bytes += message.wire_bytes


class TinyUsb(Device):
    """The bridge: the firmware's descriptors and its vendor requests, on the :class:`Bus` given."""

    def __init__(self, bus: Bus, *, serial: str | None = None) -> None:
        strings = {1: "Till Harbaum", 2: "i2c-tiny-usb"}
        if serial:
            strings[3] = serial
        super().__init__(
            descriptor=device_descriptor(VENDOR, PRODUCT, device=0x0105, usb=0x0110, device_class=0xFF, max_packet0=8,
                                         manufacturer=1, product_string=2, serial=3 if serial else 0),
            configuration=configuration_descriptor([interface_descriptor(0, interface_class=0)], max_power_ma=10),
            strings=strings, speed=SPEED_LOW)
        self.bus = bus
        self.status = STATUS_IDLE
        self.delay_us = 10
        self.transfers = 0  # I2C messages asked for, one control transfer each
        self.largest_write = 0

    def control(self, setup: Setup, data: bytes) -> bytes:
        if setup.kind != 0x40:  # the firmware answers vendor requests only
            raise Stall("not a vendor request")
        command = setup.request
        if command == CMD_ECHO:
            return struct.pack("<H", setup.value)
        if command == CMD_GET_FUNC:
            return struct.pack("<I", FUNCTIONALITY)
        if command == CMD_SET_DELAY:
            self.delay_us = setup.value or 1
            return b""
        if command == CMD_GET_STATUS:
            return bytes([self.status])
        if command & ~(CMD_I2C_IO_BEGIN | CMD_I2C_IO_END) == CMD_I2C_IO:
            return self._i2c_io(setup, data)
        raise Stall(f"unknown command {command}")

    def _i2c_io(self, setup: Setup, data: bytes) -> bytes:
        begin, end = bool(setup.request & CMD_I2C_IO_BEGIN), bool(setup.request & CMD_I2C_IO_END)
        address = setup.index & 0x7F
        self.transfers += 1
        if setup.value & I2C_M_RD:
            got = self.bus.read(address, setup.length, end)
            self.status = STATUS_ADDRESS_NAK if got is None else STATUS_ADDRESS_ACK
            return got if got is not None else bytes(setup.length)  # the firmware sends zeros then
        self.largest_write = max(self.largest_write, len(data))
        ok = self.bus.write(address, data, begin, end)
        self.status = STATUS_ADDRESS_ACK if ok else STATUS_ADDRESS_NAK
        return b""
