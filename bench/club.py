"""Club nights on loopback: a real Mosquitto, real bridges and a real board, tables played by bots.

Shared by ``python -m bench --only club`` and ``tests/club`` (like bench/driver.py). The broker
is started from the shipped sample ACL (``config/mosquitto/bornes.acl``) with its own config and
password file in a temporary directory, on a free port of 127.0.0.1; never the system service.

The bots play through the real table flow into a real journal (``JournalStore``), exactly as the
referee writes it, so each bridge reads what a referee would have written.
"""

from __future__ import annotations

import base64
import contextlib
import getpass
import json
import multiprocessing
import os
import random
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.driver import bornes_command
from bornes.drivers.events import ButtonPressed
from bornes.drivers.readers.resolver import CardResolver
from bornes.engine.options import EDITIONS
from bornes.engine.simulate import PhysicalTable, Simulation
from bornes.engine.state import GameSetup
from bornes.firmware.storage.journal import Journal
from bornes.firmware.storage.store import JournalStore
from bornes.firmware.table.bots import BotHands, same_play
from bornes.firmware.table.flow import Outcome, TableFlow

REPO = Path(__file__).resolve().parent.parent
CLUB = "bench"
BOARD_PASSWORD = "board-secret"
ORGANISER_PASSWORD = "organiser-secret"
#: Broker users of the tests and the bench only: a table id no bridge uses (to act as a table without
#: taking a real bridge's connection: the broker's client id is the user name) and a second board.
SPARE_TABLE = "t0"
ODD_BOARD = "odd-board"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_port(port: int, timeout: float = 60.0) -> None:
    """Until something listens on the port; it returns then, the bound is for a process that never does."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return
        time.sleep(0.02)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


def table_password(table: str) -> str:
    return f"secret-{table}"


class Stoppable:
    """``kill()`` and ``stop()`` for the child process held in ``self.process`` (None once ended)."""

    process: subprocess.Popen[bytes] | None
    #: Seconds ``stop()`` waits after SIGTERM before it kills.
    grace = 10.0

    def kill(self) -> None:
        """SIGKILL: no clean shutdown (a test broker keeps no persistence, so nothing is saved)."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(self.grace)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None


#: The shipped config's settings every test broker uses as they are (the rest is paths and ports), and
#: those Mosquitto reads per listener (they go under the test broker's own listener line).
SHIPPED_KEYS = ("per_listener_settings", "allow_anonymous", "max_packet_size", "max_queued_messages",
                "max_inflight_messages")
LISTENER_KEYS = ("use_username_as_clientid",)


def shipped_settings(keys: tuple[str, ...] = SHIPPED_KEYS) -> str:
    """Those lines of config/mosquitto/bornes.conf, so the tests run the broker as a club would."""
    lines = (REPO / "config" / "mosquitto" / "bornes.conf").read_text().splitlines()
    kept = dict.fromkeys(line for line in lines if line.split(" ", 1)[0] in keys)
    return "".join(f"{line}\n" for line in kept)


class Mosquitto(Stoppable):
    """A broker of our own: config, passwords and the shipped ACL in ``directory``; kill and restart at will."""

    grace = 5.0

    def __init__(self, directory: Path, tables: list[str], club: str = CLUB, port: int | None = None) -> None:
        self.directory = directory
        self.port = port or free_port()
        self.binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        directory.mkdir(parents=True, exist_ok=True)
        passwd = directory / "passwd"
        users = {"board": BOARD_PASSWORD, ODD_BOARD: BOARD_PASSWORD,
                 **{t: table_password(t) for t in [*tables, SPARE_TABLE]}}
        tool = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
        passwd.write_text("")
        for user, password in users.items():
            subprocess.run([tool, "-b", str(passwd), user, password], check=True, capture_output=True)
        acl = (REPO / "config" / "mosquitto" / "bornes.acl").read_text().replace("myclub", club)
        acl += (f"\nuser {ODD_BOARD}\ntopic read bornes/{club}/#\ntopic write bornes/{club}/+/assignment\n"
                f"topic write bornes/{club}/+/receipt\n")
        (directory / "acl").write_text(acl)
        (directory / "mosquitto.conf").write_text(
            # Run as ourselves: as root, mosquitto would switch to its own user, who cannot read a private tmp dir.
            f"user {getpass.getuser()}\n{shipped_settings()}"
            f"password_file {passwd}\nacl_file {directory / 'acl'}\n"
            f"listener {self.port} 127.0.0.1\n{shipped_settings(LISTENER_KEYS)}persistence false\n"
            "log_dest stderr\nlog_type error\nlog_type warning\n"
        )
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        log = open(self.directory / "mosquitto.log", "ab")  # noqa: SIM115 - the child keeps it
        self.process = subprocess.Popen([self.binary, "-c", str(self.directory / "mosquitto.conf")],
                                        stdout=log, stderr=log)
        log.close()
        wait_port(self.port)



