"""The referee remembers verdicts (issue 22): hazards per target side, what each card allows a seat
per set of side facts (each hazard per what the other sides take), the side judged by the
generator for the check that follows. What it remembers must never leak from one table, one trip
or one side to another: the very same side value, put in states whose rules, trip or seats
differ, is judged by each state's own rules.

Rules cited: 000 §6C (exact trip), 003 note G (hazard on hazard), 000 §12H (speed limit on a limit).
"""

from __future__ import annotations

from unittest import mock

from bornes.engine import rules
from bornes.engine.actions import Action, Discard, EndHand, NextHand, Play
from bornes.engine.cards import CLASSIC_COUNTS, Card, CardKind, iter_deck
from bornes.engine.game import Game
from bornes.engine.options import EDITIONS
from bornes.engine.rules import legal_actions, new_game, turn_options, validate
from bornes.engine.simulate import simulate
from bornes.engine.state import GameSetup, GameState, SideState

ROLL = Card(CardKind.ROLL, 1)
STOP = Card(CardKind.STOP, 1)
LIMIT = Card(CardKind.SPEED_LIMIT, 1)
D100 = Card(CardKind.D100, 1)
D200 = Card(CardKind.D200, 1)
ACCIDENT = Card(CardKind.ACCIDENT, 1)


def state_with(setup: GameSetup, *sides: SideState, trip: int | None = None) -> GameState:
    """A fresh hand of ``setup`` with these piles on the table, seat A in turn."""
    state = new_game(setup)
    hand = state.hand._replace(sides=sides, turn=0)
    if trip is not None:
        hand = hand._replace(trip=trip)
    return state._replace(hand=hand)


def setup_of(**options: object) -> GameSetup:
    options_here = EDITIONS["winning-moves"].options.replace(**options)
    return GameSetup.create("winning-moves", ["Ann", "Bob"], options=options_here)


def plays(state: GameState, card: Card) -> list[Action]:
    return [a for a in legal_actions(state, 0, [card]) if isinstance(a, Play)]


def test_one_side_value_judged_by_each_tables_own_hazard_rule() -> None:
    stopped = SideState(battle=(ROLL, STOP), miles=300)  # the same object in both states
    mine = SideState(battle=(Card(CardKind.ROLL, 2),))
    strict = state_with(setup_of(hazard_on_hazard=False), mine, stopped)
    lenient = state_with(setup_of(hazard_on_hazard=True), mine, stopped)
    for _ in range(2):  # asked twice: the second answer comes from what was remembered
        assert plays(strict, ACCIDENT) == []
        refusal = validate(strict, Play(0, ACCIDENT))
        assert refusal is not None and refusal.code == "already-stopped"
        assert plays(lenient, ACCIDENT) == [Play(0, ACCIDENT, 1)]
        assert validate(lenient, Play(0, ACCIDENT)) is None


def test_one_side_value_judged_by_each_tables_exact_trip_and_trip_length() -> None:
    rolling = SideState(battle=(ROLL,), miles=950)
    other = SideState()
    exact = state_with(setup_of(exact_trip=True), rolling, other)
    loose = state_with(setup_of(exact_trip=False), rolling, other)
    longer = state_with(setup_of(exact_trip=True), rolling, other, trip=1100)
    for _ in range(2):
        assert plays(exact, D100) == []
        refusal = validate(exact, Play(0, D100))
        assert refusal is not None and refusal.code == "past-trip"
        assert plays(loose, D100) == [Play(0, D100)]
        assert plays(longer, D100) == [Play(0, D100)]
        assert validate(longer, Play(0, D100)) is None
        # Alike but for the miles already driven: on a 1000-mile trip, 950 + 100 passes it, 850 + 100 does not.
        assert plays(state_with(setup_of(exact_trip=True), rolling, other, trip=1000), D100) == []
        nearer = state_with(setup_of(exact_trip=True), rolling._replace(miles=850), other, trip=1000)
        assert plays(nearer, D100) == [Play(0, D100)]


