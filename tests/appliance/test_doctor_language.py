"""``bornes doctor`` speaks the table's language (issue 40): README step 4 tells a family to run it.

Its lines are in the config's ``[table] language``, else the edition's (as ``run --emulate`` decides),
or ``--lang``'s. What a person types or a program reads stays as it is: the verdicts OK, WARN and
FAIL (the first word of every line, which scripts and these tests read), config keys, paths, device
names and commands. The system's own error text is said in our words where its kind is known.

The pseudo-locale proves every line came through the catalogue: doctor runs over configs that make
each of its checks speak (unplugged readers and keypad, a damaged journal, a wrong pin map, a state
folder that is a file…), and every word of every line must be accented but the values it names.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from bornes.firmware import cli
from bornes.firmware.appliance.config import load_config
from bornes.firmware.commands import doctor
from bornes.firmware.language.i18n import speaking
from tests.appliance.test_commands import journal_with_games
from tests.i18n import pseudo

REPO = Path(__file__).resolve().parents[2]
NBSP = "\u00a0"
VERDICTS = ("OK", "WARN", "FAIL")

#: Values a line names as they are, in every language: what a person types or the machine calls them.
LITERALS = {
    "python", "mypyc",  # the engine's build
    "ssd1306", "sh1106", "dummy", "tv",  # panels
    "lines", "us", "default", "audio", "folder", "v4l2",  # config values: protocol, layout, sound device, camera
    "reader", "buttons", "debounce", "buzzer", "leds", "chip",  # the pin map's sections
    "root", "gpio", "i2c", "dialout",  # the user and groups
    "numpy", "cv2", "keypad", "VVVV:PPPP",
    "MiB", "KiB",  # units
}
#: The raw words of a parser's own message: the last resort, for the one case no kind of ours fits (a TOML
#: syntax error names its line and column in tomllib's words).
TOML_SYNTAX = re.compile(r"\(at line \d+, column \d+\)|Expected [^(]*|Invalid [^(]*")


def _config(tmp_path: Path, name: str, body: str = "", *, state: str = "", pins: str = "") -> Path:
    """A config in a folder of its own, with the real pin map beside it; ``state`` and ``pins`` add keys."""
    folder = tmp_path / name
    folder.mkdir()
    shutil.copy(REPO / "wiring" / "pins.toml", folder / "pins.toml")
    path = folder / "config.toml"
    path.write_text(f'[pins]\nmap = "pins.toml"\n{pins}[state]\ndir = "{folder / "state"}"\n{state}{body}',
                    encoding="utf-8")
    return path


def _sweep(tmp_path: Path) -> list[Path]:
    """Configs that make every check speak, its good lines and its bad ones."""
    pi = _config(tmp_path, "pi", f'[game]\nedition = "dujardin"\n[reader]\nport = "{tmp_path / "ttyUSB9"}"\n'
                                 '[display]\npanel = "ssd1306"\ni2c_port = 99\n'
                                 '[buttons]\nsource = "hid"\nport = "05a4:9840"\n'
                                 f'[pads.B]\nport = "{tmp_path / "ttyUSB7"}"\n'
                                 '[pads.C]\nprotocol = "hid"\nport = "dead:beef"\n')
    journal_with_games(pi.parent / "state")
    spi = _config(tmp_path, "spi", '[display]\npanel = "ssd1306"\ninterface = "spi"\n'
                                   f'[camera]\nsource = "folder"\ndevice = "{tmp_path / "no-pictures"}"\n'
                                   '[pads.D]\nprotocol = "rc522"\ndevice = 1\n')  # no SPI here
    desktop = _config(tmp_path, "desktop", '[display]\npanel = "tv"\n[sound]\noutput = "audio"\n'
                                           '[buttons]\nsource = "hid"\nport = "05a4:9840"\n', pins='factory = "mock"\n')
    a_file = _config(tmp_path, "state-is-a-file")
    (a_file.parent / "state").write_text("not a folder\n")
    (a_file.parent / "pins.toml").unlink()  # and no pin map
    damaged = _config(tmp_path, "damaged", state="keep_games = 5\n")
    folder = damaged.parent / "state"
    folder.mkdir()
    (folder / "bornes.sqlite3").write_bytes(b"")  # damaged: an empty journal
    (folder / "bornes.lock").mkdir()  # a folder where the lock should be
    (folder / "archive").write_text("a file where the archive folder should be\n")
    (damaged.parent / "pins.toml").unlink()
    (damaged.parent / "pins.toml").mkdir()  # a pin map that is a folder
    syntax = _config(tmp_path, "toml-syntax")
    (syntax.parent / "pins.toml").write_text("[buttons\n")
    section = _config(tmp_path, "pin-section")
    (section.parent / "pins.toml").write_text("[wheels]\nfront = 4\n")
    return [pi, spi, desktop, a_file, damaged, syntax, section]


def _untranslated(line: str, values: list[str]) -> list[str]:
    """The words of one doctor line that did not come through the catalogue, its values left out."""
    verdict, _, rest = line.partition(" ")
    assert verdict in VERDICTS, line  # never translated: scripts read it
    for value in sorted(values, key=len, reverse=True):
        rest = rest.replace(value, " ")
    rest = TOML_SYNTAX.sub(" ", rest)
    # Paths, USB ids, I2C addresses, config keys (pads.B.port) and sections the file names ([wheels]).
    rest = re.sub(r"/\S*|\b[0-9a-f]{4}:[0-9a-f]{4}\b|0x[0-9A-F]{2}|\b[a-z_]+(\.[A-Za-z0-9_]+)+\b|\[[^]]*\]", " ", rest)
    return [word for word in pseudo.untranslated([rest], set()) if word not in LITERALS]


def test_every_line_doctor_prints_comes_through_the_catalogue(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    configs = _sweep(tmp_path)
    code = pseudo.install()
    lines: list[str] = []
    for path in configs:
        config = load_config(str(path))
        with speaking(code):
            doctor._checked(config)
        lines += capsys.readouterr().out.splitlines()
    values = [str(tmp_path), str(REPO), os.getcwd(), *doctor.SPI_FIX.values()]  # commands stay as typed
    wrong = {line: words for line in lines if (words := _untranslated(line, values))}
    assert wrong == {}, "\n".join(f"{words}: {line}" for line, words in wrong.items())
    assert all(pseudo.OPEN in line for line in lines)
    topics = {line.split()[1] for line in lines}
    # Every check spoke, in good and bad news: the sweep is worth what it covers.
    for said in ("config", "engine", "serial", "reader", "pad", "camera", "buttons", "display", "tv", "sound",
                 "gpio", "pins", "state", "storage", "lock", "archive", "journal", "groups"):
        assert pseudo.pseudo(said).strip("«»") in " ".join(topics), said
    assert {line.split()[0] for line in lines} == set(VERDICTS)


def test_doctor_speaks_french_on_a_french_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A Dujardin table on a Pi, nothing plugged in: every line French but its verdict, keys and paths."""
    config = _sweep(tmp_path)[0]
    assert cli.main(["doctor", "--config", str(config)]) == 1
    lines = capsys.readouterr().out.splitlines()
    reader, pad = tmp_path / "ttyUSB9", tmp_path / "ttyUSB7"
    state = config.parent / "state"
    for line in (f"OK   configuration{NBSP}: {config} lu",
                 f"FAIL lecteur {reader}{NBSP}: n'existe pas{NBSP}; branchez le lecteur ou réglez reader.port",
                 f"FAIL plateau B {pad}{NBSP}: n'existe pas{NBSP}; branchez le lecteur ou réglez pads.B.port",
                 f"FAIL boutons 05a4:9840{NBSP}: pas de tel pavé{NBSP}; branchez-le, ou voyez bornes scan-test "
                 "--devices (les cartes de commande servent en attendant)",
                 f"WARN écran /dev/i2c-99{NBSP}: n'existe pas{NBSP}; activez l'I2C{NBSP}: sudo raspi-config "
                 "nonint do_i2c 0",
                 f"OK   état {state}{NBSP}: existe et est inscriptible",
                 f"OK   journal {state / 'bornes.sqlite3'}{NBSP}: 2 parties{NBSP}; partie 2 en cours (1 action)"):
        assert line in lines, (line, lines)
    assert any(line.startswith(f"OK   stockage{NBSP}: ") and "libres" in line for line in lines), lines
    english = ("does not exist", "plug", "parsed", "found", "exists", "games", "free", "No such")
    assert not any(word in line for line in lines for word in english), lines


