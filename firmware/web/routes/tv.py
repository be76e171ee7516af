"""The TV page: the table's panel full screen on a TV, monitor or tablet (``[display] panel = "tv"``, docs/tv.md)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bornes.firmware.web import views
from bornes.firmware.web.site import guarded, html, site_of


async def tv(request: Request) -> Response:
    site = site_of(request)
    sound = site.settings.tv_sound or request.query_params.get("sound") == "1"
    return html(views.tv_page(site.screens.screen, site.words(request), site.settings.keys, sound))


ROUTES = [Route("/tv", guarded(tv))]
