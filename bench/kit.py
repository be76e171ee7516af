"""The table without a soldering iron, timed: the keypad's presses, the TV page's frames, the chirps.

``python -m bench.kit`` measures and prints:

* the keypad decoder's cost per press (2000 recorded strokes, best of 3), and the latency of a press
  through the real keypad thread: key down written to a port, ``ButtonPressed`` on the queue (a press
  is only sure 50 ms after its key went down, drivers/keypad.py: that is most of it, by design);
* the TV panel: one frame rendered and written to ``tv.json`` (on a tmpfs, as ``/run/bornes`` is) by
  the display, and the time from
  that write to the frame arriving at a page listening on a real ``bornes web``'s ``/tv/events``;
* the chirps: making every pattern's WAV, and ``aplay`` started and ended on ALSA's null device.
"""

from __future__ import annotations

import errno
import json
import queue
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def decoder_cost() -> tuple[float, int]:
    from bornes.drivers.keypad import KEYMAPS, KeypadDecoder
    from tests.hardware.keypad_scenario import SCENARIO, recorded

    strokes = list(SCENARIO) * 200
    events = recorded(strokes)
    best, heard = float("inf"), 0
    for _ in range(3):
        decoder = KeypadDecoder(KEYMAPS["numpad"])
        started = time.perf_counter()
        out = decoder.feed(events)
        out += decoder.poll(events[-1].timestamp() + 10)
        best = min(best, time.perf_counter() - started)
        heard = len(out)
    return best / len(strokes) * 1e6, heard


class LivePort:
    """A keypad as the kernel hands it: key events stamped on the monotonic clock, read with a timeout."""

    def __init__(self) -> None:
        self.keys: queue.Queue[Any] = queue.Queue()
        self.clock = time.monotonic

    def write(self, code: int, value: int) -> None:
        from evdev import InputEvent, ecodes

        now = time.monotonic()
        self.keys.put(InputEvent(int(now), round((now - int(now)) * 1e6), ecodes.EV_KEY, code, value))

    def read_events(self, timeout: float) -> list[Any]:
        try:
            event = self.keys.get(timeout=timeout)
        except queue.Empty:
            return []
        if event is None:
            raise OSError(errno.ENODEV, "No such device")
        return [event]

    def cancel_read(self) -> None:
        self.keys.put(None)

    def close(self) -> None:
        pass


def press_latency(presses: int = 100) -> list[float]:
    from evdev import ecodes

    from bornes.drivers.events import ButtonPressed
    from bornes.drivers.keypad import KEYMAPS, open_keypad

    port = LivePort()
    events: queue.Queue[Any] = queue.Queue()
    keypad = open_keypad("bench", events, KEYMAPS["numpad"], serial_factory=lambda *_: port)
    times = []
    try:
        events.get(timeout=10)  # the keypad is there
        for _ in range(presses):
            started = time.perf_counter()
            port.write(ecodes.KEY_KPPLUS, 1)
            event = events.get(timeout=10)
            times.append(time.perf_counter() - started)
            assert event == ButtonPressed("NEXT"), event
            port.write(ecodes.KEY_KPPLUS, 0)
            time.sleep(0.12)  # a person's next press
    finally:
        keypad.close()
    return times


def tv_frames(frames: int = 60) -> tuple[list[float], list[float]]:
    """(render + write per frame, write to the page's arrival), on a real bornes web."""
    from bornes.drivers.display import open_display
    from bornes.drivers.events import KeyTyped
    from bornes.firmware.screens.render import render
    from bornes.firmware.table.flow import TableFlow
    from bornes.firmware.table.present import screen
    from tests.web.server import web_server

    base = Path(tempfile.mkdtemp(prefix="bornes-bench-tv-"))
    # The referee's runtime folder is a tmpfs (/run/bornes): the frames go to one here too.
    run = Path(tempfile.mkdtemp(prefix="bornes-bench-run-", dir="/dev/shm" if Path("/dev/shm").is_dir() else None))
    display = open_display("tv", tv_file=str(run / "tv.json"))
    flow = TableFlow(players=2, names=("Ann", "Bob"), configured=True)
    flow.handle(KeyTyped("ok"))
    drawn, arrived = [], []
    with web_server(base / "state", run / "control.sock", sections='[display]\npanel = "tv"\n') as web:
        seen: queue.Queue[tuple[int, float]] = queue.Queue()

        def listen() -> None:
            with urllib.request.urlopen(web.url + "/tv/events", timeout=60) as stream:
                kind = ""
                for raw in stream:
                    line = raw.decode().strip()
                    if line.startswith("event: "):
                        kind = line[7:]
                    elif line.startswith("data: ") and kind == "screen":
                        seen.put((json.loads(line[6:])["seq"], time.perf_counter()))

        threading.Thread(target=listen, daemon=True).start()
        time.sleep(1.0)
        for number in range(frames):
            flow.handle(KeyTyped("MB-D25-01" if number % 2 else "MB-D50-01"))  # a refusal: the message changes
            flow.ui.message = f"frame {number}"
            started = time.perf_counter()
            display.show(render(screen(flow)))
            written = time.perf_counter()
            drawn.append(written - started)
            while True:
                seq, at = seen.get(timeout=10)
                if seq == number + 1:
                    arrived.append(at - written)
                    break
            time.sleep(0.05)
    display.close()
    run.rmdir()
    return drawn, arrived


def chirps() -> tuple[float, list[float]]:
    from bornes.drivers.feedback import Pattern
    from bornes.drivers.sound import AlsaChirps, sound_card_problem, wav

    started = time.perf_counter()
    for pattern in Pattern:
        wav(pattern.steps)
    made = time.perf_counter() - started
    if sound_card_problem() == "aplay is not installed (apt install alsa-utils)":
        return made, []
    player = AlsaChirps(list(Pattern), device="null")
    runs = []
    try:
        for _ in range(20):
            begun = time.perf_counter()
            player.start(Pattern.ACCEPT)
            assert player.playing is not None
            player.playing.wait(10)
            runs.append(time.perf_counter() - begun)
    finally:
        player.close()
    return made, runs


def main() -> int:
    cost, heard = decoder_cost()
    print("| figure | measured |")
    print("|---|---|")
    print(f"| keypad decoder, per press (2000 strokes, best of 3) | {cost:.1f} µs ({heard} presses heard) |")
    presses = press_latency()
    print(f"| key down to ButtonPressed on the queue, keypad thread (p50 / p99 of {len(presses)}) | "
          f"{statistics.median(presses) * 1000:.1f} ms / {pct(presses, 0.99) * 1000:.1f} ms |")
    drawn, arrived = tv_frames()
    print(f"| tv panel: render + write tv.json (p50 / p99 of {len(drawn)}) | "
          f"{statistics.median(drawn) * 1000:.2f} ms / {pct(drawn, 0.99) * 1000:.2f} ms |")
    print(f"| tv.json written to the frame at a /tv/events page, bornes web (p50 / p99) | "
          f"{statistics.median(arrived) * 1000:.1f} ms / {pct(arrived, 0.99) * 1000:.1f} ms |")
    made, runs = chirps()
    print(f"| every pattern's WAV made (all 6 patterns) | {made * 1000:.0f} ms |")
    if runs:
        print(f"| aplay of the accept chirp on ALSA's null device, start to end (p50 of {len(runs)}) | "
              f"{statistics.median(runs) * 1000:.1f} ms |")
    else:
        print("| aplay | not installed here |")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
