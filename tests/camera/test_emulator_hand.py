"""A hand played in the emulator with the camera, start to score sheet, not one label in sight.

The owner teaches the camera from a flat picture of each card (``bornes enroll --camera --pictures``),
then ``bornes run --emulate`` reads the camera's folder twin: the cards are shown to the camera, the
buttons typed. A covered lens and an unplugged camera mid-hand each say one line and change nothing.
At the end the journal (``bornes export``) and the phone pages (a real ``bornes web``) hold ordinary
plays, card copies as a label would have given.
"""

from __future__ import annotations

import functools
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageChops

from bornes.drivers.events import ButtonPressed, KindShown
from bornes.engine import CardKind
from bornes.firmware.screens.render import render
from bornes.firmware.table.flow import TableFlow
from bornes.firmware.table.present import screen

pytest.importorskip("cv2")

from tests.camera.live import Twin, careful_plays, empty_frames
from tests.emulator.test_emulator import quiet_env
from tests.web.server import web_server

REPO = Path(__file__).resolve().parents[2]
BORNES = [sys.executable, "-m", "bornes.firmware.cli"]
#: Ann reaches 700 (the short trip of two players) with Right of Way and seven 100s; Chloé rolls and drives.
HAND = ["RIGHTOFWAY", "D100", "ROLL", "D100", "D75", "D100", "D50", "D100", "D25", "D100", "D75", "D100", "D50",
        "D100"]
RECORD = ["A play MB-RIGHTOFWAY-01", "A play MB-D100-01", "B play MB-ROLL-01", "A play MB-D100-02",
          "B play MB-D75-01", "A play MB-D100-03", "B play MB-D50-01", "A play MB-D100-04", "B play MB-D25-01",
          "A play MB-D100-05", "B play MB-D75-02", "A play MB-D100-06", "B play MB-D50-02", "A play MB-D100-07",
          "A extension no"]


