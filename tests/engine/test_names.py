"""Player names are one engine rule: the engine, a record, the config file and the name editor agree."""

from __future__ import annotations

from pathlib import Path

import pytest

from bornes.engine.reasons import Reason
from bornes.engine.record import RecordError, read_record
from bornes.engine.state import GameSetup, SetupError, check_name, check_names
from bornes.firmware import cli
from bornes.firmware.appliance.config import ConfigError, parse_config
from bornes.firmware.table.flow import Mode, TableFlow
from tests.flow.helpers import accept, drive


@pytest.mark.parametrize("name", ["Ann", "Jean-Luc", "O'Hara", "Zoé", "Twelve chars"])
def test_good_names(name: str) -> None:
    assert check_name(name) is None


@pytest.mark.parametrize("name", ["", "   ", "Ann;1", 'Ann"', "Thirteen char", "tab\there"])
def test_bad_names_are_refused_with_one_line(name: str) -> None:
    refusal = check_name(name)
    assert refusal is not None and refusal.reason is Reason.BAD_NAME
    assert "\n" not in refusal.message


def test_the_same_name_twice_is_refused_whatever_the_case() -> None:
    for names in (["Ann", "Ann"], ["Ann", "Bob", "ANN"], ["Ann", " Ann"]):
        refusal = check_names(names)
        assert refusal is not None and refusal.reason is Reason.DUPLICATE_NAME, names
    assert check_names(["Ann", "Bob"]) is None
    with pytest.raises(SetupError, match="two players are called 'Ann'"):
        GameSetup.create("winning-moves", ["Ann", "Ann"])


def test_a_record_with_a_duplicate_name_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two Anns used to replay, and one side's score sheet vanished from replay --json and history."""
    text = '[Edition "winning-moves"]\n[Players "Ann; Ann"]\n\nB play MB-ROLL-01\n'
    with pytest.raises(RecordError, match="two players are called 'Ann'"):
        read_record(text)
    record = tmp_path / "twins.record"
    record.write_text(text, encoding="utf-8")
    assert cli.main(["replay", str(record), "--json"]) != 0
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "two players are called 'Ann'" in err


def test_the_config_applies_the_engine_rule() -> None:
    """config.py used to accept "Ann;1", which the engine then refused at the table."""
    with pytest.raises(ConfigError, match=r"game\.names"):
        parse_config('[game]\nplayers = 2\nnames = ["Ann;1", "Bob"]\n')
    with pytest.raises(ConfigError, match="same name twice"):
        parse_config('[game]\nplayers = 2\nnames = ["Ann", "ANN"]\n')
    assert parse_config('[game]\nplayers = 2\nnames = ["Ann", "Bob"]\n').game.names == ("Ann", "Bob")


def test_the_name_editor_refuses_a_name_already_at_the_table() -> None:
    flow = TableFlow(players=2, names=("Ann", "Bob"))
    accept(flow, "press OK", "press OK", "press OK", "press NEXT", "press NEXT", "press OK")  # edit Bob
    assert flow.ui.mode is Mode.NAME_EDIT
    # B -> A (BACK), O -> N (BACK), B -> N (12 NEXT): "ANN", then OK on the blank.
    accept(flow, "press BACK", "press OK", "press BACK", "press OK", *["press NEXT"] * 12, "press OK")
    out = drive(flow, "press OK")[0]
    assert out.verdict == "refused" and out.reason == "duplicate-name", out
    assert flow.ui.mode is Mode.NAME_EDIT and flow.draft.names == ["Ann", "Bob"]
