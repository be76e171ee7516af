"""The pin map: ``wiring/pins.toml`` loaded and checked.

Every driver takes its pins from here, so the file is the single source of truth. It is
checked at start: a pin used twice, a number that is not a GPIO on the 40-pin header, or a
button on a bus the display or reader needs, stops start-up with one clear line.

The pins are on the Raspberry Pi's header unless a ``[chip]`` section names another GPIO chip
by its label (a USB bridge such as a CP2112: ``label = "cp2112_gpio"``); its pins are then that
chip's line numbers. Either way the chip is found by its label when the referee starts
(:mod:`bornes.drivers.gpiochips`), never by its number.

The wiring documents (the README's pin table and the header diagram) are generated from
this map by ``tools/wiring.py``, outside the runtime.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from bornes.drivers.errors import EX_CONFIG, UserError, en_
from bornes.drivers.events import CONTROL_NAMES
from bornes.drivers.gpiochips import HEADER_LABELS
from bornes.drivers.parts import PANELS

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
#: The RC522's buses (config.toml's reader.bus/device): MOSI, MISO, SCLK and each chip select's GPIO.
#: SPI1 is the auxiliary SPI with three chip selects (dtoverlay=spi1-3cs): CE0-CE2 on GPIO18, 17, 16.
RC522_BUSES: dict[int, tuple[tuple[int, int, int], dict[int, int]]] = {
    0: ((10, 9, 11), {0: 8, 1: 7}),
    1: ((20, 19, 21), {0: 18, 1: 17, 2: 16}),
}

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


class DisplayWiring(Protocol):
    """How the OLED is wired, as config.toml's ``[display]`` says (``bornes.firmware.appliance.config.DisplayConfig``).

    The display is configured in one place, the config file; the pin map takes it from there so
    its conflict check looks at the interface really in use.
    """

    @property
    def panel(self) -> str: ...
    @property
    def interface(self) -> str: ...
    @property
    def spi_device(self) -> int: ...
    @property
    def spi_dc(self) -> int: ...
    @property
    def spi_reset(self) -> int: ...


@dataclass(frozen=True, slots=True)
class ReaderPins:
    interface: str = "none"  # uart | usb | i2c | spi | none
    uart_tx: int = 14
    uart_rx: int = 15
    spi_device: int = 1
    #: The RST line of the RC522(s), one GPIO for all of them (None: RST tied to 3.3 V).
    reset: int | None = None


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

    display: DisplayWiring | None  # None: a desktop twin, no OLED on the header
    reader: ReaderPins
    buttons: tuple[ButtonPin, ...]
    buzzer: BuzzerPin | None
    leds: LedPins | None
    debounce: float = 0.02
    #: The RC522s config.toml names, as (bus, device): their chip selects and buses are taken.
    rc522: tuple[tuple[int, int], ...] = ()
    #: The label of the chip the pins are on (``[chip] label``); None: the Pi's header, whose pins are BCM numbers.
    chip: str | None = None

    @property
    def chip_labels(self) -> tuple[str, ...]:
        """The labels the referee looks for: the one named, else any Raspberry Pi header chip's."""
        return (self.chip,) if self.chip is not None else HEADER_LABELS

    def button(self, name: str) -> ButtonPin | None:
        return next((b for b in self.buttons if b.name == name), None)

    def uses(self) -> list[tuple[int, str, str]]:
        """Every GPIO in use as (gpio, part, signal), in header order; on a chip named by ``[chip]``, its
        lines (the display and the reader stay on the Pi's header, another chip)."""
        found: list[tuple[int, str, str]] = []
        d = self.display if self.chip is None else None
        if d is not None and d.interface == "i2c":
            found += [(2, "OLED", "SDA"), (3, "OLED", "SCL")]
        elif d is not None:
            found += [(10, "OLED", "MOSI (DIN)"), (11, "OLED", "SCLK"), (SPI_CE[d.spi_device], "OLED", "CS"),
                      (d.spi_dc, "OLED", "DC"), (d.spi_reset, "OLED", "RST")]
        r = self.reader if self.chip is None else ReaderPins()
        if r.interface == "uart":
            found += [(r.uart_tx, "Reader", "RX (Pi TXD)"), (r.uart_rx, "Reader", "TX (Pi RXD)")]
        elif r.interface == "i2c":
            found += [(2, "Reader", "SDA (shared bus)"), (3, "Reader", "SCL (shared bus)")]
        elif r.interface == "spi" and not self.rc522:
            found += [(10, "Reader", "MOSI"), (9, "Reader", "MISO"), (11, "Reader", "SCK"),
                      (SPI_CE[r.spi_device], "Reader", "SS")]
        for bus in sorted({bus for bus, _ in self.rc522}):
            (mosi, miso, sclk), _ = RC522_BUSES[bus]
            found += [(mosi, "RC522", f"MOSI (SPI{bus})"), (miso, "RC522", f"MISO (SPI{bus})"),
                      (sclk, "RC522", f"SCK (SPI{bus})")]
        for bus, device in self.rc522:
            found.append((RC522_BUSES[bus][1][device], f"RC522 {bus}.{device}", "SDA (chip select)"))
        if self.rc522 and r.reset is not None:
            found.append((r.reset, "RC522", "RST (all of them)"))
        for b in self.buttons:
            found.append((b.pin, f"Button {b.name}", "to GND"))
        if self.buzzer is not None:
            found.append((self.buzzer.pin, "Buzzer", "+ (PWM)" if self.buzzer.tonal else "+"))
        if self.leds is not None:
            found.append((self.leds.red, "LED", "red"))
            found.append((self.leds.green, "LED", "green"))
            if self.leds.blue is not None:
                found.append((self.leds.blue, "LED", "blue"))
        if self.chip is not None:
            return sorted(found)  # by line
        return sorted(found, key=lambda use: (HEADER_PIN.get(use[0], 99), use[1]))


