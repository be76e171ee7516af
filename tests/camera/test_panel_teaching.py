"""Teaching the camera from the panel: the menu entry, each kind asked for, the shots, the check, BACK.

The flow is driven with the events the camera's process sends (``CameraTeaching``) and a table camera
that records what the flow asks of it; its screens are compared with approved pictures, in English
and French, on both panels (tests/golden/camera-teach-*.png).
"""

from __future__ import annotations

import queue
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from bornes.drivers.camera.reader import CameraReader
from bornes.drivers.camera.wire import CameraSettings
from bornes.drivers.events import ButtonPressed, CameraTeaching, KindShown, ReaderBack, ReaderLost
from bornes.firmware.language import i18n
from bornes.firmware.screens import SMALL, WIDE, render
from bornes.firmware.screens.model import MenuView, StatusView
from bornes.firmware.screens.render import layout_problems
from bornes.firmware.table.core import Mode, Sound, Verdict
from bornes.firmware.table.flow import TableFlow
from bornes.firmware.table.modes.camera import KIND_CODES
from bornes.firmware.table.present import screen
from tests.display.golden import check_golden


class TableCamera:
    """The camera as the table sees it (``core.CameraLink``): what it was asked, and whether it runs."""

    def __init__(self, running: bool = True) -> None:
        self.running = running
        self.asked: list[tuple[str, ...]] = []

    def teach(self, kinds: Sequence[str]) -> bool:
        self.asked.append(("teach", *kinds))
        return self.running

    def watch(self) -> bool:
        self.asked.append(("watch",))
        return self.running


@pytest.fixture
def english() -> Iterator[None]:
    with i18n.speaking("en"):
        yield


def main_menu(camera: TableCamera | None) -> TableFlow:
    flow = TableFlow(players=2, names=("Ann", "Bob"))
    flow.camera = camera
    return flow


def menu_of(flow: TableFlow) -> MenuView:
    view = screen(flow)
    assert isinstance(view, MenuView), view
    return view


def mode_of(flow: TableFlow) -> Mode:
    """The table's mode now (a call, so a type checker does not keep what an earlier assert said)."""
    return flow.ui.mode


def teaching(camera: TableCamera) -> TableFlow:
    flow = main_menu(camera)
    for _ in range(3):
        flow.handle(ButtonPressed("NEXT"))
    outcome = flow.handle(ButtonPressed("OK"))
    assert outcome.verdict is Verdict.PROMPT and outcome.sound is Sound.ATTENTION, outcome
    return flow


def test_the_main_menu_offers_teaching_only_to_a_table_with_a_camera(english: None) -> None:
    assert menu_of(main_menu(None)).items[-1] == "What the icons mean"
    assert menu_of(main_menu(TableCamera())).items[-1] == "Teach the camera"


def test_teaching_asks_the_camera_for_every_kind_and_shows_each_step(english: None) -> None:
    camera = TableCamera()
    flow = teaching(camera)
    assert flow.ui.mode is Mode.CAMERA_TEACH
    assert camera.asked == [("teach", "D25", "D50", "D75", "D100", "D200", "ACCIDENT", "OUTOFGAS", "FLATTIRE",
                             "SPEEDLIMIT", "STOP", "REPAIRS", "GASOLINE", "SPARETIRE", "ENDOFLIMIT", "ROLL",
                             "DRIVINGACE", "EXTRATANK", "PUNCTUREPROOF", "RIGHTOFWAY")]
    assert screen(flow) == StatusView("Teach the camera", "Starting the camera…")
    steps = [
        (CameraTeaching("show", "D100", 4, 19), Sound.ATTENTION,
         StatusView("Show: 100 miles", "Card 4 of 19: lay it flat in the zone, hand away.")),
        (CameraTeaching("no-card", "D100"), Sound.REFUSE,
         StatusView("Show: 100 miles", "Card 4 of 19: no card seen. One card, flat, hand away.")),
        (CameraTeaching("shot", "D100", 1, 3), Sound.ACCEPT,
         StatusView("Show: 100 miles", "Card 4 of 19, shot 1 of 3: nudge it a little.")),
        (CameraTeaching("shot", "D100", 3, 3), Sound.ACCEPT,
         StatusView("Show: 100 miles", "Card 4 of 19, shot 3 of 3: take it away.")),
        (CameraTeaching("taught", index=19, total=19), Sound.HAND_END,
         StatusView("Camera taught", "19 of 19 kinds read back. OK: back")),
    ]
    for news, sound, view in steps:
        outcome = flow.handle(news)
        assert outcome.sound is sound and outcome.verdict is Verdict.PROMPT, (news, outcome)
        assert screen(flow) == view
    flow.handle(ButtonPressed("OK"))
    assert mode_of(flow) is Mode.SETUP and menu_of(flow).selected == 3  # back on "Teach the camera"
    assert flow.handle(CameraTeaching("shot", "D25", 1, 3)).verdict is Verdict.IGNORED  # late news changes nothing


