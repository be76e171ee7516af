"""A stored game written out whole: the engine's game record text, or JSON for programs.

``bornes export`` and the phone pages' downloads write the same bytes from here.
"""

from __future__ import annotations

import json

from bornes.firmware.storage.journal import GameRecord


def render(record: GameRecord, form: str) -> str:
    """``record`` is the engine's game record: the stored header, a blank line, the action lines as
    stored (what ``bornes.engine.record.read_record`` reads back); ``json`` adds status and summary."""
    if form == "record":
        body = "".join(f"{line}\n" for line in record.lines)
        return f"{record.header.rstrip(chr(10))}\n\n{body}" if record.header.strip() else body
    summary = json.loads(record.summary) if record.summary is not None else None
    document = {
        "game": record.game_id,
        "header": record.header,
        "actions": record.lines,
        "status": record.status,
        "created": record.created,
        "finished": record.finished,
        "summary": summary,
    }
    return json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
