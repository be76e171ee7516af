"""A card's open question: on whom (a hazard with several targets), or which partner called coup fourré.

And the seat buttons, which answer these questions in one press, or say whose card comes next.
"""

from __future__ import annotations

from bornes.drivers.events import seat_of_button
from bornes.engine import Action, Card, CoupFourre, FastRemedy, Play
from bornes.firmware.language.i18n import _
from bornes.firmware.table.core import Mode, ModeHandler, Outcome, TableCore


class InGameMode(ModeHandler):
    """A mode of a game under way: a card outside a question is the game's, a seat button names a seat."""

    def seat(self, name: str, long: bool) -> Outcome:
        return pick_seat(self.table, name)


class QuestionMode(InGameMode):
    """A question waits for OK or BACK: a card now is refused, nothing changes."""

    def card(self, card: Card, pad: str | None) -> Outcome:
        return self.table.refuse(_("Answer the question first (OK or BACK)"), "prompt-open")


class ChoiceMode(QuestionMode):
    """NEXT moves through the choices, OK plays the card with the one shown, BACK cancels it."""

    def button(self, name: str, long: bool) -> Outcome:
        pending = self.ui.choice.pending
        assert pending is not None
        if name == "NEXT" and self.ui.mode is Mode.PARTNER and len(pending.choices) == 2:
            pending.selected = 1  # two partners: OK names the first, NEXT the second, in one press
            return self.answer()
        if name == "NEXT":
            pending.selected = (pending.selected + 1) % len(pending.choices)
            return self.table.prompt()
        if name == "BACK":
            self.ui.choice.pending = None
            self.ui.armed.cf = False
            self.ui.mode = Mode.PLAY
            return self.table.prompt(_("Cancelled: take the card back"), short=(_("Cancelled"),))
        if name != "OK":
            return self.table.ignored()
        return self.answer()

    def answer(self) -> Outcome:
        """The card waiting, played with the choice shown: the engine judges it."""
        pending, state = self.ui.choice.pending, self.table.state
        assert pending is not None and state is not None
        choice = pending.choices[pending.selected]
        if self.ui.mode is Mode.TARGET:
            target_seat = state.setup.side_seats(choice)[0]
            return self.table.commit(Play(state.hand.turn, pending.card, target_seat))
        action: Action = FastRemedy(choice, pending.card) if pending.fast else CoupFourre(choice, pending.card)
        return self.table.commit(action)


def pick_seat(table: TableCore, name: str) -> Outcome:
    """A seat button: the answer to an open question if it is one, else the seat whose card comes next."""
    state = table.state
    assert state is not None
    seat = seat_of_button(name)
    if seat is None or not 0 <= seat < state.setup.seats:
        return table.refuse(_("No {button} at this table").format(button=name), "no-such-seat",
                            short=(_("No such seat"),))
    mode, pending = table.ui.mode, table.ui.choice.pending
    choice = state.setup.side_of(seat) if mode is Mode.TARGET else seat  # a target is a side, a partner a seat
    if mode in (Mode.TARGET, Mode.PARTNER) and pending is not None and choice in pending.choices:
        pending.selected = pending.choices.index(choice)
        return ChoiceMode(table).answer()
    table.ui.choice.seat = seat
    return table.prompt(_("{name} chosen").format(name=state.setup.names[seat]))
