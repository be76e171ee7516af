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

import contextlib
import errno
import json
import queue
import statistics
import subprocess
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


def strokes(count: int) -> list[Any]:
    """The kernel's events for ``count`` presses on a numeric keypad, a person's pace: each key held
    0.15 s (the kernel's autorepeat after 0.25 s on the held ones), 0.4 s between presses."""
    from evdev import InputEvent, ecodes

    keys = [ecodes.KEY_KPPLUS, ecodes.KEY_KPMINUS, ecodes.KEY_KPENTER, ecodes.KEY_KP0, ecodes.KEY_KPDOT, ecodes.KEY_KP3]
    events, now = [], 1000.0

    def put(code: int, value: int) -> None:
        events.append(InputEvent(int(now), round((now - int(now)) * 1e6), ecodes.EV_KEY, code, value))

    for n in range(count):
        code = keys[n % len(keys)]
        now += 0.4
        down, held = now, 1.3 if n % 10 == 0 else 0.15  # one press in ten is a hold
        put(code, 1)
        repeat = down + 0.25
        while repeat < down + held:
            now = repeat
            put(code, 2)
            repeat += 0.033
        now = down + held
        put(code, 0)
    return events


def decoder_cost(presses: int) -> tuple[float, int]:
    from bornes.drivers.keypad import KEYMAPS, KeypadDecoder

    events = strokes(presses)
    best, heard = float("inf"), 0
    for _ in range(3):
        decoder = KeypadDecoder(KEYMAPS["numpad"])
        started = time.perf_counter()
        out = decoder.feed(events)
        out += decoder.poll(events[-1].timestamp() + 10)
        best = min(best, time.perf_counter() - started)
        heard = len(out)
    return best / presses * 1e6, heard


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


def _web(config: Path, port: int) -> subprocess.Popen[bytes]:
    """A real ``bornes web`` on loopback, started and answering."""
    server = subprocess.Popen([sys.executable, "-m", "bornes.firmware.cli", "web", "--config", str(config),
                               "--host", "127.0.0.1", "--port", str(port)], cwd=ROOT)
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=2).read()
            return server
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                server.kill()
                raise RuntimeError("bornes web did not start") from None
            time.sleep(0.1)


def tv_frames(frames: int) -> tuple[list[float], list[float]]:
    """(render + write per frame, write to the page's arrival), on a real bornes web."""
    import socket

    from bornes.drivers.display import open_display
    from bornes.drivers.events import KeyTyped
    from bornes.firmware.screens.render import render
    from bornes.firmware.table.flow import TableFlow
    from bornes.firmware.table.present import screen

    base = Path(tempfile.mkdtemp(prefix="bornes-bench-tv-"))
    # The referee's runtime folder is a tmpfs (/run/bornes): the frames go to one here too.
    run = Path(tempfile.mkdtemp(prefix="bornes-bench-run-", dir="/dev/shm" if Path("/dev/shm").is_dir() else None))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    (base / "state").mkdir()
    config = base / "web.toml"
    config.write_text(f'[state]\ndir = "{base / "state"}"\n[control]\nsocket = "{run / "control.sock"}"\n'
                      '[display]\npanel = "tv"\n[log]\nlevel = "warning"\n')
    display = open_display("tv", tv_file=str(run / "tv.json"))
    flow = TableFlow(players=2, names=("Ann", "Bob"), configured=True)
    flow.handle(KeyTyped("ok"))
    drawn, arrived = [], []
    server = _web(config, port)
    try:
        seen: queue.Queue[tuple[int, float]] = queue.Queue()
        page = socket.create_connection(("127.0.0.1", port), timeout=60)  # the page: a plain HTTP/1.1 stream
        page.sendall(b"GET /tv/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")

        def listen() -> None:
            kind = ""
            with contextlib.suppress(OSError), page.makefile("rb") as stream:  # shut down at the end: that ends it
                for raw in stream:
                    line = raw.decode(errors="replace").strip()
                    if line.startswith("event: "):
                        kind = line[7:]
                    elif line.startswith("data: ") and kind == "screen":
                        seen.put((json.loads(line[6:])["seq"], time.perf_counter()))

        threading.Thread(target=listen, daemon=True).start()
        time.sleep(1.0)
        for number in range(frames):
            flow.ui.message = f"frame {number}"  # a new message: a new frame
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
        page.shutdown(socket.SHUT_RDWR)  # the page goes: its reader ends, and the server stops at once
        page.close()
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        display.close()
        run.rmdir()
    return drawn, arrived


def chirps(plays: int = 20) -> tuple[float, list[float]]:
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
        for _ in range(plays):
            begun = time.perf_counter()
            player.start(Pattern.ACCEPT)
            assert player.playing is not None
            player.playing.wait(10)
            runs.append(time.perf_counter() - begun)
    finally:
        player.close()
    return made, runs


def rows(presses: int = 2000, live_presses: int = 100, frames: int = 60,
         plays: int = 20) -> list[tuple[str, str, str, bool | None]]:
    """The part's rows: (figure, measured, budget, met)."""
    out: list[tuple[str, str, str, bool | None]] = []
    cost, heard = decoder_cost(presses)
    out.append((f"keypad decoder, per press ({presses} strokes, best of 3)", f"{cost:.1f} µs ({heard} heard)",
                "—", None))
    live = press_latency(live_presses)
    p99 = pct(live, 0.99)
    out.append((f"key down to ButtonPressed on the queue, keypad thread (p50 / p99 of {len(live)}; 50 ms by design)",
                f"{statistics.median(live) * 1000:.1f} ms / {p99 * 1000:.1f} ms", "p99 ≤ 100 ms", p99 <= 0.1))
    drawn, arrived = tv_frames(frames)
    out.append((f"tv panel: render + write tv.json on a tmpfs (p50 / p99 of {len(drawn)})",
                f"{statistics.median(drawn) * 1000:.2f} ms / {pct(drawn, 0.99) * 1000:.2f} ms", "—", None))
    late = pct(arrived, 0.99)
    out.append(("tv.json written to the frame at a /tv/events page, bornes web (p50 / p99)",
                f"{statistics.median(arrived) * 1000:.1f} ms / {late * 1000:.1f} ms", "p99 ≤ 100 ms", late <= 0.1))
    made, runs = chirps(plays)
    out.append(("every chirp's WAV made (6 patterns, the standard library's wave)", f"{made * 1000:.0f} ms", "—", None))
    out.append((f"aplay of the accept chirp on ALSA's null device, start to end (p50 of {plays})",
                f"{statistics.median(runs) * 1000:.1f} ms" if runs else "aplay not installed", "—", None))
    return out


def main() -> int:
    print("| figure | measured | budget | met? |")
    print("|---|---|---|---|")
    for figure, measured, budget, met in rows():
        print(f"| {figure} | {measured} | {budget} | {'' if met is None else 'yes' if met else 'NO'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
