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
        edit = self.ui.names
        text = edit.text.ljust(edit.cursor + 1)
        before, letter, after = text[: edit.cursor], text[edit.cursor], text[edit.cursor + 1 :]
        if name in ("NEXT", "BACK"):
            letter = next_letter(letter, 1 if name == "NEXT" else -1, capital=edit.cursor == 0)
            edit.text = (before + letter + after).rstrip()
        elif name == "CF":
            edit.text = (before + switch_case(letter) + after).rstrip()
        elif name == "DISCARD":
            edit.text = (before + after).rstrip()
            edit.cursor = min(edit.cursor, max(0, len(edit.text) - 1)) if edit.text else 0
        elif name == "OK":
            return self._ok(text, letter, long)
        else:
            return self.table.ignored()
        return self.table.prompt()

    def _ok(self, text: str, letter: str, long: bool) -> Outcome:
        """The next letter; or, on a blank, the twelfth letter or a long OK, the name is done."""
        ui, edit, draft = self.ui, self.ui.names, self.table.draft
        if not long and edit.cursor + 1 < MAX_NAME_LENGTH and letter != " ":
            edit.cursor += 1
            return self.table.prompt()
        # A blank (or the twelfth letter) ends the name: what follows is dropped. A long OK keeps it all.
        kept = text if long else text[: edit.cursor + 1]
        finished = kept.strip() or draft.names[edit.index]
        names = [finished if i == edit.index else n for i, n in enumerate(draft.names)]
        refusal = check_names(names)  # the engine's rule: no bad name, no name twice
        if refusal is not None:
            return self.table.refusal(refusal)
        draft.names[edit.index] = finished
        ui.mode = Mode.SETUP
        return self.table.prompt(_("Name: {name}").format(name=finished))
