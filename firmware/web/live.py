"""The live table: one thread follows the journal, each change is rendered once and pushed to every page.

:class:`Hub` follows the journal (:class:`bornes.firmware.storage.live.JournalFollower`: inotify +
``PRAGMA data_version``, no timer); :class:`EventStream` is ``GET /events``, the server-sent events
each page listens to. A slow phone only ever misses intermediate tables, never the latest.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from starlette.types import Receive, Scope, Send

from bornes.firmware.storage.live import JournalFollower, LiveSnapshot, empty_snapshot
from bornes.firmware.web import views
from bornes.firmware.web.streams import StreamSeats

log = logging.getLogger("bornes.web")

KEEPALIVE = 25.0  # seconds between SSE comments, so a vanished phone is noticed
CLIENT_QUEUE = 4


class Hub:
    """Fans the followed table out to every connected page; renders each change once."""

    def __init__(self, state_dir: Path, words: views.Words) -> None:
        self.state_dir = state_dir
        self.words = words
        self.clients: set[asyncio.Queue[bytes]] = set()
        self.message = self._encode(empty_snapshot(words.language))
        self.snapshot: LiveSnapshot = empty_snapshot(words.language)
        self.published = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._follower: JournalFollower | None = None

    def _encode(self, snap: LiveSnapshot) -> bytes:
        html = views.table_fragment(snap, self.words)
        data = json.dumps({"html": html, "actions": snap.get("action_count", 0), "game": snap.get("game_id")},
                          ensure_ascii=False, allow_nan=False)
        return f"event: table\ndata: {data}\n\n".encode()

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Follow the journal in a thread of its own (SQLite connections stay in the thread that made them)."""
        self._loop = loop
        started = threading.Event()
        self._thread = threading.Thread(target=self._follow, args=(started,), name="journal-follower", daemon=True)
        self._thread.start()
        started.wait(10.0)

    def _follow(self, started: threading.Event) -> None:
        assert self._loop is not None
        follower = None
        while follower is None and not self._stop.is_set():
            try:
                follower = self._follower = JournalFollower(self.state_dir, language=self.words.language)
            except OSError as error:  # no state directory yet: the referee has never run here
                started.set()
                log.warning("cannot follow %s yet (%s); trying again in 5 s", self.state_dir,
                            error.strerror or error)
                self._stop.wait(5.0)
        started.set()
        if follower is None:
            return
        snap = follower.snapshot()
        self._loop.call_soon_threadsafe(self._deliver, snap, self._encode(snap))
        while not self._stop.is_set():
            try:
                changed = follower.wait(timeout=1.0)
            except Exception:  # a follower bug must not end the live feed
                log.exception("following the journal")
                time.sleep(1.0)
                continue
            if changed:
                snap = follower.snapshot()
                message = self._encode(snap)
                with contextlib.suppress(RuntimeError):  # the loop closed while shutting down
                    self._loop.call_soon_threadsafe(self._deliver, snap, message)

    def _deliver(self, snap: LiveSnapshot, message: bytes) -> None:
        self.snapshot = snap
        self.message = message
        self.published += 1
        for queue in self.clients:
            if queue.full():  # a slow phone skips to the newest table
                with contextlib.suppress(asyncio.QueueEmpty):
                    queue.get_nowait()
            queue.put_nowait(message)

    @property
    def follower(self) -> JournalFollower | None:
        return self._follower

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=3.0)
        if self._follower is not None:
            self._follower.close()


class Feed(Protocol):
    """What :class:`EventStream` serves: the latest message, and the queues of the pages listening
    (the live table's :class:`Hub`; the TV page's :class:`~bornes.firmware.web.tv.ScreenHub`)."""

    clients: set[asyncio.Queue[bytes]]
    message: bytes


class EventStream:
    """``GET /events``: the table, then every change, as server-sent events (a raw ASGI app).

    Seats come from :class:`~bornes.firmware.web.streams.StreamSeats`: a paired phone (``trusted``)
    always has one; a stream that gives way to a newcomer ends, and its page reconnects by itself.
    The same stream serves the TV page's screens (any :class:`Feed`).
    """

    def __init__(self, hub: Callable[[], Feed], trusted: Callable[[Scope], bool] = lambda scope: False) -> None:
        self.hub = hub
        self.trusted = trusted
        self.seats = StreamSeats()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        hub = self.hub()
        client = scope["client"][0] if scope.get("client") else "?"
        gone = asyncio.Event()  # the phone went away, or its seat went to another
        seat = self.seats.take(client, self.trusted(scope), gone.set)
        if seat is None:
            body = b"Too many live pages open: close one, or try again later.\n"
            await send({"type": "http.response.start", "status": 503, "headers": [
                (b"content-type", b"text/plain; charset=utf-8"), (b"retry-after", b"10"),
                (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        queue: asyncio.Queue[bytes] = asyncio.Queue(CLIENT_QUEUE)
        queue.put_nowait(hub.message)
        hub.clients.add(queue)

        async def listen() -> None:
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    gone.set()
                    return

        listener = asyncio.ensure_future(listen())
        try:
            await send({
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", b"text/event-stream; charset=utf-8"),
                    (b"cache-control", b"no-store"),
                    (b"x-accel-buffering", b"no"),
                ],
            })
            await send({"type": "http.response.body", "body": b"retry: 2000\n\n", "more_body": True})
            while not gone.is_set():
                getter = asyncio.ensure_future(queue.get())
                waiter = asyncio.ensure_future(gone.wait())
                done, _ = await asyncio.wait({getter, waiter}, timeout=KEEPALIVE,
                                             return_when=asyncio.FIRST_COMPLETED)
                waiter.cancel()
                if getter in done:
                    body = getter.result()
                else:
                    getter.cancel()
                    if gone.is_set():
                        break
                    body = b": keep-alive\n\n"
                await send({"type": "http.response.body", "body": body, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:
            pass  # the phone went away mid-write
        finally:
            hub.clients.discard(queue)
            listener.cancel()
            self.seats.release(seat)
