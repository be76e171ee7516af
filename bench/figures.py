"""The figures that need a whole daemon or a whole command: idle CPU, start to READY, memory,
recovery and engine throughput. Each one is measured, never estimated."""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.compiled import require_python_engine
from bench.driver import (
    NAMES,
    Daemon,
    Pty,
    Script,
    Step,
    bornes_command,
    cpu_seconds,
    daemon_on_pty,
    play,
    rss_kib,
    write_config,
)
from bornes.engine.actions import parse_action
from bornes.engine.game import Game
from bornes.engine.state import GameSetup
from bornes.firmware.storage.journal import Journal
from bornes.firmware.storage.store import JournalStore
from bornes.firmware.table.flow import TableFlow


def idle_cpu(seconds: float, settle: float = 2.0) -> float:
    """Percent of one core the daemon uses while nobody plays (mock pins, a silent pty reader)."""
    with tempfile.TemporaryDirectory(prefix="bornes-idle-") as scratch, daemon_on_pty(Path(scratch)) as (daemon, *_):
        time.sleep(settle)  # let start-up work (imports, first frame) finish
        before, started = cpu_seconds(daemon.pid), time.monotonic()
        time.sleep(seconds)
        used, elapsed = cpu_seconds(daemon.pid) - before, time.monotonic() - started
    return 100.0 * used / elapsed


def start_to_ready(runs: int, command: Sequence[str] | None = None) -> list[float]:
    """Seconds from Popen to the READY=1 datagram on a fake $NOTIFY_SOCKET, once per run; ``command``
    starts another tree's ``bornes`` (``bench.driver.tree_command``), by default this venv's."""
    times = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="bornes-ready-") as scratch:
            where = Path(scratch)
            sock_path = where / "notify.sock"
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            listener.bind(str(sock_path))
            listener.settimeout(15)
            pty = Pty(where / "reader")
            config = write_config(where, pty.link)
            daemon = Daemon(config, env={"NOTIFY_SOCKET": str(sock_path)}, command=command, cwd=where)
            try:
                while True:
                    message = listener.recv(4096).decode()
                    if "READY=1" in message.splitlines():
                        times.append(time.perf_counter() - daemon.started)
                        break
            finally:
                daemon.stop()
                listener.close()
                pty.close()
    return times


#: Games a soak plays before its per-game slope can be judged (see :attr:`Soak.judges_the_slope`).
SLOPE_WARM_UP = 50


@dataclass
class Soak:
    """Memory of the daemon over several full games."""

    games: int
    actions: int
    rss_after_first: int  # KiB
    rss_after_last: int
    peak: int
    seconds: float
    rss_after_each: list[int] = field(default_factory=list)  # KiB, after game 1, 2, …
    #: Games before the per-game slope is taken (imports, the engine's bounded caches, allocator arenas): a
    #: quarter of them, so 200 games are judged over games 51–200.
    warm_up: int = 2

    @property
    def judges_the_slope(self) -> bool:
        """Whether this soak is long enough for its per-game slope to say leak or no leak: the caches are
        still filling until about game 50 (the 200-game curve climbs +3.3 KiB a game over games 20–50 and
        +1.6 after), so the slope is judged only from :data:`SLOPE_WARM_UP` games on, over as many again."""
        return self.warm_up >= SLOPE_WARM_UP and self.games - self.warm_up >= SLOPE_WARM_UP

    @property
    def growth(self) -> int:
        return self.rss_after_last - self.rss_after_first

    @property
    def per_game(self) -> float:
        """KiB of RSS gained per game after the warm-up (least-squares slope; 0 means no leak)."""
        points = list(enumerate(self.rss_after_each))[self.warm_up:]
        if len(points) < 2:
            return float("nan")
        mean_x = sum(x for x, _ in points) / len(points)
        mean_y = sum(y for _, y in points) / len(points)
        spread = sum((x - mean_x) ** 2 for x, _ in points)
        return sum((x - mean_x) * (y - mean_y) for x, y in points) / spread

    def curve(self) -> str:
        """RSS after each game, as numbers; a long soak shows every tenth game and the last."""
        step = 1 if len(self.rss_after_each) <= 20 else 10
        shown = [(n, kib) for n, kib in enumerate(self.rss_after_each, 1) if n == 1 or n % step == 0]
        if shown[-1][0] != len(self.rss_after_each):
            shown.append((len(self.rss_after_each), self.rss_after_each[-1]))
        return " ".join(f"{kib}" if step == 1 else f"#{n} {kib}" for n, kib in shown)


