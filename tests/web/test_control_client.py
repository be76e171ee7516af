"""The one control-socket client (firmware/appliance/control_client.py), against real Unix sockets."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from bornes.firmware.appliance.control_client import ControlClient, ControlUnreachable


@pytest.fixture
def answering(tmp_path: Path) -> Iterator[tuple[Path, list[bytes], list[bytes]]]:
    """A socket that answers each connection with the next of ``answers`` and keeps what it was sent."""
    path = tmp_path / "control.sock"
    answers: list[bytes] = []
    received: list[bytes] = []
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(4)

    def serve() -> None:
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            with connection:
                data = b""
                while not data.endswith(b"\n"):
                    chunk = connection.recv(4096)
                    if not chunk:
                        break
                    data += chunk
                received.append(data)
                connection.sendall(answers.pop(0))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield path, answers, received
    finally:
        server.shutdown(socket.SHUT_RDWR)
        server.close()
        thread.join(2)


def test_answers_are_typed_and_the_message_is_one_versioned_line(
        answering: tuple[Path, list[bytes], list[bytes]]) -> None:
    path, answers, received = answering
    answers += [b'{"v": 1, "ok": true}\n',
                b'{"v": 1, "ok": false, "error": "busy until this game ends", "waiting": true}\n',
                b'{"v": 1, "ok": false, "error": "mauvais\\n PIN"}\n']
    client = ControlClient(path)
    assert client.ask_pairing("http://t1.local:8080/setup").ok
    busy = client.propose_setup({"edition": "dujardin", "names": ["Zoé", "Jérôme"], "type": "play"})
    assert (busy.ok, busy.error, busy.waiting, busy.refusal) == (False, "busy until this game ends", True,
                                                                 "busy until this game ends")
    assert client.offer_pin("123456").refusal == "mauvais PIN", "a refusal is one line"
    sent = [json.loads(line) for line in received]
    assert all(line.endswith(b"\n") and line.count(b"\n") == 1 for line in received)
    assert sent[0] == {"v": 1, "type": "pair", "url": "http://t1.local:8080/setup"}
    assert sent[1] == {"v": 1, "type": "setup", "edition": "dujardin", "names": ["Zoé", "Jérôme"]}, \
        "a setup is a setup whatever its fields say"
    assert sent[2] == {"v": 1, "type": "pin", "pin": "123456"}


@pytest.mark.parametrize("answer, words", [
    (b"<html>\n", "is not JSON"),
    (b"[1, 2]\n", "is not a JSON object"),
    (b"\xff\xfe\n", "is not JSON"),
])
def test_a_garbled_answer_is_one_line_naming_the_socket(
        answering: tuple[Path, list[bytes], list[bytes]], answer: bytes, words: str) -> None:
    path, answers, _received = answering
    answers.append(answer)
    with pytest.raises(ControlUnreachable) as caught:
        ControlClient(path).offer_pin("123456")
    assert words in str(caught.value) and str(path) in str(caught.value) and "\n" not in str(caught.value)


def test_no_referee_is_one_line_naming_the_socket(tmp_path: Path) -> None:
    with pytest.raises(ControlUnreachable, match=r"not reachable at .*absent\.sock: No such file"):
        ControlClient(tmp_path / "absent.sock").ask_pairing("http://t1.local/")


def test_the_client_loads_neither_the_engine_nor_the_table() -> None:
    # The bridge and the web reach the referee without loading the rules or the table's flow for it.
    code = ("import sys, bornes.firmware.appliance.control_client; "
            "print(sorted(m for m in sys.modules if m.startswith('bornes.')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "bornes.firmware.appliance.control_client" in loaded
    assert "bornes.engine" not in loaded and "bornes.firmware.table" not in loaded
