"""The committed gettext catalogues: compiled, loadable, and chosen by language."""

from __future__ import annotations

import pytest

from firmware import i18n
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
