"""Records with a doubtful tag or a byte order mark (issue 19, item 5): refused in one line, or read as meant."""

from __future__ import annotations

from pathlib import Path

import pytest

from bornes.engine.record import RecordError, read_record
from bornes.firmware.cli import main

HEADER = '[Edition "winning-moves"]\n[Players "Anne; Bruno"]\n'


@pytest.mark.parametrize("value", ["maybe", "Yes", "", "no "])
def test_teams_is_yes_or_no_never_a_guess(value: str) -> None:
    """``[Teams "maybe"]`` was read as no: a partnership game could replay as a solo one."""
    with pytest.raises(RecordError, match="Teams must be yes or no"):
        read_record(HEADER + f'[Teams "{value}"]\n\n')


def test_a_byte_order_mark_is_not_part_of_the_first_tag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Notepad saves UTF-8 with a BOM; it got 'header has no Edition tag'."""
    setup, lines = read_record("\ufeff" + HEADER + "\nB play MB-ROLL-01\n")
    assert setup.edition == "winning-moves" and [line.text for line in lines] == ["B play MB-ROLL-01"]
    record = tmp_path / "game.record"
    record.write_bytes(b"\xef\xbb\xbf" + (HEADER + "\nB play MB-ROLL-01\n").encode())
    assert main(["replay", str(record)]) == 0
    assert "no Edition tag" not in capsys.readouterr().err
