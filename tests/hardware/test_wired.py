"""The wired parts follow their GPIO chip: lost when it goes, back on it by themselves, never a stop.

The chip is a :class:`~bornes.drivers.gpiochips.Chip` the test says is there or not, and the pins are
gpiozero's MockFactory: the same Buttons and Feedback the referee opens, on mock pins (tests/kernel's
CP2112 bridge does it on a real chip).
"""

from __future__ import annotations

import copy
import queue
import threading
import time
from pathlib import Path
from typing import Any

from gpiozero.pins.mock import MockFactory, MockPWMPin

from bornes.drivers.events import BUTTONS, ButtonPressed, ReaderBack, ReaderLost
from bornes.drivers.feedback import Feedback, Pattern
from bornes.drivers.gpiochips import Chip, ChipWatch
from bornes.drivers.pins import ChipMissing, parse
from bornes.drivers.wired import WiredParts
from tests.hardware.test_pins import BRIDGE

CHIP = Chip("/dev/gpiochip0", "gpiochip0", "cp2112_gpio", 8)


class Bench:
    """Whether the chip is there, and the mock factories opened on it."""

    def __init__(self) -> None:
        self.there: Chip | None = None
        self.factories: list[MockFactory] = []

    def find(self, labels: tuple[str, ...]) -> Chip | None:
        return self.there if self.there is not None and self.there.label in labels else None

    def open(self, labels: tuple[str, ...]) -> Any:
        if self.find(labels) is None:
            raise ChipMissing(f"no GPIO chip labelled {labels[0]!r}")
        self.factories.append(MockFactory(pin_class=MockPWMPin))
        return self.factories[-1]


def _drain(events: queue.Queue[Any]) -> list[Any]:
    out = []
    while not events.empty():
        out.append(events.get_nowait())
    return out


def test_a_chip_that_goes_and_comes_back() -> None:
    pin_map = parse(copy.deepcopy(BRIDGE))
    events: queue.Queue[Any] = queue.Queue()
    bench = Bench()
    feedback = Feedback(pin_map, pins=False, thread=False, wait=lambda event, seconds: False)
    wired = WiredParts(pin_map, events, feedback, with_buttons=True, open_factory=bench.open, find_chip=bench.find,
                       thread=False)
    try:
        assert _drain(events) == [ReaderLost("no GPIO chip labelled 'cp2112_gpio'", BUTTONS)]  # not there at start
        wired.check()
        assert _drain(events) == []  # one notice while it is away
        bench.there = CHIP
        wired.check()
        assert _drain(events) == [ReaderBack("cp2112_gpio", BUTTONS)]
        assert wired.buttons is not None and wired.chip == CHIP
        bench.factories[-1].pin(0).drive_low()  # OK's line, pressed: low
        time.sleep(0.05)  # past the debounce
        wired.buttons.poll()
        assert _drain(events) == [ButtonPressed("OK")]
        feedback.play_now(Pattern.ACCEPT)
        assert bench.factories[-1].pin(5).state == 0  # the buzzer sounded and stopped on this chip
        bench.there = None  # unplugged
        wired.check()
        assert [type(e) for e in _drain(events)] == [ReaderLost]
        assert wired.buttons is None and wired.factory is None
        feedback.play_now(Pattern.ACCEPT)  # no pins: the pattern goes on without them
        bench.there = Chip("/dev/gpiochip1", "gpiochip1", "cp2112_gpio", 8)  # back, numbered afresh
        wired.check()
        assert _drain(events) == [ReaderBack("cp2112_gpio", BUTTONS)] and len(bench.factories) == 2
    finally:
        wired.close()
        feedback.close()
        for factory in bench.factories:
            factory.close()


class Arriving(Bench):
    """A chip whose node this user cannot open at the first look and can at the next: devtmpfs makes a bridge's
    /dev/gpiochipN root's, and udev gives it to group gpio a moment later (seen in the kernel tier)."""

    def __init__(self) -> None:
        super().__init__()
        self.looks = 0

    def find(self, labels: tuple[str, ...]) -> Chip | None:
        self.looks += 1
        if self.looks == 1:
            self.there = CHIP  # udev's rule applied right after this look
            return None
        return super().find(labels)


