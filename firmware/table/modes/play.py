"""A card scanned during a game: which action it is, asked of the engine, and the questions it may open.

The table never judges the card: ``play_action``, ``laid_action``, ``answer_action`` and
``target_choices`` are the engine's, and every action goes through ``TableCore.commit``.
"""

from __future__ import annotations

from bornes.drivers.events import PAD_SEATS
from bornes.engine import (
    Accepted,
    Card,
    CoupFourre,
    Discard,
    FastRemedy,
    GameState,
    Leftover,
    Phase,
    Play,
    StartRoll,
    TakeDiscard,
    answer_action,
    laid_action,
    play_action,
    target_choices,
    validate,
)
from bornes.firmware.language.i18n import _
from bornes.firmware.language.words import card_name
from bornes.firmware.table.core import Mode, Outcome, Pending, Sound, TableCore, Verdict


def play_card(table: TableCore, card: Card, pad: str | None) -> Outcome:
    """A card in the game's phase: a start roll, a hand's leftover, or (in play) the turn's card."""
    state = table.state
    assert state is not None
    if pad is not None and pad != "table":
        laid = _laid_on_pad(table, state, card, pad)
        if laid is not None:
            return laid
    chosen = table.ui.choice.seat
    if state.phase is Phase.START_ROLLS:
        return table.commit(StartRoll(chosen if chosen is not None else state.to_act()[0], card))
    if state.phase is Phase.LEFTOVERS:
        return _leftover(table, state, card)
    if state.phase is not Phase.PLAY:
        return table.commit(Play(state.hand.turn, card))  # the engine says why not now
    return _in_turn(table, state, card)


def _leftover(table: TableCore, state: GameState, card: Card) -> Outcome:
    """A seat button says whose cards these are, and stays chosen while that seat shows them."""
    chosen = table.ui.choice.seat
    seat = chosen if chosen is not None else state.to_act()[0]
    outcome = table.commit(Leftover(seat, card))
    assert table.game is not None
    if outcome.verdict is Verdict.ACCEPTED and table.game.state.hand.hands[seat]:
        table.ui.choice.seat = seat
    return outcome


def _in_turn(table: TableCore, state: GameState, card: Card) -> Outcome:
    """The turn's card: after CF the answer to a hazard, after DISCARD a discard, the top discard taken
    (001), or a play, with the target asked when the engine allows several."""
    hand, ui = state.hand, table.ui
    if ui.armed.cf:
        return _answer_hazard(table, state, card)
    if ui.armed.discard:
        return table.commit(Discard(hand.turn, card))
    if hand.discard and card == hand.discard[-1]:
        take = TakeDiscard(hand.turn, card)
        assert table.game is not None
        verdict = table.game.check(take)
        if isinstance(verdict, Accepted):
            return table.commit(take, verdict)  # 001: the top discard, taken instead of a draw
    if ui.choice.seat is None:
        asked = _ask_target(table, state, card)
        if asked is not None:
            return asked
    return table.commit(play_action(state, hand.turn, card, ui.choice.seat))


def _ask_target(table: TableCore, state: GameState, card: Card) -> Outcome | None:
    """On whom, when the engine offers several sides; None when there is nothing to ask."""
    turn = state.hand.turn
    targets = target_choices(state, turn, card)
    if len(targets) <= 1:
        return None
    probe = validate(state, Play(turn, card, state.setup.side_seats(targets[0])[0]))
    if probe is not None:  # refused whatever the target (the card, the attacker): say why now
        return table.commit(Play(turn, card), probe)
    table.ui.choice.pending = Pending(card, targets)
    table.ui.mode = Mode.TARGET
    printed, usual = card_name(card, state.setup.edition), card_name(card)
    return table.prompt(_("{card} on whom? NEXT, then OK").format(card=printed), Sound.ATTENTION,
                        short=tuple(dict.fromkeys((_("{card} on whom? NEXT, then OK").format(card=usual),
                                                   _("{card} on whom?").format(card=printed),
                                                   _("{card} on whom?").format(card=usual)))))


def _laid_on_pad(table: TableCore, state: GameState, card: Card, pad: str) -> Outcome | None:
    """A card laid on a pile pad: the pad names the pile, so no target, partner or CF question.

    The discard pad discards; on a seat's pad the engine says what the card means there
    (``laid_action``: a hazard on that side, the coup fourré, that seat's play) and judges it.
    None: the pad adds nothing, and the table's own rules go on (docs/readers.md, Pads).
    """
    if pad == "discard":
        return table.commit(Discard(state.hand.turn, card))
    seat = PAD_SEATS.index(pad)
    if seat >= state.setup.seats:
        return table.refuse(_("No seat {letter} at this table").format(letter=pad), "no-such-seat",
                            short=(_("No such seat"),))
    if table.ui.armed.cf and state.phase is Phase.PLAY:
        return table.commit(answer_action(state, seat, card))  # CF, then the card on the caller's pad
    if table.ui.armed.discard:
        return None  # DISCARD pressed: the player in turn discards it, wherever it lies
    action = laid_action(state, seat, card)
    return None if action is None else table.commit(action)


def _answer_hazard(table: TableCore, state: GameState, card: Card) -> Outcome:
    """After CF: the safety for a coup fourré, or (Fast Play) the remedy."""
    hand = state.hand
    if hand.window is None:
        table.ui.armed.cf = False
        return table.commit(CoupFourre(hand.turn, card))  # the engine explains there is no window
    callers = state.window_callers()
    if table.ui.choice.seat is not None and table.ui.choice.seat in callers:
        callers = (table.ui.choice.seat,)
    if len(callers) > 1:
        return _ask_partner(table, state, card, callers)
    seat = callers[0] if callers else hand.turn
    return table.commit(answer_action(state, seat, card))


def _ask_partner(table: TableCore, state: GameState, card: Card, callers: tuple[int, ...]) -> Outcome:
    """Which partner called it: asked only when the referee cannot know (docs/rules.md, Decisions)."""
    probe = answer_action(state, callers[0], card)
    refusal = validate(state, probe)
    if refusal is not None:
        table.disarm()
        return table.refusal(refusal)
    table.ui.choice.pending = Pending(card, callers, fast=isinstance(probe, FastRemedy))
    table.ui.mode = Mode.PARTNER
    first, second = (state.setup.names[s] for s in callers[:2])
    asked = _("Who called it? OK: {first}, NEXT: {second}").format(first=first, second=second)
    return table.prompt(asked, Sound.ATTENTION, short=(_("OK: {first}, NEXT: {second}").format(
        first=first, second=second), _("Who called it?")))
