"""The SSD1306 and the SH1106 on an I2C bus: the bytes a driver sends in, the picture the panel shows out.

Each model is an I2C target (``i2c_tiny_usb.Target``) that decodes what a write carries the way
the controller does, into the controller's display RAM and registers, and renders the 128×64
picture a viewer of the module sees from them. Written from the datasheets:

* Solomon Systech, *SSD1306 Advance Information*, Rev 1.1 (2008): the I2C write format (8.1.5:
  the slave address ``0111 10 SA0`` (0x3C or 0x3D), then a control byte, ``Co`` bit 7 and
  ``D/C#`` bit 6: with ``Co`` 0 every byte after it is data (``D/C#`` 1, to the RAM) or commands
  (``D/C#`` 0); with ``Co`` 1 one byte, then another control byte), the command table (section 9
  and 10.1: the 1-, 2-, 3-, 6- and 7-byte commands and their argument bits) and the RAM
  (section 8.7: 8 pages of 8 rows, one byte a column, bit 0 on top; horizontal, vertical and page
  addressing: 10.1.3 to 10.1.5 and figures 10-2 to 10-5). Reset values: page addressing, display
  off, charge pump off, start line and offset 0, multiplex 64, contrast 0x7F, no remapping.
* Sino Wealth, *SH1106 132 X 64 Dot Matrix OLED/PLED Segment/Common Driver with Controller*,
  V2.3: the same I2C control byte; 132 columns of RAM; page addressing only (the page is never
  incremented by a write, the column is: past column 131 nothing more is written, a case the
  datasheet leaves open); its own command set (``ADh`` DC-DC, on at reset; ``30h``–``33h`` pump
  voltage; ``E0h``/``EEh`` read-modify-write, where ``EEh`` puts the column back where ``E0h``
  found it). A byte that is no command of the SH1106 (luma.oled's sh1106 init sends the
  SSD1306's ``20h`` and ``8Dh 14h``) is ignored and counted in ``unknown``; the byte after it is
  a command of its own (``14h``: column high nibble 4).

How the module is built (not the controller, the glass and its flex): the common 0.96-inch
SSD1306 modules and 1.3-inch SH1106 ones are mounted so that a controller set to segment remap
(``A1h``) and reversed COM scan (``C8h``), the init every driver sends, shows RAM column 0, page
0, bit 0 at the top left. The SSD1306's glass is wired to SEG0–127 and the 128×64 module's COM
pins to the alternative configuration (``DAh 12h``); the SH1106's 128-pixel glass is wired to
SEG2–SEG129, the middle of its 132 columns: that is the 2-column offset every SH1106 driver
adds (luma.oled's ``page_address_offset=2``), and a driver that treats it as an SSD1306 draws
two columns off (luma.oled #376). Contrast is kept as a register (a 1-bit picture has no
brightness); scrolling and ``DAh`` values other than the module's are reported in ``state()``,
not drawn. The RAM's content at power-up is undefined (the datasheets say so): here it is a
fixed noise, so a driver that does not write every byte of the frame after a power-up shows it.

A model can be told to stop acknowledging mid-write (``nak_after``: the bytes of one write it
takes before it NAKs the next), as a panel on a loose ground does (luma.oled #373: i2cdetect sees
it, a whole frame fails).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, ClassVar

GLASS_WIDTH, GLASS_HEIGHT, PAGES = 128, 64, 8
ADDRESSES = (0x3C, 0x3D)
HORIZONTAL, VERTICAL, PAGE = 0, 1, 2


def power_on_noise(size: int, seed: int = 0x1306) -> bytearray:
    """A fixed pseudo-random fill (xorshift32): what the RAM holds before anyone wrote it."""
    state, out = seed or 1, bytearray(size)
    for index in range(size):
        state ^= (state << 13) & 0xFFFFFFFF
        state ^= state >> 17
        state ^= (state << 5) & 0xFFFFFFFF
        out[index] = state & 0xFF
    return out


@dataclass
class Controller:
    """What the two controllers share: the I2C side, the control byte, the picture from the registers."""

    address: int = 0x3C
    #: Bytes of one write the panel acknowledges before it NAKs the next (None: all of them).
    nak_after: int | None = None
    ram_width: int = 128
    kind: str = "controller"
    ram: bytearray = field(default_factory=bytearray)
    # The control byte's state within one write (8.1.5.1).
    _control_next: bool = True
    _data: bool = False
    _single: bool = False
    _taken: int = 0
    # The command decoder: an opcode waiting for its argument bytes.
    _opcode: int | None = None
    _arguments: list[int] = field(default_factory=list)
    # Registers, at their reset values.
    display_on: bool = False
    contrast: int = 0x7F
    inverse: bool = False
    entire_on: bool = False
    segment_remap: bool = False
    com_remap: bool = False
    start_line: int = 0
    offset: int = 0
    multiplex: int = 64
    com_pins: int = 0x12
    page: int = 0
    column: int = 0
    # Counts.
    received: int = 0  # every byte after the address, control bytes too
    data_bytes: int = 0
    commands: int = 0
    unknown: list[int] = field(default_factory=list)
    writes: int = 0
    #: The bytes of the write under way, and a digest of the last whole one: what arrived, to compare with what left.
    _write: bytearray = field(default_factory=bytearray)
    last_write: str = ""
    last_write_length: int = 0

    def __post_init__(self) -> None:
        if not self.ram:
            self.ram = power_on_noise(self.ram_width * PAGES, seed=0x1306 + self.address)

    # -- I2C ------------------------------------------------------------------------------------------

    def begin(self, read: bool) -> bool:
        """A start and this panel's address: it always acknowledges; a write starts with a control byte."""
        self._control_next, self._taken = True, 0
        self.writes += not read
        self._write = bytearray()
        return True

    def write(self, data: bytes) -> int:
        for index, byte in enumerate(data):
            if self.nak_after is not None and self._taken >= self.nak_after:
                return index  # not acknowledged: the master stops there
            self._taken += 1
            self.received += 1
            self._write.append(byte)
            if self._control_next:
                self._single, self._data = bool(byte & 0x80), bool(byte & 0x40)
                self._control_next = False
                continue
            if self._data:
                self.data_bytes += 1
                self._ram_write(byte)
            else:
                self._command_byte(byte)
            self._control_next = self._single
        return len(data)

    def read(self, count: int) -> bytes:
        """The status byte (bit 6: the display is off), as the controllers answer a read."""
        return bytes([0x00 if self.display_on else 0x40]) * count

    def end(self) -> None:
        self._control_next = True
        if self._write:
            self.last_write, self.last_write_length = hashlib.sha256(self._write).hexdigest(), len(self._write)
            self._write = bytearray()

    # -- commands ----------------------------------------------------------------------------------

    def _command_byte(self, byte: int) -> None:
        if self._opcode is not None:
            self._arguments.append(byte)
            if len(self._arguments) == self._argument_count(self._opcode):
                opcode, arguments = self._opcode, self._arguments
                self._opcode, self._arguments = None, []
                self._apply(opcode, arguments)
            return
        self.commands += 1
        if self._argument_count(byte):
            self._opcode = byte
        else:
            self._apply(byte, [])

    def _argument_count(self, opcode: int) -> int:
        raise NotImplementedError

    def _apply(self, opcode: int, arguments: list[int]) -> None:
        """The commands both controllers have (the SSD1306's numbering, which the SH1106 keeps)."""
        if 0x40 <= opcode <= 0x7F:
            self.start_line = opcode & 0x3F
        elif opcode == 0x81:
            self.contrast = arguments[0]
        elif opcode in (0xA0, 0xA1):
            self.segment_remap = opcode == 0xA1
        elif opcode in (0xA4, 0xA5):
            self.entire_on = opcode == 0xA5
        elif opcode in (0xA6, 0xA7):
            self.inverse = opcode == 0xA7
        elif opcode == 0xA8:
            self.multiplex = max(16, (arguments[0] & 0x3F) + 1)  # values under 15 are invalid: kept at 16
        elif opcode in (0xAE, 0xAF):
            self.display_on = opcode == 0xAF
        elif 0xC0 <= opcode <= 0xCF:
            self.com_remap = bool(opcode & 0x08)
        elif opcode == 0xD3:
            self.offset = arguments[0] & 0x3F
        elif opcode == 0xDA:
            self.com_pins = arguments[0]
        elif opcode in (0xD5, 0xD9, 0xDB, 0xE3):
            pass  # clock, precharge, VCOMH, NOP: nothing a picture shows
        else:
            self.unknown.append(opcode)

    def _ram_write(self, byte: int) -> None:
        raise NotImplementedError

    # -- the picture --------------------------------------------------------------------------------

    @property
    def powered(self) -> bool:
        """The panel's high voltage is there (the charge pump or DC-DC converter on)."""
        raise NotImplementedError

    def segment_of(self, x: int) -> int:
        """The SEG pin that drives the glass's column ``x``, counted from the viewer's left."""
        raise NotImplementedError

    def ram_row_of(self, y: int) -> int | None:
        """The RAM row the glass's row ``y`` shows, None when no COM scan reaches it (under the multiplex).

        The module wires row y to COM(63 - y); the row counter r drives COM (r + offset) in normal
        scan, COM (multiplex - 1 - r - offset) reversed; row counter r shows RAM row start_line + r."""
        com = GLASS_HEIGHT - 1 - y
        scanned = (self.multiplex - 1 - com) % 64 if self.com_remap else com
        counter = (scanned - self.offset) % 64
        if counter >= self.multiplex:
            return None
        return (self.start_line + counter) % 64

    def ram_column_of(self, x: int) -> int:
        """The RAM column the glass's column ``x`` shows: SEG s shows column s, or the mirror under ``A1h``."""
        segment = self.segment_of(x)
        return self.ram_width - 1 - segment if self.segment_remap else segment

    def picture(self) -> bytes:
        """What the glass shows: 128×64, one bit a pixel, rows of 16 bytes, the leftmost pixel in bit 7
        (PIL's mode "1" raw layout). Dark everywhere while the display is off or unpowered; a row no
        COM scan reaches is dark; ``A5h`` lights every scanned pixel whatever the RAM holds."""
        out = bytearray(GLASS_WIDTH // 8 * GLASS_HEIGHT)
        if not (self.display_on and self.powered):
            return bytes(out)
        columns = [self.ram_column_of(x) for x in range(GLASS_WIDTH)]
        for y in range(GLASS_HEIGHT):
            row = self.ram_row_of(y)
            if row is None:
                continue
            base, mask = (row // 8) * self.ram_width, 1 << (row % 8)
            for x, column in enumerate(columns):
                if self.entire_on or bool(self.ram[base + column] & mask) != self.inverse:
                    out[y * 16 + x // 8] |= 0x80 >> (x % 8)
        return bytes(out)

    def state(self) -> dict[str, Any]:
        """The registers and counts, for a test to read."""
        return {"kind": self.kind, "address": self.address, "display_on": self.display_on, "powered": self.powered,
                "contrast": self.contrast, "inverse": self.inverse, "entire_on": self.entire_on,
                "segment_remap": self.segment_remap, "com_remap": self.com_remap, "start_line": self.start_line,
                "offset": self.offset, "multiplex": self.multiplex, "com_pins": self.com_pins, "page": self.page,
                "column": self.column, "received": self.received, "data_bytes": self.data_bytes,
                "commands": self.commands, "unknown": self.unknown[-16:], "writes": self.writes,
                "nak_after": self.nak_after, "last_write": self.last_write,
                "last_write_length": self.last_write_length}


@dataclass
class Ssd1306(Controller):
    """Solomon Systech SSD1306: 128×64 RAM, horizontal, vertical or page addressing, charge pump ``8Dh``."""

    kind: str = "ssd1306"
    ram_width: int = 128
    addressing: int = PAGE
    columns: tuple[int, int] = (0, 127)
    pages: tuple[int, int] = (0, 7)
    charge_pump: bool = False
    scrolling: bool = False

    #: Argument bytes of the SSD1306's multi-byte commands (section 9).
    ARGUMENTS: ClassVar[dict[int, int]] = {
        0x20: 1, 0x21: 2, 0x22: 2, 0x23: 1, 0x26: 6, 0x27: 6, 0x29: 5, 0x2A: 5, 0x81: 1, 0x8D: 1, 0xA3: 2, 0xA8: 1,
        0xD3: 1, 0xD5: 1, 0xD6: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1}

    def _argument_count(self, opcode: int) -> int:
        return self.ARGUMENTS.get(opcode, 0)

    def _apply(self, opcode: int, arguments: list[int]) -> None:
        if opcode <= 0x0F:
            if self.addressing == PAGE:  # "only for page addressing mode" (10.1.1)
                self.column = (self.column & 0xF0) | opcode
        elif opcode <= 0x1F:
            if self.addressing == PAGE:
                self.column = ((opcode & 0x07) << 4) | (self.column & 0x0F)
        elif opcode == 0x20:
            mode = arguments[0] & 0x03
            if mode != 0x03:  # 11b is invalid
                self.addressing = mode
        elif opcode == 0x21:
            self.columns = (arguments[0] & 0x7F, arguments[1] & 0x7F)
            self.column = self.columns[0]
        elif opcode == 0x22:
            self.pages = (arguments[0] & 0x07, arguments[1] & 0x07)
            self.page = self.pages[0]
        elif 0xB0 <= opcode <= 0xB7:
            if self.addressing == PAGE:
                self.page = opcode & 0x07
        elif opcode == 0x8D:
            self.charge_pump = bool(arguments[0] & 0x04)
        elif opcode in (0x26, 0x27, 0x29, 0x2A, 0xA3, 0x23, 0xD6):
            pass  # scroll set-up, fade, zoom: set-up only
        elif opcode in (0x2E, 0x2F):
            self.scrolling = opcode == 0x2F
        else:
            super()._apply(opcode, arguments)

    def _ram_write(self, byte: int) -> None:
        self.ram[self.page * 128 + self.column] = byte
        first_column, last_column = self.columns
        first_page, last_page = self.pages
        if self.addressing == HORIZONTAL:
            self.column += 1
            if self.column > last_column:
                self.column = first_column
                self.page = first_page if self.page >= last_page else self.page + 1
        elif self.addressing == VERTICAL:
            self.page += 1
            if self.page > last_page:
                self.page = first_page
                self.column = first_column if self.column >= last_column else self.column + 1
        else:  # page addressing: the column wraps within the page, the page stays (10.1.3)
            self.column = 0 if self.column >= 127 else self.column + 1

    @property
    def powered(self) -> bool:
        return self.charge_pump

    def segment_of(self, x: int) -> int:
        return 127 - x

    def state(self) -> dict[str, Any]:
        return {**super().state(), "addressing": ("horizontal", "vertical", "page")[self.addressing],
                "columns": list(self.columns), "pages": list(self.pages), "charge_pump": self.charge_pump,
                "scrolling": self.scrolling}


@dataclass
class Sh1106(Controller):
    """Sino Wealth SH1106: 132×64 RAM, page addressing only, DC-DC converter ``ADh`` (on at reset)."""

    kind: str = "sh1106"
    ram_width: int = 132
    dc_dc: bool = True
    pump_voltage: int = 2
    _saved_column: int | None = None

    ARGUMENTS: ClassVar[dict[int, int]] = {0x81: 1, 0xA8: 1, 0xAD: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1}

    def _argument_count(self, opcode: int) -> int:
        return self.ARGUMENTS.get(opcode, 0)

    def _apply(self, opcode: int, arguments: list[int]) -> None:
        if opcode <= 0x0F:
            self.column = (self.column & 0xF0) | opcode
        elif opcode <= 0x1F:
            self.column = ((opcode & 0x0F) << 4) | (self.column & 0x0F)
        elif 0x30 <= opcode <= 0x33:
            self.pump_voltage = opcode & 0x03
        elif 0xB0 <= opcode <= 0xB7:
            self.page = opcode & 0x07
        elif opcode == 0xAD:
            self.dc_dc = bool(arguments[0] & 0x01)  # 8Bh on, 8Ah off
        elif opcode == 0xE0:
            self._saved_column = self.column
        elif opcode == 0xEE:
            if self._saved_column is not None:
                self.column, self._saved_column = self._saved_column, None
        elif 0x20 <= opcode <= 0x2F or opcode in (0x8D,) or 0x34 <= opcode <= 0x3F:
            self.unknown.append(opcode)  # not an SH1106 command (the SSD1306's 20h, 8Dh…)
        else:
            super()._apply(opcode, arguments)

    def _ram_write(self, byte: int) -> None:
        if self.column < self.ram_width:
            self.ram[self.page * self.ram_width + self.column] = byte
            self.column += 1  # the page never follows: a driver sets each page itself

    @property
    def powered(self) -> bool:
        return self.dc_dc

    def segment_of(self, x: int) -> int:
        return 129 - x  # the 128-pixel glass on SEG2..SEG129

    def state(self) -> dict[str, Any]:
        return {**super().state(), "dc_dc": self.dc_dc, "read_modify_write": self._saved_column is not None}


MODELS: dict[str, type[Controller]] = {"ssd1306": Ssd1306, "sh1106": Sh1106}


def panel(kind: str, address: int = 0x3C, nak_after: int | None = None) -> Controller:
    """A powered-up panel of ``kind`` (ssd1306, sh1106) at ``address``."""
    return MODELS[kind](address=address, nak_after=nak_after)
