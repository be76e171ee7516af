"""Regressions from the review of the table flow: each one a sequence a real table could play."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from drivers.events import KeyTyped, ReaderLost
from engine.actions import Leftover, Play, Swap
from engine.cards import Card, CardKind
from firmware.cli import main
from firmware.flow import Mode, TableFlow
from firmware.present import screen
from firmware.screens.model import StatusView, TableView
from tests.engine.helpers import ANY_KINDS, filler, new_game, run_down
from tests.flow.helpers import accept, drive, game_flow, table


def test_an_armed_discard_does_not_survive_an_undo() -> None:
    """Bob arms DISCARD, Ann's Roll is undone: Ann's next scan is a play, not Bob's discard."""
    flow = table()
    accept(flow, "scan MB-ROLL-01", "press DISCARD")
    assert drive(flow, "press NEXT")[0].verdict == "ignored"
    view = screen(flow)  # the armed button stays on screen after other inputs
    assert isinstance(view, TableView) and view.message is not None and view.message.text.startswith("DISCARD")
    accept(flow, "press UNDO", "press OK")
    out = drive(flow, "scan MB-ROLL-01")[0]
    assert out.action == Play(0, Card(CardKind.ROLL, 1))


def test_a_refused_card_keeps_discard_armed_but_an_accepted_one_spends_it() -> None:
    flow = table()
    accept(flow, "scan MB-ROLL-01", "press DISCARD")
    assert drive(flow, "scan MB-ROLL-01")[0].reason == "on-table"  # misread: Ann takes it back
    assert flow.ui.discard_armed
    out = drive(flow, "scan MB-D25-01")[0]
    assert out.action is not None and out.action.notation() == "B discard MB-D25-01"
    assert not flow.ui.discard_armed


def test_no_target_prompt_for_a_hazard_the_engine_refuses_anyway() -> None:
    """With three sides the prompt used to open for a card already on the table, then refuse on OK."""
    flow = table(names="Ann,Bob,Cid")
    accept(flow, "scan MB-ROLL-01", "scan MB-ROLL-02", "scan MB-ROLL-03", "scan MB-STOP-01", "press SEAT2")
    out = drive(flow, "scan MB-STOP-01")[0]
    assert (out.verdict, out.reason) == ("refused", "on-table")
    assert flow.ui.mode is Mode.PLAY and flow.ui.pending is None


def test_no_target_prompt_when_the_attacker_has_not_started() -> None:
    flow = table(names="Ann,Bob,Cid", attack_needs_own_roll="yes")
    accept(flow, "scan MB-ROLL-01", "scan MB-ROLL-02")  # two rolling opponents for the third seat
    out = drive(flow, "scan MB-STOP-01")[0]
    assert (out.verdict, out.reason) == ("refused", "attacker-not-started")
    assert flow.ui.mode is Mode.PLAY
    # 001 "FAQ": a Speed Limit is allowed before one's own first Roll, so it asks "on whom?".
    out = drive(flow, "scan MB-SPEEDLIMIT-01")[0]
    assert out.verdict == "prompt" and flow.ui.mode is Mode.TARGET


def test_a_seat_button_says_whose_leftover_cards_these_are() -> None:
    game = new_game("1000-bornes", 3)
    run_down(game, 1)
    filler(game, ANY_KINDS)
    assert game.state.to_act() == (0, 1, 2)
    flow = game_flow(game)
    unseen = [c for c in _all(game) if c not in game.state.hand.seen]
    accept(flow, "press SEAT3")
    first = drive(flow, f"scan {unseen[0].code()}")[0]
    assert first.action == Leftover(2, unseen[0])
    second = drive(flow, f"scan {unseen[1].code()}")[0]  # the seat stays chosen while Cid shows
    assert second.action == Leftover(2, unseen[1])


def test_one_bad_card_does_not_throw_away_a_swap() -> None:
    flow = table(fast_play="yes")
    accept(flow, "scan MB-ROLL-01", "scan MB-ROLL-02")
    drive(flow, "press DISCARD long", "scan MB-D25-01", "scan MB-D25-02")
    assert drive(flow, "scan MB-ROLL-01")[0].reason == "on-table"
    assert flow.ui.mode is Mode.SWAP and flow.ui.swap_cards == [Card(CardKind.D25, 1), Card(CardKind.D25, 2)]
    out = drive(flow, "press OK")[0]
    assert isinstance(out.action, Swap) and len(out.action.cards) == 2


def test_reader_lost_stays_on_screen_when_a_game_starts() -> None:
    flow = TableFlow(players=2)
    flow.handle(ReaderLost("unplugged"))
    accept(flow, *["press OK"] * 6)
    view = screen(flow)
    assert isinstance(view, TableView) and view.status == "Reader lost"


def test_a_refusal_shows_over_a_prompt() -> None:
    flow = table(names="Ann,Bob,Cid")
    accept(flow, "scan MB-ROLL-01", "scan MB-ROLL-02", "scan MB-ROLL-03", "scan MB-STOP-01")
    assert flow.ui.mode is Mode.TARGET
    out = drive(flow, "scan MB-D25-01")[0]
    assert out.reason == "prompt-open"
    view = screen(flow)
    assert isinstance(view, StatusView) and "Answer the question" in view.detail
    drive(flow, "press NEXT")  # the next input brings the prompt back
    assert flow.ui.mode is Mode.TARGET and not isinstance(screen(flow), StatusView)


def test_a_seat_button_with_a_non_ascii_digit_is_a_bad_line_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "s.feed"
    script.write_text("setup edition=winning-moves names=Ann,Bob\npress SEAT²\n", encoding="utf-8")
    assert main(["feed", str(script), "--json"]) == 0
    verdicts = [entry["verdict"] for entry in json.loads(capsys.readouterr().out)["inputs"]]
    assert verdicts == ["accepted", "bad-input"]
    typed = table().handle(KeyTyped("seat²"))
    assert (typed.verdict, typed.reason) == ("refused", "bad-input")


def _all(game: object) -> list[Card]:
    from engine.cards import iter_deck

    return list(iter_deck(game.setup.deck))  # type: ignore[attr-defined]