def test_a_third_200_is_judged_on_the_side_not_on_facts_shared_with_other_sides() -> None:
    # Two sides alike in every fact the distance verdicts are settled by (rolling, no limit, 400
    # miles), but one already has two 200s (000 §6C: only two per trip).
    two = SideState(battle=(ROLL,), distance=(Card(CardKind.D200, 2), Card(CardKind.D200, 3)), miles=400)
    none = SideState(battle=(ROLL,), distance=tuple(Card(CardKind.D100, n) for n in (2, 3, 4, 5)), miles=400)
    setup = setup_of()
    for _ in range(2):
        assert plays(state_with(setup, none, SideState()), D200) == [Play(0, D200)]
        assert plays(state_with(setup, two, SideState()), D200) == []
        refusal = validate(state_with(setup, two, SideState()), Play(0, D200))
        assert refusal is not None and refusal.code == "too-many-200"


def test_a_side_moved_to_another_seat_is_named_as_that_seat() -> None:
    # The refusal of a hazard names the side it would go on; one side value at two positions.
    limited = SideState(battle=(ROLL,), speed=(LIMIT,))
    strict = EDITIONS["winning-moves"].options.replace(speed_limit_on_limit=False)
    strict_setup = GameSetup.create("winning-moves", ["Ann", "Bob", "Cy"], options=strict)
    at_b = state_with(strict_setup, SideState(battle=(ROLL,)), limited, SideState())
    at_c = state_with(strict_setup, SideState(battle=(ROLL,)), SideState(), limited)
    limit = Card(CardKind.SPEED_LIMIT, 2)
    refusal_b = validate(at_b, Play(0, limit, 1))
    refusal_c = validate(at_c, Play(0, limit, 2))
    assert refusal_b is not None and refusal_c is not None
    assert "Bob" in refusal_b.message and "Cy" in refusal_c.message


def test_settled_plays_and_discards_belong_to_their_seat_and_discard_rule() -> None:
    # Sides alike in every fact, asked for by two seats and under two discard rules (003 lets
    # safeties be discarded, other tables do not).
    ace = Card(CardKind.DRIVING_ACE, 1)
    roll = Card(CardKind.ROLL, 3)
    for _ in range(2):
        for discard_safety in (True, False):
            setup = setup_of(discard_safety=discard_safety)
            state = state_with(setup, SideState(), SideState())
            for seat in (0, 1):
                state = state._replace(hand=state.hand._replace(turn=seat))
                found = legal_actions(state, seat, [ace, roll])
                assert {a.seat for a in found if not isinstance(a, EndHand | NextHand)} == {seat}
                assert (Discard(seat, ace) in found) is discard_safety
                assert Play(seat, roll) in found and Play(seat, ace) in found


def test_hazard_verdicts_are_shared_by_sides_alike_in_hazard_facts_and_no_other() -> None:
    # Whether a hazard may go on a side is remembered per battle top, speed top and safeties: a
    # side that only drove on keeps its verdicts, and each of those facts changed alone is judged
    # afresh (000 §6B: a safety protects; 000 §12H and 001: a Speed Limit on a limit per the rules).
    setup = setup_of(speed_limit_on_limit=False)
    mine = SideState(battle=(Card(CardKind.ROLL, 2),))
    driving = SideState(battle=(ROLL,), distance=(D100,), miles=100)
    ace = Card(CardKind.DRIVING_ACE, 1)
    for _ in range(2):
        assert plays(state_with(setup, mine, driving), ACCIDENT) == [Play(0, ACCIDENT, 1)]
        further = driving._replace(distance=(D100, Card(CardKind.D100, 2)), miles=200)
        assert plays(state_with(setup, mine, further), ACCIDENT) == [Play(0, ACCIDENT, 1)]
        protected = state_with(setup, mine, driving._replace(safeties=(ace,)))
        assert plays(protected, ACCIDENT) == []
        refusal = validate(protected, Play(0, ACCIDENT, 1))
        assert refusal is not None and refusal.code == "protected"
        stopped = state_with(setup, mine, driving._replace(battle=(ROLL, STOP)))
        assert plays(stopped, ACCIDENT) == []
        refusal = validate(stopped, Play(0, ACCIDENT, 1))
        assert refusal is not None and refusal.code == "already-stopped"
        limit = Card(CardKind.SPEED_LIMIT, 2)
        assert plays(state_with(setup, mine, driving), limit) == [Play(0, limit, 1)]
        limited = state_with(setup, mine, driving._replace(speed=(LIMIT,)))
        assert plays(limited, limit) == []
        refusal = validate(limited, Play(0, limit, 1))
        assert refusal is not None and refusal.code == "already-limited"