def test_a_chip_that_arrives_between_two_looks_is_opened_once_and_named() -> None:
    """The parts opened on a chip found only by the factory's own look are named after it and kept: the
    next look sees the same chip. They were once put on an unnamed "(0 lines)" chip, closed at the next
    look as one that went away and opened again (a lost and a back for nothing), and in the kernel tier no
    press was heard after that churn."""
    pin_map = parse(copy.deepcopy(BRIDGE))
    events: queue.Queue[Any] = queue.Queue()
    bench = Arriving()
    wired = WiredParts(pin_map, events, None, with_buttons=True, open_factory=bench.open, find_chip=bench.find,
                       thread=False)
    try:
        assert wired.chip == CHIP and _drain(events) == [ReaderBack("cp2112_gpio", BUTTONS)]
        wired.check()
        wired.check()
        assert _drain(events) == [] and len(bench.factories) == 1 and wired.buttons is not None
    finally:
        wired.close()
        for factory in bench.factories:
            factory.close()


def test_the_buttons_lost_and_back_are_said_on_the_panel() -> None:
    from tests.flow.helpers import table

    flow = table()
    lost = flow.handle(ReaderLost("no GPIO chip labelled 'cp2112_gpio'", BUTTONS))
    assert "Buttons lost" in lost.message and flow.ui.status == "Buttons lost"
    back = flow.handle(ReaderBack("cp2112_gpio", BUTTONS))
    assert back.message == "Buttons back" and flow.ui.status is None
    assert flow.handle(ReaderBack("cp2112_gpio", BUTTONS)).message == ""  # at start: nothing to say
    assert ReaderLost("x", BUTTONS).describe() == "buttons lost: x"


def test_the_chip_watch_wakes_on_a_gpiochip_node_and_on_close_only(tmp_path: Path) -> None:
    """Real inotify on a folder of the test's own: a ``gpiochipN`` made or removed wakes the waiter at once,
    another node does not, and close() wakes it for good."""
    watch = ChipWatch(str(tmp_path))
    assert watch.watching
    try:
        started = time.monotonic()
        threading.Timer(0.1, (tmp_path / "ttyACM0").touch).start()
        assert watch.wait(0.6) is False and time.monotonic() - started >= 0.6  # not a chip: the whole wait
        threading.Timer(0.1, (tmp_path / "gpiochip7").touch).start()
        started = time.monotonic()
        assert watch.wait(5.0) is False and time.monotonic() - started < 2.0
        threading.Timer(0.1, (tmp_path / "gpiochip7").unlink).start()
        started = time.monotonic()
        assert watch.wait(5.0) is False and time.monotonic() - started < 2.0
        threading.Timer(0.1, watch.close).start()
        started = time.monotonic()
        assert watch.wait(5.0) is True and time.monotonic() - started < 2.0
        assert watch.wait(5.0) is True  # closed: at once
    finally:
        watch.close()
        watch.close()


class SlowLooks(WiredParts):
    interval = 30.0  # a look every 30 s: only the watch can see the chip go in time


def test_a_chip_pulled_out_is_said_lost_at_once_not_at_the_next_look(tmp_path: Path) -> None:
    """lgpio's alert thread prints a line per turn on a gone chip's lines until they are let go (it filled
    journald past its rate limit in the kernel tier): the parts let go as the node goes, not at the next look."""
    pin_map = parse(copy.deepcopy(BRIDGE))
    events: queue.Queue[Any] = queue.Queue()
    bench = Bench()
    bench.there = CHIP
    (tmp_path / "gpiochip0").touch()
    wired = SlowLooks(pin_map, events, None, with_buttons=True, open_factory=bench.open, find_chip=bench.find,
                      watch=ChipWatch(str(tmp_path)))
    try:
        assert events.get(timeout=5) == ReaderBack("cp2112_gpio", BUTTONS)
        time.sleep(0.2)  # the thread in its wait
        bench.there = None
        started = time.monotonic()
        (tmp_path / "gpiochip0").unlink()
        lost = events.get(timeout=5)
        assert isinstance(lost, ReaderLost) and time.monotonic() - started < 2.0, lost
        deadline = time.monotonic() + 5
        while wired.factory is not None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert wired.buttons is None and wired.factory is None
    finally:
        wired.close()
        for factory in bench.factories:
            factory.close()
