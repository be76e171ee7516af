"""Every player-facing text goes through here, so a translation is a file, not a code change.

The source strings are English. Catalogues are GNU gettext: ``firmware/language/locale/<lang>/
LC_MESSAGES/<domain>.po`` is the file a translator edits, and the ``.mo`` beside it is what
the standard library reads at run time (compiled by ``python -m tools.catalogues``; a test
checks that every committed ``.mo`` matches its ``.po``). The Pi needs nothing beyond the
standard library to read them.

Two domains keep the rooms apart: ``bornes`` for the table (OLED, buzzer prompts, CLI lines a
player reads) and ``bornes-web`` for the phone companion's pages.
"""

from __future__ import annotations

import gettext
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

LOCALE_DIR = Path(__file__).resolve().parent / "locale"
TABLE_DOMAIN = "bornes"
WEB_DOMAIN = "bornes-web"
LANGUAGES: dict[str, str] = {"en": "English", "fr": "Français"}
DEFAULT_LANGUAGE = "en"
#: Editions whose rules and cards are French: their tables speak French unless the config says
#: otherwise, and their distances are in km.
FRENCH_EDITIONS = frozenset({"dujardin", "1000-bornes"})

#: How people write a language besides its code: its name in English and in itself (case and accents
#: do not matter). A locale ("fr_FR", "en-GB", "fr_FR.UTF-8") is read by its first part.
LANGUAGE_NAMES: dict[str, str] = {"english": "en", "anglais": "en", "french": "fr", "français": "fr",
                                  "francais": "fr"}

_current: dict[str, gettext.NullTranslations] = {}
_chosen = [DEFAULT_LANGUAGE]
#: Languages only tests install (the pseudo-locale of tests/i18n/pseudo.py): code -> the
#: catalogue of a domain. Never offered to a user (not in :data:`LANGUAGES`).
_EXTRA: dict[str, Callable[[str], gettext.NullTranslations]] = {}


def register_language(code: str, factory: Callable[[str], gettext.NullTranslations]) -> None:
    """Make ``code`` a language :func:`use` and :func:`translations` accept (tests only)."""
    _EXTRA[code] = factory
    translations.cache_clear()


@cache
def translations(language: str, domain: str = TABLE_DOMAIN) -> gettext.NullTranslations:
    """The catalogue for one language; English (the source text) needs none."""
    if language in _EXTRA:
        return _EXTRA[language](domain)
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}; choose one of {', '.join(LANGUAGES)}")
    return gettext.translation(domain, localedir=LOCALE_DIR, languages=[language], fallback=True)


def language_code(text: str) -> str | None:
    """The code of the language ``text`` names, or None: a code in any case ("fr", "FR"), a locale
    ("fr_FR", "fr-CA", "fr_FR.UTF-8") or a name ("French", "français")."""
    word = text.strip().casefold()
    if word in LANGUAGE_NAMES:
        return LANGUAGE_NAMES[word]
    code = re.split(r"[_.@-]", word, maxsplit=1)[0]
    return code if code in LANGUAGES else None


def language_choices() -> str:
    """The languages as a message offers them: "en (English) or fr (Français)"."""
    named = [f"{code} ({name})" for code, name in LANGUAGES.items()]
    return ", ".join(named[:-1]) + " or " + named[-1] if len(named) > 1 else named[0]


def use(language: str) -> None:
    """Choose the language of every later ``_()`` call in this process."""
    for domain in (TABLE_DOMAIN, WEB_DOMAIN):
        _current[domain] = translations(language, domain)
    _chosen[0] = language


def current_language() -> str:
    """The language chosen by :func:`use` (English until one is chosen)."""
    return _chosen[0]


@contextmanager
def speaking(language: str) -> Iterator[None]:
    """Use ``language`` inside a ``with`` block, then the language that was in use before."""
    before = current_language()
    use(language)
    try:
        yield
    finally:
        use(before)


def _active(domain: str) -> gettext.NullTranslations:
    found = _current.get(domain)
    if found is None:
        found = _current[domain] = translations(DEFAULT_LANGUAGE, domain)
    return found


def catalogue(language: str | None = None) -> gettext.NullTranslations:
    """The table's catalogue in ``language``; None: the one chosen by :func:`use`."""
    return translations(language, TABLE_DOMAIN) if language else _active(TABLE_DOMAIN)


def edition_language(edition: str) -> str:
    """The language a table of ``edition`` speaks unless told otherwise: French for the French editions."""
    return "fr" if edition in FRENCH_EDITIONS else DEFAULT_LANGUAGE


def _(message: str) -> str:
    """Translate a table text into the chosen language."""
    return _active(TABLE_DOMAIN).gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """Translate a text whose form depends on a count ("1 card" / "2 cards")."""
    return _active(TABLE_DOMAIN).ngettext(singular, plural, count)


def pgettext(context: str, message: str) -> str:
    """Translate a text that needs a context to be told apart (a card title per edition)."""
    return _active(TABLE_DOMAIN).pgettext(context, message)


def edition_card_name(title: str, edition: str | None, language: str | None = None) -> str | None:
    """The name an edition printed on a card when it differs from the usual title (the 2016
    edition's "Drive" for Roll), in ``language`` (default: the table's); None when it does not.

    One place for these names: the table's catalogue, context ``card:<edition>``; the panel and
    the phone pages both ask here.
    """
    if edition is None:
        return None
    printed = catalogue(language).pgettext(f"card:{edition}", title)
    return printed if printed != title else None


def N_(message: str) -> str:
    """Mark a text for the catalogue without translating it yet (tables of constants)."""
    return message


def NC_(context: str, message: str) -> str:
    """Mark a text with a context for the catalogue without translating it yet."""
    return message


class Phrase:
    """A table text worded only when it is printed, in the language in use then: a log line that
    journald keeps in English and the emulator's console says in the table's language
    (``log.info("referee up", extra={"said": Phrase(N_("referee up"))})``, read by
    ``firmware/appliance/console.py``). ``values`` fill its ``{placeholders}``; a value is worded
    when the phrase is (another Phrase, or anything with a ``__str__``)."""

    __slots__ = ("text", "values")

    def __init__(self, text: str, **values: object) -> None:
        self.text, self.values = text, values

    def __str__(self) -> str:
        return _(self.text).format(**{key: str(value) for key, value in self.values.items()})
