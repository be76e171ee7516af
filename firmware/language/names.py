"""Players' names: the letters the button name editor offers, in one place.

The engine decides which names are allowed (``bornes.engine.state.check_name``); this module
only decides what the three-button editor cycles through, so that "Chloé", "Zoë" or "Œdipe"
can be typed at the table. The letters are Latin-1 plus Œ œ Ÿ, which the shipped fonts draw
(``firmware/screens/fonts.printable``).
"""

from __future__ import annotations

from bornes.engine import MAX_NAME_LENGTH

#: The lower-case cycle NEXT walks through (BACK walks it backwards); a blank ends the name.
LOWER_LETTERS = " abcdefghijklmnopqrstuvwxyzéèêëàâçïîôùûüÿœæ-'"
#: The same cycle in capitals (CF switches the letter under the cursor between the two).
UPPER_LETTERS = "".join(letter.upper() for letter in LOWER_LETTERS)
#: Every letter the editor can produce.
NAME_LETTERS = LOWER_LETTERS + UPPER_LETTERS.strip(" -'")

assert len(LOWER_LETTERS) == len(UPPER_LETTERS), "every letter has exactly one capital"

__all__ = ["LOWER_LETTERS", "MAX_NAME_LENGTH", "NAME_LETTERS", "UPPER_LETTERS", "next_letter", "switch_case"]


def next_letter(letter: str, step: int, *, capital: bool) -> str:
    """The letter ``step`` places along the cycle; an unknown letter starts from the blank."""
    if letter in UPPER_LETTERS[1:]:
        cycle = UPPER_LETTERS
    elif letter in LOWER_LETTERS:
        cycle = LOWER_LETTERS
    else:
        cycle, letter = (UPPER_LETTERS if capital else LOWER_LETTERS), " "
    if letter == " ":
        cycle = UPPER_LETTERS if capital else LOWER_LETTERS
    return cycle[(cycle.index(letter) + step) % len(cycle)]


def switch_case(letter: str) -> str:
    """é <-> É, œ <-> Œ; a blank, '-' and "'" stay as they are."""
    if letter in LOWER_LETTERS:
        return UPPER_LETTERS[LOWER_LETTERS.index(letter)]
    if letter in UPPER_LETTERS:
        return LOWER_LETTERS[UPPER_LETTERS.index(letter)]
    return letter
