"""A damaged bindings.json cannot stop the referee (issue 11, item 4)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from bench.driver import Daemon, Pty, write_config
from bornes.drivers.readers.bindings import BindingError, BindingTable, read_bindings_file


def _empty(path: Path) -> None:
    path.write_bytes(b"")


def _deep(path: Path) -> None:
    path.write_text("[" * 100_000 + "]" * 100_000)


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _folder(path: Path) -> None:
    path.mkdir()


def _case_twins(path: Path) -> None:
    bindings = {"04a1b2c3": "MB-D100-01", "04A1B2C3": "MB-D100-02"}
    path.write_text(json.dumps({"format": "bornes-bindings", "version": 1, "bindings": bindings}))


DAMAGE: list[tuple[str, Callable[[Path], None], str]] = [
    ("empty", _empty, "not a bindings file"),
    ("nested 100 000 deep", _deep, "nested too deeply"),
    ("a FIFO", _fifo, "is a FIFO (named pipe), not a file"),
    ("a folder", _folder, "is a directory, not a file"),
    ("two UIDs differing in case", _case_twins, "listed twice"),
]


@pytest.mark.parametrize(("name", "damage", "words"), DAMAGE, ids=[d[0] for d in DAMAGE])
def test_damaged_bindings_are_reported_kept_aside_and_replaced_by_an_empty_table(
    tmp_path: Path, name: str, damage: Callable[[Path], None], words: str
) -> None:
    path = tmp_path / "bindings.json"
    damage(path)
    with pytest.raises(BindingError, match=re.escape(words)):  # enroll --import and friends: one line, refused
        read_bindings_file(path)
    table, problem = BindingTable.load_or_set_aside(path)
    assert problem is not None and words in problem and "moved aside" in problem
    assert len(table) == 0 and table.path == path and not os.path.lexists(path)
    [aside] = [p for p in tmp_path.iterdir() if p.name.startswith("bindings.json.damaged-")]
    assert aside.exists() or aside.is_fifo()


def test_the_referee_runs_on_with_a_damaged_bindings_file(tmp_path: Path) -> None:
    """It used to exit 70 in a loop with a blank panel; now barcodes work and the log says why."""
    state = tmp_path / "state"
    state.mkdir()
    (state / "bindings.json").write_bytes(b"")
    pty = Pty(tmp_path / "reader")
    daemon = Daemon(write_config(tmp_path, pty.link, state=state))
    try:
        daemon.wait_for(lambda line: "tag bindings unusable" in line and "moved aside" in line)
        daemon.wait_up()
        for payload in ("MB-CMD-OK",) * 6 + ("MB-ROLL-01",):
            pty.tap(payload)
        assert daemon.wait_accepted().endswith("play MB-ROLL-01")
    finally:
        assert daemon.stop() == 0
        pty.close()
    assert any(p.name.startswith("bindings.json.damaged-") for p in state.iterdir())


def test_the_panel_says_the_tags_need_re_enrolling(tmp_path: Path) -> None:
    from bornes.firmware.appliance.assembly import Appliance
    from bornes.firmware.appliance.config import parse_config
    from bornes.firmware.table.present import screen

    state = tmp_path / "state"
    state.mkdir()
    (state / "bindings.json").write_text("[" * 5000)
    master, slave = os.openpty()
    try:
        config = parse_config(
            f'[reader]\nport = "{os.ttyname(slave)}"\n[display]\npanel = "dummy"\n[pins]\nfactory = "mock"\n'
            f'[state]\ndir = "{state}"\n'
        )
        appliance = Appliance(config)
        try:
            assert appliance.flow.ui.status == "Tags need re-enrolling"
            view = screen(appliance.flow)
            assert "re-enrol RFID tags" in repr(view)
            assert appliance.reader is not None  # the referee runs on, reader and all
        finally:
            appliance.close()
    finally:
        os.close(master)
        os.close(slave)
