"""``bornes export GAME``: one stored game as the engine's record text, or as JSON."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from bornes.drivers.errors import EX_CANTCREAT, EX_USAGE, UserError
from bornes.firmware.appliance.config import add_config_argument, load_config, readable_state_dir
from bornes.firmware.storage.journal import Journal
from bornes.firmware.storage.records import render

FORMATS = ("record", "json")
#: docs/exit-codes.md: 1, "the answer is no", as doctor's FAIL; 66 is for a file named on the command line.
NO_SUCH_GAME = 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", metavar="GAME", help="game number, as listed by `bornes history`")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the game record")
    parser.add_argument("--format", help=argparse.SUPPRESS)  # deprecated: --format json is --json
    parser.add_argument("--out", metavar="FILE", help="write here instead of standard output")
    add_config_argument(parser)


def _write(text: str, out: str | None) -> None:
    """Standard output, or a file replaced in one step so a failed export never leaves half a file."""
    if out is None or out == "-":
        sys.stdout.write(text)
        return
    target = Path(out)
    temp: str | None = None
    try:
        fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temp, 0o666 & ~umask)  # mkstemp makes it private; an export is an ordinary file
        os.replace(temp, target)
    except OSError as error:
        if temp is not None:
            Path(temp).unlink(missing_ok=True)
        raise UserError(f"cannot write {out}: {error.strerror or error}", EX_CANTCREAT) from None


def run(args: argparse.Namespace) -> int:
    form = "json" if args.json else "record"
    if args.format is not None:  # the old spelling keeps working, with a note
        if args.format not in FORMATS:
            raise UserError(f"--format {args.format!r} is not one of {', '.join(FORMATS)}; use --json", EX_USAGE)
        if args.json and args.format != "json":
            raise UserError("--json and --format record disagree: give only --json", EX_USAGE)
        print(f"bornes export: --format {args.format} is deprecated; "
              f"{'use --json' if args.format == 'json' else 'the record is the default'}", file=sys.stderr)
        form = args.format
    try:
        game_id = int(args.game)
    except ValueError:
        raise UserError(f"game {args.game!r} is not a game number (see `bornes history`)", EX_USAGE) from None
    config = load_config(args.config)
    state_dir = readable_state_dir(config)  # a state.dir run could not use: the config's fault, exit 78
    if state_dir is None or not Journal.exists(state_dir):  # a journal lost beside its WAL or note: exit 65
        raise UserError(f"there is no game {game_id}: no game has been recorded in {config.state.dir} yet",
                        NO_SUCH_GAME)
    with Journal.open(state_dir, readonly=True) as journal:
        record = journal.load(game_id)
    if record is None:
        raise UserError(f"there is no game {game_id} (see `bornes history`)", NO_SUCH_GAME)
    _write(render(record, form), args.out)
    return 0
