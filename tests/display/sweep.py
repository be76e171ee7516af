"""The tables the screen sweeps play (every edition at every size it is played at, alone or in partnerships),
and which of them the fast tier keeps.

A table's sweep plays a whole game and a whole hand and draws every screen at both panel sizes: about a second
a table, 26 tables, in two modules. The fast tier keeps one table of each edition, chosen so that together they
show every number of sides a screen must fit (2 to 6, partnerships of 2 and 3 tables of 4 sides); the whole
suite plays them all.
"""

from __future__ import annotations

from bornes.engine.options import EDITIONS
from tests.tiers import tiered

TABLES = [
    (name, players, teams)
    for name, edition in EDITIONS.items()
    for players in edition.seat_counts
    for teams in (False, True)
    if players in (edition.team_seats if teams else edition.solo_seats)
]
#: One table of each edition: sides 3 (alone), 3 (partnerships of 2), 6, 4 (partnerships of 2 at 8), 2.
FAST_TABLES = {("winning-moves", 3, False), ("parker-1988", 6, True), ("hasbro-2016", 6, False),
               ("dujardin", 8, True), ("1000-bornes", 2, False)}


def table_id(table: tuple[str, int, bool]) -> str:
    edition, players, teams = table
    return f"{edition}-{players}{'-teams' if teams else ''}"


#: The pseudo-locale's sweep looks for words left untranslated, the same on every table: its fast tier keeps the
#: two tables whose screens hold the most words (partnerships of 3 and of 2 at 8: team names, the longest footers).
PSEUDO_FAST_TABLES = {("parker-1988", 6, True), ("dujardin", 8, True)}


def swept_tables(fast: set[tuple[str, int, bool]] = FAST_TABLES) -> list[object]:
    """``TABLES`` as parameters: the fast tier's sample (``fast``) plain, the rest marked slow."""
    return tiered(TABLES, {table_id(table) for table in fast}, ids=[table_id(table) for table in TABLES])
