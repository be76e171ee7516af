"""French pages from the gettext catalogue, and the panel's pairing screen (a golden PNG whose QR code reads)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from bornes.firmware.language.i18n import WEB_DOMAIN, translations
from bornes.firmware.screens.pairing import PairingView, render_pairing
from bornes.firmware.web import views

WEB = Path(__file__).resolve().parents[2] / "firmware" / "web"
GOLDEN = Path(__file__).resolve().parent / "golden"
CALL = re.compile(r"""(?<![\w.])(?:t|words)\((["'])(.+?)\1""")



def test_every_web_text_has_a_french_translation() -> None:
    french = translations("fr", WEB_DOMAIN)
    missing = []
    # The route modules and the templates ({{ t("…") }}) as well as the modules beside them.
    sources = sorted([*WEB.rglob("*.py"), *(WEB / "templates").glob("*.html")])
    assert any(path.suffix == ".html" for path in sources)
    for path in sources:
        for match in CALL.finditer(path.read_text()):
            text = match.group(2)
            if french.gettext(text) == text and text not in ("Table", "coups fourrés"):  # the same in French
                missing.append(f"{path.name}: {text}")
    assert missing == []
    for row in ("Milestones", "Safeties", "Safe trip", "Shut-out", "Total for deal", "Combined total"):
        assert french.pgettext("sheet", row) != row


def test_a_french_table_names_the_cards_as_printed(tmp_path: Path) -> None:
    from bornes.firmware.storage.live import JournalFollower
    from tests.web.server import feed

    feed("setup edition=dujardin names=Zoé,Élie dealer=B\nscan MB-ROLL-01\nscan MB-STOP-01\n", tmp_path)
    with JournalFollower(tmp_path, language="fr") as follower:
        snap = follower.snapshot()
    words = views.Words("fr", translations("fr", WEB_DOMAIN))
    html = views.live_page(snap, words, paired=False)
    assert 'lang="fr"' in html and "Feuille de marque" in html
    assert "Élie joue Feu Rouge contre Zoé" in html and "Feu Rouge" in html  # Stop, as printed by Dujardin
    assert "km" in html
    # The panel's legend at the foot of the table page, in the table's words (docs/legend.md).
    assert '<details class="legend"><summary>Ce que disent les icônes</summary>' in html
    assert "Attend un Feu Vert" in html and "Véhicule Prioritaire" in html and "data:image/png;base64," in html


def _decode(image: Image.Image) -> list[str]:
    zxingcpp = pytest.importorskip("zxingcpp")
    big = image.convert("L").resize((image.width * 4, image.height * 4), Image.NEAREST)
    return [result.text for result in zxingcpp.read_barcodes(big)]


@pytest.mark.parametrize("size", [(128, 64), (256, 64)])
def test_pairing_screen_matches_its_golden_and_its_qr_code_reads(size: tuple[int, int]) -> None:
    view = PairingView("482913", "http://192.168.1.20:8080/setup", 118)
    image = render_pairing(view, size)
    golden = GOLDEN / f"pairing-{size[0]}x{size[1]}.png"
    if os.environ.get("BORNES_APPROVE") == "1":
        image.save(golden)
    expected = Image.open(golden)
    assert ImageChops.difference(image.convert("L"), expected.convert("L")).getbbox() is None
    assert _decode(image) == ["http://192.168.1.20:8080/setup"]


def test_french_pages_use_the_editions_french_title_and_french_typography(tmp_path: Path) -> None:
    """A Dujardin table's pages say the edition's own French title, "Télécharger :" with a no-break
    space, and elide "de" before a vowel (one phrasing layer: bornes.firmware.language.words.fill)."""
    from bornes.firmware.storage.live import JournalFollower
    from tests.web.server import feed

    feed("setup edition=dujardin names=Zoé,Élie dealer=B\nscan MB-ROLL-01\n", tmp_path)
    with JournalFollower(tmp_path, language="fr") as follower:
        snap = follower.snapshot()
    words = views.Words("fr", translations("fr", WEB_DOMAIN))
    html = views.live_page(snap, words, paired=False)
    assert "1000 Bornes Dujardin" in html and "current French edition" not in html
    assert "Télécharger\u00a0:" in views.downloads(1, words)
    assert words("{a} de {b}", a="50 km", b="Élie") == "50 km d'Élie"
