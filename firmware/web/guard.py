"""The defences both web apps share (``bornes web`` and ``bornes club``), docs/web.md "Under attack".

* :class:`SiteGuard`, an ASGI middleware: a request whose ``Host`` is not one of this machine's
  names is refused (a DNS-rebinding page reaches the Pi under the attacker's name), and a
  state-changing request whose ``Origin`` (or ``Sec-Fetch-Site``) says another site sent it is
  refused (cross-site request forgery, even with the organiser's password in the browser).
* :func:`protocol`: uvicorn's h11 protocol with two limits uvicorn lacks: connections per client
  address, and a deadline to send a whole request (slowloris); uvicorn's ``timeout_keep_alive``
  is reset by every byte, so one byte every few seconds would hold a connection for ever.
* :func:`server_config`: the one uvicorn configuration of both apps (no forwarded headers trusted).
* :func:`csv_cell`: a CSV cell a spreadsheet will not run as a formula.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

#: Methods that change nothing: never checked for their origin.
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
#: Connections one client address may hold at once (a phone's browser opens about six).
PER_CLIENT = 16
#: Seconds a client has to send a whole request (headers and body) once its connection is idle.
REQUEST_DEADLINE = 10.0
#: uvicorn refuses (503) every request past this many connections and tasks at once.
CONCURRENCY = 200


def host_name(netloc: str) -> str:
    """``"[::1]:8080"`` → ``"::1"``, ``"Table.local:8080"`` → ``"table.local"``."""
    netloc = netloc.strip().lower()
    if netloc.startswith("["):
        return netloc[1:].split("]", 1)[0]
    if netloc.count(":") > 1:  # a bare IPv6 address
        return netloc
    return netloc.rsplit(":", 1)[0] if ":" in netloc else netloc


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def local_names(*urls: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """The names this machine answers to: localhost, its host name (and ``.local``), configured URLs' hosts.

    Addresses (``192.168.1.20``) are always accepted besides: a rebinding attack needs a name.
    """
    names = {"localhost", "localhost.localdomain"}
    hostname = socket.gethostname().lower()
    if hostname:
        names |= {hostname, hostname.split(".")[0] + ".local"}
    for url in urls:
        if url:
            names.add(host_name(urlsplit(url).netloc))
    names |= {name.lower() for name in extra if name}
    return frozenset(names)


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value).decode("latin-1")
    return None


class SiteGuard:
    """Host allow-list for every request; same-origin check for every state-changing one."""

    def __init__(self, app: ASGIApp, names: frozenset[str], refuse: Any = None) -> None:
        self.app = app
        self.names = names
        self.refuse = refuse  # (status, reason) -> bytes of an HTML page; plain text when None

    def host_allowed(self, host: str | None) -> bool:
        if not host:
            return False
        name = host_name(host)
        return name in self.names or _is_ip(name)

    def cross_site(self, scope: Scope) -> bool:
        """Did another site's page send this? The browser says so in Sec-Fetch-Site, or in Origin.

        Sec-Fetch-Site first: no page can set it, and a page served with ``Referrer-Policy:
        no-referrer`` (the board's) sends ``Origin: null`` even to itself. Browsers without it send
        an Origin with every POST. A request with neither comes from a program (curl, the tests, a
        script with the organiser password), not from a page a person happened to open.
        """
        fetch_site = _header(scope, b"sec-fetch-site")
        if fetch_site is not None:
            return fetch_site not in ("same-origin", "none")
        origin = _header(scope, b"origin")
        if origin is None:
            return False
        parts = urlsplit(origin)
        host = _header(scope, b"host") or ""
        return parts.scheme not in ("http", "https") or parts.netloc.lower() != host.lower()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if not self.host_allowed(_header(scope, b"host")):
            await self._refuse(send, 421, "This page is not served under that name.")
            return
        if scope["method"] not in SAFE_METHODS and self.cross_site(scope):
            await self._refuse(send, 403, "Requests must come from this site's own pages.")
            return
        await self.app(scope, receive, send)

    async def _refuse(self, send: Send, status: int, reason: str) -> None:
        if self.refuse is not None:
            body, kind = self.refuse(status, reason), b"text/html; charset=utf-8"
        else:
            body, kind = (reason + "\n").encode(), b"text/plain; charset=utf-8"
        await send({"type": "http.response.start", "status": status, "headers": [
            (b"content-type", kind), (b"content-length", str(len(body)).encode()), (b"cache-control", b"no-store"),
            (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})


# -- the connection limits (below ASGI: a half-sent request never reaches the app) -------------------

_BUSY = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain\r\nretry-after: 10\r\n"
         b"connection: close\r\ncontent-length: 38\r\n\r\nToo many connections from one address\n")


def protocol(per_client: int = PER_CLIENT, deadline: float = REQUEST_DEADLINE) -> type[asyncio.Protocol]:
    """A uvicorn h11 protocol class counting connections per address, with a whole-request deadline."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    held: dict[str, int] = {}

    class GuardedH11(H11Protocol):
        _address: str | None = None
        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            address = self.client[0] if self.client else "?"
            if held.get(address, 0) >= per_client:
                transport.write(_BUSY)
                transport.close()
                return
            held[address] = held.get(address, 0) + 1
            self._address = address
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            if self._address is not None:
                left = held.get(self._address, 1) - 1
                if left > 0:
                    held[self._address] = left
                else:
                    held.pop(self._address, None)
                self._address = None
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state is not h11.IDLE and self.conn.their_state is not h11.SEND_BODY:
                self._disarm()  # the whole request is in: the answer may take as long as it needs

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
    """uvicorn's configuration for both apps: our protocol, no forwarded headers, bounded concurrency."""
    import uvicorn

    per_client = options.pop("per_client", PER_CLIENT)
    deadline = options.pop("deadline", REQUEST_DEADLINE)
    settings: dict[str, Any] = {
        "loop": "asyncio", "ws": "none", "lifespan": "on", "access_log": False, "server_header": False,
        "timeout_keep_alive": 5, "limit_concurrency": CONCURRENCY,
        # Only a proxy may say who the client is, and there is none: X-Forwarded-For is the client's word.
        "proxy_headers": False, "forwarded_allow_ips": "",
        "h11_max_incomplete_event_size": 16 * 1024,  # request line and headers
    }
    settings.update(options)
    return uvicorn.Config(app, host=host, port=port, http=protocol(per_client, deadline), **settings)


# -- CSV --------------------------------------------------------------------------------------------

_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """A text cell a spreadsheet reads as text: one that starts like a formula gets a leading ``'``.

    Numbers stay numbers (a negative total is a number, not a formula).
    """
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value


def csv_row(values: Iterable[Any]) -> list[Any]:
    return [csv_cell(value) for value in values]