def soak(script: Script, rounds: int = 1) -> Soak:
    """Play every game of ``script``, ``rounds`` times over, through one daemon; VmRSS after each game.

    The table flow is deterministic, so a round replays the same games: only the OK that leaves
    the last game-over screen is added in front of the next round.
    """
    with tempfile.TemporaryDirectory(prefix="bornes-soak-") as scratch, \
            daemon_on_pty(Path(scratch), players=script.setup.seats) as (daemon, pty, _config):
        started = time.perf_counter()
        after_each = []
        for round_number in range(rounds):
            steps = list(script.steps)
            if round_number:
                steps[0] = Step(("MB-CMD-OK", *steps[0].taps), steps[0].notation)
            previous = 0
            for end in script.ends:
                play(daemon, pty, steps[previous:end])
                previous = end
                time.sleep(0.2)  # the game-over frame is drawn after the ack
                after_each.append(rss_kib(daemon.pid))
        peak = rss_kib(daemon.pid, "VmHWM")
        elapsed = time.perf_counter() - started
    return Soak(script.games * rounds, len(script.steps) * rounds, after_each[0], after_each[-1], peak, elapsed,
                after_each, warm_up=max(min(SLOPE_WARM_UP, len(after_each) // 2), len(after_each) // 4))


def recovery(script: Script, runs: int = 5) -> tuple[int, list[float]]:
    """Resume a whole game's history from the journal: the game held one action short of its end.

    Returns the number of actions replayed and the seconds of each run of
    ``JournalStore(Journal.open(dir)).resume()`` (the open's integrity check included).
    """
    lines = script.notations()[: script.ends[0] - 1]
    setup = script.setup
    times = []
    with tempfile.TemporaryDirectory(prefix="bornes-recovery-") as scratch:
        with Journal.open(scratch) as journal:
            flow = TableFlow(edition=setup.edition, players=setup.seats, names=NAMES[: setup.seats],
                             store=JournalStore(journal))
            flow.start_game(setup)
            game = flow.game
            assert game is not None
            for line in lines:
                action = parse_action(line)
                flow.store.append(game, action)
                game.push(action)
        expected = Game(setup, [parse_action(line) for line in lines]).state
        for _ in range(runs):
            started = time.perf_counter()
            journal = Journal.open(scratch)
            resumed = JournalStore(journal).resume()
            times.append(time.perf_counter() - started)
            journal.close()
            if resumed is None or resumed.state != expected:
                raise RuntimeError("the journal did not resume the game it holds")
    return len(lines), times


def simulate_rate(players: int, hands: int) -> tuple[float, float]:
    """``bornes simulate`` hands per second, as the command itself reports it: by the wall clock
    and by its own CPU time (which time taken by other processes on a shared machine does not move)."""
    out = subprocess.run(
        [*bornes_command(), "simulate", "--players", str(players), "--hands", str(hands), "--seed", "1", "--json"],
        capture_output=True, text=True, check=True, env={**os.environ},
    )
    summary = json.loads(out.stdout)
    return float(summary["hands_per_second"]), float(summary["hands_per_cpu_second"])


def engine_replay_rate(players: int, hands: int) -> float:
    """The engine alone: the hands ``bornes simulate`` played, replayed from their logs (no bots, no checks)."""
    from bornes.engine.game import Game
    from bornes.engine.simulate import simulate
    from bornes.engine.state import GameSetup

    setup = GameSetup.create("winning-moves", [f"P{i + 1}" for i in range(players)])
    report = simulate(setup, hands, seed=1)
    logs = [game.log for game in report.games_played]
    started = time.process_time()  # CPU time: the machine is shared
    for log in logs:
        Game(setup, log)
    return report.hands / (time.process_time() - started)


@dataclass
class SimulateSplit:
    """Where one ``bornes simulate`` action's time goes, in µs."""

    actions: int
    total: float
    legal: float  # the bots asking the engine for every legal play of their hand
    referee: float  # Game.push: validate and apply
    check: float  # the invariant check of the referee against the physical cards

    @property
    def rest(self) -> float:
        return self.total - self.legal - self.referee - self.check


def simulate_split(players: int, hands: int) -> SimulateSplit:
    """Time the three parts of a simulate action by wrapping them, the way a profiler would but
    without a profiler's overhead on every call (a wrapper costs ~0.2 µs an action)."""
    from unittest import mock

    require_python_engine("the simulate split")

    import bornes.engine.simulate
    from bornes.engine.rules import apply, legal_actions, turn_options
    from bornes.engine.state import GameSetup

    spent = {"legal": 0.0, "referee": 0.0, "check": 0.0}

    def timed(part: str, function: Any) -> Any:
        def wrapper(*args: Any) -> Any:
            started = time.perf_counter()
            try:
                return function(*args)
            finally:
                spent[part] += time.perf_counter() - started
        return wrapper

    setup = GameSetup.create("winning-moves", [f"P{i + 1}" for i in range(players)])
    with (
        mock.patch("bornes.engine.simulate.legal_actions", timed("legal", legal_actions)),
        mock.patch("bornes.engine.simulate.turn_options", timed("legal", turn_options)),  # the bot's turn
        mock.patch("bornes.engine.game.apply", timed("referee", apply)),
        mock.patch.object(
            bornes.engine.simulate.Simulation, "check", timed("check", bornes.engine.simulate.Simulation.check)
        ),
        mock.patch.object(
            bornes.engine.simulate.Simulation,
            "check_step",
            timed("check", bornes.engine.simulate.Simulation.check_step),
        ),
    ):
        started = time.perf_counter()
        report = bornes.engine.simulate.simulate(setup, hands, seed=1)
        total = time.perf_counter() - started
    per = 1e6 / report.actions
    return SimulateSplit(report.actions, total * per, spent["legal"] * per, spent["referee"] * per,
                         spent["check"] * per)


#: Runs inside the measured tree's interpreter: argv is (tree root or "", package prefix, turns file, players,
#: hands). It plays the same seeded hands, rebuilds each recorded turn's state by replaying the games' logs
#: (no call is patched, so a compiled engine is measured as it is), and times legal_actions on them all.
_LEGAL_DRIVER = r"""
import hashlib, importlib, json, random, sys, time
root, prefix, turns_file, players, hands = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
if root:
    sys.path.insert(0, root)
engine = lambda name: importlib.import_module(prefix + "engine." + name)
setup = engine("state").GameSetup.create("winning-moves", [f"P{i + 1}" for i in range(players)])
games = engine("simulate").Simulation(setup, random.Random(1)).run(hands).games_played
turns = json.load(open(turns_file, encoding="utf-8"))
played = hashlib.sha256("|".join(a.notation() for g in games for a in g.log).encode()).hexdigest()
if played != turns["games"]:
    print(json.dumps({"same_games": False}))
    sys.exit(0)
Game, Card = engine("game").Game, engine("cards").Card
states = {}
for g, game in enumerate(games):
    replay = Game(setup)
    for i, action in enumerate([*game.log, None]):
        states[g, i] = replay.state
        if action is not None:
            replay.push(action)
calls = [(states[g, i], seat, [Card.from_code(c) for c in cards]) for g, i, seat, cards in turns["turns"]]
legal_actions = engine("rules").legal_actions
best = float("inf")
for _ in range(5):
    started = time.process_time()  # CPU time: the machine is shared
    for state, seat, cards in calls:
        legal_actions(state, seat, cards)  # every kind of action, as a screen or a bot would ask
    best = min(best, time.process_time() - started)
try:
    build = engine("compiled").engine_build()
except ImportError:  # a tree older than the compiled build
    build = "python"
print(json.dumps({"same_games": True, "calls": len(calls), "micros": best / len(calls) * 1e6, "build": build}))
"""


def bot_turns(players: int = 4, hands: int = 200) -> dict[str, Any]:
    """Every turn at which a bot of ``hands`` simulated hands (seed 1) held 6–7 cards and asked for
    its options, as (game, action index, seat, card codes), with a fingerprint of the games played:
    another tree or build rebuilds the same states by replaying the same games."""
    import hashlib
    import random
    from unittest import mock

    from bornes.engine.rules import turn_options as real
    from bornes.engine.simulate import Simulation

    setup = GameSetup.create("winning-moves", [f"P{i + 1}" for i in range(players)])
    asked: list[tuple[Any, int, list[str]]] = []

    def recording(state: Any, seat: int, cards: Any) -> Any:
        if 6 <= len(cards) <= 7:
            asked.append((state, seat, [card.code() for card in cards]))
        return real(state, seat, cards)

    # The bots ask for their turn's plays and discards through turn_options: record those turns
    # (in the Python engine, whose calls can be patched).
    require_python_engine("the record of the bots' turns")
    with mock.patch("bornes.engine.simulate.turn_options", recording):
        games = Simulation(setup, random.Random(1)).run(hands).games_played
    turns: list[tuple[int, int, int, list[str]]] = []
    for g, game in enumerate(games):
        replay = Game(setup)
        for i, action in enumerate([*game.log, None]):
            while len(turns) < len(asked) and asked[len(turns)][0] == replay.state:
                _, seat, cards = asked[len(turns)]
                turns.append((g, i, seat, cards))
            if action is not None:
                replay.push(action)
    assert len(turns) == len(asked), "every recorded turn is a state of the replayed games"
    played = hashlib.sha256("|".join(a.notation() for g in games for a in g.log).encode()).hexdigest()
    return {"games": played, "turns": turns}


def legal_actions_cost(root: str = "", prefix: str = "bornes.", players: int = 4, hands: int = 200,
                       turns: dict[str, Any] | None = None) -> tuple[int, float, str] | None:
    """One ``legal_actions`` call for the seat in turn holding 6–7 cards, in µs, in a fresh
    interpreter of the tree at ``root`` ("" for this venv's install): every such call the bots of
    ``hands`` simulated hands made, replayed (best of 5 passes over them all). Returns (calls, µs,
    engine build), or None when that tree's bots play other games than this one's."""
    turns = turns or bot_turns(players, hands)
    with tempfile.NamedTemporaryFile("w", suffix=".json", encoding="utf-8") as file:
        json.dump(turns, file)
        file.flush()
        out = subprocess.run([sys.executable, "-I", "-c", _LEGAL_DRIVER, root, prefix, file.name, str(players),
                              str(hands)], capture_output=True, text=True, check=True, cwd=tempfile.gettempdir())
    result = json.loads(out.stdout.strip().splitlines()[-1])
    if not result["same_games"]:
        return None
    return result["calls"], result["micros"], result["build"]


#: Runs a command and prints its own peak RSS. A child forked from this (large) bench process
#: would report the bench's pages as its own peak, so a small fresh interpreter starts it.
_PEAK_RSS = (
    "import os, subprocess, sys\n"
    "child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
    "_pid, status, usage = os.wait4(child.pid, 0)\n"
    "print(usage.ru_maxrss)\n"
    "sys.exit(os.waitstatus_to_exitcode(status))\n"
)


def peak_rss(command: list[str]) -> tuple[int, float]:
    """Run ``command``; its own peak RSS in KiB (``wait4``'s ru_maxrss) and its seconds."""
    started = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", _PEAK_RSS, *command], capture_output=True, text=True, check=True)
    return int(out.stdout.strip()), time.perf_counter() - started


def simulate_memory(hands: int) -> tuple[int, float]:
    """Peak RSS (KiB) of ``bornes simulate --hands N`` (4 players), and its seconds."""
    return peak_rss([*bornes_command(), "simulate", "--players", "4", "--hands", str(hands), "--seed", "1"])


#: The largest ``game_target`` a record may carry (the range engine/options.py checks): the longest game a
#: table can play. Two players at this target play about 5 000 actions (36 games, seed 1: 5 262 to 5 456).
LONGEST_TARGET = 100_000


def long_record(actions_wanted: int, path: Path) -> int:
    """Write a record of the longest game a table can play (2 players, ``LONGEST_TARGET``), cut after
    ``actions_wanted`` actions when the game is longer (an unfinished game is a record too); its action count.

    Records once carried ``game_target=10**9`` to reach 100 000 actions; since options are range-checked, a
    record is at most one such game, so the streaming row compares a game with its own first tenth."""
    import random

    from bornes.engine.options import EDITIONS
    from bornes.engine.record import write_record
    from bornes.engine.simulate import Simulation

    options = EDITIONS["winning-moves"].options.replace(game_target=LONGEST_TARGET)
    setup = GameSetup.create("winning-moves", ["P1", "P2"], options=options)
    sim = Simulation(setup, random.Random(1))
    # Hands enough for the actions wanted (55 a hand, give or take), and never past the first game's end.
    game = sim.run(min(actions_wanted // 40 + 1, 200)).games_played[0]
    log = game.log[:actions_wanted]
    path.write_text(write_record(setup, log), encoding="utf-8")
    return len(log)


def replay_memory(actions: int) -> tuple[int, int, int, int]:
    """Peak RSS (KiB) of ``bornes replay --json`` on a record of up to ``actions`` actions (the longest game a
    table can play caps it) and on its first tenth: (short actions, short KiB, long actions, long KiB).
    Equal peaks: it streams."""
    with tempfile.TemporaryDirectory(prefix="bornes-replay-") as scratch:
        short, long = Path(scratch) / "short.record", Path(scratch) / "long.record"
        long_n = long_record(actions, long)
        short_n = long_record(long_n // 10, short)
        short_kib, _ = peak_rss([*bornes_command(), "replay", "--json", str(short)])
        long_kib, _ = peak_rss([*bornes_command(), "replay", "--json", str(long)])
    return short_n, short_kib, long_n, long_kib


def median(values: list[float]) -> float:
    return statistics.median(values)
