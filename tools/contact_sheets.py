"""The contact sheets in ``docs/screens``: screens a person can look over at once, at 4× zoom.

    python -m tools.contact_sheets            # write them all into docs/screens
    python -m tools.contact_sheets --out DIR  # elsewhere (to compare two runs)

* ``tables-<players>[-teams]-<lang>.png``: a real game of 2, 3, 4, 6 and 8 players (in partnerships
  where the edition plays them so), in English and in French, on both panels: the table in the
  middle of the first hand, at its end, and every page of its score sheet. The players have short
  names, accented names and a twelve-letter one, so that sides are named and cut as at a real table.
* ``glyphs-after.png``: every glyph the table can show, in every font the panel uses, and the pairs
  and words players misread (``tools/panel_fonts.py``).
* ``all-<lang>-<panel>.png``: every sample screen (``bornes screens``) at 2×, four across on the
  128×64 panel, two across on the 256×64 one.
* ``legend-<panel>-<lang>.png``: every page of the legend at 3×, one under another.

The ``*-before.png`` sheets are kept as they were made, from the commits their issues name.

The approved goldens in ``tests/golden/`` remain the truth; these are pictures for people.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from PIL import Image, ImageDraw

if TYPE_CHECKING:
    from bornes.firmware.screens.model import ScreenView

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "screens"
SCALE = 4
#: The players, seat A first: accented names, a hyphenated one of twelve letters, names that start alike.
NAMES = ("Léa", "Marc", "Chloé", "Hugo", "Maëlle", "Jean-Mathieu", "Wim", "Élodie")
#: (players, partnerships, edition): every size of table, alone and in partnerships.
TABLES = ((2, False, "winning-moves"), (3, False, "winning-moves"), (4, False, "dujardin"),
          (4, True, "winning-moves"), (6, False, "1000-bornes"), (6, True, "winning-moves"), (8, True, "dujardin"))
LANGUAGES = ("en", "fr")
GAP = 12  # pixels between two screens on a sheet (at 4×), gray
LABEL_H = 14


def table_views(players: int, teams: bool, edition: str, seed: int = 7) -> list[tuple[str, ScreenView]]:
    """The screens of the first hand of a bot game: the table halfway, at the hand's end, then each
    page of the score sheet (the language in use words them)."""
    from bornes.firmware.commands.screens import game_screens
    from bornes.firmware.screens.model import GameOverView, ScoreSheetView, TableView
    from bornes.firmware.screens.render import SMALL, WIDE, score_sheet_pages

    views = list(game_screens(seed, edition, players, teams, every=True, hands=1, names=NAMES).values())
    end = next(v for v in views if isinstance(v, ScoreSheetView | GameOverView))  # a one-hand game ends there
    played = [v for v in views[:views.index(end)] if isinstance(v, TableView) and v.message is None
              and v.status is None]
    chosen: list[tuple[str, ScreenView]] = [("the table, mid-hand", played[len(played) // 2]),
                                        ("the table, end of the hand", played[-1])]
    if isinstance(end, ScoreSheetView):  # each panel pages the sheet its own way: every page of both
        pages = max(score_sheet_pages(end, SMALL), score_sheet_pages(end, WIDE))
        chosen += [(f"score sheet, page {page + 1}", replace(end, page=page)) for page in range(pages)]
    else:
        chosen.append(("the game's end (a one-hand game: no score sheet)", end))
    if players == 8:  # no edition plays eight over several hands: the sample sheet of four partnerships
        from bornes.firmware.screens.samples import sample_screens

        sample = sample_screens()["score-sheet-teams-8"]
        assert isinstance(sample, ScoreSheetView)
        pages = max(score_sheet_pages(sample, SMALL), score_sheet_pages(sample, WIDE))
        chosen += [(f"score sheet of four partnerships (a sample, house rule: several hands), page {page + 1}",
                    replace(sample, page=page)) for page in range(pages)]
    return chosen


def _scaled(image: Image.Image) -> Image.Image:
    return image.convert("L").resize((image.width * SCALE, image.height * SCALE), Image.Resampling.NEAREST)


def table_sheet(players: int, teams: bool, edition: str, language: str) -> Image.Image:
    """One table's screens in one language: a row a screen, the 128×64 panel then the 256×64 one."""
    from bornes.firmware.language.i18n import speaking
    from bornes.firmware.screens.model import ScoreSheetView
    from bornes.firmware.screens.render import SMALL, WIDE, render, score_sheet_pages

    with speaking(language):
        views = table_views(players, teams, edition)
        rows: list[tuple[str, Image.Image | None, Image.Image | None]] = []
        for label, view in views:
            shown = [None if isinstance(view, ScoreSheetView) and view.page >= score_sheet_pages(view, size)
                     else _scaled(render(view, size)) for size in (SMALL, WIDE)]
            rows.append((label, shown[0], shown[1]))
    width = 128 * SCALE + GAP + 256 * SCALE
    height = sum(LABEL_H + 64 * SCALE + GAP for _row in rows) + LABEL_H
    sheet = Image.new("L", (width, height), 64)
    draw = ImageDraw.Draw(sheet)
    side = "partnerships" if teams else "players alone"
    draw.text((2, 1), f"{players} players, {side} ({edition}), {language}: 128x64 | 256x64, {SCALE}x (a panel with "
                      "fewer pages of a score sheet leaves its place empty)", fill=255)
    y = LABEL_H
    for label, small, wide in rows:
        draw.text((2, y + 1), label, fill=220)
        if small is not None:
            sheet.paste(small, (0, y + LABEL_H))
        if wide is not None:
            sheet.paste(wide, (128 * SCALE + GAP, y + LABEL_H))
        y += LABEL_H + 64 * SCALE + GAP
    return sheet


