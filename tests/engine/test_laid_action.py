"""``laid_action``: what a card laid at a seat's place means (pile pads, docs/readers.md Pads).

The place only picks the action; ``validate`` still judges it. Coup fourré: 000 §7 (the safety
of the hazard just played, out of turn); Fast Play remedy: 001 "Fast Play".
"""

from __future__ import annotations

from bornes.engine.actions import CoupFourre, FastRemedy, Play
from bornes.engine.cards import Card
from bornes.engine.game import Game
from bornes.engine.options import EDITIONS
from bornes.engine.rules import Accepted, laid_action, validate
from bornes.engine.state import GameSetup

A, B, C = 0, 1, 2


def game(**options: str) -> Game:
    base = EDITIONS["winning-moves"].options.with_strings(options)
    played = Game(GameSetup.create("winning-moves", ["Ann", "Bob", "Cid"], dealer=C, options=base))
    for action in (Play(A, Card.from_code("MB-ROLL-01")), Play(B, Card.from_code("MB-ROLL-02")),
                   Play(C, Card.from_code("MB-ROLL-03")), Play(A, Card.from_code("MB-D100-01"))):
        assert isinstance(played.push(action), Accepted), action
    return played


def test_a_hazard_at_an_opponents_place_goes_there() -> None:
    state = game().state  # Bob's turn
    stop = Card.from_code("MB-STOP-01")
    assert laid_action(state, C, stop) == Play(B, stop, C)
    assert laid_action(state, A, stop) == Play(B, stop, A)
    assert laid_action(state, B, stop) is None  # at his own place: the place says nothing


def test_the_answering_safety_at_the_attacked_place_is_the_coup_fourre_000_s7() -> None:
    played = game()
    assert isinstance(played.push(Play(B, Card.from_code("MB-STOP-01"), A)), Accepted)  # Cid plays next
    ace = Card.from_code("MB-RIGHTOFWAY-01")
    action = laid_action(played.state, A, ace)
    assert action == CoupFourre(A, ace) and validate(played.state, action) is None
    wrong = laid_action(played.state, A, Card.from_code("MB-EXTRATANK-01"))
    assert isinstance(wrong, CoupFourre) and validate(played.state, wrong) is not None  # refused, with why
    plain = laid_action(played.state, B, Card.from_code("MB-D25-01"))
    assert plain == Play(B, Card.from_code("MB-D25-01")) and validate(played.state, plain) is not None


def test_with_fast_play_a_remedy_out_of_turn_is_the_fast_remedy_001() -> None:
    played = game(fast_play="yes")
    assert isinstance(played.push(Play(B, Card.from_code("MB-STOP-01"), A)), Accepted)
    roll = Card.from_code("MB-ROLL-04")
    assert laid_action(played.state, A, roll) == FastRemedy(A, roll)
