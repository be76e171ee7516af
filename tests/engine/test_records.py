"""Regression records (python-chess perft style) and the two engine commands, bornes replay and simulate.

Each ``records/*.record`` is a whole game played by the simulator's bots (``make_records.py``); the
JSON next to it holds every hand's score sheet, the winner and the number of actions. A change in
the engine that changes any verdict or any score shows up here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bornes.engine.game import Game
from bornes.engine.record import read_record, write_record
from bornes.engine.rules import Accepted
from bornes.engine.views import sheets_list
from bornes.firmware import cli

RECORDS = Path(__file__).parent / "records"
NAMES = sorted(p.stem for p in RECORDS.glob("*.record"))


def test_there_are_records_for_every_edition() -> None:
    assert len(NAMES) >= 5
    editions = {read_record((RECORDS / f"{n}.record").read_text(encoding="utf-8"))[0].edition for n in NAMES}
    assert editions == {"winning-moves", "parker-1988", "hasbro-2016", "dujardin", "1000-bornes"}


@pytest.mark.parametrize("name", NAMES)
def test_record_replays_to_the_expected_sheets(name: str) -> None:
    text = (RECORDS / f"{name}.record").read_text(encoding="utf-8")
    expected = json.loads((RECORDS / f"{name}.json").read_text(encoding="utf-8"))
    setup, lines = read_record(text)
    game = Game(setup)
    for line in lines:
        assert line.action is not None, f"line {line.number}: {line.error}"
        verdict = game.push(line.action)
        assert isinstance(verdict, Accepted), f"line {line.number} {line.text}: {verdict}"
    state = game.state
    assert state.over
    assert sheets_list(state) == expected["sheets"]
    assert state.winner == expected["winner"] and state.tie == expected["tie"]
    assert len(game.log) == expected["actions"]
    # The record is what the engine writes, apart from the comment line.
    body = "\n".join(line for line in text.splitlines() if not line.startswith(";")) + "\n"
    assert write_record(setup, game.log) == body


def test_hand_checked_2016_record() -> None:
    """The 2016 record recounted by hand from its lines (001 "End of Mille Bornes": 1 point a mile,
    100 a safety not played as a coup fourré, 200 a coup fourré): Ann & Cy 1000 miles and C's Right
    of Way coup fourré = 1200; Bob & Dee 950 miles, D's Extra Tank and B's Puncture-Proof = 1150."""
    text = (RECORDS / "hasbro-2016-4p-teams-fast.record").read_text(encoding="utf-8")
    setup, lines = read_record(text)
    assert setup.teams and setup.options.fast_play
    points = [0, 0]
    for line in lines:
        words = line.text.split()
        side = setup.side_of("ABCD".index(words[0]))
        if words[1] == "play" and words[2].startswith("MB-D"):
            points[side] += int(words[2].split("-")[1][1:])
        elif words[1] == "play" and any(k in words[2] for k in ("RIGHTOFWAY", "EXTRATANK", "PUNCTURE", "DRIVINGACE")):
            points[side] += 100
        elif words[1] == "coup":
            points[side] += 200
    assert points == [1200, 1150]
    expected = json.loads((RECORDS / "hasbro-2016-4p-teams-fast.json").read_text(encoding="utf-8"))
    totals = [column["Combined total"] for column in expected["sheets"][-1]["sides"].values()]
    assert totals == points and expected["winner"] == 0


# -- bornes replay ----------------------------------------------------------------------------------


def test_bornes_replay_json_prints_every_verdict_and_the_sheets(capsys: pytest.CaptureFixture[str]) -> None:
    path = RECORDS / "winning-moves-2p.record"
    expected = json.loads((RECORDS / "winning-moves-2p.json").read_text(encoding="utf-8"))
    status = cli.main(["replay", str(path), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert status == 0
    assert len(out["actions"]) == expected["actions"]
    assert all(entry["verdict"] == "accepted" for entry in out["actions"])
    lines = path.read_text(encoding="utf-8").splitlines()
    for entry in out["actions"]:
        assert lines[entry["line"] - 1] == entry["action"]
    assert out["hands"] == expected["sheets"]
    assert out["table"]["over"] is True


def test_bornes_replay_reports_a_refused_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "bad.record"
    record.write_text(
        '[Format "bornes-record 1"]\n[Edition "winning-moves"]\n[Players "Ann; Bob"]\n[Dealer "B"]\n\n'
        "A play MB-ROLL-01\nB play MB-STOP-01 > A\nA play MB-D100-01 ; stopped!\nA frobnicate\nA play MB-ROLL-02\n",
        encoding="utf-8",
    )
    status = cli.main(["replay", str(record), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert status == 1
    verdicts = [(e["line"], e["verdict"], e.get("reason")) for e in out["actions"]]
    assert verdicts == [
        (6, "accepted", None),
        (7, "accepted", None),
        (8, "refused", "stopped"),
        (9, "bad-notation", "bad-notation"),
        (10, "accepted", None),
    ]
    status = cli.main(["replay", str(record)])
    text = capsys.readouterr().out
    assert status == 1 and "[stopped]" in text


def test_bornes_replay_bad_header(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "bad.record"
    record.write_text('[Edition "monopoly"]\n[Players "Ann; Bob"]\n\nA play MB-ROLL-01\n', encoding="utf-8")
    assert cli.main(["replay", str(record)]) != 0
    assert "monopoly" in capsys.readouterr().err


# -- bornes simulate ---------------------------------------------------------------------------------


def test_bornes_simulate(capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(["simulate", "--edition", "winning-moves", "--players", "4", "--hands", "50", "--seed", "1"])
    out = capsys.readouterr().out
    assert status == 0
    assert "0 invariant failures" in out and "50 hands" in out


def test_bornes_simulate_json_with_an_option(capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(
        [
            "simulate",
            "--edition",
            "hasbro-2016",
            "--players",
            "3",
            "--hands",
            "5",
            "--seed",
            "2",
            "--option",
            "fast_play=yes",
            "--verify-replay",
            "--json",
        ]
    )
    summary = json.loads(capsys.readouterr().out)
    assert status == 0 and summary["invariant_failures"] == 0 and summary["hands"] == 5


def test_bornes_simulate_refuses_a_bad_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["simulate", "--edition", "winning-moves", "--players", "5", "--hands", "1"]) != 0
    assert "winning-moves" in capsys.readouterr().err
