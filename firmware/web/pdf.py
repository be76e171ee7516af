"""The printable score sheet of one game: an A4 PDF with every hand's official rows (reportlab).

reportlab is imported only here, when a sheet is asked for, so the web process stays small while
it only serves pages.
"""

from __future__ import annotations

import io

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from bornes.firmware.language.words import edition_title
from bornes.firmware.web.games import StoredGame
from bornes.firmware.web.views import SHEET_TOTALS, Words, side_names


def score_sheet_pdf(stored: StoredGame, t: Words) -> bytes:
    state = stored.state
    names = side_names(state)
    styles = getSampleStyleSheet()
    out = io.BytesIO()
    title = t("Score sheet of game {game}", game=stored.info.game_id)
    document = SimpleDocTemplate(out, pagesize=A4, title=title, author="bornes",
                                 leftMargin=15 * mm, rightMargin=15 * mm, topMargin=15 * mm, bottomMargin=15 * mm)
    story = [
        Paragraph(title, styles["Title"]),
        Paragraph(f"{edition_title(state.setup.edition, t.language)} · {stored.info.created[:10]}", styles["Normal"]),
        Spacer(1, 4 * mm),
    ]
    if not state.sheets:
        story.append(Paragraph(t("No hand has been scored yet."), styles["Normal"]))
    for sheet in state.sheets:
        data: list[list[object]] = [[t("Hand {hand}", hand=sheet.hand), *names]]
        for label, values in sheet.rows:
            data.append([t.p("sheet", label), *values])
        for label, values in zip(SHEET_TOTALS, (sheet.total_for_deal, sheet.brought_forward, sheet.combined),
                                 strict=True):
            data.append([t.p("sheet", label), *values])
        width = (A4[0] - 30 * mm - 55 * mm) / max(1, len(names))
        table = Table(data, colWidths=[55 * mm, *([width] * len(names))], repeatRows=1)
        count = len(data)
        table.setStyle(TableStyle([
            ("FONT", (0, 0), (-1, 0), "Helvetica-Bold"),
            ("FONT", (0, count - 3), (-1, -1), "Helvetica-Bold"),
            ("ALIGN", (1, 0), (-1, -1), "RIGHT"),
            ("GRID", (0, 0), (-1, -1), 0.5, colors.grey),
            ("BACKGROUND", (0, 0), (-1, 0), colors.Color(0.9, 0.9, 0.9)),
            ("LINEABOVE", (0, count - 3), (-1, count - 3), 1.2, colors.black),
        ]))
        story += [table, Spacer(1, 5 * mm)]
    if state.over:
        winner = t("a tie") if state.winner is None else state.setup.side_name(state.winner)
        story.append(Paragraph(t("Winner: {winner}", winner=winner), styles["Heading2"]))
    document.build(story)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    """``python -m bornes.firmware.web.pdf STATE_DIR GAME LANGUAGE``: the PDF on standard output.

    ``bornes web`` runs this in a short-lived child, so reportlab (several MB) never stays in the
    memory of the process that serves the pages for days.
    """
    import sys

    from bornes.firmware.language.i18n import WEB_DOMAIN, translations
    from bornes.firmware.web.games import Library

    state_dir, game, language = argv if argv is not None else sys.argv[1:]
    stored = Library(state_dir).load(int(game))
    if stored is None:
        print(f"there is no game {game}", file=sys.stderr)
        return 1
    sys.stdout.buffer.write(score_sheet_pdf(stored, Words(language, translations(language, WEB_DOMAIN))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
