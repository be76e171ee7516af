"""The pin map: ``wiring/pins.toml`` loaded, checked, and turned into the README's pin table.

Every driver takes its pins from here, so the file is the single source of truth. It is
checked at start: a pin used twice, a number that is not a GPIO on the 40-pin header, or a
button on a bus the display or reader needs, stops start-up with one clear line.

``python -m drivers.pins --markdown`` prints the pin table for wiring/README.md;
``python -m drivers.pins --check wiring/README.md`` says whether the README still agrees.
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from drivers.events import CONTROL_NAMES
from firmware.errors import EX_CONFIG, UserError

DEFAULT_PATH = Path(__file__).resolve().parent.parent / "wiring" / "pins.toml"

#: The Raspberry Pi 40-pin header: physical pin -> BCM GPIO number, or the power rail's name.
HEADER: dict[int, int | str] = {
    1: "3V3", 2: "5V", 3: 2, 4: "5V", 5: 3, 6: "GND", 7: 4, 8: 14, 9: "GND", 10: 15,
    11: 17, 12: 18, 13: 27, 14: "GND", 15: 22, 16: 23, 17: "3V3", 18: 24, 19: 10, 20: "GND",
    21: 9, 22: 25, 23: 11, 24: 8, 25: "GND", 26: 7, 27: 0, 28: 1, 29: 5, 30: "GND",
    31: 6, 32: 12, 33: 13, 34: "GND", 35: 19, 36: 16, 37: 26, 38: 20, 39: "GND", 40: 21,
}
#: BCM GPIO -> physical header pin.
HEADER_PIN: dict[int, int] = {gpio: pin for pin, gpio in HEADER.items() if isinstance(gpio, int)}
#: GPIO 0 and 1 carry the HAT identification EEPROM; nothing else may use them.
RESERVED = {0: "ID_SD (HAT EEPROM)", 1: "ID_SC (HAT EEPROM)"}

I2C_PINS = {2: "I2C SDA", 3: "I2C SCL"}
UART_PINS = {14: "UART TXD", 15: "UART RXD"}
SPI_BUS_PINS = {10: "SPI MOSI", 9: "SPI MISO", 11: "SPI SCLK"}
SPI_CE = {0: 8, 1: 7}

PANELS = ("ssd1306", "sh1106", "ssd1309", "ssd1322")
SEAT_NAMES = tuple(f"SEAT{n}" for n in range(1, 9))
BUTTON_NAMES = (*CONTROL_NAMES, *SEAT_NAMES)


class PinMapError(UserError):
    """The pin map is wrong; the message names the key and what to fix."""

    exit_code = EX_CONFIG


@dataclass(frozen=True, slots=True)
class ButtonPin:
    """One button: its name (as in ``ButtonPressed``), its GPIO and what holding it sends."""

    name: str
    pin: int
    long: str | None = None  # None: no long press; else the name a hold sends
    hold_time: float = 1.0


@dataclass(frozen=True, slots=True)
class DisplayPins:
    panel: str = "ssd1306"
    interface: str = "i2c"
    i2c_port: int = 1
    i2c_address: int = 0x3C
    i2c_bus_hz: int = 400_000
    spi_port: int = 0
    spi_device: int = 0
    spi_dc: int = 24
    spi_reset: int = 25


@dataclass(frozen=True, slots=True)
class ReaderPins:
    interface: str = "none"  # uart | usb | i2c | spi | none
    uart_tx: int = 14
    uart_rx: int = 15
    spi_device: int = 1


@dataclass(frozen=True, slots=True)
class BuzzerPin:
    pin: int
    tonal: bool = True
    active_high: bool = True


@dataclass(frozen=True, slots=True)
class LedPins:
    kind: str  # rgb | pair
    red: int
    green: int
    blue: int | None = None
    active_high: bool = True


@dataclass(frozen=True, slots=True)
class PinMap:
    """Everything wired to the Pi, checked."""

    display: DisplayPins
    reader: ReaderPins
    buttons: tuple[ButtonPin, ...]
    buzzer: BuzzerPin | None
    leds: LedPins | None
    debounce: float = 0.02

    def button(self, name: str) -> ButtonPin | None:
        return next((b for b in self.buttons if b.name == name), None)

    def uses(self) -> list[tuple[int, str, str]]:
        """Every GPIO in use as (gpio, part, signal), in header order."""
        found: list[tuple[int, str, str]] = []
        d = self.display
        if d.interface == "i2c":
            found += [(2, "OLED", "SDA"), (3, "OLED", "SCL")]
        else:
            found += [(10, "OLED", "MOSI (DIN)"), (11, "OLED", "SCLK"), (SPI_CE[d.spi_device], "OLED", "CS"),
                      (d.spi_dc, "OLED", "DC"), (d.spi_reset, "OLED", "RST")]
        r = self.reader
        if r.interface == "uart":
            found += [(r.uart_tx, "Reader", "RX (Pi TXD)"), (r.uart_rx, "Reader", "TX (Pi RXD)")]
        elif r.interface == "i2c":
            found += [(2, "Reader", "SDA (shared bus)"), (3, "Reader", "SCL (shared bus)")]
        elif r.interface == "spi":
            found += [(10, "Reader", "MOSI"), (9, "Reader", "MISO"), (11, "Reader", "SCK"),
                      (SPI_CE[r.spi_device], "Reader", "SS")]
        for b in self.buttons:
            found.append((b.pin, f"Button {b.name}", "to GND"))
        if self.buzzer is not None:
            found.append((self.buzzer.pin, "Buzzer", "+ (PWM)" if self.buzzer.tonal else "+"))
        if self.leds is not None:
            found.append((self.leds.red, "LED", "red"))
            found.append((self.leds.green, "LED", "green"))
            if self.leds.blue is not None:
                found.append((self.leds.blue, "LED", "blue"))
        return sorted(found, key=lambda use: (HEADER_PIN.get(use[0], 99), use[1]))


# --- loading ------------------------------------------------------------------------------


def _get(table: Mapping[str, Any], key: str, kind: type, default: Any, where: str) -> Any:
    value = table.get(key, default)
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if (isinstance(value, bool) and kind is not bool) or not isinstance(value, kind):
        raise PinMapError(f"pin map: {where}.{key} should be {kind.__name__}, not {value!r}")
    return value


def _gpio(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise PinMapError(f"pin map: {where} should be a BCM GPIO number, not {value!r}")
    if value in RESERVED:
        raise PinMapError(f"pin map: {where} is GPIO{value}, reserved for {RESERVED[value]}; use GPIO 2-27")
    if value not in HEADER_PIN:
        raise PinMapError(f"pin map: {where} is GPIO{value}, which is not on the 40-pin header; use GPIO 2-27")
    return value


def parse(data: Mapping[str, Any]) -> PinMap:
    """Build and check a pin map from parsed TOML; raises :class:`PinMapError` with one line."""
    known = {"display", "reader", "buttons", "buzzer", "leds", "debounce"}
    for key in data:
        if key not in known:
            raise PinMapError(f"pin map: unknown section [{key}] (known: {', '.join(sorted(known))})")

    raw_display = data.get("display", {})
    panel = _get(raw_display, "panel", str, "ssd1306", "display")
    if panel not in PANELS:
        raise PinMapError(f"pin map: display.panel {panel!r} is not one of {', '.join(PANELS)}")
    interface = _get(raw_display, "interface", str, "i2c", "display")
    if interface not in ("i2c", "spi"):
        raise PinMapError(f"pin map: display.interface must be i2c or spi, not {interface!r}")
    address = _get(raw_display, "i2c_address", int, 0x3C, "display")
    if not 0x03 <= address <= 0x77:
        raise PinMapError(f"pin map: display.i2c_address {address:#x} is not a 7-bit I2C address")
    spi_device = _get(raw_display, "spi_device", int, 0, "display")
    if spi_device not in SPI_CE:
        raise PinMapError("pin map: display.spi_device must be 0 (CE0) or 1 (CE1)")
    display = DisplayPins(
        panel=panel,
        interface=interface,
        i2c_port=_get(raw_display, "i2c_port", int, 1, "display"),
        i2c_address=address,
        i2c_bus_hz=_get(raw_display, "i2c_bus_hz", int, 400_000, "display"),
        spi_port=_get(raw_display, "spi_port", int, 0, "display"),
        spi_device=spi_device,
        spi_dc=_gpio(raw_display.get("spi_dc", 24), "display.spi_dc"),
        spi_reset=_gpio(raw_display.get("spi_reset", 25), "display.spi_reset"),
    )

    raw_reader = data.get("reader", {})
    reader_if = _get(raw_reader, "interface", str, "none", "reader")
    if reader_if not in ("uart", "usb", "i2c", "spi", "none"):
        raise PinMapError(f"pin map: reader.interface must be uart, usb, i2c, spi or none, not {reader_if!r}")
    reader = ReaderPins(
        interface=reader_if,
        uart_tx=_gpio(raw_reader.get("uart_tx", 14), "reader.uart_tx"),
        uart_rx=_gpio(raw_reader.get("uart_rx", 15), "reader.uart_rx"),
        spi_device=_get(raw_reader, "spi_device", int, 1, "reader"),
    )
    if reader_if == "uart" and (reader.uart_tx, reader.uart_rx) != (14, 15):
        raise PinMapError("pin map: the UART reader must use GPIO14 (TXD) and GPIO15 (RXD)")

    buttons: list[ButtonPin] = []
    raw_buttons = data.get("buttons", {})
    if not isinstance(raw_buttons, Mapping):
        raise PinMapError("pin map: [buttons] should hold one [buttons.NAME] section per button")
    for name, raw in raw_buttons.items():
        where = f"buttons.{name}"
        if name not in BUTTON_NAMES:
            raise PinMapError(f"pin map: [{where}] is not a button name ({', '.join(CONTROL_NAMES)}, SEAT1-SEAT8)")
        if not isinstance(raw, Mapping) or "pin" not in raw:
            raise PinMapError(f"pin map: [{where}] needs a pin")
        long = _get(raw, "long", str, "none", where)
        if long != "none" and long not in BUTTON_NAMES:
            raise PinMapError(f"pin map: {where}.long {long!r} is not none or a button name")
        hold = _get(raw, "hold_time", float, 1.0, where)
        if not 0.2 <= hold <= 10:
            raise PinMapError(f"pin map: {where}.hold_time {hold} should be between 0.2 and 10 seconds")
        buttons.append(ButtonPin(name, _gpio(raw["pin"], f"{where}.pin"), None if long == "none" else long, hold))

    buzzer = None
    if "buzzer" in data:
        raw_buzzer = data["buzzer"]
        buzzer = BuzzerPin(_gpio(raw_buzzer.get("pin"), "buzzer.pin"),
                           _get(raw_buzzer, "tonal", bool, True, "buzzer"),
                           _get(raw_buzzer, "active_high", bool, True, "buzzer"))

    leds = None
    raw_leds = data.get("leds", {"kind": "none"})
    kind = _get(raw_leds, "kind", str, "none", "leds")
    if kind not in ("rgb", "pair", "none"):
        raise PinMapError(f"pin map: leds.kind must be rgb, pair or none, not {kind!r}")
    if kind != "none":
        leds = LedPins(kind, _gpio(raw_leds.get("red"), "leds.red"), _gpio(raw_leds.get("green"), "leds.green"),
                       _gpio(raw_leds.get("blue"), "leds.blue") if kind == "rgb" else None,
                       _get(raw_leds, "active_high", bool, True, "leds"))

    debounce = _get(data.get("debounce", {}), "seconds", float, 0.02, "debounce")
    if not 0.001 <= debounce <= 0.2:
        raise PinMapError(f"pin map: debounce.seconds {debounce} should be between 0.001 and 0.2")

    pin_map = PinMap(display, reader, tuple(buttons), buzzer, leds, debounce)
    _check_conflicts(pin_map)
    return pin_map


def _check_conflicts(pin_map: PinMap) -> None:
    # A button or LED on a bus pin gets a message that names the bus.
    bus: dict[int, str] = {}
    if pin_map.display.interface == "i2c" or pin_map.reader.interface == "i2c":
        bus.update({pin: f"{signal}, used by the {'display' if pin_map.display.interface == 'i2c' else 'reader'}"
                    for pin, signal in I2C_PINS.items()})
    if pin_map.reader.interface == "uart":
        bus.update({pin: f"{signal}, used by the reader" for pin, signal in UART_PINS.items()})
    if pin_map.display.interface == "spi" or pin_map.reader.interface == "spi":
        bus.update({pin: f"{signal}, used by SPI" for pin, signal in SPI_BUS_PINS.items()})
    for b in pin_map.buttons:
        if b.pin in bus:
            raise PinMapError(f"pin map: button {b.name} is on GPIO{b.pin}, which is {bus[b.pin]}; move the button")
    if pin_map.display.interface == "spi" and pin_map.reader.interface == "spi" \
            and pin_map.display.spi_device == pin_map.reader.spi_device:
        raise PinMapError("pin map: the display and the reader use the same SPI chip select; "
                          "give them different devices")

    seen: dict[int, str] = {}
    shared_ok = {(2, "OLED", "Reader"), (3, "OLED", "Reader"), (9, "OLED", "Reader"), (10, "OLED", "Reader"),
                 (11, "OLED", "Reader")}
    owners: dict[int, str] = {}
    for gpio, part, signal in pin_map.uses():
        label = f"{part} {signal}".strip()
        if gpio in seen:
            if (gpio, owners[gpio], part) in shared_ok:
                continue
            raise PinMapError(f"pin map: GPIO{gpio} is used twice: {seen[gpio]} and {label}")
        seen[gpio] = label
        owners[gpio] = part


def load(path: str | Path | None = None) -> PinMap:
    """Read and check a pin map file (default ``wiring/pins.toml``)."""
    from firmware.files import MIB, UnreadableFile, read_text_bounded

    path = Path(path) if path is not None else DEFAULT_PATH
    try:
        data = tomllib.loads(read_text_bounded(path, MIB))
        return parse(data)
    except FileNotFoundError:
        raise PinMapError(f"pin map: {path} not found") from None
    except UnreadableFile as error:  # a directory, FIFO, device, loop, too big, not UTF-8: never opened blind
        raise PinMapError(f"pin map: {path} {error}") from None
    except tomllib.TOMLDecodeError as error:
        raise PinMapError(f"pin map: {path} is not valid TOML: {error}") from None
    except RecursionError:
        raise PinMapError(f"pin map: {path} is nested too deeply") from None


# --- pin factory --------------------------------------------------------------------------


def _quiet_mock_pin() -> Any:
    """gpiozero's MockPWMPin keeps every state change in ``pin.states`` (for tests' assertions), so
    a daemon left running on mock pins grew by every buzz and blink; this twin keeps only the
    current state and is otherwise the same pin."""
    from gpiozero.pins.mock import MockPWMPin

    class QuietMockPWMPin(MockPWMPin):  # type: ignore[misc]
        def _change_state(self, value: Any) -> bool:
            changed = bool(super()._change_state(value))
            del self.states[:-1]
            return changed

    return QuietMockPWMPin


def make_pin_factory(name: str | None) -> Any:
    """The gpiozero pin factory named in config: ``mock`` for the desktop, None/"default" for gpiozero's pick."""
    if name in (None, "", "default"):
        return None
    if name == "mock":
        from gpiozero.pins.mock import MockFactory

        return MockFactory(pin_class=_quiet_mock_pin())
    factories = {
        "lgpio": ("gpiozero.pins.lgpio", "LGPIOFactory"),
        "rpigpio": ("gpiozero.pins.rpigpio", "RPiGPIOFactory"),
        "pigpio": ("gpiozero.pins.pigpio", "PiGPIOFactory"),
        "native": ("gpiozero.pins.native", "NativeFactory"),
    }
    if name not in factories:
        raise UserError(f"unknown pin factory {name!r} (mock, default, {', '.join(factories)})", EX_CONFIG)
    module_name, class_name = factories[name]
    try:
        import importlib

        return getattr(importlib.import_module(module_name), class_name)()
    except Exception as error:  # missing library or not a Pi: one line for the person
        raise UserError(f"pin factory {name} is not available here: {error}", EX_CONFIG) from None


