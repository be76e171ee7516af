"""The setup menus, the name editor and the deck check, driven by buttons only."""

from __future__ import annotations

from bornes.drivers.events import UnknownScanned
from bornes.engine.cards import CLASSIC_COUNTS, Card, CardKind, iter_deck
from bornes.engine.options import ExtensionFailure
from bornes.firmware.screens.model import MenuView, NameEditView, StatusView, TableView
from bornes.firmware.table.flow import Mode, SetupStep, TableFlow
from bornes.firmware.table.present import screen
from tests.flow.helpers import accept, drive


def menu(flow: TableFlow) -> tuple[str, str]:
    view = screen(flow)
    assert isinstance(view, MenuView)
    return view.title, view.items[view.selected]


def test_menus_start_a_parker_partnership_game_with_an_edited_name_and_an_option() -> None:
    flow = TableFlow()  # the table's defaults: winning-moves, 4 players, Ann Bob Cid Dee
    assert menu(flow) == ("Mille Bornes", "New game")
    accept(flow, "press OK")
    assert menu(flow) == ("Edition", "Winning Moves Classic (1962 rules)")
    accept(flow, "press NEXT")
    assert menu(flow) == ("Edition", "Parker Brothers (1962 rules, revised 1988)")
    accept(flow, "press OK")
    assert menu(flow) == ("Players", "4 in teams")  # the current count is preselected
    accept(flow, "press NEXT", "press NEXT")  # 6 in teams, then wraps to 2 players
    assert menu(flow) == ("Players", "2 players")
    accept(flow, "press NEXT", "press BACK")  # BACK moves the cursor up ...
    assert menu(flow) == ("Players", "2 players")
    accept(flow, "press BACK")  # ... and on the first item goes back to the previous menu
    assert menu(flow) == ("Edition", "Winning Moves Classic (1962 rules)")
    accept(flow, "press NEXT", "press OK")
    assert menu(flow) == ("Players", "4 in teams")
    accept(flow, "press OK")
    assert menu(flow) == ("Names", "Continue")
    # Edit Ann into Ben: first letter A -> B, second letter n -> e (9 steps back), keep n.
    accept(flow, "press NEXT", "press OK")
    view = screen(flow)
    assert isinstance(view, NameEditView) and view.text == "Ann" and view.cursor == 0
    accept(flow, "press NEXT", "press OK", *["press BACK"] * 9, "press OK", "press OK")
    view = screen(flow)
    assert isinstance(view, NameEditView) and view.text == "Ben" and view.cursor == 3
    out = accept(flow, "press OK")[0]  # OK on a blank: the name is done
    assert out.message == "Name: Ben"
    assert flow.ui.mode is Mode.SETUP
    assert menu(flow) == ("Names", "Ben")
    accept(flow, "press BACK", "press OK")  # to Continue
    assert menu(flow) == ("Who deals?", "Ben")
    accept(flow, "press NEXT", "press OK")  # Bob deals
    assert menu(flow) == ("Rules", "Start the game")
    accept(flow, "press NEXT")
    assert menu(flow) == ("Rules", "Hazard on hazard: yes*")  # * marks the edition's own rule
    accept(flow, "press OK")  # toggles
    assert menu(flow) == ("Rules", "Hazard on hazard: no")
    accept(flow, "press BACK", "press OK")  # back to "Start the game", start
    assert flow.game is not None
    setup = flow.game.setup
    assert setup.edition == "parker-1988"
    assert setup.names == ("Ben", "Bob", "Cid", "Dee")
    assert setup.teams and setup.dealer == 1
    assert setup.options.hazard_on_hazard is False
    assert setup.options.extension_failure is ExtensionFailure.OPPONENTS_IF_ANOTHER_FINISHES  # the rest is Parker
    assert flow.state is not None and flow.state.hand.turn == 2  # left of the dealer: Cid
    assert isinstance(screen(flow), TableView)


