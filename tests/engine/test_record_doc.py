"""docs/record.md: every example in it parses, and every record block replays with no refusal."""

from __future__ import annotations

import re
from pathlib import Path

from bornes.engine.actions import parse_action
from bornes.engine.game import Game
from bornes.engine.record import read_record, write_record
from bornes.engine.rules import Accepted

DOC = (Path(__file__).resolve().parents[2] / "docs" / "record.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```record\n(.*?)```", DOC, flags=re.DOTALL)


def replay(text: str) -> Game:
    setup, lines = read_record(text)
    game = Game(setup)
    for line in lines:
        assert line.action is not None, f"line {line.number}: {line.error}"
        verdict = game.push(line.action)
        assert isinstance(verdict, Accepted), f"line {line.number} {line.text}: {verdict}"
    return game


def test_the_doc_has_record_examples() -> None:
    assert len(BLOCKS) == 2


def test_complete_example_game_replays_to_the_scores_the_doc_gives() -> None:
    game = replay(BLOCKS[0])
    state = game.state
    assert state.over and state.winner == 0
    assert state.sheets[-1].total_for_deal == (1250, 325)
    assert "1250" in DOC and "325" in DOC


def test_classic_example_replays() -> None:
    game = replay(BLOCKS[1])
    hand = game.state.hand
    assert hand.trip == 1000 and hand.extension_by == 0 and hand.sides[0].miles == 700
    assert game.setup.options.shut_out.value == "per-opponent"


def test_example_records_round_trip() -> None:
    for block in BLOCKS:
        game = replay(block)
        text = write_record(game.setup, game.log)
        assert read_record(text)[0] == game.setup
        assert Game(game.setup, [line.action for line in read_record(text)[1] if line.action]).state == game.state


def test_every_verb_example_parses_and_round_trips() -> None:
    examples = re.findall(r"^\| `([^`]+)` \|", DOC, flags=re.MULTILINE)
    verbs = set()
    for line in examples:
        if line.startswith("[") or line in ("Format", "Edition", "Players", "Teams", "Dealer", "Option"):
            continue
        action = parse_action(line)
        assert action.notation() == line
        verbs.add(line.split()[1] if " " in line else line)
    assert verbs == {"play", "discard", "coup", "take", "fast", "swap", "start", "extension", "left", "end", "next"}


def test_every_code_block_action_line_parses() -> None:
    """The layout block's action line and the `bornes` usage lines are what they claim."""
    layout = re.search(r"```\n(\[Format.*?)```", DOC, flags=re.DOTALL)
    assert layout is not None
    setup, lines = read_record(layout.group(1))
    assert setup.teams and setup.dealer == 3 and not setup.options.roll_after_safety
    assert [line.text for line in lines] == ["A play MB-ROLL-01"]
