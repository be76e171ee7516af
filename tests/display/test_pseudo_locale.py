"""Proof by pseudo-localisation: every screen, in a language that wraps each catalogue string in
« » and makes it about 40 % longer (tests/i18n/pseudo.py).

Over the sample screens and the screens of real games (every edition × 2 to 6 players, in
partnerships where the edition plays them so, × both panels): a word the pseudo-locale did not
touch is an untranslated string, and a text that does not fit its box is a layout bug. The real
French and English catalogues go through the same layout check.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bornes.engine.options import EDITIONS
from bornes.firmware.commands.screens import game_screens
from bornes.firmware.language import i18n
from bornes.firmware.screens import SMALL, WIDE
from bornes.firmware.screens.canvas import layout_problems
from bornes.firmware.screens.model import LegendView, NameEditView, ScreenView
from bornes.firmware.screens.render import draw
from bornes.firmware.screens.samples import sample_screens
from tests.i18n import pseudo

SIZES = (SMALL, WIDE)
PLAYERS = (2, 3, 4, 5, 6)
TABLES = [
    (name, players, teams)
    for name, edition in EDITIONS.items()
    for players in PLAYERS
    for teams in (False, True)
    if players in (edition.team_seats if teams else edition.solo_seats)
]
#: Names the screens show as data (the samples' and the bots' players), never translated.
NAMES = {"Ann", "Bob", "Chloé", "Dmitri", "Eve", "Fay", "Gus", "Hélène", "Cid", "Zoë"}
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
    if isinstance(view, NameEditView):  # the name being typed, drawn one letter at a time
        found |= set(view.text)
    if isinstance(view, LegendView):  # a keypad's keys: what is printed on each, and its button's name
        found |= {word for pair in view.keys for text in pair for word in text.split()}
    return found


def _failures(views: dict[str, ScreenView], translated: bool) -> list[str]:
    failures = []
    for name, view in views.items():
        for size in SIZES:
            canvas = draw(view, size)
            where = f"{name} {size[0]}x{size[1]}"
            failures += [f"{where}: {problem}" for problem in layout_problems(canvas.boxes, size)]
            if translated:
                texts = [box.text for box in canvas.boxes if box.kind == "text"]
                failures += [f"{where}: untranslated {word!r}" for word in pseudo.untranslated(texts, _data(view))]
    return failures


def test_the_pseudo_locale_marks_and_lengthens(pseudo_locale: str) -> None:
    assert i18n._("Hand {hand}") == "«Hààñd {hand}»"
    assert pseudo.untranslated(["«Hààñd 3»", "Ann+Bob 1000"], {"Ann", "Bob"}) == []
    assert pseudo.untranslated(["Hand 3"], set()) == ["Hand"]


def test_sample_screens_in_the_pseudo_locale(pseudo_locale: str) -> None:
    assert _failures(sample_screens(), translated=True) == []


@pytest.mark.parametrize(("edition", "players", "teams"), TABLES,
                         ids=[f"{e}-{p}{'-teams' if t else ''}" for e, p, t in TABLES])
def test_game_screens_in_the_pseudo_locale(pseudo_locale: str, edition: str, players: int, teams: bool) -> None:
    views = {**game_screens(1, edition, players, teams), **game_screens(2, edition, players, teams, every=True,
                                                                          hands=1)}
    assert _failures(views, translated=True) == []


@pytest.mark.slow
@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_real_catalogues_fit_every_screen(language: str) -> None:
    with i18n.speaking(language):
        views: dict[str, ScreenView] = dict(sample_screens())
        for edition, players, teams in TABLES:
            views.update({f"{edition}-{players}{'-teams' if teams else ''}-{key}": view
                          for key, view in game_screens(2, edition, players, teams, every=True, hands=1).items()})
        assert _failures(views, translated=False) == []
