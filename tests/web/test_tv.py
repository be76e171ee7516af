"""The TV page: the panel without an OLED, full screen at 1920×1080 in a real headless Chromium.

A real referee loop draws on the ``tv`` panel (frames into ``tv.json``) and sounds on the page
(``tv-sound.json``); a real ``bornes web`` follows them; Chromium shows ``/tv`` at 1080p with the
Pi kiosk's flags. Each frame on the screen is read back from a screenshot, one sample at the middle
of each 15×15 block, and must be the referee's frame bit for bit: the panel scaled crisp, nothing
smoothed, nothing cut. The screenshot goes to build/screenshots/tv-1080p.png (docs/tv-1080p.png is
a copy, looked at before it was committed).
"""

from __future__ import annotations

import base64
import io
import json
import queue
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from bornes.drivers.display import open_display
from bornes.drivers.display.tv import TvScreen, frame_json
from bornes.drivers.events import ButtonPressed, KeyTyped
from bornes.drivers.feedback import Feedback
from bornes.drivers.keypad import KEYMAPS
from bornes.drivers.pins import parse
from bornes.drivers.sound import PageSounds
from bornes.drivers.tvfile import FORMAT
from bornes.firmware.appliance.referee import STOP, Referee
from bornes.firmware.screens.render import render
from bornes.firmware.table.flow import TableFlow
from bornes.firmware.table.present import screen
from bornes.firmware.web.tv import read_screen, read_sound
from tests.web.server import browser_wait, chromium, screenshot_dir, web_server

TV = (1920, 1080)
KIOSK = ("--autoplay-policy=no-user-gesture-required",)  # as bornes kiosk starts it on the Pi


# -- the panel that is a file ------------------------------------------------------------------------


def test_each_frame_is_one_small_file_replaced_whole_and_gone_when_the_referee_stops(tmp_path: Path) -> None:
    path = tmp_path / "tv.json"
    display = open_display("tv", tv_file=str(path))
    image = render(screen(TableFlow()))
    assert display.show(image) and not display.show(image)  # an unchanged frame is not written again
    found = read_screen(path)
    assert found is not None and (found["seq"], found["width"], found["height"]) == (1, 128, 64)
    assert Image.open(io.BytesIO(base64.b64decode(found["png"]))).convert("1").tobytes() == image.tobytes()
    assert path.stat().st_size < 2048 and path.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["tv.json"]  # no temporary file left behind
    display.close()
    assert not path.exists()


def test_a_missing_folder_is_a_panel_that_comes_back(tmp_path: Path) -> None:
    clock = [0.0]
    display = open_display("tv", tv_file=str(tmp_path / "run" / "tv.json"), clock=lambda: clock[0])
    assert display.degraded and "no such folder" in (display.last_error or "")
    (tmp_path / "run").mkdir()
    image = render(screen(TableFlow()))
    display.show(image)
    clock[0] += 60
    assert display.tick() and not display.degraded and (tmp_path / "run" / "tv.json").exists()
    display.close()


@pytest.mark.parametrize("content", [
    b"", b"not json", json.dumps({"format": "other", "seq": 1, "width": 1, "height": 1, "png": ""}).encode(),
    json.dumps({"format": FORMAT, "seq": 1, "width": 128, "height": 64, "png": base64.b64encode(b"GIF89a").decode()})
    .encode(), json.dumps({"format": FORMAT, "seq": 1, "png": "%%%"}).encode(), b"\xff" * 100_000,
])
def test_the_web_sends_on_nothing_but_a_frame(tmp_path: Path, content: bytes) -> None:
    (tmp_path / "tv.json").write_bytes(content)
    assert read_screen(tmp_path / "tv.json") is None
    (tmp_path / "tv-sound.json").write_bytes(content)
    assert read_sound(tmp_path / "tv-sound.json") is None
    TvScreen(tmp_path / "tv.json").display(Image.new("1", (128, 64)))
    assert read_screen(tmp_path / "tv.json") is not None
    assert json.loads(frame_json(Image.new("1", (128, 64)), 7))["seq"] == 7


# -- the page in a browser -----------------------------------------------------------------------------


