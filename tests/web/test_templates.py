"""The pages' templates: autoescaped, and the language is the app's (two apps in one process keep their own)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx

from bornes.firmware.language.i18n import WEB_DOMAIN, translations
from bornes.firmware.storage.live import empty_snapshot
from bornes.firmware.web import views
from bornes.firmware.web.app import Settings, create_app

HOSTILE = '<img src=x onerror="alert(1)">'


def _get(app: Any, path: str) -> httpx.Response:
    async def fetch() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
            return await client.get(path)

    return asyncio.run(fetch())


def test_a_hostile_name_is_text_on_every_part_of_the_table() -> None:
    words = views.Words("en", translations("en", WEB_DOMAIN))
    side = {"index": 0, "name": HOSTILE, "trip": 700, "miles": 25, "battle": "rolling", "battle_words": HOSTILE,
            "limit": False, "turn": True, "safeties": [{"name": HOSTILE, "coup_fourre": True}],
            "hand_points": 0, "total": 0}
    snap = {**empty_snapshot("en"), "sides": [side], "game_id": 1, "hand": 1, "edition_title": HOSTILE,
            "turn_text": HOSTILE, "action_count": 1, "last_actions": [{"n": 1, "text": HOSTILE}]}
    html = views.live_page(snap, words, paired=False)
    assert "<img src=x" not in html
    assert html.count("&lt;img src=x onerror=") == 6  # the title, edition, name, battle, safety, last action
    setup = views.setup_page(words, {"edition": "dujardin", "names": [HOSTILE, "B"], "dealer": 0})
    assert "<img src=x" not in setup and 'value="&lt;img src=x onerror=&#34;alert(1)&#34;&gt;"' in setup


def test_two_apps_in_one_process_keep_their_own_language(tmp_path: Path) -> None:
    french = create_app(Settings(tmp_path / "a", tmp_path / "a.sock", language="fr"))
    english = create_app(Settings(tmp_path / "b", tmp_path / "b.sock", language="en"))
    fr, en = _get(french, "/setup"), _get(english, "/setup")
    assert '<html lang="fr">' in fr.text and "Associer ce téléphone" in fr.text
    assert '<html lang="en">' in en.text and "Pair this phone" in en.text
    missing = _get(french, "/nowhere")
    assert missing.status_code == 404 and "Introuvable." in missing.text and "Not found." in _get(english, "/x").text