# --- loading ------------------------------------------------------------------------------


def _get(table: Mapping[str, Any], key: str, kind: type, default: Any, where: str) -> Any:
    value = table.get(key, default)
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if (isinstance(value, bool) and kind is not bool) or not isinstance(value, kind):
        raise PinMapError(en_("pin map: {key} should be {kind}, not {value}", key=f"{where}.{key}", kind=kind.__name__,
                                value=repr(value)))
    return value


#: The most lines a GPIO chip off the header may have here (a CP2112 has 8, an MCP2221 4, an FT260 14).
MAX_LINE = 63


def _line(value: Any, where: str) -> int:
    """A line of a chip named by ``[chip] label``: its own numbering, none of the header's rules."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_LINE:
        raise PinMapError(f"pin map: {where} should be a line number of the chip (0-{MAX_LINE}), not {value!r}")
    return value


def _gpio(value: Any, where: str, chip: str | None = None) -> int:
    if chip is not None:
        return _line(value, where)
    if isinstance(value, bool) or not isinstance(value, int):
        raise PinMapError(en_("pin map: {key} should be a BCM GPIO number, not {value}", key=where, value=repr(value)))
    if value in RESERVED:
        raise PinMapError(en_("pin map: {key} is GPIO{gpio}, reserved for {use}; use GPIO 2-27", key=where, gpio=value,
                                use=RESERVED[value]))
    if value not in HEADER_PIN:
        raise PinMapError(en_("pin map: {key} is GPIO{gpio}, which is not on the 40-pin header; use GPIO 2-27",
                               key=where, gpio=value))
    return value


def parse(data: Mapping[str, Any], display: DisplayWiring | None = None,
          rc522: tuple[tuple[int, int], ...] = ()) -> PinMap:
    """Build and check a pin map from parsed TOML, with the display config.toml describes
    (None for a desktop twin) and its RC522 readers (bus, device); raises :class:`PinMapError` with one line."""
    known = {"reader", "buttons", "buzzer", "leds", "debounce", "chip"}
    for key in data:
        if key == "display":
            continue  # an older pin map's copy of the display: config.toml [display] is the one read
        if key not in known:
            raise PinMapError(en_("pin map: unknown section [{section}] (known: {known})", section=key,
                                    known=", ".join(sorted(known))))

    if display is not None:
        if display.panel not in PANELS:
            raise PinMapError(en_("display.panel {panel} is not one of {panels}", panel=repr(display.panel),
                                    panels=", ".join(PANELS)))
        if display.spi_device not in SPI_CE:
            raise PinMapError(en_("display.spi_device must be 0 (CE0) or 1 (CE1)"))
        if display.interface == "spi":
            _gpio(display.spi_dc, "display.spi_dc")
            _gpio(display.spi_reset, "display.spi_reset")

    chip = _chip(data.get("chip"))
    raw_reader = data.get("reader", {})
    reader_if = _get(raw_reader, "interface", str, "none", "reader")
    if reader_if not in ("uart", "usb", "i2c", "spi", "none"):
        raise PinMapError(en_("pin map: reader.interface must be uart, usb, i2c, spi or none, not {value}",
                                value=repr(reader_if)))
    reader = ReaderPins(
        interface=reader_if,
        uart_tx=_gpio(raw_reader.get("uart_tx", 14), "reader.uart_tx"),
        uart_rx=_gpio(raw_reader.get("uart_rx", 15), "reader.uart_rx"),
        spi_device=_get(raw_reader, "spi_device", int, 1, "reader"),
        reset=_gpio(raw_reader["reset"], "reader.reset") if "reset" in raw_reader else None,
    )
    for bus, device in rc522:
        if device not in RC522_BUSES.get(bus, ((0, 0, 0), {}))[1]:
            raise PinMapError(en_("pin map: no RC522 can sit on SPI{bus} chip select {device}", bus=bus, device=device))
    if reader_if == "uart" and (reader.uart_tx, reader.uart_rx) != (14, 15):
        raise PinMapError(en_("pin map: the UART reader must use GPIO14 (TXD) and GPIO15 (RXD)"))

    buttons: list[ButtonPin] = []
    raw_buttons = data.get("buttons", {})
    if not isinstance(raw_buttons, Mapping):
        raise PinMapError(en_("pin map: [buttons] should hold one [buttons.NAME] section per button"))
    for name, raw in raw_buttons.items():
        where = f"buttons.{name}"
        if name not in BUTTON_NAMES:
            raise PinMapError(en_("pin map: [{section}] is not a button name ({names}, SEAT1-SEAT8)", section=where,
                                    names=", ".join(CONTROL_NAMES)))
        if not isinstance(raw, Mapping) or "pin" not in raw:
            raise PinMapError(en_("pin map: [{section}] needs a pin", section=where))
        long = _get(raw, "long", str, "none", where)
        if long != "none" and long not in BUTTON_NAMES:
            raise PinMapError(en_("pin map: {key} {value} is not none or a button name", key=f"{where}.long",
                                   value=repr(long)))
        hold = _get(raw, "hold_time", float, 1.0, where)
        if not 0.2 <= hold <= 10:
            raise PinMapError(en_("pin map: {key} {value} should be between 0.2 and 10 seconds",
                                   key=f"{where}.hold_time", value=hold))
        buttons.append(ButtonPin(name, _gpio(raw["pin"], f"{where}.pin", chip), None if long == "none" else long,
                                 hold))

    buzzer = None
    if "buzzer" in data:
        raw_buzzer = data["buzzer"]
        buzzer = BuzzerPin(_gpio(raw_buzzer.get("pin"), "buzzer.pin", chip),
                           _get(raw_buzzer, "tonal", bool, True, "buzzer"),
                           _get(raw_buzzer, "active_high", bool, True, "buzzer"))

    leds = None
    raw_leds = data.get("leds", {"kind": "none"})
    kind = _get(raw_leds, "kind", str, "none", "leds")
    if kind not in ("rgb", "pair", "none"):
        raise PinMapError(en_("pin map: leds.kind must be rgb, pair or none, not {value}", value=repr(kind)))
    if kind != "none":
        leds = LedPins(kind, _gpio(raw_leds.get("red"), "leds.red", chip),
                       _gpio(raw_leds.get("green"), "leds.green", chip),
                       _gpio(raw_leds.get("blue"), "leds.blue", chip) if kind == "rgb" else None,
                       _get(raw_leds, "active_high", bool, True, "leds"))

    debounce = _get(data.get("debounce", {}), "seconds", float, 0.02, "debounce")
    if not 0.001 <= debounce <= 0.2:
        raise PinMapError(en_("pin map: debounce.seconds {value} should be between 0.001 and 0.2", value=debounce))

    pin_map = PinMap(display, reader, tuple(buttons), buzzer, leds, debounce, rc522=tuple(rc522), chip=chip)
    _check_conflicts(pin_map)
    return pin_map


def _chip(raw: Any) -> str | None:
    """``[chip] label``: the GPIO chip the pins are on; None (no section) for the Pi's header."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise PinMapError("pin map: [chip] should be a section with label = \"…\"")
    unknown = set(raw) - {"label"}
    if unknown:
        raise PinMapError(f"pin map: [chip] has no key {sorted(unknown)[0]!r} (only label)")
    label: str = _get(raw, "label", str, "", "chip")
    if not label.strip() or len(label) > 31:
        raise PinMapError("pin map: chip.label should name a GPIO chip as gpiodetect lists it (1-31 characters)")
    return label


