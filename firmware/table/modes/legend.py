"""The legend: what the icons mean, page by page; from the main menu or a long OK in a game."""

from __future__ import annotations

from bornes.firmware.table.core import ModeHandler, Outcome


class LegendMode(ModeHandler):
    """NEXT and BACK page through the legend (the renderer wraps); any other button goes back.

    A card closes the legend and counts as usual: ``TableFlow`` returns to the mode it came from first.
    """

    def button(self, name: str, long: bool) -> Outcome:
        if name in ("NEXT", "BACK"):
            self.ui.legend.page += 1 if name == "NEXT" else -1
        else:
            self.ui.mode = self.ui.legend.came_from
        return self.table.prompt()
