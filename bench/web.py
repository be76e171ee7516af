"""The web budgets: a tap's durable write to the update in a page, the web process's memory and idle
CPU with three pages open, journal reads against commits, and fifty pages at once.

A real `bornes web` runs on loopback; pages are raw server-sent-event readers (the bytes a browser
gets). The bench process is the referee's stand-in: it appends a recorded game's actions to the real
journal one at a time, and times each from the moment ``Journal.append`` returned (durable) to the
moment each page has the update.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from bornes.engine.record import read_record, write_header
from bornes.firmware.storage.journal import Journal

ROOT = Path(__file__).resolve().parent.parent
RECORD = ROOT / "tests" / "engine" / "records" / "winning-moves-2p.record"
PACE = 0.02  # seconds between appends: faster than any table taps, slow enough not to measure a queue


class Page(threading.Thread):
    """One connected page: the time each action count first arrived."""

    def __init__(self, port: int, phone: int = 1) -> None:
        super().__init__(daemon=True)
        self.arrived: dict[int, float] = {}
        self.ready = threading.Event()
        self.port = port
        # Each page from a phone of its own (all of 127.0.0.0/8 is loopback): one phone may hold only a few.
        self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60,
                                                     source_address=(f"127.0.1.{phone}", 0))

    def run(self) -> None:
        self.connection.request("GET", "/events")
        response = self.connection.getresponse()
        self.ready.set()
        with contextlib.suppress(OSError, ValueError):
            while True:
                line = response.fp.readline()
                if not line:
                    return
                if line.startswith(b"data: "):
                    count = json.loads(line[6:])["actions"]
                    self.arrived.setdefault(count, time.perf_counter())

    def close(self) -> None:
        sock = self.connection.sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        self.join(5)


def _port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _get(port: int, path: str) -> dict[str, object]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as response:
        result = json.loads(response.read())
    assert isinstance(result, dict)
    return result


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    import os

    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _status_kib(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


@dataclass
class WebFigures:
    latencies_ms: list[float]
    rss_mb: float
    hwm_mb: float
    idle_cpu_percent: float
    idle_seconds: float
    idle_reads: int
    commits: int
    reads: int
    fifty_complete: int
    fifty_updates: int
    fifty_p99_ms: float
    browser_ms: list[float] | None


def browser_latency(port: int, journal: Journal, game_id: int, start: int, actions: list[str]) -> list[float] | None:
    """Milliseconds from each durable write to the live page's table replaced in Chromium's DOM.

    Both ends read the same wall clock (``time.time()`` here, ``performance.timeOrigin + now()`` in
    the page). None when Debian's chromium, chromedriver or selenium is missing.
    """
    import shutil

    browser, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if browser is None or driver_path is None:
        return None
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        return None
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for argument in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     f"--user-data-dir={tempfile.mkdtemp(prefix='bornes-bench-chromium-')}", "--window-size=390,844"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        driver.get(f"http://127.0.0.1:{port}/")
        driver.execute_script(
            "window.arrivals = [];"
            "new MutationObserver(() => { const t = document.getElementById('table');"
            " if (t) arrivals.push([Number(t.dataset.actions), performance.timeOrigin + performance.now()]); })"
            ".observe(document.querySelector('main'), {childList: true});")
        time.sleep(0.5)
        written: dict[int, float] = {}
        for offset, line in enumerate(actions):
            journal.append(game_id, start + offset, line)
            written[start + offset + 1] = time.time() * 1000
            time.sleep(PACE * 5)
        time.sleep(1.0)
        arrived: dict[int, float] = {}
        for count, at in driver.execute_script("return window.arrivals"):
            arrived.setdefault(int(count), float(at))
    finally:
        driver.quit()
    return sorted(arrived.get(count, float("inf")) - at for count, at in written.items())


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def measure(idle_seconds: float = 30.0, appends: int = 120) -> WebFigures:
    setup, lines = read_record(RECORD.read_text())
    actions = [line.text for line in lines][:appends]
    with tempfile.TemporaryDirectory(prefix="bornes-web-bench-") as scratch:
        state = Path(scratch) / "state"
        journal = Journal.open(state)
        game_id = journal.new_game(write_header(setup))
        port = _port()
        config = Path(scratch) / "web.toml"
        config.write_text(f'[state]\ndir = "{state}"\n[control]\nsocket = "{scratch}/control.sock"\n'
                          '[log]\nlevel = "warning"\n')
        server = subprocess.Popen([sys.executable, "-m", "bornes.firmware.cli", "web", "--config", str(config),
                                   "--host", "127.0.0.1", "--port", str(port)], cwd=ROOT)
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    _get(port, "/api/health")
                    break
                except OSError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        raise RuntimeError("bornes web did not start") from None
                    time.sleep(0.1)
            # 1. Three pages open; a tap's durable write to the update on each page.
            pages = [Page(port, 100 + i) for i in range(3)]
            for page in pages:
                page.start()
                page.ready.wait(10)
            time.sleep(0.3)
            reads_before = int(_get(port, "/api/health")["journal_reads"])  # type: ignore[call-overload]
            written: dict[int, float] = {}
            for seq, line in enumerate(actions):
                journal.append(game_id, seq, line)
                written[seq + 1] = time.perf_counter()
                time.sleep(PACE)
            time.sleep(1.0)
            latencies = [
                (page.arrived[count] - at) * 1000
                for page in pages for count, at in written.items() if count in page.arrived
            ]
            missing = sum(1 for page in pages for count in written if count not in page.arrived)
            if missing:
                latencies += [float("inf")] * missing
            reads = int(_get(port, "/api/health")["journal_reads"]) - reads_before  # type: ignore[call-overload]
            # 2. Idle with the three pages still open: CPU, memory, and journal reads (should be none).
            time.sleep(1.0)
            idle_reads_before = int(_get(port, "/api/health")["journal_reads"])  # type: ignore[call-overload]
            cpu_before, started = _cpu_seconds(server.pid), time.monotonic()
            time.sleep(idle_seconds)
            cpu = _cpu_seconds(server.pid) - cpu_before
            elapsed = time.monotonic() - started
            idle_reads = int(_get(port, "/api/health")["journal_reads"]) - idle_reads_before  # type: ignore[call-overload]
            rss = _status_kib(server.pid, "VmRSS") / 1024
            for page in pages:
                page.close()
            # 3. Fifty pages at once, twenty more actions: does every page get every update?
            crowd = [Page(port, phone) for phone in range(1, 51)]
            for page in crowd:
                page.start()
            for page in crowd:
                page.ready.wait(10)
            time.sleep(0.5)
            base = len(actions)
            more = [line.text for line in lines][base:base + 20]
            crowd_written: dict[int, float] = {}
            for offset, line in enumerate(more):
                journal.append(game_id, base + offset, line)
                crowd_written[base + offset + 1] = time.perf_counter()
                time.sleep(PACE * 5)
            time.sleep(1.5)
            complete = sum(1 for page in crowd if all(count in page.arrived for count in crowd_written))
            crowd_latencies = sorted((page.arrived.get(count, float("inf")) - at) * 1000
                                     for page in crowd for count, at in crowd_written.items())
            for page in crowd:
                page.close()
            hwm = _status_kib(server.pid, "VmHWM") / 1024  # the peak, fifty pages included
            # 4. In a real browser: the live page's table replaced in the DOM after each durable write.
            start = base + len(more)
            rest = [line.text for line in lines][start:start + 100]
            browser_ms = browser_latency(port, journal, game_id, start, rest)
        finally:
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
            journal.close()
    return WebFigures(sorted(latencies), rss, hwm, 100 * cpu / elapsed, elapsed, idle_reads, len(actions), reads,
                      complete, len(more), quantile(crowd_latencies, 0.99), browser_ms)


def web_rows(idle_seconds: float, appends: int = 120) -> list[tuple[str, str, str, bool | None]]:
    """The bench table's rows: (figure, measured, budget, met)."""
    f = measure(idle_seconds=idle_seconds, appends=appends)
    p50, p99 = quantile(f.latencies_ms, 0.5), quantile(f.latencies_ms, 0.99)
    browser_row: tuple[str, str, str, bool | None]
    if f.browser_ms:
        b50, b99 = quantile(f.browser_ms, 0.5), quantile(f.browser_ms, 0.99)
        browser_row = (f"web: durable write to the table redrawn in Chromium, {len(f.browser_ms)} taps (p50 / p99)",
                       f"{b50:.2f} ms / {b99:.2f} ms", "p99 ≤ 100 ms", b99 <= 100)
    else:
        browser_row = ("web: durable write to the table redrawn in Chromium", "not measured (no chromium)",
                       "p99 ≤ 100 ms", None)
    return [
        browser_row,
        (f"web: durable write to the update in 3 pages, {f.commits} taps (p50 / p99)",
         f"{p50:.2f} ms / {p99:.2f} ms", "p99 ≤ 100 ms", p99 <= 100),
        ("web: process RSS with 3 pages open / peak with 50", f"{f.rss_mb:.1f} MB / {f.hwm_mb:.1f} MB",
         "≤ 40 MB", f.hwm_mb <= 40),
        (f"web: idle CPU over {f.idle_seconds:.0f} s with 3 pages open", f"{f.idle_cpu_percent:.2f} % of a core",
         "≤ 0.5 %", f.idle_cpu_percent <= 0.5),
        ("web: journal reads per commit / reads while idle", f"{f.reads}/{f.commits} / {f.idle_reads}",
         "≤ 1 / 0", f.reads <= f.commits and f.idle_reads == 0),
        (f"web: 50 pages at once, each got all {f.fifty_updates} updates (p99 latency)",
         f"{f.fifty_complete}/50 ({f.fifty_p99_ms:.1f} ms)", "50/50", f.fifty_complete == 50),
    ]
