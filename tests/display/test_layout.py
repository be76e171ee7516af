"""The layout check: every screen, proved free of overlaps, marks off the panel and cut texts.

It covers what ``bornes screens`` writes (the samples) and what ``bornes screens --game``
meets, for every edition × every allowed table (players, partnerships or not) × both panel
sizes: the first screen of each kind over a whole game, plus every distinct screen of its
first hand (each tap's table, prompt and message).
"""

from __future__ import annotations

import dataclasses

import pytest

from bornes.engine.options import EDITIONS
from bornes.firmware.commands.screens import game_screens
from bornes.firmware.screens import SMALL, WIDE
from bornes.firmware.screens.canvas import Box, layout_problems
from bornes.firmware.screens.model import FeedbackView, SideView, TableView
from bornes.firmware.screens.render import layout_problems as screen_problems
from bornes.firmware.screens.samples import sample_screens
from tests.display.sweep import FAST_TABLES, TABLES, swept_tables

SIZES = (SMALL, WIDE)


def _problems(views: dict[str, object]) -> list[str]:
    found = []
    for name, view in views.items():
        for size in SIZES:
            found += [f"{name} {size[0]}x{size[1]}: {problem}" for problem in screen_problems(view, size)]  # type: ignore[arg-type]
    return found


def test_every_allowed_table_is_covered() -> None:
    shapes = {(players, teams) for _name, players, teams in TABLES}
    assert {(2, False), (3, False), (4, True), (4, False), (5, False), (6, True), (6, False), (8, True)} <= shapes
    assert set(TABLES) >= FAST_TABLES and {edition for edition, _, _ in FAST_TABLES} == set(EDITIONS)


def test_sample_screens_have_a_clean_layout() -> None:
    assert _problems(sample_screens()) == []  # type: ignore[arg-type]


@pytest.mark.parametrize(("edition", "players", "teams"), swept_tables())
def test_game_screens_have_a_clean_layout(edition: str, players: int, teams: bool) -> None:
    whole_game = game_screens(1, edition, players, teams)
    first_hand = game_screens(2, edition, players, teams, every=True, hands=1)
    assert len(first_hand) > 20
    assert _problems({**whole_game, **first_hand}) == []


def test_long_names_and_big_scores_still_fit() -> None:
    """Twelve-letter names, partnerships of two of them, five-digit totals, every slot full."""
    names = ["Marie-Claire", "Jean Baptist", "Maximilienne", "Chloé", "Anne-Sophie", "Bob"]
    for count in range(2, 7):
        for teams in (False, True):
            sides = tuple(
                SideView(f"{names[i]}+{names[-1 - i]}" if teams else names[i], 1000, 1000, "ACCIDENT", limited=True,
                         safeties=(("RIGHTOFWAY", True), ("EXTRATANK", True), ("PUNCTUREPROOF", True),
                                   ("DRIVINGACE", True)),
                         score=10450, hand_points=2650, is_turn=i == count - 1)
                for i in range(count)
            )
            view = TableView(sides, draw_pile=106, hand_number=12, turn_name="Maximilienne",
                             edition_title="Parker Brothers (1962 rules, revised 1988)")
            views = {f"{count}{teams}": view,
                     f"{count}{teams}-msg": dataclasses.replace(view, message=FeedbackView(
                         "Coup fourré! Maximilienne: Puncture-Proof; Marie-Claire loses the turn",
                         short=("Coup fourré! Maximilienne", "Coup fourré!")))}
            assert _problems(views) == []  # type: ignore[arg-type]