def test_back_stops_the_teaching_and_the_camera_keeps_what_it_knew(english: None) -> None:
    camera = TableCamera()
    flow = teaching(camera)
    flow.handle(CameraTeaching("show", "D25", 1, 19))
    outcome = flow.handle(ButtonPressed("BACK"))
    assert outcome.message == "Teaching stopped: the camera keeps what it knew"
    assert camera.asked[-1] == ("watch",)
    assert flow.ui.mode is Mode.SETUP


def test_a_camera_not_running_is_one_line_and_the_menu_stays(english: None) -> None:
    flow = main_menu(TableCamera(running=False))
    for _ in range(3):
        flow.handle(ButtonPressed("NEXT"))
    outcome = flow.handle(ButtonPressed("OK"))
    assert outcome.refused and outcome.message == "The camera is not running: see the reader status"
    assert flow.ui.mode is Mode.SETUP


def test_look_alike_kinds_are_named_and_a_failure_says_why(english: None) -> None:
    flow = teaching(TableCamera())
    flow.handle(CameraTeaching("taught", index=17, total=19, alike=(("D100", "D200"), ("STOP", "ROLL"))))
    assert screen(flow) == StatusView(
        "Camera taught", "These look alike: 100 miles / 200 miles, Stop / Roll. Teach again in an even light. OK: back")
    flow = teaching(TableCamera())
    flow.handle(CameraTeaching("failed", detail="the templates could not be saved: disk full"))
    assert screen(flow) == StatusView("Not taught", "the templates could not be saved: disk full. OK: back")


def screens(language: str) -> dict[str, StatusView]:
    """The teaching's screens, as the flow makes them, in ``language``."""
    shown: dict[str, StatusView] = {}
    with i18n.speaking(language):
        flow = teaching(TableCamera())
        for name, news in (("show", CameraTeaching("show", "PUNCTUREPROOF", 18, 19)),
                           ("shot", CameraTeaching("shot", "PUNCTUREPROOF", 2, 3)),
                           ("taught", CameraTeaching("taught", index=19, total=19))):
            flow.handle(news)
            view = screen(flow)
            assert isinstance(view, StatusView)
            shown[name] = view
        flow = teaching(TableCamera())
        flow.handle(CameraTeaching("taught", index=18, total=19, alike=(("D100", "D200"),)))
        view = screen(flow)
        assert isinstance(view, StatusView)
        shown["alike"] = view
    return shown


@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize("size", [SMALL, WIDE], ids=["128x64", "256x64"])
def test_the_teaching_screens_match_their_pictures(language: str, size: tuple[int, int]) -> None:
    for name, view in screens(language).items():
        with i18n.speaking(language):
            assert layout_problems(view, size) == [], (name, view)
            image = render(view, size)
        suffix = "" if language == "en" else f"-{language}"
        check_golden(f"camera-teach-{name}{suffix}-{size[0]}x{size[1]}", image)


@pytest.mark.slow
def test_taught_from_the_panel_through_the_real_camera_then_it_reads(tmp_path: Path) -> None:
    """The whole path: the menu, the camera's process teaching from its folder twin, the templates kept,
    the camera back, and a card read with what it was just taught."""
    pytest.importorskip("cv2")
    from tests.camera.live import Twin, careful_plays, careful_teaching

    twin = Twin(tmp_path / "frames")
    twin.write(careful_plays([])[:4])
    events: queue.Queue[object] = queue.Queue()
    settings = CameraSettings("folder", str(twin.folder), fps=50, templates=str(tmp_path / "state" / "camera"))
    flow = TableFlow(players=2, names=("Ann", "Bob"))
    with i18n.speaking("en"), CameraReader(settings, events, min_backoff=0.1, max_backoff=0.5) as reader:
        flow.camera = reader
        first = events.get(timeout=60)
        assert isinstance(first, ReaderLost) and "not been taught" in str(first.detail), first
        flow.handle(first)
        for _ in range(3):
            flow.handle(ButtonPressed("NEXT"))
        flow.handle(ButtonPressed("OK"))
        twin.write(careful_teaching(KIND_CODES))
        steps: list[str] = []
        while not flow.ui.teach.done:
            event = events.get(timeout=120)
            assert isinstance(event, CameraTeaching), event
            flow.handle(event)
            steps.append(event.step)
        assert steps.count("show") == 19 and steps.count("shot") == 57, steps
        shown = screen(flow)  # what the check found is the recognizer's business (100 and 200 miles may look alike)
        assert isinstance(shown, StatusView) and shown.title == "Camera taught", shown
        back = events.get(timeout=60)
        assert isinstance(back, ReaderBack), back
        flow.handle(back)
        assert flow.ui.status is None  # no "Reader lost" any more
        flow.handle(ButtonPressed("OK"))
        twin.write(careful_plays(["STOP"], seed=31))  # the empty zone first, as a table shows it between cards
        read = events.get(timeout=60)
        assert isinstance(read, KindShown) and read.kind.value == "STOP", read
    assert (tmp_path / "state" / "camera" / "templates.json").exists()
