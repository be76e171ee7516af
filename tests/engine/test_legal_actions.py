"""legal_actions and validate agree, for every seat and every kind of action, in turn and out of turn.

Hypothesis plays a simulated game of every edition (and of the options that open other phases:
starting Rolls, Fast Play, the attacker's own Roll), picks positions in it (always including the
first coup-fourré window, extension question, leftovers, starting Rolls, end of hand and exhausted
draw pile the game reached), and for each seat there and each action kind builds every candidate
action from the cards drawn: all plays with every target, discards, coups fourrés, Fast Play
remedies, takes of every discard, every swap of the cards, starting Rolls, both extension answers,
leftovers, end and next. Both directions are checked:

- everything ``legal_actions`` gives is accepted by ``validate``;
- every candidate ``validate`` accepts is given by ``legal_actions`` (a hazard's target named by
  the first seat of its side, the form the generator uses).
"""

from __future__ import annotations

import random
from itertools import combinations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bornes.engine.actions import (
    Action,
    ActionKind,
    CoupFourre,
    Discard,
    EndHand,
    Extension,
    FastRemedy,
    Leftover,
    NextHand,
    Play,
    StartRoll,
    Swap,
    TakeDiscard,
)
from bornes.engine.cards import Card, CardKind, full_deck
from bornes.engine.game import Game
from bornes.engine.options import EDITIONS
from bornes.engine.rules import Accepted, apply, kind_refusal, legal_actions, validate
from bornes.engine.simulate import Simulation
from bornes.engine.state import EventCode, GameSetup, GameState, Phase, Why
from tests.engine.helpers import new_game, play, run_down, turn
from tests.engine.helpers import seat as seat_of

#: edition, players, teams, option overrides: every edition, and the options that open other phases.
TABLES: list[tuple[str, int, bool | None, dict[str, object]]] = [
    ("winning-moves", 2, None, {}),
    ("winning-moves", 3, None, {}),  # the 700-mile trip and its extension question
    ("winning-moves", 4, None, {}),
    ("winning-moves", 6, None, {}),
    ("parker-1988", 3, None, {}),
    ("hasbro-2016", 3, None, {}),
    ("hasbro-2016", 4, True, {"fast_play": True}),
    ("hasbro-2016", 2, None, {"attack_needs_own_roll": True, "fast_play": True}),
    ("dujardin", 4, None, {"youngest_start_rolling": True}),
    ("dujardin", 6, None, {}),
    ("1000-bornes", 5, None, {}),  # leftovers
    ("winning-moves", 4, True, {"discard_safety": False, "hazard_on_hazard": True}),
]

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def make_setup(edition: str, players: int, teams: bool | None, options: dict[str, object]) -> GameSetup:
    opts = EDITIONS[edition].options.replace(**options) if options else EDITIONS[edition].options
    return GameSetup.create(edition, [f"P{i}" for i in range(players)], teams=teams, options=opts)


def states_of(setup: GameSetup, log: list[Action]) -> list[GameState]:
    game = Game(setup)
    states = [game.state]
    for action in log:
        verdict = game.push(action)
        assert isinstance(verdict, Accepted)
        states.append(game.state)
    return states


def landmarks(states: list[GameState]) -> set[int]:
    """The first position of each phase, window and empty draw pile the game reached."""
    first: dict[object, int] = {}
    for index, state in enumerate(states):
        first.setdefault(state.phase, index)
        if state.hand.window is not None:
            first.setdefault("window", index)
        if state.hand.exhausted:
            first.setdefault("exhausted", index)
        if state.hand.discard:
            first.setdefault("discard", index)
    return set(first.values())


