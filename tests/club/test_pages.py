"""The board's pages on their own (the ASGI app called through httpx, no broker): languages, empty states."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

from bornes.firmware.club.board import Board
from bornes.firmware.club.settings import SettingsError, load_board
from bornes.firmware.club.store import ClubStore
from bornes.firmware.club.web import create_app


class PageClient:
    """Requests straight into the ASGI app (no server, no lifespan: these pages need neither)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def get(self, path: str, **options: Any) -> httpx.Response:
        async def fetch() -> httpx.Response:
            transport = httpx.ASGITransport(app=self.app)
            async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
                return await client.get(path, **options)

        return asyncio.run(fetch())


@pytest.fixture
def board(tmp_path: Path) -> Board:
    settings = load_board(None, club="lyon", database=str(tmp_path / "club.sqlite3"))
    return Board(settings, ClubStore(settings.database))


def test_french_pages(board: Board) -> None:
    client = PageClient(create_app(board, board.store, "pw", language="fr"))
    board.store.add_entrant("Zoé")
    page = client.get("/standings")
    assert page.status_code == 200 and '<html lang="fr">' in page.text
    assert "Classement" in page.text and "points de match" in page.text
    tables = client.get("/")
    assert "Toutes les tables, en direct" in tables.text and '"hand": "manche"' in tables.text
    assert '"board": "fr"' in tables.text
    assert "script-src" not in tables.headers["content-security-policy"], "default-src 'self': no inline code"
    assert "<script>" not in tables.text and "<style>" not in tables.text
    assert client.get("/club.js").headers["content-type"].startswith("text/javascript")
    assert client.get("/organiser", auth=("o", "pw")).text.count("Ronde suivante") == 1
    assert "Pas encore de ronde." in client.get("/rounds").text


def test_two_boards_in_one_process_keep_their_own_language(board: Board) -> None:
    """The language is the app's, read per request, never a module global: an English board made
    after a French one leaves the French one French."""
    french = PageClient(create_app(board, board.store, "pw", language="fr"))
    english = PageClient(create_app(board, board.store, "pw", language="en"))
    assert "Pas encore de ronde." in french.get("/rounds").text and "No round yet." in english.get("/rounds").text
    assert '<html lang="fr">' in french.get("/").text and '<html lang="en">' in english.get("/").text
    assert "mot de passe" in french.get("/organiser").text and "password" in english.get("/organiser").text


def test_every_board_text_has_a_french_translation() -> None:
    """Every t("…") / words("…") in the board's modules and templates is in its French catalogue."""
    import re

    from bornes.firmware.club.pages import CLUB_DOMAIN
    from bornes.firmware.language.i18n import translations

    club = Path(__file__).resolve().parents[2] / "firmware" / "club"
    call = re.compile(r"""(?<![\w.])(?:t|words)\((["'])(.+?)\1""")
    french = translations("fr", CLUB_DOMAIN)
    sources = [club / "pages.py", club / "organiser.py", *sorted((club / "templates").glob("*.html"))]
    found = [(path.name, m.group(2).replace("\\n", "\n")) for path in sources for m in call.finditer(path.read_text())]
    assert len(found) > 40
    same_in_french = {"actions", "total", "CF", "Tables", "tables", "table", "points"}
    missing = [f"{name}: {text}" for name, text in found if french.gettext(text) == text and text not in same_in_french]
    assert missing == []


def test_english_by_default_and_empty_pages_say_so(board: Board) -> None:
    client = PageClient(create_app(board, board.store, ""))
    assert "No round yet." in client.get("/rounds").text
    assert client.get("/organiser").status_code == 403, "no organiser password: the organiser pages are off"
    assert client.get("/standings.csv").text.splitlines() == [
        "kind,rank,name,played,wins,ties,losses,byes,match_points,points"]


def test_unknown_language_is_one_line() -> None:
    with pytest.raises(SettingsError, match=r'^club settings: club\.language = "de" is not a language the club speaks; '
                                                r'choose en \(English\) or fr \(Français\)$'):
        load_board(None, club="lyon", language="de")


def test_a_french_table_gets_french_headers_on_an_english_board(board: Board) -> None:
    """The words around a table's card follow the table's own language (its snapshot's
    ``language``): a French table's card on an English board says camp, bataille, manche."""
    import json
    import re

    client = PageClient(create_app(board, board.store, ""))
    tables = client.get("/")
    labels = json.loads(re.search(r'id="labels">(.*?)</script>', tables.text, re.S).group(1))  # type: ignore[union-attr]
    assert labels["board"] == "en"
    assert (labels["en"]["side"], labels["fr"]["side"], labels["fr"]["battle"]) == ("side", "camp", "bataille")
    assert "LL[s.language]" in client.get("/club.js").text


def test_a_hostile_entrant_is_text_on_every_page(board: Board) -> None:
    client = PageClient(create_app(board, board.store, "organiser-pw"))
    board.store.add_entrant("<b>Zoé</b>")
    board.store.add_entrant("Anne")
    board.store.new_round("round-robin", ["t1"])
    for path, options in (("/rounds", {}), ("/organiser", {"auth": ("o", "organiser-pw")})):
        page = client.get(path, **options)
        assert page.status_code == 200 and "<b>Zoé" not in page.text and "&lt;b&gt;Zoé&lt;/b&gt;" in page.text, path
