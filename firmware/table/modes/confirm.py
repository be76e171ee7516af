"""The yes/no questions of a game: undo the last action? end this blocked hand? OK says yes."""

from __future__ import annotations

from bornes.engine import EndHand
from bornes.firmware.language.i18n import _
from bornes.firmware.language.words import undo_question, undone_words
from bornes.firmware.table.core import Mode, Outcome, Sound, TableCore, Verdict
from bornes.firmware.table.modes.choice import QuestionMode


def ask_undo(table: TableCore) -> Outcome:
    """UNDO: the last action of this hand, in words, waiting for OK (a half-made choice is dropped)."""
    game = table.game
    assert game is not None
    if not game.can_undo():
        return nothing_to_undo(table)
    table.disarm()
    table.ui.mode = Mode.UNDO_CONFIRM
    asked = undo_question(game.state.setup, game.log[-1])
    return table.prompt(asked[0], Sound.ATTENTION, short=asked[1:])


def nothing_to_undo(table: TableCore) -> Outcome:
    return table.refuse(_("Nothing to undo in this hand"), "nothing-to-undo", short=(_("Nothing to undo"),))


class UndoMode(QuestionMode):
    """OK undoes the last action (durable first, like every change); any other button keeps it."""

    def button(self, name: str, long: bool) -> Outcome:
        if name == "OK":
            return self._undo()
        self.ui.mode = Mode.PLAY
        return self.table.ignored(_("Undo cancelled"), short=(_("Kept"),))

    def _undo(self) -> Outcome:
        table, game = self.table, self.table.game
        assert game is not None
        self.ui.mode = Mode.PLAY
        if not game.can_undo():
            return nothing_to_undo(table)
        last = game.log[-1]
        setup = game.state.setup
        table.disarm()
        table.store.undo(game)  # durable first, like every change
        game.undo()
        self.ui.hand_end.extension_yes = True  # a reopened extension question starts on "yes", as it first did
        said = undone_words(setup, last)
        return table.say(Verdict.ACCEPTED, said[0], Sound.ACCEPT, short=said[1:])


class EndHandMode(QuestionMode):
    """OK ends a blocked hand (the engine judges whether it may end); any other button plays on."""

    def button(self, name: str, long: bool) -> Outcome:
        self.ui.mode = Mode.PLAY
        if name == "OK":
            return self.table.commit(EndHand())
        return self.table.ignored(_("The hand goes on"))
