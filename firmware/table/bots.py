"""Bots at a real table: the simulator's decisions turned into the taps and presses a person makes.

The demo sends these taps through a pseudo-terminal and the real reader; ``bornes screens``
and the bench send them straight into the table flow. Either way the table flow and the
engine judge every input exactly as they would a person's.
"""

from __future__ import annotations

from collections.abc import Callable

from bornes.engine import (
    Action,
    CoupFourre,
    Discard,
    EndHand,
    Extension,
    FastRemedy,
    GameState,
    NextHand,
    Phase,
    PhysicalTable,
    Play,
    Simulation,
    Swap,
    target_choices,
)
from bornes.firmware.table.flow import Mode, Outcome, TableFlow, Verdict

#: Send a card code or a control tag (``MB-CMD-OK``); the answer is the flow's outcome.
SendTap = Callable[[str], Outcome]
#: Hold a button (a long press); the answer is the flow's outcome.
SendHold = Callable[[str], Outcome]

SETUP_PRESSES = 6  # New game, edition, players, names, dealer, start: each OK on the default


class BotError(RuntimeError):
    """The table answered a bot's input in a way the bot did not expect."""


class BotHands:
    """Makes the taps for one bot decision and returns the final answer."""

    def __init__(self, flow: TableFlow, tap: SendTap, hold: SendHold) -> None:
        self.flow = flow
        self.tap = tap
        self.hold = hold

    def choose(self, index: int) -> Outcome:
        for _ in range(index):
            self.tap("MB-CMD-NEXT")
        return self.tap("MB-CMD-OK")

    def perform(self, state: GameState, action: Action) -> Outcome:
        """The taps a person would make for ``action`` in ``state``."""
        if isinstance(action, Play):
            return self._play(state, action)
        if isinstance(action, Discard):
            self.tap("MB-CMD-DISCARD")
            return self.tap(action.card.code())
        if isinstance(action, CoupFourre | FastRemedy):
            return self._answer(action)
        if isinstance(action, Swap):
            self.hold("DISCARD")
            for card in action.cards:
                self.tap(card.code())
            return self.tap("MB-CMD-OK")
        if isinstance(action, Extension):
            if not action.extend:
                self.tap("MB-CMD-NEXT")
            return self.tap("MB-CMD-OK")
        if isinstance(action, NextHand):
            return self.tap("MB-CMD-OK")
        if isinstance(action, EndHand):
            self.hold("BACK")
            return self.tap("MB-CMD-OK")
        # The rest carry one card: take the top discard, lay a starting Roll, show a card left in hand.
        return self.tap(getattr(action, "card").code())  # noqa: B009

    def _play(self, state: GameState, action: Play) -> Outcome:
        """The card, then the target when the table asks on whom."""
        ui = self.flow.ui
        targets = target_choices(state, action.seat, action.card)
        outcome = self.tap(action.card.code())
        if len(targets) > 1 and ui.mode is Mode.TARGET and ui.choice.pending is not None:
            assert action.target is not None
            return self.choose(ui.choice.pending.choices.index(state.setup.side_of(action.target)))
        return outcome

    def _answer(self, action: CoupFourre | FastRemedy) -> Outcome:
        """CF and the card, then the partner when the table asks who called it."""
        ui = self.flow.ui
        self.tap("MB-CMD-CF")
        outcome = self.tap(action.card.code())
        if ui.mode is Mode.PARTNER and ui.choice.pending is not None:
            index = ui.choice.pending.choices.index(action.seat)
            if len(ui.choice.pending.choices) == 2:  # two partners: OK names the first, NEXT the second
                return self.tap("MB-CMD-NEXT" if index else "MB-CMD-OK")
            return self.choose(index)
        return outcome


def same_play(done: Action | None, meant: Action) -> bool:
    """The table did what the bot meant (a hazard's target is implied when only one side can take it)."""
    if isinstance(done, Play) and isinstance(meant, Play):
        return (done.seat, done.card) == (meant.seat, meant.card)
    return done == meant


def play_table(
    flow: TableFlow,
    hands: BotHands,
    sim: Simulation,
    wanted: int,
    after_step: Callable[[Action, Outcome], None] | None = None,
) -> tuple[int, list[str]]:
    """Start a game through the setup menus, then play ``wanted`` hands. Returns (hands, refusals)."""
    for _ in range(SETUP_PRESSES):
        hands.tap("MB-CMD-OK")
    game = flow.game
    if game is None or game.setup != sim.setup:
        raise BotError("the setup menus did not start the expected game")
    physical = PhysicalTable(sim.setup, sim.rng)
    physical.new_hand(game.state.hand.dealer)
    played = 0
    while True:
        state = game.state
        if state.over or state.phase is Phase.HAND_OVER:
            played += 1
            if state.over or played >= wanted:
                return played, []
        action = sim.next_action(state, physical)
        if action is None:
            raise BotError("a bot found nothing to do")
        outcome = hands.perform(state, action)
        if outcome.verdict is not Verdict.ACCEPTED or not same_play(outcome.action, action):
            return played, [f"{action.notation()}: {outcome.verdict} {outcome.reason or ''} {outcome.message}"]
        sim.record(state, game.state, physical, action, ())
        if after_step is not None:
            after_step(action, outcome)
