"""The table flow during a hand: scans, buttons and prompts become engine actions or change nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bornes.drivers.events import KeyTyped, ReaderBack, ReaderLost, ReaderProblem, UnknownScanned
from bornes.engine.actions import CoupFourre, Leftover, Play, Swap
from bornes.engine.cards import Card, CardKind
from bornes.engine.state import Phase
from bornes.firmware.cli import main
from bornes.firmware.screens.model import (
    CoupFourrePrompt,
    ExtensionPrompt,
    GameOverView,
    PartnerPrompt,
    ScoreSheetView,
    SetupSummaryView,
    StatusView,
    TableView,
    TargetPrompt,
    UndoPrompt,
)
from bornes.firmware.storage.journal import Journal
from bornes.firmware.storage.store import JournalStore
from bornes.firmware.table.flow import Mode, Outcome, Sound, TableFlow, Verdict
from bornes.firmware.table.present import screen
from tests.engine.helpers import ANY_KINDS, filler, new_game, play, run_down
from tests.flow.helpers import accept, drive, game_flow, table


def mode_of(flow: TableFlow) -> Mode:
    """The mode as of now (mypy keeps an asserted mode narrowed across the inputs that change it)."""
    return flow.ui.mode


def unchanged(flow: TableFlow, line: str, reason: str) -> None:
    """``line`` is refused with ``reason`` and the game is exactly as it was."""
    assert flow.game is not None
    before, log = flow.game.state, list(flow.game.log)
    out = drive(flow, line)[0]
    assert (out.verdict, out.reason) == ("refused", reason), out
    assert flow.game.state is before and flow.game.log == log
    assert out.sound is Sound.REFUSE and out.action is None


def three_rolling() -> TableFlow:
    flow = table(names="Ann,Bob,Cid")
    accept(flow, "scan MB-ROLL-01", "scan MB-ROLL-02", "scan MB-ROLL-03")
    return flow


# -- plain plays, refusals, discards ----------------------------------------------------------


def test_a_scan_plays_for_the_player_in_turn() -> None:
    flow = table()
    out = drive(flow, "scan MB-ROLL-01")[0]
    assert (out.verdict, out.action, out.sound) == ("accepted", Play(0, Card(CardKind.ROLL, 1)), Sound.ACCEPT)
    out = drive(flow, "scan MB-ROLL-02")[0]
    assert out.action == Play(1, Card(CardKind.ROLL, 2))
    assert flow.state is not None and flow.state.hand.turn == 0
    assert [a.notation() for a in flow.game.log] == ["A play MB-ROLL-01", "B play MB-ROLL-02"]  # type: ignore[union-attr]


def test_verdicts_are_a_closed_set() -> None:
    """Code compares verdicts as enum members; a misspelt one fails where it is made, not far away."""
    outcome = drive(table(), "scan MB-ROLL-01")[0]
    assert outcome.verdict is Verdict.ACCEPTED and outcome.verdict.value == "accepted"  # feed's JSON keeps the word
    with pytest.raises(ValueError):
        Outcome("acepted", "typo")  # type: ignore[arg-type]


def test_refusals_change_nothing_and_give_the_engine_reason() -> None:
    flow = table()
    unchanged(flow, "scan MB-D100-01", "not-rolling")
    accept(flow, "scan MB-ROLL-01")
    unchanged(flow, "scan MB-ROLL-01", "on-table")  # Bob scans Ann's Roll again
    unchanged(flow, "scan MB-STOP-05", "not-in-deck")  # taken out for 2 players
    unchanged(flow, "scan MB-ENDOFLIMIT-01", "no-limit")
    accept(flow, "scan MB-STOP-01")  # Bob stops Ann
    unchanged(flow, "scan MB-D25-01", "stopped")
    unchanged(flow, "scan MB-GASOLINE-01", "nothing-to-remedy")
    assert flow.ui.refused and flow.ui.message == "No Out of Gas to cure"


def test_discard_then_scan_discards() -> None:
    flow = table()
    assert drive(flow, "press DISCARD")[0].message == "Scan the card to discard"
    out = drive(flow, "scan MB-D100-01")[0]
    assert out.action is not None and out.action.notation() == "A discard MB-D100-01"
    assert flow.state is not None and flow.state.hand.discard[-1] == Card(CardKind.D100, 1)
    drive(flow, "press DISCARD", "press DISCARD")  # pressed twice: cancelled
    assert drive(flow, "scan MB-ROLL-02")[0].action == Play(1, Card(CardKind.ROLL, 2))


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
    assert flow.ui.armed.discard
    out = drive(flow, "scan MB-D25-01")[0]
    assert out.action is not None and out.action.notation() == "B discard MB-D25-01"
    assert not flow.ui.armed.discard


# -- the target prompt ------------------------------------------------------------------------


def test_target_prompt_next_then_ok_targets_the_second_opponent() -> None:
    flow = three_rolling()
    before = flow.game.state  # type: ignore[union-attr]
    out = drive(flow, "scan MB-STOP-01")[0]
    assert (out.verdict, out.sound) == ("prompt", Sound.ATTENTION)
    assert flow.game.state is before  # type: ignore[union-attr]
    view = screen(flow)
    assert isinstance(view, TargetPrompt) and view.options == ("Bob", "Cid") and view.selected == 0
    unchanged(flow, "scan MB-D100-01", "prompt-open")
    accept(flow, "press NEXT")
    assert screen(flow).selected == 1  # type: ignore[union-attr]
    out = drive(flow, "press OK")[0]
    assert out.action is not None and out.action.notation() == "A play MB-STOP-01 > C"
    assert flow.ui.mode is Mode.PLAY and isinstance(screen(flow), TableView)


def test_target_prompt_seat_button_targets_directly() -> None:
    flow = three_rolling()
    drive(flow, "scan MB-STOP-01")
    out = drive(flow, "press SEAT2")[0]
    assert out.action is not None and out.action.notation() == "A play MB-STOP-01 > B"


def test_seat_button_before_the_scan_skips_the_prompt() -> None:
    flow = three_rolling()
    assert drive(flow, "press SEAT3")[0].message == "Cid chosen"
    out = drive(flow, "scan MB-ACCIDENT-01")[0]
    assert out.action is not None and out.action.notation() == "A play MB-ACCIDENT-01 > C"


def test_target_prompt_back_cancels_and_changes_nothing() -> None:
    flow = three_rolling()
    before = flow.game.state  # type: ignore[union-attr]
    drive(flow, "scan MB-STOP-01", "press NEXT")
    out = drive(flow, "press BACK")[0]
    assert out.message == "Cancelled: take the card back"
    assert flow.game.state is before and len(flow.game.log) == 3  # type: ignore[union-attr]
    assert flow.ui.mode is Mode.PLAY and flow.ui.choice.pending is None
    out = drive(flow, "scan MB-D100-01")[0]  # Ann plays something else
    assert out.action == Play(0, Card(CardKind.D100, 1))


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


def test_one_possible_target_needs_no_prompt() -> None:
    flow = table(names="Ann,Bob,Cid")
    accept(flow, "scan MB-ROLL-01", "scan MB-ROLL-02")
    accept(flow, "press DISCARD", "scan MB-D25-01")  # Cid has not started: only Bob can be stopped
    out = drive(flow, "scan MB-STOP-01")[0]
    assert out.action is not None and out.action.notation() == "A play MB-STOP-01"
    assert flow.state is not None and flow.state.hand.sides[1].active_hazard is CardKind.STOP


def test_no_target_prompt_for_a_hazard_the_engine_refuses_anyway() -> None:
    """With three sides the prompt used to open for a card already on the table, then refuse on OK."""
    flow = table(names="Ann,Bob,Cid")
    accept(flow, "scan MB-ROLL-01", "scan MB-ROLL-02", "scan MB-ROLL-03", "scan MB-STOP-01", "press SEAT2")
    out = drive(flow, "scan MB-STOP-01")[0]
    assert (out.verdict, out.reason) == ("refused", "on-table")
    assert flow.ui.mode is Mode.PLAY and flow.ui.choice.pending is None


def test_no_target_prompt_when_the_attacker_has_not_started() -> None:
    flow = table(names="Ann,Bob,Cid", attack_needs_own_roll="yes")
    accept(flow, "scan MB-ROLL-01", "scan MB-ROLL-02")  # two rolling opponents for the third seat
    out = drive(flow, "scan MB-STOP-01")[0]
    assert (out.verdict, out.reason) == ("refused", "attacker-not-started")
    assert flow.ui.mode is Mode.PLAY
    # 001 "FAQ": a Speed Limit is allowed before one's own first Roll, so it asks "on whom?".
    out = drive(flow, "scan MB-SPEEDLIMIT-01")[0]
    assert out.verdict == "prompt" and mode_of(flow) is Mode.TARGET  # read again: the scan moved the flow on


# -- coups fourrés ------------------------------------------------------------------------------


def test_coup_fourre_in_two_players_and_the_turn_after_it() -> None:
    flow = table()
    accept(flow, "scan MB-ROLL-01", "scan MB-ROLL-02", "scan MB-STOP-01")  # Ann stops Bob
    out = drive(flow, "press CF")[0]
    assert out.message == "Coup fourré! Scan your safety"
    assert isinstance(screen(flow), CoupFourrePrompt)
    out = drive(flow, "scan MB-RIGHTOFWAY-01")[0]
    assert (out.action, out.sound) == (CoupFourre(1, Card(CardKind.RIGHT_OF_WAY, 1)), Sound.COUP_FOURRE)
    state = flow.state
    assert state is not None
    assert state.hand.turn == 1  # Bob plays again
    assert state.hand.sides[1].coups == (CardKind.RIGHT_OF_WAY,)
    assert state.hand.discard[-1] == Card(CardKind.STOP, 1)  # the Stop went to the discard pile
    accept(flow, "scan MB-D100-01")
    assert flow.state.hand.turn == 0 and flow.state.hand.sides[1].miles == 100  # type: ignore[union-attr]


def test_coup_fourre_in_three_players_skips_the_seat_in_between() -> None:
    flow = three_rolling()
    accept(flow, "scan MB-FLATTIRE-01", "press SEAT3")  # Ann: Flat Tire on Cid; Bob is next
    out = drive(flow, "press CF", "scan MB-PUNCTUREPROOF-01")[1]
    assert out.action == CoupFourre(2, Card(CardKind.PUNCTURE_PROOF, 1))
    assert "Bob lose" in out.message
    assert flow.state is not None and flow.state.hand.turn == 2


def test_wrong_safety_is_refused_and_the_window_stays_open() -> None:
    flow = table()
    accept(flow, "scan MB-ROLL-01", "scan MB-ROLL-02", "scan MB-STOP-01", "press CF")
    unchanged(flow, "scan MB-DRIVINGACE-01", "wrong-safety")
    out = drive(flow, "scan MB-RIGHTOFWAY-01")[0]
    assert out.action == CoupFourre(1, Card(CardKind.RIGHT_OF_WAY, 1))


def test_coup_fourre_without_a_fresh_hazard_is_refused() -> None:
    flow = table()
    accept(flow, "scan MB-ROLL-01", "scan MB-ROLL-02", "scan MB-STOP-01", "scan MB-ROLL-03")  # Bob rolls again
    drive(flow, "press CF")
    unchanged(flow, "scan MB-RIGHTOFWAY-01", "no-window")
    assert not flow.ui.armed.cf


def four_players_with_a_stop_on_ann_and_cid() -> TableFlow:
    flow = table(names="Ann,Bob,Cid,Dee")
    accept(flow, "scan MB-ROLL-01", "scan MB-ROLL-02", "scan MB-D100-01", "scan MB-STOP-01")  # Dee stops A&C
    return flow


def test_partner_prompt_when_both_partners_hold_cards() -> None:
    flow = four_players_with_a_stop_on_ann_and_cid()
    before = flow.game.state  # type: ignore[union-attr]
    out = drive(flow, "press CF", "scan MB-RIGHTOFWAY-01")[1]
    assert (out.verdict, out.message) == ("prompt", "Who called it? OK: Ann, NEXT: Cid")
    assert flow.game.state is before  # type: ignore[union-attr]
    view = screen(flow)
    assert isinstance(view, PartnerPrompt) and view.names == ("Ann", "Cid") and view.selected == 0
    assert view.hint[0] == "OK Ann   NEXT Cid"
    out = drive(flow, "press NEXT")[0]  # one press: NEXT is the second partner
    assert out.action == CoupFourre(2, Card(CardKind.RIGHT_OF_WAY, 1))
    assert "Ann and Bob lose their turn" in out.message
    assert flow.state is not None and flow.state.hand.turn == 2  # Cid's extra turn
    accept(flow, "scan MB-D100-02")
    assert flow.state.hand.turn == 3  # then Dee, to Cid's left


def test_partner_prompt_seat_button_and_back() -> None:
    flow = four_players_with_a_stop_on_ann_and_cid()
    before = flow.game.state  # type: ignore[union-attr]
    drive(flow, "press CF", "scan MB-RIGHTOFWAY-01", "press BACK")
    assert flow.game.state is before and flow.ui.mode is Mode.PLAY and not flow.ui.armed.cf  # type: ignore[union-attr]
    out = drive(flow, "press CF", "scan MB-RIGHTOFWAY-01", "press SEAT1")[2]
    assert out.action == CoupFourre(0, Card(CardKind.RIGHT_OF_WAY, 1))
    assert flow.state is not None and flow.state.hand.turn == 0


def test_partner_prompt_refuses_a_wrong_safety_before_asking() -> None:
    flow = four_players_with_a_stop_on_ann_and_cid()
    out = drive(flow, "press CF", "scan MB-EXTRATANK-01")[1]
    assert (out.verdict, out.reason) == ("refused", "wrong-safety")
    assert flow.ui.mode is Mode.PLAY


def test_no_partner_prompt_when_only_one_partner_still_holds_cards() -> None:
    # Build a play-out: the draw pile runs down, Ann plays a safety for an extra turn so she
    # empties her hand first, then Bob stops Ann & Cid while Cid still holds a card.
    game = new_game("winning-moves", 4)
    play(game, "A play MB-ROLL-01")
    keep = frozenset({"MB-STOP-01", "MB-RIGHTOFWAY-01", "MB-EXTRATANK-01"})
    run_down(game, 0, keep=tuple(keep))
    while game.state.hand.turn != 0:
        filler(game, ANY_KINDS, keep)
    play(game, "A play MB-EXTRATANK-01")
    while not (game.state.hand.hands[0] == 0 and game.state.hand.turn == 1):
        filler(game, ANY_KINDS, keep)
    hand = game.state.hand
    assert hand.draw_pile == 0 and hand.hands[0] == 0 and hand.hands[2] == 1
    flow = game_flow(game)
    accept(flow, "scan MB-STOP-01")  # Bob stops Ann & Cid
    out = drive(flow, "press CF", "scan MB-RIGHTOFWAY-01")[1]
    assert out.verdict == "accepted", out
    assert out.action == CoupFourre(2, Card(CardKind.RIGHT_OF_WAY, 1))  # Cid, without asking


# -- extension, end of hand, next hand, game over ------------------------------------------------


def at_700() -> TableFlow:
    flow = table()
    accept(flow, "scan MB-ROLL-01", "press DISCARD", "scan MB-D50-01")
    for n in range(1, 7):
        accept(flow, f"scan MB-D100-0{n}", "press DISCARD", f"scan MB-D25-0{n}")
    out = accept(flow, "scan MB-D100-07")[0]
    assert out.message == "Ann reached 700: extend to 1000?"
    return flow


def test_extension_yes_goes_on_to_1000() -> None:
    flow = at_700()
    view = screen(flow)
    assert isinstance(view, ExtensionPrompt) and view.player_name == "Ann" and view.selected_yes
    unchanged(flow, "scan MB-D25-07", "wrong-phase")
    out = drive(flow, "press OK")[0]
    assert out.action is not None and out.action.notation() == "A extension yes"
    state = flow.state
    assert state is not None and state.phase is Phase.PLAY and state.hand.trip == 1000 and state.hand.turn == 1


def test_extension_no_ends_the_hand() -> None:
    flow = at_700()
    accept(flow, "press NEXT")
    assert not screen(flow).selected_yes  # type: ignore[union-attr]
    accept(flow, "press BACK", "press NEXT")  # BACK toggles too
    out = drive(flow, "press OK")[0]
    assert out.action is not None and out.action.notation() == "A extension no"
    assert out.sound is Sound.HAND_END
    assert flow.state is not None and flow.state.phase is Phase.HAND_OVER
    assert flow.state.sheets[-1].row("Trip completed") == (400, 0)


def test_score_sheet_pages_and_ok_deals_the_next_hand_with_the_next_dealer() -> None:
    flow = at_700()
    drive(flow, "press NEXT", "press OK")
    view = screen(flow)
    assert isinstance(view, ScoreSheetView) and view.page == 0 and view.title == "Hand 1"
    accept(flow, "press NEXT", "press NEXT")
    assert screen(flow).page == 2  # type: ignore[union-attr]
    accept(flow, "press BACK", "press BACK")
    assert screen(flow).page == 0  # type: ignore[union-attr]
    accept(flow, "press BACK")  # BACK on the first page: the renderer wraps to the last page
    assert screen(flow).page == -1  # type: ignore[union-attr]
    unchanged(flow, "scan MB-ROLL-02", "wrong-phase")
    out = drive(flow, "press OK")[0]
    assert out.action is not None and out.action.notation() == "next"
    state = flow.state
    assert state is not None and state.hand.number == 2
    assert state.hand.dealer == 0 and state.hand.turn == 1  # Bob dealt hand 1; now Ann deals, Bob starts
    assert state.totals == (1900, 0)  # 700 + 400 trip + 300 safe trip + 500 shut-out


def test_game_over_ok_returns_to_setup_and_the_journal_marks_the_game_finished(tmp_path: Path) -> None:
    with Journal.open(tmp_path) as journal:
        flow = table("hasbro-2016", store=JournalStore(journal))
        accept(flow, "scan MB-ROLL-01", "scan MB-ROLL-02", "scan MB-D200-01", "press DISCARD", "scan MB-D25-01",
               "scan MB-D200-02", "press DISCARD", "scan MB-D25-02")
        for n in range(1, 7):
            accept(flow, f"scan MB-D100-0{n}")
            if n < 6:
                accept(flow, "press DISCARD", f"scan MB-D50-0{n}")
        assert flow.state is not None and flow.state.phase is Phase.GAME_OVER
        view = screen(flow)
        assert isinstance(view, GameOverView) and view.winner == "Ann"
        assert journal.current_game() is None
        info = journal.history()[-1]
        assert info.status == "finished" and info.actions == len(flow.game.log)  # type: ignore[union-attr]
        assert '"winner": "Ann"' in (info.summary or "")
        unchanged(flow, "press UNDO", "nothing-to-undo")
        accept(flow, "press OK")
        assert flow.game is None and flow.ui.mode is Mode.SETUP
        view = screen(flow)  # the same table again: one OK starts it
        assert isinstance(view, SetupSummaryView) and view.sides == "Ann, Bob" and view.detail == "Bob deals"
        accept(flow, "press OK")
        assert flow.game is not None and flow.game.setup.names == ("Ann", "Bob") and flow.game.setup.dealer == 1


# -- undo ---------------------------------------------------------------------------------------


def test_undo_asks_first_and_goes_back_to_the_start_of_the_hand_only(tmp_path: Path) -> None:
    with Journal.open(tmp_path) as journal:
        store = JournalStore(journal)
        flow = table(store=store)
        accept(flow, "scan MB-ROLL-01", "scan MB-ROLL-02", "scan MB-D100-01")
        out = drive(flow, "press UNDO")[0]
        assert out.verdict == "prompt" and out.message == "Undo 100 miles by Ann? OK / BACK"
        assert isinstance(screen(flow), UndoPrompt)
        before = flow.game.state  # type: ignore[union-attr]
        assert drive(flow, "press BACK")[0].message == "Undo cancelled"
        assert flow.game.state is before  # type: ignore[union-attr]
        for expected in ("100 miles by Ann", "Roll by Bob", "Roll by Ann"):
            out = drive(flow, "press UNDO", "press OK")[1]
            assert (out.verdict, out.message) == ("accepted", f"Undone: {expected}")
            assert journal.current_game().lines == [a.notation() for a in flow.game.log]  # type: ignore[union-attr]
        assert flow.game.log == [] and flow.game.state.hand.turn == 0  # type: ignore[union-attr]
        unchanged(flow, "press UNDO", "nothing-to-undo")
        accept(flow, "scan MB-ROLL-02")  # the same card may be played again after undo
        assert journal.current_game().lines == ["A play MB-ROLL-02"]  # type: ignore[union-attr]


def test_undo_stops_at_the_start_of_the_hand() -> None:
    flow = at_700()
    drive(flow, "press NEXT", "press OK")  # extension no: hand over
    out = drive(flow, "press UNDO", "press OK")[1]  # the hand's last action can still be undone
    assert out.message == "Undone: no extension by Ann"
    assert flow.state is not None and flow.state.phase is Phase.EXTENSION
    view = screen(flow)
    assert isinstance(view, ExtensionPrompt)
    if not view.selected_yes:  # whatever the prompt shows is what OK does
        accept(flow, "press NEXT")
    assert screen(flow).selected_yes  # type: ignore[union-attr]
    out = drive(flow, "press OK")[0]
    assert out.action is not None and out.action.notation() == "A extension yes"
    assert flow.state.hand.trip == 1000
    drive(flow, "scan MB-ROLL-02")
    assert flow.state.hand.sides[1].battle_top is CardKind.ROLL
    # A fresh hand: nothing before its start can be undone.
    flow2 = at_700()
    drive(flow2, "press NEXT", "press OK", "press OK")  # extension no, then deal hand 2
    assert flow2.state is not None and flow2.state.hand.number == 2
    unchanged(flow2, "press UNDO", "nothing-to-undo")


# -- blocked hand, 2016 discard, Fast Play, 1000 Bornes leftovers ---------------------------------


def test_long_back_then_ok_ends_a_blocked_hand() -> None:
    game = new_game("winning-moves", 2)
    run_down(game, 0)
    flow = game_flow(game)
    out = drive(flow, "press BACK long")[0]
    assert out.message == "End this blocked hand? OK / BACK"
    assert isinstance(screen(flow), StatusView)
    assert drive(flow, "press BACK")[0].message == "The hand goes on"
    out = drive(flow, "press BACK long", "press OK")[1]
    assert out.action is not None and out.action.notation() == "end"
    assert flow.state is not None and flow.state.phase is Phase.HAND_OVER
    assert isinstance(screen(flow), ScoreSheetView)


def test_ending_a_hand_the_engine_would_refuse_is_never_offered() -> None:
    """Issue 40: a long BACK with cards in the draw pile asked "End this hand? OK ends" and OK was then
    refused. The engine is asked first: its refusal shows at once, no question is opened, and OK after
    it is only OK (nothing to confirm)."""
    flow = table()
    accept(flow, "scan MB-ROLL-01")
    before = flow.game.state  # type: ignore[union-attr]
    out = drive(flow, "press BACK long")[0]
    assert (out.verdict, out.reason) == ("refused", "play-continues")
    assert out.message == "The hand goes on: the draw pile has cards"
    assert mode_of(flow) is Mode.PLAY
    assert drive(flow, "press OK")[0].verdict == "ignored"
    assert flow.game.state is before  # type: ignore[union-attr]


def test_a_refused_button_never_asks_for_a_card_back() -> None:
    """Issue 40: "REFUSED ... Take the card back" after a long BACK, though no card was played. A card
    refused still asks for it back; a button refused does not."""
    from bornes.firmware.screens.render import draw

    flow = table()
    drive(flow, "press BACK long")
    view = screen(flow)
    assert isinstance(view, TableView) and view.message is not None and view.message.refused
    texts = [box.text for box in draw(view).boxes if box.kind == "text"]
    assert not any("card back" in text.lower() for text in texts), texts
    drive(flow, "scan MB-D100-01")  # Ann has not rolled: refused, and the card goes back to her hand
    view = screen(flow)
    assert isinstance(view, TableView) and view.message is not None and view.message.refused
    texts = [box.text for box in draw(view).boxes if box.kind == "text"]
    assert any("take the card back" in text.lower() for text in texts), texts


def test_2016_scanning_the_top_discard_takes_it() -> None:
    flow = table("hasbro-2016")
    accept(flow, "press DISCARD", "scan MB-ROLL-01")  # Ann discards a Roll
    out = drive(flow, "scan MB-ROLL-01")[0]  # Bob takes it instead of drawing
    assert out.action is not None and out.action.notation() == "B take MB-ROLL-01"
    assert flow.state is not None and flow.state.hand.discard == () and flow.state.hand.drawn
    out = drive(flow, "scan MB-ROLL-01")[0]  # and plays it
    assert out.action == Play(1, Card(CardKind.ROLL, 1))


def test_taking_the_top_discard_is_not_a_thing_in_the_classic_rules() -> None:
    flow = table()
    accept(flow, "press DISCARD", "scan MB-ROLL-01")
    unchanged(flow, "scan MB-ROLL-01", "on-table")


def test_fast_play_cf_then_remedy_and_long_discard_swaps() -> None:
    flow = table("hasbro-2016", fast_play="yes")
    accept(flow, "scan MB-ROLL-01", "scan MB-STOP-01")  # Bob stops Ann
    out = drive(flow, "press CF", "scan MB-ROLL-02")[1]
    assert out.action is not None and out.action.notation() == "A fast MB-ROLL-02"
    assert flow.state is not None and flow.state.hand.turn == 0  # play goes on as before: Ann's turn
    out = drive(flow, "press DISCARD long")[0]
    assert out.message == "Swap: scan the cards, then OK"
    drive(flow, "scan MB-D25-01", "scan MB-D25-02")
    unchanged(flow, "scan MB-D25-02", "duplicate-card")
    out = drive(flow, "press OK")[0]
    assert out.action is not None and out.action.notation() == "A swap MB-D25-01 MB-D25-02"
    assert flow.state.hand.turn == 1 and flow.ui.mode is Mode.PLAY


def test_one_bad_card_does_not_throw_away_a_swap() -> None:
    flow = table(fast_play="yes")
    accept(flow, "scan MB-ROLL-01", "scan MB-ROLL-02")
    drive(flow, "press DISCARD long", "scan MB-D25-01", "scan MB-D25-02")
    assert drive(flow, "scan MB-ROLL-01")[0].reason == "on-table"
    assert flow.ui.mode is Mode.SWAP and flow.ui.swap.cards == [Card(CardKind.D25, 1), Card(CardKind.D25, 2)]
    out = drive(flow, "press OK")[0]
    assert isinstance(out.action, Swap) and len(out.action.cards) == 2


def test_1000_bornes_leftovers_are_scanned_at_the_end_of_the_hand() -> None:
    game = new_game("1000-bornes", 2)
    run_down(game, 1)
    filler(game, ANY_KINDS)  # the last card is drawn: the hand ends with cards still in hand
    assert game.state.phase is Phase.LEFTOVERS
    flow = game_flow(game)
    view = screen(flow)
    assert isinstance(view, TableView) and view.turn_name == "PA: show 6"
    unseen = sorted((c for c in _deck(game) if c not in game.state.hand.seen), key=lambda c: -c.kind.miles)
    assert len(unseen) == 12 and unseen[0].kind.is_distance
    for card in unseen:
        out = drive(flow, f"scan {card.code()}")[0]
        assert out.verdict == "accepted", out
    actions = [a.notation() for a in game.log[-12:]]
    assert actions == [f"{'A' if i < 6 else 'B'} left {c.code()}" for i, c in enumerate(unseen)]
    assert flow.state is not None and flow.state.phase is Phase.GAME_OVER
    in_hand = (-sum(c.kind.miles for c in unseen[:6]), -sum(c.kind.miles for c in unseen[6:]))
    assert flow.state.sheets[-1].row("Miles in hand") == in_hand
    assert in_hand[0] < 0


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


def _all(game: object) -> list[Card]:
    from bornes.engine.cards import iter_deck

    return list(iter_deck(game.setup.deck))  # type: ignore[attr-defined]


def _deck(game: object) -> list[Card]:
    from bornes.engine.cards import iter_deck

    return list(iter_deck(game.setup.deck))  # type: ignore[attr-defined]


# -- reader events, garbage, the emulated keyboard ------------------------------------------------


@pytest.mark.parametrize(
    ("event", "verdict", "reason", "message"),
    [
        (UnknownScanned("04A1B2C3", "tag not enrolled"), "refused", "unknown-card", "Unknown card: 04A1B2C3"),
        (ReaderProblem("garbage", "12 bytes"), "refused", "garbage", "The reader did not get that card: scan it again"),
        (ReaderProblem("one-card-at-a-time", "2 tags"), "refused", "one-card-at-a-time", "One card at a time"),
        (ReaderLost("/dev/ttyUSB0: unplugged"), "ignored", None, "Reader lost: /dev/ttyUSB0: unplugged"),
        (ReaderBack("/dev/ttyUSB0"), "ignored", None, "Reader back"),
        (KeyTyped("hello"), "refused", "bad-input", "Not a card or button: hello"),
        (KeyTyped("MB-NOPE-01"), "refused", "unknown-card", "Unknown card: MB-NOPE-01"),
    ],
)
def test_reader_events_give_one_line_and_change_nothing(event: object, verdict: str, reason: str | None,
                                                        message: str) -> None:
    flow = table()
    accept(flow, "scan MB-ROLL-01")
    before, log = flow.game.state, list(flow.game.log)  # type: ignore[union-attr]
    out = flow.handle(event)  # type: ignore[arg-type]
    assert (out.verdict, out.reason, out.message) == (verdict, reason, message)
    assert "\n" not in out.message
    assert flow.game.state is before and flow.game.log == log  # type: ignore[union-attr]
    view = screen(flow)
    assert isinstance(view, TableView) and view.message is not None and view.message.text == message
    drive(flow, "press NEXT")  # the next input clears the message
    view = screen(flow)
    assert isinstance(view, TableView) and view.message is None


def test_garbage_scan_from_a_script() -> None:
    flow = table()
    out = drive(flow, "scan hello-world")[0]
    assert (out.verdict, out.reason) == ("refused", "unknown-card")


def test_a_seat_button_with_a_non_ascii_digit_is_a_bad_line_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "s.feed"
    script.write_text("setup edition=winning-moves names=Ann,Bob\npress SEAT²\n", encoding="utf-8")
    assert main(["feed", str(script), "--json"]) == 65  # a bad line: the script's caller is told (issue 19)
    verdicts = [entry["verdict"] for entry in json.loads(capsys.readouterr().out)["inputs"]]
    assert verdicts == ["accepted", "bad-input"]
    typed = table().handle(KeyTyped("seat²"))
    assert (typed.verdict, typed.reason) == ("refused", "bad-input")


def test_reader_lost_status_stays_until_the_reader_is_back() -> None:
    flow = table()
    flow.handle(ReaderLost("unplugged"))
    accept(flow, "scan MB-ROLL-01")
    assert screen(flow).status == "Reader lost"  # type: ignore[union-attr]
    flow.handle(ReaderBack("/dev/ttyUSB0"))
    assert screen(flow).status is None  # type: ignore[union-attr]


def test_reader_lost_stays_on_screen_when_a_game_starts() -> None:
    flow = TableFlow(players=2)
    flow.handle(ReaderLost("unplugged"))
    accept(flow, *["press OK"] * 6)
    view = screen(flow)
    assert isinstance(view, TableView) and view.status == "Reader lost"


def test_emulated_keyboard_lines() -> None:
    flow = table(names="Ann,Bob,Cid")
    accept(flow, "scan MB-ROLL-01", "scan MB-ROLL-02", "scan MB-ROLL-03")
    assert flow.handle(KeyTyped("mb-stop-01")).verdict == "prompt"
    out = flow.handle(KeyTyped("seat3"))
    assert out.action is not None and out.action.notation() == "A play MB-STOP-01 > C"
    assert flow.handle(KeyTyped("MB-CMD-DISCARD")).message == "Scan the card to discard"
    assert flow.handle(KeyTyped("MB-D25-01")).action is not None
    assert flow.handle(KeyTyped("long back")).reason == "play-continues"  # the draw pile has cards
