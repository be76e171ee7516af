"""TLS, the optional part of docs/club.md: a bridge given the club's CA connects over TLS and publishes."""

from __future__ import annotations

import getpass
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from bench.club import Child, bridge_child, free_port, play_game, table_password, wait_port
from bornes.engine.options import EDITIONS
from bornes.engine.state import GameSetup
from tests.club.conftest import require_mosquitto


def test_a_bridge_publishes_over_tls(tmp_path: Path) -> None:
    require_mosquitto()
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "broker.crt", tmp_path / "broker.key"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    port = free_port()
    passwd = tmp_path / "passwd"
    passwd.write_text("")
    subprocess.run([shutil.which("mosquitto_passwd") or "mosquitto_passwd", "-b", str(passwd), "t1",
                    table_password("t1")], check=True, capture_output=True)
    acl = (Path(__file__).resolve().parents[2] / "config" / "mosquitto" / "bornes.acl").read_text()
    (tmp_path / "acl").write_text(acl.replace("myclub", "bench"))
    conf = tmp_path / "mosquitto.conf"
    conf.write_text(f"user {getpass.getuser()}\nper_listener_settings false\nallow_anonymous false\n"
                    f"password_file {passwd}\nacl_file {tmp_path / 'acl'}\nlistener {port} 127.0.0.1\n"
                    f"certfile {cert}\nkeyfile {key}\ntls_version tlsv1.2\npersistence false\n"
                    "log_dest stderr\nlog_type all\n")
    log = open(tmp_path / "mosquitto.log", "wb")  # noqa: SIM115 - the broker writes it until the end
    broker = subprocess.Popen([shutil.which("mosquitto") or "/usr/sbin/mosquitto", "-c", str(conf)],
                              stdout=log, stderr=log)
    bridge: Child | None = None
    try:
        wait_port(port)

        bridge = bridge_child(tmp_path, "t1", port)
        bridge.args += ["--tls-ca", str(cert)]
        (tmp_path / "t1" / "journal").mkdir(parents=True)
        bridge.start()
        deadline = time.monotonic() + 60  # ends at the line; 60 s only when it never comes
        while "connected to the broker" not in bridge.text():  # up (and past its first look at the journal)
            assert time.monotonic() < deadline, bridge.text()
            time.sleep(0.05)
        setup = GameSetup.create("winning-moves", ["Anne", "Bruno"],
                                 options=EDITIONS["winning-moves"].options.replace(game_target=0))
        play_game(tmp_path / "t1" / "journal", setup, seed=3)
        deadline = time.monotonic() + 60  # ends at the line; 60 s only when it never comes
        # The broker (TLS only on this listener) received the game's result from the bridge.
        while "'bornes/bench/t1/result'" not in (tmp_path / "mosquitto.log").read_text():
            assert time.monotonic() < deadline, bridge.text()
            time.sleep(0.1)
    finally:
        if bridge is not None:
            bridge.stop()
        broker.terminate()
        broker.wait(5)
        log.close()
