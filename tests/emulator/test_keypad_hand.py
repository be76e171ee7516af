"""A whole hand at a table whose buttons are a USB numeric keypad, start to score sheet.

The appliance is the one ``bornes run --emulate`` builds (journal, table flow, referee loop, the
dummy panel), with ``[buttons] source = "hid"``: the keypad's thread reads a device fed with key
strokes in real time (kernel events with monotonic stamps, as ``HidPort`` sets them), and the cards
are typed as on the emulator's console. Midway the keypad is pulled out (one line, nothing changes;
a control card stands in) and plugged back, and an unknown key is pressed (one line, nothing changes).
"""

from __future__ import annotations

import errno
import json
import queue
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from evdev import InputEvent, ecodes

from bornes.drivers.events import KEYPAD, ButtonPressed, KeyTyped, ReaderBack, ReaderLost
from bornes.drivers.events import InputEvent as TableInput
from bornes.drivers.keypad import KEYMAPS
from bornes.firmware.appliance.assembly import Appliance
from bornes.firmware.appliance.config import parse_config
from bornes.firmware.appliance.referee import STOP
from bornes.firmware.language.buttons import using_keys
from bornes.firmware.screens.model import ScoreSheetView
from bornes.firmware.screens.render import render
from bornes.firmware.table.flow import Outcome
from bornes.firmware.table.present import screen

GAMES = Path(__file__).resolve().parents[1] / "flow" / "games"
NUMPAD = KEYMAPS["numpad"]


class LiveKeypad:
    """A plugged-in keypad: keys written by the test come out as the kernel's events, stamped on the
    monotonic clock; :meth:`unplug` makes the next read fail as a vanished device's does."""

    def __init__(self) -> None:
        self.keys: queue.Queue[InputEvent | None] = queue.Queue()
        self.clock = time.monotonic
        self.closed = False

    def write(self, code: int, value: int) -> None:
        now = time.monotonic()
        sec = int(now)
        self.keys.put(InputEvent(sec, round((now - sec) * 1_000_000), ecodes.EV_KEY, code, value))

    def unplug(self) -> None:
        self.keys.put(None)

    def read_events(self, timeout: float) -> list[Any]:
        try:
            event = self.keys.get(timeout=timeout)
        except queue.Empty:
            return []
        if event is None:
            raise OSError(errno.ENODEV, "No such device")
        return [event]

    def cancel_read(self) -> None:
        self.keys.put_nowait(None) if not self.closed else None

    def close(self) -> None:
        self.closed = True


class Table:
    """The appliance, its referee loop in a thread, and the hands of the players."""

    def __init__(self, tmp_path: Path) -> None:
        config = parse_config(
            '[display]\npanel = "dummy"\n[pins]\nfactory = "mock"\n'
            f'[state]\ndir = "{tmp_path / "state"}"\n'
            '[buttons]\nsource = "hid"\nport = "/dev/input/by-id/usb-Test_Keypad-event-kbd"\nmax_backoff = 0.1\n'
            '[game]\nedition = "winning-moves"\nplayers = 2\nnames = ["Ann", "Bob"]\ndealer = 1\n',
            base_dir=tmp_path)
        self.plugged: list[LiveKeypad] = []
        self.plug_in = threading.Event()
        self.plug_in.set()
        self.outcomes: queue.Queue[tuple[TableInput, Outcome]] = queue.Queue()
        self.appliance = Appliance(config, emulate=True, panel="dummy", with_reader=False, keypad_port=self._open)
        self.appliance.referee.on_outcome = lambda event, outcome: self.outcomes.put((event, outcome))
        self.stop = threading.Event()
        self.loop = threading.Thread(target=self.appliance.referee.run, args=(self.stop,), daemon=True)
        self.loop.start()
        self.expect(lambda event: isinstance(event, ReaderBack))

    def _open(self, port: str, baudrate: int, timeout: float) -> LiveKeypad:
        if not self.plug_in.is_set():
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", port)
        self.plugged.append(LiveKeypad())
        return self.plugged[-1]

    def expect(self, wanted: Any, timeout: float = 20.0) -> Outcome:
        """The outcome of the next input ``wanted(event)`` matches; the inputs before it must not be presses."""
        deadline = time.monotonic() + timeout
        while True:
            event, outcome = self.outcomes.get(timeout=max(0.01, deadline - time.monotonic()))
            if wanted(event):
                return outcome
            assert not isinstance(event, ButtonPressed), f"an unexpected press: {event}"

    def press(self, button: str, held: float = 0.12) -> Outcome:
        code = NUMPAD.key_of(button)
        assert code is not None, button
        keypad = self.plugged[-1]
        keypad.write(code, 1)
        time.sleep(held)
        keypad.write(code, 0)
        return self.expect(lambda event: isinstance(event, ButtonPressed))

    def type(self, text: str) -> Outcome:
        self.appliance.events.put(KeyTyped(text))
        return self.expect(lambda event: isinstance(event, KeyTyped))

    def close(self) -> None:
        self.appliance.events.put(STOP)
        self.loop.join(10)
        self.appliance.close()


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    made = Table(tmp_path)
    try:
        yield made
    finally:
        made.close()


