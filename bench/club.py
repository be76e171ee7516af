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
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from drivers.events import ButtonPressed
from drivers.readers.resolver import CardResolver
from engine.options import EDITIONS
from engine.simulate import PhysicalTable, Simulation
from engine.state import GameSetup
from firmware.bots import BotHands, same_play
from firmware.flow import Outcome, TableFlow
from firmware.journal import Journal
from firmware.store import JournalStore

REPO = Path(__file__).resolve().parent.parent
CLUB = "bench"
BOARD_PASSWORD = "board-secret"
ORGANISER_PASSWORD = "organiser-secret"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def bornes_command() -> list[str]:
    script = REPO / ".venv" / "bin" / "bornes"
    return [str(script)] if script.exists() else [sys.executable, "-m", "firmware.cli"]


def wait_port(port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return
        time.sleep(0.02)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


def table_password(table: str) -> str:
    return f"secret-{table}"


class Mosquitto:
    """A broker of our own: config, passwords and the shipped ACL in ``directory``; kill and restart at will."""

    def __init__(self, directory: Path, tables: list[str], club: str = CLUB, port: int | None = None) -> None:
        self.directory = directory
        self.port = port or free_port()
        self.binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        directory.mkdir(parents=True, exist_ok=True)
        passwd = directory / "passwd"
        users = {"board": BOARD_PASSWORD, **{t: table_password(t) for t in tables}}
        tool = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
        passwd.write_text("")
        for user, password in users.items():
            subprocess.run([tool, "-b", str(passwd), user, password], check=True, capture_output=True)
        acl = (REPO / "config" / "mosquitto" / "bornes.acl").read_text().replace("myclub", club)
        (directory / "acl").write_text(acl)
        (directory / "mosquitto.conf").write_text(
            # Run as ourselves: as root, mosquitto would switch to its own user, who cannot read a private tmp dir.
            f"user {getpass.getuser()}\nper_listener_settings false\nallow_anonymous false\n"
            f"password_file {passwd}\nacl_file {directory / 'acl'}\n"
            f"listener {self.port} 127.0.0.1\npersistence false\nmax_packet_size 131072\n"
            "max_queued_messages 20000\nlog_dest stderr\nlog_type error\nlog_type warning\n"
        )
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        log = open(self.directory / "mosquitto.log", "ab")  # noqa: SIM115 - the child keeps it
        self.process = subprocess.Popen([self.binary, "-c", str(self.directory / "mosquitto.conf")],
                                        stdout=log, stderr=log)
        log.close()
        wait_port(self.port)

    def kill(self) -> None:
        """SIGKILL: no clean shutdown, nothing saved (the test broker keeps no persistence)."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None


@dataclass
class Child:
    """A ``bornes`` subprocess with its stderr in a file."""

    args: list[str]
    log: Path
    process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with open(self.log, "ab") as out:
            env = {**os.environ, "PYTHONUNBUFFERED": "1"}
            self.process = subprocess.Popen([*bornes_command(), *self.args], stdout=out, stderr=out, env=env,
                                            cwd=REPO)

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def kill(self) -> None:
        if self.process is not None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
            self.process = None

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None

    def text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


def bridge_child(directory: Path, table: str, broker: Mosquitto, *, club: str = CLUB, resend: float = 1.0) -> Child:
    secret = directory / f"{table}.secret"
    secret.write_text(table_password(table))
    args = ["bridge", "--club", club, "--table", table, "--journal", str(directory / table / "journal"),
            "--state", str(directory / table / "bridge"), "--control", str(directory / table / "control.sock"),
            "--host", "127.0.0.1", "--port", str(broker.port), "--password-file", str(secret),
            "--poll", "0.05", "--resend", str(resend)]
    return Child(args, directory / f"bridge-{table}.log")


def board_child(directory: Path, broker: Mosquitto, web_port: int, *, club: str = CLUB) -> Child:
    (directory / "board.secret").write_text(BOARD_PASSWORD)
    (directory / "organiser.secret").write_text(ORGANISER_PASSWORD)
    args = ["club", "--club", club, "--database", str(directory / "club.sqlite3"), "--listen", "127.0.0.1",
            "--port", str(web_port), "--host", "127.0.0.1", "--broker-port", str(broker.port),
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

    def wait(self, count: int, timeout: float = 20.0) -> dict[str, Any]:
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
    broker: Mosquitto = field(init=False)
    board: Child = field(init=False)
    bridges: dict[str, Child] = field(init=False)
    controls: dict[str, ControlSocket] = field(init=False)
    web_port: int = field(init=False)

    def __post_init__(self) -> None:
        self.broker = Mosquitto(self.directory / "broker", self.tables)
        self.web_port = free_port()
        self.board = board_child(self.directory, self.broker, self.web_port)
        self.bridges = {t: bridge_child(self.directory, t, self.broker) for t in self.tables}
        self.controls = {}

    def start(self) -> None:
        self.broker.start()
        self.board.start()
        for table in self.tables:
            self.controls[table] = ControlSocket(self.directory / table / "control.sock")
            self.bridges[table].start()
        wait_port(self.web_port, 20)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.web_port}{path}"

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
def club_night(directory: Path, tables: list[str]) -> Iterator[Club]:
    club = Club(directory, tables)
    try:
        club.start()
        yield club
    finally:
        club.close()
