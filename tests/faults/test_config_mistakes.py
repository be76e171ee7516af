"""Every config mistake of issue 11, item 6 is exit 78 with one line: never a MemoryError, a hang or exit 70.

Each case runs ``bornes run`` in a subprocess with a timeout, as systemd would: a FIFO or
``/dev/zero`` that hung or exhausted memory before would fail here by timing out.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from bench.driver import REPO, bornes_command
from bornes.drivers.errors import EX_CONFIG
from tests.tiers import tiered


def _config(tmp: Path, *, pins: str | None = None, extra: str = "") -> Path:
    reader = tmp / "reader"  # never opened: every case fails before the reader
    pin_line = f'map = "{pins}"\n' if pins else ""
    text = (
        f'[reader]\nport = "{reader}"\n[display]\npanel = "dummy"\n{extra}'
        f'[pins]\nfactory = "mock"\n{pin_line}[state]\ndir = "{tmp / "state"}"\n'
    )
    path = tmp / "config.toml"
    path.write_text(text)
    return path


def _pins_dir(tmp: Path) -> Path:
    return _config(tmp, pins=str(tmp))


def _pins_bad_utf8(tmp: Path) -> Path:
    (tmp / "pins.toml").write_bytes(b"[buttons]\nOK = \"\xff\"\n")
    return _config(tmp, pins=str(tmp / "pins.toml"))


def _pins_loop(tmp: Path) -> Path:
    (tmp / "loop").symlink_to(tmp / "loop")
    return _config(tmp, pins=str(tmp / "loop"))


def _pins_zero(tmp: Path) -> Path:
    return _config(tmp, pins="/dev/zero")


def _pins_fifo(tmp: Path) -> Path:
    os.mkfifo(tmp / "pins.fifo")
    return _config(tmp, pins=str(tmp / "pins.fifo"))


def _config_loop(tmp: Path) -> Path:
    (tmp / "loop.toml").symlink_to(tmp / "loop.toml")
    return tmp / "loop.toml"


def _config_zero(tmp: Path) -> Path:
    return Path("/dev/zero")


def _config_fifo(tmp: Path) -> Path:
    os.mkfifo(tmp / "config.fifo")
    return tmp / "config.fifo"


def _config_bad_utf8(tmp: Path) -> Path:
    path = _config(tmp)
    path.write_bytes(path.read_bytes() + b'[game]\nnames = ["\xc3\x28", "B"]\n')
    return path


def _config_huge(tmp: Path) -> Path:
    path = _config(tmp)
    path.write_bytes(path.read_bytes() + b"#" * (2 * 1024 * 1024) + b"\n")
    return path


def _capture_dir_is_a_file(tmp: Path) -> Path:
    (tmp / "frames").write_text("a file")
    path = _config(tmp)
    path.write_text(path.read_text().replace('panel = "dummy"', f'panel = "capture"\ncapture_dir = "{tmp / "frames"}"'))
    return path


def _state_of_no_user(tmp: Path) -> Path:
    path = _config(tmp)
    path.write_text(path.read_text().replace(f'dir = "{tmp / "state"}"', 'dir = "~nosuchuser/x"'))
    return path


def _nested(tmp: Path) -> Path:
    path = _config(tmp)
    path.write_text(path.read_text() + "[game]\nnames = " + "[" * 10_000 + "]" * 10_000 + "\n")
    return path


CASES: list[tuple[str, Callable[[Path], Path], str]] = [
    ("pins.map is a directory", _pins_dir, "is a directory, not a file"),
    ("pins.map is not UTF-8", _pins_bad_utf8, "is not UTF-8 text"),
    ("pins.map is a symlink loop", _pins_loop, "is a symlink loop"),
    ("pins.map is /dev/zero", _pins_zero, "is a device, not a file"),
    ("pins.map is a FIFO", _pins_fifo, "is a FIFO (named pipe), not a file"),
    ("config is a symlink loop", _config_loop, "is a symlink loop"),
    ("config is /dev/zero", _config_zero, "is a device, not a file"),
    ("config is a FIFO", _config_fifo, "is a FIFO (named pipe), not a file"),
    ("config is not UTF-8", _config_bad_utf8, "not UTF-8"),
    ("config is 2 MB", _config_huge, "is too large"),
    ("capture_dir is a file", _capture_dir_is_a_file, "display.capture_dir"),
    ("state.dir of a user that does not exist", _state_of_no_user, "user 'nosuchuser', who does not exist"),
    ("nesting 10 000 deep", _nested, "nested too deeply"),
]


#: A daemon started per case: the fast tier keeps one of each kind of file that is no config (the whole suite all).
FAST_CASES = {"pins.map is a directory", "config is a FIFO", "config is 2 MB", "nesting 10 000 deep"}


@pytest.mark.parametrize(("name", "make", "words"), tiered(CASES, FAST_CASES))
def test_config_mistake_is_exit_78_and_one_line(tmp_path: Path, name: str, make: Callable[[Path], Path],
                                                 words: str) -> None:
    config = make(tmp_path)
    result = subprocess.run([*bornes_command(), "run", "--config", str(config)], capture_output=True, text=True,
                            timeout=30, cwd=REPO, stdin=subprocess.DEVNULL)
    everything = result.stdout + result.stderr
    assert result.returncode == EX_CONFIG, everything
    assert "Traceback" not in everything and "internal error" not in everything
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and words in lines[0], lines
    assert not (tmp_path / "x").exists() and not (REPO / "~nosuchuser").exists()
