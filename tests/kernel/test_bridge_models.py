"""The I2C bridge's parts on the host, without a VM: the panel models under luma.oled's real drivers, the
i2c-tiny-usb's requests, the USB/IP framing. tests/kernel/test_wired_table.py puts them under a real kernel.

The fast tier's share of the kernel tier: what the models decode is checked against the product's
renderer (the approved screens of tests/golden) through luma's own ``i2c`` interface.
"""

from __future__ import annotations

import errno
import socket
import struct
from typing import Any

import pytest
from luma.core.interface.serial import i2c
from luma.oled import device as stock
from PIL import Image, ImageChops

from bornes.drivers.display.partial import PARTIAL
from bornes.firmware.screens import render
from bornes.firmware.screens.samples import sample_screens
from tools.kernel.guest.i2c_tiny_usb import (
    CMD_GET_FUNC,
    CMD_GET_STATUS,
    CMD_I2C_IO,
    CMD_I2C_IO_BEGIN,
    CMD_I2C_IO_END,
    STATUS_ADDRESS_ACK,
    STATUS_ADDRESS_NAK,
    Bus,
    TinyUsb,
)
from tools.kernel.guest.oled import Controller, Sh1106, Ssd1306, panel
from tools.kernel.guest.usbip import BASIC, RET_SUBMIT, SUBMIT, USBIP_CMD_SUBMIT, Link, Setup

SIZE = (128, 64)


class Wires:
    """luma's ``i2c`` interface over the model: each block write is one I2C write (start, address, bytes, stop)."""

    def __init__(self, *targets: Controller) -> None:
        self.bus = Bus()
        for target in targets:
            self.bus.add(target)

    def write_i2c_block_data(self, address: int, register: int, data: list[int]) -> None:
        if not self.bus.write(address, bytes([register, *data]), begin=True, end=True):
            raise OSError(errno.ENXIO, "No such device or address")


def picture(model: Controller) -> Image.Image:
    return Image.frombytes("1", SIZE, model.picture())


def differs(a: Image.Image, b: Image.Image) -> bool:
    return ImageChops.difference(a.convert("1"), b.convert("1")).getbbox() is not None


def screens() -> list[Image.Image]:
    return [render(view, SIZE).convert("1") for view in list(sample_screens().values())[:16]]


@pytest.mark.parametrize("kind", ["ssd1306", "sh1106"])
@pytest.mark.parametrize("driver", ["stock", "partial"])
def test_the_model_shows_what_lumas_drivers_draw(kind: str, driver: str) -> None:
    """luma.oled's own driver (whole frames) and the referee's partial one, each frame decoded by the model
    into RAM and registers: the glass shows the rendered screen, pixel for pixel."""
    model = panel(kind)
    maker = getattr(stock, kind) if driver == "stock" else PARTIAL[kind]
    device = maker(i2c(bus=Wires(model)), width=128, height=64)
    assert model.display_on and model.powered and model.contrast == (0xCF if kind == "ssd1306" else 0x7F)
    for frame in screens():
        device.display(frame)
        assert not differs(picture(model), frame)
    if kind == "sh1106":  # luma's sh1106 init sends two SSD1306 commands the SH1106 does not have
        assert model.unknown == [0x20, 0x8D]


def test_an_sh1106_without_its_column_offset_is_two_columns_off() -> None:
    """The SH1106's 128-pixel glass sits on RAM columns 2–129 of 132: a driver that writes from column 0
    (luma's sh1106 with ``page_address_offset=0``, or one written for an SSD1306's page mode) draws the
    picture two columns off, with two columns of whatever the RAM held at the right (luma.oled #376)."""
    model = Sh1106()
    device = stock.sh1106(i2c(bus=Wires(model)), width=128, height=64, page_address_offset=0)
    frame = screens()[3]
    device.display(frame)
    shown = picture(model)
    assert differs(shown, frame)
    assert not differs(shown.crop((0, 0, 126, 64)), frame.crop((2, 0, 128, 64)))  # the same picture, 2 columns off


def test_the_registers_change_the_picture_as_the_datasheets_say() -> None:
    model = Ssd1306()
    device = stock.ssd1306(i2c(bus=Wires(model)), width=128, height=64)
    frame = screens()[5]
    device.display(frame)
    device.command(0xA7)  # inverse
    assert not differs(picture(model), Image.eval(frame.convert("L"), lambda v: 255 - v).convert("1"))
    device.command(0xA6, 0xA5)  # normal, entire display on: every pixel lit whatever the RAM holds
    assert picture(model).getbbox() == (0, 0, 128, 64) and min(picture(model).getdata()) == 255
    device.command(0xA4, 0xA0)  # segment remap off: the module shows the frame mirrored left to right
    assert not differs(picture(model), frame.transpose(Image.Transpose.FLIP_LEFT_RIGHT))
    device.command(0xA1, 0xC0)  # COM scan forward: upside down
    assert not differs(picture(model), frame.transpose(Image.Transpose.FLIP_TOP_BOTTOM))
    device.command(0xC8, 0x81, 0x10)
    assert model.contrast == 0x10 and not differs(picture(model), frame)
    device.command(0xAE)  # display off: dark
    assert picture(model).getbbox() is None
    device.command(0xAF, 0x8D, 0x10)  # the charge pump off: no high voltage, dark too
    assert picture(model).getbbox() is None and model.display_on


