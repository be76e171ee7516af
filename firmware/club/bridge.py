"""``bornes bridge``: one table's journal, published to the club's broker.

A separate process from the referee. It reads the journal as a reader (read-only, through
journal.py), and publishes with QoS 1: the live table (retained), every accepted action, and each
finished game's result with its record. How far the broker has acknowledged each game is kept in
the bridge's own file (:mod:`bornes.firmware.club.outbox`), so after a crash, a reboot or a broker outage
it sends again whatever was not acknowledged; the board ignores repeats. A result is sent again
until the board's *receipt* arrives: a broker acknowledgement alone does not survive the broker
being killed before it delivered the message.

It also subscribes to the table's assignment topic and hands a new assignment to the referee
over the control socket (TEAM.md contract), so setting up the table is one OK press.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import select
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from bornes.drivers.errors import EX_CONFIG, UserError
from bornes.firmware.appliance.control_client import ControlClient, ControlUnreachable
from bornes.firmware.club import topics
from bornes.firmware.club.broker import make_client
from bornes.firmware.club.outbox import Outbox, Position
from bornes.firmware.club.settings import BridgeSettings
from bornes.firmware.storage.journal import ABANDONED, FINISHED, IN_PROGRESS, GameInfo, GameRecord, JournalError
from bornes.firmware.storage.live import JournalFollower, replay

log = logging.getLogger("bornes.bridge")

SINCE_KEY = "publish-after-game"  # games up to this id were history before the bridge first ran
ASSIGNMENT_KEY = "last-assignment"
CONTROL_TIMEOUT = 3.0
CONTROL_RETRY = 5.0  # seconds: the referee is not listening (stopped, restarting)
REFUSED_RETRY = 15.0  # seconds: the referee said no for another reason (a deck check): ask again
TICK = 1.0  # seconds: the longest the loop sleeps with nothing to do (assignment retries, result resends)


def setup_message(assignment: dict[str, Any]) -> dict[str, Any]:
    """An assignment as the referee's ``setup`` fields (the seats are its names)."""
    keys: tuple[str, ...] = ("edition", "teams", "names", "dealer", "options")
    fields = {key: assignment[key] for key in keys if key in assignment}
    return {**fields, "players": len(assignment["names"])}


def result_body(record: GameRecord, game: Any) -> dict[str, Any]:
    """A finished game: sides with their players and totals, the winner, and the whole record."""
    state = game.state
    setup = state.setup
    sides = [
        {"name": setup.side_name(i), "players": [setup.names[s] for s in setup.side_seats(i)], "total": total}
        for i, total in enumerate(state.totals)
    ]
    record_text = record.header.rstrip("\n") + "\n\n" + "".join(f"{line}\n" for line in record.lines)
    return {
        "game": record.game_id,
        "created": record.created,
        "finished": record.finished,
        "edition": setup.edition,
        "teams": setup.teams,
        "sides": sides,
        "winner": state.winner,
        "tie": state.tie,
        "hands": len(state.sheets),
        "actions": len(record.lines),
        "record": record_text,
    }


@dataclass
class _Game:
    position: Position
    sent: int = 0  # actions handed to paho (it keeps resending them until acknowledged)
    acks: dict[int, str] = field(default_factory=dict)  # acknowledged beyond the contiguous position
    result_sent_at: float | None = None