def candidates(state: GameState, seat: int, held: list[Card]) -> dict[ActionKind, list[Action]]:
    """Every action of each kind that could be made for ``seat`` from the cards ``held``."""
    seats = state.setup.seats
    found: dict[ActionKind, list[Action]] = {kind: [] for kind in ActionKind}
    for card in held:
        found[ActionKind.PLAY] += [Play(seat, card), *(Play(seat, card, t) for t in range(seats))]
        found[ActionKind.DISCARD].append(Discard(seat, card))
        found[ActionKind.COUP_FOURRE].append(CoupFourre(seat, card))
        found[ActionKind.FAST_REMEDY].append(FastRemedy(seat, card))
        found[ActionKind.START_ROLL].append(StartRoll(seat, card))
        found[ActionKind.LEFTOVER].append(Leftover(seat, card))
    found[ActionKind.TAKE_DISCARD] = [TakeDiscard(seat, c) for c in (*state.hand.discard, *held)]
    found[ActionKind.SWAP] = [Swap(seat, chosen) for size in range(1, len(held) + 1)
                              for chosen in combinations(held, size)]
    if held:
        found[ActionKind.SWAP].append(Swap(seat, (held[0], held[0])))
    found[ActionKind.EXTENSION] = [Extension(seat, True), Extension(seat, False)]
    found[ActionKind.END_HAND] = [EndHand()]
    found[ActionKind.NEXT_HAND] = [NextHand()]
    return found


def canonical(state: GameState, action: Action) -> Action:
    """A hazard's target as the generator names it: the first seat of the target side."""
    if isinstance(action, Play) and action.card.kind.is_hazard:
        setup = state.setup
        if action.target is not None:
            return Play(action.seat, action.card, setup.side_seats(setup.side_of(action.target))[0])
        # Without a target the engine accepts the hazard only when one side can take it; the hazard
        # event names that side. A window is no witness: on the last turn of an `end-hand` hand the
        # hazard ends the hand and opens none (docs/rules.md D11, 004 "Le Coup-Fourré" 2).
        verdict = apply(state, action)
        assert isinstance(verdict, Accepted)
        (side,) = [event.side for event in verdict.events if event.code is EventCode.HAZARD]
        assert side is not None
        window = verdict.state.hand.window
        assert (window.side == side) if window is not None else verdict.state.phase is not Phase.PLAY
        return Play(action.seat, action.card, setup.side_seats(side)[0])
    return action


def check_position(state: GameState, held_by_seat: list[list[Card]]) -> None:
    setup = state.setup
    actors = state.acting()
    for seat, held in enumerate(held_by_seat):
        every = legal_actions(state, seat, held)
        assert len(every) == len(set(every)), "an action is listed twice"
        by_kind: dict[ActionKind, set[Action]] = {kind: set() for kind in ActionKind}
        for action in every:
            refusal = validate(state, action)
            assert refusal is None, f"generated {action.notation()} is refused: {refusal}"
            by_kind[action.kind].add(action)
        for kind, listed in candidates(state, seat, held).items():
            narrowed = set(legal_actions(state, seat, held, {kind}))
            assert narrowed == by_kind[kind], f"legal_actions(kinds={{{kind}}}) differs from the full list"
            accepted = {canonical(state, c) for c in listed if validate(state, c) is None}
            missing = sorted(a.notation() for a in accepted - by_kind[kind])
            extra = sorted(a.notation() for a in by_kind[kind] - accepted)
            assert accepted == by_kind[kind], f"seat {seat} {kind.value}: not generated {missing}, unexpected {extra}"
            if by_kind[kind]:
                assert kind_refusal(state, seat, kind) is None, f"{kind.value} is generated but said closed"
        # Who may act, and why, matches what they may do.
        mine = {actor.why for actor in actors if actor.seat == seat}
        kinds = {action.kind for action in every} - {ActionKind.END_HAND, ActionKind.NEXT_HAND}
        if kinds & {ActionKind.PLAY, ActionKind.DISCARD, ActionKind.TAKE_DISCARD, ActionKind.SWAP}:
            assert Why.IN_TURN in mine
        if kinds & {ActionKind.COUP_FOURRE, ActionKind.FAST_REMEDY}:
            assert Why.HAZARD_WINDOW in mine
        if ActionKind.EXTENSION in kinds:
            assert Why.EXTENSION_DECISION in mine
        if ActionKind.START_ROLL in kinds:
            assert Why.START_ROLL in mine
        if ActionKind.LEFTOVER in kinds:
            assert Why.LEFTOVERS in mine
    # A seat outside the table may do nothing.
    assert legal_actions(state, setup.seats, held_by_seat[0]) == []


