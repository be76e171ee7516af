"""Players' names: the letters the button name editor offers, and how a side is named where room is short.

The engine decides which names are allowed (``bornes.engine.state.check_name``); this module
decides what the three-button editor cycles through, so that "Chloé", "Zoë" or "Œdipe" can be
typed at the table (Latin-1 plus Œ œ Ÿ, which the shipped fonts draw:
``firmware/screens/fonts.printable``), and the one rule the panel cuts names by.

A side's name is its players' names joined by "+" ("Ann+Chloé"). Where a name does not fit its
place, it keeps its first letters and a point ("Chloé" → "Chl."); partners are cut alike, the
longest names first, the shorter ones kept whole ("Marc+Maëlle" → "Marc+Maë."). The legend says
so. On one screen, no two sides are ever cut so far that they read the same ("Ma.+Ma." twice), and
a side is never shown by the seat letters nobody at the table knows ("B+D").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from bornes.engine import MAX_NAME_LENGTH

#: The lower-case cycle NEXT walks through (BACK walks it backwards); a blank ends the name.
LOWER_LETTERS = " abcdefghijklmnopqrstuvwxyzéèêëàâçïîôùûüÿœæ-'"
#: The same cycle in capitals (CF switches the letter under the cursor between the two).
UPPER_LETTERS = "".join(letter.upper() for letter in LOWER_LETTERS)
#: Every letter the editor can produce.
NAME_LETTERS = LOWER_LETTERS + UPPER_LETTERS.strip(" -'")

assert len(LOWER_LETTERS) == len(UPPER_LETTERS), "every letter has exactly one capital"

__all__ = ["JOIN", "LOWER_LETTERS", "MAX_NAME_LENGTH", "NAME_LETTERS", "UPPER_LETTERS", "abridged", "cut", "forms",
           "least_letters", "letters_lost", "line_forms", "most_kept", "next_letter", "players", "side_form",
           "switch_case"]


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


# -- a side's name where room is short ----------------------------------------------------------------

#: What joins partners in a side's name.
JOIN = "+"


def players(side: str) -> tuple[str, ...]:
    """The players of a side's name ("Ann+Chloé" → ("Ann", "Chloé"))."""
    return tuple(side.split(JOIN))


def cut(name: str, keep: int) -> str:
    """``name`` kept to its first ``keep`` letters and a point ("Chloé", 3 → "Chl."); whole if that would
    take away a single letter ("Léa", 2 → "Léa": "Lé." is no shorter). A cut never ends on a space, a
    dash or an apostrophe ("Jean-Luc", 5 → "Jean.")."""
    if len(name) <= keep + 1:
        return name
    return name[:keep].rstrip(" -'") + "."


def side_form(side: Sequence[str], keep: int) -> str:
    """A side's name with every player's name kept to ``keep`` letters."""
    return JOIN.join(cut(name, keep) for name in side)


def forms(side: Sequence[str], least: int = 1) -> list[str]:
    """The side's name, then each shorter form by the rule, longest first, down to ``least`` letters a name."""
    longest = max((len(name) for name in side), default=0)
    found = [JOIN.join(side)]
    for keep in range(longest - 1, max(1, least) - 1, -1):
        form = side_form(side, keep)
        if len(form) < len(found[-1]):  # "Maëll." is no shorter than "Maëlle"
            found.append(form)
    return found


def line_forms(side: Sequence[str], least: int = 1) -> list[tuple[str, ...]]:
    """The same forms with one player a line (partners stacked where a line is narrow), longest first."""
    longest = max((len(name) for name in side), default=0)
    found = [tuple(side)]
    for keep in range(longest - 1, max(1, least) - 1, -1):
        lines = tuple(cut(name, keep) for name in side)
        if max(map(len, lines)) < max(map(len, found[-1])):
            found.append(lines)
    return found


def least_letters(sides: Sequence[Sequence[str]]) -> int:
    """The fewest first letters a name may keep on a screen that shows ``sides`` together, so that no two
    sides read alike ("Marc+Maëlle" and "Marie+Maxime" need three: "Mar.+Maë." and "Mar.+Max.")."""
    longest = max((len(name) for side in sides for name in side), default=1)
    for keep in range(1, longest + 1):
        shown = [side_form(side, keep) for side in sides]
        if len(set(shown)) == len(shown):
            return keep
    return longest


_WORD = re.compile(r"[^\W\d_][\w'-]*")


def abridged(text: str, keep: int) -> str:
    """``text`` with every word longer than ``keep`` letters cut by the same rule ("Maximilienne starts",
    5 → "Maxim. starts"): the last resort of a line that has no shorter phrasing."""
    return _WORD.sub(lambda word: cut(word.group(), keep), text)


def most_kept(side: Sequence[str], fits: Callable[[int], bool]) -> int:
    """The most letters a name of ``side`` may keep where ``fits(keep)`` says the side's cut fits (its
    longest name's length: whole); 0 when nothing fits."""
    return next((keep for keep in range(max(map(len, side), default=0), 0, -1) if fits(keep)), 0)


def letters_lost(side: Sequence[str], keep: int) -> int:
    """How many letters the side's names lose when cut to ``keep`` (0: every name whole). How a screen
    compares its ways of naming the sides: the way that loses the fewest wins."""
    return sum(len(name) - keep for name in side if cut(name, keep) != name)
