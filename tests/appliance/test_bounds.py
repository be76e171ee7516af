"""Bounds on what a user can type or feed (issue 11, item 7): refused at once, in one line, not after 39 s."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from bornes.drivers.errors import EX_DATAERR
from bornes.firmware.cli import main


def _feed(tmp_path: Path, script: str, capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    path = tmp_path / "script.txt"
    path.write_text(script)
    assert main(["feed", "--json", str(path)]) == EX_DATAERR  # a bad line (issue 19: feed says so)
    return json.loads(capsys.readouterr().out)["inputs"]  # type: ignore[no-any-return]


@pytest.mark.parametrize(("line", "words"), [
    ("setup players=30000000", "players must be a number from 2 to 8"),
    ("setup players=9", "players must be a number from 2 to 8"),
    ("setup players=-1", "players must be a number from 2 to 8"),
    ("setup players=٣", "players must be a number from 2 to 8"),  # a digit, but not an ASCII one
    ("setup names=" + ",".join(f"N{i}" for i in range(100_000)), "more than 8 players"),
    ("setup names=Ann," + "B" * 1_000_000, "must be 1–12 printable characters"),
])
def test_setup_numbers_and_names_are_bounded(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             line: str, words: str) -> None:
    started = time.perf_counter()
    [entry] = _feed(tmp_path, line + "\n", capsys)
    assert time.perf_counter() - started < 5
    assert entry["verdict"] == "bad-input" and words in str(entry["message"]), entry


def test_a_feed_script_and_a_record_have_a_size_bound(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    big = tmp_path / "big.txt"
    big.write_text("press OK\n" * 600_000)  # 5.4 MB
    for command in (["feed", str(big)], ["feed", "--json", str(big)], ["replay", "--json", str(big)]):
        started = time.perf_counter()
        assert main(command) == EX_DATAERR
        assert time.perf_counter() - started < 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "is too large" in err, err
