"""``bornes web``: the phone pages, a Starlette app served by uvicorn, reading the journal only.

* The live table is pushed by server-sent events. One thread follows the journal
  (:class:`bornes.firmware.storage.live.JournalFollower`: inotify + ``PRAGMA data_version``, no timer); each change
  is rendered once and handed to every connected page. A slow phone only ever misses intermediate
  tables, never the latest.
* A new game can be proposed from a paired phone only. Pairing asks the referee (over its control
  socket) to show a PIN on the panel; the phone types it once and gets a random token in a cookie.
  Wrong PINs are rate-limited here and the referee voids a PIN after five wrong tries.
* No page can play a card: the socket protocol has no message for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from bornes.engine.options import EDITIONS
from bornes.firmware.appliance import control
from bornes.firmware.appliance.control_client import ControlClient, ControlUnreachable
from bornes.firmware.language.i18n import WEB_DOMAIN, translations
from bornes.firmware.storage.journal import JournalError
from bornes.firmware.storage.live import GameUnreadable, JournalFollower, LiveSnapshot, empty_snapshot, snapshot
from bornes.firmware.web import games, views
from bornes.firmware.web.games import Library
from bornes.firmware.web.guard import SiteGuard, local_names

log = logging.getLogger("bornes.web")

MAX_BODY = 8192
KEEPALIVE = 25.0  # seconds between SSE comments, so a vanished phone is noticed
COOKIE = "bornes_pair"
TOKEN_DAYS = 180
PIN_TRIES_PER_MINUTE = 5
PIN_REQUESTS_PER_MINUTE = 3
#: PIN requests from every phone together: each one puts a PIN on the panel (between hands).
PIN_REQUESTS_ALL_PER_MINUTE = 6
#: PDF score sheets drawn at once (each child is ~30 MB: a Pi Zero 2 W has 512 MB), and how many may wait.
PDF_AT_ONCE = 2
PDF_WAITING = 4
#: Live-table streams: per phone (tabs), and in all (the rest of uvicorn's connections stay for pages).
STREAMS_PER_CLIENT = 4
STREAMS = 100
CLIENT_QUEUE = 4
PDF_TIMEOUT = 60.0  # seconds for the child that draws a PDF (a Pi Zero needs a few)
#: The browser itself refuses anything not served by the Pi, inline scripts and being framed.
SECURITY_HEADERS = {
    "content-security-policy": "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
}
STATIC_TYPES = {".css": "text/css", ".js": "text/javascript", ".svg": "image/svg+xml"}


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


# -- the live feed ----------------------------------------------------------------------------------


class Hub:
    """Fans the followed table out to every connected page; renders each change once."""

    def __init__(self, settings: Settings, words: views.Words) -> None:
        self.settings = settings
        self.words = words
        self.clients: set[asyncio.Queue[bytes]] = set()
        self.message = self._encode(empty_snapshot(settings.language))
        self.snapshot: LiveSnapshot = empty_snapshot(settings.language)
        self.published = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._follower: JournalFollower | None = None

    def _encode(self, snap: LiveSnapshot) -> bytes:
        html = views.table_fragment(snap, self.words)
        data = json.dumps({"html": html, "actions": snap.get("action_count", 0), "game": snap.get("game_id")},
                          ensure_ascii=False)
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
                follower = self._follower = JournalFollower(self.settings.state_dir, language=self.settings.language)
            except OSError as error:  # no state directory yet: the referee has never run here
                started.set()
                log.warning("cannot follow %s yet (%s); trying again in 5 s", self.settings.state_dir,
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


class EventStream:
    """``GET /events``: the table, then every change, as server-sent events (a raw ASGI app)."""

    def __init__(self, hub: Callable[[], Hub]) -> None:
        self.hub = hub
        self.per_client: dict[str, int] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        hub = self.hub()
        client = scope["client"][0] if scope.get("client") else "?"
        if len(hub.clients) >= STREAMS or self.per_client.get(client, 0) >= STREAMS_PER_CLIENT:
            body = b"Too many live pages open: close one, or try again later.\n"
            await send({"type": "http.response.start", "status": 503, "headers": [
                (b"content-type", b"text/plain; charset=utf-8"), (b"retry-after", b"10"),
                (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        self.per_client[client] = self.per_client.get(client, 0) + 1
        queue: asyncio.Queue[bytes] = asyncio.Queue(CLIENT_QUEUE)
        queue.put_nowait(hub.message)
        hub.clients.add(queue)
        gone = asyncio.Event()

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
        except OSError:
            pass  # the phone went away mid-write
        finally:
            hub.clients.discard(queue)
            listener.cancel()
            left = self.per_client.get(client, 1) - 1
            if left > 0:
                self.per_client[client] = left
            else:
                self.per_client.pop(client, None)


# -- pairing ----------------------------------------------------------------------------------------


class RateLimit:
    """At most ``count`` events per ``window`` seconds per key (a client address)."""

    def __init__(self, count: int, window: float = 60.0) -> None:
        self.count = count
        self.window = window
        self._seen: dict[str, deque[float]] = {}

    def allow(self, key: str, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        times = self._seen.setdefault(key, deque())
        while times and times[0] <= now - self.window:
            times.popleft()
        if len(self._seen) > 1024:  # forget idle clients; never grow without bound
            for other in [k for k, v in self._seen.items() if not v and k != key]:
                del self._seen[other]
        if len(times) >= self.count:
            return False
        times.append(now)
        return True

    def retry_after(self, key: str) -> int:
        times = self._seen.get(key)
        if not times:
            return 0
        return max(1, int(times[0] + self.window - time.monotonic()) + 1)


class Pairings:
    """Tokens of paired phones, kept in memory: restarting ``bornes web`` asks phones to pair again,
    and the web process never needs a writable file.

    A phone unpairs itself (its button on the setup page); the panel unpairs them all (a long BACK
    while a PIN is shown moves ``control.PHONES_FORGOTTEN``'s time, which this reads, never writes).
    """

    def __init__(self, forgotten: Path | None = None) -> None:
        self._tokens: dict[str, tuple[float, float]] = {}  # token -> (paired at, expires at)
        self.forgotten = forgotten

    def new(self) -> str:
        token = secrets.token_urlsafe(32)
        now = time.time()
        self._tokens[token] = (now, now + TOKEN_DAYS * 86400)
        return token

    def valid(self, token: str | None) -> bool:
        if not token or len(token) > 100:
            return False
        times = self._tokens.get(token)
        if times is None or times[1] <= time.time():
            return False
        if self.forgotten is not None and control.phones_forgotten_at(self.forgotten) >= times[0]:
            del self._tokens[token]  # unpaired at the panel since
            return False
        return True

    def forget(self, token: str | None) -> None:
        """Unpair one phone (its own button on the setup page)."""
        if token:
            self._tokens.pop(token, None)


class PdfSlots:
    """At most :data:`PDF_AT_ONCE` PDF children at once; :data:`PDF_WAITING` more wait, the rest hear 503."""

    def __init__(self) -> None:
        self.slots = asyncio.Semaphore(PDF_AT_ONCE)
        self.waiting = 0

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[bool]:
        if self.slots.locked() and self.waiting >= PDF_WAITING:
            yield False
            return
        self.waiting += 1
        try:
            await self.slots.acquire()
        finally:
            self.waiting -= 1
        try:
            yield True
        finally:
            self.slots.release()


# -- the app ----------------------------------------------------------------------------------------


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
    if declared is not None and ((size := _digits(declared, 18)) is None or size > MAX_BODY):
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


def _client(request: Request) -> str:
    return request.client.host if request.client else "?"


def pages_url(settings: Settings) -> str:
    """The address for the panel's QR code: ``[web] url``, else this machine's address on its network.

    The address (not ``<name>.local``): many phones do not resolve mDNS names. It is looked up when a
    PIN is asked for, since DHCP may change it; the route lookup sends nothing.
    """
    if settings.url:
        return settings.url
    address = ""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("192.0.2.1", 9))  # TEST-NET-1: any address off this machine picks the LAN's route
        address = str(probe.getsockname()[0])
    if not address or address.startswith("0."):
        address = socket.gethostname().split(".")[0] + ".local"
    return f"http://{address}:{settings.port}/"


def _digits(raw: str, longest: int = 9) -> int | None:
    """``"12"`` → 12; anything else (``"¹"``, ``"٣"``, 10 digits) → None: ``str.isdigit`` takes more than ``int``."""
    if not raw or len(raw) > longest or not raw.isascii() or not raw.isdigit():
        return None
    return int(raw)


def create_app(settings: Settings) -> Starlette:
    words = views.Words(settings.language, translations(settings.language, WEB_DOMAIN))
    library = Library(settings.state_dir)
    pairings = Pairings(settings.state_dir / control.PHONES_FORGOTTEN)
    pin_limit = RateLimit(PIN_TRIES_PER_MINUTE)
    ask_limit = RateLimit(PIN_REQUESTS_PER_MINUTE)
    ask_all_limit = RateLimit(PIN_REQUESTS_ALL_PER_MINUTE)
    pdf_slots = PdfSlots()
    state: dict[str, Hub] = {}

    def hub() -> Hub:
        return state["hub"]

    def paired(request: Request) -> bool:
        return pairings.valid(request.cookies.get(COOKIE))

    def html(body: str, status: int = 200) -> HTMLResponse:
        return HTMLResponse(body, status, headers={"cache-control": "no-store", **SECURITY_HEADERS})

    def refuse(status: int, message: str) -> Response:
        return html(views.error_page(words, status, message), status)

    def game_id(request: Request) -> int:
        number = _digits(request.path_params.get("game", ""))
        if number is None:
            raise BadRequest(404, words("There is no such game."))
        return number

    def stored(request: Request) -> games.StoredGame:
        try:
            found = library.load(game_id(request))
        except GameUnreadable as error:
            raise BadRequest(500, str(error)) from None
        if found is None:
            raise BadRequest(404, words("There is no such game."))
        return found

    def guarded(
        endpoint: Callable[[Request], Awaitable[Response]],
    ) -> Callable[[Request], Awaitable[Response]]:
        async def run(request: Request) -> Response:
            try:
                return await endpoint(request)
            except BadRequest as error:
                return refuse(error.status, error.message)
            except JournalError as error:
                return refuse(503, str(error))

        return run

    # -- pages --

    async def table(request: Request) -> Response:
        return html(views.live_page(hub().snapshot, words, paired(request)))

    async def table_json(request: Request) -> Response:
        return JSONResponse(hub().snapshot)

    async def health(request: Request) -> Response:
        """For ``python -m bench`` and a person checking on the Pi: how often the journal was read."""
        current = hub()
        follower = current.follower
        return JSONResponse({
            "pages_connected": len(current.clients),
            "updates_published": current.published,
            "journal_reads": follower.reads if follower is not None else 0,
            "journal_error": follower.error if follower is not None else None,
        })

    async def sheet_current(request: Request) -> Response:
        latest = library.latest_id()
        found = library.load(latest) if latest is not None else None
        return html(views.sheet_page(found, words, paired(request)))

    async def sheet(request: Request) -> Response:
        return html(views.sheet_page(stored(request), words, paired(request)))

    async def history(request: Request) -> Response:
        chosen = request.query_params.get("player", "")[:40]
        rows = []
        for info in reversed(library.history()):
            names = games.players_of(info.header)
            if chosen and chosen not in names:
                continue
            summary: dict[str, Any] = {}
            if info.summary:
                with contextlib.suppress(ValueError):
                    loaded = json.loads(info.summary)
                    summary = loaded if isinstance(loaded, dict) else {}
            rows.append((info, names, summary))
        return html(views.history_page(rows, library.players(), chosen, words, paired(request)))

    async def stats(request: Request) -> Response:
        players, teams = games.tallies(library.lines())
        chosen_name = request.query_params.get("player", "")
        chosen = next((p for p in players if p.name == chosen_name), None)
        return html(views.stats_page(players, teams, chosen, words, paired(request)))

    async def viewer(request: Request) -> Response:
        found = stored(request)
        wanted = _digits(request.query_params.get("step", str(len(found.actions))))
        if wanted is None:
            raise BadRequest(400, words("step must be an action number"))
        step = min(wanted, len(found.actions))
        state_at = found.states[step] if step < len(found.states) else found.state
        snap = snapshot(state_at, found.actions[:step], game_id=found.info.game_id,
                        status=found.info.status if step == len(found.actions) else "in-progress",
                        language=settings.language, states=found.states)
        return html(views.viewer_page(found, step, snap, words, paired(request)))

    # -- downloads --

    async def record(request: Request) -> Response:
        found = stored(request)
        return PlainTextResponse(games.record_text(found.info), headers={
            "content-disposition": f'attachment; filename="bornes-game-{found.info.game_id}.txt"'})

    async def game_json(request: Request) -> Response:
        found = stored(request)
        return Response(games.game_json(found), media_type="application/json", headers={
            "content-disposition": f'attachment; filename="bornes-game-{found.info.game_id}.json"'})

    async def history_csv(request: Request) -> Response:
        return Response(games.history_csv(library.history(), library), media_type="text/csv; charset=utf-8",
                        headers={"content-disposition": 'attachment; filename="bornes-history.csv"'})

    async def sheet_pdf(request: Request) -> Response:
        found = stored(request)
        async with pdf_slots.slot() as free:
            if not free:
                response = refuse(503, words("The table is drawing other score sheets: try again in a few seconds."))
                response.headers["retry-after"] = "10"
                return response
            return await draw_pdf(found)

    async def draw_pdf(found: games.StoredGame) -> Response:
        # In a child process: reportlab would otherwise stay in this long-running process's memory.
        child = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bornes.firmware.web.pdf", str(settings.state_dir), str(found.info.game_id),
            settings.language, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        try:
            pdf, problem = await asyncio.wait_for(child.communicate(), timeout=PDF_TIMEOUT)
        except TimeoutError:
            child.kill()
            await child.wait()
            raise BadRequest(503, words("The PDF took too long; try again.")) from None
        except asyncio.CancelledError:  # the server is stopping: no child outlives its slot
            child.kill()
            raise
        if child.returncode != 0 or not pdf.startswith(b"%PDF"):
            last = problem.decode(errors="replace").strip().splitlines()[-1:] or ["?"]
            log.warning("PDF of game %d failed: %s", found.info.game_id, last[0])
            if "reportlab" in problem.decode(errors="replace"):
                raise BadRequest(501, words("PDF needs reportlab: install bornes with the web extra"))
            raise BadRequest(500, words("The PDF could not be made."))
        return Response(pdf, media_type="application/pdf", headers={
            "content-disposition": f'attachment; filename="bornes-sheet-{found.info.game_id}.pdf"'})

    # -- pairing and setup --

    def draft(edition: str | None = None) -> dict[str, Any]:
        defaults = settings.defaults
        name = edition if edition in EDITIONS else defaults.get("edition", "winning-moves")
        assert name is not None
        ed = EDITIONS[name]
        players = defaults.get("players", 4)
        if players not in ed.seat_counts:
            players = ed.seat_counts[0]
        teams = ed.default_teams(players)
        return {
            "edition": name,
            "players_choice": f"{players}{'t' if teams else ''}",
            "names": list(defaults.get("names", []))[:8],
            "dealer": defaults.get("dealer", 0),
            "options": dict(defaults.get("options", {})) if name == defaults.get("edition") else {},
        }

    async def setup_form(request: Request) -> Response:
        if not paired(request):
            return html(views.pairing_page(words))
        return html(views.setup_page(words, draft(request.query_params.get("edition"))))

    async def pair_start(request: Request) -> Response:
        await read_form(request)  # a size check; the form is empty
        if not ask_limit.allow(_client(request)) or not ask_all_limit.allow("every phone"):
            return html(views.pairing_page(words, words("Too many requests: wait a minute."), "error"), 429)
        url = pages_url(settings).rstrip("/") + "/setup"  # never from the request: its Host is the client's word
        try:
            answer = await asyncio.to_thread(ControlClient(settings.control_socket).ask_pairing, url)
        except ControlUnreachable as error:
            return html(views.pairing_page(words, str(error), "error"), 503)
        if not answer.ok:
            return html(views.pairing_page(words, answer.error, "error"), 409)
        return html(views.pairing_page(words, words("Look at the table: type the PIN shown there.")))

    async def pair(request: Request) -> Response:
        form = await read_form(request)
        client = _client(request)
        if not pin_limit.allow(client):
            message = words("Too many tries: wait {seconds} s.", seconds=pin_limit.retry_after(client))
            return html(views.pairing_page(words, message, "error"), 429)
        pin = form.get("pin", "").strip()
        if len(pin) != control.PIN_DIGITS or _digits(pin) is None:
            return html(views.pairing_page(words, words("A PIN is 6 digits."), "error"), 400)
        try:
            answer = await asyncio.to_thread(ControlClient(settings.control_socket).offer_pin, pin)
        except ControlUnreachable as error:
            return html(views.pairing_page(words, str(error), "error"), 503)
        if not answer.ok:  # the table's reason, worded in the page's language
            return html(views.pairing_page(words, words(answer.error), "error"), 403)
        response = RedirectResponse("/setup", 303)
        response.set_cookie(COOKIE, pairings.new(), max_age=TOKEN_DAYS * 86400, httponly=True, samesite="strict",
                            secure=request.url.scheme == "https")
        return response

    async def setup_send(request: Request) -> Response:
        if not paired(request):
            return html(views.pairing_page(words, words("This phone is not paired: only a paired phone may set up a game."), "error"), 403)  # noqa: E501
        form = await read_form(request)
        edition = form.get("edition", "")
        if edition not in EDITIONS:
            return html(views.setup_page(words, draft(), words("Choose an edition."), "error"), 400)
        choice = form.get("players", "")
        teams = choice.endswith("t")
        count_text = choice.rstrip("t")
        count = _digits(count_text, 1) or 0
        if not 2 <= count <= 8:
            return html(views.setup_page(words, draft(edition), words("Choose the players."), "error"), 400)
        names = [" ".join(form.get(f"name{i}", "").split()) for i in range(count)]
        options = {key[7:]: value for key, value in form.items() if key.startswith("option.")}
        dealer_text = form.get("dealer", "0")
        dealer = _digits(dealer_text)
        dealer = -1 if dealer is None else dealer
        message = {"type": "setup", "edition": edition, "players": count, "teams": teams, "names": names,
                   "dealer": dealer, "options": options}
        back = {**draft(edition), "players_choice": choice, "names": names + draft(edition)["names"][count:],
                "dealer": max(0, dealer), "options": options}
        if any(not name for name in names):
            return html(views.setup_page(words, back, words("Every seat needs a name."), "error"), 400)
        try:
            answer = await asyncio.to_thread(ControlClient(settings.control_socket).propose_setup, message)
        except ControlUnreachable as error:
            return html(views.setup_page(words, back, str(error), "error"), 503)
        if answer.waiting:  # kept by the table: offered there when its game ends
            return html(views.setup_page(words, back, words(
                "The table is busy until this game ends: it will offer your game then."), "ok"), 202)
        if not answer.ok:
            return html(views.setup_page(words, back, answer.error, "error"), 409)
        return html(views.setup_page(words, back, words("Sent: press OK at the table to start."), "ok"))

    async def unpair(request: Request) -> Response:
        await read_form(request)  # a size check; the form is empty
        pairings.forget(request.cookies.get(COOKIE))
        response = html(views.pairing_page(words, words("This phone is no longer paired."), "ok"))
        response.delete_cookie(COOKIE, httponly=True, samesite="strict")
        return response

    # -- static files --

    static_root = resources.files("bornes.firmware.web") / "static"

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        suffix = Path(name).suffix
        if "/" in name or name.startswith(".") or suffix not in STATIC_TYPES:
            return refuse(404, words("Not found."))
        resource = static_root / name
        if not resource.is_file():
            return refuse(404, words("Not found."))
        return Response(resource.read_bytes(), media_type=STATIC_TYPES[suffix],
                        headers={"cache-control": "public, max-age=3600", **SECURITY_HEADERS})

    async def not_found(request: Request, exc: Exception) -> Response:
        return refuse(404, words("Not found."))

    async def method_not_allowed(request: Request, exc: Exception) -> Response:
        return refuse(405, words("Not allowed here."))

    async def server_error(request: Request, exc: Exception) -> Response:
        log.exception("page %s", request.url.path)
        return refuse(500, words("Something went wrong on the table's side; the game is not affected."))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        state["hub"] = Hub(settings, words)
        state["hub"].start(asyncio.get_running_loop())
        app.state.hub = state["hub"]
        try:
            yield
        finally:
            state["hub"].stop()

    routes = [
        Route("/", guarded(table)),
        Route("/api/table", guarded(table_json)),
        Route("/api/health", guarded(health)),
        Route("/events", EventStream(hub)),
        Route("/sheet", guarded(sheet_current)),
        Route("/history", guarded(history)),
        Route("/history.csv", guarded(history_csv)),
        Route("/stats", guarded(stats)),
        Route("/games/{game}/sheet", guarded(sheet)),
        Route("/games/{game}/view", guarded(viewer)),
        Route("/games/{game}/record", guarded(record)),
        Route("/games/{game}/json", guarded(game_json)),
        Route("/games/{game}/sheet.pdf", guarded(sheet_pdf)),
        Route("/setup", guarded(setup_form), methods=["GET"]),
        Route("/setup", guarded(setup_send), methods=["POST"]),
        Route("/pair/start", guarded(pair_start), methods=["POST"]),
        Route("/pair", guarded(pair), methods=["POST"]),
        Route("/unpair", guarded(unpair), methods=["POST"]),
        Route("/static/{name}", static),
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={404: not_found, 405: method_not_allowed, 500: server_error},
    )
    app.state.settings = settings
    app.state.pairings = pairings

    def refused_page(status: int, reason: str) -> bytes:
        return views.error_page(words, status, words(reason)).encode()

    app.add_middleware(SiteGuard, names=local_names(settings.url), refuse=refused_page)
    return app
