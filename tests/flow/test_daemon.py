"""``bornes run`` as systemd runs it: a subprocess, a real SQLite journal, a reader on a pty.

The daemon prints ``bornes: accepted <action>`` once an action is durable. Killing it with
SIGKILL at any point and starting it again must bring back exactly the acknowledged game.
"""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest

from bornes.firmware.cli import main

BORNES = Path(sys.executable).with_name("bornes")
REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pty")

START = ["MB-CMD-OK"] * 6  # main menu, edition, players, names, dealer, rules: start

# (payloads to write, the action the daemon acknowledges)
MOVES: list[tuple[list[str], str]] = [
    (["MB-ROLL-01"], "A play MB-ROLL-01"),
    (["MB-STOP-01"], "B play MB-STOP-01"),
    (["MB-CMD-CF", "MB-RIGHTOFWAY-01"], "A coup MB-RIGHTOFWAY-01"),
    (["MB-D100-01"], "A play MB-D100-01"),
    (["MB-CMD-DISCARD", "MB-D25-01"], "B discard MB-D25-01"),
    (["MB-D100-02"], "A play MB-D100-02"),
    (["MB-CMD-DISCARD", "MB-D25-02"], "B discard MB-D25-02"),
    (["MB-D200-01"], "A play MB-D200-01"),
    (["MB-CMD-DISCARD", "MB-D25-03"], "B discard MB-D25-03"),
    (["MB-D200-02"], "A play MB-D200-02"),
]


def write_config(tmp_path: Path, port: str, extra: str = "") -> Path:
    config = tmp_path / "bornes.toml"
    config.write_text(
        f"""
[reader]
protocol = "lines"
port = "{port}"
double_read_window = 0
[display]
panel = "dummy"
[pins]
factory = "mock"
[state]
dir = "{tmp_path / 'state'}"
[control]
socket = "{tmp_path / 'control.sock'}"
[game]
edition = "winning-moves"
players = 2
names = ["Ann", "Bob"]
dealer = 1
{extra}
""",
        encoding="utf-8",
    )
    return config


