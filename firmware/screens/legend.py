"""The legend: each mark the table screen draws, beside its meaning in the table's language.

One list (:data:`LEGEND`) feeds the panel's legend screen, ``docs/legend.md`` and the phone's
table page, so the three never disagree. Each entry names what to draw (a hazard or safety icon,
a coup fourré, an empty slot, the turn mark, the draw pile, the points, the miles bar) and its
meaning, longest phrasing first.
"""

from __future__ import annotations

from dataclasses import dataclass

from bornes.firmware.i18n import N_, _, pgettext
from bornes.firmware.screens.model import KIND_TITLES, NEEDS_ROLL, ROLLING


@dataclass(frozen=True, slots=True)
class LegendEntry:
    """One mark: ``kind`` is "hazard", "safety", "coup", "slot", "turn", "deck", "points" or "bar"."""

    kind: str
    name: str  # the icon's name (a CardKind value or battle state); "" for the others
    meanings: tuple[str, ...]  # English source texts, longest first; translated when shown

    def words(self) -> tuple[str, ...]:
        """The meaning in the table's language, longest phrasing first."""
        if self.name in KIND_TITLES and not self.meanings:
            return (pgettext("card", KIND_TITLES[self.name]),)
        return tuple(_(text) for text in self.meanings)


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
)
