"""docs/exit-codes.md, row by row: one exit-code table, true for every command (issue 34, item 4).

Each row of the table (a status and a command) has a test here named ``test_<status>_<command>``
(``every_command`` for the rows that hold for all), and :func:`test_the_table_and_these_tests_list_the_same_rows`
keeps the two in step. Quick cases call ``bornes.firmware.cli.main`` in this process; a command
that must be stopped by a signal, or hold a port or the state folder, runs as a process of its own.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from bench.driver import REPO, Daemon, Pty, bornes_command, write_config
from bornes.firmware import cli
from bornes.firmware.storage.journal import FILENAME, Journal
from tests.faults.unsaved import HEADER, killed, line
from tests.tiers import tiered
from tests.tmpfs import fill, mounted_tmpfs

COMMANDS = ("run", "history", "export", "doctor", "web", "bridge", "club", "feed", "replay")
WAL = f"{FILENAME}-wal"
RECORD = REPO / "tests" / "engine" / "records" / "dujardin-3p.record"
SETUP = "setup edition=winning-moves names=Ann,Bob dealer=B\n"


# -- helpers ----------------------------------------------------------------------------------------


def bornes(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """The command in this process: (status, stdout, stderr)."""
    capsys.readouterr()
    try:
        code = cli.main(list(argv))
    except SystemExit as stopped:  # argparse
        code = stopped.code if isinstance(stopped.code, int) else 1
    out = capsys.readouterr()
    return code, out.out, out.err


def process(*argv: str, stdin: str = "", timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*bornes_command(), *argv], input=stdin, capture_output=True, text=True, timeout=timeout,
                          cwd=REPO)


def one_line(err: str, words: str) -> None:
    lines = [text for text in err.splitlines() if text.strip()]
    assert len(lines) == 1 and words in lines[0], lines


def config(tmp: Path, state: Path | str, extra: str = "") -> Path:
    path = tmp / "config.toml"
    path.write_text(f'[display]\npanel = "dummy"\n[pins]\nfactory = "mock"\n[state]\ndir = "{state}"\n{extra}')
    return path


def played(state: Path, cards: int = 5) -> Path:
    """A state folder holding one finished game and one in progress."""
    with Journal.open(state) as journal:
        done = journal.new_game(HEADER)
        journal.append(done, 0, line(0))
        journal.finish(done, "{}")
        game = journal.new_game(HEADER)
        for seq in range(cards):
            journal.append(game, seq, line(seq))
    return state


def damaged(tmp: Path, how: str) -> Path:
    """A state folder whose journal is damaged in one of the ways the table names."""
    state = tmp / f"damaged-{how}"
    if how == "flip":  # one bit in a frame of the WAL, not the last: the walker reports it
        snapshot = killed(tmp / f"live-{how}", saved=4, deferred=4, in_flight=0)
        wal = bytearray(snapshot.files[WAL])
        wal[32 + 24 + 100] ^= 0x10
        snapshot.write(state, {WAL: bytes(wal)})
    elif how == "wal-folder":
        played(state)
        (state / WAL).mkdir()
    elif how == "main-lost":  # the state of a held checkpoint, then bornes.sqlite3 removed
        snapshot = killed(tmp / f"live-{how}", saved=4, deferred=4, in_flight=0)
        snapshot.write(state)
        (state / FILENAME).unlink()
        (state / f"{FILENAME}-shm").unlink(missing_ok=True)
    return state


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Server:
    """A long-running command in its own process, stopped by a signal."""

    def __init__(self, *argv: str) -> None:
        self.process = subprocess.Popen([*bornes_command(), *argv], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        text=True, cwd=REPO)

    def wait_listening(self, port: int, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.output()
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    return
            time.sleep(0.05)
        raise TimeoutError(f"nothing listens on {port}")

    def stop(self, signum: int = signal.SIGTERM) -> int:
        self.process.send_signal(signum)
        return self.process.wait(30)

    def output(self) -> str:
        if self.process.poll() is None:
            self.process.kill()
        out, _ = self.process.communicate(timeout=10)
        return out

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


@pytest.fixture
def referee(tmp_path: Path) -> Iterator[tuple[Daemon, Path, Path]]:
    """``bornes run`` on a pty with a game started: (daemon, its config, its state folder)."""
    pty = Pty(tmp_path / "reader")
    state = tmp_path / "state"
    daemon = Daemon(write_config(tmp_path, pty.link, state=state))
    try:
        daemon.wait_up()
        yield daemon, tmp_path / "config.toml", state
    finally:
        daemon.kill()
        pty.close()


def script(tmp: Path, text: str) -> Path:
    path = tmp / "script.txt"
    path.write_text(text)
    return path


#: read(2)'s number, where /proc/PID/syscall names the call a process is blocked in.
_READ = {"x86_64": "0", "aarch64": "63", "armv7l": "3", "armv6l": "3", "i686": "3"}


def wait_reading_stdin(pid: int, timeout: float = 60) -> None:
    """Until ``pid`` is blocked in ``read`` on its standard input (Linux's /proc/PID/syscall)."""
    import platform

    number = _READ.get(platform.machine())
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            fields = Path(f"/proc/{pid}/syscall").read_text().split()
        except OSError:
            fields = []
        if number is None or not fields:  # no way to look: give it time instead
            time.sleep(5)
            return
        if fields[:2] == [number, "0x0"]:
            return
        time.sleep(0.05)
    raise TimeoutError(f"process {pid} never read its standard input")


def _ctrl_c_as_a_terminal_sends_it() -> None:
    """The child's SIGINT back to its default, as a shell in a terminal starts a command. A suite started as a
    background job of a non-interactive shell (``pytest &`` in a script, CI's runners) inherits SIGINT
    *ignored*, as POSIX says such a job must; Python then leaves it ignored and installs no KeyboardInterrupt,
    so the Ctrl-C under test would never arrive. The product is not changed for this: a program that was
    started with Ctrl-C ignored is meant to keep ignoring it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupted(command: list[str], stdin_open: bool = True) -> int:
    """``command`` reading from a pipe that stays open, interrupted by SIGINT (Ctrl-C) once it runs."""
    child = subprocess.Popen([*bornes_command(), *command], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True, cwd=REPO, preexec_fn=_ctrl_c_as_a_terminal_sends_it)
    wait_reading_stdin(child.pid)  # a Ctrl-C while Python itself starts is Python's, not bornes'
    child.send_signal(signal.SIGINT)
    code = child.wait(30)
    assert child.stdin is not None and child.stderr is not None
    child.stdin.close()
    assert "Traceback" not in child.stderr.read()
    return code


# -- 0: done, or stopped -------------------------------------------------------------------------


def test_0_run(referee: tuple[Daemon, Path, Path]) -> None:
    daemon, _, _ = referee
    assert daemon.stop() == 0  # SIGTERM at any moment is a clean stop


def test_0_run_at_the_end_of_input_with_emulate(tmp_path: Path) -> None:
    done = process("run", "--emulate", "--display", "dummy", "--config", str(config(tmp_path, tmp_path / "s")))
    assert done.returncode == 0 and "referee up" in done.stdout, done.stdout + done.stderr


def test_0_history(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert bornes(capsys, "history", "--config", str(config(tmp_path, tmp_path / "none")))[:2] == (
        0, f"no games yet (no journal in {tmp_path / 'none'})\n")
    code, out, _ = bornes(capsys, "history", "--config", str(config(tmp_path, played(tmp_path / "s"))))
    assert code == 0 and "in progress, 5 actions" in out


def test_0_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = bornes(capsys, "export", "2", "--config", str(config(tmp_path, played(tmp_path / "s"))))
    assert code == 0 and out.count("play MB-D") == 5


def test_0_doctor(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pty = Pty(tmp_path / "reader")
    try:
        code, out, _ = bornes(capsys, "doctor", "--config", str(write_config(tmp_path, pty.link)))
    finally:
        pty.close()
    assert code == 0 and "FAIL" not in out, out


@pytest.mark.parametrize("signum", tiered([signal.SIGTERM, signal.SIGINT], {"SIGINT"}, ids=["SIGTERM", "SIGINT"]))
def test_0_web(tmp_path: Path, signum: int) -> None:
    port = free_port()
    server = Server("web", "--config", str(config(tmp_path, tmp_path / "s")), "--host", "127.0.0.1", "--port",
                    str(port))
    try:
        server.wait_listening(port)
        assert server.stop(signum) == 0, server.output()
    finally:
        server.close()


@pytest.mark.slow  # a server process a case: the fast tier keeps the web's 0 and 75
def test_0_bridge(tmp_path: Path) -> None:
    (tmp_path / "s").mkdir()  # the referee's state folder, no game in it yet
    server = Server("bridge", "--club", "c1", "--table", "t1", "--journal", str(tmp_path / "s"), "--state",
                    str(tmp_path / "bridge"), "--broker-host", "127.0.0.1", "--broker-port", str(free_port()))
    try:
        assert server.process.stdout is not None
        started = server.process.stdout.readline()
        assert "bridge c1/t1: journal" in started, started
        assert server.stop() == 0
    finally:
        server.close()


@pytest.mark.slow  # a server process a case: the fast tier keeps the web's 0 and 75
def test_0_club(tmp_path: Path) -> None:
    port = free_port()
    server = Server("club", "--club", "c1", "--database", str(tmp_path / "club.sqlite3"), "--host", "127.0.0.1",
                    "--port", str(port), "--broker-host", "127.0.0.1", "--broker-port", str(free_port()))
    try:
        server.wait_listening(port)
        assert server.stop() == 0, server.output()
    finally:
        server.close()


def test_0_feed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert bornes(capsys, "feed", str(script(tmp_path, SETUP + "scan MB-ROLL-01\n")))[0] == 0


def test_0_replay(capsys: pytest.CaptureFixture[str]) -> None:
    assert bornes(capsys, "replay", str(RECORD))[0] == 0


# -- 1: the answer is no -------------------------------------------------------------------------


def test_1_doctor(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = bornes(capsys, "doctor", "--config", str(config(tmp_path, damaged(tmp_path, "flip"))))
    assert code == 1 and "FAIL journal" in out


def test_1_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = bornes(capsys, "export", "7", "--config", str(config(tmp_path, played(tmp_path / "s"))))
    assert code == 1
    one_line(err, "there is no game 7")
    code, _, err = bornes(capsys, "export", "1", "--config", str(config(tmp_path, tmp_path / "none")))
    assert code == 1  # no game was ever recorded: still no such game, not a missing file (66)
    one_line(err, "there is no game 1")


def test_1_feed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert bornes(capsys, "feed", str(script(tmp_path, SETUP + "scan MB-D100-01\n")))[0] == 1  # no Roll yet


def test_1_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = RECORD.read_text().splitlines(keepends=True)
    first = next(k for k, text in enumerate(lines) if " play " in text)
    refused = tmp_path / "refused.record"
    refused.write_text("".join(lines[: first] + [lines[first].replace(" play ", " discard ", 1)] * 3
                               + lines[first + 1 :]))
    assert bornes(capsys, "replay", str(refused))[0] == 1


# -- 64: the command line ------------------------------------------------------------------------


@pytest.mark.parametrize("command", COMMANDS)
def test_64_every_command(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = bornes(capsys, command, "--no-such-option")
    assert code == 64 and "error: " in err and "usage: bornes" in err


def test_64_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = bornes(capsys, "export", "seven", "--config", str(config(tmp_path, tmp_path / "s")))
    assert code == 64
    one_line(err, "game 'seven' is not a game number")


# -- 65: damaged data ----------------------------------------------------------------------------

DAMAGE = {"flip": "fails its checksum", "wal-folder": "bornes.sqlite3-wal is a folder",
          "main-lost": "the database is missing but bornes.sqlite3-wal holds data (4856 bytes) and "
                       "bornes.sqlite3-pending says game 2 holds 8 actions"}


@pytest.mark.parametrize("how", DAMAGE)
def test_65_history(tmp_path: Path, how: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = bornes(capsys, "history", "--config", str(config(tmp_path, damaged(tmp_path, how))))
    assert code == 65 and out == ""
    one_line(err, DAMAGE[how])


@pytest.mark.parametrize("how", DAMAGE)
def test_65_export(tmp_path: Path, how: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = bornes(capsys, "export", "2", "--config", str(config(tmp_path, damaged(tmp_path, how))))
    assert code == 65 and out == ""
    one_line(err, DAMAGE[how])


def test_65_feed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert bornes(capsys, "feed", str(script(tmp_path, SETUP + "wave at the table\n")))[0] == 65
    state = damaged(tmp_path, "flip")
    code, _, err = bornes(capsys, "feed", "--state-dir", str(state), str(script(tmp_path, "press ok\n")))
    assert code == 65
    one_line(err, "is damaged")


def test_65_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.record"
    broken.write_bytes(b"\xff\xfe not a record\n")
    assert bornes(capsys, "replay", str(broken))[0] == 65


def test_65_run(tmp_path: Path) -> None:
    """Never an exit: the panel asks; at the end of input it stops, exit 0, every file as it was."""
    state = damaged(tmp_path, "main-lost")
    before = {p.name: p.read_bytes() for p in state.iterdir()}
    done = process("run", "--emulate", "--display", "dummy", "--config", str(config(tmp_path, state)))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "is damaged (the database is missing but bornes.sqlite3-wal holds data" in done.stdout
    assert {p.name: p.read_bytes() for p in state.iterdir() if p.name in before} == before


@pytest.mark.slow  # a server process a case: the fast tier keeps the web's 0 and 75
def test_65_web(tmp_path: Path) -> None:
    """The issue's case: the phone's /history.csv was empty with 200 and /games/1/json a 404."""
    state = damaged(tmp_path, "main-lost")
    port = free_port()
    server = Server("web", "--config", str(config(tmp_path, state)), "--host", "127.0.0.1", "--port", str(port))
    try:
        server.wait_listening(port)
        for path in ("/history.csv", "/games/1/json", "/history"):
            reply = httpx.get(f"http://127.0.0.1:{port}{path}", timeout=10)
            assert reply.status_code == 503 and "the database is missing" in reply.text, (path, reply.status_code)
        assert server.stop() == 0
    finally:
        server.close()


def test_65_bridge(tmp_path: Path) -> None:
    """The issue's case: the bridge published "No game yet"; now its status says the journal is damaged."""
    from bornes.firmware.club.bridge import Bridge
    from bornes.firmware.club.settings import load_bridge

    state = damaged(tmp_path, "main-lost")
    settings = load_bridge(None, club="c1", table="t1", journal=str(state), state=str(tmp_path / "bridge"),
                           control=None, language=None, web_url=None, resend=None, all_history=None,
                           broker={"host": "127.0.0.1", "port": free_port(), "password": None, "tls_ca": None})
    bridge = Bridge(settings)
    try:
        bridge.sync()
        assert "is damaged (the database is missing" in bridge.journal_problem
        assert "\n" not in bridge.journal_problem
    finally:
        bridge.stop()


# -- 66: a file named on the command line does not exist ---------------------------------------------


def test_66_feed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = bornes(capsys, "feed", str(tmp_path / "nothing.txt"))
    assert code == 66
    one_line(err, "no such file")


def test_66_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = bornes(capsys, "replay", str(tmp_path / "nothing.record"))
    assert code == 66
    one_line(err, "no such file")


def test_66_run(tmp_path: Path) -> None:
    done = process("run", "--emulate", "--camera", str(tmp_path / "nowhere"), "--config",
                   str(config(tmp_path, tmp_path / "state")))
    assert done.returncode == 66
    one_line(done.stderr, "no such folder or video file")


# -- 70: a bug --------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", COMMANDS)
def test_70_every_command(command: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import importlib

    module = importlib.import_module(f"bornes.firmware.commands.{command}")

    def broken(args: object) -> int:
        raise RuntimeError("a bug")

    monkeypatch.setattr(module, "run", broken)
    argv = {"export": ["export", "1"], "replay": ["replay", "x"], "feed": ["feed", "x"]}.get(command, [command])
    code, _, err = bornes(capsys, *argv)
    assert code == 70
    one_line(err, "internal error: RuntimeError: a bug (run with --debug for details)")


# -- 73: a file cannot be made -------------------------------------------------------------------


@pytest.fixture
def lock_cannot_move(tmp_path: Path) -> Iterator[Path]:
    """A state folder whose bornes.lock is a folder that cannot be moved aside: a mount point."""
    state = tmp_path / "state"
    state.mkdir()
    with mounted_tmpfs(state / "bornes.lock", "64k"):
        yield state


def test_73_run(tmp_path: Path, lock_cannot_move: Path) -> None:
    done = process("run", "--emulate", "--display", "dummy", "--config", str(config(tmp_path, lock_cannot_move)))
    assert done.returncode == 73
    one_line(done.stdout + done.stderr, "is not a file and cannot be moved aside")


def test_73_feed(tmp_path: Path, lock_cannot_move: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = bornes(capsys, "feed", "--state-dir", str(lock_cannot_move), str(script(tmp_path, "press ok\n")))
    assert code == 73
    one_line(err, "is not a file and cannot be moved aside")


def test_73_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = played(tmp_path / "s")
    code, _, err = bornes(capsys, "export", "2", "--out", "/proc/nope/game.txt", "--config",
                          str(config(tmp_path, state)))
    assert code == 73
    one_line(err, "cannot write /proc/nope/game.txt")


# -- 74: the storage ------------------------------------------------------------------------------


def test_74_run(tmp_path: Path) -> None:
    with mounted_tmpfs(tmp_path / "mnt", "256k") as disk:
        fill(disk)
        done = process("run", "--emulate", "--display", "dummy", "--config", str(config(tmp_path, disk)))
    assert done.returncode == 74
    one_line(done.stdout + done.stderr, "the storage is full")


def test_74_feed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with mounted_tmpfs(tmp_path / "mnt", "256k") as disk:
        fill(disk)
        code, _, err = bornes(capsys, "feed", "--state-dir", str(disk), str(script(tmp_path, SETUP)))
    assert code == 74
    one_line(err, "the storage is full")


# -- 75: another program holds what it needs --------------------------------------------------------


def test_75_run(referee: tuple[Daemon, Path, Path]) -> None:
    daemon, config_path, _ = referee
    done = process("run", "--config", str(config_path))
    assert done.returncode == 75
    one_line(done.stderr, f"is in use by bornes run (PID {daemon.pid})")


def test_75_feed(referee: tuple[Daemon, Path, Path], tmp_path: Path) -> None:
    daemon, _, state = referee
    done = process("feed", "--state-dir", str(state), str(script(tmp_path, "press ok\n")))
    assert done.returncode == 75
    one_line(done.stderr, f"is in use by bornes run (PID {daemon.pid})")


@pytest.fixture
def port_in_use() -> Iterator[int]:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield int(holder.getsockname()[1])


def test_75_web(tmp_path: Path, port_in_use: int) -> None:
    done = process("web", "--config", str(config(tmp_path, tmp_path / "s")), "--host", "127.0.0.1", "--port",
                   str(port_in_use))
    assert done.returncode == 75
    one_line(done.stderr, f"port {port_in_use} on 127.0.0.1 is in use by another program")


@pytest.mark.slow  # a server process a case: the fast tier keeps the web's 0 and 75
def test_75_club(tmp_path: Path, port_in_use: int) -> None:
    done = process("club", "--club", "c1", "--database", str(tmp_path / "club.sqlite3"), "--host", "127.0.0.1",
                   "--port", str(port_in_use), "--broker-host", "127.0.0.1", "--broker-port", str(free_port()))
    assert done.returncode == 75
    assert f"port {port_in_use} on 127.0.0.1 is in use by another program" in done.stderr.splitlines()[-1]


# -- 78: the config -------------------------------------------------------------------------------


def test_78_run(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("not a folder\n")
    done = process("run", "--emulate", "--display", "dummy", "--config", str(config(tmp_path, tmp_path / "a-file")))
    assert done.returncode == 78
    one_line(done.stdout + done.stderr, f"state.dir = {tmp_path / 'a-file'}: is not a folder")


STATE_DIRS = {"a regular file": "is not a folder", "under /proc": "does not exist and cannot be created"}


def _state_dir(tmp: Path, kind: str) -> Path:
    if kind == "a regular file":
        (tmp / "a-file").write_text("not a folder\n")
        return tmp / "a-file"
    return Path("/proc/nope")


@pytest.mark.parametrize("kind", STATE_DIRS)
def test_78_history(tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's case: history said "no games yet" with exit 0 where run gives 78 and doctor FAIL."""
    code, out, err = bornes(capsys, "history", "--config", str(config(tmp_path, _state_dir(tmp_path, kind))))
    assert code == 78 and out == ""
    one_line(err, STATE_DIRS[kind])


@pytest.mark.parametrize("kind", STATE_DIRS)
def test_78_export(tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = bornes(capsys, "export", "1", "--config", str(config(tmp_path, _state_dir(tmp_path, kind))))
    assert code == 78
    one_line(err, STATE_DIRS[kind])


def test_78_web(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = bornes(capsys, "web", "--config", str(config(tmp_path, tmp_path / "s")), "--port", "70000")
    assert code == 78
    one_line(err, "--port 70000 is not a port")


def test_78_bridge(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = bornes(capsys, "bridge", "--club", "lyon")
    assert code == 78
    one_line(err, "table id '' must be")


def test_78_club(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = bornes(capsys, "club", "--club", "a/b")
    assert code == 78
    one_line(err, "club id 'a/b' must be")


def test_78_feed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a-file").write_text("not a folder\n")
    code, _, err = bornes(capsys, "feed", "--state-dir", str(tmp_path / "a-file"), str(script(tmp_path, "press ok\n")))
    assert code == 78
    one_line(err, "is not a folder")


# -- 130: interrupted ------------------------------------------------------------------------------


def test_130_feed() -> None:
    assert interrupted(["feed", "-"]) == 130


def test_130_replay() -> None:
    assert interrupted(["replay", "-"]) == 130


def _interrupted_in_process(command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                            capsys: pytest.CaptureFixture[str]) -> int:
    """Too quick to catch with a signal: Ctrl-C is a KeyboardInterrupt wherever it lands; here, in the
    config load each of these commands starts with."""
    import importlib

    def interrupt(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(importlib.import_module(f"bornes.firmware.commands.{command}"), "load_config", interrupt)
    argv = [command, "1"] if command == "export" else [command]
    return bornes(capsys, *argv, "--config", str(config(tmp_path, tmp_path / "s")))[0]


def test_130_history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    assert _interrupted_in_process("history", tmp_path, monkeypatch, capsys) == 130


def test_130_export(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    assert _interrupted_in_process("export", tmp_path, monkeypatch, capsys) == 130


def test_130_doctor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    assert _interrupted_in_process("doctor", tmp_path, monkeypatch, capsys) == 130


# -- the table and these tests -------------------------------------------------------------------


def _table_rows() -> set[tuple[int, str]]:
    text = (REPO / "docs" / "exit-codes.md").read_text(encoding="utf-8")
    rows = set()
    for match in re.finditer(r"^\| (\d+) \|[^|]*\| ([a-z ]+) \| [^|]+ \|$", text, re.MULTILINE):
        rows.add((int(match.group(1)), match.group(2).strip().replace(" ", "_")))
    return rows


def test_the_table_and_these_tests_list_the_same_rows() -> None:
    tested = set()
    for name in globals():
        match = re.match(r"test_(\d+)_([a-z]+(?:_command)?)", name)
        if match:
            command = match.group(2)
            tested.add((int(match.group(1)), "every_command" if command == "every_command" else command))
    table = _table_rows()
    assert table, "the table did not parse"
    assert table == tested, f"in the table only: {sorted(table - tested)}; tested only: {sorted(tested - table)}"
    assert {command for _, command in table} <= {*COMMANDS, "every_command"}


def test_systemd_does_not_restart_what_a_restart_cannot_cure() -> None:
    from tests.faults.test_start_failures import not_restarted

    assert not_restarted() == {65, 73, 74, 78}
    assert os.path.exists(REPO / "systemd" / "bornes.service") and sys.platform == "linux"
