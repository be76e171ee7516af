"""Setup in one press, friendly rule labels, French names typed with buttons, and the resume line."""

from __future__ import annotations

from pathlib import Path

import pytest

from bornes.engine.options import EDITIONS, OptionError, RuleOptions
from bornes.firmware.appliance.config import parse_config
from bornes.firmware.language.rule_labels import OPTION_LABELS, option_choices, option_line, option_lines
from bornes.firmware.screens.model import MenuView, NameEditView, SetupSummaryView, TableView
from bornes.firmware.storage.journal import Journal
from bornes.firmware.storage.store import JournalStore
from bornes.firmware.table.flow import Mode, SetupStep, TableFlow
from bornes.firmware.table.present import screen
from tests.flow.helpers import accept, drive


def configured(players: int = 3, names: tuple[str, ...] = ("Ann", "Bob", "Chloé"), **kw: object) -> TableFlow:
    return TableFlow(edition="winning-moves", players=players, names=names, configured=True, **kw)  # type: ignore[arg-type]


def test_a_configured_table_opens_on_its_summary_and_one_ok_starts_it() -> None:
    flow = configured()
    view = screen(flow)
    assert view == SetupSummaryView("Ann, Bob, Chloé", "Winning Moves", "Ann deals")  # the renderer's key hint
    from bornes.firmware.screens.render import draw

    assert "OK to start, NEXT to change" in {b.text for b in draw(view, (256, 64)).boxes}
    out = accept(flow, "press OK")[0]
    assert out.verdict == "accepted" and flow.game is not None
    assert flow.game.setup.names == ("Ann", "Bob", "Chloé") and flow.game.setup.edition == "winning-moves"
    assert isinstance(screen(flow), TableView)


def test_next_on_the_summary_opens_the_menus_and_back_returns() -> None:
    flow = configured()
    accept(flow, "press NEXT")
    view = screen(flow)
    assert isinstance(view, MenuView) and view.title == "Mille Bornes"
    accept(flow, "press BACK")
    assert flow.ui.menu.step is SetupStep.SUMMARY


def test_partnerships_show_as_sides() -> None:
    flow = TableFlow(edition="parker-1988", players=4, names=("Ann", "Bob", "Chloé", "Dmitri"), dealer=1,
                     configured=True)
    view = screen(flow)
    assert isinstance(view, SetupSummaryView)
    assert (view.sides, view.edition, view.detail) == ("Ann+Chloé, Bob+Dmitri", "Parker 1988", "Bob deals")


def test_house_rules_are_said_on_the_summary() -> None:
    options = EDITIONS["winning-moves"].options.replace(hazard_on_hazard=True)
    view = screen(configured(options=options))
    assert isinstance(view, SetupSummaryView) and view.detail == "Ann deals · house rules"


def test_the_config_names_the_table_only_with_edition_and_players(tmp_path: Path) -> None:
    named = parse_config('[game]\nedition = "winning-moves"\nplayers = 2\nnames = ["Ann", "Bob"]\n')
    assert named.table_named
    assert not parse_config("[game]\nplayers = 2\n").table_named
    assert not parse_config("").table_named
    assert not TableFlow().configured and TableFlow().ui.menu.step is SetupStep.MAIN


def test_every_rule_option_has_a_friendly_label_and_the_editions_value_is_marked() -> None:
    for edition in EDITIONS.values():
        lines = option_lines(edition.options, edition.name)
        assert len(lines) == len(RuleOptions().as_strings()) == len(OPTION_LABELS)
        assert all(line.endswith("*") for line in lines)  # the preset itself: every value is the edition's
        assert not any("_" in line for line in lines)  # no raw option keys
    changed = EDITIONS["parker-1988"].options.replace(hazard_on_hazard=False)
    assert option_line(changed, "hazard_on_hazard", "parker-1988") == "Hazard on hazard: no"
    assert option_line(changed, "game_target", "hasbro-2016") == "Game to: 5000"
    assert option_line(EDITIONS["hasbro-2016"].options, "game_target", "hasbro-2016") == "Game to: one hand*"


def test_one_option_as_text_is_what_the_whole_options_say_and_an_unknown_one_is_refused() -> None:
    """The menu lines read one option each (``RuleOptions.as_string``), not all of them per line."""
    for edition in EDITIONS.values():
        assert {name: edition.options.as_string(name) for name in edition.options.as_strings()} == (
            edition.options.as_strings())
    with pytest.raises(OptionError, match="unknown rule option 'hazard_on_hazzard'"):
        RuleOptions().as_string("hazard_on_hazzard")