def test_hazard_verdicts_belong_to_whether_the_attacking_side_has_started() -> None:
    # Where the edition says so, a side attacks only once it rolls, a Speed Limit excepted (001
    # "FAQ", docs/rules.md D29): the same target side is judged again for an attacker that has not.
    setup = setup_of(attack_needs_own_roll=True)
    driving = SideState(battle=(ROLL,), distance=(D100,), miles=100)
    started = SideState(battle=(Card(CardKind.ROLL, 2),))
    limit = Card(CardKind.SPEED_LIMIT, 2)
    for _ in range(2):
        assert plays(state_with(setup, started, driving), ACCIDENT) == [Play(0, ACCIDENT, 1)]
        waiting = state_with(setup, SideState(), driving)
        assert plays(waiting, ACCIDENT) == []
        refusal = validate(waiting, Play(0, ACCIDENT, 1))
        assert refusal is not None and refusal.code == "attacker-not-started"
        assert plays(waiting, limit) == [Play(0, limit, 1)]


def _fresh_turn_options(state: GameState, seat: int, cards: list[Card]) -> tuple[list[Play], list[Discard]]:
    """What turn_options says with nothing remembered (what was remembered is kept for later)."""
    with (mock.patch.object(rules, "_VERDICTS", {}), mock.patch.object(rules, "_HAZARD_VERDICTS", {}),
          mock.patch.object(rules, "_TARGETS", {})):
        return turn_options(state, seat, cards)


def bot_turns(setup: GameSetup, seed: int) -> list[tuple[GameState, int]]:
    """The states at which the simulation's bots played or discarded in two hands, and the seat,
    rebuilt from the games' logs (a replay, so it holds for the compiled engine too)."""
    turns: list[tuple[GameState, int]] = []
    for played in simulate(setup, 2, seed=seed).games_played:
        game = Game(setup)
        for action in played.log:
            if isinstance(action, Play | Discard):
                turns.append((game.state, action.seat))
            game.push(action)
    return turns


def test_remembered_turn_verdicts_equal_fresh_ones_at_every_table() -> None:
    # Every edition at every table size it allows (short decks for 2-3 players, partnerships,
    # exact trips or not, safeties discardable or not): at bot turns of a few simulated hands,
    # every card a box can hold is asked about, once with what the referee remembered from every
    # table asked before (the tables taken in turn) and once with nothing remembered. The answers
    # must be the same, the same as legal_actions' and the same as validate's on each card (for
    # a hazard, when it has one target).
    tables: list[list[tuple[GameState, int]]] = []
    for name, edition in EDITIONS.items():
        for seats in edition.seat_counts:
            setup = GameSetup.create(name, [f"P{i + 1}" for i in range(seats)])
            tables.append(bot_turns(setup, seed=seats * 31 + len(name))[::9])
    deck = list(iter_deck(CLASSIC_COUNTS))  # every copy a box can have: short-deck removals too
    checked = 0
    for turn in range(max(map(len, tables))):
        for table in tables:
            if turn >= len(table):
                continue
            state, seat = table[turn]
            remembered = turn_options(state, seat, deck)
            fresh = _fresh_turn_options(state, seat, deck)
            assert remembered == fresh, (state.setup, seat)
            listed = [a for a in legal_actions(state, seat, deck) if isinstance(a, Play | Discard)]
            both: list[Play | Discard] = [*fresh[0], *fresh[1]]
            assert listed == [a for card in deck for a in both if a.card == card]
            for action in listed:
                assert validate(state, action) is None, action
            for card in deck:
                if not card.kind.is_hazard or sum(p.card == card for p in fresh[0]) == 1:
                    judged = validate(state, Play(seat, card)) is None
                    assert judged == any(p.card == card for p in fresh[0]), (state.setup, card)
                assert (validate(state, Discard(seat, card)) is None) == (Discard(seat, card) in fresh[1])
            checked += 1
    assert checked > 100