def test_lang_and_the_tables_language_choose_as_run_does(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = _sweep(tmp_path)[0]
    cli.main(["doctor", "--config", str(config), "--lang", "en"])
    assert f"OK   config: {config} parsed" in capsys.readouterr().out
    cli.main(["--lang", "fr", "doctor", "--config", str(_config(tmp_path, "english", ""))])
    assert f"{NBSP}: " in capsys.readouterr().out
    config.write_text(config.read_text() + '[table]\nlanguage = "en"\n')
    cli.main(["doctor", "--config", str(config)])
    assert f"OK   config: {config} parsed" in capsys.readouterr().out  # a Dujardin table that speaks English


def test_a_system_error_is_said_in_our_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A state folder that cannot be made: the system's "No such file or directory" is the table's words."""
    config = _config(tmp_path, "proc", '[game]\nedition = "dujardin"\n')
    config.write_text(config.read_text().replace(str(config.parent / "state"), "/proc/nope"))
    assert cli.main(["doctor", "--config", str(config)]) == 1
    out = capsys.readouterr().out
    assert f"FAIL état /proc/nope{NBSP}: n'existe pas et ne peut être créé{NBSP}: introuvable{NBSP}; réglez " \
           "state.dir sur un dossier où le service peut écrire" in out.splitlines(), out
    assert "No such file" not in out


def test_every_line_has_a_french_form(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same sweep in English and in French: line for line, the French says something else (not only a
    no-break space), and never the English words of a line."""
    said: dict[str, list[str]] = {}
    for language in ("en", "fr"):
        (tmp_path / language).mkdir()
        for path in _sweep(tmp_path / language):
            with speaking(language):
                doctor._checked(load_config(str(path)))
        said[language] = capsys.readouterr().out.replace(str(tmp_path / language), "<tmp>").splitlines()
    assert len(said["en"]) == len(said["fr"]) > 70
    for english, french in zip(said["en"], said["fr"], strict=True):
        assert english.split()[0] == french.split()[0]  # the same verdict, as it is
        told, dit = english.split(": ", 1)[1], french.split(f"{NBSP}: ", 1)[1]  # what follows the topic
        assert dit.replace(NBSP, " ").replace(" : ", ": ") != told, (english, french)