@SETTINGS
@given(table=st.sampled_from(TABLES), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_legal_actions_and_validate_agree_for_every_seat_and_kind(
    table: tuple[str, int, bool | None, dict[str, object]], seed: int, data: st.DataObject
) -> None:
    setup = make_setup(*table)
    game = Simulation(setup, random.Random(seed)).run(2).games_played[0]
    states = states_of(setup, game.log)
    picked = data.draw(st.lists(st.integers(0, len(states) - 1), min_size=1, max_size=3), label="positions")
    deck = [card for card in full_deck() if setup.in_deck(card)]
    for index in sorted(landmarks(states) | set(picked)):
        state = states[index]
        unseen = [card for card in deck if card not in state.hand.seen]
        seen = sorted(state.hand.seen, key=Card.code)
        held_by_seat = []
        for _ in range(setup.seats):
            held = data.draw(st.lists(st.sampled_from(unseen), max_size=5, unique=True) if unseen else st.just([]),
                             label="held")
            # Cards that open the rarer kinds: the answers to the hazard just played, a Roll.
            window = state.hand.window
            wanted = {window.hazard.kind.safety, window.hazard.kind.remedy} if window else set()
            wanted.add(CardKind.ROLL)
            useful = [card for card in unseen if card.kind in wanted and card not in held]
            if len(useful) > 0 and data.draw(st.booleans(), label="an answer or a Roll"):
                held.append(data.draw(st.sampled_from(useful)))
            if len(seen) > 0 and data.draw(st.booleans(), label="a card already on the table"):
                held.append(data.draw(st.sampled_from(seen)))
            held_by_seat.append(held)
        check_position(state, held_by_seat)


def test_a_hazard_on_the_last_turn_of_an_end_hand_hand_opens_no_window_D11() -> None:
    """The Hypothesis counterexample (dujardin, 6 players, seed 35), built by hand.

    004 "Règle standard": the hand ends “dès qu'il n'y a plus de carte Bornes dans le sabot”, and
    004 "Le Coup-Fourré" 2 makes a coup fourré take a replacement card “dans le sabot”: so a hazard
    on the last turn of an `empty_draw_pile=end-hand` hand ends the hand and opens no coup-fourré
    window (docs/rules.md D11). Here the last card is drawn by a coup fourré (A's Puncture-Proof
    against C's Flat Tire); A's extra turn is the last one, and A lays an Out of Gas without naming
    a target: only C's side (C and F, the third partnership) is rolling, so the engine infers it.
    The agreement check must take that target from the hazard event, not from a window.
    """
    keep = ("MB-ROLL-01", "MB-ROLL-02", "MB-FLATTIRE-01", "MB-PUNCTUREPROOF-01", "MB-OUTOFGAS-01")
    game = new_game("dujardin", 6)  # A&D, B&E, C&F
    play(game, "A play MB-ROLL-01", "B discard MB-D25-10", "C play MB-ROLL-02")
    run_down(game, 2, before="C", keep=keep)
    play(game, "C play MB-FLATTIRE-01 > A", "A coup MB-PUNCTUREPROOF-01")  # C drew the last but one card
    state = game.state
    assert state.hand.draw_pile == 0 and turn(game) == "A" and state.phase is Phase.PLAY
    out_of_gas = Card.from_code("MB-OUTOFGAS-01")
    verdict = apply(state, Play(seat_of("A"), out_of_gas))
    assert isinstance(verdict, Accepted)
    assert verdict.state.hand.window is None and verdict.state.hand.phase is not Phase.PLAY
    assert [e.side for e in verdict.events if e.code is EventCode.HAZARD] == [2]
    assert Play(seat_of("A"), out_of_gas, seat_of("C")) in legal_actions(state, seat_of("A"), [out_of_gas])
    check_position(state, [[out_of_gas], [], [], [], [], []])
