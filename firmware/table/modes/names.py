"""The name editor: a seat's name, letter by letter, with the table's buttons."""

from __future__ import annotations

from bornes.engine import check_names
from bornes.firmware.language.i18n import _
from bornes.firmware.language.names import MAX_NAME_LENGTH, next_letter, switch_case
from bornes.firmware.table.core import Mode, ModeHandler, Outcome


class NameEditMode(ModeHandler):
    """NEXT/BACK change the letter under the cursor, CF switches é/É, DISCARD deletes it,
    OK moves on (OK on a blank, or a long OK, ends the name)."""

    def button(self, name: str, long: bool) -> Outcome:
        ui = self.ui
        text = ui.name_text.ljust(ui.name_cursor + 1)
        before, letter, after = text[: ui.name_cursor], text[ui.name_cursor], text[ui.name_cursor + 1 :]
        if name in ("NEXT", "BACK"):
            letter = next_letter(letter, 1 if name == "NEXT" else -1, capital=ui.name_cursor == 0)
            ui.name_text = (before + letter + after).rstrip()
        elif name == "CF":
            ui.name_text = (before + switch_case(letter) + after).rstrip()
        elif name == "DISCARD":
            ui.name_text = (before + after).rstrip()
            ui.name_cursor = min(ui.name_cursor, max(0, len(ui.name_text) - 1)) if ui.name_text else 0
        elif name == "OK":
            return self._ok(text, letter, long)
        else:
            return self.table.ignored()
        return self.table.prompt()

    def _ok(self, text: str, letter: str, long: bool) -> Outcome:
        """The next letter; or, on a blank, the twelfth letter or a long OK, the name is done."""
        ui, draft = self.ui, self.table.draft
        if not long and ui.name_cursor + 1 < MAX_NAME_LENGTH and letter != " ":
            ui.name_cursor += 1
            return self.table.prompt()
        # A blank (or the twelfth letter) ends the name: what follows is dropped. A long OK keeps it all.
        kept = text if long else text[: ui.name_cursor + 1]
        finished = kept.strip() or draft.names[ui.name_index]
        names = [finished if i == ui.name_index else n for i, n in enumerate(draft.names)]
        refusal = check_names(names)  # the engine's rule: no bad name, no name twice
        if refusal is not None:
            return self.table.refusal(refusal)
        draft.names[ui.name_index] = finished
        ui.mode = Mode.SETUP
        return self.table.prompt(_("Name: {name}").format(name=finished))
