"""The static files (CSS, JavaScript, the icon) and the error pages of every route."""

from __future__ import annotations

import logging
from importlib import resources
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bornes.firmware.web.site import SECURITY_HEADERS, refuse, site_of

log = logging.getLogger("bornes.web")

STATIC_TYPES = {".css": "text/css", ".js": "text/javascript", ".svg": "image/svg+xml"}
STATIC_ROOT = resources.files("bornes.firmware.web") / "static"


async def static(request: Request) -> Response:
    words = site_of(request).words(request)
    name = request.path_params["name"]
    suffix = Path(name).suffix
    if "/" in name or name.startswith(".") or suffix not in STATIC_TYPES:
        return refuse(request, 404, words("Not found."))
    resource = STATIC_ROOT / name
    if not resource.is_file():
        return refuse(request, 404, words("Not found."))
    return Response(resource.read_bytes(), media_type=STATIC_TYPES[suffix],
                    headers={"cache-control": "public, max-age=3600", **SECURITY_HEADERS})


async def not_found(request: Request, exc: Exception) -> Response:
    return refuse(request, 404, site_of(request).words(request)("Not found."))


async def method_not_allowed(request: Request, exc: Exception) -> Response:
    return refuse(request, 405, site_of(request).words(request)("Not allowed here."))


async def server_error(request: Request, exc: Exception) -> Response:
    log.exception("page %s", request.url.path)
    words = site_of(request).words(request)
    return refuse(request, 500, words("Something went wrong on the table's side; the game is not affected."))


ROUTES = [Route("/static/{name}", static)]
HANDLERS = {404: not_found, 405: method_not_allowed, 500: server_error}
