"""The display driver on luma's dummy device and the emulator's capture, with injected I/O errors."""

from __future__ import annotations

import contextlib
import errno
import os
import queue
import threading
import time
from pathlib import Path
from typing import Any, ClassVar

import pytest
from luma.core.device import dummy
from PIL import GifImagePlugin, Image

from bornes.drivers.display import Display, open_display
from bornes.drivers.errors import UserError
from bornes.drivers.events import ButtonPressed
from bornes.firmware.screens import SMALL, WIDE, render
from bornes.firmware.screens.samples import sample_tables


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class FlakyDevice(dummy):  # type: ignore[misc]
    """A dummy panel that fails like an I2C OLED with a loose wire, while ``broken`` is set."""

    broken = False
    frames: ClassVar[list[bytes]] = []

    def display(self, image: Image.Image) -> None:
        if FlakyDevice.broken:
            raise OSError(errno.EREMOTEIO, "Remote I/O error")
        super().display(image)
        FlakyDevice.frames.append(image.tobytes())


@pytest.fixture
def flaky() -> Any:
    FlakyDevice.broken = False
    FlakyDevice.frames = []
    return FlakyDevice


def test_dummy_shows_frames_and_skips_unchanged_ones() -> None:
    with open_display("dummy") as display:
        table = sample_tables()["table-4"]
        assert display.show(render(table))
        assert display.device.image.tobytes() == render(table).tobytes()
        assert not display.show(render(table))  # same frame: not sent
        assert display.show(render(sample_tables()["table-3"]))
        assert (display.sent, display.skipped) == (2, 1)


def test_wide_dummy_takes_grayscale_frames() -> None:
    with open_display("dummy", emulated="ssd1322") as display:
        assert display.size == WIDE
        assert display.show(render(sample_tables()["table-4"], WIDE))
        assert display.device.image.mode == "RGB"


def test_wrong_size_and_unknown_panel() -> None:
    with open_display("dummy") as display, pytest.raises(ValueError):
        display.show(Image.new("1", WIDE))
    with pytest.raises(UserError, match="unknown display panel"):
        open_display("crt")


def test_io_error_is_retried_with_backoff_and_never_raises(flaky: Any) -> None:
    clock = FakeClock()
    display = Display(lambda: flaky(width=128, height=64, mode="1"), SMALL, clock=clock, backoff=0.5)
    frames = [render(view) for view in sample_tables().values()]
    assert display.show(frames[0])
    flaky.broken = True
    assert not display.show(frames[1])  # raises nothing
    assert display.degraded and "Remote I/O" in (display.last_error or "")
    clock.now += 0.1
    assert not display.show(frames[2])  # inside the backoff: not even tried
    assert display.failures == 1
    clock.now += 0.5
    assert not display.show(frames[3])  # tried, failed again: backoff doubles
    assert display.failures == 2
    clock.now += 0.6
    assert not display.tick()  # 1 s backoff not over yet
    flaky.broken = False
    clock.now += 0.5
    assert display.tick()  # back: the latest frame is shown
    assert not display.degraded and flaky.frames[-1] == frames[3].tobytes()
    display.close()
    display.close()


def test_recovery_resends_an_unchanged_frame(flaky: Any) -> None:
    clock = FakeClock()
    display = Display(lambda: flaky(width=128, height=64, mode="1"), SMALL, clock=clock)
    frame = render(sample_tables()["table-2"])
    display.show(frame)
    flaky.broken = True
    display.show(render(sample_tables()["table-3"]))
    flaky.broken = False
    clock.now += 60
    display.show(frame)  # same as the last frame sent, but the panel may have been reset
    assert flaky.frames[-1] == frame.tobytes() and len(flaky.frames) == 2


