"""Fast Play's swap: the player in turn scans the cards to swap, then OK (a long DISCARD opens it)."""

from __future__ import annotations

from bornes.engine import Card, Swap, validate
from bornes.firmware.language.i18n import _
from bornes.firmware.table.core import Mode, Outcome, SwapState
from bornes.firmware.table.modes.choice import InGameMode


class SwapMode(InGameMode):
    """Each card joins the swap if the engine accepts the swap with it; OK swaps, BACK (or OK on none) cancels."""

    def card(self, card: Card, pad: str | None) -> Outcome:
        state = self.table.state
        assert state is not None
        refusal = validate(state, Swap(state.hand.turn, (*self.ui.swap.cards, card)))
        if refusal is not None:  # only this card is refused; the swap goes on
            return self.table.refusal(refusal)
        self.ui.swap.cards.append(card)
        count = len(self.ui.swap.cards)
        return self.table.prompt(_("Swap {count} cards: OK when done").format(count=count),
                                 short=(_("Swap {count}: OK").format(count=count),))

    def button(self, name: str, long: bool) -> Outcome:
        state = self.table.state
        assert state is not None
        if name == "OK" and self.ui.swap.cards:
            return self.table.commit(Swap(state.hand.turn, tuple(self.ui.swap.cards)))
        if name in ("BACK", "OK"):
            self.ui.mode = Mode.PLAY
            self.ui.swap = SwapState()
            return self.table.prompt(_("Swap cancelled"), short=(_("Cancelled"),))
        return self.table.ignored()