@dataclass
class Child(Stoppable):
    """A ``bornes`` subprocess with its stderr in a file."""

    args: list[str]
    log: Path
    process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with open(self.log, "ab") as out:
            env = {**os.environ, "PYTHONUNBUFFERED": "1"}
            self.process = subprocess.Popen([*bornes_command(), *self.args], stdout=out, stderr=out, env=env, cwd=REPO)

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


def bridge_child(directory: Path, table: str, broker_port: int, *, club: str = CLUB, resend: float = 1.0,
                 web_url: str = "") -> Child:
    secret = directory / f"{table}.secret"
    secret.write_text(table_password(table))
    args = ["bridge", "--club", club, "--table", table, "--journal", str(directory / table / "journal"),
            "--state", str(directory / table / "bridge"), "--control", str(directory / table / "control.sock"),
            "--broker-host", "127.0.0.1", "--broker-port", str(broker_port), "--password-file", str(secret),
            "--resend", str(resend)] + (["--web-url", web_url] if web_url else [])
    return Child(args, directory / f"bridge-{table}.log")  # as bornes-bridge.service starts it


def board_child(directory: Path, broker: Mosquitto, web_port: int, *, club: str = CLUB) -> Child:
    (directory / "board.secret").write_text(BOARD_PASSWORD)
    (directory / "organiser.secret").write_text(ORGANISER_PASSWORD)
    args = ["club", "--club", club, "--database", str(directory / "club.sqlite3"), "--host", "127.0.0.1",
            "--port", str(web_port), "--broker-host", "127.0.0.1", "--broker-port", str(broker.port),
            "--password-file", str(directory / "board.secret"),
            "--organiser-password-file", str(directory / "organiser.secret")]
    return Child(args, directory / "board.log")


def organiser_headers() -> dict[str, str]:
    token = base64.b64encode(f"organiser:{ORGANISER_PASSWORD}".encode()).decode()
    return {"Authorization": f"Basic {token}", "Content-Type": "application/json"}


# -- a table played by bots into a real journal ---------------------------------------------------------