def test_a_panel_missing_at_start_is_retried() -> None:
    clock = FakeClock()
    attempts = []

    def make() -> Any:
        attempts.append(clock.now)
        if len(attempts) < 3:
            raise OSError(errno.ENOENT, "No such file or directory: '/dev/i2c-1'")
        return dummy(width=128, height=64, mode="1")

    display = Display(make, SMALL, clock=clock, backoff=1)
    assert display.degraded
    frame = render(sample_tables()["table-4"])
    for _ in range(5):
        clock.now += 10
        display.show(frame)
    assert not display.degraded and display.device.image.tobytes() == frame.tobytes()
    assert len(attempts) == 3


def test_a_bus_gone_while_nothing_is_drawn_is_noticed_and_the_picture_put_back(
        flaky: Any, caplog: pytest.LogCaptureFixture) -> None:
    """A USB bridge pulled out between two frames: tick() sees its node gone, drops the device (closing the
    bus, which the kernel waits for before it removes the adapter), and once the bus is back, puts the
    last picture back by itself (a fresh device: the panel lost its RAM with its power)."""
    clock, node = FakeClock(), {"there": True}
    made: list[Any] = []

    def make() -> Any:
        if not node["there"]:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory: '/dev/i2c-0'")
        made.append(flaky(width=128, height=64, mode="1"))
        return made[-1]

    display = Display(make, SMALL, clock=clock, max_backoff=2.0, where="ssd1306 on /dev/i2c-0 at 0x3C",
                      watch=lambda: None if node["there"] else "/dev/i2c-0 is gone")
    frame = render(sample_tables()["table-2"])
    assert display.show(frame)
    clock.now += 5
    assert not display.tick() and not display.degraded  # the bus is there: nothing to do
    node["there"] = False
    closed: list[bool] = []
    made[-1]._serial_interface = type("Bus", (), {"cleanup": lambda self: closed.append(True)})()
    clock.now += 5
    with caplog.at_level("WARNING"):
        display.tick()
    assert display.degraded and display.device is None and closed == [True]  # the bus closed: the kernel may go on
    assert "panel lost: ssd1306 on /dev/i2c-0 at 0x3C: OSError: [Errno 19] /dev/i2c-0 is gone" in caplog.text
    for _ in range(3):  # still gone: tried at the backoff, never raising
        clock.now += 2
        assert not display.tick()
    node["there"] = True
    clock.now += 2
    with caplog.at_level("WARNING"):
        assert display.tick()  # back with no frame asked for: the last picture, on a device made afresh
    assert len(made) == 2 and flaky.frames[-1] == frame.tobytes() and not display.degraded
    assert "panel back: ssd1306 on /dev/i2c-0 at 0x3C" in caplog.text


def test_real_panel_without_a_bus_degrades_instead_of_stopping() -> None:
    display = open_display("ssd1306", "i2c", i2c_port=99)  # no /dev/i2c-99 here
    assert display.degraded
    assert not display.show(Image.new("1", SMALL))
    display.close()


def test_referee_queue_keeps_moving_while_the_display_fails(flaky: Any) -> None:
    """A failing panel never stalls the queue, and comes back between failures.

    The clock is the test's own (40 ms per event, a referee's pace): with the wall clock, a fast loop
    could end inside one backoff and a slow one could meet the panel broken at every retry.
    """
    clock = FakeClock()
    events: queue.Queue[ButtonPressed] = queue.Queue()
    for index in range(200):
        events.put(ButtonPressed("NEXT" if index % 2 else "OK"))
    display = Display(lambda: flaky(width=128, height=64, mode="1"), SMALL, clock=clock, backoff=0.01,
                      max_backoff=0.5)
    handled = recoveries = 0
    tables = list(sample_tables().values())
    while not events.empty():
        events.get_nowait()
        flaky.broken = handled % 7 < 4  # fails most of the time
        was_degraded = display.degraded
        display.show(render(tables[handled % len(tables)]))
        recoveries += was_degraded and not display.degraded
        handled += 1
        clock.now += 0.04
    assert handled == 200
    assert display.sent > 0 and recoveries > 0
    assert flaky.frames and all(len(frame) == len(flaky.frames[0]) for frame in flaky.frames)


