"""Bot tables scripted in advance, and a ``bornes run`` daemon driven over a pseudo-terminal.

Shared by ``python -m bench`` and ``tests/faults``. A game is scripted once, in process, by
playing the simulator's bots through a real :class:`TableFlow`: each accepted action becomes a
*step*, the reader payloads a person would tap (``MB-CMD-DISCARD`` then the card, a hazard then
``MB-CMD-NEXT``/``MB-CMD-OK`` for its target…) and the notation the daemon logs when it accepts
it. Replaying the steps on a daemon's reader needs no knowledge of the rules, and a step can be
re-sent whole after a crash, because every step starts and ends in the plain play mode.
"""

from __future__ import annotations

import compileall
import functools
import os
import queue
import random
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from bornes.drivers.readers.resolver import CardResolver
from bornes.engine.actions import Action
from bornes.engine.simulate import PhysicalTable, Simulation
from bornes.engine.state import GameSetup, GameState
from bornes.firmware.storage.store import MemoryStore
from bornes.firmware.table.bots import BotHands
from bornes.firmware.table.flow import Outcome, TableFlow, Verdict

REPO = Path(__file__).resolve().parent.parent
NAMES = ("Anne", "Bruno", "Chloe", "David", "Emma", "Felix")
#: New game, edition, players, names, dealer, start: the config's defaults through the menus. A
#: table whose config names it opens on its summary instead: the first OK starts the game and the
#: other five are ignored, so one script drives both.
SETUP_TAPS = ("MB-CMD-OK",) * 6


def bornes_command() -> list[str]:
    """The daemon as systemd starts it: the venv's ``bornes`` entry point, else ``-m bornes.firmware.cli``."""
    compile_bytecode(REPO)
    script = REPO / ".venv" / "bin" / "bornes"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "bornes.firmware.cli"]


def tree_command(tree: Path | None = None) -> list[str]:
    """``bornes`` of this venv, or of an older tree unpacked from history (``bench.baseline.materialise``'s
    root) ahead of it: both started the same way, so a comparison of the two measures the trees alone."""
    first = f"sys.path.insert(0, {str(tree)!r}); " if tree is not None else ""
    return [sys.executable, "-I", "-c", f"import sys; {first}from bornes.firmware.cli import main; sys.exit(main())"]


@functools.cache
def compile_bytecode(tree: Path) -> None:
    """Write the bytecode of ``tree``'s packages, as pip does when it installs the referee on a Pi.

    A checkout's bytecode goes stale as its files change, and where the environment says
    PYTHONDONTWRITEBYTECODE (this development machine does) nothing rewrites it: every start then
    compiled each changed module from source, 0.12 s of a 0.5 s start here, which no installed
    referee ever pays. Once per tree and process; a module already up to date costs a stat.
    """
    for name in ("engine", "drivers", "firmware"):
        if (tree / name).is_dir():
            compileall.compile_dir(tree / name, quiet=2)


class ScriptError(RuntimeError):
    """The bots needed something a reader cannot send (a long press), or the flow refused a tap."""


@dataclass(frozen=True, slots=True)
class Step:
    """The taps for one accepted action, and the notation the daemon logs once it is durable."""

    taps: tuple[str, ...]
    notation: str


@dataclass
class Script:
    """A whole game (or several), as reader payloads."""

    setup: GameSetup
    steps: list[Step] = field(default_factory=list)
    games: int = 0
    #: Index in ``steps`` just past each game's last action (its game-over).
    ends: list[int] = field(default_factory=list)

    @property
    def taps(self) -> int:
        return sum(len(step.taps) for step in self.steps)

    def notations(self) -> list[str]:
        return [step.notation for step in self.steps]


class _Scripter:
    """Plays the bots through a local flow with the shared :class:`BotHands`, recording every tap."""

    def __init__(self, flow: TableFlow) -> None:
        self.flow = flow
        self.resolver = CardResolver()
        self.taps: list[str] = []
        self.hands = BotHands(flow, self.tap, self.hold)

    def tap(self, payload: str) -> Outcome:
        self.taps.append(payload)
        outcome = self.flow.handle(self.resolver.resolve(payload))
        if outcome.refused:
            raise ScriptError(f"tap {payload} refused: {outcome.message}")
        return outcome

    def hold(self, button: str) -> Outcome:
        raise ScriptError(f"a long {button} press cannot be sent from a reader")

    def perform(self, state: GameState, action: Action) -> Outcome:
        return self.hands.perform(state, action)