def test_the_check_finds_what_it_should() -> None:
    """The checker itself: an overlap, a mark off the panel or in its margin, a cut text, texts run together."""
    text = Box("text", (2, 0, 20, 7), "Chloé")
    assert layout_problems([text, Box("text", (20, 0, 40, 7), "1000")], SMALL)
    assert layout_problems([text, Box("text", (22, 0, 40, 7), "1000")], SMALL)  # one column apart: runs together
    assert layout_problems([text, Box("text", (23, 0, 40, 7), "1000")], SMALL) == []
    assert layout_problems([Box("icon", (120, 60, 130, 70))], SMALL)
    assert layout_problems([Box("text", (2, 0, 10, 7), "Scan the card to", cut=True)], SMALL)
    assert layout_problems([Box("fill", (0, 0, 10, 10)), Box("icon", (5, 5, 15, 15))], SMALL)
    assert layout_problems([Box("fill", (0, 0, 10, 10)), Box("icon", (2, 2, 8, 8))], SMALL) == []
    # Ink right against a lit background merges with it ("Bob" read "B0b" under "play"'s descender).
    assert layout_problems([Box("fill", (0, 8, 30, 13)), Box("text", (2, 1, 98, 7), "Bob to play")], SMALL)
    assert layout_problems([Box("fill", (0, 9, 30, 13)), Box("text", (2, 1, 98, 7), "Bob to play")], SMALL) == []
    # Any two marks keep a dark pixel between them: a safety icon resting on the name below reads as
    # that side's card, a header's descender on the points line joins them.
    assert layout_problems([Box("icon", (78, 26, 87, 35)), Box("text", (65, 36, 89, 40), "Dmitri")], SMALL)
    assert layout_problems([Box("icon", (78, 26, 87, 35)), Box("text", (65, 37, 89, 41), "Dmitri")], SMALL) == []
    assert layout_problems([Box("text", (2, 1, 100, 7), "Bob to play"), Box("text", (88, 8, 122, 12), "+400")],
                           SMALL)
    assert layout_problems([Box("icon", (40, 6, 50, 15)), Box("icon", (51, 6, 61, 15))], WIDE)
    assert layout_problems([Box("icon", (40, 6, 50, 15)), Box("icon", (52, 6, 62, 15))], WIDE) == []
    assert layout_problems([Box("icon", (90, 23, 100, 33)), Box("bar", (2, 34, 125, 34))], SMALL)
    # The two columns at each edge hide behind a case's bezel: ink stays out of them, backgrounds may reach.
    assert layout_problems([Box("text", (1, 20, 30, 27), "Before")], SMALL)
    assert layout_problems([Box("icon", (118, 20, 126, 27))], SMALL)
    assert layout_problems([Box("icon", (118, 20, 253, 27))], WIDE) == []
    assert layout_problems([Box("icon", (118, 20, 254, 27))], WIDE)
    assert layout_problems([Box("fill", (0, 0, 127, 10)), Box("text", (2, 1, 125, 8), "Hand 3")], SMALL) == []


def test_miles_are_at_least_ten_pixels_tall() -> None:
    """Each side's miles, in digits a family reads across the table (lit pixels, not the font's cell)."""
    from bornes.firmware.screens.render import draw
    from bornes.firmware.screens.samples import sample_tables

    for name, view in sample_tables().items():
        if view.message is not None and view.message.refused:
            continue
        for size in SIZES:
            canvas = draw(view, size)
            miles = {str(side.miles) for side in view.sides}
            heights = [b.rect[3] - b.rect[1] + 1 for b in canvas.boxes if b.kind == "text" and b.text in miles]
            assert heights and min(heights) >= 10, (name, size, heights)


def test_setup_summary_and_partner_prompt_fit_long_names() -> None:
    """The one-press setup screen and the partner question, with twelve-letter names and a house rule."""
    from bornes.drivers.events import ButtonPressed
    from bornes.drivers.readers.resolver import CardResolver
    from bornes.engine.state import GameSetup
    from bornes.firmware.table.flow import TableFlow
    from bornes.firmware.table.present import screen

    long_names = ("Marie-Claire", "Maximilienne", "Jean-Baptist", "Anne-Sophie", "Chloé", "Hélène", "Bob", "Zoë")
    views: dict[str, object] = {}
    for edition, players in (("winning-moves", 2), ("winning-moves", 6), ("dujardin", 8)):
        if players not in EDITIONS[edition].seat_counts:
            continue
        house = EDITIONS[edition].options.replace(hazard_on_hazard=not EDITIONS[edition].options.hazard_on_hazard)
        flow = TableFlow(edition=edition, players=players, names=long_names[:players], dealer=1, options=house,
                         configured=True)
        views[f"summary-{edition}-{players}"] = screen(flow)
    flow = TableFlow()
    flow.start_game(GameSetup.create("winning-moves", long_names[:4], dealer=3))
    resolver = CardResolver()
    for payload in ("MB-ROLL-01", "MB-ROLL-02", "MB-D100-01", "MB-STOP-01"):  # seat D stops A and C
        flow.handle(resolver.resolve(payload))
    flow.handle(ButtonPressed("CF"))
    flow.handle(resolver.resolve("MB-RIGHTOFWAY-01"))
    views["partner"] = screen(flow)
    assert {type(view).__name__ for view in views.values()} == {"SetupSummaryView", "PartnerPrompt"}
    assert _problems(views) == []
