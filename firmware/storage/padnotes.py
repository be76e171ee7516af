"""Which pad a play came from, kept in the journal as a game-record comment.

A card laid on a pile pad is stored as its action line plus ``; pad C`` (a comment in the game
record format, engine/record.py), so the journal stays a game record that any reader replays,
and the phone pages and the club board can say where the card was laid. Lines without a note
(one reader, buttons, the table's own pad) are exactly as before.
"""

from __future__ import annotations

from bornes.engine import Action

NOTE = "; pad "


def journal_line(action: Action, pad: str | None) -> str:
    """``B play MB-STOP-01 > C ; pad C`` for a seat's or the discard pad, the bare notation otherwise."""
    line = action.notation()
    return f"{line} {NOTE}{pad}" if pad is not None and pad != "table" else line


def action_text(line: str) -> str:
    """The action notation of a journal line, without its comment."""
    return line.split(";", 1)[0].strip()


def line_pad(line: str) -> str | None:
    """The pad a journal line was laid on, or None."""
    _, sep, note = line.partition(NOTE)
    return note.strip() or None if sep else None
