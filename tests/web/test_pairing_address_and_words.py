"""The pairing page as a French table's phone meets it, and the address the QR code names (issue 29).

A real ``bornes web`` on loopback and a real referee loop behind a real control socket: a PIN asked
for during a hand is refused in the page's language, and a server that listens on one address puts
that address in the panel's QR code and in the referee's log, never a LAN address it does not serve.
"""

from __future__ import annotations

import logging
import re
import threading
from pathlib import Path
from typing import Any

import pytest

from bornes.drivers.events import ButtonPressed
from bornes.firmware.appliance.control_client import ControlClient
from bornes.firmware.web.site import Settings, pages_url
from tests.web.server import first_hand, referee_table, web_server


def _step(table: Any, event: Any) -> None:
    done = threading.Event()
    table.referee.on_outcome = lambda _event, _outcome: done.set()
    table.events.put(event)
    assert done.wait(5)


def test_a_pin_asked_for_during_a_hand_is_refused_in_the_pages_language(tmp_path: Path) -> None:
    with referee_table(tmp_path / "control.sock") as table, \
            web_server(tmp_path / "state", tmp_path / "control.sock", language="fr") as web:
        assert ControlClient(table.socket).propose_setup({"edition": "winning-moves", "players": 2,
                                                          "names": ["Léa", "Bob"], "dealer": 1}).ok
        _step(table, ButtonPressed("OK"))
        _step(table, first_hand()[0])  # Léa rolls: a hand is being played
        status, _headers, body = web.post("/pair/start", b"")
        page = body.decode()
        assert status == 409
        assert "une manche est en cours\u00a0: demandez un code entre deux manches" in page
        assert "a hand is being played" not in page
        assert table.referee.pairing.pin is None


def test_a_server_on_one_address_names_that_address_in_the_qr_code_and_the_log(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="bornes")
    with referee_table(tmp_path / "control.sock") as table, \
            web_server(tmp_path / "state", tmp_path / "control.sock") as web:  # --host 127.0.0.1
        status, _headers, _body = web.post("/pair/start", b"")
        assert status == 200
        port = web.url.rsplit(":", 1)[1]
        assert table.referee.pairing.url == f"http://127.0.0.1:{port}/setup"  # what the QR code says
        shown = [r.getMessage() for r in caplog.records if r.getMessage().startswith("pairing: PIN shown")]
        assert shown == [f"pairing: PIN shown on the panel for http://127.0.0.1:{port}/setup"]


@pytest.mark.parametrize(("host", "expected"), [
    ("127.0.0.1", "http://127.0.0.1:8080/"),
    ("::1", "http://[::1]:8080/"),
    ("192.0.2.7", "http://192.0.2.7:8080/"),
    ("localhost", "http://localhost:8080/"),
])
def test_the_qr_code_names_the_address_the_server_listens_on(host: str, expected: str) -> None:
    assert pages_url(Settings(Path("."), Path("."), host=host)) == expected


@pytest.mark.parametrize("host", ["", "0.0.0.0", "::"])
def test_a_server_on_every_address_names_this_machines_address(host: str) -> None:
    url = pages_url(Settings(Path("."), Path("."), host=host))
    assert re.fullmatch(r"http://[^/:]+:8080/", url) and "0.0.0.0" not in url, url
    assert pages_url(Settings(Path("."), Path("."), host=host, url="http://table1.local/")) == "http://table1.local/"