def script_games(players: int = 2, seed: int = 1, games: int = 1, edition: str = "winning-moves") -> Script:
    """Script ``games`` full games back to back, as one daemon would see them.

    Tries successive seeds until every game is playable from a reader alone (no long press).
    """
    for attempt in range(seed, seed + 200):
        try:
            return _script(players, attempt, games, edition)
        except ScriptError:
            continue
    raise ScriptError(f"no playable seed from {seed} to {seed + 199}")


def _script(players: int, seed: int, games: int, edition: str) -> Script:
    names = NAMES[:players]
    flow = TableFlow(edition=edition, players=players, names=names, dealer=0, store=MemoryStore())
    scripter = _Scripter(flow)
    rng = random.Random(seed)
    script: Script | None = None
    for number in range(games):
        if number:
            scripter.tap("MB-CMD-OK")  # leave the game-over screen
        for payload in SETUP_TAPS:
            scripter.tap(payload)
        game = flow.game
        if game is None:
            raise ScriptError("the setup menus did not start a game")
        if script is None:
            script = Script(game.setup)
        sim = Simulation(game.setup, rng)
        physical = PhysicalTable(game.setup, rng)
        physical.new_hand(game.state.hand.dealer)
        while not game.state.over:
            state = game.state
            action = sim.next_action(state, physical)
            if action is None:
                raise ScriptError("a bot found nothing to do")
            outcome = scripter.perform(state, action)
            if outcome.verdict is not Verdict.ACCEPTED or outcome.action is None:
                raise ScriptError(f"{action.notation()}: {outcome.verdict} {outcome.message}")
            sim.record(state, game.state, physical, action, ())
            script.steps.append(Step(tuple(scripter.taps), outcome.action.notation()))
            scripter.taps = []
        script.games += 1
        script.ends.append(len(script.steps))
    assert script is not None
    return script


# -- a daemon on a pseudo-terminal -----------------------------------------------------------------


def write_config(directory: Path, port: Path, *, players: int = 2, state: Path | None = None,
                 protocol: str = "lines", extra: str = "", max_backoff: float = 0.5) -> Path:
    """A test config: dummy panel, mock pins, the pty as the reader, no double-read window.

    The control socket is in ``directory``: the default, /run/bornes/control.sock, is the machine's
    one referee's, and a second daemon there takes it over (two tests at once, or a Pi's own referee).
    """
    names = ", ".join(f'"{name}"' for name in NAMES[:players])
    text = (
        f'[reader]\nprotocol = "{protocol}"\nport = "{port}"\ndouble_read_window = 0\nmax_backoff = {max_backoff}\n'
        '[display]\npanel = "dummy"\n'
        '[pins]\nfactory = "mock"\n'
        f'[state]\ndir = "{state or directory / "state"}"\n'
        f'[control]\nsocket = "{directory / "control.sock"}"\n'
        f"[game]\nplayers = {players}\nnames = [{names}]\n"
        f"{extra}"
    )
    path = directory / "config.toml"
    path.write_text(text)
    return path


class Pty:
    """A pseudo-terminal behind a stable symlink, like udev's ``/dev/bornes-reader``.

    ``unplug()`` closes the master and removes the link; ``plug()`` makes a new pty and relinks.
    """

    def __init__(self, link: Path) -> None:
        self.link = link
        self.master: int | None = None
        self.slave: int | None = None
        self.plug()

    def plug(self) -> None:
        self.master, self.slave = os.openpty()
        temp = self.link.with_name(self.link.name + ".new")
        temp.unlink(missing_ok=True)
        os.symlink(os.ttyname(self.slave), temp)
        os.replace(temp, self.link)

    def unplug(self) -> None:
        self.link.unlink(missing_ok=True)
        for fd in (self.slave, self.master):  # our slave first, or the reader's end never sees the hangup
            if fd is not None:
                os.close(fd)
        self.master = self.slave = None

    def write(self, data: bytes) -> None:
        assert self.master is not None, "unplugged"
        os.write(self.master, data)

    def tap(self, payload: str) -> None:
        self.write(payload.encode("ascii") + b"\r\n")

    def close(self) -> None:
        if self.master is not None:
            self.unplug()


