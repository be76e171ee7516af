"""A camera read is a kind: the table gives it the first copy of that kind not yet seen this hand."""

from __future__ import annotations

from bornes.drivers.events import KindShown, ReaderProblem
from bornes.engine import CardKind
from bornes.firmware.table.flow import Verdict
from tests.flow.helpers import drive, table


def test_two_reads_of_one_kind_are_its_first_two_copies_and_the_journal_sees_plain_plays() -> None:
    flow = table()
    first = flow.handle(KindShown(CardKind.ROLL, "000012.jpg"))
    second = flow.handle(KindShown(CardKind.ROLL, "000040.jpg"))
    assert first.verdict is Verdict.ACCEPTED and second.verdict is Verdict.ACCEPTED
    assert first.action is not None and second.action is not None
    assert first.action.notation() == "A play MB-ROLL-01"
    assert second.action.notation() == "B play MB-ROLL-02"


def test_an_undone_play_gives_its_copy_back() -> None:
    flow = table()
    flow.handle(KindShown(CardKind.ROLL, "1"))
    drive(flow, "press UNDO", "press OK")
    again = flow.handle(KindShown(CardKind.ROLL, "2"))
    assert again.action is not None and again.action.notation() == "A play MB-ROLL-01"


def test_when_every_copy_is_seen_the_engine_refuses_it_and_nothing_changes() -> None:
    flow = table()
    flow.handle(KindShown(CardKind.ROLL, "1"))
    flow.handle(KindShown(CardKind.ROLL, "2"))
    flow.handle(KindShown(CardKind.DRIVING_ACE, "3"))  # the one Driving Ace
    state = flow.state
    extra = flow.handle(KindShown(CardKind.DRIVING_ACE, "4"))
    assert extra.verdict is Verdict.REFUSED
    assert flow.state == state


def test_a_card_the_camera_is_unsure_of_is_one_line_and_changes_nothing() -> None:
    flow = table()
    state = flow.state
    outcome = flow.handle(ReaderProblem("camera-unsure", "not clear (STOP or ROLL?)", "camera"))
    assert outcome.verdict is Verdict.REFUSED
    assert outcome.message == "Not clear: show it again"
    assert "\n" not in outcome.message
    assert flow.state == state


def test_the_french_table_says_the_refusal_in_the_issues_words() -> None:
    """Issue 41 asks for "Pas clair : montrez-la encore" (with French typography's no-break space)."""
    from bornes.firmware.language.i18n import speaking

    flow = table()
    with speaking("fr"):
        outcome = flow.handle(ReaderProblem("camera-unsure", "not clear (STOP or ROLL?)", "camera"))
    assert outcome.message == "Pas clair\u00a0: montrez-la encore"


def test_a_camera_that_cannot_see_is_a_status_like_a_reader_lost_until_it_sees_and_plays_go_on_meanwhile() -> None:
    from bornes.drivers.events import CameraBlind, CameraSees, ReaderBack, ReaderLost
    from bornes.firmware.table.present import screen

    flow = table()
    said = flow.handle(CameraBlind("unsteady", "no steady picture", "camera"))
    assert said.message == "Camera: the light flickers, it cannot read the cards"
    assert screen(flow).status == "Camera: the light flickers"  # type: ignore[union-attr]
    assert flow.handle(KindShown(CardKind.ROLL, "7")).verdict is Verdict.ACCEPTED  # a steady moment: read
    assert screen(flow).status == "Camera: the light flickers"  # type: ignore[union-attr]
    flow.handle(ReaderLost("the camera's process ended", "camera"))
    assert screen(flow).status == "Reader lost"  # type: ignore[union-attr]  # the worse news first
    flow.handle(ReaderBack("webcam /dev/video0", "camera"))
    assert screen(flow).status == "Camera: the light flickers"  # type: ignore[union-attr]
    assert flow.handle(CameraSees("camera")).message == "Camera sees again"
    assert screen(flow).status is None  # type: ignore[union-attr]
    flow.handle(CameraBlind("black", "the camera sees black", "camera"))
    assert screen(flow).status == "Camera sees black"  # type: ignore[union-attr]
