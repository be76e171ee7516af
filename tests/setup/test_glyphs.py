"""Every letter of French names has a real glyph in every shipped font, not a '?' box."""

from __future__ import annotations

import pytest

from bornes.firmware.language.names import NAME_LETTERS
from bornes.firmware.screens import fonts

FRENCH = "éèêëàâçïîôùûüÿœæÉÈÊËÀÂÇÏÎÔÙÛÜŸŒÆ"


@pytest.mark.parametrize("name", sorted(fonts.FONTS))
def test_every_name_letter_draws_its_own_glyph(name: str) -> None:
    font = fonts.font(name)
    question = bytes(font.getmask("?"))
    blank = bytes(font.getmask(" "))
    for letter in set(NAME_LETTERS + FRENCH) - {" ", "?"}:
        mask = bytes(font.getmask(fonts.printable(letter)))
        assert mask != question, f"{letter!r} draws as '?' in {name}"
        assert mask != blank, f"{letter!r} draws as a blank in {name}"


def test_accented_capitals_differ_from_their_plain_letter() -> None:
    font = fonts.font("huge")
    for accented, plain in (("É", "E"), ("Œ", "O"), ("Ÿ", "Y"), ("œ", "o"), ("ç", "c")):
        assert bytes(font.getmask(fonts.printable(accented))) != bytes(font.getmask(plain))


def test_printable_is_idempotent() -> None:
    text = "Chloé, Œdipe, Ÿves — 1 000…"
    assert fonts.printable(fonts.printable(text)) == fonts.printable(text)
