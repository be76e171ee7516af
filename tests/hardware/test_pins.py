"""The pin map: the shipped file is valid, mistakes give one clear line, the README agrees."""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any

import pytest

from drivers import pins
from drivers.pins import PinMapError, load, parse

WIRING = Path(__file__).resolve().parents[2] / "wiring"


def _data() -> dict[str, Any]:
    with (WIRING / "pins.toml").open("rb") as handle:
        return tomllib.load(handle)


def test_shipped_pin_map_is_valid() -> None:
    pin_map = load()
    assert {b.name for b in pin_map.buttons} == {"CF", "DISCARD", "UNDO", "OK", "NEXT", "BACK"}
    assert pin_map.display.i2c_address == 0x3C and pin_map.display.i2c_bus_hz == 400_000
    gpios = [g for g, _, _ in pin_map.uses()]
    assert len(gpios) == len(set(gpios))


def _error(data: dict[str, Any]) -> str:
    with pytest.raises(PinMapError) as caught:
        parse(data)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_double_used_pin() -> None:
    data = _data()
    data["buttons"]["OK"]["pin"] = data["buttons"]["CF"]["pin"]
    assert "GPIO5 is used twice" in _error(data)
    data = _data()
    data["buzzer"]["pin"] = data["leds"]["red"]
    assert "GPIO17 is used twice" in _error(data)


@pytest.mark.parametrize("pin", [28, 40, -1, 0, 1])
def test_pins_that_do_not_exist(pin: int) -> None:
    data = _data()
    data["buttons"]["NEXT"]["pin"] = pin
    message = _error(data)
    assert f"GPIO{pin}" in message and "buttons.NEXT.pin" in message


def test_button_on_i2c_pins() -> None:
    data = _data()
    data["buttons"]["OK"]["pin"] = 3
    assert _error(data) == "pin map: button OK is on GPIO3, which is I2C SCL, used by the display; move the button"


def test_button_on_uart_pins_when_the_reader_uses_the_uart() -> None:
    data = _data()
    data["buttons"]["CF"]["pin"] = 15
    assert "UART RXD" in _error(data)
    data["reader"]["interface"] = "usb"
    parse(data)  # a USB reader frees the UART


def test_button_on_spi_pins_when_the_display_uses_spi() -> None:
    data = _data()
    data["display"]["interface"] = "spi"
    data["buttons"]["CF"]["pin"] = 11
    assert "SPI SCLK" in _error(data)
    data = _data()
    data["display"]["interface"] = "spi"
    data["buttons"]["CF"]["pin"] = 2  # I2C pins are free when nothing uses I2C
    parse(data)


def test_other_mistakes_are_clear() -> None:
    cases = [
        (("display", "panel"), "ssd9999", "display.panel"),
        (("display", "i2c_address"), 0x99, "i2c_address"),
        (("buttons", "OK", "long"), "MENU", "buttons.OK.long"),
        (("buttons", "OK", "hold_time"), 0.01, "hold_time"),
        (("buttons", "OK", "pin"), "19", "BCM GPIO number"),
        (("leds", "kind"), "disco", "leds.kind"),
    ]
    for path, value, expected in cases:
        data = copy.deepcopy(_data())
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        assert expected in _error(data)
    data = _data()
    data["buttons"]["MENU"] = {"pin": 4}
    assert "not a button name" in _error(data)


def test_optional_buttons_can_be_dropped_and_seats_added() -> None:
    data = _data()
    del data["buttons"]["DISCARD"], data["buttons"]["UNDO"]
    data["buttons"]["SEAT1"] = {"pin": 16}
    pin_map = parse(data)
    assert pin_map.button("DISCARD") is None and pin_map.button("SEAT1") is not None


def test_mock_pin_factory_and_unknown_factory() -> None:
    from gpiozero.pins.mock import MockFactory

    factory = pins.make_pin_factory("mock")
    assert isinstance(factory, MockFactory)
    factory.close()
    assert pins.make_pin_factory("auto") is None
    with pytest.raises(Exception, match="unknown pin factory"):
        pins.make_pin_factory("magic")
