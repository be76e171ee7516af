"""The pin map: the shipped file is valid, mistakes give one clear line, and the pin check looks
at the display config.toml really drives."""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any

import pytest

from bornes.drivers import pins
from bornes.drivers.pins import PinMapError, load, parse
from bornes.firmware.appliance.config import DisplayConfig, parse_config

WIRING = Path(__file__).resolve().parents[2] / "wiring"


def _data() -> dict[str, Any]:
    with (WIRING / "pins.toml").open("rb") as handle:
        return tomllib.load(handle)


I2C_OLED = DisplayConfig()
SPI_OLED = DisplayConfig(interface="spi")


def test_shipped_pin_map_is_valid() -> None:
    pin_map = load(display=I2C_OLED)
    assert {b.name for b in pin_map.buttons} == {"CF", "DISCARD", "UNDO", "OK", "NEXT", "BACK"}
    assert pin_map.display is I2C_OLED
    gpios = [g for g, _, _ in pin_map.uses()]
    assert len(gpios) == len(set(gpios))
    assert (2, "OLED", "SDA") in pin_map.uses()
    assert not [use for use in load().uses() if use[1] == "OLED"]  # a desktop twin uses no header pin


def test_the_pin_check_follows_the_display_config_uses() -> None:
    """One display configuration: config.toml's [display] decides which bus pins are taken."""
    data = _data()
    data["buttons"]["CF"]["pin"] = 24  # the SPI panel's default D/C line
    parse(data, I2C_OLED)  # free while the OLED is on I2C
    assert "GPIO24 is used twice" in _error(data, SPI_OLED)
    config = parse_config('[display]\ninterface = "spi"\nspi_dc = 23\n')
    parse(data, config.display)  # D/C moved in the config: GPIO24 is free again
    assert (23, "OLED", "DC") in parse(data, config.display).uses()


def test_an_older_pin_map_with_a_display_section_still_loads() -> None:
    data = _data()
    data["display"] = {"panel": "ssd1306", "interface": "spi", "spi_dc": 5}  # not read: config.toml is
    assert parse(data, I2C_OLED).display is I2C_OLED


def _error(data: dict[str, Any], display: DisplayConfig | None = I2C_OLED) -> str:
    with pytest.raises(PinMapError) as caught:
        parse(data, display)
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
    data["buttons"]["CF"]["pin"] = 11
    assert "SPI SCLK" in _error(data, SPI_OLED)
    data = _data()
    data["buttons"]["CF"]["pin"] = 2  # I2C pins are free when nothing uses I2C
    parse(data, SPI_OLED)


def test_other_mistakes_are_clear() -> None:
    cases = [
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
    if not pins.lgpio_drives_the_pins():  # where lgpio is installed, "auto" is its factory (tests/kernel)
        assert pins.make_pin_factory("auto") is None
    with pytest.raises(Exception, match="unknown pin factory"):
        pins.make_pin_factory("magic")


BRIDGE: dict[str, Any] = {"chip": {"label": "cp2112_gpio"}, "reader": {"interface": "usb"},
          "buttons": {"OK": {"pin": 0}, "CF": {"pin": 1}, "NEXT": {"pin": 2}, "BACK": {"pin": 3}},
          "buzzer": {"pin": 5, "tonal": False}, "leds": {"kind": "pair", "red": 6, "green": 7}}


def test_a_chip_named_by_its_label_takes_its_own_line_numbers() -> None:
    """``[chip] label``: the pins are that chip's lines (a CP2112's 0-7): none of the header's rules
    (GPIO0/1 reserved, the OLED's I2C pins), but a line still used once."""
    pin_map = parse(copy.deepcopy(BRIDGE), I2C_OLED)
    assert pin_map.chip == "cp2112_gpio" and pin_map.chip_labels == ("cp2112_gpio",)
    assert pin_map.button("OK") is not None and pin_map.button("OK").pin == 0  # type: ignore[union-attr]
    assert [use[0] for use in pin_map.uses()] == [0, 1, 2, 3, 5, 6, 7]  # the OLED stays on the Pi's header
    data = copy.deepcopy(BRIDGE)
    data["leds"]["red"] = 5
    assert "GPIO5 is used twice" in _error(data)
    data = copy.deepcopy(BRIDGE)
    data["buttons"]["CF"]["pin"] = 64
    assert "line number of the chip (0-63)" in _error(data)
    data = copy.deepcopy(BRIDGE)
    data["chip"] = {"label": ""}
    assert "chip.label" in _error(data)
    data["chip"] = {"label": "x", "number": 4}
    assert "[chip] has no key 'number'" in _error(data)


def test_the_header_chip_is_looked_for_by_the_pi_boards_labels() -> None:
    assert load().chip is None
    assert load().chip_labels == ("pinctrl-rp1", "pinctrl-bcm2711", "pinctrl-bcm2835")
