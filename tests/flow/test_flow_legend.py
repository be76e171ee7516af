"""The legend of the panel's icons: from the main menu, or a held OK during a game; NEXT and BACK
page through it, any other button goes back where it came from, and a card scanned while it shows
plays as usual (the legend never costs a tap)."""

from __future__ import annotations

from dataclasses import replace

from bornes.firmware.screens.model import LegendView, MenuView, TableView
from bornes.firmware.screens.render import legend_pages, render
from bornes.firmware.table.flow import Mode, TableFlow
from bornes.firmware.table.present import screen
from tests.flow.helpers import accept, drive


def test_a_held_ok_shows_the_legend_and_any_button_comes_back() -> None:
    flow = TableFlow(edition="winning-moves", players=2, names=("Ann", "Bob"), configured=True)
    accept(flow, "press OK", "scan MB-ROLL-02", "press DISCARD")  # Bob rolls; Ann arms a discard
    assert flow.game is not None
    played = len(flow.game.log)
    drive(flow, "press OK long")
    assert screen(flow) == LegendView(page=0)
    assert not flow.ui.armed.discard  # a half-made choice does not survive the detour
    drive(flow, "press NEXT", "press NEXT", "press BACK")
    assert screen(flow) == LegendView(page=1)
    pages = legend_pages((128, 64))
    assert render(LegendView(page=-1)) == render(LegendView(page=pages - 1))  # BACK from the first: the last
    drive(flow, "press UNDO")  # any other button: back to the table, and nothing else happens
    assert isinstance(screen(flow), TableView) and flow.ui.mode is Mode.PLAY
    assert len(flow.game.log) == played


def test_a_card_scanned_over_the_legend_is_played() -> None:
    flow = TableFlow(edition="winning-moves", players=2, names=("Ann", "Bob"), configured=True)
    accept(flow, "press OK")
    drive(flow, "press OK long")
    out = accept(flow, "scan MB-ROLL-02")[0]
    assert out.verdict == "accepted" and isinstance(screen(flow), TableView)


def test_the_main_menu_opens_the_legend_and_ok_returns_to_the_menu() -> None:
    flow = TableFlow(edition="winning-moves", players=2, names=("Ann", "Bob"))
    view = screen(flow)
    assert isinstance(view, MenuView) and "What the icons mean" in view.items
    drive(flow, *["press NEXT"] * view.items.index("What the icons mean"), "press OK")
    assert screen(flow) == LegendView(page=0)
    drive(flow, "press OK")
    assert screen(flow) == replace(view, selected=view.items.index("What the icons mean"))  # where it was
