"""A real `bornes web` on loopback: bad requests get a clear answer and change nothing, PIN tries are
rate-limited, and every connected page gets every update while `bornes feed` writes the journal."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.server import GAMES, Table, Web, feed, feed_lines, referee_table, web_server


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Web, Table]]:
    base = tmp_path_factory.mktemp("server")
    feed((GAMES / "hasbro-2016.feed").read_text(), base / "state")
    with referee_table(base / "control.sock") as table, web_server(base / "state", base / "control.sock") as web:
        yield web, table


def _raw_http(web: Web, data: bytes) -> bytes:
    host, port = web.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as conn:
        conn.sendall(data)
        chunks = []
        while True:
            try:
                chunk = conn.recv(65536)
            except TimeoutError:
                break
            if not chunk:
                break
            chunks.append(chunk)
    return b"".join(chunks)


def test_malformed_and_oversized_requests_get_a_clear_status(site: tuple[Web, Table]) -> None:
    web, table = site
    assert web.get("/games/999/view")[0] == 404
    assert web.get("/games/abc/sheet")[0] == 404
    assert web.get("/games/1/view?step=x")[0] == 400
    assert web.get("/nowhere")[0] == 404
    assert web.get("/static/../firmware/web/app.py")[0] == 404
    status, _, body = web.post("/pair", b"pin=" + b"1" * 20000)
    assert status == 413 and b"larger than 8192 bytes" in body
    status, _, body = web.post("/pair", b"pin=123456", {"content-type": "application/json"})
    assert status == 415
    status, _, _ = web.post("/pair", b"\xff\xfe=\xff")
    assert status in (400, 403)
    status, _, body = web.post("/setup", b"edition=dujardin", {"origin": "http://evil.example"})
    assert status == 403 and b"own pages" in body
    assert _raw_http(web, b"GARBAGE\r\n\r\n").startswith(b"HTTP/1.1 400")
    assert web.get("/setup")[0] == 200 and table.referee.flow.draft.edition == "winning-moves"


def test_wrong_pins_are_rate_limited_per_phone(site: tuple[Web, Table]) -> None:
    web, table = site
    assert web.post("/pair/start", b"")[0] == 200
    pin = table.referee.pairing.pin
    assert pin is not None
    wrong = "000000" if pin != "000000" else "111111"
    statuses = [web.post("/pair", f"pin={wrong}".encode())[0] for _ in range(6)]
    assert statuses[:4] == [403] * 4 and statuses[5] == 429
    status, _, body = web.post("/pair", f"pin={pin}".encode())
    assert status == 429 and b"Too many tries" in body  # even the right PIN waits


def test_an_unpaired_setup_is_refused(site: tuple[Web, Table]) -> None:
    web, table = site
    status, _, body = web.post("/setup", b"edition=dujardin&players=2&name0=Ann&name1=Bob")
    assert status == 403 and b"not paired" in body
    status, _, _ = web.post("/setup", b"edition=dujardin", {"cookie": "bornes_pair=forged-token"})
    assert status == 403
    assert table.referee.flow.draft.edition == "winning-moves"


class SseClient(threading.Thread):
    """A page's event stream, read as bytes off the socket: counts the table updates it receives."""

    def __init__(self, web: Web, phone: int = 1) -> None:
        super().__init__(daemon=True)
        host, port = web.url.removeprefix("http://").split(":")
        # Each page from a phone of its own (127.0.0.0/8 is all loopback): one phone may hold only a few.
        self.connection = http.client.HTTPConnection(host, int(port), timeout=30,
                                                     source_address=(f"127.0.1.{phone}", 0))
        self.actions: list[int] = []
        self.ready = threading.Event()

    def run(self) -> None:
        self.connection.request("GET", "/events")
        response = self.connection.getresponse()
        assert response.status == 200
        self.ready.set()
        data = ""
        try:
            while True:
                line = response.fp.readline().decode()
                if not line:
                    return
                if line.startswith("data: "):
                    data = line[6:]
                elif line == "\n" and data:
                    self.actions.append(json.loads(data)["actions"])
                    data = ""
        except (OSError, ValueError):
            return

    def close(self) -> None:
        """Hang up: shut the socket down (a plain close would wait for the reading thread)."""
        sock = self.connection.sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        self.join(5)
        self.connection.close()


@pytest.mark.slow
def test_fifty_pages_each_receive_every_update_while_the_journal_is_written(site: tuple[Web, Table]) -> None:
    web, _table = site
    clients = [SseClient(web, phone) for phone in range(1, 51)]
    for client in clients:
        client.start()
    for client in clients:
        assert client.ready.wait(60)
    lines = feed_lines("two-players-classic.feed")
    setup, cards = lines[0], lines[1:13]
    # The journal is written while 50 pages read it, and pages are loaded at the same time.
    reader_errors: list[Any] = []

    def load_pages() -> None:
        for _ in range(10):
            for path in ("/", "/history", "/stats", "/api/table"):
                status = web.get(path)[0]
                if status != 200:
                    reader_errors.append((path, status))

    loader = threading.Thread(target=load_pages)
    loader.start()
    feed(setup + "\n", web.state_dir)
    for card in cards:  # one `bornes feed` per card: one commit, one update
        feed(card + "\n", web.state_dir)
        time.sleep(0.05)
    loader.join(60)
    expected = web.get("/api/table")[2]
    final = json.loads(expected)["action_count"]
    deadline = time.monotonic() + 60  # ends when every page has the last update
    while time.monotonic() < deadline and any(not c.actions or c.actions[-1] != final for c in clients):
        time.sleep(0.05)
    for client in clients:
        client.close()
    assert not reader_errors
    for client in clients:
        assert client.actions[-1] == final
        # Every accepted card reached every page (0 = the new game, then 1, 2, …).
        assert set(range(final + 1)) <= set(client.actions), client.actions
    assert web.process.poll() is None


def test_pages_tell_the_browser_to_load_nothing_from_elsewhere(site: tuple[Web, Table]) -> None:
    web, _table = site
    for path in ("/", "/history", "/stats", "/setup", "/games/1/view"):
        status, headers, body = web.get(path)
        assert status == 200
        policy = headers["content-security-policy"]
        assert "default-src 'self'" in policy and "script-src 'self';" in policy
        assert b" on" + b"change=" not in body and b"<script>" not in body  # no inline script to allow
        assert headers["x-content-type-options"] == "nosniff"


def test_downloads(site: tuple[Web, Table], tmp_path: Path) -> None:
    web, _table = site
    status, headers, body = web.get("/games/1/record")
    assert status == 200 and body.startswith(b'[Format "bornes-record 1"]')
    assert "attachment" in headers["content-disposition"]
    status, _, body = web.get("/games/1/json")
    document = json.loads(body)
    assert document["game"] == 1 and document["sheets"] and document["status"] == "finished"
    status, _, body = web.get("/history.csv")
    assert status == 200 and body.splitlines()[0].startswith(b"game,started")
    status, headers, body = web.get("/games/1/sheet.pdf")
    assert status == 200 and body.startswith(b"%PDF") and headers["content-type"] == "application/pdf"
    import pypdfium2

    (tmp_path / "sheet.pdf").write_bytes(body)
    text = pypdfium2.PdfDocument(str(tmp_path / "sheet.pdf"))[0].get_textpage().get_text_range()
    assert "Milestones" in text and "Combined total" in text