def _check_conflicts(pin_map: PinMap) -> None:
    if pin_map.chip is not None:  # off the header: no bus of the Pi's there, each line used once
        _check_twice(pin_map)
        return
    # A button or LED on a bus pin gets a message that names the bus.
    bus: dict[int, str] = {}
    display_bus = pin_map.display.interface if pin_map.display is not None else None
    if display_bus == "i2c" or pin_map.reader.interface == "i2c":
        bus.update({pin: en_("{signal}, used by the display", signal=signal) if display_bus == "i2c"
                    else en_("{signal}, used by the reader", signal=signal) for pin, signal in I2C_PINS.items()})
    if pin_map.reader.interface == "uart":
        bus.update({pin: en_("{signal}, used by the reader", signal=signal) for pin, signal in UART_PINS.items()})
    if display_bus == "spi" or pin_map.reader.interface == "spi":
        bus.update({pin: en_("{signal}, used by SPI", signal=signal) for pin, signal in SPI_BUS_PINS.items()})
    for spi in sorted({b for b, _ in pin_map.rc522}):
        (mosi, miso, sclk), selects = RC522_BUSES[spi]
        bus.update({pin: en_("SPI{bus} {signal}, used by the RC522", bus=spi, signal=signal)
                    for pin, signal in ((mosi, "MOSI"), (miso, "MISO"), (sclk, "SCLK"))})
        bus.update({selects[d]: en_("SPI{bus} CE{device}, the RC522 {bus}.{device}'s chip select", bus=spi, device=d)
                    for b, d in pin_map.rc522 if b == spi})
    for b in pin_map.buttons:
        if b.pin in bus:
            raise PinMapError(en_("pin map: button {button} is on GPIO{gpio}, which is {use}; move the button",
                                  button=b.name, gpio=b.pin, use=bus[b.pin]))
    if pin_map.display is not None and display_bus == "spi" and (0, pin_map.display.spi_device) in pin_map.rc522:
        raise PinMapError(en_("pin map: the display and an RC522 both use SPI0 chip select {device}; give the "
                              "reader another device", device=pin_map.display.spi_device))
    if pin_map.display is not None and display_bus == "spi" and pin_map.reader.interface == "spi" \
            and pin_map.display.spi_device == pin_map.reader.spi_device:
        raise PinMapError(en_("pin map: the display and the reader use the same SPI chip select; give them "
                               "different devices"))
    _check_twice(pin_map)


