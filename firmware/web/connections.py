"""The connection limits of both web apps (``bornes web``, ``bornes club``), below ASGI: docs/web.md "Under attack".

uvicorn (0.54, pure Python: asyncio and h11) has one limit of its own, ``limit_concurrency``, and it
counts every open connection: 200 half-sent requests (slowloris) made it answer 503 to everyone. It
has no deadline for a request to arrive (its keep-alive timer starts only after a response, and every
byte stops it), and h11 measures a request's head only while it is incomplete: a 60 KB head sent at
once is taken (python-hyper/h11#182). So :func:`protocol` is uvicorn's h11 protocol with:

* **a deadline**: :data:`REQUEST_DEADLINE` seconds to send a whole request, from the connection (or
  the previous answer) on; then the connection is closed;
* **a head size**: :data:`MAX_HEAD` bytes of request line and headers, however they arrive (431);
* **a ceiling** of open connections (:data:`MOST_CONNECTIONS`, under the file-descriptor limit), at
  most :data:`PER_CLIENT` per client address. An idle connection (waiting for a request: half-sent,
  or kept alive) costs a few kilobytes and no task, so the ceiling is high. When it is reached, a new
  connection takes the place of the oldest idle one of the address holding the most, if that address
  holds at least two more than the newcomer's; else the newcomer is refused. A phone that opens a
  few connections is never the one that gives way to a flood, and a flood whose addresses are all
  full only refuses itself. Connections serving a request or a live stream are never closed here.
"""

from __future__ import annotations

import asyncio
import contextlib
import resource
from typing import Any

import h11

#: Seconds a client has to send a whole request (headers and body) once its connection is idle.
REQUEST_DEADLINE = 10.0
#: Connections one client address may hold at once (a phone's browser opens about six).
PER_CLIENT = 16
#: Open connections at most (and fewer when the file-descriptor limit is lower: :func:`ceiling`).
MOST_CONNECTIONS = 1024
#: Bytes of a request line and its headers (docs/web.md): a phone sends under 2 KiB.
MAX_HEAD = 16 * 1024
#: File descriptors kept for everything but connections: the journal, the control socket, PDF children, logs.
SPARE_FILES = 64

_BUSY = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain\r\nretry-after: 10\r\n"
         b"connection: close\r\ncontent-length: 38\r\n\r\nToo many connections from one address\n")
_FULL = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain\r\nretry-after: 10\r\n"
         b"connection: close\r\ncontent-length: 21\r\n\r\nToo many connections\n")


