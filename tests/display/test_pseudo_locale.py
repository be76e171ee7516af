"""Proof by pseudo-localisation: every screen, in a language that wraps each catalogue string in
« » and makes it about 40 % longer (tests/i18n/pseudo.py).

Over the sample screens and the screens of real games (every edition × 2 to 8 players, in
partnerships where the edition plays them so, × both panels): a word the pseudo-locale did not
touch is an untranslated string, and a text that does not fit its box is a layout bug. The real
French and English catalogues go through the same layout check.

The games are played by players with short names and again by players with the longest names
the setup allows (issue 29): every side is then named by its players, cut by the panel's rule
where it must be, never by the seat letters nobody at the table knows ("B+D").
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from bornes.engine import MAX_NAME_LENGTH
from bornes.firmware.commands.screens import game_screens
from bornes.firmware.language import i18n
from bornes.firmware.language import names as naming
from bornes.firmware.screens import SMALL, WIDE
from bornes.firmware.screens.canvas import layout_problems
from bornes.firmware.screens.fonts import JOIN_GLYPH
from bornes.firmware.screens.model import (
    CoupFourrePrompt,
    GameOverView,
    LegendView,
    NameEditView,
    ScoreSheetView,
    ScreenView,
    SetupSummaryView,
    TableView,
    TargetPrompt,
)
from bornes.firmware.screens.render import draw
from bornes.firmware.screens.samples import sample_screens
from tests.display.sweep import PSEUDO_FAST_TABLES, TABLES, swept_tables
from tests.i18n import pseudo

SIZES = (SMALL, WIDE)
#: The longest names the setup allows, twelve characters each, with the widest letters and most of them
#: starting alike ("Ma…"), so that a side's name must be cut and the cut must still tell sides apart.
LONGEST = ("Marie-Hélène", "Maximilienne", "Marc-Antoine", "Mathilde-Zoé", "Wenceslas-Mo", "Guillaumette",
           "Anne-Maëllys", "Jean-Mathieu")
assert all(len(name) == MAX_NAME_LENGTH for name in LONGEST)
#: Names the screens show as data (the samples' and the bots' players), never translated.
NAMES = {"Ann", "Bob", "Chloé", "Dmitri", "Eve", "Fay", "Gus", "Hélène", "Cid", "Zoë", "Léa", "Marc", "Maëlle",
         "Jean-Mathieu", "Wim", "Hugo", "Élodie", "Al", "Bo", *LONGEST}  # Al+Bo: the legend's partners
#: Screens that show the sides: each one named by its players there.
SIDE_SCREENS = (TableView, ScoreSheetView, GameOverView, CoupFourrePrompt, TargetPrompt, SetupSummaryView)
#: A seat letter, or seat letters joined as partners ("B", "B+D"): a word no player is called.
SEATS = re.compile(r"[A-H](?:\+[A-H])*")
#: The sample config problem's file and pin names (data in status-config).
SAMPLE_DATA = {"pins", "toml", "SDA", "OK"}


@pytest.fixture
def pseudo_locale() -> Iterator[str]:
    code = pseudo.install()
    with i18n.speaking(code):
        yield code


def _data(view: ScreenView) -> set[str]:
    """Words a screen may show untranslated: players' names and card codes."""
    found = NAMES | SAMPLE_DATA if "pins.toml" in repr(view) else set(NAMES)
    if isinstance(view, NameEditView):  # the name being typed: the letters before the cursor, and after it
        found |= {view.text[i:] for i in range(len(view.text))} | set(view.text)
    if isinstance(view, LegendView):  # a keypad's keys: what is printed on each, and its button's name
        found |= {word for pair in view.keys for text in pair for word in text.split()}
    return found


def _sides(view: ScreenView) -> list[str]:
    """The sides a screen names, each as players joined with "+"."""
    if isinstance(view, TableView):
        return [side.name for side in view.sides]
    if isinstance(view, ScoreSheetView):
        return [name for name, _values in view.columns]
    if isinstance(view, GameOverView):
        return [name for name, _total in view.totals]
    return []


