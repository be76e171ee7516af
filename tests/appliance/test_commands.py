"""doctor, history and export through the real CLI, against real files and a pseudo-terminal reader."""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from bornes.engine.record import read_record, write_header
from bornes.engine.state import GameSetup
from bornes.firmware import cli
from bornes.firmware.commands import doctor
from bornes.firmware.storage.journal import FILENAME, Journal

REPO = Path(__file__).resolve().parents[2]
HEADER = write_header(GameSetup.create("winning-moves", ["Anne", "Bruno"]))
ACTIONS = ["A play MB-ROLL-01", "B play MB-STOP-02 > A", "A play MB-ROLL-03"]


@pytest.fixture
def pty_port() -> Iterator[str]:
    """A pseudo-terminal: a real serial-like device pyserial can open, standing in for the reader."""
    master, slave = os.openpty()
    yield os.ttyname(slave)
    os.close(master)
    os.close(slave)


def write_config(tmp_path: Path, port: str, **extra: str) -> Path:
    pins = tmp_path / "pins.toml"
    if not pins.exists():
        pins.write_text("[buttons]\nundo = 17\n[leds]\nok = 27\n")
    lines = [
        "[reader]",
        f'port = "{port}"',
        "[display]",
        f'panel = "{extra.get("panel", "dummy")}"',
        f"i2c_port = {extra.get('i2c_port', '1')}",
        "[pins]",
        f'map = "{extra.get("pins", "pins.toml")}"',
        "[state]",
        f'dir = "{extra.get("state", "state")}"',
    ]
    path = tmp_path / "config.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def journal_with_games(state: Path) -> None:
    with Journal.open(state) as journal:
        first = journal.new_game(HEADER)
        for seq, line in enumerate(ACTIONS):
            journal.append(first, seq, line)
        journal.finish(first, json.dumps({"winner": "Anne", "totals": {"Anne": 5150, "Bruno": 2300}}))
        second = journal.new_game("edition: dujardin\nplayers: 3\n")
        journal.append(second, 0, "A play MB-ROLL-04")


def findings(out: str) -> list[tuple[str, str]]:
    parsed = []
    for line in out.splitlines():
        level, _, rest = line.partition(" ")
        assert level in ("OK", "WARN", "FAIL"), line
        parsed.append((level, rest.strip()))
    return parsed


def test_doctor_all_good(tmp_path: Path, pty_port: str, capsys: pytest.CaptureFixture[str]) -> None:
    if (REPO / "wiring" / "pins.toml").exists():  # the real map, so bornes.drivers.pins' validator passes too
        (tmp_path / "pins.toml").write_text((REPO / "wiring" / "pins.toml").read_text())
    config = write_config(tmp_path, pty_port, panel="ssd1306", i2c_port="99")
    journal_with_games(tmp_path / "state")
    status = doctor_run(config)
    out = capsys.readouterr().out
    found = findings(out)
    assert ("OK", f"config: {config} parsed") in found
    assert ("OK", f"reader {pty_port}: opens at 9600 baud (lines protocol)") in found
    assert ("WARN", "display /dev/i2c-99: does not exist; enable I2C: sudo raspi-config nonint do_i2c 0") in found
    assert any(level == "OK" and text.startswith(f"pins {tmp_path / 'pins.toml'}: ") for level, text in found)
    assert ("OK", f"state {tmp_path / 'state'}: exists and is writable") in found
    assert ("OK", f"journal {tmp_path / 'state' / FILENAME}: 2 games; game 2 in progress (1 action)") in found
    assert any(text.startswith("groups:") for _, text in found)
    assert status == 0 and not any(level == "FAIL" for level, _ in found)


def doctor_run(config: Path) -> int:
    return cli.main(["doctor", "--config", str(config)])


