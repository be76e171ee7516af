"""Helpers for the web tests: a real `bornes web` on loopback, a real referee loop and `bornes feed`."""

from __future__ import annotations

import json
import os
import queue
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bornes.firmware.control import ControlListener
from bornes.firmware.flow import TableFlow
from bornes.firmware.referee import STOP, Referee

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
def web_server(state_dir: Path, control_socket: Path, language: str = "en") -> Iterator[Web]:
    port = free_port()
    config = state_dir.parent / f"web-{port}.toml"
    config.write_text(f'[state]\ndir = "{state_dir}"\n[control]\nsocket = "{control_socket}"\n'
                      f'[table]\nlanguage = "{language}"\n[log]\nlevel = "warning"\n')
    process = subprocess.Popen([*BORNES, "web", "--config", str(config), "--host", "127.0.0.1", "--port", str(port)],
                               cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    web = Web(f"http://127.0.0.1:{port}", state_dir, control_socket, process)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                if web.get("/api/table")[0] == 200:
                    break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                output = process.stdout.read() if process.stdout else ""
                raise AssertionError(f"bornes web did not start: {output}")
            time.sleep(0.1)
        yield web
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