def test_enum_option_cycles_through_its_values_and_long_back_goes_up_a_step() -> None:
    flow = TableFlow(players=2)
    accept(flow, "press OK", "press OK", "press OK", "press OK", "press OK")
    assert flow.ui.menu.step is SetupStep.OPTIONS
    items = flow.menu_items()[1]
    index = items.index("Empty pile: play out*")
    accept(flow, *["press NEXT"] * index)
    accept(flow, "press OK")
    assert menu(flow) == ("Rules", "Empty pile: reshuffle")
    accept(flow, "press OK", "press OK")
    assert menu(flow) == ("Rules", "Empty pile: play out*")
    accept(flow, "press BACK long")
    assert flow.ui.menu.step.value == "dealer"
    accept(flow, "press BACK")  # on the first item: back to the names
    assert flow.ui.menu.step.value == "names"


def test_a_card_in_the_menus_is_refused_and_changes_nothing() -> None:
    flow = TableFlow()
    out = drive(flow, "scan MB-ROLL-01")[0]
    assert (out.verdict, out.reason) == ("refused", "no-game")
    assert flow.game is None and flow.ui.mode is Mode.SETUP


def test_deck_check_reports_the_two_missing_cards() -> None:
    flow = TableFlow()
    accept(flow, "press NEXT", "press OK")
    assert flow.ui.mode is Mode.DECK_CHECK and isinstance(screen(flow), StatusView)
    deck = list(iter_deck(CLASSIC_COUNTS))
    assert len(deck) == 106
    missing = [Card(CardKind.D100, 7), Card(CardKind.RIGHT_OF_WAY, 1)]
    for card in deck:
        if card not in missing:
            assert drive(flow, f"scan {card.code()}")[0].verdict == "accepted"
    dup = drive(flow, "scan MB-D25-01")[0]
    assert (dup.verdict, dup.reason) == ("refused", "duplicate-card")
    unknown = flow.handle(UnknownScanned("04A1B2C3D4", "tag not enrolled"))
    assert (unknown.verdict, unknown.reason) == ("refused", "unknown-card")
    out = drive(flow, "press OK")[0]
    assert (out.verdict, out.reason) == ("refused", "deck-incomplete")
    assert out.message == "2 missing, 1 unknown"
    assert flow.deck_missing() == missing
    view = screen(flow)
    assert isinstance(view, MenuView)
    assert view.items == ("Missing MB-D100-07", "Missing MB-RIGHTOFWAY-01", "Unknown 04A1B2C3D4")
    accept(flow, "press NEXT")
    assert screen(flow).selected == 1  # type: ignore[union-attr]
    accept(flow, "press OK")
    assert menu(flow) == ("Mille Bornes", "New game")


def test_a_complete_deck_is_reported_complete() -> None:
    flow = TableFlow()
    accept(flow, "press NEXT", "press OK")
    for card in iter_deck(CLASSIC_COUNTS):
        drive(flow, f"scan {card.code()}")
    out = drive(flow, "press OK")[0]
    assert (out.verdict, out.message) == ("accepted", "Deck complete: 106 cards")
    assert flow.report_lines() == ["Deck complete"]


def test_deck_check_flags_a_card_that_no_deck_has() -> None:
    flow = TableFlow()
    accept(flow, "press NEXT", "press OK")
    out = drive(flow, "scan MB-D200-05")[0]  # a box has four 200s
    assert (out.verdict, out.reason) == ("refused", "not-in-deck")
    assert "Unknown MB-D200-05" in flow.report_lines()


def test_a_name_can_be_shortened() -> None:
    # Annabel -> Anna: keep A N N A, turn the B into a blank, OK: the name is the letters before the blank.
    flow = TableFlow(players=2, names=("Annabel", "Bob"))
    accept(flow, "press OK", "press OK", "press OK", "press NEXT", "press OK")
    accept(flow, "press OK", "press OK", "press OK", "press OK", "press BACK", "press BACK")
    view = screen(flow)
    assert isinstance(view, NameEditView) and view.text == "Anna el" and view.cursor == 4
    out = accept(flow, "press OK")[0]
    assert out.message == "Name: Anna"
