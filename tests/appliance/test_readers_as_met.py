"""Readers as a person setting one up meets them (issue 29, item 7): ``bornes doctor`` gives an unplugged
reader the same verdict whatever its kind, says nothing of a table reader the file does not have, and
names a keyboard-mode scanner by what it has; ``bornes run --emulate`` says which configured readers it
leaves closed; ``--port`` takes a keyboard-mode scanner by its names."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bornes.firmware import cli
from bornes.firmware.appliance.config import ReaderConfig

REPO = Path(__file__).resolve().parents[2]
BORNES = [sys.executable, "-m", "bornes.firmware.cli"]


def _doctor(tmp_path: Path, body: str, desktop: bool, capsys: pytest.CaptureFixture[str]) -> list[str]:
    (tmp_path / "pins.toml").write_text("[buttons]\nundo = 17\n[leds]\nok = 27\n")
    config = tmp_path / "config.toml"
    pins = '[pins]\nmap = "pins.toml"\n' + ('factory = "mock"\n' if desktop else "")
    config.write_text(f'{pins}[display]\npanel = "dummy"\n[state]\ndir = "{tmp_path / "state"}"\n{body}')
    cli.main(["doctor", "--config", str(config)])
    return capsys.readouterr().out.splitlines()


def _verdict(lines: list[str], topic: str) -> str:
    found = [line for line in lines if line.split(" ", 1)[1].startswith(topic)]
    assert len(found) == 1, (topic, lines)
    return found[0].split()[0]


@pytest.mark.parametrize("desktop", [True, False], ids=["desktop", "pi"])
def test_an_unplugged_reader_gets_one_verdict_whatever_its_kind(
        tmp_path: Path, desktop: bool, capsys: pytest.CaptureFixture[str]) -> None:
    """A keyboard-mode reader, a keyboard-mode pad and a serial pad, all unplugged: one verdict for the three,
    FAIL on a Pi, WARN on a desktop (which runs without them), never "OK … no such input device"."""
    lines = _doctor(tmp_path, '[reader]\nprotocol = "hid"\nport = "/dev/input/by-id/usb-none-event-kbd"\n'
                              f'[pads.B]\nport = "{tmp_path / "ttyUSB7"}"\n'
                              '[pads.C]\nprotocol = "hid"\nport = "dead:beef"\n', desktop, capsys)
    verdicts = {_verdict(lines, "reader /dev/input/by-id/usb-none-event-kbd:"), _verdict(lines, "pad B "),
                _verdict(lines, "pad C dead:beef:")}
    assert verdicts == {"WARN" if desktop else "FAIL"}, lines


def test_no_table_reader_line_when_the_file_has_pads_and_no_reader(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = _doctor(tmp_path, f'[pads.B]\nport = "{tmp_path / "ttyUSB7"}"\n', True, capsys)
    assert not any(" reader " in f" {line} " and "/dev/bornes-reader" in line for line in lines), lines
    assert any(line.startswith("WARN pad B ") for line in lines), lines


def test_the_hints_name_what_a_keyboard_mode_scanner_has(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Not ``--port /dev/ttyUSB0`` alone, a path such a reader never has: its by-id name or its USB ids."""
    lines = _doctor(tmp_path, "", True, capsys)
    desktop = " ".join(line for line in lines if "desktop" in line)
    for words in ("/dev/input/by-id", "VVVV:PPPP", "bornes scan-test --devices", "--port /dev/ttyUSB0"):
        assert words in desktop, lines
    hid = _doctor(tmp_path, '[reader]\nprotocol = "hid"\nport = "dead:beef"\n', False, capsys)
    assert any("/dev/input/by-id" in line and "VVVV:PPPP" in line and "scan-test --devices" in line
               for line in hid if "dead:beef" in line), hid
    readme = (REPO / "README.md").read_text()
    laptop = [line for line in readme.splitlines() if "--emulate" in line and "--port" in line]
    assert any("VVVV:PPPP" in line for line in laptop) and "/dev/input/by-id" in readme, laptop


def test_a_port_that_names_an_input_device_is_read_as_a_keyboard_mode_scanner() -> None:
    from bornes.firmware.commands.run import port_reader

    serial = ReaderConfig()
    for port in ("0c2e:0b61", "/dev/input/by-id/usb-Scanner_Co-event-kbd"):
        assert (port_reader(serial, port).protocol, port_reader(serial, port).port) == ("hid", port)
    assert port_reader(serial, "/dev/ttyUSB0").protocol == serial.protocol
    assert port_reader(ReaderConfig(protocol="em4100"), "/dev/ttyACM0").protocol == "em4100"


def test_emulate_says_which_configured_readers_it_leaves_closed(tmp_path: Path) -> None:
    config = tmp_path / "desk.toml"
    config.write_text('[display]\npanel = "dummy"\n[pins]\nfactory = "mock"\n'
                      f'[state]\ndir = "{tmp_path / "state"}"\n'
                      '[reader]\nprotocol = "hid"\nport = "/dev/input/by-id/usb-Scanner_Co-event-kbd"\n'
                      '[game]\nedition = "winning-moves"\nplayers = 2\nnames = ["Ann", "Bob"]\n')
    done = subprocess.run([*BORNES, "run", "--emulate", "--config", str(config)], input="ok\n", capture_output=True,
                          text=True, timeout=60, cwd=REPO)
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stdout.splitlines() if "Not opened with --emulate" in line]
    assert said == ["Not opened with --emulate: [reader] (keyboard-mode scanner, "
                    "/dev/input/by-id/usb-Scanner_Co-event-kbd); add --port to read them beside the keyboard"], said
    plain = tmp_path / "plain.toml"  # no [reader], no pads: nothing is left closed, so nothing is said
    plain.write_text(config.read_text().replace('[reader]\nprotocol = "hid"\nport = '
                                                '"/dev/input/by-id/usb-Scanner_Co-event-kbd"\n', ""))
    done = subprocess.run([*BORNES, "run", "--emulate", "--config", str(plain)], input="", capture_output=True,
                          text=True, timeout=60, cwd=REPO)
    assert "Not opened" not in done.stdout
