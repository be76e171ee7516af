"""Pile pads: the pad a card is laid on names the pile (docs/readers.md, Pads).

The pad only says which action is meant; every verdict is still the engine's (000 §7 for the
coup fourré, 000 §5 for whose turn it is). Cards arrive as the readers make them:
``CardScanned(…, pad=…)`` from a resolver that knows its pad.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bornes.drivers.events import ButtonPressed, CardScanned, InputEvent, KeyTyped
from bornes.drivers.readers.resolver import CardResolver
from bornes.engine.cards import Card
from bornes.engine.state import GameSetup
from bornes.firmware.commands.feed import ScriptError, feed, input_event
from bornes.firmware.table.flow import Mode, Outcome, TableFlow

GAMES = Path(__file__).parent / "games"


def laid(code: str, pad: str | None) -> CardScanned:
    event = CardResolver(pad=pad).resolve(code)
    assert isinstance(event, CardScanned), event
    return event


def table(names: tuple[str, ...], dealer: int, **options: str) -> TableFlow:
    flow = TableFlow()
    teams = len(names) == 4
    edition = GameSetup.create("winning-moves", list(names), teams=teams, dealer=dealer)
    setup = GameSetup.create("winning-moves", list(names), teams=teams, dealer=dealer,
                             options=edition.options.with_strings(options))
    flow.start_game(setup)
    return flow


def play(flow: TableFlow, *events: InputEvent) -> list[Outcome]:
    return [flow.handle(event) for event in events]


def rolled(flow: TableFlow, seats: int) -> None:
    for seat in range(seats):
        outcome = flow.handle(laid(f"MB-ROLL-{seat + 1:02d}", "ABCD"[seat]))
        assert outcome.verdict == "accepted", outcome


def three() -> TableFlow:
    flow = table(("Ann", "Bob", "Cid"), dealer=2)  # Ann starts
    rolled(flow, 3)
    return flow


def test_a_hazard_on_an_opponents_pad_goes_there_without_a_question() -> None:
    flow = three()
    assert flow.handle(laid("MB-D100-01", "A")).verdict == "accepted"
    # Bob's turn; two sides could take a Stop, and the pad says which: one input each way.
    outcome = flow.handle(laid("MB-STOP-01", "C"))
    assert outcome.action is not None and outcome.action.notation() == "B play MB-STOP-01 > C"
    assert flow.ui.mode is Mode.PLAY
    # The same card through the table's own pad (or a one-reader table) still asks.
    flow2 = three()
    flow2.handle(laid("MB-D100-01", None))
    for pad in (None, "table"):
        asked = flow2.handle(laid("MB-STOP-01", pad))
        assert asked.verdict == "prompt" and flow2.ui.mode is Mode.TARGET
        assert flow2.handle(ButtonPressed("BACK")).verdict == "prompt"


def test_the_matching_safety_on_ones_own_pad_is_the_coup_fourre() -> None:
    flow = three()
    play(flow, laid("MB-D100-01", "A"))
    outcome = flow.handle(laid("MB-STOP-01", "A"))  # Bob stops Ann; Cid is next in turn
    assert outcome.verdict == "accepted"
    cf = flow.handle(laid("MB-RIGHTOFWAY-01", "A"))  # Ann, out of turn, on her own pad
    assert cf.action is not None and cf.action.notation() == "A coup MB-RIGHTOFWAY-01"
    assert flow.state is not None and flow.state.hand.turn == 0  # the caller plays again


def test_the_matching_safety_in_turn_is_still_the_coup_fourre() -> None:
    flow = three()
    play(flow, laid("MB-D100-01", "A"))
    flow.handle(laid("MB-STOP-01", "C"))  # Bob stops Cid, who plays next anyway
    cf = flow.handle(laid("MB-RIGHTOFWAY-01", "C"))
    assert cf.action is not None and cf.action.notation() == "C coup MB-RIGHTOFWAY-01"
    plain = flow.handle(laid("MB-EXTRATANK-01", "C"))  # his extra turn: a safety that answers nothing is a play
    assert plain.action is not None and plain.action.notation() == "C play MB-EXTRATANK-01"


def test_a_safety_that_answers_nothing_is_refused_with_the_engines_reason() -> None:
    flow = three()
    play(flow, laid("MB-D100-01", "A"))
    flow.handle(laid("MB-STOP-01", "A"))  # Bob stops Ann; Cid plays next
    log = list(flow.game.log) if flow.game else []
    refused = flow.handle(laid("MB-EXTRATANK-01", "A"))  # Extra Tank does not answer a Stop
    assert refused.refused and refused.reason
    assert flow.game is not None and list(flow.game.log) == log


def test_a_card_on_the_pad_of_a_seat_that_may_not_act_is_refused() -> None:
    flow = three()
    before = flow.state
    outcome = flow.handle(laid("MB-D25-01", "B"))  # Ann's turn
    assert (outcome.verdict, outcome.reason) == ("refused", "not-your-turn")
    assert "Ann" in outcome.message
    assert flow.state is before
    far = flow.handle(laid("MB-D25-01", "E"))
    assert (far.verdict, far.reason) == ("refused", "no-such-seat")


def test_the_discard_pad_discards_in_one_tap() -> None:
    flow = three()
    outcome = flow.handle(laid("MB-D25-01", "discard"))
    assert outcome.action is not None and outcome.action.notation() == "A discard MB-D25-01"


def test_own_pad_plays_and_a_hazard_on_ones_own_pad_asks_as_the_table_does() -> None:
    flow = three()
    assert flow.handle(laid("MB-D100-01", "A")).action is not None
    asked = flow.handle(laid("MB-STOP-01", "B"))  # Bob on his own pad: the pad says nothing here
    assert asked.verdict == "prompt" and flow.ui.mode is Mode.TARGET


def test_in_a_partnership_the_pad_names_the_partner_who_called_it() -> None:
    flow = table(("Ann", "Bob", "Cid", "Dee"), dealer=3)  # Ann starts; Ann+Cid against Bob+Dee
    rolled(flow, 2)  # Ann rolls for Ann+Cid, Bob for Bob+Dee
    assert flow.handle(laid("MB-D100-01", "C")).verdict == "accepted"
    assert flow.handle(laid("MB-STOP-01", "A")).verdict == "accepted"  # Dee stops Ann+Cid, on Ann's pad
    # Both partners may call it (with the CF button the referee would ask which); Cid's pad says.
    cf = flow.handle(laid("MB-RIGHTOFWAY-01", "C"))
    assert cf.action is not None and cf.action.notation() == "C coup MB-RIGHTOFWAY-01"
    assert flow.ui.mode is Mode.PLAY  # no partner prompt


def test_fast_play_remedy_on_the_attacked_pad_out_of_turn() -> None:
    flow = table(("Ann", "Bob", "Cid"), dealer=2, fast_play="yes")
    rolled(flow, 3)
    flow.handle(laid("MB-D100-01", "A"))
    flow.handle(laid("MB-STOP-01", "A"))  # Bob stops Ann; Cid plays next
    fast = flow.handle(laid("MB-ROLL-04", "A"))
    assert fast.action is not None and fast.action.notation().startswith("A fast MB-ROLL-04"), fast


def test_the_emulator_takes_a_pad_before_the_code() -> None:
    flow = three()
    assert flow.handle(KeyTyped("@a MB-D100-01")).verdict == "accepted"
    outcome = flow.handle(KeyTyped("@C MB-STOP-01"))
    assert outcome.action is not None and outcome.action.notation() == "B play MB-STOP-01 > C"
    bad = flow.handle(KeyTyped("@Z MB-D25-01"))
    assert (bad.verdict, bad.reason) == ("refused", "bad-input")


def test_feed_syntax_for_pads() -> None:
    resolver = CardResolver()
    event = input_event(["scan@b", "MB-STOP-01"], resolver)
    assert isinstance(event, CardScanned) and event.pad == "B" and event.card == Card.from_code("MB-STOP-01")
    assert input_event(["scan@Discard", "MB-D25-01"], resolver).pad == "discard"  # type: ignore[union-attr]
    with pytest.raises(ScriptError):
        input_event(["scan@9", "MB-D25-01"], resolver)


def test_the_table_pad_changes_nothing_in_a_whole_game() -> None:
    """three-players-hazards.feed with every scan on the table's pad plays exactly as it does."""
    text = (GAMES / "three-players-hazards.feed").read_text(encoding="utf-8")
    plain = feed(text, TableFlow())
    padded = feed(text.replace("\nscan ", "\nscan@table "), TableFlow())
    assert [(e["verdict"], e.get("action")) for e in padded] == [(e["verdict"], e.get("action")) for e in plain]


