"""The appliance in a booted systemd: Debian trixie, the real units, installed by ``systemd/install.sh``.

A trixie root (debootstrap, cached in /var/cache/bornes-ci) boots under ``systemd-nspawn -b``
with a private network; ``install.sh --no-pi --wheels`` installs bornes, its phone pages and
its club bridge from wheels downloaded on the host, as on a Pi minus what only a Pi has (GPIO,
I2C, raspi-config); the second run, an upgrade, adds ``--compile-engine``, so the rest runs on the
engine compiled by mypyc (docs/engine-speed.md). The table is configured as a desktop twin
(dummy panel, mock pins) with a pty as its card reader. Then, through systemctl, the systemd
journal and the control socket:

* the referee reaches READY and keeps pinging the watchdog;
* cards tapped on the reader are accepted and land in the game journal;
* ``systemctl kill -s KILL`` and the restart systemd makes resume the game with nothing lost;
* a config error (exit 78) is not restarted;
* bornes-web and bornes-bridge serve, and stop and restart with the referee;
* the installed units' ``systemd-analyze security`` exposure is within what docs/system.md states;
* a reboot brings all three back with the game where it was; ``install.sh --uninstall`` removes them.

docs/system.md says how to run it by hand. Skipped, with the reason, where the machine cannot
build or boot the root (not root, no systemd-nspawn or debootstrap, no network for Debian).
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from bench.driver import NAMES, Script, script_games
from tests.system.booted import REPO, CannotBoot, Machine, cached_root, cached_wheels

DOCS = REPO / "docs" / "system.md"
INSTALL = ["bash", "/opt/bornes/src/systemd/install.sh", "--wheels", "/var/cache/bornes-wheels", "--web", "--bridge"]
PLAYERS = 2
CONFIG = f"""\
[reader]
protocol = "lines"
port = "/dev/bornes-reader"
double_read_window = 0
max_backoff = 0.5
[display]
panel = "dummy"
[pins]
factory = "mock"
[game]
players = {PLAYERS}
names = [{", ".join(f'"{name}"' for name in NAMES[:PLAYERS])}]
"""
BRIDGE = '[bridge]\nclub = "ci"\ntable = "t1"\n[broker]\nhost = "127.0.0.1"\nport = 1883\n'
UNITS = ("bornes.service", "bornes-web.service", "bornes-bridge.service")
IN_CI = os.environ.get("CI") == "true"
pytestmark = pytest.mark.slow  # a booted Debian in a container; tests/appliance/test_systemd is its fast share


def _active(machine: Machine, unit: str) -> bool:
    return machine.show(unit, "ActiveState")["ActiveState"] == "active"


def _why_not() -> str | None:
    if os.geteuid() != 0:
        return "the system test needs root (debootstrap and systemd-nspawn)"
    for tool in ("systemd-nspawn", "debootstrap", "nsenter"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (.ci/run installs it)"
    return None


@dataclass
class Table:
    machine: Machine
    script: Script
    installs: list[str] = field(default_factory=list)
    builds: list[str] = field(default_factory=list)  # engine_build() after each install
    acked: int = 0  # script steps accepted so far

    def accepted(self) -> list[str]:
        prefix = "bornes: accepted "
        return [line[len(prefix):] for line in self.machine.journal("bornes.service") if line.startswith(prefix)]

    def stored(self) -> list[str]:
        """The current game's actions in the game journal, read as the referee's user."""
        code = ("import json; from bornes.firmware.storage.journal import Journal\n"
                "with Journal.open('/var/lib/bornes', readonly=True) as j:\n"
                "    g = j.current_game(); print(json.dumps(g.lines if g else []))")
        done = self.machine.run("setpriv", "--reuid=bornes", "--regid=bornes", "--init-groups",
                                "/opt/bornes/venv/bin/python", "-c", code)
        return list(json.loads(done.stdout))

    def accepted_more_than(self, count: int) -> bool:
        return len(self.accepted()) > count

    def play(self, steps: int) -> None:
        """Tap the next ``steps`` actions of the script, waiting for each to be accepted."""
        for step in self.script.steps[self.acked:self.acked + steps]:
            before = len(self.accepted())
            self.machine.tap(*step.taps)
            self.machine.wait(f"'accepted {step.notation}'", functools.partial(self.accepted_more_than, before))
            assert self.accepted()[-1] == step.notation
            self.acked += 1

    def count(self, text: str) -> int:
        return sum(text in line for line in self.machine.journal("bornes.service"))

    def control(self, message: dict[str, object]) -> dict[str, object]:
        """One request on the referee's control socket, as bornes-web sends it."""
        code = ("import socket, sys\n"
                "s = socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect('/run/bornes/control.sock')\n"
                "s.sendall(sys.stdin.read().encode()); print(s.makefile().readline())")
        done = self.machine.run("python3", "-c", code, input=json.dumps(message) + "\n")
        answer = json.loads(done.stdout)
        assert isinstance(answer, dict)
        return answer


