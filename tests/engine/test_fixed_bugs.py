"""Regressions: engine bugs found while writing the suite, each with the rulebook sentence it broke.

1. A Fast Play remedy that empties the hand of the seat in turn left the turn stuck on it.
2. The simulator did not count the starting Rolls of "pour les plus jeunes" until they were laid.
3. A target was accepted on a card that never goes on an opponent.
"""

from __future__ import annotations

import pytest

from engine.actions import parse_action
from engine.options import EDITIONS
from engine.reasons import Refusal
from engine.simulate import simulate
from engine.state import GameSetup
from tests.engine.helpers import ANY_KINDS, filler, new_game, play, run_down, turn


def test_fast_remedy_of_the_last_card_passes_the_turn_001_Fast_Play_D22() -> None:
    """001 "Fast Play": after the immediate remedy "Play will then return to normal continuing with the
    player to the left of the one that played the Hazard card"; D22 (000 §6C play-out): "a player with no
    cards left is skipped; the hand ends when every hand is empty".

    3 players, winning-moves with `fast_play=yes`, draw pile empty: A 1 card, B 2, C 1. A discards,
    B lays a Flat Tire on C, C answers at once with his last card, a Spare Tire. C now holds nothing, so
    the turn must go on to A (who still holds a card). The engine leaves the turn on C: C is refused
    "hand-empty" and A "not-your-turn" — the table is stuck."""
    keep = frozenset({"MB-FLATTIRE-01", "MB-SPARETIRE-01"})
    game = new_game("winning-moves", 3, fast_play=True)
    play(game, "A discard MB-D25-01", "B discard MB-D25-02", "C play MB-ROLL-01")
    run_down(game, 0, before="A", keep=tuple(keep))
    for _ in range(4 * 3):
        filler(game, ANY_KINDS, keep)
    assert game.state.hand.hands == (2, 2, 1) and turn(game) == "A"
    filler(game, ANY_KINDS, keep)
    play(game, "B play MB-FLATTIRE-01 > C", "C fast MB-SPARETIRE-01")
    assert game.state.hand.hands == (1, 1, 0)
    assert turn(game) == "A"


def test_simulator_youngest_variant_has_no_invariant_failures_004_pour_les_plus_jeunes() -> None:
    """004 "Pour les plus jeunes": each player gets a Feu Vert besides his 6 cards. The simulator takes
    those Rolls out of the shuffled deck before dealing but its card-conservation check only finds them
    once they are on the table, so `simulate` reports a failure after every `start` and `next`."""
    options = EDITIONS["dujardin"].options.replace(youngest_start_rolling=True)
    setup = GameSetup.create("dujardin", ["Ann", "Bob"], options=options)
    report = simulate(setup, 5, seed=1)
    assert report.failures == []


@pytest.mark.parametrize("card", ["MB-D100-01", "MB-ROLL-01", "MB-RIGHTOFWAY-01"])
def test_target_on_a_card_that_never_goes_on_an_opponent_000_piles(card: str) -> None:
    """000, the layout paragraphs "BATTLE PILES", "SAFETY AREAS", "DISTANCE PILES": "Remedy Cards on your
    own Battle Pile"; Safety Cards "are never played on your opponents' Safety Area"; Distance Cards "are
    never played onto the opponents' piles". The
    notation "A play CARD > B" says the card goes on B's side; the referee accepts it and lays the card
    on A's own side, so the game record no longer says what happened at the table. It should refuse."""
    game = new_game()
    if card.startswith("MB-D"):
        play(game, "A play MB-ROLL-02", "B discard MB-D25-10")
    verdict = game.push(parse_action(f"A play {card} > B"))
    assert isinstance(verdict, Refusal)