def ceiling(most: int = MOST_CONNECTIONS) -> int:
    """The connections this process can hold: ``most``, or fewer if its file-descriptor limit is lower.

    The soft limit is raised to the hard one first (systemd's default soft limit is 1024: Python
    does not raise it by itself, and asyncio pauses every accept for a second on EMFILE).
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = most + SPARE_FILES
    if soft != resource.RLIM_INFINITY and soft < wanted:
        raised = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
    if soft == resource.RLIM_INFINITY:
        return most
    return max(1, min(most, soft - SPARE_FILES))


class BoundedHead(h11.Connection):
    """h11's connection, with the head's size measured on every request, not only on incomplete ones.

    ``refusal`` is the status a refused request gets (431: its head is too large; else 400).
    """

    def __init__(self, max_head: int) -> None:
        super().__init__(h11.SERVER, max_incomplete_event_size=max_head)
        self.max_head = max_head
        self.refusal = 400

    def next_event(self) -> Any:
        waiting = self.their_state is h11.IDLE
        # The bytes h11 holds before and after: what it took is the head (a body and pipelined requests stay).
        before = len(self._receive_buffer)
        try:
            event = super().next_event()
        except h11.RemoteProtocolError as error:
            self.refusal = error.error_status_hint
            raise
        if waiting and isinstance(event, h11.Request) and before - len(self._receive_buffer) > self.max_head:
            self.refusal = 431
            raise h11.RemoteProtocolError("request header fields too large", error_status_hint=431)
        return event


class Connections:
    """Every open connection of one server, by client address (oldest first); who gives way at the ceiling."""

    def __init__(self, most: int, per_client: int) -> None:
        self.most = most
        self.per_client = per_client
        self.count = 0
        self.shed = 0  # idle connections closed to make room (for the bench and the health page)
        self.refused = 0
        self._by_address: dict[str, dict[Any, None]] = {}

    def held(self, address: str) -> int:
        return len(self._by_address.get(address, ()))

    def admit(self, connection: Any, address: str) -> bytes | None:
        """Count ``connection`` in, or say why not (the answer to send before closing it)."""
        mine = self.held(address)
        if mine >= self.per_client:
            self.refused += 1
            return _BUSY
        if self.count >= self.most:
            victim = self._victim(mine)
            if victim is None:
                self.refused += 1
                return _FULL
            self.forget(victim)
            self.shed += 1
            victim.shed()
        self._by_address.setdefault(address, {})[connection] = None
        self.count += 1
        return None

    def forget(self, connection: Any) -> None:
        address = connection.address
        held = self._by_address.get(address)
        if held is not None and connection in held:
            del held[connection]
            self.count -= 1
            if not held:
                del self._by_address[address]

    def _victim(self, newcomer_holds: int) -> Any:
        """The oldest idle connection of the address holding the most (at least two more than the newcomer)."""
        for held in sorted(self._by_address.values(), key=len, reverse=True):
            if len(held) < newcomer_holds + 2:
                return None
            for connection in held:
                if connection.idle():
                    return connection
        return None


def protocol(per_client: int = PER_CLIENT, deadline: float = REQUEST_DEADLINE, most: int = MOST_CONNECTIONS,
             max_head: int = MAX_HEAD) -> type[asyncio.Protocol]:
    """A uvicorn h11 protocol class with the limits above (one census of connections per class: per server)."""
    from uvicorn.protocols.http.h11_impl import STATUS_PHRASES, H11Protocol

    census = Connections(most, per_client)

    class GuardedH11(H11Protocol):
        address = "?"
        _counted = False
        _deadline: asyncio.TimerHandle | None = None

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.conn = BoundedHead(max_head)

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self.address = self.client[0] if self.client else "?"
            refusal = census.admit(self, self.address)
            if refusal is not None:
                transport.write(refusal)
                transport.close()
                return
            self._counted = True
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            if self._counted:
                census.forget(self)
                self._counted = False
            super().connection_lost(exc)

        def idle(self) -> bool:
            """Waiting for a request (none yet, half-sent, kept alive, or its body still coming)."""
            return self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and not self.transport.is_closing()

        def shed(self) -> None:
            """Closed to make room for a newcomer (already counted out)."""
            self._counted = False
            self._disarm()
            self.transport.close()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state is not h11.IDLE and self.conn.their_state is not h11.SEND_BODY:
                self._disarm()  # the whole request is in: the answer may take as long as it needs

        def send_400_response(self, msg: str) -> None:
            status = getattr(self.conn, "refusal", 400)
            if status != 431:
                super().send_400_response(msg)
                return
            body = b"Request header fields too large\n"
            for event in (h11.Response(status_code=431, reason=STATUS_PHRASES[431], headers=[
                    (b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close")]), h11.Data(data=body), h11.EndOfMessage()):
                with contextlib.suppress(h11.LocalProtocolError):
                    self.transport.write(self.conn.send(event) or b"")
            self.transport.close()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()  # kept alive: the next request has the same deadline

        def _arm(self) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(deadline, self._expire)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _expire(self) -> None:
            self._deadline = None
            if self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and not self.transport.is_closing():
                self.transport.close()

    return GuardedH11


def server_config(app: Any, host: str, port: int, **options: Any) -> Any:
    """uvicorn's configuration for both apps: our protocol, no forwarded headers, no concurrency limit of
    uvicorn's (it counts idle connections: :class:`Connections` and the stream seats bound the work)."""
    import uvicorn

    per_client = options.pop("per_client", PER_CLIENT)
    deadline = options.pop("deadline", REQUEST_DEADLINE)
    most = ceiling(options.pop("most", MOST_CONNECTIONS))
    settings: dict[str, Any] = {
        "loop": "asyncio", "ws": "none", "lifespan": "on", "access_log": False, "server_header": False,
        "timeout_keep_alive": 5, "limit_concurrency": None,
        # Only a proxy may say who the client is, and there is none: X-Forwarded-For is the client's word.
        "proxy_headers": False, "forwarded_allow_ips": "",
        "h11_max_incomplete_event_size": MAX_HEAD,  # request line and headers, while incomplete
    }
    settings.update(options)
    return uvicorn.Config(app, host=host, port=port, http=protocol(per_client, deadline, most), **settings)