class ControlSocket:
    """The referee's side of the control socket contract (TEAM.md), for bot tables: it takes
    ``setup`` lines and keeps the last one, as the table would show it until someone presses OK."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(str(path))
        self.server.listen(4)
        self.setups: list[dict[str, Any]] = []
        self.arrived = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            with conn:
                data = b""
                while not data.endswith(b"\n"):
                    chunk = conn.recv(4096)
                    if not chunk:
                        break
                    data += chunk
                try:
                    message = json.loads(data)
                    ok = isinstance(message, dict) and message.get("type") == "setup"
                except json.JSONDecodeError:
                    ok = False
                if ok:
                    self.setups.append(message)
                    self.arrived.set()
                    conn.sendall(b'{"v":1,"ok":true}\n')
                else:
                    conn.sendall(b'{"v":1,"ok":false,"error":"not a setup message"}\n')

    def wait(self, count: int, timeout: float = 60.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while len(self.setups) < count:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.path}: no assignment number {count} after {timeout} s")
            self.arrived.wait(0.05)
            self.arrived.clear()
        return self.setups[count - 1]

    def close(self) -> None:
        self.server.close()
        self.path.unlink(missing_ok=True)


def setup_from(message: dict[str, Any]) -> GameSetup:
    edition = str(message["edition"])
    options = EDITIONS[edition].options.with_strings({k: str(v) for k, v in message.get("options", {}).items()})
    return GameSetup.create(edition, list(message["names"]), teams=message.get("teams"),
                            dealer=int(message.get("dealer", 0)), options=options)


def play_game(journal_dir: Path, setup: GameSetup, seed: int, *, pace: float = 0.0,
              after_action: Callable[[int, float], None] | None = None) -> int:
    """Bots play one game of ``setup`` through the real table flow into the journal; returns its actions.

    ``after_action(count, at)`` is called after each accepted action, ``at`` being the
    ``time.time()`` just after its durable write returned.
    """
    journal_dir.mkdir(parents=True, exist_ok=True)
    with Journal.open(journal_dir) as journal:
        store = JournalStore(journal)
        flow = TableFlow(store=store, game=store.resume())
        resolver = CardResolver()

        def tap(payload: str) -> Outcome:
            return flow.handle(resolver.resolve(payload))

        def hold(button: str) -> Outcome:
            return flow.handle(ButtonPressed(button, True))

        hands = BotHands(flow, tap, hold)
        flow.start_game(setup)
        game = flow.game
        assert game is not None
        rng = random.Random(seed)
        sim = Simulation(setup, rng)
        physical = PhysicalTable(setup, rng)
        physical.new_hand(game.state.hand.dealer)
        while not game.state.over:
            state = game.state
            action = sim.next_action(state, physical)
            if action is None:
                raise RuntimeError("a bot found nothing to do")
            outcome = hands.perform(state, action)
            if outcome.verdict != "accepted" or not same_play(outcome.action, action):
                raise RuntimeError(f"{action.notation()}: {outcome.verdict} {outcome.message}")
            at = time.time()
            sim.record(state, game.state, physical, action, ())
            if after_action is not None:
                after_action(len(game.log), at)
            if pace:
                time.sleep(pace)
        return len(game.log)


@dataclass
class Club:
    """A whole club night on loopback: broker, board, and one bridge per table."""

    directory: Path
    tables: list[str]
    stand_ins: bool = True  # answer each control socket with a ControlSocket (False: bring a real referee)
    broker: Mosquitto = field(init=False)
    board: Child = field(init=False)
    bridges: dict[str, Child] = field(init=False)
    controls: dict[str, ControlSocket] = field(init=False)
    web_port: int = field(init=False)

    def __post_init__(self) -> None:
        self.broker = Mosquitto(self.directory / "broker", self.tables)
        self.web_port = free_port()
        self.board = board_child(self.directory, self.broker, self.web_port)
        self.bridges = {t: bridge_child(self.directory, t, self.broker.port, web_url=f"http://{t}.local:8080/")
                        for t in self.tables}
        for table in self.tables:  # the referee's state directory exists before its bridge starts, as on a Pi
            self.journal(table).mkdir(parents=True, exist_ok=True)
        self.controls = {}

    def start(self) -> None:
        self.broker.start()
        self.board.start()
        for table in self.tables:
            if self.stand_ins:
                self.controls[table] = ControlSocket(self.control(table))
            self.bridges[table].start()
        wait_port(self.web_port, 90)  # a board and eight bridges start at once: seconds on a loaded 2-core machine
        # Every bridge up before any game: a bridge publishes the games after its first start, not
        # those already finished when it first looked (docs/club.md, all_history).
        deadline = time.monotonic() + 90
        while not all("connected to the broker" in child.text() for child in self.bridges.values()):
            if time.monotonic() > deadline:
                raise TimeoutError("the bridges did not connect to the broker within 90 s")
            time.sleep(0.05)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.web_port}{path}"

    def control(self, table: str) -> Path:
        return self.directory / table / "control.sock"

    def journal(self, table: str) -> Path:
        return self.directory / table / "journal"

    def close(self) -> None:
        for child in self.bridges.values():
            child.stop()
        self.board.stop()
        self.broker.stop()
        for control in self.controls.values():
            control.close()


@contextlib.contextmanager
def club_night(directory: Path, tables: list[str], *, stand_ins: bool = True) -> Iterator[Club]:
    club = Club(directory, tables, stand_ins)
    try:
        club.start()
        yield club
    finally:
        club.close()


# -- the bench: python -m bench --only club ---------------------------------------------------------------

PI4_SLOWER = 4.0  # assumption: one Pi 4 core (Cortex-A72, 1.8 GHz) does a quarter of this machine's core
HUMAN_PACE = 6.0  # assumption: a real table accepts one action every 6 s on average (a 2-player hand ≈ 9 min)
PEAK_PACE = 2.0  # and one every 2 s at its busiest


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid: int, name: str = "VmRSS") -> int:
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith(name + ":"):
                return int(line.split()[1])
    return 0


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


@dataclass
class Traffic:
    """What a board-like subscriber saw, per topic leaf: messages and payload bytes."""

    counts: dict[str, int] = field(default_factory=dict)
    sizes: dict[str, int] = field(default_factory=dict)

    def add(self, leaf: str, size: int) -> None:
        self.counts[leaf] = self.counts.get(leaf, 0) + 1
        self.sizes[leaf] = self.sizes.get(leaf, 0) + size

    def mean(self, leaf: str) -> float:
        return self.sizes.get(leaf, 0) / max(1, self.counts.get(leaf, 0))


@dataclass
class ClubFigures:
    latencies: list[float]
    bridge_rss: list[int]
    bridge_hwm: list[int]
    bridge_idle_cpu: list[float]
    board_rss: int
    traffic: Traffic
    actions: int
    games: int
    broker_cpu_per_message: float = 0.0
    broker_rate: float = 0.0


def watch_traffic(port: int, traffic: Traffic, club: str = CLUB) -> Any:
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="bench-watch", protocol=mqtt.MQTTv5)
    client.username_pw_set(ODD_BOARD, BOARD_PASSWORD)
    client.on_connect = lambda c, u, f, r, p: c.subscribe(f"bornes/{club}/#", qos=1)
    client.on_message = lambda c, u, m: traffic.add(m.topic.rsplit("/", 1)[-1], len(m.payload))
    client.connect("127.0.0.1", port)
    client.loop_start()
    return client


def measure_club(directory: Path, *, tables: int = 8, games: int = 1, pace: float = 0.05,
                 idle_s: float = 10.0) -> ClubFigures:
    """Eight tables played at ``pace`` s per action; every accepted action timed to its board page update."""
    import httpx

    names = [f"t{i}" for i in range(1, tables + 1)]
    written: dict[tuple[str, int], float] = {}
    shown: dict[str, list[tuple[int, int, float]]] = {t: [] for t in names}  # (game, actions, arrival)
    traffic = Traffic()
    stop = threading.Event()
    with club_night(directory, names) as club:
        watcher = watch_traffic(club.broker.port, traffic)
        ready = threading.Event()

        def listen() -> None:
            try:
                with httpx.Client(timeout=None) as http, http.stream("GET", club.url("/events")) as stream:
                    ready.set()
                    for line in stream.iter_lines():
                        if stop.is_set():
                            return
                        if line.startswith("data: "):
                            event = json.loads(line[6:])
                            live = event.get("live") or {}
                            if isinstance(live.get("action_count"), int) and live.get("game_id"):
                                shown[event["table"]].append((live["game_id"], live["action_count"], time.time()))
            except httpx.HTTPError as error:  # the board stopped under the stream: the end of the night, or a fault
                if not stop.is_set():
                    print(f"warning: the board's live stream broke during the night: {error!r}", file=sys.stderr)

        listener = threading.Thread(target=listen, daemon=True)
        listener.start()
        ready.wait(10)
        time.sleep(1.0)  # bridges connected, the board subscribed

        # Each table is its own process, as each referee is: the timing thread here shares no GIL with them.
        context = multiprocessing.get_context("spawn")
        notes: Any = context.Queue()
        tables_running = [context.Process(target=_table_process, args=(str(club.journal(t)), t,
                                          TABLE_SEED + names.index(t) * 10, games, pace, notes)) for t in names]
        for process in tables_running:
            process.start()
        finished = 0
        while finished < len(tables_running):
            table, key, at = notes.get(timeout=300)
            if key is None:
                finished += 1
            else:
                written[(table, key)] = at
        for process in tables_running:
            process.join()
        time.sleep(2.0)  # the last updates and results land
        stop.set()
        watcher.disconnect()
        watcher.loop_stop()

        latencies: list[float] = []
        for (table, key), at in written.items():
            game_id, count = divmod(key, 100_000)
            arrival = next((when for g, n, when in shown[table] if g == game_id and n >= count), None)
            if arrival is not None:
                latencies.append(arrival - at)
        missing = len(written) - len(latencies)
        if missing:
            print(f"warning: {missing} actions never showed on the board", file=sys.stderr)

        pids = [club.bridges[t].pid for t in names]
        rss = [rss_kib(pid) for pid in pids]
        hwm = [rss_kib(pid, "VmHWM") for pid in pids]
        before = [cpu_seconds(pid) for pid in pids]
        time.sleep(idle_s)
        idle = [(cpu_seconds(pid) - b) / idle_s * 100 for pid, b in zip(pids, before, strict=True)]
        board_rss = rss_kib(club.board.pid)
        figures = ClubFigures(latencies, rss, hwm, idle, board_rss, traffic, len(written), tables * games)
        assert club.broker.process is not None
        figures.broker_cpu_per_message, figures.broker_rate = broker_cost(club.broker)
    return figures


def _table_process(journal: str, table: str, seed: int, games: int, pace: float, notes: Any) -> None:
    """One bot table in its own process: reports (table, game * 100000 + actions, time of the durable write)."""
    try:
        for number in range(games):
            setup = GameSetup.create("winning-moves", [f"{table}a", f"{table}b"],
                                     options=EDITIONS["winning-moves"].options.replace(game_target=0))
            key = (number + 1) * 100_000

            def note(count: int, at: float, key: int = key) -> None:
                notes.put((table, key + count, at))

            play_game(Path(journal), setup, seed=seed + number, pace=pace, after_action=note)
    finally:
        notes.put((table, None, 0.0))


TABLE_SEED = 7


def broker_cost(broker: Mosquitto, messages: int = 20_000, size: int = 400) -> tuple[float, float]:
    """Mosquitto's CPU seconds per message, QoS 1 in and out to one subscriber, at full speed here."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    assert broker.process is not None
    received = threading.Event()
    count = [0]

    def got(c: Any, u: Any, m: Any) -> None:
        count[0] += 1
        if count[0] >= messages:
            received.set()

    sub = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="bench-sub", protocol=mqtt.MQTTv5)
    sub.username_pw_set(ODD_BOARD, BOARD_PASSWORD)
    sub.on_message = got
    sub.connect("127.0.0.1", broker.port)
    sub.subscribe(f"bornes/{CLUB}/+/action", qos=1)
    sub.loop_start()
    pub = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="bench-pub", protocol=mqtt.MQTTv5)
    pub.username_pw_set(SPARE_TABLE, table_password(SPARE_TABLE))
    pub.max_inflight_messages_set(100)
    pub.connect("127.0.0.1", broker.port)
    pub.loop_start()
    time.sleep(0.5)
    payload = b"x" * size
    started, cpu = time.perf_counter(), cpu_seconds(broker.process.pid)
    for _ in range(messages):
        pub.publish(f"bornes/{CLUB}/{SPARE_TABLE}/action", payload, qos=1)
    received.wait(120)
    elapsed, used = time.perf_counter() - started, cpu_seconds(broker.process.pid) - cpu
    for client in (pub, sub):
        client.disconnect()
        client.loop_stop()
    return used / max(1, count[0]), count[0] / elapsed


