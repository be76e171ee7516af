"""A game under way: what a button means in the engine's phase of the moment; a card goes to ``play``."""

from __future__ import annotations

from bornes.engine import Card, EndHand, Extension, GameState, NextHand, Phase, Refusal
from bornes.firmware.language.i18n import _
from bornes.firmware.table.core import (
    ArmedState,
    FlowState,
    MenuState,
    Mode,
    Outcome,
    SetupStep,
    Sound,
    SwapState,
)
from bornes.firmware.table.modes.choice import InGameMode
from bornes.firmware.table.modes.confirm import ask_undo
from bornes.firmware.table.modes.play import play_card


class GameMode(InGameMode):
    """Held OK opens the legend and UNDO asks, in any phase; then the phase says what a button means:
    the score sheet pages, the extension question, a game over's new game, or arming CF and DISCARD."""

    def card(self, card: Card, pad: str | None) -> Outcome:
        return play_card(self.table, card, pad)

    def button(self, name: str, long: bool) -> Outcome:
        state = self.table.state
        assert state is not None
        if name == "OK" and long:  # held OK: what the icons mean; any button comes back
            return self.table.open_legend()
        if name == "UNDO":
            return ask_undo(self.table)
        if state.phase is Phase.GAME_OVER:
            return self._game_over(name, state)
        if state.phase is Phase.HAND_OVER:
            return self._score_sheet(name)
        if state.phase is Phase.EXTENSION:
            return self._extension(name, state)
        return self._hand(name, long, state)

    def _game_over(self, name: str, state: GameState) -> Outcome:
        """OK: the same table again (or the game sent while this one went on), one more OK away."""
        table = self.table
        if name != "OK":
            return table.ignored()
        waiting, table.waiting = table.waiting, None
        table.draft = waiting or table.draft_of(state)
        table.game = None
        table.ui = FlowState(status=table.ui.status, menu=MenuState(SetupStep.SUMMARY))
        return table.prompt(_("Setup from a phone: OK starts") if waiting else _("New game"))

    def _score_sheet(self, name: str) -> Outcome:
        """The hand's score sheet: NEXT and BACK page (the renderer wraps), OK deals the next hand."""
        if name in ("NEXT", "BACK"):
            self.ui.hand_end.sheet_page += 1 if name == "NEXT" else -1
            return self.table.prompt()
        if name == "OK":
            return self.table.commit(NextHand())
        return self.table.ignored()

    def _extension(self, name: str, state: GameState) -> Outcome:
        """Go on to the extension? NEXT and BACK switch yes/no, OK answers for the side that decides."""
        if name in ("NEXT", "BACK"):
            self.ui.hand_end.extension_yes = not self.ui.hand_end.extension_yes
            return self.table.prompt()
        if name == "OK":
            assert state.hand.decider is not None
            return self.table.commit(Extension(state.hand.decider, self.ui.hand_end.extension_yes))
        return self.table.ignored()

    def _hand(self, name: str, long: bool, state: GameState) -> Outcome:
        """During a hand: CF and DISCARD arm (or disarm) the next card, BACK drops what is armed."""
        if name == "CF":
            return self._coup_fourre()
        if name == "DISCARD":
            return self._discard(long, state)
        if name == "BACK":
            return self._back(long, state)
        return self.table.ignored()

    def _coup_fourre(self) -> Outcome:
        ui = self.ui
        ui.armed.cf = not ui.armed.cf
        ui.armed.discard = False
        if ui.armed.cf:
            return self.table.prompt(_("Coup fourré! Scan your safety"), Sound.ATTENTION,
                                     short=(_("Coup fourré! Scan it"), _("Scan the safety")))
        return self.table.prompt(_("Coup fourré cancelled"), short=(_("Cancelled"),))

    def _discard(self, long: bool, state: GameState) -> Outcome:
        """DISCARD arms a discard; held, with Fast Play, it opens the swap."""
        ui = self.ui
        if long and state.options.fast_play:
            ui.mode = Mode.SWAP
            ui.swap = SwapState()
            return self.table.prompt(_("Swap: scan the cards, then OK"), Sound.ATTENTION,
                                     short=(_("Swap: scan, then OK"), _("Swap: scan cards")))
        ui.armed.discard = not ui.armed.discard
        ui.armed.cf = False
        if ui.armed.discard:
            return self.table.prompt(_("Scan the card to discard"), short=(_("Discard: scan it"), _("Discard")))
        return self.table.prompt(_("Discard cancelled"), short=(_("Cancelled"),))

    def _back(self, long: bool, state: GameState) -> Outcome:
        """BACK drops CF, DISCARD and a chosen seat; held during play, it asks to end a blocked hand,
        once the engine says it would end it (while cards are left to draw it says why not, and nothing
        is asked: no question is offered that OK could not answer)."""
        ui = self.ui
        if long and state.phase is Phase.PLAY:
            game = self.table.game
            assert game is not None
            refused = game.check(EndHand())
            if isinstance(refused, Refusal):
                return self.table.refusal(refused)
            ui.mode = Mode.END_CONFIRM
            return self.table.prompt(_("End this blocked hand? OK / BACK"), Sound.ATTENTION,
                                     short=(_("End the hand?"),))
        ui.armed = ArmedState()
        ui.choice.seat = None
        return self.table.prompt(_("Cancelled"))
