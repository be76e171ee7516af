"""``bornes history``: the games the journal holds, finished and in progress, one line each."""

from __future__ import annotations

import argparse
import functools
import json
import re
from datetime import datetime

from bornes.engine import RecordError, read_header
from bornes.firmware.appliance.config import (
    Config,
    add_config_argument,
    load_config,
    readable_state_dir,
    table_language,
)
from bornes.firmware.language import i18n
from bornes.firmware.language.i18n import N_, _, ngettext
from bornes.firmware.storage.journal import ABANDONED, FINISHED, IN_PROGRESS, GameInfo, Journal

DEFAULT_LAST = 50

_BRACKET = re.compile(r'^\[\s*([A-Za-z][\w-]*)\s+"?(.*?)"?\s*\]$')  # [Edition "winning-moves"]
_ASSIGN = re.compile(r"^#?\s*([A-Za-z][\w-]*)\s*[:=]\s*(.*)$")  # edition: winning-moves / edition = …


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from bornes.firmware.commands import add_language_argument

    add_config_argument(parser)
    add_language_argument(parser, help="language of the list (default: [table] language, else the edition's)")
    parser.add_argument("--last", type=int, default=DEFAULT_LAST, metavar="N",
                        help=f"show the newest N games (default {DEFAULT_LAST})")
    parser.add_argument("--all", action="store_true", help="show every game the journal holds")


def header_fields(header: str) -> dict[str, str]:
    """The ``key value`` pairs of a game-record header, keys lower-cased.

    The header belongs to the engine's record format; this reads the common shapes of a tag line
    (``[Key "value"]``, ``Key: value``, ``key = value``) so the history list never depends on
    more than the tag names ``edition`` and ``players``.
    """
    fields: dict[str, str] = {}
    for raw in header.splitlines():
        line = raw.strip()
        match = _BRACKET.match(line) or _ASSIGN.match(line)
        if match:
            fields.setdefault(match.group(1).lower(), match.group(2).strip().strip('"'))
    return fields


#: A game's status as the list says it (the journal's words are data: ``in-progress``, ``abandoned``).
_STATUS_WORDS = {FINISHED: N_("finished"), ABANDONED: N_("abandoned")}


def _summary_text(info: GameInfo) -> tuple[str, str]:
    if info.status == IN_PROGRESS:
        return "(" + ngettext("in progress, {count} action", "in progress, {count} actions",
                              info.actions).format(count=info.actions) + ")", ""
    if info.summary is None:
        return f"({_(_STATUS_WORDS[info.status]) if info.status in _STATUS_WORDS else info.status})", ""
    try:
        summary = json.loads(info.summary)
    except ValueError:
        return "(" + _("summary unreadable") + ")", ""
    if not isinstance(summary, dict):
        return "?", ""
    winner = summary.get("winner")
    totals = summary.get("totals")
    if isinstance(totals, dict):
        totals_text = " ".join(f"{k}:{v}" for k, v in totals.items())
    elif isinstance(totals, list):
        totals_text = " ".join(str(v) for v in totals)
    else:
        totals_text = "" if totals is None else str(totals)
    if isinstance(winner, list):
        winner = "+".join(str(w) for w in winner)
    return ("-" if winner is None else str(winner)), totals_text


@functools.lru_cache(maxsize=256)  # a table plays the same header game after game
def edition_and_players(header: str) -> tuple[str, str]:
    """Read through the engine's record reader; any other header by its tag names."""
    try:
        setup = read_header([line for line in header.splitlines() if line.strip()])
    except RecordError:
        fields = header_fields(header)
        return fields.get("edition", "?"), fields.get("players", fields.get("names", "?"))
    return setup.edition, ",".join(setup.names)


def local_time(stamp: str) -> str:
    """A journal time (ISO 8601, stored in UTC) as this machine's local "YYYY-MM-DD HH:MM"."""
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp.replace("T", " ")[:16]
    if moment.tzinfo is None:  # an old row without an offset: it was written in UTC
        from datetime import UTC

        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone().strftime("%Y-%m-%d %H:%M")


def row_cells(info: GameInfo) -> tuple[str, ...]:
    """One game's cells: its number, when it started (local time), edition, players, winner, totals."""
    winner, totals = _summary_text(info)
    edition, players = edition_and_players(info.header)
    return str(info.game_id), local_time(info.created), edition, players, winner, totals


def format_rows(rows: list[tuple[str, ...]]) -> list[str]:
    """The rows in columns as wide as their widest cell (six players' names make a wide column: it
    grows, the columns after it stay in line), the number on the right, the totals last and free."""
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]) - 1)]
    lines = []
    for row in rows:
        cells = [row[0].rjust(widths[0]), *(cell.ljust(width) for cell, width in zip(row[1:-1], widths[1:],
                                                                                    strict=True)), row[-1]]
        lines.append("  ".join(cells).rstrip())
    return lines


def format_row(info: GameInfo) -> str:
    """One game alone, as a line of the list."""
    return format_rows([row_cells(info)])[0]


def run(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    with i18n.speaking(args.lang or table_language(config)):  # the table's language, as its panel speaks
        return _listed(args, config)


def _listed(args: argparse.Namespace, config: Config) -> int:
    state_dir = readable_state_dir(config)  # a state.dir run could not use: the config's fault, exit 78
    if state_dir is None or not Journal.exists(state_dir):  # a journal lost beside its WAL or note: exit 65
        print(_("no games yet (no journal in {folder})").format(folder=config.state.dir))
        return 0
    with Journal.open(state_dir, readonly=True) as journal:  # O(games shown), not O(journal)
        games = journal.history() if args.all else journal.recent(max(0, args.last))
        total = journal.game_count()
    if not games:
        print(_("no games yet"))
        return 0
    if total > len(games):
        print(_("(the newest {shown} of {total} games; --all shows every one)").format(shown=len(games), total=total))
    zone = datetime.now().astimezone().strftime("%Z") or _("local")
    heading = (_("game"), _("started ({zone})").format(zone=zone), _("edition"), _("players"), _("winner"),
               _("totals"))
    for line in format_rows([heading, *(row_cells(info) for info in games)]):
        print(line)
    return 0
