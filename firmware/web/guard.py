"""The defences both web apps share (``bornes web`` and ``bornes club``), docs/web.md "Under attack".

* :class:`SiteGuard`, an ASGI middleware: a request whose ``Host`` is not one of this machine's
  names is refused (a DNS-rebinding page reaches the Pi under the attacker's name), and a
  state-changing request whose ``Origin`` (or ``Sec-Fetch-Site``) says another site sent it is
  refused (cross-site request forgery, even with the organiser's password in the browser).
* The limits below ASGI (connections, deadlines, head size) are in :mod:`.connections`.
* :func:`csv_cell`: a CSV cell a spreadsheet will not run as a formula.
"""

from __future__ import annotations

import ipaddress
import socket
import unicodedata
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

#: Methods that change nothing: never checked for their origin.
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


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


# -- CSV --------------------------------------------------------------------------------------------

_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")


def _formula_like(text: str) -> bool:
    """Does a spreadsheet see a formula? It skips spaces (and invisible characters) before the ``=``."""
    start = 0
    while start < len(text) and (text[start].isspace() or unicodedata.category(text[start]) in ("Cc", "Cf")):
        if text[start] in "\t\r\n":
            return True
        start += 1
    return text[start:].startswith(_FORMULA_STARTS)


def csv_cell(value: Any) -> Any:
    """A text cell a spreadsheet reads as text: one that starts like a formula, after any spaces
    (``" =1+1"``), gets a leading ``'``.

    Numbers stay numbers (a negative total is a number, not a formula).
    """
    if isinstance(value, str) and _formula_like(value):
        return "'" + value
    return value


def csv_row(values: Iterable[Any]) -> list[Any]:
    return [csv_cell(value) for value in values]