def test_doctor_names_the_engine_build_it_runs_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The one line says what the import system really loaded: C extensions or the sources."""
    from bornes.engine import rules

    loaded = "mypyc" if Path(rules.__file__ or "").suffix in (".so", ".pyd") else "python"
    config = write_config(tmp_path, str(tmp_path / "no-reader"))
    doctor_run(config)
    engine = [text for _, text in findings(capsys.readouterr().out) if text.startswith("engine:")]
    assert engine == [f"engine: {loaded}: {doctor.ENGINE_BUILDS[loaded]}"]
    monkeypatch.setattr(doctor, "engine_build", lambda: "mypyc")
    doctor_run(config)
    assert ("OK", "engine: mypyc: the rules run compiled to C by mypyc (install.sh --compile-engine)") in findings(
        capsys.readouterr().out)


def test_doctor_reports_every_failure_and_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("")
    config = write_config(tmp_path, str(tmp_path / "no-reader"), pins="missing.toml", state=f"{blocker}/state")
    status = doctor_run(config)
    captured = capsys.readouterr()
    found = findings(captured.out)
    fails = [text for level, text in found if level == "FAIL"]
    assert any(text.startswith(f"reader {tmp_path / 'no-reader'}: does not exist") for text in fails)
    assert any(text.startswith(f"pins {tmp_path / 'missing.toml'}: not found") for text in fails)
    assert any(text.startswith(f"state {blocker}/state: does not exist and cannot be created") for text in fails)
    assert status == 1 and "Traceback" not in captured.err


def test_doctor_reports_a_damaged_journal_without_touching_it(
    tmp_path: Path, pty_port: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "state").mkdir()
    (tmp_path / "pins.toml").write_text("[pins\n")
    damaged = tmp_path / "state" / FILENAME
    damaged.write_bytes(b"this is not sqlite at all" * 50)
    before = damaged.read_bytes()
    status = doctor_run(write_config(tmp_path, pty_port))
    fails = [text for level, text in findings(capsys.readouterr().out) if level == "FAIL"]
    assert any("TOML syntax error" in text for text in fails)
    assert any(text.startswith(f"journal: journal {damaged} is damaged") for text in fails)
    assert status == 1 and damaged.read_bytes() == before


@pytest.mark.parametrize(
    ("answering", "error", "level", "words"),
    [
        ({0x3C}, None, "OK", "a device answers at 0x3C and takes a whole frame"),
        (set(), None, "FAIL", "nothing answers at 0x3C; check the wiring"),
        ({0x3D}, None, "FAIL", 'a device answers at 0x3D: set i2c_address = "0x3D" in [display] of /etc/b.toml'),
        ({0x3C}, OSError(errno.ENXIO, "No such device or address"), "FAIL", "stopped acknowledging within a 1025-byte"),
        ({0x3C}, PermissionError(errno.EACCES, "Permission denied"), "FAIL", "group i2c"),
    ],
)
def test_i2c_probe_outcomes(monkeypatch: pytest.MonkeyPatch, answering: set[int], error: OSError | None, level: str,
                            words: str) -> None:
    """The bus answers are mapped to one line each (the bus is faked here; tests/kernel/test_wired_table.py
    meets the same lines on a real kernel's I2C adapter)."""
    import smbus2

    class Bus:
        def __init__(self, port: int) -> None:
            if isinstance(error, PermissionError):
                raise error

        def __enter__(self) -> Bus:
            return self

        def __exit__(self, *exc: object) -> None:
            pass

        def write_quick(self, address: int) -> None:
            if address not in answering:
                raise OSError(errno.ENXIO, "No such device or address")

        def i2c_rdwr(self, message: smbus2.i2c_msg) -> None:
            assert message.addr == 0x3C and len(message) == 1025 and bytes(message)[:2] == b"\x00\xe3"
            if error is not None:
                raise error

    monkeypatch.setattr(smbus2, "SMBus", Bus)
    monkeypatch.setattr(os.path, "exists", lambda path: path == "/dev/i2c-1")
    finding = doctor._probe_i2c(1, 0x3C, "ssd1306", Path("/etc/b.toml"))
    assert finding.level == level and words in finding.detail, finding


def test_history_lists_finished_and_in_progress(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write_config(tmp_path, "/dev/null")
    assert cli.main(["history", "--config", str(config)]) == 0
    assert "no games yet" in capsys.readouterr().out
    journal_with_games(tmp_path / "state")
    assert cli.main(["history", "--config", str(config)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:2] == ["game", "started"]  # in local time: see tests/appliance/test_rough_edges.py
    first, second = lines[1].split(), lines[2].split()
    assert first[0] == "1" and first[3:] == ["winning-moves", "Anne,Bruno", "Anne", "Anne:5150", "Bruno:2300"]
    assert "Anne,Bruno" in lines[1], "the engine's [Players] tag is read through bornes.engine.record"
    assert second[0] == "2" and second[3:5] == ["dujardin", "3"] and "in progress, 1 action)" in lines[2]


def test_history_speaks_the_tables_language_and_fits_six_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 40: "(in progress, 23 actions)" on a French table, and six players' names pushed the winner
    and totals out of their columns."""
    config = write_config(tmp_path, "/dev/null")
    config.write_text(config.read_text() + '[game]\nedition = "dujardin"\nplayers = 6\n')
    six = ("Françoise", "Jean-Mathieu", "Maëlle", "Élodie", "Bob", "Wim")
    with Journal.open(tmp_path / "state") as journal:
        first = journal.new_game(write_header(GameSetup.create("dujardin", ["Anne", "Bruno"])))
        journal.finish(first, json.dumps({"winner": "Anne", "totals": {"Anne": 5150, "Bruno": 2300}}))
        game = journal.new_game(write_header(GameSetup.create("dujardin", six, teams=True)))
        for seq, line in enumerate(["A play MB-ROLL-01", "B play MB-ROLL-02"]):
            journal.append(game, seq, line)
    assert cli.main(["history", "--config", str(config)]) == 0
    heading, finished, playing = capsys.readouterr().out.splitlines()
    assert heading.split()[:2] == ["partie", "début"] and "joueurs" in heading and "gagnant" in heading
    assert "(en cours, 2 actions)" in playing and "in progress" not in playing
    assert ",".join(six) in playing
    winner = heading.index("gagnant")  # the winner's column starts where its heading does, on every line
    assert finished[winner:].startswith("Anne ") and playing[winner:].startswith("(en cours")
    assert finished[heading.index("joueurs"):].startswith("Anne,Bruno ")


def test_export_record_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write_config(tmp_path, "/dev/null")
    journal_with_games(tmp_path / "state")
    assert cli.main(["export", "1", "--config", str(config)]) == 0
    text = capsys.readouterr().out
    assert text == HEADER + "\n" + "".join(f"{line}\n" for line in ACTIONS)
    setup, lines = read_record(text)  # the engine reads it back as the same game
    assert setup.names == ("Anne", "Bruno") and [line.text for line in lines] == ACTIONS
    assert all(line.error is None for line in lines)
    out = tmp_path / "game2.json"
    assert cli.main(["export", "2", "--format", "json", "--out", str(out), "--config", str(config)]) == 0
    document = json.loads(out.read_text())
    assert document["header"] == "edition: dujardin\nplayers: 3\n"
    assert document["actions"] == ["A play MB-ROLL-04"]
    assert document["status"] == "in-progress" and document["summary"] is None
    assert cli.main(["export", "1", "--format", "json", "--config", str(config)]) == 0
    assert json.loads(capsys.readouterr().out)["summary"]["totals"]["Anne"] == 5150


@pytest.mark.parametrize(
    ("argv", "status", "words"),
    [
        (["export", "7"], 1, "there is no game 7"),  # docs/exit-codes.md: 66 is a missing file
        (["export", "seven"], 64, "'seven' is not a game number"),
        (["export", "1", "--format", "pgn"], 64, "--format 'pgn' is not one of record, json"),
        (["export", "1", "--out", "/nonexistent-dir/x.txt"], 73, "cannot write /nonexistent-dir/x.txt"),
    ],
)
def test_export_errors_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], status: int, words: str
) -> None:
    config = write_config(tmp_path, "/dev/null")
    journal_with_games(tmp_path / "state")
    assert cli.main([*argv, "--config", str(config)]) == status
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and words in captured.err and captured.out == ""


def test_damaged_journal_is_one_line_for_history_and_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write_config(tmp_path, "/dev/null")
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / FILENAME).write_bytes(b"\x00" * 4096)
    for argv in (["history"], ["export", "1"]):
        assert cli.main([*argv, "--config", str(config)]) == 65
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "is damaged" in err and "Traceback" not in err


def test_doctor_says_in_one_line_that_the_pin_maps_chip_is_not_there(tmp_path: Path, pty_port: str,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A pin map on a USB bridge's chip (``[chip] label``) and no such chip: FAIL, the chips there, the fix.
    (tests/kernel/test_wired_table.py meets it with a real chip, and a line another program holds.)"""
    from bornes.drivers import gpiochips

    (tmp_path / "pins.toml").write_text('[chip]\nlabel = "cp2112_gpio"\n[reader]\ninterface = "usb"\n'
                                        "[buttons.OK]\npin = 0\n")
    doctor_run(write_config(tmp_path, pty_port))
    gpio = [line for line in capsys.readouterr().out.splitlines() if " gpio:" in line]
    there = ", ".join(chip.describe() for chip in gpiochips.chips()) or "none"
    assert gpio == [f"FAIL gpio: no GPIO chip labelled 'cp2112_gpio' (chips here: {there}); plug the bridge in, "
                    "or correct [chip] label in the pin map"], gpio


def _desktop_tv_keypad(tmp_path: Path) -> Path:
    config = tmp_path / "desk.toml"
    config.write_text(f'[display]\npanel = "tv"\n[pins]\nfactory = "mock"\n[state]\ndir = "{tmp_path / "state"}"\n'
                      '[buttons]\nsource = "hid"\nport = "05a4:9840"\n', encoding="utf-8")
    return config


def test_doctor_on_a_desktop_names_the_files_and_devices_that_desktop_uses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 40: on a laptop doctor said the TV page's screens go to /run/bornes/tv.json (run --emulate and
    web use the state folder), marked "no such keypad" OK, and listed the laptop's ttyS0 as a found port."""
    from bornes.firmware.appliance.config import control_path, load_config, tv_file

    pytest.importorskip("evdev")
    config = _desktop_tv_keypad(tmp_path)
    doctor_run(config)
    found = findings(capsys.readouterr().out)
    loaded = load_config(str(config))
    emulated = tv_file(loaded, control_path(loaded, True, loaded.state.dir))  # where run --emulate writes it
    [tv] = [text for _level, text in found if text.startswith("tv:")]
    assert str(emulated) in tv and "/run/bornes" not in tv
    [keypad] = [(level, text) for level, text in found if text.startswith("buttons 05a4:9840")]
    assert keypad[0] == "WARN" and "no such keypad" in keypad[1] and "run --emulate types its keys" in keypad[1]
    for _level, text in found:  # a built-in port is no reader: only USB serial ports are named on a desktop
        if text.startswith("serial: found"):
            assert "USB" in text or "ACM" in text or "by-id" in text, text


def test_doctor_names_a_built_in_serial_port_on_a_pi_but_not_on_a_desktop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pyserial lists a laptop's legacy ttyS0 (no USB ids): on a Pi's config it may be the header's UART,
    on a desktop it is never a card reader."""
    from serial.tools import list_ports
    from serial.tools.list_ports_common import ListPortInfo

    from bornes.firmware.appliance.config import load_config

    builtin = ListPortInfo("/dev/ttyS0", skip_link_detection=True)
    usb = ListPortInfo("/dev/ttyUSB7", skip_link_detection=True)
    usb.vid, usb.pid, usb.description = 0x1A86, 0x7523, "USB Serial"
    monkeypatch.setattr(list_ports, "comports", lambda: [builtin, usb])
    desktop = [f for f in doctor.check_serial(load_config(str(_desktop_tv_keypad(tmp_path)))) if f.topic == "serial"]
    assert [f.detail.split()[1] for f in desktop] == ["/dev/ttyUSB7"]
    assert "bornes run --emulate --port /dev/ttyUSB7" in desktop[0].detail
    pi = list(doctor.check_serial(load_config(str(write_config(tmp_path, "/dev/null")))))
    assert {f.detail.split()[1] for f in pi if f.detail.startswith("found")} >= {"/dev/ttyS0", "/dev/ttyUSB7"}
