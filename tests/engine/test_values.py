"""The engine's values copy, deep-copy and pickle as what they are, under either build.

Frozen dataclasses do this by themselves as Python; compiled by mypyc they would refuse (the copy
is made empty, then written field by field), so they share a base that makes them again from
their ``__init__`` fields (engine/values.py). tests/engine/test_compiled_engine.py runs this file
against the compiled engine too.
"""

from __future__ import annotations

import copy
import pickle
import random
from collections.abc import Callable

import pytest

from bornes.engine import EDITIONS, GameSetup, engine_build, parse_action
from bornes.engine.record import RecordLine
from bornes.engine.simulate import simulate

#: One action of every kind, in the record notation (engine/actions.py).
NOTATIONS = (
    "A play MB-D100-07", "A play MB-STOP-02 > B", "A discard MB-D25-03", "B coup MB-DRIVINGACE-01",
    "A take MB-ROLL-04", "B fast MB-GASOLINE-02", "A swap MB-D25-01 MB-D50-02", "A start MB-ROLL-03",
    "A extension yes", "A left MB-D100-03", "end", "next",
)


def _values() -> list[object]:
    setup = GameSetup.create("hasbro-2016", ["Ana", "Bo", "Cy", "Di"], teams=True)
    game = simulate(setup, 3, seed=random.Random(5).randrange(1000)).games_played[-1]
    return [
        *(parse_action(text) for text in NOTATIONS),
        setup,
        setup.options,
        EDITIONS["parker-1988"],
        game.state,  # named tuples of sides, piles and the setup above
        *game.state.sheets,
        RecordLine(3, "A play MB-D100-07", parse_action("A play MB-D100-07")),
    ]


def _copied(value: object) -> object:
    return copy.copy(value)


def _deep_copied(value: object) -> object:
    return copy.deepcopy(value)


def _pickled(value: object) -> object:
    return pickle.loads(pickle.dumps(value))


@pytest.mark.parametrize("again", [_copied, _deep_copied, _pickled], ids=["copy", "deepcopy", "pickle"])
def test_every_engine_value_comes_back_equal(again: Callable[[object], object]) -> None:
    for value in _values():
        made = again(value)
        assert made == value and type(made) is type(value), (engine_build(), value)
        assert hash(made) == hash(value), value


def test_a_copied_setup_works_out_its_own_facts_again() -> None:
    # GameSetup's deck, sides and seats are worked out by __post_init__ (fields with init=False):
    # a copy made from the __init__ fields has them, and they are the original's.
    short = next(name for name, edition in EDITIONS.items() if 3 in edition.short_deck_seats)
    setup = GameSetup.create(short, ["Ana", "Bo", "Cy"])
    made = pickle.loads(pickle.dumps(setup))
    assert (made.deck, made.deck_size, made.short_deck) == (setup.deck, setup.deck_size, setup.short_deck) == (
        setup.deck, 101, True)
    assert [made.side_of(seat) for seat in range(3)] == [0, 1, 2]
    assert [made.side_seats(side) for side in range(3)] == [(0,), (1,), (2,)]
