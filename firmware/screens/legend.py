"""The legend: each mark the table screen draws, beside its meaning in the table's language.

One list (:data:`LEGEND`) feeds the panel's legend screen, ``docs/legend.md`` and the phone's
table page, so the three never disagree. Each entry names what to draw (a hazard or safety icon,
a coup fourré, an empty slot, the turn mark, the draw pile, the points, the miles bar) and its
meaning, longest phrasing first.
"""

from __future__ import annotations

import base64
import gettext
import io
from dataclasses import dataclass
from functools import cache
from html import escape

from bornes.firmware.language.buttons import legend_words
from bornes.firmware.language.i18n import N_, _, pgettext, translations
from bornes.firmware.screens import icons
from bornes.firmware.screens.canvas import BLACK, Canvas
from bornes.firmware.screens.model import KIND_TITLES, NEEDS_ROLL, ROLLING


@dataclass(frozen=True, slots=True)
class LegendEntry:
    """One mark: ``kind`` is "hazard", "safety", "coup", "slot", "turn", "deck", "points", "bar", "cut"
    (a name too long for its place) or "team" (partners)."""

    kind: str
    name: str  # the icon's name (a CardKind value or battle state); "" for the others
    meanings: tuple[str, ...]  # English source texts, longest first; translated when shown

    def words(self, catalogue: gettext.NullTranslations | None = None) -> tuple[str, ...]:
        """The meaning in the table's language (or ``catalogue``'s), longest phrasing first."""
        if self.name in KIND_TITLES and not self.meanings:
            title = KIND_TITLES[self.name]
            return (catalogue.pgettext("card", title) if catalogue else pgettext("card", title),)
        return tuple(catalogue.gettext(text) if catalogue else _(text) for text in self.meanings)

    @property
    def key(self) -> str:
        """A stable name for the entry (file names, tests)."""
        return f"{self.kind}-{self.name}".rstrip("-").lower().replace(" ", "-")


LEGEND: tuple[LegendEntry, ...] = (
    LegendEntry("hazard", ROLLING, (N_("Rolling: may play miles"), N_("Rolling"))),
    LegendEntry("hazard", NEEDS_ROLL, (N_("Waiting for a Roll"), N_("Needs a Roll"))),
    LegendEntry("hazard", "STOP", ()),
    LegendEntry("hazard", "OUTOFGAS", ()),
    LegendEntry("hazard", "FLATTIRE", ()),
    LegendEntry("hazard", "ACCIDENT", ()),
    LegendEntry("hazard", "SPEEDLIMIT", ()),
    LegendEntry("safety", "RIGHTOFWAY", ()),
    LegendEntry("safety", "EXTRATANK", ()),
    LegendEntry("safety", "PUNCTUREPROOF", ()),
    LegendEntry("safety", "DRIVINGACE", ()),
    LegendEntry("coup", "DRIVINGACE", (N_("Inverted: played as a coup fourré"), N_("Coup fourré"))),
    LegendEntry("slot", "", (N_("Dot: safety not played yet"), N_("Safety not yet"))),
    LegendEntry("turn", "", (N_("The side to play"), N_("To play"))),
    LegendEntry("deck", "", (N_("Cards left to draw"), N_("Cards to draw"))),
    LegendEntry("points", "", (N_("Game total, +this hand"), N_("Total, +this hand"), N_("Total +hand"))),
    LegendEntry("bar", "", (N_("Miles toward the trip"), N_("Miles of the trip"), N_("Miles"))),
    # How a side is named (firmware/language/names.py): the one rule a name is cut by, and partners.
    LegendEntry("cut", "", (N_("A long name: its first letters and a point"), N_("Chloé, cut short"),
                            N_("Chloé, cut"))),
    LegendEntry("team", "", (N_("Partners: their names joined by +"), N_("Al and Bo, a team"), N_("A team"))),
)


#: What the legend's title says, in every place it shows.
LEGEND_TITLE = N_("What the icons mean")
#: The title of the keypad's keys, before the icons (a table whose buttons are a USB keypad).
KEYS_TITLE = N_("Keys of the keypad")


