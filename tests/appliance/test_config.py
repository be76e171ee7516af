"""A bad config stops bornes with one line naming the key, and exit status 78."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from bornes.firmware import cli
from bornes.firmware.appliance.config import (
    DEFAULT_NAMES,
    SECTIONS,
    Config,
    ensure_state_dir,
    load_config,
    parse_config,
)
from bornes.firmware.appliance.tomlcheck import ConfigError

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "config" / "bornes.sample.toml"

# (id, file content, words the one-line message must contain)
BROKEN: list[tuple[str, str | bytes, tuple[str, ...]]] = [
    ("toml-syntax", "[reader\nport = 1\n", ("TOML syntax error", "line 1")),
    ("toml-duplicate-key", '[reader]\nport = "a"\nport = "b"\n', ("TOML syntax error", "line 3")),
    ("unknown-section", "[readr]\nport = '/dev/x'\n", ("[readr]", "known sections: reader, display")),
    ("unknown-key", "[reader]\nprot = 'lines'\n", ("reader.prot", "known keys in [reader]: protocol, port")),
    ("section-not-table", 'state = "/var/lib/bornes"\n', ("state", "should be a table")),
    ("protocol-enum", "[reader]\nprotocol = 'wiegand'\n", ('reader.protocol = "wiegand"', "lines, em4100, pn532")),
    ("port-type", "[reader]\nport = 5\n", ("reader.port = 5", "not a string")),
    ("port-empty", "[reader]\nport = ''\n", ("reader.port", "empty")),
    ("baudrate-value", "[reader]\nbaudrate = 1234\n", ("reader.baudrate = 1234", "9600, 19200")),
    ("baudrate-type", "[reader]\nbaudrate = 'fast'\n", ("reader.baudrate", "not a whole number")),
    ("window-negative", "[reader]\ndouble_read_window = -1\n", ("reader.double_read_window = -1", "0 to 10")),
    ("gap-bool", "[reader]\nquiet_gap = true\n", ("reader.quiet_gap = true", "not a number")),
    ("gap-nan", "[reader]\nquiet_gap = nan\n", ("reader.quiet_gap = nan", "out of range")),
    ("backoff-range", "[reader]\nmax_backoff = 1000\n", ("reader.max_backoff = 1000", "0.1 to 60")),
    ("panel-enum", '[display]\npanel = "ssd9999"\n', ('display.panel = "ssd9999"', "ssd1306, sh1106, ssd1309")),
    ("interface-enum", '[display]\ninterface = "usb"\n', ("display.interface", "i2c, spi")),
    ("address-text", '[display]\ni2c_address = "0xZZ"\n', ("display.i2c_address", "0x3C")),
    ("address-range", "[display]\ni2c_address = 200\n", ("display.i2c_address = 200", "3 to 119")),
    ("rotate-range", "[display]\nrotate = 4\n", ("display.rotate = 4", "0 to 3")),
    ("port-float", "[display]\ni2c_port = 1.5\n", ("display.i2c_port = 1.5", "not a whole number")),
    ("capture-needs-dir", '[display]\npanel = "capture"\n', ("display.capture_dir",)),
    ("gif-needs-path", '[display]\npanel = "gif"\n', ("display.gif_path",)),
    ("factory-enum", '[pins]\nfactory = "rpigpio"\n', ('pins.factory = "rpigpio"', "auto, mock")),
    ("pin-map-empty", '[pins]\nmap = ""\n', ("pins.map", "empty")),
    ("muted-string", '[sound]\nmuted = "no"\n', ('sound.muted = "no"', "true or false")),
    ("edition-enum", '[game]\nedition = "monopoly"\n', ("game.edition", "winning-moves, parker-1988")),
    ("players-for-edition", "[game]\nplayers = 5\n", ("game.players = 5", "2, 3, 4, 6")),
    ("players-range", "[game]\nplayers = 12\n", ("game.players = 12", "2 to 8")),
    ("names-too-few", '[game]\nnames = ["Anne"]\n', ("game.names", "1 name but game.players = 4")),
    ("names-twice", '[game]\nplayers = 2\nnames = ["Anne", "Anne"]\n', ("game.names", "same name twice")),
    ("names-long", '[game]\nplayers = 2\nnames = ["Anne", "Bartholomew-Jr"]\n', ("game.names", "1 to 12")),
    ("names-type", "[game]\nnames = 4\n", ("game.names = 4", "list of names")),
    ("dealer-seat", "[game]\nplayers = 2\ndealer = 2\n", ("game.dealer = 2", "0 to 1")),
    ("option-value", '[game.options]\nhazard_on_hazard = "maybe"\n', ("game.options.hazard_on_hazard", "yes or no")),
    ("option-unknown", "[game.options]\nno_such = true\n", ("game.options.no_such", "unknown rule option")),
    ("option-enum", "[game.options]\nempty_draw_pile = 5\n", ("game.options.empty_draw_pile", "play-out, reshuffle")),
    ("options-not-table", "[game]\noptions = 3\n", ("game.options = 3", "should be a table")),
    ("state-dir-type", "[state]\ndir = 7\n", ("state.dir = 7", "not a string")),
    ("log-level", '[log]\nlevel = "verbose"\n', ('log.level = "verbose"', "debug, info, warning, error")),
    ("not-utf8", b"[reader]\nport = '\xff\xfe'\n", ("not UTF-8",)),
    # The choices, every one a real one (issue 29: "is not one of , en, fr" offered an empty choice).
    ("language-unknown", '[table]\nlanguage = "klingon"\n', ('table.language = "klingon"',
                                                              "choose en (English) or fr (Français)")),
    ("language-empty", '[table]\nlanguage = ""\n', ('table.language = ""', "en (English) or fr (Français)")),
]


@pytest.mark.parametrize(("content", "words"), [(c, w) for _, c, w in BROKEN], ids=[i for i, _, _ in BROKEN])
def test_broken_config_stops_doctor_with_one_line_and_exit_78(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | bytes, words: tuple[str, ...]
) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    before = sorted(p.name for p in tmp_path.iterdir())
    status = cli.main(["doctor", "--config", str(path)])
    out, err = capsys.readouterr()
    assert status == 78
    assert out == "", "nothing was checked with a bad config"
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"bornes: config {path}: ")
    for word in words:
        assert word in lines[0]
    assert "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == before, "a bad config changes nothing"


@pytest.mark.parametrize("written", ["fr", "FR", "fr_FR", "fr-CA", "fr_FR.UTF-8", "french", "French", "Français",
                                     "francais", " fr "])
def test_the_table_language_in_the_forms_people_write_it(written: str) -> None:
    """A locale, a name in English or in French, any case: the table speaks French (issue 29)."""
    assert parse_config(f'[table]\nlanguage = "{written}"\n').table.language == "fr"
    assert parse_config('[table]\nlanguage = "en_GB"\n').table.language == "en"


def test_no_choice_list_offers_an_empty_choice() -> None:
    for _id, content, _words in BROKEN:
        if isinstance(content, bytes):
            continue
        with pytest.raises(ConfigError) as raised:
            parse_config(content)
        assert not re.search(r"(one of|choose)\s*(,|or\b)", str(raised.value)), str(raised.value)


def test_the_broken_cases_are_at_least_twenty_kinds() -> None:
    assert len({i for i, _, _ in BROKEN}) == len(BROKEN) >= 20


def test_missing_or_unreadable_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["doctor", "--config", str(tmp_path / "nope.toml")]) == 78
    assert capsys.readouterr().err == f"bornes: config {tmp_path / 'nope.toml'}: no such file\n"
    assert cli.main(["doctor", "--config", str(tmp_path)]) == 78
    assert "is a directory" in capsys.readouterr().err


def test_environment_names_the_file_and_its_absence_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "env.toml"
    path.write_text('[reader]\nport = "/dev/ttyACM0"\n')
    monkeypatch.setenv("BORNES_CONFIG", str(path))
    config = load_config(None)
    assert config.reader.port == "/dev/ttyACM0" and config.source == str(path)
    assert load_config(str(SAMPLE)).source == str(SAMPLE), "--config wins over the environment"
    monkeypatch.setenv("BORNES_CONFIG", str(tmp_path / "gone.toml"))
    with pytest.raises(ConfigError, match=r"gone\.toml: no such file"):
        load_config(None)


def test_missing_default_file_gives_defaults_and_says_so(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delenv("BORNES_CONFIG", raising=False)
    monkeypatch.setattr("bornes.firmware.appliance.config.DEFAULT_CONFIG_PATH", str(tmp_path / "absent.toml"))
    with caplog.at_level("WARNING", logger="bornes.config"):
        config = load_config(None)
    assert config == Config() and config.source is None
    assert "no config file at" in caplog.text and "absent.toml" in caplog.text


def test_sample_config_documents_every_key_and_equals_the_defaults() -> None:
    config = load_config(str(SAMPLE))
    assert config == Config(), "the sample shows the defaults; change both together"
    text = SAMPLE.read_text()
    for section, cls in SECTIONS.items():
        assert re.search(rf"^\[{section}\]", text, re.M), section
        for f in dataclasses.fields(cls):
            pattern = rf"^#?\s*{f.name}\s*=|^\[{section}\.{f.name}\]"
            assert re.search(pattern, text, re.M), f"{section}.{f.name} is not in the sample"


def test_good_values_in_every_accepted_form(tmp_path: Path) -> None:
    config = parse_config(
        """
        [reader]
        protocol = "pn532"
        [display]
        panel = "capture"
        capture_dir = "frames"
        i2c_address = 61
        [pins]
        map = "pins.toml"
        factory = "mock"
        [game]
        edition = "hasbro-2016"
        players = 5
        names = ["A", "B", "C", "D", "E"]
        dealer = 4
        [game.options]
        game_target = 2500
        draw_from_discard = false
        short_trip_seats = [2, 3]
        empty_draw_pile = "end-hand"
        [state]
        dir = "~/games"
        """,
        "test.toml",
        base_dir=tmp_path,
    )
    assert config.reader.baud == 115200 and config.reader.baudrate is None
    assert config.display.i2c_address == 0x3D and config.display.capture_dir == str(tmp_path / "frames")
    assert config.pins.map == str(tmp_path / "pins.toml")
    assert config.game.names == ("A", "B", "C", "D", "E") and config.game.dealer == 4
    options = config.game.rule_options()
    assert options.game_target == 2500 and options.short_trip_seats == (2, 3) and not options.draw_from_discard
    assert config.state.dir == str(Path("~/games").expanduser())
    assert parse_config('[display]\ni2c_address = "0x3d"').display.i2c_address == 0x3D
    assert parse_config("[reader]\nbaudrate = 19200").reader.baud == 19200
    assert Config().game.names == DEFAULT_NAMES


def test_state_dir_that_cannot_be_created_is_one_line_exit_78(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    config = parse_config(f'[state]\ndir = "{blocker}/state"', "c.toml")
    with pytest.raises(ConfigError) as caught:
        ensure_state_dir(config)
    assert caught.value.exit_code == 78 and "state.dir" in str(caught.value) and "\n" not in str(caught.value)
    good = parse_config(f'[state]\ndir = "{tmp_path}/a/b"', "c.toml")
    assert ensure_state_dir(good) == tmp_path / "a" / "b" and (tmp_path / "a" / "b").is_dir()
    assert list((tmp_path / "a" / "b").iterdir()) == [], "the write test leaves nothing behind"
