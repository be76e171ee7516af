"""Properties over random simulated games (hypothesis draws the seeds and the table).

The simulator deals real hidden hands and checks the referee's public counts against the physical
cards after every action; these tests add checks of their own at the end of each game.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bornes.engine.actions import (
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
    parse_action,
)
from bornes.engine.cards import Card, CardKind, full_deck
from bornes.engine.game import Game
from bornes.engine.options import EDITIONS
from bornes.engine.record import read_record, write_record
from bornes.engine.rules import Accepted, legal_actions, validate
from bornes.engine.simulate import PhysicalTable, Simulation
from bornes.engine.state import GameSetup, Phase

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])

TABLES = [
    ("winning-moves", 2, None),
    ("winning-moves", 4, None),
    ("winning-moves", 6, None),
    ("parker-1988", 3, None),
    ("hasbro-2016", 3, None),
    ("hasbro-2016", 4, True),
    ("dujardin", 4, None),
    ("dujardin", 6, None),
    ("1000-bornes", 5, None),
]

tables = st.sampled_from(TABLES)
seeds = st.integers(min_value=0, max_value=2**32 - 1)


def make_setup(table: tuple[str, int, bool | None], **options: object) -> GameSetup:
    edition, players, teams = table
    opts = EDITIONS[edition].options.replace(**options) if options else EDITIONS[edition].options
    return GameSetup.create(edition, [f"P{i}" for i in range(players)], teams=teams, options=opts)


def assert_table_matches(game: Game, table: PhysicalTable) -> None:
    """Every physical card is in exactly one place, and the referee's counts are the real piles."""
    hand = game.state.hand
    places = [list(table.pile), *[list(h) for h in table.hands], list(table.table), list(table.discard),
              list(table.shown)]
    every = [card for place in places for card in place]
    assert len(every) == len(set(every)) == game.setup.deck_size
    assert set(every) == set(table.deck)
    assert hand.draw_pile == len(table.pile)
    assert list(hand.hands) == [len(h) for h in table.hands]
    assert list(hand.discard) == table.discard
    on_table = {card for side in hand.sides for card in side.table_cards()}
    assert on_table == table.table


@SETTINGS
@given(table=tables, seed=seeds)
def test_cards_are_conserved_and_counts_match_the_real_piles(table: tuple[str, int, bool | None], seed: int) -> None:
    setup = make_setup(table)
    sim = Simulation(setup, random.Random(seed))
    report = sim.run(2)
    assert report.failures == []
    assert sim.last_table is not None
    assert_table_matches(report.games_played[-1], sim.last_table)


@SETTINGS
@given(table=tables, seed=seeds, fast=st.booleans())
def test_every_card_a_bot_holds_can_be_played_or_discarded(
    table: tuple[str, int, bool | None], seed: int, fast: bool
) -> None:
    """The bots report any card with neither a legal play nor a legal discard (and any refused bot action)."""
    setup = make_setup(table, fast_play=fast and table[0] == "hasbro-2016")
    report = Simulation(setup, random.Random(seed)).run(2)
    assert report.failures == []
    assert report.actions > 0


@SETTINGS
@given(table=tables, seed=seeds)
def test_sheets_and_state_recompute_from_the_record(table: tuple[str, int, bool | None], seed: int) -> None:
    """write_record → read_record → replay in a fresh Game gives identical sheets and an identical state."""
    setup = make_setup(table)
    report = Simulation(setup, random.Random(seed)).run(2)
    for game in report.games_played:
        text = write_record(setup, game.log)
        read_setup, lines = read_record(text)
        assert read_setup == setup
        assert all(line.error is None for line in lines)
        actions = [line.action for line in lines if line.action is not None]
        assert actions == game.log
        replayed = Game(read_setup, actions)
        assert replayed.state.sheets == game.state.sheets
        assert replayed.state == game.state
        assert write_record(read_setup, actions) == text


@SETTINGS
@given(table=tables, seed=seeds, data=st.data())
def test_undo_equals_replaying_without_the_last_action(
    table: tuple[str, int, bool | None], seed: int, data: st.DataObject
) -> None:
    setup = make_setup(table)
    game = Simulation(setup, random.Random(seed)).run(1).games_played[0]
    log = list(game.log)
    cut = data.draw(st.integers(min_value=1, max_value=len(log)), label="actions kept before the undo")
    live = Game(setup, log[:cut])
    undone = live.undo()
    assert undone == log[cut - 1]
    assert live.state == Game(setup, log[: cut - 1]).state
    assert live.log == log[: cut - 1]
    # and the undone action can be pushed again
    assert isinstance(live.push(undone), Accepted)
    assert live.state == Game(setup, log[:cut]).state


cards = st.sampled_from(full_deck())
seat_numbers = st.integers(min_value=0, max_value=7)
actions = st.one_of(
    st.builds(Play, seat_numbers, cards, st.none() | seat_numbers),
    st.builds(Discard, seat_numbers, cards),
    st.builds(CoupFourre, seat_numbers, cards),
    st.builds(TakeDiscard, seat_numbers, cards),
    st.builds(FastRemedy, seat_numbers, cards),
    st.builds(Swap, seat_numbers, st.lists(cards, min_size=1, max_size=6).map(tuple)),
    st.builds(StartRoll, seat_numbers, cards),
    st.builds(Extension, seat_numbers, st.booleans()),
    st.builds(Leftover, seat_numbers, cards),
    st.just(EndHand()),
    st.just(NextHand()),
)


@settings(max_examples=300, deadline=None)
@given(action=actions)
def test_notation_round_trip(action: object) -> None:
    assert parse_action(action.notation()) == action  # type: ignore[attr-defined]


def test_card_code_round_trip_for_every_card() -> None:
    deck = full_deck()
    assert len(deck) == 106
    assert len({card.code() for card in deck}) == 106
    for card in deck:
        assert Card.from_code(card.code()) == card
    for kind in CardKind:
        assert Card.from_code(Card(kind, 99).code()) == Card(kind, 99)


@SETTINGS
@given(table=tables, seed=seeds, data=st.data())
def test_legal_actions_agree_with_validate(table: tuple[str, int, bool | None], seed: int, data: st.DataObject) -> None:
    """rules.legal_actions is validate's list: every action it gives is accepted, every other play or
    discard of the same cards (any target) is refused."""
    setup = make_setup(table)
    game = Simulation(setup, random.Random(seed)).run(1).games_played[0]
    cut = data.draw(st.integers(min_value=0, max_value=len(game.log) - 1), label="position")
    state = Game(setup, game.log[:cut]).state
    if state.phase is not Phase.PLAY:
        return
    seat = state.hand.turn
    unseen = [card for card in full_deck() if setup.in_deck(card) and card not in state.hand.seen]
    sample = data.draw(st.lists(st.sampled_from(unseen), min_size=1, max_size=8, unique=True), label="cards")
    legal = set(legal_actions(state, seat, sample))
    for card in sample:
        candidates: list[Play | Discard] = [Discard(seat, card)]
        if card.kind.is_hazard:
            candidates += [Play(seat, card, other) for other in range(setup.seats)
                           if setup.side_of(other) != setup.side_of(seat)]
        else:
            candidates.append(Play(seat, card))
        for action in candidates:
            accepted = validate(state, action) is None
            if isinstance(action, Play) and action.target is not None:
                # legal_actions names each target side by its first seat; other seats of that side
                # are the same move.
                first = setup.side_seats(setup.side_of(action.target))[0]
                assert accepted == (Play(seat, card, first) in legal), action.notation()
            else:
                assert accepted == (action in legal), action.notation()