def test_the_ssd1306_addressing_modes_wrap_as_figures_10_2_to_10_5() -> None:
    model = Ssd1306()
    wires = Wires(model)
    wires.write_i2c_block_data(0x3C, 0x00, [0x20, 0x00, 0x21, 10, 11, 0x22, 2, 3])  # horizontal, 2 columns × 2 pages
    wires.write_i2c_block_data(0x3C, 0x40, [1, 2, 3, 4, 5])
    # Across the window, page by page; the fifth byte wraps to the window's start and overwrites the first.
    assert bytes(model.ram[2 * 128 + 10:2 * 128 + 12]) == bytes([5, 2])
    assert bytes(model.ram[3 * 128 + 10:3 * 128 + 12]) == bytes([3, 4])
    wires.write_i2c_block_data(0x3C, 0x00, [0x20, 0x01, 0x21, 0, 1, 0x22, 0, 1])  # vertical: down first
    wires.write_i2c_block_data(0x3C, 0x40, [7, 8, 9])
    assert (model.ram[0], model.ram[128], model.ram[1]) == (7, 8, 9)
    wires.write_i2c_block_data(0x3C, 0x00, [0x20, 0x02, 0xB5, 0x0E, 0x17])  # page mode: page 5, column 126
    wires.write_i2c_block_data(0x3C, 0x40, [1, 2, 3])
    assert (model.ram[5 * 128 + 126], model.ram[5 * 128 + 127], model.ram[5 * 128]) == (1, 2, 3)  # wraps in the page


def test_the_control_byte_with_co_set_takes_one_byte_then_another_control_byte() -> None:
    model = Ssd1306()
    Wires(model).write_i2c_block_data(0x3C, 0x80, [0xAF, 0xC0, 0x55])  # Co=1 command AFh; then Co=1 D/C=1: data 55h
    assert model.display_on and model.commands == 1 and model.data_bytes == 1 and model.ram[0] == 0x55


def test_a_panel_that_naks_mid_write() -> None:
    model = Ssd1306(nak_after=100)
    bus = Bus()
    bus.add(model)
    assert bus.write(0x3C, bytes([0x00, 0xAF]), begin=True, end=True)  # short writes go through
    assert not bus.write(0x3C, bytes([0x40]) + bytes(1024), begin=True, end=True)
    assert model.received == 2 + 100 and bus.messages[-1].wire_bytes == 1 + 101  # the NAKed byte was clocked too
    assert not bus.write(0x3D, b"\x00", begin=True, end=True) and bus.messages[-1].wire_bytes == 1


def test_the_bridge_answers_the_drivers_requests() -> None:
    """i2c-tiny-usb.c's side of the conversation: functionality, one message per I2C_IO request, its status."""
    model = Ssd1306()
    bus = Bus()
    bus.add(model)
    bridge = TinyUsb(bus)
    functionality = struct.unpack("<I", bridge.control(Setup(0xC1, CMD_GET_FUNC, 0, 0, 4), b""))[0]
    assert functionality & 0x1 and functionality & 0x08000000 and functionality & 0x00010000  # I2C, I2C block, quick
    frame = bytes([0x40]) + bytes(range(256)) * 4
    io = CMD_I2C_IO | CMD_I2C_IO_BEGIN | CMD_I2C_IO_END
    assert bridge.control(Setup(0x41, io, 0, 0x3C, len(frame)), frame) == b""
    assert bridge.control(Setup(0xC1, CMD_GET_STATUS, 0, 0, 1), b"") == bytes([STATUS_ADDRESS_ACK])
    assert bridge.largest_write == 1025 and model.last_write_length == 1025
    bridge.control(Setup(0x41, io, 0, 0x3D, 2), b"\x00\xaf")
    assert bridge.control(Setup(0xC1, CMD_GET_STATUS, 0, 0, 1), b"") == bytes([STATUS_ADDRESS_NAK])  # -ENXIO
    assert bridge.control(Setup(0xC1, io, 1, 0x3C, 1), b"") == b"\x40"  # a read: the status byte (display off)


def test_usbip_submit_and_return_framing() -> None:
    """Usbip_protocol.rst's CMD_SUBMIT in, RET_SUBMIT out: a descriptor read and an OUT transfer whose reply
    gives back the length sent (the driver reads a short write otherwise)."""
    ours, theirs = socket.socketpair()
    bridge = TinyUsb(Bus())
    link = Link(bridge, 0, ours)
    link.thread.start()

    def submit(seqnum: int, setup: bytes, direction: int, length: int, data: bytes = b"") -> tuple[Any, ...]:
        theirs.sendall(BASIC.pack(USBIP_CMD_SUBMIT, seqnum, 0x10002, direction, 0)
                       + SUBMIT.pack(0, length, 0, 0, 0, setup) + data)
        header = b""
        while len(header) < 48:
            header += theirs.recv(48 - len(header))
        status, actual = RET_SUBMIT.unpack_from(header, BASIC.size)[:2]
        body = b""
        while len(body) < (actual if direction else 0):
            body += theirs.recv(actual - len(body))
        return BASIC.unpack_from(header)[1], status, actual, body

    seq, status, actual, body = submit(7, struct.pack("<BBHHH", 0x80, 6, 0x0100, 0, 64), 1, 64)
    assert (seq, status, actual) == (7, 0, 18) and body[8:12] == bytes.fromhex("0304 31c6")
    seq, status, actual, _ = submit(8, struct.pack("<BBHHH", 0x41, 7, 0, 0x3C, 3), 0, 3, b"\x00\xae\xaf")
    assert (seq, status, actual) == (8, 0, 3)
    seq, status, _, _ = submit(9, struct.pack("<BBHHH", 0xC0, 99, 0, 0, 1), 1, 1)
    assert (seq, status) == (9, -errno.EPIPE)  # a request it does not know: stalled
    theirs.close()
    link.thread.join(5)
    assert not link.alive
