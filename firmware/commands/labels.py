"""``bornes labels``: a PDF of stickers for a whole deck plus the control cards."""

from __future__ import annotations

import argparse
from pathlib import Path

from bornes.drivers.errors import EX_IOERR, EX_UNAVAILABLE, UserError
from bornes.firmware.appliance.config import add_config_argument, load_config
from bornes.firmware.commands import add_language_argument
from bornes.firmware.deck.enrollment import deck_payloads, parse_payloads
from bornes.firmware.language.i18n import _, edition_language, speaking

# Kept here so `bornes` starts on a Pi without reportlab (the optional "labels" extra);
# tests check it matches bornes.firmware.deck.labels.SHEETS.
SHEET_NAMES: tuple[str, ...] = ("a4-l7160", "letter-5160", "a4-l7651")
DEFAULT_SHEET = "a4-l7160"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser)
    parser.add_argument("--edition", help="edition whose deck to label (default: game.edition in the config)")
    parser.add_argument("--players", type=int, help="label the short deck used by this many players, if any")
    parser.add_argument("--out", required=True, metavar="FILE.pdf", help="the PDF to write")
    parser.add_argument(
        "--sheet",
        choices=SHEET_NAMES,
        default=DEFAULT_SHEET,
        help="A4 Avery L7160 (21, Code 128), US Letter Avery 5160 (30, Code 128), A4 Avery L7651 (65, DataMatrix)",
    )
    parser.add_argument("--no-controls", action="store_true",
                        help="leave out the six control cards and the scanner layout test label")
    parser.add_argument("--card", action="append", default=[], metavar="CODE", help="print only this card (repeat)")
    parser.add_argument("--skip", type=int, default=0, metavar="N", help="leave the first N labels of the sheet blank")
    parser.add_argument("--outline", action="store_true", help="draw label edges (to test on plain paper)")
    add_language_argument(parser, help="language of the card names (default: the edition's; French editions print km)")


def run(args: argparse.Namespace) -> int:
    try:
        from bornes.firmware.deck.labels import SHEETS, write_labels
    except ImportError:
        raise UserError("bornes labels needs reportlab: pip install 'bornes[labels]'", EX_UNAVAILABLE) from None
    edition = args.edition or load_config(args.config).game.edition
    if args.card:
        payloads = parse_payloads(args.card)
    else:
        payloads = deck_payloads(edition, args.players, controls=not args.no_controls)
        if not args.no_controls:
            from bornes.drivers.parts import LAYOUT_TEST_CODE

            payloads.append(LAYOUT_TEST_CODE)  # a keyboard-mode scanner reads it and says its layout
    if args.skip < 0:
        raise UserError("--skip must be 0 or more")
    sheet = SHEETS[args.sheet]
    out = Path(args.out)
    try:
        with speaking(args.lang or edition_language(edition)):
            pages = write_labels(out, payloads, sheet, skip=args.skip, outline=args.outline, edition=edition,
                                 title=_("Mille Bornes card labels"))
    except OSError as error:
        raise UserError(f"cannot write {out}: {error.strerror or error}", EX_IOERR) from None
    print(f"wrote {len(payloads)} labels on {pages} page(s) of {sheet.title} to {out}")
    print("print at 100% scale (no 'fit to page'), then check one code with bornes scan-test")
    return 0