def test_every_hazard_and_coup_fourre_in_the_pad_game_is_one_input() -> None:
    text = (GAMES / "three-sides-pads.feed").read_text(encoding="utf-8")
    results = feed(text, TableFlow())
    pad_inputs = [e for e in results if str(e["input"]).startswith("scan@") and "@table" not in str(e["input"])]
    hazards = [e for e in pad_inputs if " > " in str(e.get("action", ""))]
    coups = [e for e in pad_inputs if " coup " in str(e.get("action", ""))]
    assert len(hazards) >= 5 and len(coups) == 2
    assert all(e["verdict"] == "accepted" for e in hazards + coups)


def test_the_status_says_reader_lost_until_every_pad_is_back() -> None:
    from bornes.drivers.events import ReaderBack, ReaderLost

    flow = three()
    flow.handle(ReaderLost("/dev/input/by-id/usb-pad-b: No such device", "pad B"))
    flow.handle(ReaderLost("/dev/ttyUSB1: No such device", "pad C"))
    flow.handle(ReaderBack("/dev/input/by-id/usb-pad-b", "pad B"))
    assert flow.ui.status == "Reader lost"  # pad C is still away
    flow.handle(ReaderBack("/dev/ttyUSB1", "pad C"))
    assert flow.ui.status is None
    assert flow.handle(laid("MB-D25-01", "A")).verdict == "accepted"  # nothing was changed meanwhile