@pytest.fixture(scope="module")
def table() -> Iterator[Table]:
    reason = _why_not()
    if reason:
        pytest.skip(reason)
    try:
        machine = Machine(cached_root(), cached_wheels())
    except CannotBoot as error:
        if IN_CI:  # CI installs the tools and reaches Debian: a failure there is a failure
            raise
        pytest.skip(str(error))
    try:
        try:
            machine.start()
        except CannotBoot as error:
            pytest.skip(str(error))
        # What an image builder puts in place for a table without a Pi: a desktop twin with a reader.
        machine.path("/etc/bornes").mkdir(parents=True, exist_ok=True)
        machine.path("/etc/bornes/config.toml").write_text(CONFIG)
        machine.path("/etc/bornes/bridge.toml").write_text(BRIDGE)
        result = Table(machine, script_games(players=PLAYERS, seed=3, games=1))
        # First as on a Pi whose apt has no python3-lgpio; then again, as an upgrade, with --no-pi
        # and the engine compiled (its compiler and headers are in the root, mypy among the wheels).
        for extra in ([], ["--no-pi", "--compile-engine"]):
            done = machine.run(*INSTALL, *extra, timeout=600, check=False)
            assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
            result.installs.append(done.stdout)
            result.builds.append(machine.run("/opt/bornes/venv/bin/python", "-c",
                                             "from bornes.engine import engine_build; print(engine_build())").stdout)
        yield result
    finally:
        machine.close()
        assert machine.mounts() == [], "mounts left behind"


def _security_ceilings() -> dict[str, float]:
    """The exposure each unit may have, from docs/system.md's table: | `unit` | measured | ceiling |."""
    found = {}
    for match in re.finditer(r"^\| `([\w-]+\.service)` \| [\d.]+ \| ([\d.]+) \|", DOCS.read_text(), re.MULTILINE):
        found[match.group(1)] = float(match.group(2))
    return found


def test_install_runs_to_the_end_on_plain_trixie_and_again(table: Table) -> None:
    first, again = table.installs
    for out in (first, again):
        assert "Debian trixie, Python 3.13" in out
        assert "==> done" in out
        assert "skipped: udevd is not running here" in out
    # Plain trixie taken for a Pi: what only the Raspberry Pi archive and Raspberry Pi OS have is said, not fatal.
    assert "skipped: python3-lgpio is not in this system's apt sources" in first
    assert "skipped: raspi-config not found: enable I2C yourself (dtparam=i2c_arm=on and dtparam=i2c_arm_baudrate" \
        "=400000 in /boot/firmware/config.txt)" in first  # the bus at 400 kHz too: a frame in 23 ms, not 93
    assert "skipped: not a Pi (--no-pi): no GPIO" in again and "skipped: not a Pi (--no-pi): no I2C" in again
    assert "keeping existing /etc/bornes/config.toml" in again and "user bornes exists" in again
    assert "already installed" in again
    pinned = dict(line.split("==") for line in (REPO / "systemd" / "pi-constraints.txt").read_text().splitlines()
                  if "==" in line and not line.startswith("#"))
    installed = dict(line.split("==") for line in table.machine.run(
        "/opt/bornes/venv/bin/pip", "list", "--format=freeze", "--disable-pip-version-check").stdout.splitlines()
        if "==" in line)
    for name, version in installed.items():
        key = next((pin for pin in pinned if pin.lower().replace("_", "-") == name.lower().replace("_", "-")), None)
        if key is not None:
            assert version == pinned[key], f"{name} {version} installed, {pinned[key]} pinned"
    assert {"pillow", "starlette", "paho-mqtt"} <= {name.lower() for name in installed}
    assert "mypy" not in {name.lower() for name in installed}, "mypy is the build's, not the program's"


