"""Whole games as ``bornes feed`` scripts, checked against score sheets computed by hand.

Each ``games/NAME.feed`` carries its arithmetic in comments; ``games/NAME.expected.json`` is
that arithmetic as the score sheets ``bornes feed --json`` prints. A line whose comment says
"refused" must be refused; every other line must be accepted or open a prompt.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bornes.firmware.cli import main
from bornes.firmware.storage.journal import Journal

GAMES = Path(__file__).parent / "games"
GAME_NAMES = sorted(p.stem for p in GAMES.glob("*.feed"))


def run_feed(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    capsys.readouterr()
    code = main(["feed", *args, "--json"])
    out = capsys.readouterr().out
    result: dict[str, Any] = json.loads(out)
    refused = any(entry["verdict"] == "refused" for entry in result["inputs"])
    assert code == (1 if refused else 0), out  # docs/feed.md: 1 when the referee refused an input
    return result


def test_there_are_games() -> None:
    assert {"two-players-classic", "four-players-partnership", "hasbro-2016", "mille-bornes-fr"} <= set(GAME_NAMES)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_game_scores_as_computed_by_hand(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    script = GAMES / f"{name}.feed"
    expected = json.loads((GAMES / f"{name}.expected.json").read_text(encoding="utf-8"))
    out = run_feed(capsys, str(script))
    raw_lines = script.read_text(encoding="utf-8").splitlines()
    for entry in out["inputs"]:
        comment = raw_lines[entry["line"] - 1].partition("#")[2]
        if "refused" in comment:
            assert entry["verdict"] == "refused", entry
        else:
            assert entry["verdict"] in ("accepted", "prompt"), entry
    assert out["sheets"] == expected


def _actions(out: dict[str, Any]) -> list[str]:
    return [e["action"] for e in out["inputs"] if "action" in e]


def test_two_players_game_details(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_feed(capsys, str(GAMES / "two-players-classic.feed"))
    actions = _actions(out)
    assert "A coup MB-RIGHTOFWAY-01" in actions
    assert "A extension no" in actions and "B extension yes" in actions
    assert actions.count("next") == 1
    table = out["table"]
    assert (table["hand"], table["dealer"], table["phase"], table["trip"]) == (2, "A", "hand-over", 1000)
    assert [s["score"] for s in table["sides"]] == [2375, 1600]
    screens = {e["input"]: e["screen"] for e in out["inputs"]}
    assert screens["press CF"] == "CoupFourrePrompt"


def test_partnership_game_asks_which_partner(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_feed(capsys, str(GAMES / "four-players-partnership.feed"))
    by_input = [(e["input"], e) for e in out["inputs"]]
    index = next(i for i, (text, _) in enumerate(by_input) if text.startswith("scan MB-RIGHTOFWAY-01"))
    assert by_input[index][1]["verdict"] == "prompt"
    assert by_input[index][1]["screen"] == "PartnerPrompt"
    ok = by_input[index + 1][1]  # NEXT names the second partner at once: three inputs for the coup fourré
    assert ok["action"] == "C coup MB-RIGHTOFWAY-01"
    assert "Ann and Bob lose their turn" in ok["message"]
    assert by_input[index + 2][1]["action"] == "C play MB-D100-04"  # the caller's extra turn


def test_2016_game_takes_the_top_discard(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_feed(capsys, str(GAMES / "hasbro-2016.feed"))
    actions = _actions(out)
    i = actions.index("B discard MB-D75-01")
    assert actions[i + 1 : i + 3] == ["A take MB-D75-01", "A play MB-D75-01"]
    assert out["table"]["over"] and out["table"]["winner"] == "Ann"
    assert out["table"]["sides"][0]["miles"] == 1075


def test_1000_bornes_game_shows_leftovers(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_feed(capsys, str(GAMES / "mille-bornes-fr.feed"))
    left = [a for a in _actions(out) if " left " in a]
    assert [a[0] for a in left] == ["A"] * 6 + ["B"] * 6
    assert out["table"]["phase"] == "game-over" and out["table"]["winner"] == "Ann"


def test_a_card_shown_twice_is_refused_at_the_end(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    text = (GAMES / "mille-bornes-fr.feed").read_text(encoding="utf-8")
    head, _, _ = text.partition("# Ann shows her six cards")
    script = tmp_path / "twice.feed"
    script.write_text(head + "scan MB-D50-01\nscan MB-D50-01\nscan MB-D100-01\n", encoding="utf-8")
    out = run_feed(capsys, str(script))
    last = out["inputs"][-3:]
    assert last[0]["action"] == "A left MB-D50-01"
    assert (last[1]["verdict"], last[1]["reason"]) == ("refused", "on-table")
    assert (last[2]["verdict"], last[2]["reason"]) == ("refused", "on-table")  # on the table already
    assert out["table"]["phase"] == "leftovers"


# -- bornes feed --state-dir: a script fed in two runs ends where one run ends -----------------


def _split(text: str, after: str) -> tuple[str, str]:
    lines = text.splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if line.startswith(after)) + 1
    return "".join(lines[:cut]), "".join(lines[cut:])


def _journal_lines(state: Path) -> tuple[str, list[str]]:
    with Journal.open(state, readonly=True) as journal:
        games = journal.history()
        record = journal.load(games[-1].game_id)
    assert record is not None
    return record.status, record.lines


@pytest.mark.parametrize(
    ("game", "after"),
    [
        ("two-players-classic", "scan MB-D100-03"),  # mid hand 1
        ("two-players-classic", "scan MB-D100-07"),  # the extension question is open
        ("two-players-classic", "press OK                 # Ann stops"),  # score sheet showing
        ("two-players-classic", "scan MB-D200-02"),  # mid hand 2
        ("mille-bornes-fr", "scan MB-D75-02"),  # in the middle of the leftovers
    ],
)
def test_state_dir_resumes_where_the_first_run_stopped(
    game: str, after: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (GAMES / f"{game}.feed").read_text(encoding="utf-8")
    whole = run_feed(capsys, str(GAMES / f"{game}.feed"), "--state-dir", str(tmp_path / "one"))
    first, second = _split(text, after)
    (tmp_path / "first.feed").write_text(first, encoding="utf-8")
    (tmp_path / "second.feed").write_text(second, encoding="utf-8")
    state = tmp_path / "two"
    half = run_feed(capsys, str(tmp_path / "first.feed"), "--state-dir", str(state))
    assert half["table"] != whole["table"]
    rest = run_feed(capsys, str(tmp_path / "second.feed"), "--state-dir", str(state))
    assert rest["table"] == whole["table"]
    assert rest["sheets"] == whole["sheets"]
    assert _journal_lines(state) == _journal_lines(tmp_path / "one")
    assert [e["verdict"] for e in half["inputs"] + rest["inputs"]] == [e["verdict"] for e in whole["inputs"]]


def test_state_dir_finished_game_is_not_resumed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "state"
    run_feed(capsys, str(GAMES / "hasbro-2016.feed"), "--state-dir", str(state))
    status, lines = _journal_lines(state)
    assert status == "finished" and lines[-1] == "A play MB-D100-08"
    again = tmp_path / "again.feed"
    again.write_text("scan MB-ROLL-01\n", encoding="utf-8")
    out = run_feed(capsys, str(again), "--state-dir", str(state))
    assert out["table"] is None  # no game in progress: back at the setup menu
    assert out["inputs"][0]["reason"] == "no-game"


# -- docs/feed.md: the worked example is run and its printed output compared ---------------------

DOC = Path(__file__).resolve().parents[2] / "docs" / "feed.md"


def _doc_blocks() -> tuple[str, str]:
    text = DOC.read_text(encoding="utf-8")
    example = text.split("## Worked example", 1)[1]
    script = example.split("```feed\n", 1)[1].split("```", 1)[0]
    output = example.split("```json\n", 1)[1].split("```", 1)[0]
    return script, output


def test_the_worked_example_in_the_doc_prints_what_the_doc_shows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script, output = _doc_blocks()
    path = tmp_path / "example.feed"
    path.write_text(script, encoding="utf-8")
    assert run_feed(capsys, str(path)) == json.loads(output)


def test_the_doc_names_every_button_and_line_kind() -> None:
    text = DOC.read_text(encoding="utf-8")
    for word in ("`CF`", "`DISCARD`", "`UNDO`", "`OK`", "`NEXT`", "`BACK`", "`SEAT1`", "`SEAT8`", "long",
                 "`setup", "`scan", "`press", "#"):
        assert word in text, word


def test_the_doc_example_sheet_is_the_hand_computed_one() -> None:
    _, output = _doc_blocks()
    sheet = json.loads(output)["sheets"][0]["sides"]
    # Ann: 700 miles + 0 safeties (played as a coup fourré) + 200 coup fourré = 900; Bob: 75 + 100 = 175
    assert (sheet["Ann"]["Combined total"], sheet["Bob"]["Combined total"]) == (900, 175)