def montage(images: list[tuple[str, Image.Image]], across: int, scale: int) -> Image.Image:
    """Labelled screens, ``across`` in a row, each enlarged ``scale`` times."""
    cells = [(label, image.convert("L").resize((image.width * scale, image.height * scale),
                                                Image.Resampling.NEAREST)) for label, image in images]
    width, height = cells[0][1].size
    rows = -(-len(cells) // across)
    sheet = Image.new("L", (across * (width + 10) - 10, rows * (height + LABEL_H + 6)), 64)
    draw = ImageDraw.Draw(sheet)
    for index, (label, image) in enumerate(cells):
        row, column = divmod(index, across)
        x, y = column * (width + 10), row * (height + LABEL_H + 6)
        draw.text((x + 2, y + 1), label, fill=220)
        sheet.paste(image, (x, y + LABEL_H))
    return sheet


def sample_sheets(out: Path) -> list[Path]:
    """Every sample screen, and every legend page, in both languages and on both panels."""
    from bornes.firmware.language.i18n import speaking
    from bornes.firmware.screens.model import LegendView
    from bornes.firmware.screens.render import SMALL, WIDE, legend_pages, render
    from bornes.firmware.screens.samples import sample_screens

    written = []
    for language in LANGUAGES:
        with speaking(language):
            screens = sample_screens()
            for size, across in ((SMALL, 4), (WIDE, 2)):
                panel = f"{size[0]}x{size[1]}"
                path = out / f"all-{language}-{panel}.png"
                montage([(f"{name}-{panel}", render(view, size)) for name, view in screens.items()], across, 2).save(
                    path, optimize=True)
                legend = out / f"legend-{panel}-{language}.png"
                montage([(f"legend {page + 1}/{legend_pages(size)}", render(LegendView(page), size))
                         for page in range(legend_pages(size))], 1, 3).save(legend, optimize=True)
                written += [path, legend]
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.contact_sheets", description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=OUT, help="folder to write into (default: docs/screens)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from tools.panel_fonts import sheet as glyph_sheet

    args.out.mkdir(parents=True, exist_ok=True)
    written = []
    for players, teams, edition in TABLES:
        for language in LANGUAGES:
            path = args.out / f"tables-{players}{'-teams' if teams else ''}-{language}.png"
            table_sheet(players, teams, edition, language).save(path, optimize=True)
            written.append(path)
    written += sample_sheets(args.out)
    glyphs = args.out / "glyphs-after.png"
    glyph_sheet(glyphs, SCALE)
    written.append(glyphs)
    print(f"wrote {len(written)} sheets to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
