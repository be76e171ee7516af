"""The board's pages for everyone: every table live, standings, rounds and results, records, CSV and JSON.

Read-only, and served by the board itself (no CDN). Each page is a Jinja2 template in
``templates/`` (autoescaped); the tables page is drawn by ``static/club.js`` from JSON in the page, since
the board's Content-Security-Policy runs no inline script or style. :class:`ClubSite` is one app's
state and language (``request.app.state.site``): two boards in one process share nothing.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import urllib.parse
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from bornes.firmware.club.board import Board
from bornes.firmware.club.store import ClubStore
from bornes.firmware.language.i18n import LANGUAGES, translations
from bornes.firmware.web.guard import csv_row
from bornes.firmware.web.streams import Seat, StreamSeats
from bornes.firmware.web.templating import Words, environment

MAX_GAME = 10**9  # game numbers are SQLite integers: anything larger is no game
CLUB_DOMAIN = "bornes-club"  # the board's own catalogue: firmware/language/locale/<lang>/LC_MESSAGES/bornes-club.po
#: Everything the pages use comes from the board itself: no inline script or style runs.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
TEMPLATES = environment("bornes.firmware.club")
STATIC = resources.files("bornes.firmware.club") / "static"


def club_words(language: str) -> Words:
    return Words(language, translations(language, CLUB_DOMAIN))


@dataclass
class ClubSite:
    """One board's pages: its tournament, its organiser password, its language, and who is listening."""

    board: Board
    store: ClubStore
    organiser_password: str
    language: str = "en"
    seats: StreamSeats = field(default_factory=StreamSeats)  # who follows the tables page live
    wrong: dict[str, list[float]] = field(default_factory=dict)  # client address -> its recent wrong passwords
    #: Does this request carry the organiser's password? (Set by the organiser pages: they check it.)
    organiser: Callable[[Request], bool] = lambda request: False

    def __post_init__(self) -> None:
        self._words = club_words(self.language)

    def words(self, request: Request | None = None) -> Words:
        """The words of this request's page: the board's language (``language`` in the club settings)."""
        return self._words

    def show(self, request: Request, template: str, title: str, **context: Any) -> HTMLResponse:
        html = TEMPLATES.get_template(template).render(t=self.words(request), title=title,
                                                       brand=self.board.settings.title, **context)
        return HTMLResponse(html, headers=SECURITY_HEADERS)


def site_of(request: Request) -> ClubSite:
    site = request.app.state.site
    assert isinstance(site, ClubSite)
    return site


def client(request: Request) -> str:
    return request.client.host if request.client else "?"


def text(message: str, status: int, **headers: str) -> Response:
    return Response(message, status_code=status, media_type="text/plain", headers=headers or None)


def labels(language: str) -> dict[str, str]:
    """The words around a table's card on the tables page, in one language."""
    t = club_words(language)
    return {"offline": t("offline"), "nonews": t("no news yet"), "hand": t("hand"), "actions": t("actions"),
            "side": t("side"), "battle": t("battle"), "total": t("total"), "limit": t("limit 50"),
            "page": t("the table's page"), "cf": t("CF"),
            "unreadable": t("this table's last message cannot be shown")}


def shown_tables(site: ClubSite) -> list[dict[str, Any]]:
    """Every table as the pages get it, each checked on its own: one that strict JSON cannot carry
    (a ``NaN``, an infinity) is sent as "unreadable", and the others are sent as they are."""
    tables = []
    for table in site.store.tables():
        try:
            json.dumps(table, allow_nan=False)
        except (ValueError, TypeError, RecursionError):
            table = {"table": table["table"], "live": None, "status": None, "unreadable": True}
        tables.append(table)
    return tables


async def tables_page(request: Request) -> Response:
    site = site_of(request)
    words = site.words(request)
    every: dict[str, Any] = {language: labels(language) for language in LANGUAGES}
    every["board"] = words.language
    return site.show(request, "tables.html", words("Every table, live"), tables=shown_tables(site), labels=every)


async def events(request: Request) -> Response:
    """The tables page's live stream. A browser where the organiser is logged in (the projector: its
    browser sends the password with every request to the board) has seats of its own; the others
    share theirs fairly (firmware/web/streams.py)."""
    site = site_of(request)
    listener: asyncio.Queue[str | None] = asyncio.Queue()
    seat = site.seats.take(client(request), site.organiser(request), lambda: listener.put_nowait(None))
    if seat is None:
        return text(site.words(request)("Too many pages open: try again later.\n"), 503, **{"Retry-After": "10"})
    return Followed(site, seat, listener)


