"""``bornes replay RECORD``: referee a game record line by line."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from bornes.drivers.errors import EX_DATAERR, EX_NOINPUT, UserError
from bornes.engine import Accepted, RecordError, apply, iter_record, new_game, table_dict, verdict_dict


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", help="a game record file (docs/record.md), or - for standard input")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")


def _indented(value: object, by: int) -> str:
    """``value`` as ``json.dumps(..., indent=2)`` prints it ``by`` spaces deep inside a larger document."""
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + " " * by)


def run(args: argparse.Namespace) -> int:
    """Referee the record line by line and print each verdict as it comes: nothing but the state
    and the score sheets is kept, so a record of any length replays in flat memory."""
    import sys

    from bornes.drivers.files import MIB, UnreadableFile, bounded_lines, open_text_bounded

    # A whole game is about 10 KB; the bound stops a runaway input, while replay itself streams.
    limit = 4 * MIB
    try:
        source: TextIO = sys.stdin if args.record == "-" else open_text_bounded(args.record, limit)
    except FileNotFoundError:
        raise UserError(f"cannot read {args.record}: no such file", EX_NOINPUT) from None
    except UnreadableFile as error:
        raise UserError(f"record {args.record} {error}", EX_DATAERR) from None
    with source:
        try:
            setup, lines = iter_record(bounded_lines(source, limit))
            state = new_game(setup)
            refused = 0
            out = sys.stdout
            if args.json:
                out.write('{\n  "actions": [')
            first = True
            for line in lines:
                entry: dict[str, object] = {"line": line.number, "action": line.text}
                if line.action is None:
                    entry.update(verdict="bad-notation", reason="bad-notation", message=line.error)
                    refused += 1
                else:
                    verdict = apply(state, line.action)
                    entry.update(verdict_dict(verdict))
                    if isinstance(verdict, Accepted):
                        state = verdict.state
                    else:
                        refused += 1
                if args.json:
                    out.write(("\n    " if first else ",\n    ") + _indented(entry, 4))
                else:
                    status = "ok " if entry["verdict"] == "accepted" else "NO "
                    detail = "" if entry["verdict"] == "accepted" else f"  [{entry['reason']}] {entry['message']}"
                    out.write(f"{entry['line']:>5} {status} {entry['action']}{detail}\n")
                first = False
        except RecordError as error:
            raise UserError(f"{args.record}: {error}", EX_DATAERR) from None
        except UnicodeDecodeError:
            raise UserError(f"{args.record} is not a text file", EX_DATAERR) from None
        except UnreadableFile as error:
            raise UserError(f"record {args.record} {error}", EX_DATAERR) from None
    if args.json:
        out.write("\n  ]," if not first else "],")
        out.write('\n  "hands": [')
        names = tuple(setup.side_name(i) for i in range(setup.side_count))
        for index, score_sheet in enumerate(state.sheets):  # one sheet at a time, like the verdicts
            out.write(("\n    " if index == 0 else ",\n    ") + _indented(score_sheet.as_dict(names), 4))
        out.write("\n  ]," if state.sheets else "],")
        out.write(f'\n  "table": {_indented(table_dict(state), 2)}\n}}\n')
    else:
        names = tuple(setup.side_name(i) for i in range(setup.side_count))
        for score_sheet in state.sheets:
            print(json.dumps(score_sheet.as_dict(names), ensure_ascii=False))
    return 0 if refused == 0 else 1
