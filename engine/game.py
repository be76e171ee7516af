"""A game is its action log: the state is always the fold of ``apply`` over the log.

``Game`` keeps a snapshot of the state at the start of each hand, so undo replays only the
current hand's actions instead of the whole game.
"""

from __future__ import annotations

from bornes.engine.actions import Action
from bornes.engine.reasons import Refusal
from bornes.engine.rules import Accepted, Verdict, apply, new_game
from bornes.engine.state import GameSetup, GameState, Phase

# Enum members read on every action, bound once as module globals: on Python 3.11 (Raspberry Pi
# OS bookworm) ``Phase.PLAY`` goes through the slot hook of EnumType.__getattr__, ~870 instructions a
# read, where a global is one specialised LOAD_GLOBAL (3.12 dropped the hook).
_PHASE_GAME_OVER = Phase.GAME_OVER


class ReplayError(ValueError):
    """A log that does not replay: an action in it is refused."""


class Game:
    """The action log of one game and the state it folds to."""

    def __init__(self, setup: GameSetup, actions: list[Action] | None = None) -> None:
        self.setup = setup
        self.log: list[Action] = []
        self._state = new_game(setup)
        self._snapshots: list[tuple[int, GameState]] = [(0, self._state)]
        for action in actions or ():
            verdict = self.push(action)
            if isinstance(verdict, Refusal):
                raise ReplayError(f"action {len(self.log) + 1} ({action.notation()}) refused: {verdict}")

    @property
    def state(self) -> GameState:
        return self._state

    def check(self, action: Action) -> Verdict:
        """What the referee would say, without recording anything."""
        return apply(self._state, action)

    def push(self, action: Action) -> Verdict:
        """Referee an action; an accepted one joins the log."""
        verdict = apply(self._state, action)
        if type(verdict) is Accepted:
            # commit(), without the call and without asking whose verdict it is: apply just made it.
            state = verdict.state
            self.log.append(action)
            self._state = state
            if state.hand.number != self._snapshots[-1][1].hand.number:
                self._snapshots.append((len(self.log), state))
        return verdict

    def commit(self, action: Action, verdict: Accepted) -> None:
        """Record an action that :meth:`check` accepted on the current state, without judging it twice.

        The table flow checks, makes the action durable, then commits: the engine runs once a tap.
        """
        state = verdict.state
        if state.setup is not self.setup:
            raise ValueError("that verdict belongs to another game")
        self.log.append(action)
        self._state = state
        if state.hand.number != self._snapshots[-1][1].hand.number:
            self._snapshots.append((len(self.log), state))

    def can_undo(self) -> bool:
        """Undo goes back one action at a time, to the start of the current hand."""
        return len(self.log) > self._snapshots[-1][0] and self._state.phase is not _PHASE_GAME_OVER

    def undo(self) -> Action | None:
        """Drop the last action and rebuild the state by replaying the hand without it."""
        if not self.log:
            return None
        undone = self.log.pop()
        while self._snapshots[-1][0] > len(self.log):
            self._snapshots.pop()
        start, state = self._snapshots[-1]
        for action in self.log[start:]:
            verdict = apply(state, action)
            assert isinstance(verdict, Accepted), "a logged action was refused on replay"
            state = verdict.state
        self._state = state
        return undone