def scale_rows(figures: ClubFigures) -> list[tuple[str, str]]:
    """What one Mosquitto carries for 10, 100 and 1000 tables, from the measured sizes and the stated paces."""
    t = figures.traffic
    per_action = {leaf: t.counts.get(leaf, 0) / max(1, figures.actions) for leaf in ("action", "live")}
    bytes_per_action = sum(t.mean(leaf) * per_action[leaf] for leaf in per_action)
    result_bytes = t.mean("result")
    actions_per_game = figures.actions / max(1, figures.games)
    overhead = 2 * 30  # bytes: MQTT fixed header + topic + packet id, in and out, roughly
    rows = [("measured: action / live / result message (mean payload)",
             f"{t.mean('action'):.0f} B / {t.mean('live'):.0f} B / {result_bytes:.0f} B"),
            ("measured: messages per accepted action (action, live)",
             f"{per_action['action']:.2f}, {per_action['live']:.2f}; {actions_per_game:.0f} actions a game")]
    cpu = figures.broker_cpu_per_message * PI4_SLOWER
    for tables in (10, 100, 1000):
        for label, pace in (("average", HUMAN_PACE), ("peak", PEAK_PACE)):
            actions = tables / pace
            messages = actions * (per_action["action"] + per_action["live"]) + actions / actions_per_game
            payload = actions * bytes_per_action + actions / actions_per_game * result_bytes
            wire = 2 * payload + messages * overhead  # in from the bridges, out to the board
            core = messages * cpu * 100
            rows.append((f"{tables} tables, {label} (one action per {pace:g} s a table)",
                         f"{messages:.0f} msg/s in + {messages:.0f} out, {wire / 1024:.0f} KiB/s, "
                         f"≈{core:.1f} % of a Pi 4 core"))
    return rows


