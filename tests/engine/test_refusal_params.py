"""A refusal carries what it is about as data, so the table can say it in any language.

The phrasing layer (``bornes.firmware.language.words.refusal_words``) writes a player's line from the
reason and these parameters; the engine's own line stays English, for logs and records.
"""

from __future__ import annotations

from bornes.engine.cards import Card, CardKind
from bornes.engine.reasons import Refusal
from bornes.engine.state import check_names
from tests.engine.helpers import new_game, play, refused, seat


def test_parameters_name_the_cards_seats_and_sides_of_a_refusal() -> None:
    game = new_game("winning-moves", 3)
    assert refused(game, "B play MB-ROLL-01", "not-your-turn").params == {"seat": seat("A")}
    assert refused(game, "A play MB-D100-01", "not-rolling").params == {}
    assert refused(game, "A play MB-SPEEDLIMIT-01", "target-needed").params == {
        "hazard": CardKind.SPEED_LIMIT, "sides": (1, 2)}
    play(game, "A play MB-ROLL-01", "B play MB-STOP-01 > A")
    assert refused(game, "C play MB-ACCIDENT-01 > A", "already-stopped").params == {
        "side": 0, "hazard": CardKind.STOP}
    assert refused(game, "C play MB-ROLL-01", "on-table").params == {"card": Card(CardKind.ROLL, 1)}
    assert refused(game, "C play MB-ROLL-99", "not-in-deck").params == {"card": Card(CardKind.ROLL, 99),
                                                                        "in_a_box": 14}
    play(game, "C discard MB-D25-10")
    assert refused(game, "A play MB-D100-01", "stopped").params == {"hazard": CardKind.STOP, "remedy": CardKind.ROLL}
    assert refused(game, "A play MB-GASOLINE-01", "nothing-to-remedy").params == {"hazard": CardKind.OUT_OF_GAS}


def test_variants_of_one_reason_are_told_apart_by_their_parameters() -> None:
    game = new_game("winning-moves", 2)
    play(game, "A play MB-ROLL-01", "B play MB-STOP-01 > A", "A play MB-ROLL-02", "B discard MB-D25-10")
    first = refused(game, "B play MB-D25-09", "not-your-turn")
    assert first.params == {"seat": 0}
    assert refused(game, "A play MB-ROLL-03", "already-rolling").params == {}


def test_names_refusals_carry_the_name() -> None:
    refusal = check_names(["Ann", "ann"])
    assert isinstance(refusal, Refusal) and refusal.params == {"name": "ann"}
    refusal = check_names(["A;n"])
    assert isinstance(refusal, Refusal) and refusal.params == {"name": "A;n", "longest": 12}


def test_parameters_are_worked_out_only_when_read() -> None:
    calls: list[str] = []
    from bornes.engine.reasons import Reason

    refusal = Refusal(Reason.HAND_EMPTY, "empty", lambda: calls.append("params") or {"seat": 1})  # type: ignore[func-returns-value]
    assert calls == []
    assert refusal.params == {"seat": 1} and refusal.params == {"seat": 1}
    assert calls == ["params"]
