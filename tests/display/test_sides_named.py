"""Sides named by their players, cut by one rule a player can guess, and a warning that hides nothing
(issue 29, items 1 and 8). The layout of every screen with the longest names is in test_pseudo_locale.py."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bornes.firmware.language.i18n import speaking
from bornes.firmware.language.names import abridged, cut, forms, least_letters, line_forms
from bornes.firmware.screens import SMALL, WIDE
from bornes.firmware.screens.fonts import JOIN_GLYPH
from bornes.firmware.screens.legend import LEGEND
from bornes.firmware.screens.model import ScoreSheetView, SetupSummaryView, SideView, TableView
from bornes.firmware.screens.render import draw, layout_problems
from bornes.firmware.screens.samples import sample_screens, sample_tables


def _texts(view: object, size: tuple[int, int]) -> list[str]:
    return [box.text.replace(JOIN_GLYPH, "+") for box in draw(view, size).boxes if box.kind == "text"]  # type: ignore[arg-type]


def test_the_rule_keeps_first_letters_and_a_point() -> None:
    assert cut("Chloé", 3) == "Chl." and cut("Chloé", 4) == "Chloé"  # "Chlo." would be no shorter
    assert cut("Léa", 2) == "Léa" and cut("Jean-Luc", 5) == "Jean."  # never a lone dash before the point
    assert forms(("Marc", "Maëlle")) == ["Marc+Maëlle", "Marc+Maël.", "Marc+Maë.", "Ma.+Ma.", "M.+M."]
    assert line_forms(("Ann", "Chloé"))[:2] == [("Ann", "Chloé"), ("Ann", "Chl.")]
    assert abridged("Maximilienne starts", 5) == "Maxim. starts"


def test_no_two_sides_are_cut_alike() -> None:
    """Issue 29: at six players, "Marc+Maëlle" and "Marie+Maxime" must not both read "Ma.+Ma."."""
    sides = [("Marc", "Maëlle"), ("Marie", "Maxime"), ("Chloé", "Hugo")]
    least = least_letters(sides)
    assert least == 3
    shown = [forms(side, least)[-1] for side in sides]
    assert len(set(shown)) == len(shown), shown


@pytest.mark.parametrize("size", [SMALL, WIDE], ids=["128x64", "256x64"])
@pytest.mark.parametrize("name", ["table-2-teams", "table-3-teams", "table-4-teams", "score-sheet-p1",
                                  "score-sheet-teams-8", "setup-summary-teams"])
def test_partners_are_named_never_seat_letters(name: str, size: tuple[int, int]) -> None:
    """Issue 29: "B+D" for a whole hand beside "Ann+Chloé", "A+D" beside "Bob+Eve" on the wide panel,
    score sheets headed "A+C" and "B+D"."""
    view = sample_screens()[name]
    texts = _texts(view, size)
    letters = {"A", "B", "C", "D", "E", "F", "G", "H"}
    for text in texts:
        for word in text.replace("▶", " ").split():
            parts = word.strip(",.").split("+")
            assert not (len(parts) > 1 and set(parts) <= letters), (name, text)
    if isinstance(view, TableView):
        sides = [side.name for side in view.sides]
    elif isinstance(view, ScoreSheetView):
        sides = [column for column, _values in view.columns]
    else:
        assert isinstance(view, SetupSummaryView)
        sides = view.sides.split(", ")
    joined = "\n".join(texts)
    for side in sides:
        first = side.split("+")[0]
        assert first[:3] in joined, (name, side, texts)


def test_the_legend_says_how_a_name_is_cut_in_both_languages() -> None:
    entry = next(entry for entry in LEGEND if entry.kind == "cut")
    team = next(entry for entry in LEGEND if entry.kind == "team")
    for language in ("en", "fr"):
        with speaking(language):
            assert "Chl" not in entry.words()[0]  # the rule, in words; the sample beside it is the example
            assert all(words for words in entry.words() + team.words())
    with speaking("fr"):
        assert entry.words()[0] == "Nom trop long\u00a0: ses premières lettres et un point"


@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize("size", [SMALL, WIDE], ids=["128x64", "256x64"])
def test_a_warning_hides_neither_the_turn_nor_touches_the_panels_edge(language: str, size: tuple[int, int]) -> None:
    """Issue 29: the "Lecteur perdu" bar lit the panel's top row and took the place of whose turn it was."""
    with speaking(language):
        view = sample_tables()["table-3-status"]
        canvas = draw(view, size)
        assert layout_problems(view, size) == []
        header = [box for box in canvas.boxes if box.rect[1] < 8]
        assert all(box.rect[1] >= 1 for box in header if box.kind == "fill"), header  # nothing lit on row 0
        assert not any(box.kind == "fill" and box.rect[2] - box.rect[0] > 20 for box in header)  # no bar
        texts = [box.text for box in header if box.kind == "text"]
        assert any("Bob" in text for text in texts), texts  # whose turn it is
        assert any(view.status and view.status in text for text in texts), texts


def test_a_long_status_gives_way_to_nothing_but_the_pile() -> None:
    """The turn's name stays, whatever the warning's length: the pile and the longer phrasings go first."""
    view = sample_tables()["table-3-status"]
    view = replace(view, status="Lecteur déconnecté", turn_name="Maximilienne",
                   sides=tuple(replace(side, is_turn=side.name == "Bob") for side in view.sides))
    for size in (SMALL, WIDE):
        texts = _texts(view, size)
        assert layout_problems(view, size) == []
        assert any(text.startswith("Maxim") for text in texts if text != "Maximilienne") or \
            any("Maximilienne" in text for text in texts), texts


def test_a_side_view_has_no_seat_letters_to_fall_back_on() -> None:
    assert "seats" not in SideView.__dataclass_fields__
