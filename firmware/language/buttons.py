"""The table's buttons as the people at that table name them (issue 40).

Wired buttons carry their names (OK, NEXT, BACK, CF…), and every hint and message says them. A
table whose buttons are a USB keypad has no button called NEXT: it has a key printed "+". There the
same hints and messages name the keys instead ("+ more   Enter back"), the legend and the TV page
say which key is which button in the table's language ("Entrée", "DÉFAUSSE"), and the emulator's
console lists the keys a laptop can type.

:func:`keyed` rewrites a text's button names to the keys of a mapping (button -> the label printed
on its key), given or the one :func:`using_keys` puts in use while a screen is drawn.
"""

from __future__ import annotations

import gettext
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

from bornes.firmware.language.i18n import NC_, catalogue

#: The buttons a text names by their printed names ("OK / BACK", "NEXT/BACK", "or press CF"), where
#: they stand alone: never inside a word or a control card's code ("MB-CMD-OK").
_NAMED = re.compile(r"(?<![\w-])(OK|NEXT|BACK|CF)(?![\w-])")
_SEATS = re.compile(r"SEAT(\d)")

#: The buttons as the legend of a keypad table names them, for the catalogue (context "button").
BUTTON_WORDS = (NC_("button", "CF"), NC_("button", "DISCARD"), NC_("button", "UNDO"), NC_("button", "OK"),
                NC_("button", "NEXT"), NC_("button", "BACK"), NC_("button", "SEAT{n}"))
#: Key labels that are words (drivers/keys.py), for the catalogue (context "key"); the others
#: ("+", "0", "F13") are printed alike in every language.
KEY_WORDS = (NC_("key", "Enter"), NC_("key", "Space"), NC_("key", "Backspace"), NC_("key", "Tab"), NC_("key", "Esc"),
             NC_("key", "Del"), NC_("key", "Ins"), NC_("key", "Home"), NC_("key", "End"), NC_("key", "Up"),
             NC_("key", "Down"), NC_("key", "Left"), NC_("key", "Right"), NC_("key", "Mute"), NC_("key", "Play"),
             NC_("key", "Next"), NC_("key", "Prev"), NC_("key", "Shift"), NC_("key", "Ctrl"), NC_("key", "Caps"))

_in_use: list[Mapping[str, str]] = [{}]


@contextmanager
def using_keys(keys: Mapping[str, str]) -> Iterator[None]:
    """Inside the block, :func:`keyed` without a mapping names the buttons by these keys (button ->
    the label printed on its key; empty: wired buttons, named as they are)."""
    _in_use.append(keys)
    try:
        yield
    finally:
        _in_use.pop()


def key_word(label: str, words: gettext.NullTranslations | None = None) -> str:
    """What is printed on a key, in the table's language: ``Enter`` is "Entrée" in French; ``+`` is ``+``."""
    return (words or catalogue()).pgettext("key", label) if label in KEY_WORDS else label


def button_word(button: str, words: gettext.NullTranslations | None = None) -> str:
    """A button as the legend of a keypad table names it, in the table's language: ``DISCARD`` is
    "DÉFAUSSE" in French, ``SEAT1-SEAT8`` "PLACE1-PLACE8"."""
    return button_phrasings(button, words)[0]


def button_phrasings(button: str, words: gettext.NullTranslations | None = None) -> tuple[str, ...]:
    """:func:`button_word`, then a shorter phrasing where there is one: a range of seats as "PLACE1-8"."""
    said = words or catalogue()

    def one(name: str) -> str:
        seat = _SEATS.fullmatch(name)
        if seat:
            return said.pgettext("button", "SEAT{n}").format(n=seat.group(1))
        return said.pgettext("button", name)

    names = button.split("-")
    whole = "-".join(one(name) for name in names)
    last = _SEATS.fullmatch(names[-1])
    if len(names) == 2 and last and _SEATS.fullmatch(names[0]):
        return whole, f"{one(names[0])}-{last.group(1)}"
    return (whole,)


def keyed(text: str, keys: Mapping[str, str] | None = None) -> str:
    """``text`` with the buttons it names (OK, NEXT, BACK, CF) named by their keys, in the table's
    language: "NEXT more   OK back" becomes "+ more   Enter back" on a numeric keypad. ``keys``:
    button -> the label on its key; None: the mapping in use (:func:`using_keys`); empty: unchanged."""
    keys = _in_use[-1] if keys is None else keys
    if not keys or not text:
        return text
    return _NAMED.sub(lambda match: key_word(keys[match.group(1)]) if match.group(1) in keys else match.group(1),
                      text)


def legend_words(keys: Sequence[tuple[str, str]], language: str | None = None) -> tuple[tuple[str, str], ...]:
    """A keypad's legend ((what is printed on the key, the button it is), ``KeyMap.legend``) in a language
    (default: the table's), for the panel, the phone's table page and the TV page alike."""
    words = catalogue(language)
    return tuple((key_word(label, words), button_word(button, words)) for label, button in keys)
