"""The legend: every mark the table draws has a meaning, in both languages, the same on the panel,
the phone's table page and docs/legend.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from bornes.drivers.keypad import KEYMAPS, keymap_from
from bornes.firmware.language import i18n
from bornes.firmware.language.buttons import legend_words
from bornes.firmware.screens import SMALL, WIDE
from bornes.firmware.screens.icons import icon_names
from bornes.firmware.screens.legend import LEGEND, keys_html, keys_markdown, legend_html, legend_markdown, sample_png
from bornes.firmware.screens.model import LegendView
from bornes.firmware.screens.render import draw, layout_problems, legend_pages, render

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_every_icon_is_in_the_legend() -> None:
    hazards, safeties = icon_names()
    named = {entry.name for entry in LEGEND if entry.kind in ("hazard", "safety")}
    assert set(hazards) - {"not started"} <= named  # "not started" shares the hourglass of "needs roll"
    assert set(safeties) <= named
    assert {"coup", "slot", "turn", "deck", "points", "bar"} <= {entry.kind for entry in LEGEND}


def test_every_page_fits_in_both_languages_and_shows_every_entry() -> None:
    try:
        for language in ("en", "fr"):
            i18n.use(language)
            for size in (SMALL, WIDE):
                shown: list[str] = []
                for page in range(legend_pages(size)):
                    assert layout_problems(LegendView(page), size) == [], (language, size, page)
                    shown += [b.text for b in draw(LegendView(page), size).boxes if b.kind == "text"]
                for entry in LEGEND:
                    assert any(word in shown for word in entry.words()), (language, size, entry)
    finally:
        i18n.use("en")


def test_the_docs_and_the_phone_page_say_the_same() -> None:
    text = (DOCS / "legend.md").read_text(encoding="utf-8")
    assert legend_markdown() in text, "refresh docs/legend.md: python -m bornes.firmware.screens.legend"
    for entry in LEGEND:
        assert (DOCS / "legend" / f"{entry.key}.png").read_bytes() == sample_png(entry), entry.key
    french = legend_html("fr")
    assert "Ce que disent les icônes" in french and "Feu Rouge" in french and "Attend un Feu Vert" in french
    assert legend_html("en").count("<dt>") == len(LEGEND)


@pytest.mark.parametrize("keymap", sorted(KEYMAPS))
def test_a_keypads_keys_come_first_and_fit_in_both_languages(keymap: str) -> None:
    keys = KEYMAPS[keymap].legend()
    changed = keymap_from(keymap, {"VOLUMEUP": "NEXT", "PLAYPAUSE": "SEAT2", "BACKSPACE": "UNDO"}).legend()
    try:
        for language in ("en", "fr"):
            i18n.use(language)
            for size in (SMALL, WIDE):
                for shown_keys in (keys, changed):
                    pages = legend_pages(size, shown_keys)
                    assert pages > legend_pages(size)
                    texts: list[str] = []
                    for page in range(pages - legend_pages(size)):
                        assert layout_problems(LegendView(page, shown_keys), size) == [], (language, size, page)
                        texts += [b.text for b in draw(LegendView(page, shown_keys), size).boxes if b.kind == "text"]
                    for label, button in legend_words(shown_keys):  # in the table's language (issue 40)
                        assert label in texts and button in texts, (language, size, label)
                    first_icons = render(LegendView(pages - legend_pages(size), shown_keys), size)  # then the icons
                    assert first_icons.crop((0, 11, *size)) == render(LegendView(0), size).crop((0, 11, *size))
    finally:
        i18n.use("en")


def test_the_docs_and_the_phone_page_show_the_keys() -> None:
    text = (DOCS / "legend.md").read_text(encoding="utf-8")
    assert keys_markdown() in text, "refresh docs/legend.md's keys: python -m bornes.firmware.screens.legend"
    page = keys_html(KEYMAPS["numpad"].legend(), "en")
    assert "<kbd>Enter</kbd></dt><dd>OK</dd>" in page and "Keys of the keypad" in page
    assert keys_html((), "en") == ""