def _check_twice(pin_map: PinMap) -> None:
    seen: dict[int, str] = {}
    shared_ok = {(2, "OLED", "Reader"), (3, "OLED", "Reader"), (9, "OLED", "Reader"), (10, "OLED", "Reader"),
                 (11, "OLED", "Reader"), (9, "OLED", "RC522"), (10, "OLED", "RC522"), (11, "OLED", "RC522")}
    owners: dict[int, str] = {}
    for gpio, part, signal in pin_map.uses():
        label = f"{part} {signal}".strip()
        if gpio in seen:
            if (gpio, owners[gpio], part) in shared_ok:
                continue
            raise PinMapError(en_("pin map: GPIO{gpio} is used twice: {first} and {second}", gpio=gpio,
                                   first=seen[gpio], second=label))
        seen[gpio] = label
        owners[gpio] = part


def load(path: str | Path | None = None, display: DisplayWiring | None = None,
         rc522: tuple[tuple[int, int], ...] = ()) -> PinMap:
    """Read and check a pin map file (default ``wiring/pins.toml``) against the display in use
    (config.toml's ``[display]``; None for a desktop twin, which uses no header pins) and the RC522
    readers config.toml names (bus, device)."""
    from bornes.drivers.files import MIB, UnreadableFile, read_text_bounded

    path = Path(path) if path is not None else DEFAULT_PATH
    try:
        data = tomllib.loads(read_text_bounded(path, MIB))
        return parse(data, display, rc522)
    except FileNotFoundError:
        raise PinMapError(en_("pin map: {path} not found", path=path)) from None
    except UnreadableFile as error:  # a directory, FIFO, device, loop, too big, not UTF-8: never opened blind
        problem = error.args[0] if error.args else str(error)  # a Said: doctor says it in the table's language
        raise PinMapError(en_("pin map: {path} {problem}", path=path, problem=problem)) from None
    except tomllib.TOMLDecodeError as error:
        raise PinMapError(en_("pin map: {path} is not valid TOML: {error}", path=path, error=str(error))) from None
    except RecursionError:
        raise PinMapError(en_("pin map: {path} is nested too deeply", path=path)) from None


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


