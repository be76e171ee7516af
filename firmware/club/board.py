"""``bornes club``: the tournament board. Subscribes to every table, keeps the tournament, serves the pages.

The MQTT side runs in paho's thread and writes the board's own SQLite database; the pages are a
Starlette app under uvicorn (the same stack as the phone companion), pushed live to browsers with
server-sent events. Anything malformed or oversized on the club's topics is logged in one line,
kept in the rejects list the organiser page shows, and otherwise ignored.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from bornes.engine import Game, RecordError, ReplayError, read_record
from bornes.firmware.club import topics
from bornes.firmware.club.broker import make_client
from bornes.firmware.club.settings import BoardSettings
from bornes.firmware.club.store import ClubStore

log = logging.getLogger("bornes.club")

SESSION_EXPIRY = 24 * 3600  # the broker keeps the board's queued messages while it restarts


def verify_result(body: dict[str, Any]) -> list[str]:
    """Replay the result's record through the engine and check the result says what the game says.

    The engine is the one judge: a result whose record does not replay to a finished game with
    these sides, totals and winner is refused, whoever sent it. Returns the record's action lines.
    """
    try:
        setup, lines = read_record(body["record"])
    except (RecordError, ValueError) as error:
        raise topics.BadMessage(f"result message: the record does not read ({error})") from None
    broken = next((line for line in lines if line.action is None), None)
    if broken is not None:
        raise topics.BadMessage(f"result message: record line {broken.number} does not read ({broken.error})")
    try:
        state = Game(setup, [line.action for line in lines if line.action is not None]).state
    except ReplayError as error:
        raise topics.BadMessage(f"result message: the record does not replay ({error})") from None
    sides = [{"players": [setup.names[s] for s in setup.side_seats(i)], "total": total}
             for i, total in enumerate(state.totals)]
    claimed = [{"players": side.get("players"), "total": side.get("total")} for side in body["sides"]
               if isinstance(side, dict)]
    if not state.over or claimed != sides or body.get("winner") != state.winner or body["tie"] != state.tie \
            or body["edition"] != setup.edition:
        raise topics.BadMessage("result message: the sides, totals or winner differ from the record's game")
    return [line.text for line in lines]


class Board:
    """The subscriber: every message from the tables goes through :meth:`receive`."""

    def __init__(self, settings: BoardSettings, store: ClubStore) -> None:
        self.settings = settings
        self.club = settings.club
        self.store = store
        self.listeners: set[asyncio.Queue[str | None]] = set()  # None: that stream ends (firmware/club/pages.py)
        self.loop: asyncio.AbstractEventLoop | None = None
        self.connected = threading.Event()
        self.counts = {"actions": 0, "repeats": 0, "results": 0, "result_repeats": 0, "rejected": 0}
        self.client = make_client(f"bornes-club-{self.club}", settings.broker)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message

    # -- MQTT ------------------------------------------------------------------------------------

    def start(self) -> None:
        broker = self.settings.broker
        properties = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
        properties.SessionExpiryInterval = SESSION_EXPIRY
        self.client.connect_async(broker.host, broker.port, keepalive=broker.keepalive, clean_start=False,
                                  properties=properties)
        self.client.loop_start()

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode,
                    properties: Properties | None) -> None:
        if reason.is_failure:
            log.warning("broker refused the board: %s", reason)
            return
        base = f"{topics.ROOT}/{self.club}/+/"
        client.subscribe([(base + leaf, 1) for leaf in topics.TABLE_TOPICS])
        self.connected.set()
        log.info("board connected to the broker")

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode,
                       properties: Properties | None) -> None:
        self.connected.clear()
        log.warning("board lost the broker: %s", reason)

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        try:
            self.receive(message.topic, bytes(message.payload))
        except Exception as error:  # one bad message never stops the board
            log.exception("message on %s: %s", message.topic, error)

    def receive(self, name: str, payload: bytes) -> None:
        try:
            address = topics.parse_topic(name)
            if address.club != self.club or address.table == topics.BOARD_USER:
                raise topics.BadMessage(f"topic {name[:120]!r} is not one of this club's tables")
            if address.leaf == topics.LIVE:
                if not payload:  # the retained message cleared: the table has nothing to show
                    self.store.clear_live(address.table)
                    self._push({"table": address.table, "live": None})
                    return
                data = topics.check_live(topics.decode(payload, "live", topics.LIVE_FIELDS))
                self._push({"table": address.table, "live": data})  # the pages first: they wait for it
                text = json.dumps(data, ensure_ascii=False, allow_nan=False)
                self.store.set_live(address.table, text, float(data.get("at") or time.time()))
                game, created, count = data.get("game_id"), data.get("created"), data["action_count"]
                if isinstance(game, int) and isinstance(created, str) and isinstance(count, int):
                    self.store.trim_actions(address.table, game, created, count)  # an undo at the table
            elif address.leaf == topics.STATUS:
                if not payload:
                    return
                data = topics.check_status(topics.decode(payload, "status", topics.STATUS_FIELDS))
                self.store.set_status(address.table, json.dumps(data, ensure_ascii=False, allow_nan=False))
                self._push({"table": address.table, "status": data})
            elif address.leaf == topics.ACTION:
                data = topics.decode(payload, "action", topics.ACTION_FIELDS)
                verdict = self.store.add_action(address.table, data["game"], data["created"], data["seq"], data["line"])
                self.counts["repeats" if verdict == "repeat" else "actions"] += 1
            elif address.leaf == topics.RESULT:
                data = topics.decode(payload, "result", topics.RESULT_FIELDS)
                lines = verify_result(data)
                try:
                    fresh = self.store.add_result(address.table, data, lines)
                except ValueError as error:
                    raise topics.BadMessage(str(error)) from None
                self.counts["results" if fresh else "result_repeats"] += 1
                receipt = topics.encode("receipt", game=data["game"], created=data["created"])
                self.client.publish(topics.topic(self.club, address.table, topics.RECEIPT), receipt, qos=1)
                if fresh:
                    log.info("result of game %s at table %s stored", data["game"], address.table)
                    self._push({"table": address.table, "result": True})
        except topics.BadMessage as error:
            self.counts["rejected"] += 1
            log.warning("ignored a message on %s: %s", name[:120], error)
            self.store.reject(name, str(error))

    def publish_assignments(self, assignments: list[dict[str, Any]]) -> None:
        for assignment in assignments:
            table = assignment.pop("table")
            payload = topics.encode("assignment", **assignment)
            self.client.publish(topics.topic(self.club, table, topics.ASSIGNMENT), payload, qos=1, retain=True)

    # -- pushing to the pages ----------------------------------------------------------------------

    def _push(self, event: dict[str, Any]) -> None:
        loop = self.loop
        if loop is None or not self.listeners:
            return
        try:
            text = json.dumps(event, ensure_ascii=False, allow_nan=False)
        except ValueError:  # checked on the way in, so never; and if so, the pages hear this table cannot be shown
            text = json.dumps({"table": event.get("table"), "unreadable": True})
        with contextlib.suppress(RuntimeError):  # the loop is closing
            loop.call_soon_threadsafe(self._fan_out, text)

    def end_streams(self) -> None:
        """End every page's stream (the board is stopping): the pages reconnect to the next board, and
        uvicorn's graceful shutdown has no open stream to wait for, then cancel with a traceback."""
        loop = self.loop
        if loop is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop is closing
            loop.call_soon_threadsafe(self._end_streams)

    def _end_streams(self) -> None:
        for listener in list(self.listeners):
            listener.put_nowait(None)

    def _fan_out(self, text: str) -> None:
        for listener in list(self.listeners):
            if listener.qsize() < 100:  # a stalled browser loses updates, not the board's memory
                listener.put_nowait(text)
