"""The committed gettext catalogues: compiled, loadable, and chosen by language."""

from __future__ import annotations

from pathlib import Path

import pytest

from bornes.firmware.language import i18n
from tools.catalogues import stale


def test_every_committed_mo_matches_its_po() -> None:
    assert stale() == [], "run python -m tools.catalogues"


def test_french_catalogue_loads_with_french_plural_rule() -> None:
    french = i18n.translations("fr")
    assert french.ngettext("card", "cards", 1) == "card"  # untranslated text falls back to the source
    assert french.info().get("language") == "fr"


def test_unknown_language_is_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match="choose one of en, fr"):
        i18n.translations("xx")


def test_the_check_sees_a_changed_translation_but_not_the_compile_time(tmp_path: Path) -> None:
    """A .po without POT-Creation-Date (Babel would stamp "now" into its .mo) compiled earlier is
    not stale; the same .po with one msgstr changed is."""
    from tools.catalogues import compiled

    folder = tmp_path / "fr" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    po = folder / "bornes.po"
    header = 'msgid ""\nmsgstr ""\n"Language: fr\\n"\n"Content-Type: text/plain; charset=utf-8\\n"\n\n'
    po.write_text(header + 'msgid "New game"\nmsgstr "Nouvelle partie"\n', encoding="utf-8")
    mo = po.with_suffix(".mo")
    mo.write_bytes(compiled(po).replace(b"2000-01-01 00:00", b"2026-11-24 03:42"))  # compiled another minute
    assert mo.read_bytes() != compiled(po)
    assert stale(tmp_path) == []
    po.write_text(header + 'msgid "New game"\nmsgstr "Partie nouvelle"\n', encoding="utf-8")
    assert stale(tmp_path) == [mo]


def test_the_check_ignores_the_compilers_stamp_but_not_the_plural_rule(tmp_path: Path) -> None:
    """A .mo another Babel release compiled ("Generated-By: Babel 2.18.0" where today's says its own
    version) is not stale: nothing gettext reads changed. A changed Plural-Forms line is."""
    from tools.catalogues import compiled

    folder = tmp_path / "fr" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    po = folder / "bornes.po"
    header = ('msgid ""\nmsgstr ""\n"Language: fr\\n"\n"Content-Type: text/plain; charset=utf-8\\n"\n'
              '"Plural-Forms: nplurals=2; plural=(n > 1);\\n"\n\n')
    po.write_text(header + 'msgid "New game"\nmsgstr "Nouvelle partie"\n', encoding="utf-8")
    mo = po.with_suffix(".mo")
    today = compiled(po)
    stamp = today[today.index(b"Generated-By: Babel "):].split(b"\n", 1)[0]
    assert stamp != b"Generated-By: Babel 0.0.1"
    mo.write_bytes(today.replace(stamp, b"Generated-By: Babel 0.0.1".ljust(len(stamp))))
    assert mo.read_bytes() != today
    assert stale(tmp_path) == []
    po.write_text(header.replace("(n > 1)", "(n != 1)") + 'msgid "New game"\nmsgstr "Nouvelle partie"\n',
                  encoding="utf-8")
    assert stale(tmp_path) == [mo]


def test_an_editions_printed_card_names_serve_both_the_panel_and_the_pages() -> None:
    """One place (the table catalogue, context card:<edition>) for the names an edition printed:
    rulebook 001 (2016) "Drive (aka Roll)", "Emergency Vehicle"."""
    from bornes.engine.actions import Play
    from bornes.engine.cards import Card, CardKind
    from bornes.engine.state import GameSetup
    from bornes.firmware.language import words
    from bornes.firmware.storage import live

    i18n.use("en")
    assert words.card_name(CardKind.ROLL, "hasbro-2016") == "Drive"
    assert words.card_name(CardKind.ROLL, "winning-moves") == "Roll"
    assert live.card_name(CardKind.RIGHT_OF_WAY, "en", "hasbro-2016") == "Emergency Vehicle"
    assert live.card_name(CardKind.ROLL, "fr", "dujardin") == "Feu Vert"
    said = words.action_words(GameSetup.create("hasbro-2016", ["Ann", "Bob"]), Play(0, Card(CardKind.END_OF_LIMIT, 1)))
    assert said[0] == "Ann: End of Speed Limit"
    assert "Ann: End of Limit" in said  # the usual, shorter title when the printed one does not fit
