"""What the table's header and cells keep when room is short (issue 40): a message's words before a
warning's (its badge stays), who played a card in every phrasing, and this hand's points in a
compact cell before the game's total."""

from __future__ import annotations

import pytest

from bornes.drivers.events import KEYPAD, ReaderLost
from bornes.engine import GameSetup
from bornes.firmware.language.i18n import speaking
from bornes.firmware.screens import SMALL, WIDE
from bornes.firmware.screens.fonts import JOIN_GLYPH
from bornes.firmware.screens.model import FeedbackView, SideView, TableView
from bornes.firmware.screens.render import draw, layout_problems
from bornes.firmware.table.flow import TableFlow
from bornes.firmware.table.present import screen
from tests.flow.helpers import drive

NAMES = ("Françoise", "Bob", "Maëlle", "Élodie")


def _texts(view: TableView, size: tuple[int, int]) -> list[str]:
    return [box.text.replace(JOIN_GLYPH, "+") for box in draw(view, size).boxes if box.kind == "text"]


def test_a_warning_gives_its_words_before_a_message_loses_its_own() -> None:
    """"Franço. commen. ▣Pavé perdu": the start of a game, the keypad unplugged. The message is whole
    and the warning's badge stays; its words come back when the message is shorter."""
    sides = tuple(SideView(name, 0, 1000, "not started") for name in NAMES)
    with speaking("fr"):
        said = FeedbackView("Nouvelle partie\u00a0: Élodie donne, Françoise commence",
                            short=("Élodie donne, Françoise commence", "Françoise commence"))
        view = TableView(sides, draw_pile=82, turn_name="Françoise", message=said, status="Pavé perdu")
        texts = _texts(view, SMALL)
        assert "Françoise commence" in texts and not any("." in text for text in texts[:4]), texts
        assert "!" in texts  # the badge: something is wrong, the legend says what
        assert layout_problems(view, SMALL) == []
        quiet = TableView(sides, draw_pile=82, turn_name="Bob", status="Pavé perdu")
        assert "Pavé perdu" in _texts(quiet, SMALL)  # no long message: the warning's words are back


@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize("status", [False, True], ids=["", "keypad-lost"])
def test_after_a_stop_the_header_says_who_played_it(language: str, status: bool) -> None:
    """The 128×64 header said "Feu Rouge" after Maëlle's Stop: not whose."""
    with speaking(language):
        flow = TableFlow()
        flow.start_game(GameSetup.create("dujardin", NAMES, dealer=3, teams=True))
        if status:
            flow.handle(ReaderLost("unplugged", KEYPAD))
        drive(flow, "scan MB-ROLL-01", "scan MB-ROLL-02", "scan MB-STOP-01")  # Maëlle stops Bob+Élodie
        view = screen(flow)
        assert isinstance(view, TableView)
        for size in (SMALL, WIDE):
            header = [text for text in _texts(view, size) if "Feu Rouge" in text or "Stop" in text]
            assert header and header[0].startswith("Maëlle"), (size, _texts(view, size))


def test_a_compact_cell_keeps_this_hands_points_before_the_total() -> None:
    """Six players in partnerships on 128×64: "Léa+Hugo 0" dropped this hand's "+200"."""
    sides = (SideView("Léa+Hugo", 200, 1000, "rolling", score=0, hand_points=200, is_turn=True),
             SideView("Marc+Maëlle", 425, 1000, "STOP", score=0, hand_points=525),
             SideView("Chloé+Jean-Mathieu", 525, 1000, "rolling", score=0, hand_points=625))
    view = TableView(sides, draw_pile=33, turn_name="Léa")
    texts = _texts(view, SMALL)
    for points in ("+200", "+525", "+625"):
        assert points in texts, texts
    assert layout_problems(view, SMALL) == []
