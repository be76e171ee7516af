"""``bornes web``: the phone pages, a Starlette app served by uvicorn, reading the journal only.

* The live table is pushed by server-sent events. One thread follows the journal
  (:class:`bornes.firmware.storage.live.JournalFollower`: inotify + ``PRAGMA data_version``, no timer); each change
  is rendered once and handed to every connected page. A slow phone only ever misses intermediate
  tables, never the latest.
* A new game can be proposed from a paired phone only. Pairing asks the referee (over its control
  socket) to show a PIN on the panel; the phone types it once and gets a random token in a cookie.
  Wrong PINs are rate-limited here per phone, and the referee voids a phone's PIN after five wrong tries
  from that phone (another address can neither use it nor void it).
* No page can play a card: the socket protocol has no message for it.
"""

from __future__ import annotations

import ipaddress

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import Route
from starlette.types import Scope

from bornes.firmware.web.guard import SiteGuard, local_names
from bornes.firmware.web.limits import PDF_AT_ONCE, PDF_WAITING
from bornes.firmware.web.live import EventStream
from bornes.firmware.web.routes import downloads, files, pages, setup, tv
from bornes.firmware.web.site import Settings, Site, pages_url

__all__ = ["PDF_AT_ONCE", "PDF_WAITING", "Settings", "create_app", "pages_url"]


def create_app(settings: Settings) -> Starlette:
    """The phone pages of one table: its routes, the live feed while serving, and the site's guard around them."""
    site = Site(settings)
    # A paired phone always has a live stream: its own seats, whatever other streams are open. The TV page is
    # the table's own screen: the kiosk on the Pi (loopback) or a paired phone or tablet always gets one too.
    stream = EventStream(lambda: site.hub, trusted=lambda scope: site.paired(Request(scope)))
    screen = EventStream(lambda: site.screens, trusted=lambda scope: _on_this_machine(scope)
                         or site.paired(Request(scope)))
    routes = [*pages.ROUTES, Route("/events", stream), *downloads.ROUTES, *setup.ROUTES, *files.ROUTES,
              *tv.ROUTES, Route("/tv/events", screen)]
    app = Starlette(routes=routes, lifespan=site.lifespan, exception_handlers=files.HANDLERS)
    app.state.site = site
    app.add_middleware(SiteGuard, names=local_names(settings.url), refuse=site.refused_page)
    return app


def _on_this_machine(scope: Scope) -> bool:
    """Whether a request comes from this machine (the Pi's own kiosk browser shows the TV page)."""
    client = scope.get("client")
    try:
        return client is not None and ipaddress.ip_address(client[0]).is_loopback
    except ValueError:
        return False