class TvTable:
    """A referee loop on the tv panel, its chirps for the page, a keypad's legend."""

    def __init__(self, run: Path) -> None:
        self.run = run
        self.flow = TableFlow(players=4, names=("Léa", "Bob", "Chloé", "Dmitri"), dealer=3, configured=True)
        self.flow.key_legend = KEYMAPS["numpad"].legend()
        self.display = open_display("tv", tv_file=str(run / "tv.json"))
        self.feedback = Feedback(parse({}), chirps=PageSounds(run / "tv-sound.json"))
        self.events: queue.Queue[Any] = queue.Queue()
        self.referee = Referee(self.flow, self.events, display=self.display, feedback=self.feedback, watchdog=False)
        self.done: queue.Queue[Any] = queue.Queue()
        self.referee.on_outcome = lambda event, outcome: self.done.put(outcome)
        self.loop = threading.Thread(target=self.referee.run, daemon=True)
        self.loop.start()

    def play(self, *inputs: Any) -> None:
        for event in inputs:
            self.events.put(event)
            self.done.get(timeout=30)

    def stop(self) -> None:
        self.events.put(STOP)
        self.loop.join(10)
        self.feedback.close()
        self.display.close()


@pytest.fixture
def tv_site(tmp_path: Path) -> Iterator[tuple[Any, TvTable]]:
    run = tmp_path / "run"
    run.mkdir()
    table = TvTable(run)
    sections = ('[display]\npanel = "tv"\n[sound]\noutput = "page"\n'
                '[buttons]\nsource = "hid"\nport = "/dev/input/by-id/usb-Numeric_Keypad-event-kbd"\n')
    try:
        with web_server(tmp_path / "state", run / "control.sock", sections=sections) as web:
            yield web, table
    finally:
        table.stop()


def shown_frame(browser: Any) -> tuple[Image.Image, int, dict[str, float]]:
    """The panel as the TV shows it, sampled back to its own pixels: (image, scale, its box on the screen)."""
    box = browser.execute_script("return document.getElementById('screen').getBoundingClientRect().toJSON()")
    scale = int(browser.execute_script("return document.body.dataset.scale"))
    shot = Image.open(io.BytesIO(browser.get_screenshot_as_png())).convert("L")
    grey = shot.tobytes()  # one byte a pixel, row after row
    assert shot.size == TV
    left, top = round(box["left"]), round(box["top"])
    panel = Image.new("1", (round(box["width"]) // scale, round(box["height"]) // scale))
    for y in range(panel.height):
        for x in range(panel.width):
            block = [grey[(top + y * scale + dy) * shot.width + left + x * scale + dx]
                     for dx in (1, scale // 2, scale - 2) for dy in (1, scale // 2, scale - 2)]
            assert max(block) - min(block) < 30, f"block ({x}, {y}) is not one colour: not crisp"
            panel.putpixel((x, y), 255 if block[4] > 127 else 0)
    return panel, scale, box


def test_the_tv_page_shows_the_panel_crisp_at_1080p_with_its_keys_and_sounds(tv_site: tuple[Any, TvTable]) -> None:
    web, table = tv_site
    status, _headers, body = web.get("/")  # the phone's table page says which key does what, too
    assert status == 200 and "<kbd>Enter</kbd></dt><dd>OK</dd>" in body.decode()
    table.play(ButtonPressed("OK"), KeyTyped("MB-ROLL-01"), KeyTyped("MB-ROLL-02"), KeyTyped("MB-D100-01"),
               KeyTyped("MB-STOP-01"), KeyTyped("MB-D50-01"), KeyTyped("MB-ROLL-03"), KeyTyped("MB-D75-01"))
    with chromium(window=TV, arguments=KIOSK) as browser:
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                {"width": TV[0], "height": TV[1], "deviceScaleFactor": 1, "mobile": False})
        browser.get(web.url + "/tv")
        browser_wait(lambda: browser.execute_script("return document.body.dataset.frame"))
        panel, scale, box = shown_frame(browser)
        assert scale == 15 and (box["width"], box["height"]) == (1920, 960)  # 128×64 by 15: the width of 1080p
        assert panel.tobytes() == render(screen(table.flow)).tobytes()
        keys = browser.execute_script("return document.getElementById('keys').innerText")
        assert "Enter OK" in " ".join(keys.split()) and "SEAT1-SEAT8" in keys
        assert browser.execute_script("return document.getElementById('keys').getBoundingClientRect().bottom") <= 1080
        browser.save_screenshot(str(screenshot_dir() / "tv-1080p.png"))

        before = int(browser.execute_script("return document.body.dataset.frame"))
        table.play(KeyTyped("MB-D25-01"))  # Léa's 25: a new frame and the accepted chirp
        browser_wait(lambda: int(browser.execute_script("return document.body.dataset.frame")) > before)
        browser_wait(lambda: browser.execute_script("return document.body.dataset.sounds") == "1")
        assert shown_frame(browser)[0].tobytes() == render(screen(table.flow)).tobytes()
        assert browser.execute_script("return document.body.classList.contains('muted')") is False

        table.stop()  # the referee stops: the page says so instead of a stale table
        browser_wait(lambda: browser.execute_script("return document.body.classList.contains('gone')"))
        assert "The referee is not running" in browser.execute_script("return document.body.innerText")