def legend_sample(c: Canvas, kind: str, name: str, x: int, y: int) -> None:
    """One mark as the table draws it, in an 11-pixel-high slot at (x, y)."""
    if kind == "hazard":
        c.icon((x + 1, y), icons.hazard_icon(name))
    elif kind == "safety":
        c.icon((x + 1, y), icons.safety_icon(name))
    elif kind == "coup":
        c.box((x, y - 1, x + 11, y + 10))
        c.icon((x + 1, y), icons.safety_icon(name), fill=BLACK)
    elif kind == "slot":
        c.dot((x + 6, y + 5))
    elif kind == "turn":
        c.polygon([(x + 1, y), (x + 5, y + 5), (x + 1, y + 10)])
    elif kind == "deck":
        deck = icons.deck_icon()
        c.icon((x + 1, y + 2), deck)
        c.text((x + deck.width + 3, y + 2), "42", "small")
    elif kind == "points":
        c.text((x + 1, y + 3), "90 +25", "tiny")
    elif kind == "bar":
        c.bar(x + 1, y + 5, 24, 1, 2, 3)
    elif kind == "cut":  # "Chloé", cut
        c.text((x + 1, y + 2), "Chl.", "small")
    elif kind == "team":
        c.text((x + 1, y + 3), "Al+Bo", "tiny")


def sample_png(entry: LegendEntry, scale: int = 3) -> bytes:
    """The mark as the panel draws it (the legend screen's own drawing), enlarged, as a PNG."""
    from PIL import Image

    canvas = Canvas((30, 13), "L")
    legend_sample(canvas, entry.kind, entry.name, 1, 1)
    image = canvas.finish()
    image = image.resize((image.width * scale, image.height * scale), Image.Resampling.NEAREST)
    out = io.BytesIO()
    image.save(out, "PNG", optimize=True)
    return out.getvalue()


@cache
def legend_html(language: str) -> str:
    """The legend for the phone's table page: each mark as the panel draws it, and its meaning."""
    catalogue = translations(language)
    rows = "".join(
        f'<div><dt><img alt="" width="90" height="39" src="data:image/png;base64,'
        f'{base64.b64encode(sample_png(entry)).decode()}"></dt><dd>{escape(entry.words(catalogue)[0])}</dd></div>'
        for entry in LEGEND
    )
    return (f'<details class="legend"><summary>{escape(catalogue.gettext(LEGEND_TITLE))}</summary>'
            f'<dl>{rows}</dl></details>')


def keys_html(keys: tuple[tuple[str, str], ...], language: str) -> str:
    """Which key of the table's keypad is which button, for the phone's table page and the TV page
    (the same rows as the panel's first legend pages); "" when the buttons are no keypad."""
    if not keys:
        return ""
    catalogue = translations(language)
    rows = "".join(f"<div><dt><kbd>{escape(label)}</kbd></dt><dd>{escape(button)}</dd></div>"
                   for label, button in legend_words(keys, language))
    return (f'<details class="legend keys" open><summary>{escape(catalogue.gettext(KEYS_TITLE))}</summary>'
            f'<dl>{rows}</dl></details>')


def keys_markdown() -> str:
    """The key maps a keypad table starts from, as the tables in ``docs/legend.md`` (a test keeps them equal)."""
    from bornes.drivers.keypad import KEYMAPS
    from bornes.drivers.keys import key_name

    lines = []
    for name, keymap in KEYMAPS.items():
        keys = {button: key_name(code) for code, button in keymap.pairs}
        lines += [f"`keymap = \"{name}\"`", "", "| key | button | its name in `[buttons.keys]` |", "|---|---|---|"]
        for label, button in keymap.legend():
            first = button.split("-")[0]
            named = keys[first] if "-" not in button else f"{keys[first]} … {keys[button.split('-')[1]]}"
            lines.append(f"| {label.replace('*', chr(92) + '*')} | {button} | `{named}` |")
        lines.append("")
    return "\n".join(lines)


def legend_markdown() -> str:
    """The legend as the table in ``docs/legend.md`` (English and French); a test keeps them equal."""
    en, fr = translations("en"), translations("fr")
    lines = ["| mark | English | français |", "|---|---|---|"]
    for entry in LEGEND:
        lines.append(f"| ![{entry.key}](legend/{entry.key}.png) | {entry.words(en)[0]} | {entry.words(fr)[0]} |")
    return "\n".join(lines) + "\n"


def write_docs(folder: str = "docs") -> None:
    """Refresh ``docs/legend/*.png`` from the panel's own drawing: ``python -m bornes.firmware.screens.legend``."""
    from pathlib import Path

    images = Path(folder) / "legend"
    images.mkdir(parents=True, exist_ok=True)
    for entry in LEGEND:
        (images / f"{entry.key}.png").write_bytes(sample_png(entry))


if __name__ == "__main__":
    write_docs()
    print(legend_markdown(), end="")
    print(keys_markdown(), end="")