# --- documentation ------------------------------------------------------------------------

TABLE_BEGIN = "<!-- pin-table:begin (generated by `python -m drivers.pins --markdown`; do not edit) -->"
TABLE_END = "<!-- pin-table:end -->"


def markdown_table(pin_map: PinMap) -> str:
    """The wiring table for README.md: every GPIO in use, plus the power and ground wires."""
    lines = ["| Header pin | BCM GPIO | Part | Signal |", "|---:|---:|---|---|"]
    for gpio, part, signal in pin_map.uses():
        if part.startswith("Reader") and pin_map.reader.interface == "i2c" and gpio in I2C_PINS:
            continue  # shown once, with the display
        lines.append(f"| {HEADER_PIN[gpio]} | GPIO{gpio} | {part} | {signal} |")
    oled_power = "5V" if pin_map.display.panel == "ssd1322" else "3V3"
    power = [(1 if oled_power == "3V3" else 4, "OLED", f"VCC ({oled_power})"), (9, "OLED", "GND")]
    if pin_map.reader.interface in ("uart", "i2c", "spi"):
        power += [(2, "Reader", "VCC (5V)"), (14, "Reader", "GND")]
    if pin_map.buzzer is not None:
        power.append((20, "Buzzer", "- (GND)"))
    if pin_map.leds is not None:
        power.append((25, "LED", "common cathode (GND)" if pin_map.leds.kind == "rgb" else "cathodes (GND)"))
    if pin_map.buttons:
        power.append((39, "Buttons", "common (GND)"))
    for pin, part, signal in sorted(power):
        lines.append(f"| {pin} | {HEADER[pin]} | {part} | {signal} |")
    return "\n".join(lines) + "\n"


