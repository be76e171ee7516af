"""Plain-data views of the state, for JSON output and for screens."""

from __future__ import annotations

from bornes.engine.actions import seat_letter
from bornes.engine.reasons import Refusal
from bornes.engine.rules import Accepted, Verdict
from bornes.engine.state import Event, GameState, battle_status


def event_dict(event: Event) -> dict[str, object]:
    data: dict[str, object] = {"code": event.code.value, "message": event.message}
    if event.seat is not None:
        data["seat"] = seat_letter(event.seat)
    if event.card is not None:
        data["card"] = event.card.code()
    if event.seats:
        data["seats"] = [seat_letter(s) for s in event.seats]
    return data


def verdict_dict(verdict: Verdict) -> dict[str, object]:
    if isinstance(verdict, Refusal):
        return {"verdict": "refused", "reason": verdict.code, "message": verdict.message}
    assert isinstance(verdict, Accepted)
    return {"verdict": "accepted", "events": [event_dict(e) for e in verdict.events]}


def table_dict(state: GameState) -> dict[str, object]:
    """The whole public table: sides, piles, counts, whose move it is and the score."""
    setup = state.setup
    hand = state.hand
    sides = []
    for index, side in enumerate(hand.sides):
        sides.append(
            {
                "name": setup.side_name(index),
                "seats": setup.side_letters(index),
                "miles": side.miles,
                "battle": battle_status(side, setup.options),
                "limited": side.limited,
                "safeties": [card.code() for card in side.safeties],
                "coups_fourres": [kind.value for kind in side.coups],
                "two_hundreds": side.two_hundreds,
                "score": state.totals[index],
            }
        )
    return {
        "edition": setup.edition,
        "hand": hand.number,
        "dealer": seat_letter(hand.dealer),
        "phase": state.phase.value,
        "to_act": [seat_letter(s) for s in state.to_act()],
        "turn": seat_letter(hand.turn),
        "trip": hand.trip,
        "draw_pile": hand.draw_pile,
        "hand_sizes": {seat_letter(s): n for s, n in enumerate(hand.hands)},
        "discard_top": hand.discard[-1].code() if hand.discard else None,
        "coup_fourre_window": None
        if hand.window is None
        else {"hazard": hand.window.hazard.code(), "side": setup.side_name(hand.window.side)},
        "sides": sides,
        "winner": None if state.winner is None else setup.side_name(state.winner),
        "tie": state.tie,
        "over": state.over,
    }


def sheets_list(state: GameState) -> list[dict[str, object]]:
    names = tuple(state.setup.side_name(i) for i in range(state.setup.side_count))
    return [sheet.as_dict(names) for sheet in state.sheets]
