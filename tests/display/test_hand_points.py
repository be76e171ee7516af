"""The points of the hand so far come from the engine's scoring and move during the hand."""

from __future__ import annotations

import random

from bornes.drivers.events import ButtonPressed
from bornes.drivers.readers.resolver import CardResolver
from bornes.engine.actions import CoupFourre, Play
from bornes.engine.scoring import COUP_FOURRE_BONUS, SAFETY_POINTS, hand_points
from bornes.engine.simulate import PhysicalTable, Simulation
from bornes.engine.state import GameSetup, Phase
from bornes.firmware.table.bots import BotHands
from bornes.firmware.table.flow import TableFlow
from bornes.firmware.table.present import table_view


def test_miles_and_a_coup_fourre_move_the_hand_points() -> None:
    names = ("Ann", "Bob", "Chloé")
    resolver = CardResolver()
    for seed in range(1, 40):
        setup = GameSetup.create("winning-moves", names)
        flow = TableFlow(edition="winning-moves", players=3, names=names)
        flow.start_game(setup)
        game = flow.game
        assert game is not None
        sim = Simulation(setup, random.Random(seed))
        physical = PhysicalTable(setup, sim.rng)
        physical.new_hand(game.state.hand.dealer)
        bots = BotHands(flow, lambda payload, f=flow: f.handle(resolver.resolve(payload)),
                        lambda button, f=flow: f.handle(ButtonPressed(button, long=True)))
        miles_seen = False
        while game.state.phase is not Phase.HAND_OVER and not game.state.over:
            state = game.state
            before = table_view(state, flow)
            action = sim.next_action(state, physical)
            assert action is not None
            bots.perform(state, action)
            sim.record(state, game.state, physical, action, ())
            after = table_view(game.state, flow)
            if isinstance(action, Play) and action.card.kind.is_distance and game.state.phase is Phase.PLAY:
                side = setup.side_of(action.seat)
                assert after.sides[side].hand_points == before.sides[side].hand_points + action.card.kind.miles
                miles_seen = True
            if isinstance(action, CoupFourre) and miles_seen:
                side = setup.side_of(action.seat)
                gained = after.sides[side].hand_points - before.sides[side].hand_points
                assert gained == SAFETY_POINTS + COUP_FOURRE_BONUS
                assert hand_points(game.state)[side] == after.sides[side].hand_points
                assert after.sides[side].score == before.sides[side].score  # the game total waits for the hand's end
                return
    raise AssertionError("no coup fourré in 40 seeded hands")


def test_the_panel_and_the_phone_pages_agree_after_a_hand_ends() -> None:
    """One rule for hand points (bornes.engine.scoring.hand_points): once the hand is scored, both
    show the sheet's total for the deal, bonuses included (they used to differ by the bonuses)."""
    from pathlib import Path

    from bornes.firmware.commands.feed import feed
    from bornes.firmware.storage.live import snapshot

    flow = TableFlow()
    feed((Path(__file__).parent.parent / "flow" / "games" / "two-players-classic.feed").read_text(), flow)
    game = flow.game
    assert game is not None and game.state.phase in (Phase.HAND_OVER, Phase.GAME_OVER)
    state = game.state
    panel = [side.hand_points for side in table_view(state, flow).sides]
    page = [side["hand_points"] for side in snapshot(state, list(game.log))["sides"]]
    assert panel == page == list(state.sheets[-1].total_for_deal) == list(hand_points(state))