class Emulator:
    """``bornes run --emulate`` with standard input and output as pipes; its lines gathered by a thread."""

    def __init__(self, config: Path) -> None:
        self.process = subprocess.Popen([*BORNES, "run", "--emulate", "--config", str(config)], cwd=REPO,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        text=True, env=quiet_env())
        self.lines: list[str] = []
        self._new: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))
            self._new.put(line)

    def type(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(text + "\n")
        self.process.stdin.flush()

    def wait_for(self, wanted: Callable[[list[str]], bool], what: str, timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        while not wanted(self.lines):
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise AssertionError(f"no {what} in:\n" + "\n".join(self.lines[-40:]))
            try:
                self._new.get(timeout=0.2)
            except queue.Empty:
                continue

    def count(self, text: str) -> int:
        return sum(text in line for line in self.lines)

    def stop(self) -> int:
        if self.process.stdin is not None:
            self.process.stdin.close()  # the end of typing stops the emulator
        try:
            return self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[Path, Twin]]:
    twin = Twin(tmp_path / "camera")
    config = tmp_path / "table.toml"
    config.write_text(
        f'[display]\npanel = "capture"\ncapture_dir = "{tmp_path / "panel"}"\n[pins]\nfactory = "mock"\n'
        f'[state]\ndir = "{tmp_path / "state"}"\n'
        '[game]\nedition = "winning-moves"\nplayers = 2\nnames = ["Ann", "Chloé"]\ndealer = 1\n'
        f'[camera]\nsource = "folder"\ndevice = "{twin.folder}"\nfps = 50\n'
    )
    yield config, twin


def taught(config: Path, tmp_path: Path) -> str:
    """The owner's teaching from a flat picture of each kind (what a scanner or a phone held straight gives)."""
    sheet = tmp_path / "faces"
    subprocess.run([sys.executable, "-m", "tools.camera_scenes", "sheet", "--edition", "road", "--out", str(sheet)],
                   cwd=REPO, check=True, timeout=120)
    done = subprocess.run([*BORNES, "enroll", "--camera", "--config", str(config), "--pictures", str(sheet)],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.slow
def test_a_hand_played_with_the_camera_start_to_score_sheet(table: tuple[Path, Twin], tmp_path: Path) -> None:
    config, twin = table
    said = taught(config, tmp_path)
    assert "Kept in" in said and "Taught:" in said, said
    twin.write(empty_frames(4))
    emulator = Emulator(config)
    try:
        emulator.wait_for(lambda lines: any("reader back on frames from" in line for line in lines), "camera back")
        emulator.type("ok")  # the configured table's summary: OK starts the game (before any card: one queue)
        for number, kind in enumerate(HAND):
            if number == 4:  # a hand over the lens: one line, and the game goes on
                twin.write([np.zeros((480, 640, 3), np.uint8)] * 3)
            if number == 8:  # the camera unplugged mid-hand, and plugged in again
                away = twin.folder.with_name("unplugged")
                twin.folder.rename(away)
                emulator.wait_for(lambda lines: any("reader lost" in line for line in lines), "reader lost")
                away.rename(twin.folder)
            twin.write(careful_plays([kind], seed=100 + number))
            emulator.wait_for(functools.partial(accepted_at_least, number + 1), f"play {number + 1} ({kind})")
        emulator.type("next")  # Ann reached 700: no extension
        emulator.type("ok")
        emulator.wait_for(lambda lines: sum("accepted " in line for line in lines) > len(HAND), "the hand's end")
    finally:
        code = emulator.stop()
    out = "\n".join(emulator.lines)
    assert code == 0, out
    assert emulator.count("Camera: ") == 1, out  # the covered lens
    assert emulator.count("reader lost") == 1 and emulator.count("reader back") == 2, out
    assert "refused" not in out.replace("refused [camera-frame]", ""), out
    assert "Traceback" not in out and "internal error" not in out.lower(), out
    record = subprocess.run([*BORNES, "export", "1", "--config", str(config)], cwd=REPO, capture_output=True,
                            text=True, timeout=60)
    assert record.returncode == 0, record.stderr
    assert [line for line in record.stdout.splitlines() if line.startswith(("A ", "B "))] == RECORD, record.stdout
    state = tmp_path / "state"
    with web_server(state, state / "control.sock") as web:
        status, _, body = web.get("/games/1/record")
        sheet_status, _, sheet = web.get("/sheet")
    assert status == 200
    assert [line for line in body.decode().splitlines() if line.startswith(("A ", "B "))] == RECORD
    assert sheet_status == 200 and b"1500" in sheet and b"275" in sheet  # Ann's and Chloé's hand, on the phones
    shown = Image.open(sorted((tmp_path / "panel").glob("*.png"))[-1]).convert("1")
    assert ImageChops.difference(shown, score_sheet()).getbbox() is None, f"the panel's last frame: {tmp_path}/panel"


def score_sheet() -> Image.Image:
    """The panel after the same inputs in this process: the hand's score sheet, under its one-line result."""
    flow = TableFlow(edition="winning-moves", players=2, names=("Ann", "Chloé"), dealer=1, configured=True)
    flow.handle(ButtonPressed("OK"))
    for kind in HAND:
        flow.handle(KindShown(CardKind(kind), "-"))
    flow.handle(ButtonPressed("NEXT"))
    outcome = flow.handle(ButtonPressed("OK"))
    assert outcome.message == "Hand 1 over: Ann 1500, Chloé 275", outcome
    view = screen(flow)
    assert type(view).__name__ == "ScoreSheetView", view
    return render(view, (128, 64), "RGB").convert("1")


def accepted_at_least(plays: int, lines: list[str]) -> bool:
    """Whether the emulator accepted that many plays so far ("bornes: accepted Ann: 100 miles (MB-D100-01)")."""
    return sum("accepted " in line and "(MB-" in line for line in lines) >= plays
