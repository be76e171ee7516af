"""A pseudo-locale, as large i18n teams use to prove a program translatable: every catalogue
string comes back wrapped in « » and about 40 % longer, its letters accented.

Under it, a text on a screen that is not accented and not inside markers was never looked up in
the catalogue (an untranslated string), and a screen that does not fit it will not fit a real
language that runs long either. Test-only: never offered to a user.
"""

from __future__ import annotations

import gettext
import re

from bornes.firmware.language import i18n

CODE = "qps-ploc"
OPEN, CLOSE = "«", "»"
#: Each ASCII vowel becomes two accented ones (the lengthening, about 40 % of English text);
#: a few consonants are accented too. All are in Latin-1, which the panel's fonts draw.
_LETTERS = {
    "a": "àà", "e": "éé", "i": "ïï", "o": "öö", "u": "üü", "y": "ýý",
    "A": "ÅÅ", "E": "ÉÉ", "I": "ÏÏ", "O": "ÖÖ", "U": "ÜÜ", "Y": "ÝÝ",
    "c": "ç", "n": "ñ", "C": "Ç", "N": "Ñ",
}
_FIELD = re.compile(r"(\{[^{}]*\})")


def pseudo(message: str) -> str:
    """``message`` in the pseudo-locale: format fields kept as they are, the rest accented."""
    if not message:
        return message
    parts = _FIELD.split(message)
    text = "".join(part if _FIELD.fullmatch(part) else "".join(_LETTERS.get(ch, ch) for ch in part)
                   for part in parts)
    return f"{OPEN}{text}{CLOSE}"


class PseudoTranslations(gettext.NullTranslations):
    """Every lookup answered in the pseudo-locale (plural by the English rule)."""

    def gettext(self, message: str) -> str:
        return pseudo(message)

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return pseudo(msgid1 if n == 1 else msgid2)

    def pgettext(self, context: str, message: str) -> str:
        return pseudo(message)

    def npgettext(self, context: str, msgid1: str, msgid2: str, n: int) -> str:
        return pseudo(msgid1 if n == 1 else msgid2)


def install() -> str:
    """Register the pseudo-locale with :mod:`bornes.firmware.language.i18n`; returns its code."""
    i18n.register_language(CODE, lambda domain: PseudoTranslations())
    return CODE


#: Words that are data wherever they show: seat letters, card codes.
_DATA = re.compile(r"[A-H]|MB-[A-Z0-9-]+")
#: A word of the source text (English): plain ASCII vowels, which the pseudo-locale never leaves.
_PLAIN = re.compile(r"[aeiouyAEIOUY]")


def _is_data(word: str, data: set[str]) -> bool:
    """A name, or its first letters (a narrow score sheet writes "Dmi." for Dmitri)."""
    return any(name.startswith(word) for name in data)


def untranslated(texts: list[str], data: set[str]) -> list[str]:
    """The words among ``texts`` (a screen's texts) that did not come through the catalogue.

    A word is translated when the pseudo-locale accented it; data (players' names, numbers,
    codes) is given in ``data`` and may stay as it is.
    """
    found = []
    for text in texts:
        for word in re.split(r"[\s+\u00a0/,;:!?()·.▶>*]+", text.replace(OPEN, " ").replace(CLOSE, " ")):
            word = word.strip("'\"-#%")
            if word and _PLAIN.search(word) and not _DATA.fullmatch(word) and not _is_data(word, data):
                found.append(word)
    return found
