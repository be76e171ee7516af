"""The pages anyone on the table's network may read: the live table, score sheets, history, stats, the viewer."""

from __future__ import annotations

import contextlib
import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bornes.firmware.storage.live import snapshot
from bornes.firmware.web import games, views
from bornes.firmware.web.site import BadRequest, digits, guarded, html, site_of


async def table(request: Request) -> Response:
    site = site_of(request)
    return html(views.live_page(site.hub.snapshot, site.words(request), site.paired(request), site.settings.keys))


async def table_json(request: Request) -> Response:
    return JSONResponse(site_of(request).hub.snapshot)


async def health(request: Request) -> Response:
    """For ``python -m bench`` and a person checking on the Pi: how often the journal was read."""
    current = site_of(request).hub
    follower = current.follower
    return JSONResponse({
        "pages_connected": len(current.clients),
        "tv_pages_connected": len(site_of(request).screens.clients),  # the TV page (/tv): the kiosk's, a tablet
        "updates_published": current.published,
        "journal_reads": follower.reads if follower is not None else 0,
        "journal_error": follower.error if follower is not None else None,
    })


async def sheet_current(request: Request) -> Response:
    site = site_of(request)
    latest = site.library.latest_id()
    found = site.library.load(latest) if latest is not None else None
    return html(views.sheet_page(found, site.words(request), site.paired(request)))


async def sheet(request: Request) -> Response:
    site = site_of(request)
    return html(views.sheet_page(site.stored(request), site.words(request), site.paired(request)))


async def history(request: Request) -> Response:
    site = site_of(request)
    chosen = request.query_params.get("player", "")[:40]
    rows = []
    for info in reversed(site.library.history()):
        names = games.players_of(info.header)
        if chosen and chosen not in names:
            continue
        summary: dict[str, Any] = {}
        if info.summary:
            with contextlib.suppress(ValueError):
                loaded = json.loads(info.summary)
                summary = loaded if isinstance(loaded, dict) else {}
        rows.append((info, names, summary))
    return html(views.history_page(rows, site.library.players(), chosen, site.words(request), site.paired(request)))


async def stats(request: Request) -> Response:
    site = site_of(request)
    players, teams = games.tallies(site.library.lines())
    chosen_name = request.query_params.get("player", "")
    chosen = next((p for p in players if p.name == chosen_name), None)
    return html(views.stats_page(players, teams, chosen, site.words(request), site.paired(request)))


async def viewer(request: Request) -> Response:
    site = site_of(request)
    words = site.words(request)
    found = site.stored(request)
    wanted = digits(request.query_params.get("step", str(len(found.actions))))
    if wanted is None:
        raise BadRequest(400, words("step must be an action number"))
    step = min(wanted, len(found.actions))
    state_at = found.states[step] if step < len(found.states) else found.state
    snap = snapshot(state_at, found.actions[:step], game_id=found.info.game_id,
                    status=found.info.status if step == len(found.actions) else "in-progress",
                    language=words.language, states=found.states)
    return html(views.viewer_page(found, step, snap, words, site.paired(request)))


ROUTES = [
    Route("/", guarded(table)),
    Route("/api/table", guarded(table_json)),
    Route("/api/health", guarded(health)),
    Route("/sheet", guarded(sheet_current)),
    Route("/history", guarded(history)),
    Route("/stats", guarded(stats)),
    Route("/games/{game}/sheet", guarded(sheet)),
    Route("/games/{game}/view", guarded(viewer)),
]
