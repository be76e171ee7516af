"""``bornes screens --out DIR`` writes every screen, the same pixels as the goldens."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageChops

from bornes.firmware.cli import main
from bornes.firmware.screens.samples import sample_screens
from tests.display.golden import GOLDEN_DIR


def test_screens_command_writes_every_screen(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["screens", "--out", str(tmp_path / "out")]) == 0
    files = sorted((tmp_path / "out").glob("*.png"))
    assert len(files) == 2 * len(sample_screens())
    for path in files:
        with Image.open(path) as written, Image.open(GOLDEN_DIR / path.name) as golden:
            assert ImageChops.difference(written, golden).getbbox() is None, path.name
    assert "wrote" in capsys.readouterr().out


def test_screens_command_scales_and_reports_errors(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["screens", "--out", str(tmp_path), "--size", "128x64", "--scale", "3"]) == 0
    with Image.open(tmp_path / "table-4-128x64.png") as image:
        assert image.size == (384, 192)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["screens", "--out", str(blocker / "sub")]) != 0
    assert "cannot create" in capsys.readouterr().err


def test_screens_from_a_real_game_reach_every_prompt(tmp_path: Path) -> None:
    """A seeded 6-player game through the table flow meets the prompts a real table meets."""
    from bornes.firmware.cli import main

    assert main(["screens", "--game", "3", "--out", str(tmp_path), "--size", "128x64"]) == 0
    kinds = {path.name.removeprefix("game-").removesuffix("-128x64.png") for path in tmp_path.glob("*.png")}
    expected = {
        "MenuView", "TableView", "TableView-message", "TableView-refused", "TargetPrompt", "PartnerPrompt",
        "CoupFourrePrompt", "ExtensionPrompt", "UndoPrompt", "ScoreSheetView", "GameOverView",
    }
    assert expected <= kinds, expected - kinds


def test_screens_lang_fr_renders_every_screen_in_french(tmp_path: Path) -> None:
    """``bornes screens --lang fr`` writes every sample screen, in French; a Dujardin ``--game``
    speaks French without being told (the edition's language) and ``--lang en`` overrides it."""
    assert main(["screens", "--lang", "fr", "--out", str(tmp_path / "fr"), "--size", "128x64"]) == 0
    french = {path.name: path for path in (tmp_path / "fr").glob("*.png")}
    assert len(french) == len(sample_screens())
    with Image.open(french["refused-128x64.png"]) as shown, Image.open(GOLDEN_DIR / "refused-128x64.png") as english:
        assert ImageChops.difference(shown, english).getbbox() is not None  # "REFUSÉ", not "REFUSED"
    for lang in ("fr", "en", None):
        out = tmp_path / f"game-{lang}"
        assert main(["screens", "--game", "5", "--edition", "dujardin", "--players", "4", "--out", str(out),
                     "--size", "128x64", *(["--lang", lang] if lang else [])]) == 0
    default, fr, en = (tmp_path / f"game-{lang}" / "game-GameOverView-128x64.png" for lang in (None, "fr", "en"))
    with Image.open(default) as a, Image.open(fr) as b, Image.open(en) as c:
        assert ImageChops.difference(a, b).getbbox() is None  # FIN DE PARTIE
        assert ImageChops.difference(a, c).getbbox() is not None  # GAME OVER