class Bridge:
    """The loop: wait for a journal change or a broker event, then publish what the journal gained."""

    def __init__(self, settings: BridgeSettings) -> None:
        self.settings = settings
        self.club, self.table = settings.club, settings.table
        try:
            # firmware/storage/live.py (shared with the phone pages): inotify on the journal's folder plus
            # SQLite's data_version, so an idle table costs no timer and no query.
            self.follower = JournalFollower(settings.journal, language=settings.language)
        except OSError as error:
            raise UserError(f"cannot follow the journal in {settings.journal}: {error.strerror or error}"
                            " (is the referee installed?)", EX_CONFIG) from None
        self.outbox = Outbox(settings.state)
        self._wake_read, self._wake_write = os.pipe()  # paho's thread wakes the loop through this
        os.set_blocking(self._wake_read, False)
        os.set_blocking(self._wake_write, False)
        self.events: queue.Queue[tuple[Any, ...]] = queue.Queue()
        self.stopping = threading.Event()
        self.games: dict[tuple[int, str], _Game] = {}
        self.done: set[tuple[int, str]] = set()  # confirmed or abandoned and fully sent: nothing more to do
        self.inflight: dict[int, tuple[tuple[int, str], int, str]] = {}  # mid -> (game key, seq, line)
        self.connected = False
        self.last_live: bytes | None = None
        self.pending_assignment: dict[str, Any] | None = None
        self.assignment_retry = 0.0
        self.assignment_status: dict[str, Any] | None = None
        self.waiting_behind: int | None = None  # the game a kept assignment waits for (journal game id)
        self.waiting_assignment: dict[str, Any] | None = None
        self.journal_problem = ""
        self.since = self._since()
        self.history: list[GameInfo] = []
        self.referee = ControlClient(settings.control, CONTROL_TIMEOUT)
        self.client = make_client(f"bornes-bridge-{self.club}-{self.table}", settings.broker)
        self.client.will_set(self.topic(topics.STATUS), topics.encode("status", online=False), qos=1, retain=True)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_publish = self._on_publish
        self.client.on_message = self._on_message

    def topic(self, leaf: str) -> str:
        return topics.topic(self.club, self.table, leaf)

    def _since(self) -> int:
        stored = self.outbox.get_meta(SINCE_KEY)
        if stored is not None:
            return int(stored)
        since = 0
        if not self.settings.all_history:
            journal = self.follower.journal
            try:
                done = [g.game_id for g in journal.history() if g.status != "in-progress"] if journal else []
            except JournalError:
                done = []
            since = max(done, default=0)
        self.outbox.set_meta(SINCE_KEY, str(since))
        return since

    # -- paho's thread: only puts events on the queue ----------------------------------------------

    def _post(self, event: tuple[Any, ...]) -> None:
        self.events.put(event)
        self._wake()

    def _wake(self) -> None:
        with contextlib.suppress(BlockingIOError, OSError):  # a full pipe is awake enough
            os.write(self._wake_write, b"\0")

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode,
                    properties: Properties | None) -> None:
        self._post(("connect", reason.is_failure, str(reason)))

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode,
                       properties: Properties | None) -> None:
        self._post(("disconnect", str(reason)))

    def _on_publish(self, client: mqtt.Client, userdata: Any, mid: int, reason: ReasonCode,
                    properties: Properties | None) -> None:
        self._post(("puback", mid, reason.is_failure, str(reason)))

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        self._post(("message", message.topic, bytes(message.payload)))

    # -- the main loop -------------------------------------------------------------------------------

    def run(self) -> None:
        broker = self.settings.broker
        log.info("bridge %s/%s: journal %s, broker %s:%s", self.club, self.table, self.settings.journal,
                 broker.host, broker.port)
        self.client.connect_async(broker.host, broker.port, keepalive=broker.keepalive)
        self.client.loop_start()
        try:
            self.sync()
            while not self.stopping.is_set():
                delay = self.follower.recheck_delay()
                timeout = TICK if delay is None else min(delay, TICK)
                ready, _, _ = select.select([self.follower.fileno(), self._wake_read], [], [], timeout)
                if self._wake_read in ready:
                    with contextlib.suppress(BlockingIOError):
                        os.read(self._wake_read, 4096)
                dirty = False
                while True:
                    try:
                        dirty |= self._handle(self.events.get_nowait())
                    except queue.Empty:
                        break
                due = delay is not None and self.follower.recheck_delay() == 0.0
                changed = self.follower.refresh(recheck=due and self.follower.fileno() not in ready)
                if changed or dirty:
                    self.sync()
                self._tick()
        finally:
            self.close()

    def stop(self) -> None:
        """Safe from a signal handler: sets a flag and wakes the loop."""
        self.stopping.set()
        self._wake()

    def close(self) -> None:
        if self.connected:
            info = self.client.publish(self.topic(topics.STATUS), topics.encode("status", online=False), 1, True)
            with contextlib.suppress(RuntimeError, ValueError):
                info.wait_for_publish(1.0)
        self.client.disconnect()
        self.client.loop_stop()
        self.follower.close()
        self.outbox.close()
        for fd in (self._wake_read, self._wake_write):
            with contextlib.suppress(OSError):
                os.close(fd)

    def _handle(self, event: tuple[Any, ...]) -> bool:
        kind = event[0]
        if kind == "connect":
            if event[1]:
                log.warning("broker refused the connection: %s", event[2])
                return False
            self.connected = True
            log.info("connected to the broker")
            self.client.subscribe([(self.topic(topics.ASSIGNMENT), 1), (self.topic(topics.RECEIPT), 1)])
            self._publish_status()
            self.last_live = None  # the broker may have restarted without its retained messages
            for entry in self.games.values():
                entry.result_sent_at = None  # and without the results it had not delivered yet
            return True
        if kind == "disconnect":
            if self.connected:
                log.warning("lost the broker (%s); paho keeps unacknowledged messages to resend", event[1])
            self.connected = False
            return False
        if kind == "puback":
            self._acknowledged(event[1], event[2], event[3])
            return False
        if kind == "message":
            self._message(event[1], event[2])
            return False
        return False

    def _acknowledged(self, mid: int, failed: bool, reason: str) -> None:
        target = self.inflight.pop(mid, None)
        if target is None:
            return
        key, seq, line = target
        if failed:  # e.g. "Not authorized": the ACL is wrong; resending will not help until it is fixed
            log.error("broker refused action %s of game %s: %s", seq, key[0], reason)
            return
        entry = self.games.get(key)
        if entry is None:
            return
        entry.acks[seq] = line
        position = entry.position
        moved = False
        while position.acked in entry.acks:
            position.tail = entry.acks.pop(position.acked)
            position.acked += 1
            moved = True
        if moved:
            self.outbox.save([position])

    def _message(self, name: str, payload: bytes) -> None:
        try:
            if name == self.topic(topics.RECEIPT):
                data = topics.decode(payload, "receipt", topics.RECEIPT_FIELDS)
                entry = self.games.get((data["game"], data["created"]))
                position = entry.position if entry else self.outbox.position(data["game"], data["created"])
                if not position.confirmed:
                    position.confirmed = True
                    self.outbox.save([position])
                    log.info("the board has stored game %s", data["game"])
            elif name == self.topic(topics.ASSIGNMENT):
                if not payload:  # the organiser withdrew it
                    return
                data = topics.decode(payload, "assignment", topics.ASSIGNMENT_FIELDS)
                if data["id"] != self.outbox.get_meta(ASSIGNMENT_KEY):
                    self.pending_assignment = data
                    self.assignment_retry = 0.0
        except topics.BadMessage as error:
            log.warning("ignored a message on %s: %s", name, error)

    def _tick(self) -> None:
        now = time.monotonic()
        if self.pending_assignment is not None and now >= self.assignment_retry:
            self._forward_assignment(self.pending_assignment)
        if self.connected:
            for key, entry in self.games.items():
                sent = entry.result_sent_at
                if sent is not None and not entry.position.confirmed and now - sent >= self.settings.resend:
                    entry.result_sent_at = None
                    self.sync()  # sends the result again
                    log.info("no receipt for game %s yet: sent its result again", key[0])
                    break

    def _forward_assignment(self, data: dict[str, Any]) -> None:
        try:
            answer = self.referee.propose_setup(setup_message(data))
        except ControlUnreachable as problem:
            self.assignment_retry = time.monotonic() + CONTROL_RETRY
            if self.assignment_status is None or self.assignment_status.get("error") != str(problem):
                log.warning("assignment %s waits for the referee: %s", data["id"], problem)
                self.assignment_status = {"id": data["id"], "ok": False, "error": str(problem)}
                self._publish_status()
            return
        ok, error = answer.ok, answer.error
        if answer.waiting:
            # A game is being played: the table keeps the assignment and offers it when that game ends.
            # Not asked again (each try used to reach the players' screen); the board is told once.
            self.pending_assignment = None
            self.outbox.set_meta(ASSIGNMENT_KEY, data["id"])
            self.assignment_status = {"id": data["id"], "ok": False, "error": error, "waiting": True}
            self.waiting_behind = self.history[-1].game_id if self.history else None
            self.waiting_assignment = data
            log.info("assignment %s kept by the table: %s", data["id"], error)
            self._publish_status()
            return
        changed = self.assignment_status != {"id": data["id"], "ok": ok, "error": error}
        self.assignment_status = {"id": data["id"], "ok": ok, "error": error}
        if ok:
            self.pending_assignment = None
            self.outbox.set_meta(ASSIGNMENT_KEY, data["id"])  # a reconnect will not propose it again
            log.info("assignment %s handed to the referee: accepted", data["id"])
        else:
            self.assignment_retry = time.monotonic() + REFUSED_RETRY
            if changed:
                log.info("assignment %s refused by the referee for now: %s", data["id"], error)
        if changed:
            self._publish_status()

    def _publish_status(self) -> None:
        if not self.connected:
            return
        extra = {"assignment": self.assignment_status, "journal": self.journal_problem or None,
                 "web": self.settings.web_url or None}
        self.client.publish(self.topic(topics.STATUS), topics.encode("status", online=True, **extra), 1, True)

    # -- the journal -> the broker -------------------------------------------------------------------

    def sync(self) -> None:
        try:
            self._sync()
            if self.journal_problem:
                self.journal_problem = ""
                self._publish_status()
        except (JournalError, ValueError) as error:
            message = str(error)
            if message != self.journal_problem:
                # A table that has not played yet is normal; anything else (damage, a replay error) is not.
                level = logging.INFO if "does not exist yet" in message else logging.ERROR
                log.log(level, "%s", message)
                self.journal_problem = message
                self._publish_status()

    def _sync(self) -> None:
        journal = self.follower.journal
        if journal is None and self.follower.error:  # damage is said, never published as "no game yet"
            raise JournalError(self.follower.error)
        if journal is None:  # no game played yet at this table
            self.history = []
            self._publish_live()
            return
        history = self.history = journal.history()
        latest: GameInfo | None = history[-1] if history else None
        waiting = self.assignment_status is not None and self.assignment_status.get("waiting")
        if waiting and latest is not None and latest.game_id != self.waiting_behind and self.assignment_status:
            # The game it waited for is over and the next one has begun: the board sees the table playing.
            self.assignment_status = {"id": self.assignment_status["id"], "ok": True, "error": ""}
            self.waiting_assignment = None
            self._publish_status()
        elif waiting and latest is not None and latest.status != IN_PROGRESS and self.waiting_assignment:
            # Over: hand it over once more, in case the referee restarted since and forgot it (it keeps
            # it for the final score sheet's OK either way).
            self.pending_assignment, self.waiting_assignment = self.waiting_assignment, None
            self.assignment_retry = 0.0
        for info in history:
            if info.game_id <= self.since:
                continue
            key = (info.game_id, info.created)
            if key in self.done and info is not latest:
                continue
            entry = self.games.get(key)
            if entry is None:
                entry = self.games[key] = _Game(self.outbox.position(*key))
                entry.sent = entry.position.acked
            position = entry.position
            needs_result = info.status == FINISHED and not position.confirmed and entry.result_sent_at is None
            needs_actions = entry.sent != info.actions or info.actions < position.acked
            if not (needs_result or needs_actions or info is latest):
                if position.confirmed or (info.status == ABANDONED and position.acked == info.actions):
                    self.games.pop(key, None)
                    self.done.add(key)
                continue
            record = journal.load(info.game_id)
            if record is None or record.created != info.created:
                continue
            if len(record.lines) < position.acked:  # undone after being acknowledged: the board replaces them
                position.acked = entry.sent = len(record.lines)
                position.tail = record.lines[-1] if record.lines else ""
                entry.acks.clear()
                self.outbox.save([position])
            if position.acked and record.lines[position.acked - 1] != position.tail:
                # Undone and played again since it was acknowledged (perhaps while this bridge was down):
                # send the whole game again; the board keeps what it has and replaces what differs.
                position.acked = entry.sent = 0
                position.tail = ""
                entry.acks.clear()
                self.outbox.save([position])
                needs_actions = True
            if info is latest:
                self._publish_live()
            if needs_actions:
                entry.sent = min(entry.sent, len(record.lines))
                for seq in range(entry.sent, len(record.lines)):
                    payload = topics.encode("action", game=record.game_id, created=record.created, seq=seq,
                                            line=record.lines[seq], at=time.time())
                    info_ = self.client.publish(self.topic(topics.ACTION), payload, qos=1)
                    self.inflight[info_.mid] = (key, seq, record.lines[seq])
                entry.sent = len(record.lines)
            game = replay(record.header, record.lines)[0] if needs_result else None
            if game is not None and game.state.over:
                body = result_body(record, game)
                self.client.publish(self.topic(topics.RESULT), topics.encode("result", **body), qos=1)
                entry.result_sent_at = time.monotonic()
        if latest is None:
            self._publish_live()

    def _publish_live(self) -> None:
        """The follower's snapshot (the same the phone pages show), with the game's start time."""
        if not self.connected:
            return  # live state is not queued: the latest one is published on reconnect
        body = self.follower.snapshot()
        body["created"] = next((g.created for g in self.history if g.game_id == body.get("game_id")), None)
        payload = topics.encode("live", **body)
        if payload == self.last_live:
            return
        self.last_live = payload
        self.client.publish(self.topic(topics.LIVE), topics.encode("live", **body, at=time.time()), qos=0, retain=True)
