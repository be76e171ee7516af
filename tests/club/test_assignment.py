"""From the organiser's click to a game at the table with one OK, through the real referee.

A real Mosquitto, board and bridge, and the real referee loop with its control socket
(firmware/appliance/control.py) and journal: the board publishes the round, the bridge hands the assignment
to the referee, the table shows the proposed game, one OK starts it, and the board sees the
table playing with the assigned names. A reconnect does not propose the same game twice, and a
table in the middle of a game keeps the next assignment for the game's end without a word on its panel.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench.club import Club, club_night, organiser_headers
from bornes.drivers.events import ButtonPressed
from bornes.firmware.appliance.control import ControlListener
from bornes.firmware.appliance.referee import STOP, Referee
from bornes.firmware.storage.journal import Journal
from bornes.firmware.storage.store import JournalStore
from bornes.firmware.table.flow import Mode, TableFlow
from tests.club.conftest import require_mosquitto
from tests.web.server import first_hand

DEFAULTS: dict[str, Any] = {"edition": "winning-moves", "players": 2, "names": ["Ann", "Bob"], "dealer": 0,
                            "options": {}}


def wait_for(what: str, check: Any, timeout: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout
    while not (value := check()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)
    return value


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[Club, Referee, Any]]:
    require_mosquitto()
    with club_night(tmp_path, ["t1"], stand_ins=False) as club:
        events: queue.Queue[Any] = queue.Queue()
        made: list[Referee] = []
        ready = threading.Event()

        def run_referee() -> None:  # the journal's connection belongs to the referee's one loop
            with Journal.open(club.journal("t1")) as journal:
                made.append(Referee(TableFlow(store=JournalStore(journal)), events, watchdog=False))
                ready.set()
                made[0].run(threading.Event())

        loop = threading.Thread(target=run_referee, daemon=True)
        loop.start()
        assert ready.wait(5)
        listener = ControlListener(club.control("t1"), events, DEFAULTS)
        try:
            yield club, made[0], events
        finally:
            events.put(STOP)
            loop.join(5)
            listener.close()


def organise(club: Club, path: str, body: dict[str, Any]) -> None:
    reply = httpx.post(club.url(path), headers=organiser_headers(), json=body, timeout=10)
    assert reply.status_code == 200 and reply.json()["ok"], reply.text


def press_ok(referee: Referee, events: Any) -> None:
    done = threading.Event()
    referee.on_outcome = lambda event, outcome: done.set()
    events.put(ButtonPressed("OK"))
    assert done.wait(5)


def test_the_organisers_round_is_one_ok_at_the_table(table: tuple[Club, Referee, Any]) -> None:
    club, referee, events = table
    flow = referee.flow
    organise(club, "/organiser/settings", {"edition": "winning-moves", "options": {"game_target": "0"}})
    for name in ("Zoé", "Jérôme", "Anaïs", "Hugo"):
        organise(club, "/organiser/entrants", {"name": name})
    organise(club, "/organiser/rounds", {"pairing": "manual", "tables": ["t1"], "manual": [["Zoé", "Jérôme"]]})
    organise(club, "/organiser/publish", {})

    wait_for("the proposed game on the table", lambda: flow.ui.mode is Mode.SETUP
             and flow.draft.names == ["Zoé", "Jérôme"])
    assert flow.state is None, "proposed, not started: that takes a person at the table"
    press_ok(referee, events)
    assert flow.state is not None and flow.state.setup.names == ("Zoé", "Jérôme")
    assert flow.state.options.single_hand

    def live() -> dict[str, Any]:
        return {t["table"]: t for t in httpx.get(club.url("/api/tables"), timeout=5).json()}["t1"]

    wait_for("the board shows the game", lambda: (live()["live"] or {}).get("status") == "in-progress")
    assert [s["name"] for s in live()["live"]["sides"]] == ["Zoé", "Jérôme"]
    assert live()["status"]["assignment"] == {"id": "r1-t1", "ok": True, "error": ""}

    # The bridge restarts: the retained assignment comes again and is not proposed again.
    club.bridges["t1"].stop()
    club.bridges["t1"].start()
    wait_for("the bridge back", lambda: club.bridges["t1"].text().count("connected to the broker") >= 2)
    time.sleep(1.0)
    assert club.bridges["t1"].text().count("handed to the referee: accepted") == 1
    assert flow.ui.mode is Mode.PLAY

    # The next round is published while the game goes on (issue 20, finding 7): the table stays exactly
    # as it is (no REFUSED on the players' screen, no sound), the bridge tells the board once that the
    # table is busy until its game ends, and the table offers the new game when this one is over.
    view_before, message_before = referee._last_view, flow.ui.message
    organise(club, "/organiser/close", {})
    organise(club, "/organiser/rounds", {"pairing": "manual", "tables": ["t1"], "manual": [["Anaïs", "Hugo"]]})
    organise(club, "/organiser/publish", {})
    waiting = {"id": "r2-t1", "ok": False, "error": "busy until this game ends", "waiting": True}
    wait_for("the board told", lambda: live()["status"]["assignment"] == waiting)
    assert flow.state.setup.names == ("Zoé", "Jérôme") and flow.ui.mode is Mode.PLAY
    assert flow.ui.message == message_before and not flow.ui.refused, "nobody at the table asked for anything"
    assert referee._last_view == view_before, "the panel did not change"
    rounds = httpx.get(club.url("/rounds"), timeout=5).text
    assert "busy until its game ends" in rounds
    time.sleep(2.0)  # the bridge used to ask again (and paint REFUSED) every 15 s: it asks once now
    bridge_log = club.bridges["t1"].text()
    assert bridge_log.count("assignment r2-t1 kept by the table: busy until this game ends") == 1
    assert "refused by the referee" not in bridge_log

    # The referee restarts mid-game and forgets what it kept (it is in memory only)…
    flow.waiting = None
    # …the hand is played to its end (Jérôme drives to 700): one hand is the whole game here, and the
    # bridge, seeing the game over in the journal, hands the assignment over once more.
    for event in first_hand():
        step = threading.Event()
        referee.on_outcome = lambda event, outcome, step=step: step.set()
        events.put(event)
        assert step.wait(5)
    assert flow.state is not None and flow.state.over
    wait_for("the assignment handed over again", lambda: flow.waiting is not None)
    assert flow.state.over, "the final score sheet stays up"
    press_ok(referee, events)  # off the final score sheet: the organiser's game is offered
    assert flow.state is None and flow.draft.names == ["Anaïs", "Hugo"] and flow.ui.mode is Mode.SETUP
    press_ok(referee, events)  # and one OK starts it
    assert flow.state is not None and flow.state.setup.names == ("Anaïs", "Hugo")
    wait_for("the board shows the new game", lambda: [s["name"] for s in (live()["live"] or {}).get("sides", [])]
             == ["Anaïs", "Hugo"])
    wait_for("the assignment taken", lambda: live()["status"]["assignment"] == {"id": "r2-t1", "ok": True,
                                                                                "error": ""})
    assert "busy until" not in httpx.get(club.url("/rounds"), timeout=5).text
