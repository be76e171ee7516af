"""What every route of ``bornes web`` shares: the settings, the per-app state, the page's words, the answers.

One :class:`Site` per app (``request.app.state.site``), never a module global: two apps in one
process (the tests, a desk with two tables) share nothing. A route raises :class:`BadRequest` for a
request it refuses; :func:`guarded` turns it (and an unreadable journal) into the error page.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from bornes.firmware.appliance import control_client as control
from bornes.firmware.language.i18n import WEB_DOMAIN, translations
from bornes.firmware.storage.journal import JournalError
from bornes.firmware.storage.live import GameUnreadable
from bornes.firmware.web import views
from bornes.firmware.web.games import Library, StoredGame
from bornes.firmware.web.limits import PdfSlots, RateLimit
from bornes.firmware.web.live import Hub
from bornes.firmware.web.phones import Pairings
from bornes.firmware.web.tv import ScreenHub

MAX_BODY = 8192
COOKIE = "bornes_pair"
#: Per phone (client address), never shared: what one address does cannot use up another's.
PIN_TRIES_PER_MINUTE = 5
PIN_REQUESTS_PER_MINUTE = 3
#: The browser itself refuses anything not served by the Pi, inline scripts and being framed.
SECURITY_HEADERS = {
    "content-security-policy": "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
}


@dataclass
class Settings:
    state_dir: Path
    control_socket: Path
    language: str = "en"
    defaults: dict[str, Any] = field(default_factory=dict)  # the config's game: edition, names, dealer…
    #: Where phones reach these pages ("http://table1.local:8080/"): the panel's QR code, never the request's
    #: Host. Empty: this machine's address on the network, found when a PIN is asked for (see :func:`pages_url`).
    url: str = ""
    port: int = 8080
    #: The address the server listens on ("" or 0.0.0.0/::: every address of this machine). A server
    #: bound to one address is reached at that address only, so the QR code names it (see :func:`pages_url`).
    host: str = ""
    #: (key, button) of the table's USB keypad (``[buttons] source = "hid"``); empty: buttons on the GPIO.
    keys: tuple[tuple[str, str], ...] = ()
    #: Where the referee keeps its screen for the TV page (``tv.json``, ``[display] panel = "tv"``); None:
    #: beside the control socket.
    tv_folder: Path | None = None
    #: The TV page plays the chirps (``[sound] output = "page"``).
    tv_sound: bool = False


class Site:
    """One app's state: the journal's games, paired phones, the limits, and the live feed while serving."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.library = Library(settings.state_dir)
        self.pairings = Pairings(settings.state_dir / control.PHONES_FORGOTTEN)
        self.pin_limit = RateLimit(PIN_TRIES_PER_MINUTE)
        self.ask_limit = RateLimit(PIN_REQUESTS_PER_MINUTE)
        self.pdf_slots = PdfSlots()
        self._words: dict[str, views.Words] = {}
        self._hub: Hub | None = None
        self._screens: ScreenHub | None = None

    def words_for(self, language: str) -> views.Words:
        if language not in self._words:
            self._words[language] = views.Words(language, translations(language, WEB_DOMAIN))
        return self._words[language]

    def words(self, request: Request | None = None) -> views.Words:
        """The words of this request's page: the table's language (the live table is in its words)."""
        return self.words_for(self.settings.language)

    @property
    def hub(self) -> Hub:
        assert self._hub is not None, "the live feed starts with the app (its lifespan)"
        return self._hub

    @property
    def screens(self) -> ScreenHub:
        """The referee's screen for the TV page (firmware/web/tv.py)."""
        assert self._screens is not None, "the TV feed starts with the app (its lifespan)"
        return self._screens

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        self._hub = Hub(self.settings.state_dir, self.words())
        self._hub.start(asyncio.get_running_loop())
        app.state.hub = self._hub
        self._screens = ScreenHub(self.settings.tv_folder or self.settings.control_socket.parent)
        self._screens.start(asyncio.get_running_loop())
        try:
            yield
        finally:
            self._hub.stop()
            self._screens.stop()

    def paired(self, request: Request) -> bool:
        return self.pairings.valid(request.cookies.get(COOKIE))

    def stored(self, request: Request) -> StoredGame:
        """The game of ``/games/{game}/…``, or a 404 the reader understands."""
        words = self.words(request)
        number = digits(request.path_params.get("game", ""))
        if number is None:
            raise BadRequest(404, words("There is no such game."))
        try:
            found = self.library.load(number)
        except GameUnreadable as error:
            raise BadRequest(500, str(error)) from None
        if found is None:
            raise BadRequest(404, words("There is no such game."))
        return found

    def refused_page(self, status: int, reason: str) -> bytes:
        """The page :class:`~bornes.firmware.web.guard.SiteGuard` answers with (a wrong Host, a cross-site post)."""
        words = self.words()
        return views.error_page(words, status, words(reason)).encode()