def hand_one() -> list[tuple[str, bool]]:
    """The first hand of the two-player feed game (tests/flow/games), to its score sheet: each input,
    and whether its comment says the referee refuses it."""
    lines = []
    for raw in (GAMES / "two-players-classic.feed").read_text(encoding="utf-8").splitlines():
        line, _, comment = (part.strip() for part in raw.partition("#"))
        if line.startswith(("scan ", "press ")):
            lines.append((line, "refused" in comment))
        if "hand over, score sheet" in raw:
            return lines
    raise AssertionError("the feed game's first hand has no end")


def test_a_hand_with_keypad_buttons_from_start_to_score_sheet(table: Table) -> None:
    flow = table.appliance.flow
    assert flow.key_legend == NUMPAD.legend()
    started = table.press("OK")  # the configured table: one OK starts it
    assert started.verdict == "accepted" and flow.state is not None
    for number, (line, refused) in enumerate(hand_one()):
        word, argument = line.split()
        if number == 6:  # mid-hand: the keypad is pulled out, and the table carries on with a control card
            assert line == "press DISCARD"
            before = flow.state
            table.plug_in.clear()
            table.plugged[-1].unplug()
            lost = table.expect(lambda event: isinstance(event, ReaderLost) and event.reader == KEYPAD)
            assert lost.verdict == "ignored" and "\n" not in lost.message and lost.message.startswith("Keypad lost")
            assert flow.state is before and flow.ui.status == "Keypad lost"
            assert table.type("MB-CMD-DISCARD").verdict == "prompt"  # the control card stands in for DISCARD
            table.plug_in.set()
            back = table.expect(lambda event: isinstance(event, ReaderBack))
            assert back.message == "Keypad back" and flow.ui.status is None and flow.state is before
            continue
        if number == 9:  # a key that is no button: one line, nothing changes
            before = flow.state
            code = ecodes.KEY_KP9
            table.plugged[-1].write(code, 1)
            table.plugged[-1].write(code, 0)
            unknown = table.expect(lambda event: type(event).__name__ == "ReaderProblem")
            assert unknown.verdict == "refused"
            assert unknown.message == "Key 9 (KP9) is no button: hold Enter for the keys"  # its key, not "OK"
            assert flow.state is before
        outcome = table.press(argument) if word == "press" else table.type(argument)
        assert outcome.verdict in (("refused",) if refused else ("accepted", "prompt")), (line, outcome)
    view = screen(flow)
    assert isinstance(view, ScoreSheetView)
    expected = json.loads((GAMES / "two-players-classic.expected.json").read_text(encoding="utf-8"))[0]
    totals = {name: values[-1] for name, values in view.columns}
    assert totals == {name: rows["Combined total"] for name, rows in expected["sides"].items()}
    display = table.appliance.display
    with using_keys(flow.keys):  # its footer names the keys: "+ more   Enter next hand" (issue 40)
        shown = render(view)
    assert display is not None and display.device.image.tobytes() == shown.tobytes()  # on the panel
    assert flow.keys["NEXT"] == "+" and flow.keys["OK"] == "Enter"
    assert len(table.plugged) == 2 and table.plugged[0].closed
