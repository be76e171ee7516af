"""Bad configs: every broken config file, a missing one and an unusable state directory stop
``bornes run`` with one line naming the problem and a non-zero exit, never a traceback.

Each case runs the real daemon in a subprocess, as systemd would, starting from a config that
works (dummy panel, mock pins, a pty reader) and breaking one thing.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bench.driver import REPO, bornes_command
from tests.tiers import tiered

Sections = dict[str, dict[str, object]]


@pytest.fixture(autouse=True)
def _reader_port(tmp_path: Path) -> Iterator[None]:
    """A pty behind ``tmp_path/reader``: the good config's reader exists, so only the break fails."""
    master, slave = os.openpty()
    (tmp_path / "reader").symlink_to(os.ttyname(slave))
    yield
    os.close(master)
    os.close(slave)


def _good(tmp: Path) -> Sections:
    return {
        "reader": {"protocol": "lines", "port": str(tmp / "reader"), "double_read_window": 0},
        "display": {"panel": "dummy"},
        "pins": {"factory": "mock"},
        "state": {"dir": str(tmp / "state")},
        "game": {"players": 2, "names": ["Anne", "Bruno"]},
    }


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return str(value)


def _render(sections: Sections) -> str:
    out = []
    for name, table in sections.items():
        if not isinstance(table, dict):
            out.insert(0, f"{name} = {_toml(table)}")
            continue
        out.append(f"[{name}]")
        for key, value in table.items():
            if isinstance(value, dict):
                continue
            out.append(f"{key} = {_toml(value)}")
        for key, value in table.items():
            if isinstance(value, dict):
                out.append(f"[{name}.{key}]")
                out += [f"{k} = {_toml(v)}" for k, v in value.items()]
    return "\n".join(out) + "\n"


def _set(section: str, key: str, value: object) -> Callable[[Sections, Path], None]:
    def change(sections: Sections, tmp: Path) -> None:
        sections.setdefault(section, {})[key] = value

    return change


def _state_under_a_file(sections: Sections, tmp: Path) -> None:
    blocker = tmp / "not-a-folder"
    blocker.write_text("a regular file where a folder should be\n")
    sections["state"]["dir"] = str(blocker / "state")


def _state_is_a_file(sections: Sections, tmp: Path) -> None:
    blocker = tmp / "state-file"
    blocker.write_text("x")
    sections["state"]["dir"] = str(blocker)


def _capture_without_dir(sections: Sections, tmp: Path) -> None:
    sections["display"]["panel"] = "capture"


def _section_not_a_table(sections: Sections, tmp: Path) -> None:
    sections["reader"] = 3  # type: ignore[assignment]


def _pins_map_missing(sections: Sections, tmp: Path) -> None:
    sections["pins"]["map"] = str(tmp / "no-such-pins.toml")


def _bad_option(sections: Sections, tmp: Path) -> None:
    sections["game"]["options"] = {"no_such_rule": True}