def site_of(request: Request) -> Site:
    site = request.app.state.site
    assert isinstance(site, Site)
    return site


def html(body: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(body, status, headers={"cache-control": "no-store", **SECURITY_HEADERS})


def refuse(request: Request, status: int, message: str) -> Response:
    return html(views.error_page(site_of(request).words(request), status, message), status)


def guarded(endpoint: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
    """A route whose refusals (:class:`BadRequest`, an unreadable journal) are error pages, never tracebacks."""

    async def run(request: Request) -> Response:
        try:
            return await endpoint(request)
        except BadRequest as error:
            return refuse(request, error.status, error.message)
        except JournalError as error:
            return refuse(request, 503, str(error))

    return run


class BadRequest(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


async def read_form(request: Request) -> dict[str, str]:
    """A small urlencoded form, refused past :data:`MAX_BODY` bytes (no multipart, no uploads)."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        raise BadRequest(415, "send a form (application/x-www-form-urlencoded)")
    declared = request.headers.get("content-length")
    if declared is not None and ((size := digits(declared, 18)) is None or size > MAX_BODY):
        raise BadRequest(413, f"the request is larger than {MAX_BODY} bytes")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise BadRequest(413, f"the request is larger than {MAX_BODY} bytes")
    try:
        text = body.decode("utf-8")
        fields = parse_qs(text, keep_blank_values=True, strict_parsing=False, max_num_fields=64)
    except (UnicodeDecodeError, ValueError):
        raise BadRequest(400, "the form is not readable UTF-8") from None
    return {key: values[-1] for key, values in fields.items()}


def client(request: Request) -> str:
    return request.client.host if request.client else "?"


def pages_url(settings: Settings) -> str:
    """The address for the panel's QR code: ``[web] url``, else the address the server listens on,
    else (listening on every address) this machine's address on its network.

    The address (not ``<name>.local``): many phones do not resolve mDNS names. It is looked up when a
    PIN is asked for, since DHCP may change it; the route lookup sends nothing. A server bound to one
    address (``--host 127.0.0.1``) is named by that address, never by one it does not serve.
    """
    if settings.url:
        return settings.url
    if settings.host not in ("", "0.0.0.0", "::"):
        host = f"[{settings.host}]" if ":" in settings.host else settings.host
        return f"http://{host}:{settings.port}/"
    address = ""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("192.0.2.1", 9))  # TEST-NET-1: any address off this machine picks the LAN's route
        address = str(probe.getsockname()[0])
    if not address or address.startswith("0."):
        address = socket.gethostname().split(".")[0] + ".local"
    return f"http://{address}:{settings.port}/"


def digits(raw: str, longest: int = 9) -> int | None:
    """``"12"`` → 12; anything else (``"¹"``, ``"٣"``, 10 digits) → None: ``str.isdigit`` takes more than ``int``."""
    if not raw or len(raw) > longest or not raw.isascii() or not raw.isdigit():
        return None
    return int(raw)