def test_every_label_fits_a_small_panel_line_and_numbers_can_be_changed() -> None:
    for edition in EDITIONS.values():
        for name in OPTION_LABELS:
            choices = option_choices(edition.options, name, edition.options)
            assert edition.options.as_strings()[name] in choices
            for value in choices:
                line = option_line(edition.options.with_strings({name: value}), name, edition.name)
                assert len(line) <= 22, line  # (128 - 14) px of the 5-px font
    assert len(option_choices(RuleOptions(), "game_target")) > 1


def _edit_first_name(flow: TableFlow) -> None:
    accept(flow, "press NEXT", "press OK", "press OK")  # summary -> menus -> edition -> players
    accept(flow, "press OK", "press NEXT", "press OK")  # players -> names -> edit the first name


def test_the_name_editor_starts_from_the_configured_name_and_types_chloe() -> None:
    flow = configured(names=("Ann", "Bob", "Dee"))  # typing a name already at the table is refused
    _edit_first_name(flow)
    view = screen(flow)
    assert isinstance(view, NameEditView) and view.text == "Ann" and view.cursor == 0
    # A -> C (NEXT twice), n -> h (BACK 6), n -> l (BACK 2), then o, é typed on blanks.
    accept(flow, "press NEXT", "press NEXT", "press OK", *["press BACK"] * 6, "press OK",
           *["press BACK"] * 2, "press OK")
    assert screen(flow).text == "Chl"  # type: ignore[union-attr]
    accept(flow, *["press NEXT"] * 15, "press OK")  # blank -> a ... o
    accept(flow, *["press NEXT"] * 27)  # blank -> a ... z -> é
    view = screen(flow)
    assert isinstance(view, NameEditView) and view.text == "Chloé" and view.cursor == 4
    out = accept(flow, "press OK long")[0]
    assert out.message == "Name: Chloé" and flow.draft.names[0] == "Chloé"


def test_cf_switches_case_discard_deletes_and_the_capital_cycle_has_accents() -> None:
    flow = configured(names=("Ann", "Bob", "Zoé"))
    _edit_first_name(flow)
    accept(flow, "press CF")  # A -> a
    assert screen(flow).text == "ann"  # type: ignore[union-attr]
    accept(flow, "press CF", "press DISCARD")  # A back, then deleted
    assert screen(flow).text == "nn"  # type: ignore[union-attr]
    accept(flow, "press CF", "press BACK")  # n -> N -> M
    accept(flow, *["press NEXT"] * 27)  # M ... Z, É È Ê Ë À Â Ç Ï Î Ô Ù Û Ü Ÿ
    assert screen(flow).text == "Ÿn"  # type: ignore[union-attr]


def test_a_typed_name_reaches_the_game(tmp_path: Path) -> None:
    flow = configured(names=("Ann", "Bob", "Chloé"))
    _edit_first_name(flow)
    accept(flow, "press CF", "press OK long")  # "ann": a lower-case name is allowed
    accept(flow, "press BACK", "press OK")  # to Continue
    accept(flow, "press OK", "press OK")  # dealer, rules: start
    assert flow.game is not None and flow.game.setup.names[0] == "ann"


def test_a_resumed_game_says_so_with_the_hand_and_whose_turn(tmp_path: Path) -> None:
    with Journal.open(tmp_path) as journal:
        flow = configured(names=("Ann", "Bob", "Chloé"), dealer=2, store=JournalStore(journal))
        accept(flow, "press OK", "scan MB-ROLL-01")
    with Journal.open(tmp_path) as journal:
        store = JournalStore(journal)
        game = store.resume()
        assert game is not None
        again = TableFlow(store=store, game=game, configured=True)
        out = again.announce_resume()
        assert out.message == "Game resumed: hand 1, Bob's turn"
        view = screen(again)
        assert isinstance(view, TableView) and view.message is not None
        assert view.message.text == "Game resumed: hand 1, Bob's turn"
        assert again.ui.mode is Mode.PLAY
        assert drive(again, "scan MB-ROLL-02")[0].verdict == "accepted"
        assert again.ui.message != "Game resumed: hand 1, Bob's turn"  # it goes with the next input


def test_the_name_editor_refuses_a_name_already_at_the_table() -> None:
    """The engine's name rule (bornes.engine.state.check_names), asked by the editor: no name twice."""
    flow = configured(names=("Ann", "Bob", "Chloé"))
    _edit_first_name(flow)
    accept(flow, "press NEXT", "press NEXT", "press OK", *["press BACK"] * 6, "press OK",
           *["press BACK"] * 2, "press OK", *["press NEXT"] * 15, "press OK", *["press NEXT"] * 27)
    out = drive(flow, "press OK long")[0]
    assert out.refused and out.reason == "duplicate-name", out
    assert flow.draft.names[0] == "Ann" and flow.ui.mode is Mode.NAME_EDIT  # still editing