# (name, how to break the good config, words the one line must contain)
CASES: list[tuple[str, Callable[[Sections, Path], None], str]] = [
    ("unknown section", _set("speakers", "volume", 3), "unknown section"),
    ("unknown key", _set("reader", "speed", 9600), "unknown key reader.speed"),
    ("section not a table", _section_not_a_table, "reader"),
    ("bad protocol", _set("reader", "protocol", "usb"), "reader.protocol"),
    ("bad baudrate", _set("reader", "baudrate", 1234), "reader.baudrate"),
    ("empty port", _set("reader", "port", "  "), "reader.port"),
    ("negative double read window", _set("reader", "double_read_window", -1), "reader.double_read_window"),
    ("quiet gap not a number", _set("reader", "quiet_gap", "fast"), "reader.quiet_gap"),
    ("max backoff out of range", _set("reader", "max_backoff", 0), "reader.max_backoff"),
    ("unknown panel", _set("display", "panel", "ssd9999"), "display.panel"),
    ("bad i2c address", _set("display", "i2c_address", "0xZZ"), "display.i2c_address"),
    ("rotate out of range", _set("display", "rotate", 7), "display.rotate"),
    ("capture without a folder", _capture_without_dir, "capture_dir"),
    ("bad interface", _set("display", "interface", "usb"), "display.interface"),
    ("bad pin factory", _set("pins", "factory", "magic"), "pins.factory"),
    ("missing pin map", _pins_map_missing, "no-such-pins.toml"),
    ("unknown edition", _set("game", "edition", "monopoly"), "game.edition"),
    ("seat count the edition lacks", _set("game", "players", 5), "game.players"),
    ("same name twice", _set("game", "names", ["Anne", "Anne"]), "game.names"),
    ("name too long", _set("game", "names", ["Anne", "A" * 30]), "game.names"),
    ("dealer out of range", _set("game", "dealer", 5), "game.dealer"),
    ("unknown rule option", _bad_option, "no_such_rule"),
    ("boolean that is a string", _set("sound", "muted", "yes"), "sound.muted"),
    ("bad log level", _set("log", "level", "loud"), "log.level"),
    ("state dir under a regular file", _state_under_a_file, "state.dir"),
    ("state dir is a file", _state_is_a_file, "state.dir"),
]


def _run(config: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*bornes_command(), "run", "--config", str(config)], capture_output=True, text=True,
                          timeout=30, cwd=REPO)


def _one_line(result: subprocess.CompletedProcess[str], words: str) -> None:
    everything = result.stdout + result.stderr
    assert result.returncode != 0, everything
    assert "Traceback" not in everything, everything
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, f"not one line: {lines}"
    assert "starting with" not in result.stdout, result.stdout  # issue 19: one line, not two
    assert words in lines[0], lines[0]


#: A daemon started for each case: the fast tier breaks one key of each section (tests/appliance/test_config.py
#: checks every key in-process), the whole suite every case.
FAST_CASES = {"unknown section", "bad protocol", "unknown panel", "bad pin factory", "unknown edition",
              "boolean that is a string", "bad log level", "state dir is a file"}


@pytest.mark.parametrize(("name", "breaks", "words"), tiered(CASES, FAST_CASES))
def test_broken_config_is_one_line_and_a_failure(tmp_path: Path, name: str,
                                                 breaks: Callable[[Sections, Path], None], words: str) -> None:
    sections = _good(tmp_path)
    breaks(sections, tmp_path)
    config = tmp_path / "config.toml"
    config.write_text(_render(sections))
    _one_line(_run(config), words)


@pytest.mark.parametrize(("name", "content", "words"), [
    ("toml syntax error", b"[reader\nport = 1\n", "TOML syntax error"),
    ("not utf-8", b"[game]\nnames = [\"\xff\xfe\"]\n", "not UTF-8"),
    ("duplicate key", b"[reader]\nport = \"a\"\nport = \"b\"\n", "TOML syntax error"),
])
def test_unreadable_toml_is_one_line(tmp_path: Path, name: str, content: bytes, words: str) -> None:
    config = tmp_path / "config.toml"
    config.write_bytes(content)
    _one_line(_run(config), words)


def test_missing_config_file(tmp_path: Path) -> None:
    _one_line(_run(tmp_path / "nowhere.toml"), "no such file")


def test_config_that_is_a_folder(tmp_path: Path) -> None:
    _one_line(_run(tmp_path), "is a directory")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a chmod 000 file anyway")
def test_config_without_read_permission(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(_render(_good(tmp_path)))
    config.chmod(0)
    _one_line(_run(config), "cannot read")


def test_a_good_config_starts(tmp_path: Path) -> None:
    """The baseline the cases break: it runs (and stops on SIGTERM)."""
    config = tmp_path / "config.toml"
    config.write_text(_render(_good(tmp_path)))
    process = subprocess.Popen([*bornes_command(), "run", "--config", str(config)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, cwd=REPO)
    assert process.stdout is not None
    for line in process.stdout:
        if "referee up" in line:
            break
    process.terminate()
    assert process.wait(10) == 0