def _unnamed(view: ScreenView, texts: list[str], width: int) -> list[str]:
    """Sides shown by seat letters, or not named at all: each side a screen shows is there by one of the
    forms of its name (``naming.forms``: whole, or cut by the panel's rule, never past the letters that
    keep the sides apart)."""
    from bornes.firmware.screens.table import table_pages

    found = []
    if isinstance(view, SIDE_SCREENS):
        found += [f"a seat letter stands for a side: {word!r} in {text!r}"
                  for text in texts for word in text.split() if SEATS.fullmatch(word.strip("!:,.«»▶"))]
    sides = _sides(view)
    if isinstance(view, TableView) and view.message is not None and view.message.refused:
        return found  # the refusal takes the screen: no side is shown
    if isinstance(view, TableView):
        pages = table_pages(view, width)
        sides = [view.sides[index].name for index in pages[view.page % len(pages)]]
    least = naming.least_letters([naming.players(side) for side in _sides(view)]) if sides else 1
    shown = "\n".join(texts)
    for side in sides:
        forms = naming.forms(naming.players(side), least)
        if isinstance(view, ScoreSheetView | TableView):  # partners may be stacked, one name a line
            forms += ["\n".join(lines) for lines in naming.line_forms(naming.players(side), least)]
        if not any(form in shown for form in forms):
            found.append(f"side {side!r} is not named by its players (nor cut to {least} letters a name)")
    return found


def _failures(views: dict[str, ScreenView], translated: bool) -> list[str]:
    failures = []
    for name, view in views.items():
        for size in SIZES:
            canvas = draw(view, size)
            where = f"{name} {size[0]}x{size[1]}"
            failures += [f"{where}: {problem}" for problem in layout_problems(canvas.boxes, size)]
            texts = [box.text.replace(JOIN_GLYPH, "+") for box in canvas.boxes if box.kind == "text"]
            if translated:
                failures += [f"{where}: untranslated {word!r}" for word in pseudo.untranslated(texts, _data(view))]
            failures += [f"{where}: {problem}" for problem in _unnamed(view, texts, size[0])]
    return failures


def test_the_pseudo_locale_marks_and_lengthens(pseudo_locale: str) -> None:
    assert i18n._("Hand {hand}") == "«Hààñd {hand}»"
    assert pseudo.untranslated(["«Hààñd 3»", "Ann+Bob 1000"], {"Ann", "Bob"}) == []
    assert pseudo.untranslated(["Hand 3"], set()) == ["Hand"]


def test_sample_screens_in_the_pseudo_locale(pseudo_locale: str) -> None:
    assert _failures(sample_screens(), translated=True) == []


@pytest.mark.parametrize(("edition", "players", "teams"), swept_tables(PSEUDO_FAST_TABLES))
def test_game_screens_in_the_pseudo_locale(pseudo_locale: str, edition: str, players: int, teams: bool) -> None:
    views = {**game_screens(1, edition, players, teams), **game_screens(2, edition, players, teams, every=True,
                                                                          hands=1)}
    assert _failures(views, translated=True) == []


#: One table of every size and both kinds of partnership, for the longest names.
SIZES_OF_TABLES = sorted({(players, teams): (edition, players, teams) for edition, players, teams in TABLES}.values(),
                         key=lambda table: (table[1], table[2]))


#: The fast tier's sample of the sweep below: the smallest table and the largest.
FAST_SIZES = {(2, False), (8, True)}


@pytest.mark.parametrize(("edition", "players", "teams"), [
    table if (table[1], table[2]) in FAST_SIZES else pytest.param(*table, marks=pytest.mark.slow)
    for table in SIZES_OF_TABLES], ids=[f"{e}-{p}{'-teams' if t else ''}" for e, p, t in SIZES_OF_TABLES])
def test_the_longest_names_name_every_side_in_the_pseudo_locale(pseudo_locale: str, edition: str, players: int,
                                                                 teams: bool) -> None:
    """2 to 8 players with twelve-character names: every screen of a hand, and the game's end."""
    views = {**game_screens(3, edition, players, teams, names=LONGEST),
             **game_screens(4, edition, players, teams, every=True, hands=1, names=LONGEST)}
    assert _failures(views, translated=True) == []


def test_the_check_sees_a_side_shown_by_its_seat_letters() -> None:
    """Issue 29: "B+D" for the whole hand while the other side read "Ann+Chloé"."""
    from bornes.firmware.screens.samples import sample_tables

    view = sample_tables()["table-2-teams"]
    assert _unnamed(view, ["Ann+Chloé 3150", "B+D 2875"], 128) == [
        "a seat letter stands for a side: 'B+D' in 'B+D 2875'",
        "side 'Bob+Dmitri' is not named by its players (nor cut to 1 letters a name)",
    ]
    assert _unnamed(view, ["Ann+Chloé 3150", "Bob+Dmi. 2875"], 128) == []
