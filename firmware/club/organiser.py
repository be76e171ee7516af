"""The organiser's pages: rules for every table, entrants, rounds, publishing; behind the organiser password.

HTTP Basic over the club's LAN (put TLS in front if the LAN is not trusted); an address that gets
the password wrong :data:`WRONG_TRIES` times waits :data:`WRONG_WINDOW` seconds. Every form is also
an API: send JSON (``content-type: application/json``) and get JSON back.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import time
import urllib.parse
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from bornes.engine import EDITIONS
from bornes.firmware.club import topics
from bornes.firmware.club.pages import ClubSite, client, site_of, text
from bornes.firmware.club.store import TournamentError

MAX_FORM = 16 * 1024
WRONG_TRIES = 5  # wrong organiser passwords from one address…
WRONG_WINDOW = 60.0  # …within this many seconds, and that address waits until the window has passed


class TooLarge(TournamentError):
    """A request body past :data:`MAX_FORM`: answered 413 without reading the rest."""


def throttled(site: ClubSite, request: Request) -> bool:
    now = time.monotonic()
    recent = [t for t in site.wrong.get(client(request), []) if now - t < WRONG_WINDOW]
    site.wrong[client(request)] = recent
    return len(recent) >= WRONG_TRIES


def allowed(site: ClubSite, request: Request) -> bool:
    if not site.organiser_password or throttled(site, request):
        return False
    header = request.headers.get("authorization", "")
    if not header.lower().startswith("basic "):
        return False
    try:
        _user, _, given = base64.b64decode(header[6:]).decode().partition(":")
    except (binascii.Error, UnicodeDecodeError):
        given = ""
    if hmac.compare_digest(given.encode(), site.organiser_password.encode()):
        return True
    site.wrong.setdefault(client(request), []).append(time.monotonic())
    return False


def presents_password(site: ClubSite, request: Request) -> bool:
    """Does this request carry the organiser's password? Only one that sends a password is checked, and a
    wrong one counts as a wrong try (the live stream is no way round the limit on guesses)."""
    return "authorization" in request.headers and allowed(site, request)


def refuse(site: ClubSite, request: Request) -> Response:
    words = site.words(request)
    if throttled(site, request):
        return text(words("Too many wrong passwords: wait a minute.\n"), 429, **{"Retry-After": str(int(WRONG_WINDOW))})
    if not site.organiser_password:
        return text(words("The organiser pages are off: set organiser_password in the club settings.\n"), 403)
    return text(words("The organiser password is needed.\n"), 401,
                **{"WWW-Authenticate": 'Basic realm="bornes club organiser"'})


def open_round(site: ClubSite) -> int | None:
    open_rounds = [r["number"] for r in site.store.rounds() if not r["closed"]]
    return int(open_rounds[-1]) if open_rounds else None


async def organiser_page(request: Request) -> Response:
    site = site_of(request)
    if not allowed(site, request):
        return refuse(site, request)
    store = site.store
    return site.show(
        request, "organiser.html", site.words(request)("Organiser"), entrants=store.entrants(),
        rejects=store.rejects()[:10], known=[t["table"] for t in store.tables()], editions=list(EDITIONS),
        edition=store.edition(), options=" ".join(f"{k}={v}" for k, v in store.options().items()),
        open_round=open_round(site))


async def rejects_json(request: Request) -> Response:
    site = site_of(request)
    if not allowed(site, request):
        return refuse(site, request)
    return JSONResponse({"rejects": site.store.rejects(), "counts": site.board.counts})


async def read_body(site: ClubSite, request: Request) -> dict[str, Any]:
    words = site.words(request)
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isascii() or not declared.isdigit() or int(declared) > MAX_FORM):
        raise TooLarge(words("request too large"))  # refused before a byte of it is read
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_FORM:
            raise TooLarge(words("request too large"))
    if request.headers.get("content-type", "").startswith("application/json"):
        try:
            data = topics.strict_loads(raw)  # no NaN or Infinity: the board's JSON pages stay strict
        except (ValueError, UnicodeDecodeError, RecursionError):  # 16 KiB of "[" nests too deep
            raise TournamentError(words("the request is not JSON")) from None
        if not isinstance(data, dict):
            raise TournamentError(words("the request is not a JSON object"))
        return data
    # The organiser's forms are urlencoded: parsed here, so the board needs no multipart library.
    try:
        fields = urllib.parse.parse_qs(raw.decode(), keep_blank_values=True, max_num_fields=50)
    except (UnicodeDecodeError, ValueError):
        raise TournamentError(words("the form cannot be read")) from None
    return {key: values[-1] for key, values in fields.items()}


Action = Callable[[ClubSite, dict[str, Any]], dict[str, Any]]


def organiser(action: Action) -> Callable[[Request], Awaitable[Response]]:
    """A form (or JSON) the organiser sends: checked, read, done, answered as a redirect or JSON."""

    async def endpoint(request: Request) -> Response:
        site = site_of(request)
        if not allowed(site, request):
            return refuse(site, request)
        wants_json = request.headers.get("content-type", "").startswith("application/json")
        try:
            answer = action(site, await read_body(site, request))
        except (TournamentError, ValueError, TypeError, KeyError) as error:
            message = f"missing {error}" if isinstance(error, KeyError) else (str(error) or type(error).__name__)
            status = 413 if isinstance(error, TooLarge) else 400
            if wants_json:
                return JSONResponse({"ok": False, "error": message}, status_code=status,
                                    headers={"Connection": "close"} if status == 413 else None)
            page = site.show(request, "refused.html", site.words(request)("Organiser"), message=message)
            page.status_code = status
            if status == 413:
                page.headers["Connection"] = "close"  # the rest of the body is never read
            return page
        if wants_json:
            return JSONResponse({"ok": True, **(answer or {})})
        return RedirectResponse("/organiser", status_code=303)

    return endpoint


def _names(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value]
    return [v.strip() for v in str(value or "").split(",") if v.strip()]


def add_entrant(site: ClubSite, data: dict[str, Any]) -> dict[str, Any]:
    site.store.add_entrant(str(data.get("name", "")), _names(data.get("members")) or None)
    return {}


def settings(site: ClubSite, data: dict[str, Any]) -> dict[str, Any]:
    options = data.get("options")
    if isinstance(options, str):
        options = dict(part.split("=", 1) for part in options.split() if "=" in part)
    site.store.configure(edition=data.get("edition") or None, options=options, name=data.get("name") or None)
    return {}


def new_round(site: ClubSite, data: dict[str, Any]) -> dict[str, Any]:
    tables = _names(data.get("tables")) or [t["table"] for t in site.store.tables()]
    manual = data.get("manual")
    if isinstance(manual, str):
        manual = [[n.strip() for n in part.split(" vs ")] for part in manual.split(";") if part.strip()]
    number = site.store.new_round(str(data.get("pairing", "swiss")), tables, manual)
    return {"round": number}


def _round(site: ClubSite, data: dict[str, Any]) -> int:
    """The round a form names, else the open one."""
    if data.get("round"):
        return int(data["round"])
    number = open_round(site)
    if number is None:
        raise TournamentError(site.words()("there is no open round"))
    return number


def publish(site: ClubSite, data: dict[str, Any]) -> dict[str, Any]:
    number = _round(site, data)
    assignments = site.store.publish_round(number)
    site.board.publish_assignments([dict(a) for a in assignments])
    return {"round": number, "assignments": [a["id"] for a in assignments]}


def close(site: ClubSite, data: dict[str, Any]) -> dict[str, Any]:
    number = _round(site, data)
    site.store.close_round(number)
    return {"round": number}


ROUTES = [
    Route("/organiser", organiser_page),
    Route("/organiser/rejects.json", rejects_json),
    Route("/organiser/entrants", organiser(add_entrant), methods=["POST"]),
    Route("/organiser/settings", organiser(settings), methods=["POST"]),
    Route("/organiser/rounds", organiser(new_round), methods=["POST"]),
    Route("/organiser/publish", organiser(publish), methods=["POST"]),
    Route("/organiser/close", organiser(close), methods=["POST"]),
]
