"""The bridge and board units pass systemd-analyze verify; the sample settings load; install.sh knows them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from bornes.firmware.club.settings import SettingsError, load_board, load_bridge

REPO = Path(__file__).resolve().parents[2]
ANALYZE = shutil.which("systemd-analyze")


@pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze is not installed")
@pytest.mark.parametrize("name", ["bornes-bridge.service", "bornes-club.service"])
def test_unit_verifies(name: str, tmp_path: Path) -> None:
    text = (REPO / "systemd" / name).read_text()
    true = shutil.which("true")
    assert true is not None
    start = next(line for line in text.splitlines() if line.startswith("ExecStart="))
    assert start.startswith(("ExecStart=/opt/bornes/venv/bin/bornes ", "ExecStart=/opt/bornes/venv/bin/python -m "))
    copy = tmp_path / name
    copy.write_text(text.replace(start.split()[0], f"ExecStart={true}"))
    result = subprocess.run([str(ANALYZE), "verify", "--man=no", "--generators=no", str(copy)],
                            capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert result.returncode == 0 and not result.stderr.strip(), result.stderr


def test_bridge_is_off_by_default_and_installed_on_request() -> None:
    script = (REPO / "systemd" / "install.sh").read_text()
    assert "--bridge) BRIDGE=1" in script and "--club) CLUB=1" in script
    dry = subprocess.run(["bash", str(REPO / "systemd" / "install.sh"), "--dry-run"], capture_output=True, text=True)
    assert dry.returncode == 0 and "bornes-bridge" not in dry.stdout
    dry = subprocess.run(["bash", str(REPO / "systemd" / "install.sh"), "--dry-run", "--bridge"],
                         capture_output=True, text=True)
    assert "systemctl enable bornes-bridge.service" in dry.stdout


def test_the_referee_stays_off_the_network() -> None:
    assert "PrivateNetwork=yes" in (REPO / "systemd" / "bornes.service").read_text()


def test_sample_settings_load(tmp_path: Path) -> None:
    # The secrets come from the command line (the units pass their systemd credentials), not the file.
    bridge = load_bridge(str(REPO / "config" / "bridge.sample.toml"), broker={"password": "s3cret"})
    assert (bridge.club, bridge.table) == ("myclub", "t1")
    assert (bridge.broker.username, bridge.broker.password) == ("t1", "s3cret")
    board = load_board(str(REPO / "config" / "club.sample.toml"), broker={"port": 1999},
                       organiser_password="s3cret-long")
    assert (board.port, board.broker.port, board.organiser_password) == (8080, 1999, "s3cret-long")


@pytest.mark.parametrize("text, words", [
    ("[bridge]\nclub = 'c'\ntable = 'board'\n", "table id 'board'"),
    ("[bridge]\nclub = 'c'\ntable = 't1'\nresend = 'soon'\n",
     'bridge.resend = "soon" is a string, not a number of seconds'),
    ("[bridge]\nclub = 'c'\ntable = 't1'\nwho = 1\n", "unknown key bridge.who; known keys in [bridge]: club, table"),
    ("[bridge\n", "bridge.toml"),
    ("[bridge]\nclub = 'c'\ntable = 't1'\n[broker]\npassword_file = '/nonexistent/x'\n",
     'broker.password_file = "/nonexistent/x" cannot be read'),
])
def test_bad_settings_are_one_line(tmp_path: Path, text: str, words: str) -> None:
    path = tmp_path / "bridge.toml"
    path.write_text(text)
    with pytest.raises(SettingsError) as caught:
        load_bridge(str(path))
    # The same words as the referee's config: the file, the key, the value, what is wanted (tomlcheck).
    assert str(caught.value).startswith(f"bridge settings {path}: ")
    assert words in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("args, words", [
    (["bridge", "--club", "lyon"], "table id '' must be"),
    (["bridge", "--club", "lyon", "--table", "t1", "--password-file", "/nonexistent"], "cannot read /nonexistent"),
    (["club", "--club", "a/b"], "club id 'a/b' must be"),
])
def test_commands_refuse_bad_settings_in_one_line(args: list[str], words: str) -> None:
    import contextlib
    import io

    from bornes.firmware.cli import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(args)
    assert code == 78 and words in err.getvalue() and err.getvalue().count("\n") == 1


@pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze is not installed")
@pytest.mark.parametrize("name", ["bornes-bridge.service", "bornes-club.service"])
def test_unit_exposure_is_at_most_2(name: str, tmp_path: Path) -> None:
    import re

    text = (REPO / "systemd" / name).read_text()
    start = next(line for line in text.splitlines() if line.startswith("ExecStart="))
    copy = tmp_path / name
    copy.write_text(text.replace(start.split()[0], f"ExecStart={shutil.which('true')}"))
    result = subprocess.run([str(ANALYZE), "security", "--offline=yes", "--no-pager", str(copy)],
                            capture_output=True, text=True, timeout=60, cwd=tmp_path)
    found = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", result.stdout + result.stderr)
    assert found is not None, result.stdout + result.stderr
    assert float(found.group(1)) <= 2.0


def test_the_sample_mosquitto_conf_starts_a_broker(tmp_path: Path) -> None:
    """config/mosquitto/bornes.conf as shipped (paths moved into a tmp dir, port made free) runs."""
    import getpass
    import time

    from bench.club import free_port, wait_port
    from tests.club.conftest import require_mosquitto

    require_mosquitto()
    port = free_port()
    passwd = tmp_path / "bornes.passwd"
    subprocess.run([shutil.which("mosquitto_passwd") or "mosquitto_passwd", "-c", "-b", str(passwd), "board", "x"],
                   check=True, capture_output=True)
    (tmp_path / "bornes.acl").write_text((REPO / "config" / "mosquitto" / "bornes.acl").read_text())
    text = (REPO / "config" / "mosquitto" / "bornes.conf").read_text()
    text = (text.replace("/etc/mosquitto/", f"{tmp_path}/").replace("/var/lib/mosquitto/", f"{tmp_path}/")
            .replace("listener 1883", f"listener {port} 127.0.0.1"))
    conf = tmp_path / "bornes.conf"
    conf.write_text(f"user {getpass.getuser()}\n{text}")
    broker = subprocess.Popen([shutil.which("mosquitto") or "/usr/sbin/mosquitto", "-c", str(conf)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        wait_port(port, 10)
        time.sleep(0.2)
        assert broker.poll() is None
    finally:
        broker.terminate()
        output = broker.communicate(timeout=10)[0].decode(errors="replace")
    assert "Error" not in output, output