def test_capture_writes_a_png_per_changed_frame(tmp_path: Path) -> None:
    with open_display("capture", capture_dir=str(tmp_path), scale=1) as display:
        first = render(sample_tables()["table-4"])
        display.show(first)
        display.show(first)
        display.show(render(sample_tables()["table-2"]))
    files = sorted(tmp_path.glob("*.png"))
    assert len(files) == 2
    with Image.open(files[0]) as captured:
        assert captured.size == SMALL
        assert captured.convert("1").tobytes() == first.tobytes()


def test_gif_recording_is_written_on_close(tmp_path: Path) -> None:
    path = tmp_path / "game.gif"
    with open_display("gif", gif_path=str(path), scale=1) as display:
        for view in list(sample_tables().values())[:3]:
            display.show(render(view))
    with Image.open(path) as gif:
        assert isinstance(gif, GifImagePlugin.GifImageFile) and gif.n_frames == 3


def test_terminal_view(monkeypatch: pytest.MonkeyPatch) -> None:
    import fcntl
    import struct
    import sys
    import termios

    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 45, 140, 0, 0))  # the panel 1:1 + log
    received = bytearray()

    def drain() -> None:  # a pty holds only a few KB: read while the emulator writes
        with contextlib.suppress(OSError):
            while chunk := os.read(master, 1 << 16):
                received.extend(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    terminal = os.fdopen(slave, "w")
    monkeypatch.setattr(sys, "stdout", terminal)
    with open_display("terminal") as display:
        assert display.show(render(sample_tables()["table-2"]))
    terminal.flush()
    terminal.close()
    reader.join(timeout=5)
    os.close(master)
    assert len(received) > 100
    with pytest.raises(UserError, match="terminal"):
        monkeypatch.setattr(sys, "stdout", open(os.devnull, "w"))  # noqa: SIM115
        open_display("terminal")


def test_pygame_window_headless(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    with open_display("pygame") as display:
        assert display.show(render(sample_tables()["table-3"]))
    assert os.environ["SDL_VIDEODRIVER"] == "dummy"


class TooSmallTerminal(dummy):  # type: ignore[misc]
    """luma's terminal view in a 0x0 terminal raises ValueError, not OSError."""

    def display(self, image: Image.Image) -> None:
        raise ValueError("height and width must be > 0")


def test_any_device_error_degrades_instead_of_stopping_the_referee() -> None:
    clock = FakeClock()
    display = Display(lambda: TooSmallTerminal(width=128, height=64, mode="1"), SMALL, clock=clock)
    assert not display.show(render(sample_tables()["table-2"]))  # raises nothing
    assert display.degraded and "ValueError" in (display.last_error or "")
    display.close()


def test_an_idle_referee_notices_its_panels_bus_gone_within_two_seconds() -> None:
    """The referee's idle loop woke at half its watchdog's period, and only then looked at the panel's bus: under
    a 60 s watchdog (the kernel tier's wired table) an I2C bridge pulled out went unnoticed for 30 s, till the next
    card. A display with a bus to watch caps the idle wait at its watch period."""
    from bornes.firmware.appliance.referee import STOP, Referee
    from bornes.firmware.table.flow import TableFlow

    node = {"there": True}
    display = Display(lambda: dummy(width=128, height=64, mode="1"), SMALL, where="ssd1306 on /dev/i2c-0 at 0x3C",
                      watch=lambda: None if node["there"] else "/dev/i2c-0 is gone")
    events: queue.Queue[Any] = queue.Queue()
    referee = Referee(TableFlow(), events, display=display, watchdog=False)  # idle waits of 5 s without the cap
    stop = threading.Event()
    loop = threading.Thread(target=referee.run, args=(stop,))
    loop.start()
    try:
        deadline = time.monotonic() + 10
        while display.device is None and time.monotonic() < deadline:
            time.sleep(0.05)  # the first frame drawn
        node["there"] = False
        gone = time.monotonic()
        while not display.degraded and time.monotonic() < gone + 10:
            time.sleep(0.05)
        assert display.degraded and time.monotonic() - gone < 2.0, time.monotonic() - gone
    finally:
        events.put(STOP)
        loop.join(5)
