"""An RC522 table's set-up: the config keys, the pin map, doctor on a machine without SPI, install.sh --spi,
the RST pin pulsed at start."""

from __future__ import annotations

from pathlib import Path

import pytest

from bornes.drivers import pins
from bornes.firmware.appliance.config import parse_config
from bornes.firmware.appliance.tomlcheck import ConfigError
from bornes.firmware.commands.doctor import rc522_finding
from tests.appliance.test_systemd import run_install

REPO = Path(__file__).resolve().parents[2]
FOUR_PADS = REPO / "wiring" / "pins-rc522.toml"
PADS = "".join(f'[pads.{seat}]\nprotocol = "rc522"\nbus = {bus}\ndevice = {device}\n'
               for seat, bus, device in (("A", 0, 0), ("B", 0, 1), ("C", 1, 0), ("discard", 1, 2)))


def test_an_rc522_is_named_by_bus_and_device() -> None:
    config = parse_config('[reader]\nprotocol = "rc522"\n')
    assert (config.reader.bus, config.reader.device, config.reader.port) == (0, 0, "/dev/spidev0.0")
    config = parse_config(PADS)
    assert [pad.reader.port for pad in config.pads] == ["/dev/spidev0.0", "/dev/spidev0.1", "/dev/spidev1.0",
                                                        "/dev/spidev1.2"]
    assert [pad.place for pad in config.pads] == ["A", "B", "C", "discard"] and not config.table_reader


@pytest.mark.parametrize(("text", "said"), [
    ('[reader]\nprotocol = "rc522"\nport = "/dev/spidev0.0"\n',
     'reader.port: an RC522 is named by bus and device (SPI0 CE0: bus = 0, device = 0)'),
    ('[reader]\nprotocol = "rc522"\nbaudrate = 9600\n', "reader.baudrate: an RC522 runs its SPI clock at 1 MHz"),
    ('[reader]\nprotocol = "rc522"\ndevice = 2\n', "reader.device = 2 is not a chip select of SPI0; choose 0, 1"),
    ('[reader]\nprotocol = "rc522"\nbus = 1\ndevice = 3\n', "reader.device = 3 is out of range"),
    ('[reader]\nprotocol = "hid"\nport = "0c2e:0b61"\nbus = 1\n', 'reader.bus is for a reader on SPI'),
    ('[pads.A]\nprotocol = "rc522"\n[pads.B]\nprotocol = "rc522"\n',
     "pads.B: bus 0, device 0 is also pads.A's RC522; each needs its own chip select"),
])
def test_what_cannot_work_is_one_line(text: str, said: str) -> None:
    with pytest.raises(ConfigError) as error:
        parse_config(text)
    assert said in str(error.value) and "\n" not in str(error.value), str(error.value)


def test_the_four_pad_pin_map_and_why_the_plain_one_will_not_do() -> None:
    config = parse_config(f'[pins]\nmap = "{FOUR_PADS}"\n[display]\npanel = "ssd1306"\n' + PADS)
    pin_map = config.load_pin_map()
    uses = {gpio: f"{part} {signal}" for gpio, part, signal in pin_map.uses()}
    assert uses[8] == "RC522 0.0 SDA (chip select)" and uses[16] == "RC522 1.2 SDA (chip select)"
    assert uses[19] == "RC522 MISO (SPI1)" and uses[25] == "RC522 RST (all of them)"
    plain = parse_config('[display]\npanel = "ssd1306"\n' + PADS)
    with pytest.raises(pins.PinMapError, match="button OK is on GPIO19, which is SPI1 MISO, used by the RC522"):
        plain.load_pin_map()
    two = parse_config('[display]\npanel = "ssd1306"\n' + PADS.split("[pads.C]")[0])  # SPI0 only: the map as shipped
    assert {gpio for gpio, part, _ in two.load_pin_map().uses() if part.startswith("RC522")} == {7, 8, 9, 10, 11}
    oled = parse_config('[display]\npanel = "ssd1322"\ninterface = "spi"\nspi_device = 1\n'
                        f'[pins]\nmap = "{FOUR_PADS}"\n' + PADS)
    with pytest.raises(pins.PinMapError, match="the display and an RC522 both use SPI0 chip select 1"):
        oled.load_pin_map()


@pytest.mark.skipif(any(Path("/dev").glob("spidev*")), reason="this machine has SPI devices")
def test_doctor_says_spi_is_off_and_how_to_turn_it_on() -> None:
    for text, said in (('protocol = "rc522"\n', "SPI0 is off: sudo systemd/install.sh --spi (dtparam=spi=on), then "
                                                "reboot"),
                       ('protocol = "rc522"\nbus = 1\n', "SPI1 is off: sudo systemd/install.sh --spi1 "
                                                         "(dtoverlay=spi1-3cs), then reboot")):
        finding = rc522_finding("reader", parse_config("[reader]\n" + text).reader)
        assert finding.level == "FAIL" and finding.detail == said, finding


def test_install_spi_turns_spi_on_and_gives_the_referee_group_spi(tmp_path: Path) -> None:
    result = run_install(tmp_path, "--dry-run", "--spi1")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "groups gpio i2c dialout audio spi" in out and "usermod --append --groups gpio,i2c,dialout,audio,spi" in out
    assert "install -D -m 0644 " in out and "99-bornes-spi.rules /etc/udev/rules.d/99-bornes-spi.rules" in out
    assert "udevadm trigger --subsystem-match=spidev --action=add" in out
    if Path("/boot/firmware/config.txt").exists():
        pytest.skip("this machine has a firmware config.txt: the dry run's lines depend on it")
    assert "raspi-config nonint do_spi 0" in out or 'add "dtparam=spi=on" to the firmware' in out, out
    assert 'add "dtoverlay=spi1-3cs" to the firmware' in out, out
    assert not (tmp_path / "executed").exists()  # a dry run runs nothing
    rule = (REPO / "systemd" / "99-bornes-spi.rules").read_text().splitlines()
    assert [line for line in rule if line and not line.startswith("#")] == \
        ['SUBSYSTEM=="spidev", GROUP="spi", MODE="0660"']


def test_the_rst_pin_is_pulsed_low_then_held_high() -> None:
    from gpiozero.pins.mock import MockFactory

    from bornes.drivers.readers.rc522 import ResetLine

    factory = MockFactory()
    line = ResetLine(25, factory)
    try:
        states = [state for _, state in factory.pin(25).states]
        assert states[-2:] == [False, True] and factory.pin(25).state
    finally:
        line.close()