class ChipMissing(UserError):
    """No GPIO chip has the pin map's label (a USB bridge unplugged, a label misspelt); one line names those there."""

    exit_code = EX_CONFIG


def make_pin_factory(name: str | None, labels: tuple[str, ...] = HEADER_LABELS) -> Any:
    """The gpiozero pin factory for config's ``pins.factory``: ``mock`` on a desktop; else gpiozero's lgpio
    factory on the chip whose label is one of ``labels`` (:attr:`PinMap.chip_labels`), found by that
    label and opened by its number; None where lgpio is not installed or ``GPIOZERO_PIN_FACTORY`` names
    another (gpiozero's own pick then). Raises :class:`ChipMissing` when lgpio is there but no such chip.

    gpiozero 2.0.1's ``LGPIOFactory()`` guesses the chip: 4 on a Pi 5 when /dev/gpiochip4 exists, else 0,
    which kernels since 6.6.45 renumber (gpiozero #1166); so the chip is always named here.
    """
    if name in (None, "", "auto"):
        return _lgpio_factory(labels)
    if name == "mock":
        from gpiozero.pins.mock import MockFactory

        return MockFactory(pin_class=_quiet_mock_pin())
    raise UserError(f"unknown pin factory {name!r} (auto, mock)", EX_CONFIG)


def lgpio_drives_the_pins() -> bool:
    """lgpio is installed and ``GPIOZERO_PIN_FACTORY`` names no other: the pins are on a chip found by its label."""
    import importlib.util
    import os

    if os.environ.get("GPIOZERO_PIN_FACTORY", "lgpio").strip().lower() != "lgpio":
        return False
    return importlib.util.find_spec("lgpio") is not None


def _lgpio_factory(labels: tuple[str, ...]) -> Any:
    if not lgpio_drives_the_pins():
        return None
    try:
        from gpiozero.pins.lgpio import LGPIOFactory
    except ImportError:  # no lgpio (install.sh takes python3-lgpio from apt): gpiozero tries the others
        return None
    from bornes.drivers import gpiochips

    chip = gpiochips.find(labels)
    if chip is None:
        raise ChipMissing(gpiochips.missing(labels))
    return LGPIOFactory(chip=chip.number)


#: lgpio handles of chips that went away, never closed (see :func:`close_pin_factory`).
_RETIRED_HANDLES: list[int] = []


def close_pin_factory(factory: Any) -> None:
    """Close a gpiozero factory, even one whose GPIO chip has gone (a USB bridge unplugged).

    lgpio answers every call on a vanished chip with an error, and gpiozero's close stops at the
    first pin it cannot reset, before it closes the chip's handle and before it forgets the pins:
    gpiozero keeps them in a dict shared by every local factory (``LocalPiFactory.pins``), so the
    next factory would be handed pins of the dead handle. So: each step on its own, the shared dicts
    emptied, and the handle left open (lgpio would hand its alert records to the next chip).
    """
    import contextlib

    with contextlib.suppress(Exception):
        factory.close()
    handle = getattr(factory, "_handle", None)
    if handle is not None:
        # Not lgpio.gpiochip_close: lgpio 0.2.2.0 keeps each line's alert record after its chip is closed,
        # marked inactive and found again by the chip object's address and the line; a chip opened later
        # at the same address (malloc hands the freed one back) then finds the dead records, and its
        # alerts never come (seen in the kernel tier: no press heard after a bridge came back). The
        # vanished chip's handle is kept open instead: a few hundred bytes and its file descriptors.
        _RETIRED_HANDLES.append(handle)
        factory._handle = None
    with contextlib.suppress(ImportError):
        from gpiozero.pins.local import LocalPiFactory

        LocalPiFactory.pins.clear()
        LocalPiFactory._reservations.clear()