def test_the_journal_keeps_the_pad_and_the_pages_say_where_it_was_laid(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """The phone pages and the club board read the journal: a pad is a comment on the action line."""
    import json as json_module

    from bornes.firmware.cli import main
    from bornes.firmware.storage.journal import Journal
    from bornes.firmware.storage.live import JournalFollower

    script = tmp_path / "pads.feed"
    script.write_text("setup names=Ann,Bob,Cid dealer=C\nscan@A MB-ROLL-01\nscan@B MB-ROLL-02\nscan MB-ROLL-03\n"
                      "scan@A MB-D100-01\nscan@C MB-STOP-01\nscan@discard MB-D25-01\n", encoding="utf-8")
    state = tmp_path / "state"
    capsys.readouterr()
    assert main(["feed", str(script), "--state-dir", str(state), "--json"]) == 0
    first = json_module.loads(capsys.readouterr().out)
    with Journal.open(state, readonly=True) as journal:
        current = journal.current_game()
        assert current is not None
        lines = current.lines
    assert lines == ["A play MB-ROLL-01 ; pad A", "B play MB-ROLL-02 ; pad B", "C play MB-ROLL-03",
                     "A play MB-D100-01 ; pad A", "B play MB-STOP-01 > C ; pad C", "C discard MB-D25-01 ; pad discard"]
    with JournalFollower(state) as follower:
        follower.refresh(force=True)
        words = [entry["text"] for entry in follower.snapshot()["last_actions"]]
    assert "Bob plays Stop on Cid, on Cid's pad" in words
    assert any(w.startswith("Cid discards") and w.endswith(", on the discard pad") for w in words), words
    assert "Cid plays Roll" in words  # laid on no pad: the words as before
    # The game resumes from those lines (a restart of the referee), and goes on.
    more = tmp_path / "more.feed"
    more.write_text("scan@A MB-D75-01\n", encoding="utf-8")
    assert main(["feed", str(more), "--state-dir", str(state), "--json"]) == 0
    resumed = json_module.loads(capsys.readouterr().out)
    assert resumed["inputs"][0]["action"] == "A play MB-D75-01"
    assert resumed["table"]["sides"][0]["miles"] == first["table"]["sides"][0]["miles"] + 75
