"""``bornes replay RECORD``: referee a game record line by line."""

from __future__ import annotations

import argparse
import json

from engine.actions import Action
from engine.game import Game
from engine.record import RecordError, read_record
from engine.rules import Accepted
from engine.views import sheets_list, table_dict, verdict_dict
from firmware.errors import EX_DATAERR, EX_NOINPUT, UserError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", help="a game record file (docs/record.md), or - for standard input")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")


def run(args: argparse.Namespace) -> int:
    import sys

    from drivers.files import MIB, UnreadableFile, read_stream_bounded, read_text_bounded

    limit = MIB  # a whole game is about 10 KB; a bigger "record" is not one
    try:
        text = read_stream_bounded(sys.stdin, limit) if args.record == "-" else read_text_bounded(args.record, limit)
    except FileNotFoundError:
        raise UserError(f"cannot read {args.record}: no such file", EX_NOINPUT) from None
    except UnreadableFile as error:
        raise UserError(f"record {args.record} {error}", EX_DATAERR) from None
    except UnicodeDecodeError:
        raise UserError(f"{args.record} is not a text file", EX_DATAERR) from None
    try:
        setup, lines = read_record(text)
    except RecordError as error:
        raise UserError(f"{args.record}: {error}", EX_DATAERR) from None
    game = Game(setup)
    verdicts: list[dict[str, object]] = []
    refused = 0
    for line in lines:
        entry: dict[str, object] = {"line": line.number, "action": line.text}
        if line.action is None:
            entry.update(verdict="bad-notation", reason="bad-notation", message=line.error)
            refused += 1
        else:
            action: Action = line.action
            verdict = game.push(action)
            entry.update(verdict_dict(verdict))
            if not isinstance(verdict, Accepted):
                refused += 1
        verdicts.append(entry)
    if args.json:
        out = {"actions": verdicts, "hands": sheets_list(game.state), "table": table_dict(game.state)}
        print(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        for entry in verdicts:
            status = "ok " if entry["verdict"] == "accepted" else "NO "
            detail = "" if entry["verdict"] == "accepted" else f"  [{entry['reason']}] {entry['message']}"
            print(f"{entry['line']:>5} {status} {entry['action']}{detail}")
        for sheet in sheets_list(game.state):
            print(json.dumps(sheet, ensure_ascii=False))
    return 0 if refused == 0 else 1