def bench_rows(games: int = 2, idle_s: float = 20.0) -> list[tuple[str, str, str, bool | None]]:
    """Rows for bench/__main__.py: (figure, measured, budget, met)."""
    import tempfile

    if not (shutil.which("mosquitto") or os.path.exists("/usr/sbin/mosquitto")):
        return [("club: not measured (apt-get install mosquitto mosquitto-clients)", "—", "—", None)]
    with tempfile.TemporaryDirectory(prefix="bornes-club-bench-") as tmp:
        figures = measure_club(Path(tmp), games=games, idle_s=idle_s)
    lat = figures.latencies
    p99 = quantile(lat, 0.99) if lat else float("inf")
    rss = max(figures.bridge_rss) / 1024
    idle = max(figures.bridge_idle_cpu)
    rows: list[tuple[str, str, str, bool | None]] = [
        (f"club: accepted tap → board page updated, 8 tables, {len(lat)} actions (p50 / p99)",
         f"{quantile(lat, 0.5) * 1000:.0f} ms / {p99 * 1000:.0f} ms" if lat else "none arrived", "p99 ≤ 250 ms",
         p99 <= 0.25),
        ("club: bridge RSS, worst of 8 (VmRSS; peak VmHWM)",
         f"{rss:.1f} MB (peak {max(figures.bridge_hwm) / 1024:.1f} MB)", "≤ 30 MB", rss <= 30),
        ("club: bridge idle CPU, worst of 8", f"{idle:.2f} % of a core", "≤ 0.5 %", idle <= 0.5),
        ("club: board RSS", f"{figures.board_rss / 1024:.1f} MB", "—", None),
        ("club: mosquitto CPU per QoS 1 message in + out, here (full speed)",
         f"{figures.broker_cpu_per_message * 1e6:.1f} µs ({figures.broker_rate:.0f} msg/s)", "—", None),
    ]
    rows += [(f"club scale: {label}", value, "—", None) for label, value in scale_rows(figures)]
    return rows


if __name__ == "__main__":  # python -m bench.club [--quick]
    quick = "--quick" in sys.argv
    for figure, measured, budget, met in bench_rows(games=1 if quick else 2, idle_s=5.0 if quick else 20.0):
        print(f"| {figure} | {measured} | {budget} | {'' if met is None else ('yes' if met else 'NO')} |")