def test_the_default_install_is_python_and_compile_engine_makes_the_referee_run_compiled(table: Table) -> None:
    first, again = table.installs
    assert table.builds == ["python\n", "mypyc\n"]
    assert "built as C with mypyc" not in first and "built as C with mypyc (--compile-engine" in again
    # The restarted service itself has the engine's C extension mapped, not only a fresh interpreter.
    pid = table.machine.show("bornes.service", "MainPID")["MainPID"]
    maps = table.machine.run("cat", f"/proc/{pid}/maps").stdout
    assert "/opt/bornes/venv/lib/python3.13/site-packages/bornes_engine__mypyc." in maps
    doctor = table.machine.run("setpriv", "--reuid=bornes", "--regid=bornes", "--init-groups",
                               "/opt/bornes/venv/bin/bornes", "doctor", check=False).stdout
    assert "OK   engine: mypyc: the rules run compiled to C by mypyc" in doctor


def test_the_referee_reaches_ready_and_pings_the_watchdog(table: Table) -> None:
    machine = table.machine
    show = machine.show("bornes.service", "ActiveState", "SubState", "StatusText", "WatchdogUSec", "NRestarts",
                        "MainPID", "Type")
    assert (show["Type"], show["ActiveState"], show["SubState"]) == ("notify", "active", "running")
    assert show["StatusText"] == "referee up", show  # sent with READY=1
    pid = show["MainPID"]

    def pinged() -> int:
        return int(machine.show("bornes.service", "WatchdogTimestampMonotonic")["WatchdogTimestampMonotonic"])

    first = pinged()
    machine.wait("a second watchdog ping", lambda: pinged() > first, timeout=30)
    # Two pings seen; the loop answers on the control socket without changing anything.
    answer = table.control({"v": 1, "type": "pin", "pin": "123456"})
    assert answer == {"v": 1, "ok": False, "error": "no PIN is shown: ask for a new one"}
    after = machine.show("bornes.service", "MainPID", "NRestarts", "ActiveState")
    assert after == {"MainPID": pid, "NRestarts": "0", "ActiveState": "active"}


def test_cards_tapped_on_the_reader_land_in_the_journal(table: Table) -> None:
    table.machine.wait("the reader", lambda: table.count("reader back on /dev/bornes-reader") > 0)
    table.play(5)
    assert table.stored() == table.script.notations()[:5]


def test_kill_and_restart_resume_the_game_with_nothing_lost(table: Table) -> None:
    machine = table.machine
    if table.acked == 0:  # run alone (-k): a game in progress first
        machine.wait("the reader", lambda: table.count("reader back on /dev/bornes-reader") > 0)
        table.play(3)
    before = machine.show("bornes.service", "MainPID", "NRestarts")
    readers, resumed = table.count("reader back on"), table.count("resumed game in progress")
    machine.run("systemctl", "kill", "--signal=KILL", "bornes.service")

    def restarted() -> bool:
        now = machine.show("bornes.service", "MainPID", "NRestarts", "ActiveState", "SubState")
        return (now["NRestarts"] == str(int(before["NRestarts"]) + 1) and now["MainPID"] not in ("0", before["MainPID"])
                and (now["ActiveState"], now["SubState"]) == ("active", "running"))

    machine.wait("systemd to restart the referee", restarted, timeout=30)
    machine.wait("the reader", lambda: table.count("reader back on") > readers)
    assert table.count("resumed game in progress") == resumed + 1
    last = [line for line in machine.journal("bornes.service") if "resumed game in progress" in line][-1]
    assert last.endswith(f"{table.acked} actions"), last
    assert table.stored() == table.script.notations()[:table.acked]
    table.play(2)  # and the game goes on from there
    assert table.stored() == table.script.notations()[:table.acked]


