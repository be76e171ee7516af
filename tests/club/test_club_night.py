"""A club night on loopback: a real Mosquitto, eight real bridges, a real board, bots at eight tables.

Two rounds (round-robin, then Swiss computed by the board) are played from the board's
assignments, which reach each table through the broker, its bridge and the referee's control
socket. The broker is SIGKILLed and restarted once in each round, the board once, and one bridge is SIGKILLed
mid-game; afterwards every result is on the board exactly once, every action too, and the
standings equal those recomputed from the eight journals.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench.club import (
    BOARD_PASSWORD,
    CLUB,
    ODD_BOARD,
    ORGANISER_PASSWORD,
    SPARE_TABLE,
    Club,
    club_night,
    organiser_headers,
    play_game,
    setup_from,
    table_password,
    wait_port,
)
from bornes.firmware.storage.journal import FINISHED, Journal
from tests.club.conftest import require_mosquitto

#: A broker, eight bridges and the board, for minutes: the whole suite's. The club's fast checks are its in-process
#: modules (the store, the pairing, the pages, the topics, the settings).
pytestmark = pytest.mark.slow
TABLES = [f"t{i}" for i in range(1, 9)]
NAMES = ["Anne", "Bruno", "Chloé", "David", "Emma", "Félix", "Gaëlle", "Hugo",
         "Inès", "Jules", "Karim", "Léa", "Manon", "Nico", "Océane", "Paul"]
PACE = 0.015  # seconds between two bot actions: a round lasts a few seconds, long enough to break things in


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Club]:
    require_mosquitto()
    with club_night(tmp_path_factory.mktemp("club"), TABLES) as night:
        yield night


def wait_for(what: str, check: Any, timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def results(club: Club) -> list[dict[str, Any]]:
    return list(httpx.get(club.url("/results.json"), timeout=5).json())


def organise(club: Club, path: str, body: dict[str, Any]) -> dict[str, Any]:
    reply = httpx.post(club.url(path), headers=organiser_headers(), json=body, timeout=10)
    assert reply.status_code == 200, reply.text
    data = reply.json()
    assert data["ok"], data
    return dict(data)


class Round:
    """Every table plays its assignment in its own thread; ``actions`` counts accepted actions so far."""

    def __init__(self, club: Club, number: int) -> None:
        self.club = club
        self.number = number
        self.actions = 0
        self.per_table: dict[str, int] = dict.fromkeys(TABLES, 0)
        self.errors: list[str] = []
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self._play, args=(t,)) for t in TABLES]

    def _play(self, table: str) -> None:
        try:
            setup = setup_from(self.club.controls[table].wait(self.number))  # the referee got the assignment

            def count(_: int, __: float) -> None:
                with self.lock:
                    self.actions += 1
                    self.per_table[table] += 1

            play_game(self.club.journal(table), setup, seed=100 * self.number + TABLES.index(table), pace=PACE,
                      after_action=count)
        except Exception as error:  # reported by finish()
            self.errors.append(f"{table}: {error!r}")

    def start(self) -> Round:
        for thread in self.threads:
            thread.start()
        return self

    def wait_actions(self, count: int, table: str | None = None) -> None:
        def enough() -> bool:
            return (self.per_table[table] if table else self.actions) >= count
        wait_for(f"{count} actions", enough)

    def finish(self) -> None:
        for thread in self.threads:
            thread.join(60)
        assert not self.errors


def recompute(club: Club) -> tuple[dict[str, tuple[int, int, int]], int]:
    """Standings straight from the journals: per player (match points, game points, games); and games."""
    table: dict[str, list[int]] = {}
    games = 0
    for name in TABLES:
        with Journal.open(club.journal(name), readonly=True) as journal:
            for info in journal.history():
                if info.status != FINISHED:
                    continue
                games += 1
                summary = json.loads(info.summary or "{}")
                for side, total in summary["totals"].items():
                    won = not summary["tie"] and summary["winner"] == side
                    for player in side.split(" & "):
                        line = table.setdefault(player, [0, 0, 0])
                        line[0] += 1 if summary["tie"] else (2 if won else 0)
                        line[1] += total
                        line[2] += 1
    return {player: (a, b, c) for player, (a, b, c) in table.items()}, games


def test_two_rounds_survive_broker_and_bridge_kills(club: Club) -> None:
    organise(club, "/organiser/settings", {"edition": "winning-moves", "options": {"game_target": "0"}})
    for name in NAMES:
        organise(club, "/organiser/entrants", {"name": name})

    # Round 1: round-robin, and the broker dies (SIGKILL, nothing saved) while every table plays.
    organise(club, "/organiser/rounds", {"pairing": "round-robin", "tables": TABLES})
    organise(club, "/organiser/publish", {})
    first = Round(club, 1).start()
    first.wait_actions(200)
    club.broker.kill()
    time.sleep(0.7)
    club.broker.start()
    first.wait_actions(450)  # and the board itself is SIGKILLed: the broker keeps its session's messages
    club.board.kill()
    time.sleep(0.5)
    club.board.start()
    wait_port(club.web_port, 90)
    first.finish()
    wait_for("round 1's eight results", lambda: len(results(club)) == 8)
    organise(club, "/organiser/close", {})

    # Round 2: Swiss from the standings; the broker dies again, and table t3's bridge is SIGKILLed mid-game.
    organise(club, "/organiser/rounds", {"pairing": "swiss", "tables": TABLES})
    organise(club, "/organiser/publish", {})
    second = Round(club, 2).start()
    second.wait_actions(20, table="t3")
    club.bridges["t3"].kill()

    def t3_status() -> dict[str, Any]:
        tables = {t["table"]: t for t in httpx.get(club.url("/api/tables"), timeout=5).json()}
        return dict(tables["t3"]["status"] or {})

    wait_for("t3 shown offline (its last will)", lambda: t3_status().get("online") is False, timeout=60)
    second.wait_actions(300)
    club.broker.kill()
    time.sleep(0.7)
    club.broker.start()
    club.bridges["t3"].start()
    second.finish()
    wait_for("sixteen results", lambda: len(results(club)) == 16)
    time.sleep(1.5)  # anything still being resent would show up as a seventeenth result now

    board = results(club)
    keys = [(r["table"], r["game"], r["created"]) for r in board]
    assert len(board) == 16 and len(set(keys)) == 16, "0 results lost, 0 counted twice"
    assert all(r["round"] in (1, 2) for r in board), "every game was matched to its assignment"
    assert sorted(r["round"] for r in board) == [1] * 8 + [2] * 8

    expected, games = recompute(club)
    assert games == 16
    standings = httpx.get(club.url("/standings.json"), timeout=5).json()
    got = {x["name"]: (x["match_points"], x["points"], x["played"]) for x in standings["players"]}
    assert got == expected

    # Every action reached the board once: per game, the board holds exactly the journal's lines.
    board_db = sqlite3.connect(f"file:{club.directory / 'club.sqlite3'}?mode=ro", uri=True)
    try:
        for name in TABLES:
            with Journal.open(club.journal(name), readonly=True) as journal:
                for info in journal.history():
                    record = journal.load(info.game_id)
                    assert record is not None
                    stored = [line for (line,) in board_db.execute(
                        "SELECT line FROM actions WHERE table_id = ? AND game = ? AND created = ? ORDER BY seq",
                        (name, info.game_id, info.created))]
                    assert stored == record.lines, f"{name} game {info.game_id}"
    finally:
        board_db.close()

    # The killed bridge resumed from its own outbox, and the board saw and ignored the repeats.
    assert "lost the broker" in club.bridges["t1"].text()
    pages = {path: httpx.get(club.url(path), timeout=5) for path in ("/", "/standings", "/rounds", "/results.csv",
                                                                      "/standings.csv")}
    assert all(page.status_code == 200 for page in pages.values())
    assert "Chloé" in pages["/standings"].text and "Round 2 (swiss, open)" in pages["/rounds"].text
    assert pages["/results.csv"].text.count("\n") == 1 + 32
    first_result = board[0]
    page = httpx.get(club.url("/record"), params={k: first_result[k] for k in ("table", "game", "created")}, timeout=5)
    with Journal.open(club.journal(first_result["table"]), readonly=True) as journal:
        kept = journal.load(first_result["game"])
    assert page.status_code == 200 and kept is not None
    assert page.text.splitlines()[-len(kept.lines):] == kept.lines, "the record replays the journal's game"
    assert httpx.get(club.url("/record"), params={"table": "t1", "game": "x"}, timeout=5).status_code == 400
    live = {t["table"]: t["live"] for t in httpx.get(club.url("/api/tables"), timeout=5).json()}
    assert all(live[t]["status"] == "finished" and live[t]["game_id"] == 2 for t in TABLES)
    assert all(isinstance(live[t]["created"], str) for t in TABLES), "the game's start time travels with it"


def test_a_table_cannot_write_another_tables_topics(club: Club) -> None:
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    before = results(club)
    refused: list[str] = []
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="intruder", protocol=mqtt.MQTTv5)
    client.username_pw_set(SPARE_TABLE, table_password(SPARE_TABLE))
    client.on_publish = lambda c, u, mid, reason, props: refused.append(str(reason)) if reason.is_failure else None
    client.connect("127.0.0.1", club.broker.port)
    client.loop_start()
    try:
        forged = {"game": 99, "created": "2026-01-01T00:00:00+00:00", "edition": "winning-moves", "teams": False,
                  "sides": [{"name": "Mallory", "players": ["Mallory"], "total": 5000},
                            {"name": "Anne", "players": ["Anne"], "total": 0}],
                  "winner": 0, "tie": False, "hands": 1, "record": "x"}
        payload = json.dumps({"v": 1, "type": "result", **forged}).encode()
        for leaf in ("result", "live"):
            client.publish(f"bornes/{CLUB}/t2/{leaf}", payload, qos=1).wait_for_publish(5)
        client.publish(f"bornes/{CLUB}/{SPARE_TABLE}/assignment", b"{}", qos=1).wait_for_publish(5)  # nor assign
        time.sleep(1.0)
    finally:
        client.disconnect()
        client.loop_stop()
    assert refused == ["Not authorized"] * 3, refused
    after = results(club)
    assert after == before and not any("Mallory" in json.dumps(r) for r in after)
    live = {t["table"]: t["live"] for t in httpx.get(club.url("/api/tables"), timeout=5).json()}
    assert live["t2"]["type"] == "live" and "Mallory" not in json.dumps(live["t2"])

    # A guessed password gets no session at all.
    answers: list[str] = []
    wrong = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="guess", protocol=mqtt.MQTTv5)
    wrong.username_pw_set("t2", "guessed")
    wrong.on_connect = lambda c, u, flags, reason, props: answers.append(str(reason))
    wrong.connect("127.0.0.1", club.broker.port)
    wrong.loop_start()
    try:
        wait_for("the broker's answer", lambda: answers, timeout=60)
    finally:
        wrong.disconnect()
        wrong.loop_stop()
    assert answers[0] in ("Bad user name or password", "Not authorized"), answers


def test_malformed_and_oversized_messages_are_logged_and_survived(club: Club) -> None:
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    # As a table with no bridge (the broker's client id is the user name: a second "t1" would take the bridge's).
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="clumsy", protocol=mqtt.MQTTv5)
    client.username_pw_set(SPARE_TABLE, table_password(SPARE_TABLE))
    client.connect("127.0.0.1", club.broker.port)
    client.loop_start()
    base = f"bornes/{CLUB}/{SPARE_TABLE}/"
    bad = [
        ("result", b"not json at all"),
        ("result", b"\xff\xfe\x00"),
        ("result", json.dumps({"v": 2, "type": "result"}).encode()),
        ("result", json.dumps({"v": 1, "type": "result", "game": 1, "created": "x", "edition": "winning-moves",
                               "teams": False, "sides": [{"players": "Anne", "total": "many"}], "tie": False,
                               "record": ""}).encode()),
        ("action", json.dumps({"v": 1, "type": "action", "game": "one", "seq": 0}).encode()),
        ("live", b"[]"),
        ("status", json.dumps({"v": 1, "type": "status", "online": "yes"}).encode()),
        ("result", b"{" + b'"x": 1, ' * 14_000 + b'"v": 1}'),  # ~100 KB: over the board's 64 KiB limit
    ]
    try:
        for leaf, payload in bad:
            client.publish(base + leaf, payload, qos=1).wait_for_publish(5)
        wait_for("the rejects", lambda: len(rejects(club)) >= len(bad), timeout=60)
    finally:
        client.disconnect()
        client.loop_stop()
    # And the other way: garbage on a table's assignment and receipt topics (only the board may write
    # there, but a board of another version might): the bridge logs it and goes on.
    board = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="odd-board", protocol=mqtt.MQTTv5)
    board.username_pw_set(ODD_BOARD, BOARD_PASSWORD)
    board.connect("127.0.0.1", club.broker.port)
    board.loop_start()
    try:
        board.publish(f"bornes/{CLUB}/t1/assignment", b'{"v":1,"type":"assignment","id":7}', qos=1,
                      retain=True).wait_for_publish(5)
        board.publish(f"bornes/{CLUB}/t1/receipt", b"\x00" * 10, qos=1).wait_for_publish(5)
        wait_for("the bridge's complaint", lambda: "ignored a message on bornes/bench/t1/receipt"
                 in club.bridges["t1"].text(), timeout=10)
        board.publish(f"bornes/{CLUB}/t1/assignment", b"", qos=1, retain=True).wait_for_publish(5)  # withdrawn
    finally:
        board.disconnect()
        board.loop_stop()
    bridge_log = club.bridges["t1"].text()
    assert "ignored a message on bornes/bench/t1/assignment: assignment message: field 'id'" in bridge_log
    assert club.bridges["t1"].process is not None and club.bridges["t1"].process.poll() is None
    assert "Traceback" not in bridge_log and len(club.controls["t1"].setups) == 2

    problems = rejects(club)
    assert any("over the 65536-byte limit" in r["problem"] for r in problems)
    assert any("not JSON" in r["problem"] for r in problems)
    assert club.board.process is not None and club.board.process.poll() is None
    assert f"ignored a message on bornes/bench/{SPARE_TABLE}/result" in club.board.text()
    assert "Traceback" not in club.board.text()
    assert len(results(club)) == 16
    assert httpx.get(club.url("/standings"), timeout=5).status_code == 200


def rejects(club: Club) -> list[dict[str, Any]]:
    reply = httpx.get(club.url("/organiser/rejects.json"), headers=organiser_headers(), timeout=5)
    return list(reply.json()["rejects"])


def test_pages_refuse_without_the_organiser_password(club: Club) -> None:
    assert httpx.get(club.url("/organiser"), timeout=5).status_code == 401
    assert httpx.post(club.url("/organiser/rounds"), json={"pairing": "swiss"}, timeout=5).status_code == 401
    reply = httpx.post(club.url("/organiser/rounds"), headers=organiser_headers(), content=b"x" * 20_000, timeout=5)
    assert reply.status_code == 413 and "too large" in reply.text
    # The organiser's page posts plain forms.
    auth = ("organiser", ORGANISER_PASSWORD)
    reply = httpx.post(club.url("/organiser/entrants"), auth=auth, data={"name": "Anne"}, timeout=5)
    assert reply.status_code == 400 and "Anne already plays in this tournament" in reply.text
    reply = httpx.post(club.url("/organiser/entrants"), auth=auth, data={"name": "Lions", "members": "Zoé, Yann"},
                       timeout=5)
    assert reply.status_code == 303 and "Lions (Zoé, Yann)" in httpx.get(club.url("/organiser"), auth=auth).text
    # Guessing the password: the fifth wrong try in a minute shuts the door; even the right one then waits.
    codes = [httpx.get(club.url("/organiser"), auth=("organiser", f"guess{i}"), timeout=5).status_code
             for i in range(6)]
    assert codes == [401] * 4 + [429] * 2
    assert httpx.get(club.url("/organiser"), auth=auth, timeout=5).status_code == 429


def test_units_and_paths(club: Club) -> None:
    assert Path(club.directory / "t1" / "bridge" / "bridge.sqlite3").exists(), "the outbox is the bridge's own file"


def board_lines(club: Club, table: str) -> list[str]:
    db = sqlite3.connect(f"file:{club.directory / 'club.sqlite3'}?mode=ro", uri=True)
    try:
        row = db.execute("SELECT game, created FROM actions WHERE table_id = ? ORDER BY game DESC LIMIT 1",
                         (table,)).fetchone()
        if row is None:
            return []
        return [line for (line,) in db.execute(
            "SELECT line FROM actions WHERE table_id = ? AND game = ? AND created = ? ORDER BY seq", (table, *row))]
    finally:
        db.close()


def test_an_undo_at_the_table_reaches_the_board(club: Club) -> None:
    from bornes.firmware.commands.feed import feed
    from bornes.firmware.storage.store import JournalStore
    from bornes.firmware.table.flow import TableFlow

    with Journal.open(club.journal("t8")) as journal:
        store = JournalStore(journal)
        flow = TableFlow(store=store, game=store.resume())
        feed("setup edition=winning-moves names=Undo,Redo option.game_target=0\n"
             "scan MB-ROLL-01\nscan MB-ROLL-02\nscan MB-D25-01\n", flow)
        wait_for("three actions", lambda: len(board_lines(club, "t8")) == 3 and "D25-01" in board_lines(club, "t8")[2])
        verdicts = feed("press UNDO\npress OK\n", flow)
        assert verdicts[-1]["verdict"] == "accepted", verdicts
        wait_for("the undo", lambda: len(board_lines(club, "t8")) == 2)
        feed("scan MB-D50-01\n", flow)
        wait_for("the new third action", lambda: len(board_lines(club, "t8")) == 3)
        assert board_lines(club, "t8")[2].endswith("MB-D50-01")
        assert board_lines(club, "t8") == journal.current_game().lines  # type: ignore[union-attr]


def test_the_tables_page_updates_itself_in_a_real_browser(club: Club) -> None:
    """Chromium (the distribution's) at a club projector's size: a card changes after a card is played."""
    import tempfile

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    from bornes.firmware.commands.feed import feed
    from bornes.firmware.storage.store import JournalStore
    from bornes.firmware.table.flow import TableFlow
    from tests.web.server import chromium_or_skip, screenshot_dir

    binary, driver_path = chromium_or_skip()
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     f"--user-data-dir={tempfile.mkdtemp(prefix='bornes-chromium-')}", "--window-size=1280,900"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        driver.get(club.url("/"))

        def t8_actions() -> str:
            return str(driver.execute_script("return document.getElementById('t-t8').dataset.actions"))

        wait_for("the table cards", lambda: driver.execute_script("return document.querySelectorAll('.card').length")
                 == len(TABLES))
        wait_for("the live stream", lambda: driver.execute_script("return document.body.dataset.live") == "yes")
        before = t8_actions()
        driver.execute_script("window.notReloaded = true")
        with Journal.open(club.journal("t8")) as journal:
            store = JournalStore(journal)
            flow = TableFlow(store=store, game=store.resume())
            assert feed("scan MB-D25-02\n", flow)[-1]["verdict"] == "accepted"
        wait_for("the card to change", lambda: t8_actions() == str(int(before) + 1), timeout=60)
        assert driver.execute_script("return window.notReloaded") is True
        text = driver.execute_script("return document.getElementById('t-t8').innerText")
        assert "Undo" in text and "Redo" in text
        link = driver.execute_script("return document.querySelector('#t-t8 h2 a').href")
        assert link == "http://t8.local:8080/", "each card links to its table's own phone pages"
        driver.save_screenshot(str(screenshot_dir() / "club-tables.png"))
    finally:
        driver.quit()