class Daemon:
    """One ``bornes run`` process and the pty its reader listens on (killed after the test, pass or fail)."""

    running: ClassVar[list[subprocess.Popen[str]]] = []  # killed after each test, passed or failed

    def __init__(self, config: Path, master: int, *args: str) -> None:
        self.master = master
        self.proc = subprocess.Popen(
            [str(BORNES), "run", "--config", str(config), *args],
            stdin=subprocess.PIPE if "--emulate" in args else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
        )
        Daemon.running.append(self.proc)
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def wait_for(self, predicate: object, timeout: float = 60.0) -> str:
        """The first new output line that matches; the long default is reached only if it never comes."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out; output so far: {self.lines}")
            try:
                line = self._queue.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise AssertionError(f"the daemon exited ({self.proc.wait()}); output: {self.lines}")
            self.lines.append(line)
            if predicate(line):  # type: ignore[operator]
                return line

    def scan(self, *payloads: str) -> None:
        for payload in payloads:
            os.write(self.master, f"{payload}\r\n".encode())

    def ready(self) -> None:
        """Wait until the reader reads: a probe that is not a card is refused and logged."""
        self.wait_for(lambda line: line == "bornes: referee up")
        # Each probe is a different unknown code (no double-read filter folds them). Once one is answered the
        # reader reads, and every later probe will be answered too: wait for the last one, so that no answer
        # to a probe can come after ready() and be taken for the answer to a play.
        deadline = time.monotonic() + 60
        probe = 0
        while time.monotonic() < deadline:
            probe += 1
            self.scan(f"PING{probe}")
            try:
                answered = self.wait_for(lambda line: "Unknown card: PING" in line, timeout=0.5)
            except AssertionError:
                continue
            last = re.compile(rf"Unknown card: PING{probe}\b")
            if last.search(answered) is None:
                self.wait_for(lambda line, last=last: last.search(line) is not None)
            return
        raise AssertionError(f"the reader never read: {self.lines}")

    def acked(self) -> list[str]:
        return [line.removeprefix("bornes: accepted ") for line in self.lines if line.startswith("bornes: accepted ")]

    def play(self, moves: list[tuple[list[str], str]]) -> None:
        for payloads, expected in moves:
            self.scan(*payloads)
            line = self.wait_for(lambda text: text.startswith("bornes: accepted ") or "refused" in text)
            assert line == f"bornes: accepted {expected}"

    def kill(self, signum: int = signal.SIGKILL) -> int:
        self.proc.send_signal(signum)
        code = self.proc.wait(timeout=60)
        while True:  # collect what is left of the output, up to its end (the pump's None)
            try:
                line = self._queue.get(timeout=60)
            except queue.Empty:
                break
            if line is None:
                break
            self.lines.append(line)
        return code


@pytest.fixture(autouse=True)
def no_daemon_outlives_its_test() -> Iterator[None]:
    """A failed test left its daemon running, holding its pty and state: the next tests met it."""
    yield
    while Daemon.running:
        proc = Daemon.running.pop()
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=60)


@pytest.fixture
def pty() -> object:
    master, slave = os.openpty()
    yield master, os.ttyname(slave)
    os.close(master)
    os.close(slave)


def exported(config: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    capsys.readouterr()
    assert main(["export", "1", "--config", str(config)]) == 0
    header, _, body = capsys.readouterr().out.partition("\n\n")
    assert "winning-moves" in header
    return body.splitlines()


def test_sigterm_is_a_clean_exit(tmp_path: Path, pty: tuple[int, str]) -> None:
    master, port = pty
    daemon = Daemon(write_config(tmp_path, port), master)
    daemon.ready()
    daemon.scan(*START)
    daemon.play(MOVES[:2])
    assert daemon.kill(signal.SIGTERM) == 0
    shutdown = [line for line in daemon.lines if "shutting down" in line]
    assert shutdown == ["bornes: signal SIGTERM: shutting down"]
    assert daemon.lines[-1] == "bornes: stopped"
    stderr = daemon.proc.stderr.read() if daemon.proc.stderr else ""
    assert "Traceback" not in stderr and "Traceback" not in "\n".join(daemon.lines)


# A referee each, started twice: the fast tier kills it mid-game (6), the whole suite at four points.
@pytest.mark.parametrize("kill_after", [k if k == 6 else pytest.param(k, marks=pytest.mark.slow)
                                        for k in (1, 3, 6, 10)])
def test_sigkill_then_restart_resumes_exactly_the_acknowledged_game(
    tmp_path: Path, pty: tuple[int, str], kill_after: int, capsys: pytest.CaptureFixture[str]
) -> None:
    master, port = pty
    config = write_config(tmp_path, port)
    daemon = Daemon(config, master)
    daemon.ready()
    daemon.scan(*START)
    daemon.play(MOVES[:kill_after])
    assert daemon.kill() == -signal.SIGKILL
    acknowledged = daemon.acked()
    assert acknowledged == [notation for _, notation in MOVES[:kill_after]]
    assert exported(config, capsys) == acknowledged
    again = Daemon(config, master)
    line = again.wait_for(lambda text: "resumed game in progress" in text)
    assert line == f"bornes: resumed game in progress: hand 1, {kill_after} actions"
    again.ready()
    again.play(MOVES[kill_after : kill_after + 2])  # the table plays on where it stopped
    assert again.kill(signal.SIGTERM) == 0
    assert exported(config, capsys) == [notation for _, notation in MOVES[: kill_after + 2]]


def test_sigkill_with_inputs_in_flight_keeps_every_acknowledged_action(
    tmp_path: Path, pty: tuple[int, str], capsys: pytest.CaptureFixture[str]
) -> None:
    master, port = pty
    config = write_config(tmp_path, port)
    daemon = Daemon(config, master)
    daemon.ready()
    daemon.scan(*START)
    daemon.scan(*(payload for payloads, _ in MOVES for payload in payloads))
    daemon.wait_for(lambda text: text == f"bornes: accepted {MOVES[4][1]}")
    daemon.kill()
    acknowledged = daemon.acked()
    stored = exported(config, capsys)
    everything = [notation for _, notation in MOVES]
    assert stored[: len(acknowledged)] == acknowledged  # nothing acknowledged is lost
    assert stored == everything[: len(stored)]  # and nothing else is invented


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        ('[log]\nlevel = "loud"', "log.level"),
        ("[game.options]\nno_such_option = true", "game.options.no_such_option"),
        ("[sound]\nmuted = ", "TOML syntax error"),
    ],
)
def test_a_bad_config_is_one_line_and_exit_78(tmp_path: Path, extra: str, says: str) -> None:
    config = write_config(tmp_path, "/dev/null", extra)
    proc = subprocess.run(
        [str(BORNES), "run", "--config", str(config)], capture_output=True, text=True, timeout=120, cwd=REPO
    )
    assert proc.returncode == 78
    lines = (proc.stdout + proc.stderr).strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bornes: config ") and says in lines[0], lines
    assert "Traceback" not in proc.stderr


def test_emulate_plays_from_standard_input_and_exits_at_its_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path, "/dev/does-not-exist")
    typed = ["ok"] * 6 + ["MB-ROLL-01", "mb-stop-01", "cf", "MB-RIGHTOFWAY-01", "long ok", "MB-D100-01",
                          "discard", "MB-D25-01", "nonsense"]
    proc = subprocess.run(
        [str(BORNES), "run", "--emulate", "--config", str(config)],
        input="\n".join(typed) + "\n", capture_output=True, text=True, timeout=120, cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr
    accepted = [line for line in proc.stdout.splitlines() if line.startswith("bornes: accepted ")]
    assert accepted == [  # the emulator says who played what by name (journald keeps the notation)
        "bornes: accepted Ann: Roll (MB-ROLL-01)",
        "bornes: accepted Bob: Stop on Ann (MB-STOP-01)",
        "bornes: accepted Coup fourré! Ann: Right of Way (MB-RIGHTOFWAY-01)",
        "bornes: accepted Ann: 100 miles (MB-D100-01)",
        "bornes: accepted Bob discards 25 miles (MB-D25-01)",
    ]
    assert "bornes: refused [bad-input] Not a card or button: nonsense" in proc.stdout
    assert proc.stdout.splitlines()[-1] == "bornes: stopped"
    assert exported(config, capsys) == [notation for _, notation in MOVES[:5]]
