"""``bornes archive``: write old games out as game records, then remove them from the journal.

Retention for a table that plays for years: ``[state] keep_games = N`` keeps the newest N games
in the journal (the referee applies it at start); older finished or abandoned games are written
to ``<state dir>/archive/`` first, one record file each plus a line in ``index.jsonl`` with
status, dates and result, every file fsynced before a row is deleted. Nothing is ever lost:
``bornes replay`` reads an archived record like any other.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from bornes.drivers.errors import EX_CANTCREAT, EX_USAGE, UserError
from bornes.firmware.appliance.config import add_config_argument, ensure_state_dir, load_config
from bornes.firmware.storage.journal import Journal
from bornes.firmware.storage.records import render
from bornes.firmware.storage.statelock import StateLock

ARCHIVE_DIR = "archive"
INDEX = "index.jsonl"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser)
    parser.add_argument("--keep", type=int, metavar="N", help="games to keep (default: state.keep_games)")
    parser.add_argument("--out", metavar="DIR", help="where the records go (default: <state dir>/archive)")


def _fsync(fd: int) -> None:
    os.fsync(fd)


def _write_durably(path: Path, text: str) -> None:
    temp = path.with_name(f".{path.name}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
    try:
        os.write(fd, text.encode("utf-8"))
        _fsync(fd)
    finally:
        os.close(fd)
    os.replace(temp, path)


def archive_games(journal: Journal, keep: int, out: Path) -> int:
    """Archive every closed game but the newest ``keep``; returns how many left the journal."""
    if keep < 1:
        raise UserError(f"--keep {keep}: keep at least 1 game", EX_USAGE)
    newest = journal.recent(keep)
    if not newest:
        return 0
    cutoff = newest[0].game_id  # the oldest game kept
    old = [info for info in journal.recent(journal.game_count()) if info.game_id < cutoff]
    if not old:
        return 0
    try:
        out.mkdir(parents=True, exist_ok=True)
        with open(out / INDEX, "a", encoding="utf-8") as index:
            for info in old:
                record = journal.load(info.game_id)
                assert record is not None
                name = f"game-{record.game_id:06d}.record"
                _write_durably(out / name, render(record, "record"))
                entry = {"game": record.game_id, "status": record.status, "created": record.created,
                         "finished": record.finished, "summary": json.loads(record.summary or "null"),
                         "actions": len(record.lines), "record": name}
                index.write(json.dumps(entry, ensure_ascii=False) + "\n")
            index.flush()
            _fsync(index.fileno())
        directory = os.open(out, os.O_RDONLY)
        try:
            _fsync(directory)
        finally:
            os.close(directory)
    except OSError as error:
        raise UserError(f"cannot write the archive in {out}: {error.strerror or error}", EX_CANTCREAT) from None
    return journal.remove_before(cutoff)


def run(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    keep = args.keep if args.keep is not None else config.state.keep_games
    if not keep:
        raise UserError("nothing to do: give --keep N or set keep_games in [state]", EX_USAGE)
    state_dir = ensure_state_dir(config)
    out = Path(args.out) if args.out else state_dir / ARCHIVE_DIR
    with StateLock.acquire(state_dir, "archive"), Journal.open(state_dir) as journal:
        gone = archive_games(journal, keep, out)
        left = journal.game_count()
    print(f"archived {gone} games to {out}; the journal keeps {left}")
    return 0
