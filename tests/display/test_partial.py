"""The partial panel drivers leave the controller's RAM exactly as a whole frame would, for fewer bytes.

The bus under luma's real ``i2c`` interface models the controller: it follows the addressing
commands (ssd1306 COLUMNADDR/PAGEADDR in horizontal mode; sh1106 page and column commands)
and writes data bytes where the controller would. luma's stock driver, which always sends the
whole frame, fills a second model; after every frame both RAMs must match the picture.
"""

from __future__ import annotations

from luma.core.interface.serial import i2c
from luma.oled import device as stock

from bench.panel import CountingBus
from bornes.drivers.display.partial import page_bytes, sh1106, ssd1306
from bornes.firmware.screens import render
from bornes.firmware.screens.samples import sample_screens


class Ssd1306Ram(CountingBus):
    """An ssd1306 in horizontal addressing mode, as far as writes go."""

    def __init__(self) -> None:
        super().__init__()
        self.ram = bytearray(128 * 8)
        self.columns = (0, 127)
        self.pages = (0, 7)
        self.at = [0, 0]

    def write_i2c_block_data(self, address: int, register: int, data: list[int]) -> None:
        super().write_i2c_block_data(address, register, data)
        if register == 0x00:
            todo = list(data)
            while todo:
                command = todo.pop(0)
                if command == 0x21:
                    self.columns = (todo.pop(0), todo.pop(0))
                elif command == 0x22:
                    self.pages = (todo.pop(0), todo.pop(0))
                self.at = [self.columns[0], self.pages[0]]
            return
        for byte in data:
            column, page = self.at
            self.ram[page * 128 + column] = byte
            column += 1
            if column > self.columns[1]:
                column, page = self.columns[0], page + 1 if page < self.pages[1] else self.pages[0]
            self.at = [column, page]


class Sh1106Ram(CountingBus):
    """An sh1106 (132 columns, page addressing), as far as writes go."""

    def __init__(self) -> None:
        super().__init__()
        self.ram = bytearray(132 * 8)
        self.page = 0
        self.column = 0

    def write_i2c_block_data(self, address: int, register: int, data: list[int]) -> None:
        super().write_i2c_block_data(address, register, data)
        if register == 0x00:
            for command in data:
                if 0xB0 <= command <= 0xB7:
                    self.page = command - 0xB0
                elif command <= 0x0F:
                    self.column = (self.column & 0xF0) | command
                elif 0x10 <= command <= 0x1F:
                    self.column = (self.column & 0x0F) | ((command & 0x0F) << 4)
            return
        for byte in data:
            self.ram[self.page * 132 + self.column] = byte
            self.column += 1

    def visible(self) -> bytes:
        return b"".join(bytes(self.ram[p * 132 + 2:p * 132 + 130]) for p in range(8))


def _frames() -> list:  # type: ignore[type-arg]
    screens = list(sample_screens().values())
    return [render(view) for view in screens + screens[::-1]]


def test_ssd1306_partial_updates_match_whole_frames_for_fewer_bytes() -> None:
    bus, reference = Ssd1306Ram(), Ssd1306Ram()
    device = ssd1306(i2c(bus=bus), width=128, height=64)
    whole = stock.ssd1306(i2c(bus=reference), width=128, height=64)
    bus.take()
    reference.take()
    sent = full = 0
    for frame in _frames():
        device.display(frame)
        whole.display(frame)
        assert bus.ram == reference.ram == page_bytes(frame)
        sent += bus.take()
        full += reference.take()
    assert sent < full * 0.9
    device.display(frame)
    assert bus.take() == 0  # nothing changed, nothing sent


def test_sh1106_partial_updates_match_the_picture() -> None:
    bus = Sh1106Ram()
    device = sh1106(i2c(bus=bus), width=128, height=64)
    bus.take()
    for frame in _frames():
        device.display(frame)
        assert bus.visible() == page_bytes(frame)
    assert bus.take() > 0


def test_page_bytes_is_the_controller_layout() -> None:
    from PIL import Image

    image = Image.new("1", (128, 64))
    image.putpixel((5, 0), 1)
    image.putpixel((5, 9), 1)
    image.putpixel((127, 63), 1)
    data = page_bytes(image)
    assert data[5] == 0x01 and data[128 + 5] == 0x02 and data[7 * 128 + 127] == 0x80
    assert sum(bin(b).count("1") for b in data) == 3
