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

from starlette.applications import Starlette
from starlette.routing import Route

from bornes.firmware.web.guard import SiteGuard, local_names
from bornes.firmware.web.limits import PDF_AT_ONCE, PDF_WAITING
from bornes.firmware.web.live import EventStream
from bornes.firmware.web.routes import downloads, files, pages, setup, tv
from bornes.firmware.web.site import Settings, Site, pages_url

__all__ = ["PDF_AT_ONCE", "PDF_WAITING", "Settings", "create_app", "pages_url"]


def create_app(settings: Settings) -> Starlette:
    """The phone pages of one table: its routes, the live feed while serving, and the site's guard around them."""
    site = Site(settings)
    routes = [*pages.ROUTES, Route("/events", EventStream(lambda: site.hub)), *downloads.ROUTES, *setup.ROUTES,
              *files.ROUTES, *tv.ROUTES, Route("/tv/events", EventStream(lambda: site.screens))]
    app = Starlette(routes=routes, lifespan=site.lifespan, exception_handlers=files.HANDLERS)
    app.state.site = site
    app.add_middleware(SiteGuard, names=local_names(settings.url), refuse=site.refused_page)
    return app