_PART_COLORS = {"OLED": "#1f77b4", "Reader": "#9467bd", "Button": "#2ca02c", "Buzzer": "#d62728", "LED": "#ff7f0e",
                "Buttons": "#2ca02c"}


def _power_uses(pin_map: PinMap) -> dict[int, str]:
    """Physical power/ground pin -> what is wired to it (as in the README table)."""
    uses: dict[int, str] = {}
    for line in markdown_table(pin_map).splitlines()[2:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if not cells[1].startswith("GPIO"):
            uses[int(cells[0])] = f"{cells[2]} {cells[3]}"
    return uses


def svg_diagram(pin_map: PinMap) -> str:
    """A wiring diagram of the 40-pin header: every pin, and what the pin map wires to it."""
    from xml.sax.saxutils import escape

    by_gpio: dict[int, list[str]] = {}
    parts: dict[int, str] = {}
    for gpio, part, signal in pin_map.uses():
        by_gpio.setdefault(gpio, []).append(f"{part} {signal}")
        parts.setdefault(gpio, part.split()[0])
    power = _power_uses(pin_map)
    row_h, top, mid = 22, 60, 400
    width, height = 800, top + 20 * row_h + 90
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="monospace" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{mid}" y="24" text-anchor="middle" font-size="16" font-weight="bold">'
        "bornes: Raspberry Pi 40-pin header (seen from above, pin 1 top left)</text>",
        f'<text x="{mid}" y="42" text-anchor="middle">Generated from wiring/pins.toml by '
        "python -m drivers.pins --svg</text>",
        f'<rect x="{mid - 30}" y="{top - 12}" width="60" height="{20 * row_h + 4}" rx="4" fill="#222"/>',
    ]
    for pin in range(1, 41):
        row, odd = (pin - 1) // 2, pin % 2 == 1
        y = top + row * row_h
        x = mid - 12 if odd else mid + 12
        what = HEADER[pin]
        name = f"GPIO{what}" if isinstance(what, int) else str(what)
        if isinstance(what, int) and what in by_gpio:
            wired = "; ".join(by_gpio[what])
            color = _PART_COLORS.get(parts[what], "#000")
        elif pin in power:
            wired = power[pin]
            color = "#d62728" if str(what) in ("5V", "3V3") else "#555"
        else:
            wired, color = "", "#999"
        fill = {"5V": "#d62728", "3V3": "#ff9896", "GND": "#111"}.get(str(what), "#ddd")
        shape = "rect" if pin == 1 else "circle"
        if shape == "rect":
            out.append(f'<rect x="{x - 7}" y="{y - 7}" width="14" height="14" fill="{fill}" stroke="#fff"/>')
        else:
            out.append(f'<circle cx="{x}" cy="{y}" r="7" fill="{fill}" stroke="#fff"/>')
        anchor = "end" if odd else "start"
        label_x = mid - 40 if odd else mid + 40
        number_x = mid - 24 if odd else mid + 24
        out.append(f'<text x="{number_x}" y="{y + 4}" text-anchor="{"end" if odd else "start"}" '
                   f'fill="#fff" font-size="9">{pin}</text>')
        label = f"{escape(wired)}  {name}" if odd else f"{name}  {escape(wired)}"
        if wired:
            line_x = label_x - 4 if odd else label_x + 4
            out.append(f'<line x1="{x}" y1="{y}" x2="{line_x}" y2="{y}" stroke="{color}" stroke-width="2"/>')
        out.append(f'<text x="{label_x}" y="{y + 4}" text-anchor="{anchor}" '
                   f'fill="{color if wired else "#999"}">{label.strip()}</text>')
    notes = [
        "Buttons: each between its GPIO and GND (internal pull-up). OLED on 3V3"
        + (" (ssd1322: 5V)." if pin_map.display.panel == "ssd1322" else "."),
        "PN532 reader: 5V. RDM6300 TX is 5V: through a level shifter (or 10k/20k divider) to GPIO15.",
    ]
    for index, note in enumerate(notes):
        out.append(f'<text x="20" y="{top + 20 * row_h + 20 + index * 18}">{escape(note)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def readme_table(readme_text: str) -> str | None:
    """The generated table currently in the README, or None if its markers are missing."""
    match = re.search(re.escape(TABLE_BEGIN) + r"\n(.*?)" + re.escape(TABLE_END), readme_text, re.S)
    return match.group(1) if match else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m drivers.pins", description=__doc__.splitlines()[0])
    parser.add_argument("--pins", default=str(DEFAULT_PATH), help="pin map file (default: wiring/pins.toml)")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--markdown", action="store_true", help="print the README pin table")
    group.add_argument("--check", metavar="README", help="exit 1 if README's table differs from the pin map")
    group.add_argument("--update", metavar="README", help="rewrite README's table from the pin map")
    group.add_argument("--svg", action="store_true", help="print the header wiring diagram (SVG)")
    args = parser.parse_args(argv)
    try:
        pin_map = load(args.pins)
    except PinMapError as error:
        print(error, file=sys.stderr)
        return error.exit_code
    table = markdown_table(pin_map)
    if args.check or args.update:
        path = Path(args.check or args.update)
        text = path.read_text(encoding="utf-8")
        current = readme_table(text)
        if current is None:
            print(f"{path}: no pin table markers", file=sys.stderr)
            return 1
        if args.check:
            if current != table:
                print(f"{path}: pin table differs from {args.pins}; run: python -m drivers.pins --update {path}",
                      file=sys.stderr)
                return 1
            print(f"{path}: pin table matches {args.pins}")
            return 0
        block = f"{TABLE_BEGIN}\n{current}{TABLE_END}"
        path.write_text(text.replace(block, f"{TABLE_BEGIN}\n{table}{TABLE_END}"), encoding="utf-8")
        return 0
    if args.svg:
        sys.stdout.write(svg_diagram(pin_map))
    elif args.markdown:
        sys.stdout.write(table)
    else:
        print(f"{args.pins}: ok, {len(pin_map.uses())} GPIO uses")
    return 0


if __name__ == "__main__":
    sys.exit(main())