#: How long a wait for the daemon may last: each returns at its line, so this is reached only when the
#: line never comes; it is long because a loaded 2-core CI machine can take seconds to start Python.
WAIT = 60.0

_ACCEPTED = re.compile(r"^bornes: accepted (.*)$")


class Daemon:
    """``bornes run --config CFG`` in a subprocess; its log lines arrive on a queue."""

    #: Every daemon started and not yet waited for: :func:`kill_leftovers` ends them.
    running: ClassVar[list[subprocess.Popen[str]]] = []

    def __init__(self, config: Path, *, env: dict[str, str] | None = None, command: Sequence[str] | None = None,
                 cwd: Path = REPO) -> None:
        """``command`` starts another tree's ``bornes`` (:func:`tree_command`); the default is this venv's."""
        argv = [*(command or bornes_command()), "run", "--config", str(config)]
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            cwd=cwd,
            env={**os.environ, **(env or {})},
        )
        Daemon.running.append(self.process)
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.log: list[str] = []
        self._reader = threading.Thread(target=self._pump, daemon=True)
        self._reader.start()

    @property
    def pid(self) -> int:
        return self.process.pid

    def _pump(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def wait_for(self, want: Callable[[str], bool], timeout: float = WAIT) -> str:
        """The next log line that ``want`` accepts; raise if the daemon dies or goes quiet first."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no matching line within {timeout} s; last lines: {self.log[-5:]}")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise RuntimeError(f"the daemon exited ({self.process.wait()}); last lines: {self.log[-5:]}")
            self.log.append(line)
            if "Traceback" in line or "internal error" in line:
                raise RuntimeError(f"the daemon failed: {line}")
            if want(line):
                return line

    def wait_up(self, timeout: float = WAIT) -> str:
        return self.wait_for(lambda line: line.endswith("referee up"), timeout)

    def wait_accepted(self, timeout: float = WAIT) -> str:
        line = self.wait_for(lambda text: text.startswith(("bornes: accepted", "bornes: refused")), timeout)
        match = _ACCEPTED.match(line)
        if match is None:
            raise RuntimeError(f"the daemon refused a scripted tap: {line}")
        return match.group(1)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self._reader.join(5)

    def stop(self, timeout: float = WAIT) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout)
        self._reader.join(5)
        return code


def kill_leftovers() -> int:
    """Kill every daemon still running (a failed check left it holding its pty and state folder);
    how many there were."""
    killed = 0
    while Daemon.running:
        process = Daemon.running.pop()
        if process.poll() is None:
            process.kill()
            process.wait(timeout=60)
            killed += 1
    return killed


def play(daemon: Daemon, pty: Pty, steps: list[Step], timeout: float = WAIT) -> list[str]:
    """Tap every step and wait for each acknowledgement; the acknowledged notations, in order."""
    acked = []
    for step in steps:
        for payload in step.taps:
            pty.tap(payload)
        got = daemon.wait_accepted(timeout)
        if got != step.notation:
            raise RuntimeError(f"the daemon accepted {got!r}, the script meant {step.notation!r}")
        acked.append(got)
    return acked


def rss_kib(pid: int, field_name: str = "VmRSS") -> int:
    """A /proc/<pid>/status memory figure, in KiB (VmRSS now, VmHWM the peak)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field_name + ":"):
            return int(line.split()[1])
    raise KeyError(field_name)


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, from /proc/<pid>/stat."""
    text = Path(f"/proc/{pid}/stat").read_text()
    fields = text[text.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def daemon_on_pty(directory: Path, *, players: int = 2, env: dict[str, str] | None = None,
                  extra: str = "") -> Iterator[tuple[Daemon, Pty, Path]]:
    """A daemon reading a pty in ``directory``, up and ready; stopped (or killed) on exit."""
    pty = Pty(directory / "reader")
    config = write_config(directory, pty.link, players=players, extra=extra)
    daemon = Daemon(config, env=env)
    try:
        daemon.wait_up()
        yield daemon, pty, config
    finally:
        try:
            daemon.stop()
        except subprocess.TimeoutExpired:
            daemon.kill()
        pty.close()
