"""``bornes club``'s web app: every table live, standings by player and team, rounds and results, organiser.

Starlette under uvicorn, like the phone companion. The routes live in :mod:`.pages` (for everyone,
read-only) and :mod:`.organiser` (behind the organiser password), the HTML in ``templates/``, the
style and the tables page's script in ``static/``. Each app keeps its own state and language
(:class:`~.pages.ClubSite`), so one process may serve two boards in two languages.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from starlette.applications import Starlette

from bornes.firmware.club import organiser, pages
from bornes.firmware.club.board import Board
from bornes.firmware.club.pages import ClubSite
from bornes.firmware.club.store import ClubStore
from bornes.firmware.web.guard import SiteGuard, local_names


def create_app(board: Board, store: ClubStore, organiser_password: str, language: str = "en",
               url: str = "") -> Starlette:
    """The pages; ``url`` is where browsers reach the board ("http://club.local:8080/"): its name is allowed."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        board.loop = asyncio.get_running_loop()  # where the MQTT thread hands live updates over
        yield
        board.loop = None

    app = Starlette(routes=[*pages.ROUTES, *organiser.ROUTES], lifespan=lifespan)
    site = ClubSite(board, store, organiser_password, language)
    site.organiser = lambda request: organiser.presents_password(site, request)  # the projector's stream has a seat
    app.state.site = site
    app.add_middleware(SiteGuard, names=local_names(url))
    return app
