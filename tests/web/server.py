"""Helpers for the web tests: a real `bornes web` on loopback, a real referee loop and `bornes feed`."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from bornes.firmware.appliance.control import ControlListener
from bornes.firmware.appliance.referee import STOP, Referee
from bornes.firmware.table.flow import TableFlow

ROOT = Path(__file__).resolve().parents[2]
GAMES = ROOT / "tests" / "flow" / "games"
BORNES = [sys.executable, "-m", "bornes.firmware.cli"]
DEFAULTS: dict[str, Any] = {
    "edition": "winning-moves", "players": 4, "names": ["Anne", "Bruno", "Chloe", "David", "Emma", "Felix"],
    "dealer": 0, "options": {},
}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def feed(script: str, state_dir: Path) -> list[dict[str, Any]]:
    """Run `bornes feed` on a script through the real journal in ``state_dir``; its verdicts."""
    done = subprocess.run([*BORNES, "feed", "-", "--json", "--state-dir", str(state_dir)], input=script,
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode in (0, 1), done.stderr  # 1: some input was refused, as games scripts mean to
    result = json.loads(done.stdout)["inputs"]
    assert isinstance(result, list)
    return result


def feed_lines(name: str) -> list[str]:
    """The input lines of a tests/flow/games script, comments dropped."""
    lines = []
    for raw in (GAMES / name).read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            lines.append(line)
    return lines


def first_hand() -> list[Any]:
    """The first hand of two-players-classic.feed as input events, up to its score sheet: the starter
    rolls and drives to 700, the dealer only discards (any two names: cards do not say who)."""
    from bornes.drivers.readers.resolver import CardResolver
    from bornes.firmware.commands.feed import input_event

    resolver = CardResolver()
    lines: list[str] = []
    for raw in (GAMES / "two-players-classic.feed").read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if line.startswith("setup") or not line:
            continue
        if line == "press NEXT" and lines and lines[-1] == "press OK":
            break  # the score sheet is up
        lines.append(line)
    return [input_event(line.split(), resolver) for line in lines]


@dataclass
class Web:
    url: str
    state_dir: Path
    socket: Path
    process: subprocess.Popen[str]

    def get(self, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        request = urllib.request.Request(self.url + path, headers=headers or {})
        return _open(request)

    def post(self, path: str, body: bytes, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        request = urllib.request.Request(self.url + path, data=body, method="POST", headers={
            "content-type": "application/x-www-form-urlencoded", **(headers or {})})
        return _open(request)


def _open(request: urllib.request.Request) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


@contextmanager
def web_server(state_dir: Path, control_socket: Path, language: str = "en", web: str = "",
               sections: str = "") -> Iterator[Web]:
    """``web``: more lines of the config's [web] section (``url = "…"``); ``sections``: more sections
    (``[display]``, ``[buttons]``…).

    The free port is free when asked, not always when the server binds it (another process on the
    machine may take it in between): a server that could not bind is started again on another one.
    """
    for attempt in range(3):
        port = free_port()
        config = state_dir.parent / f"web-{port}.toml"
        config.write_text(f'[state]\ndir = "{state_dir}"\n[control]\nsocket = "{control_socket}"\n'
                          f'[table]\nlanguage = "{language}"\n[log]\nlevel = "warning"\n{sections}\n[web]\n{web}\n')
        process = subprocess.Popen([*BORNES, "web", "--config", str(config), "--host", "127.0.0.1", "--port",
                                    str(port)], cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        server = Web(f"http://127.0.0.1:{port}", state_dir, control_socket, process)
        deadline = time.monotonic() + 120  # the first start on a loaded machine imports Starlette for seconds
        while True:
            try:
                if server.get("/api/table")[0] == 200:
                    break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                if process.poll() is None:
                    process.kill()
                output = process.communicate()[0] or ""
                if "address already in use" in output.lower() and attempt < 2:
                    break
                raise AssertionError(f"bornes web did not start: {output}")
            time.sleep(0.1)
        if process.poll() is None:
            break
    try:
        yield server
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass
class Table:
    """A referee loop in this process (memory store) behind a real control socket."""

    referee: Referee
    events: queue.Queue[Any]
    socket: Path


@contextmanager
def referee_table(control_socket: Path) -> Iterator[Table]:
    events: queue.Queue[Any] = queue.Queue()
    referee = Referee(TableFlow(), events, watchdog=False)
    listener = ControlListener(control_socket, events, DEFAULTS)
    stop = threading.Event()
    loop = threading.Thread(target=referee.run, args=(stop,), daemon=True)
    loop.start()
    try:
        yield Table(referee, events, control_socket)
    finally:
        events.put(STOP)
        loop.join(5)
        listener.close()


def chromium_or_skip() -> tuple[str, str]:
    """The distribution's Chromium and chromedriver; in CI their absence is a failure, not a skip."""
    browser = shutil.which("chromium") or "/usr/bin/chromium"
    driver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    if not (Path(browser).exists() and Path(driver).exists()):
        message = "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return browser, driver


def screenshot_dir() -> Path:
    where = Path(os.environ.get("BORNES_SCREENSHOTS", ROOT / "build" / "screenshots"))
    where.mkdir(parents=True, exist_ok=True)
    return where


# -- a hostile site and a browser --------------------------------------------------------------------


@contextlib.contextmanager
def hostile_site(form: str) -> Iterator[str]:
    """A page of another origin (``localhost``, not ``127.0.0.1``) that sends ``form`` as soon as it loads."""
    page = (f"<!doctype html><html><body>{form}"
            "<script>document.forms[0].submit()</script></body></html>").encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.send_header("content-length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://localhost:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def chromium(headers: dict[str, str] | None = None, window: tuple[int, int] | None = None,
             arguments: tuple[str, ...] = ()) -> Iterator[Any]:
    """The distribution's headless Chromium; ``headers`` go with every request (a browser that
    remembers the organiser's password sends it the same way); ``window`` is its size (a phone's);
    ``arguments`` are more of its command line (the Pi's kiosk flags)."""
    binary, driver_path = chromium_or_skip()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     f"--user-data-dir={tempfile.mkdtemp(prefix='bornes-chromium-')}",
                     *([f"--window-size={window[0]},{window[1]}"] if window else []), *arguments):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    if window:
        driver.set_window_size(*window)
    driver.implicitly_wait(0)
    try:
        if headers:
            driver.execute_cdp_cmd("Network.enable", {})
            driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": headers})
        yield driver
    finally:
        driver.quit()


def head_answer(port: int, padding: int, address: str = "127.0.0.27") -> bytes:
    """The status line answering a GET whose head carries ``padding`` bytes of one header, sent in one write."""
    head = (b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + b"a" * padding + b"\r\nConnection: close\r\n\r\n")
    with socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(address, 0)) as sock:
        sock.sendall(head)
        answer = b""
        while b"\r\n" not in answer:
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk
    return answer.split(b"\r\n", 1)[0]


def browser_wait(condition: Any, timeout: float = 60.0) -> Any:
    """The condition's first true value; it returns at once when true, the bound is for a real failure."""
    from selenium.common.exceptions import WebDriverException

    deadline = time.monotonic() + timeout
    while True:
        try:
            value = condition()
        except WebDriverException:  # the page is being replaced (a form was sent): look again
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting in the browser")
        time.sleep(0.05)
