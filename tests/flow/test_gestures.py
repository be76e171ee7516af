"""The gestures table of ``python -m bench``: what it counts, and that the feed games keep the budgets."""

from __future__ import annotations

from bench.gestures import BUDGETS, COUP, DISCARD, HAZARD_3, NEW_GAME, PLAIN, UNDO, Tally, count_script, rows


def counted(script: str) -> dict[str, list[int]]:
    tally = Tally()
    count_script(script, "test", tally)
    return dict(tally.counts)


def test_each_gesture_is_cut_where_the_referee_accepts() -> None:
    script = """
    setup edition=winning-moves names=Ann,Bob,Cid dealer=C
    scan MB-ROLL-01
    scan MB-ROLL-02
    scan MB-ROLL-03
    scan MB-STOP-01
    press NEXT
    press OK
    press DISCARD
    scan MB-D25-01
    press UNDO
    press OK
    """
    found = counted(script)
    assert found[PLAIN] == [1, 1, 1]
    assert found[HAZARD_3] == [3]  # Ann's Stop: two sides can take it, the second one chosen
    assert found[UNDO] == [2]
    assert found[DISCARD] == [2]  # accepted before it was taken back: an undone gesture was still made


def test_a_discard_counts_two_and_a_refused_card_starts_again() -> None:
    script = """
    setup edition=winning-moves names=Ann,Bob dealer=B
    scan MB-ROLL-01
    scan MB-D25-01
    press DISCARD
    scan MB-D25-01
    press CF
    scan MB-DRIVINGACE-01
    """
    found = counted(script)
    assert found[DISCARD] == [2]  # Bob's 25 is refused (not rolling), then DISCARD + the card
    assert COUP not in found  # no hazard was played: the CF gesture is refused, nothing accepted


def test_the_feed_games_keep_every_budget() -> None:
    table = rows()
    assert [r.kind for r in table] == list(BUDGETS)
    for row in table:
        assert row.seen > 0, f"no feed game shows a {row.kind}"
        assert row.most <= row.budget, row
    assert next(r for r in table if r.kind == NEW_GAME).most == 1


def test_pads_make_each_gesture_one_tap() -> None:
    from bench.gestures import PAD_COUP, PAD_DISCARD, PAD_HAZARD_3, PAD_PLAIN

    script = """
    setup edition=winning-moves names=Ann,Bob,Cid dealer=C
    scan@A MB-ROLL-01
    scan@B MB-ROLL-02
    scan@C MB-ROLL-03
    scan@C MB-STOP-01
    scan@C MB-RIGHTOFWAY-01
    scan@discard MB-D25-02
    scan@A MB-D25-01
    scan@table MB-ACCIDENT-01
    press OK
    """
    found = counted(script)
    assert found[PAD_PLAIN] == [1, 1, 1, 1]  # three rolls and Ann's 25
    assert found[PAD_HAZARD_3] == [1]  # Ann's Stop on Cid's pad: no question
    assert found[PAD_COUP] == [1]  # Cid's Right of Way on his own pad, before Bob plays
    assert found[PAD_DISCARD] == [1]
    assert found[HAZARD_3] == [2]  # Bob's Accident on the table's own pad asks, as a one-reader table does