class Followed(StreamingResponse):
    """The stream of one tables page, whose seat and listener are given back however it ends (a browser
    gone before its first message too: Starlette then never starts the iterator)."""

    def __init__(self, site: ClubSite, seat: Seat, listener: asyncio.Queue[str | None]) -> None:
        super().__init__(follow(listener), media_type="text/event-stream",
                         headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
        self.site, self.seat, self.listener = site, seat, listener
        site.board.listeners.add(listener)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.site.board.listeners.discard(self.listener)
            self.site.seats.release(self.seat)


async def follow(listener: asyncio.Queue[str | None]) -> AsyncIterator[str]:
    yield ": connected\n\n"
    while True:
        try:
            message = await asyncio.wait_for(listener.get(), timeout=15)
        except TimeoutError:
            yield ": keep-alive\n\n"
            continue
        if message is None:  # the seat went to another browser: this stream ends, the page reconnects
            return
        yield f"data: {message}\n\n"


async def standings_page(request: Request) -> Response:
    site = site_of(request)
    standings = site.store.standings()
    return site.show(request, "standings.html", site.words(request)("Standings"),
                     players=[x.as_dict() for x in standings["players"]],
                     teams=[x.as_dict() for x in standings["teams"]])


def record_query(result: dict[str, Any]) -> str:
    return urllib.parse.urlencode({"table": result["table"], "game": result["game"], "created": result["created"]})


async def rounds_page(request: Request) -> Response:
    site = site_of(request)
    results = site.store.results()
    return site.show(
        request, "rounds.html", site.words(request)("Rounds and results"), rounds=site.store.rounds(),
        by_assignment={r["assignment"]: r for r in results if r["assignment"]},
        handed={t["table"]: (t["status"] or {}).get("assignment") or {} for t in site.store.tables()},
        others=[r for r in results if not r["assignment"]], record_query=record_query)


async def record(request: Request) -> Response:
    """A counted game's record, as the table's journal holds it (docs/record.md): replays anywhere."""
    site = site_of(request)
    words = site.words(request)
    params = request.query_params
    raw = params.get("game", "").strip()
    if not (raw.isascii() and raw.isdigit() and int(raw) < MAX_GAME):
        return text(words("game must be a number\n"), 400)
    game = int(raw)
    found = site.store.record(params.get("table", ""), game, params.get("created", ""))
    if found is None:
        return text(words("no such game\n"), 404)
    name = f"{params.get('table')}-game-{game}.txt"
    return Response(found, media_type="text/plain; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


def as_csv(rows: list[list[Any]]) -> Response:
    out = io.StringIO()
    csv.writer(out).writerows(csv_row(row) for row in rows)  # no cell a spreadsheet would run as a formula
    return Response(out.getvalue(), media_type="text/csv; charset=utf-8")


async def standings_csv(request: Request) -> Response:
    rows: list[list[Any]] = [["kind", "rank", "name", "played", "wins", "ties", "losses", "byes",
                              "match_points", "points"]]
    for kind, lines in site_of(request).store.standings().items():
        for rank, x in enumerate(lines, start=1):
            d = x.as_dict()
            rows.append([kind, rank, d["name"], d["played"], d["wins"], d["ties"], d["losses"], d["byes"],
                         d["match_points"], d["points"]])
    return as_csv(rows)


async def results_csv(request: Request) -> Response:
    rows: list[list[Any]] = [["round", "table", "game", "finished", "edition", "side", "players", "total",
                              "won", "tie", "counted"]]
    for r in site_of(request).store.results():
        for index, side in enumerate(r["sides"]):
            rows.append([r["round"] or "", r["table"], r["game"], r["finished"] or "", r["edition"], index + 1,
                         " & ".join(side["players"]), side["total"],
                         int(not r["tie"] and r["winner"] == index), int(r["tie"]), int(bool(r["assignment"]))])
    return as_csv(rows)


async def api_tables(request: Request) -> Response:
    return JSONResponse(shown_tables(site_of(request)))


async def standings_json(request: Request) -> Response:
    standings = site_of(request).store.standings()
    return JSONResponse({kind: [x.as_dict() for x in lines] for kind, lines in standings.items()})


async def results_json(request: Request) -> Response:
    return JSONResponse(site_of(request).store.results())


async def rounds_json(request: Request) -> Response:
    return JSONResponse(site_of(request).store.rounds())


def static(name: str, media_type: str) -> Route:
    """``/club.css``, ``/club.js``: read once, served from memory."""
    body = (STATIC / name).read_bytes()

    async def serve(request: Request) -> Response:
        return Response(body, media_type=media_type, headers={"Cache-Control": "max-age=3600"})

    return Route(f"/{name}", serve)


ROUTES = [
    Route("/", tables_page),
    Route("/events", events),
    static("club.css", "text/css; charset=utf-8"),
    static("club.js", "text/javascript; charset=utf-8"),
    Route("/api/tables", api_tables),
    Route("/standings", standings_page),
    Route("/standings.json", standings_json),
    Route("/standings.csv", standings_csv),
    Route("/rounds", rounds_page),
    Route("/rounds.json", rounds_json),
    Route("/results.json", results_json),
    Route("/results.csv", results_csv),
    Route("/record", record),
]
