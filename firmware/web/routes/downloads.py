"""Downloads: a game's record and JSON, the history as CSV, and the printable score sheet (PDF)."""

from __future__ import annotations

import asyncio
import logging
import sys

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from bornes.firmware.web import games
from bornes.firmware.web.site import BadRequest, Site, guarded, refuse, site_of

log = logging.getLogger("bornes.web")

PDF_TIMEOUT = 60.0  # seconds for the child that draws a PDF (a Pi Zero needs a few)


async def record(request: Request) -> Response:
    found = site_of(request).stored(request)
    return PlainTextResponse(games.record_text(found.info), headers={
        "content-disposition": f'attachment; filename="bornes-game-{found.info.game_id}.txt"'})


async def game_json(request: Request) -> Response:
    found = site_of(request).stored(request)
    return Response(games.game_json(found), media_type="application/json", headers={
        "content-disposition": f'attachment; filename="bornes-game-{found.info.game_id}.json"'})


async def history_csv(request: Request) -> Response:
    library = site_of(request).library
    return Response(games.history_csv(library.history(), library), media_type="text/csv; charset=utf-8",
                    headers={"content-disposition": 'attachment; filename="bornes-history.csv"'})


async def sheet_pdf(request: Request) -> Response:
    site = site_of(request)
    found = site.stored(request)
    async with site.pdf_slots.slot() as free:
        if not free:
            words = site.words(request)
            response = refuse(request, 503, words(
                "The table is drawing other score sheets: try again in a few seconds."))
            response.headers["retry-after"] = "10"
            return response
        return await draw_pdf(site, request, found)


async def draw_pdf(site: Site, request: Request, found: games.StoredGame) -> Response:
    # In a child process: reportlab would otherwise stay in this long-running process's memory.
    words = site.words(request)
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bornes.firmware.web.pdf", str(site.settings.state_dir), str(found.info.game_id),
        words.language, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
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


ROUTES = [
    Route("/history.csv", guarded(history_csv)),
    Route("/games/{game}/record", guarded(record)),
    Route("/games/{game}/json", guarded(game_json)),
    Route("/games/{game}/sheet.pdf", guarded(sheet_pdf)),
]
