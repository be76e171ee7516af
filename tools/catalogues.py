"""Compile the gettext catalogues: every ``.po`` under ``firmware/language/locale`` to its ``.mo``.

Run ``python -m tools.catalogues`` after editing a ``.po``; ``--check`` exits 1 when a
committed ``.mo`` is out of date (the test suite runs the same check). Babel does the
compiling, so it is a developer dependency only: the Pi reads ``.mo`` with the standard
library.
"""

from __future__ import annotations

import argparse
import gettext
import io
import sys
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

LOCALE_DIR = Path(__file__).resolve().parent.parent / "firmware" / "language" / "locale"


def compiled(po_path: Path) -> bytes:
    """The ``.mo`` bytes for one ``.po``, fuzzy entries left out as gettext does.

    Babel stamps a ``.po`` without a ``POT-Creation-Date`` with the current minute, which made
    the same ``.po`` compile differently a minute later; a fixed date keeps the output a
    function of the ``.po`` alone, so ``--check`` means what it says.
    """
    source = po_path.read_bytes()
    catalog = read_po(io.BytesIO(source))
    if b"POT-Creation-Date:" not in source:
        catalog.creation_date = datetime(2000, 1, 1, tzinfo=UTC)
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


#: Header fields a tool stamps (the time of compiling, the compiler's own version): not part of what a
#: catalogue says. Babel writes "Generated-By: Babel X.Y" with *its* version into every ``.mo``, so a
#: Babel release alone would otherwise make every committed catalogue "stale".
_STAMPED = ("POT-Creation-Date:", "PO-Revision-Date:", "Generated-By:", "X-Generator:")


def _meaning(mo: bytes) -> dict[object, object]:
    """Every translation in a ``.mo``, with the header's stamped lines left out.

    Comparing bytes made the check depend on the clock (Babel stamps a header without a
    POT-Creation-Date with the time of compiling) and on Babel's version (its ``Generated-By``),
    so it failed minutes after a commit or the day Babel released. What the check compares is what
    gettext reads: a msgstr changed in the ``.po``, or a header line gettext uses (``Language``,
    ``Plural-Forms``, ``Content-Type``), still makes the ``.mo`` stale.
    """
    catalog = dict(gettext.GNUTranslations(io.BytesIO(mo))._catalog)  # type: ignore[attr-defined]
    header = str(catalog.pop("", ""))
    catalog[""] = "\n".join(line for line in header.splitlines() if not line.startswith(_STAMPED))
    return catalog


def stale(locale_dir: Path = LOCALE_DIR) -> list[Path]:
    """The ``.mo`` files that are missing or say something else than their ``.po``."""
    return [
        po.with_suffix(".mo")
        for po in sorted(locale_dir.glob("*/LC_MESSAGES/*.po"))
        if not po.with_suffix(".mo").exists() or _meaning(po.with_suffix(".mo").read_bytes()) != _meaning(compiled(po))
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.catalogues", description=__doc__)
    parser.add_argument("--check", action="store_true", help="only report stale .mo files")
    args = parser.parse_args(argv)
    out_of_date = stale()
    if args.check:
        for path in out_of_date:
            print(f"stale: {path} (run python -m tools.catalogues)")
        return 1 if out_of_date else 0
    for path in out_of_date:
        path.write_bytes(compiled(path.with_suffix(".po")))
        print(f"compiled {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