def test_web_and_bridge_serve_and_stop_and_restart_with_the_referee(table: Table) -> None:
    machine = table.machine
    code = ("import json, urllib.request\n"
            "print(json.dumps(json.load(urllib.request.urlopen('http://127.0.0.1:8080/api/table', timeout=5))))")
    machine.wait("the phone pages", lambda: machine.run("python3", "-c", code, check=False).returncode == 0)
    page = machine.run("python3", "-c", code).stdout
    assert NAMES[0] in page and NAMES[1] in page
    live = machine.run("mosquitto_sub", "-h", "127.0.0.1", "-t", "bornes/ci/t1/live", "-C", "1", "-W", "10",
                       timeout=20).stdout
    assert NAMES[0] in live, live
    pids = {unit: machine.show(unit, "MainPID")["MainPID"] for unit in UNITS}

    machine.run("systemctl", "restart", "bornes.service", timeout=60)
    for unit in UNITS:
        machine.wait(f"{unit} to be running again", functools.partial(_active, machine, unit))
        assert machine.show(unit, "MainPID")["MainPID"] != pids[unit], f"{unit} was not restarted"
    machine.run("systemctl", "stop", "bornes.service", timeout=60)
    for unit in UNITS:
        assert machine.show(unit, "ActiveState")["ActiveState"] == "inactive", unit
    machine.run("systemctl", "start", *UNITS, timeout=60)
    for unit in UNITS:
        machine.wait(f"{unit} to start", functools.partial(_active, machine, unit))


def test_a_config_error_stops_the_referee_without_restarts(table: Table) -> None:
    machine = table.machine
    config = machine.path("/etc/bornes/config.toml")
    config.write_text(CONFIG.replace(f"players = {PLAYERS}", "players = 5"))  # winning-moves: 2, 3, 4 or 6
    try:
        machine.run("systemctl", "restart", "--no-block", "bornes.service")
        machine.wait("the referee to fail", lambda: machine.show("bornes.service", "ActiveState")["ActiveState"]
                     == "failed")
        failed = machine.show("bornes.service", "ExecMainStatus", "Result", "NRestarts", "RestartUSec")
        assert (failed["ExecMainStatus"], failed["Result"]) == ("78", "exit-code"), failed
        # Twice RestartSec and more: systemd would have restarted it by now if it were going to.
        restart = re.fullmatch(r"([\d.]+)s", failed["RestartUSec"])
        time.sleep(2 * (float(restart.group(1)) if restart else 2.0) + 1)
        still = machine.show("bornes.service", "ActiveState", "NRestarts")
        assert still == {"ActiveState": "failed", "NRestarts": failed["NRestarts"]}
        said = [line for line in machine.journal("bornes.service") if "players" in line]
        assert said and "Traceback" not in "\n".join(machine.journal("bornes.service"))
    finally:
        config.write_text(CONFIG)
        machine.run("systemctl", "reset-failed", "bornes.service", check=False)
        machine.run("systemctl", "start", *UNITS, timeout=60, check=False)
    assert machine.show("bornes.service", "ActiveState")["ActiveState"] == "active"


def test_the_installed_units_are_as_exposed_as_docs_say(table: Table) -> None:
    ceilings = _security_ceilings()
    assert set(UNITS) <= set(ceilings), f"docs/system.md gives no ceiling for {set(UNITS) - set(ceilings)}"
    for unit in UNITS:
        done = table.machine.run("systemd-analyze", "security", "--no-pager", unit, check=False)
        match = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", done.stdout + done.stderr)
        assert match is not None, done.stdout + done.stderr
        exposure = float(match.group(1))
        print(f"{unit}: exposure {exposure}")
        assert exposure <= ceilings[unit], f"{unit}: {exposure} > {ceilings[unit]} (docs/system.md)"


def test_a_reboot_brings_the_table_back_and_uninstall_removes_it(table: Table) -> None:
    machine = table.machine
    machine.stop()
    assert machine.mounts() == []
    machine.start()
    for unit in UNITS:
        machine.wait(f"{unit} after the reboot", functools.partial(_active, machine, unit))
    table.machine.wait("the reader", lambda: table.count("reader back on") > 0)
    assert table.stored() == table.script.notations()[:table.acked]
    table.play(1)
    done = machine.run("bash", "/opt/bornes/src/systemd/install.sh", "--uninstall", timeout=120)
    assert "kept: /etc/bornes" in done.stdout
    for unit in UNITS:
        assert not machine.path(f"/etc/systemd/system/{unit}").exists()
        assert machine.show(unit, "LoadState", "ActiveState") == {"LoadState": "not-found", "ActiveState": "inactive"}
    assert machine.path("/etc/bornes/config.toml").exists() and machine.path("/var/lib/bornes").is_dir()
    again = machine.run("bash", "/opt/bornes/src/systemd/install.sh", "--uninstall", timeout=120, check=False)
    assert again.returncode == 0, again.stderr
