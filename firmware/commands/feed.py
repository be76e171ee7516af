"""``bornes feed SCRIPT``: drive the device's own input path from a text script (docs/feed.md).

Each ``scan`` goes through the reader's card resolver and each ``press`` is a button event,
into the same table flow the daemon runs. The verdict of every input is printed.
"""

from __future__ import annotations

import argparse
import dataclasses
import errno
import json
import sys
from pathlib import Path
from typing import Any

from bornes.drivers.errors import EX_CONFIG, EX_DATAERR, EX_IOERR, EX_NOINPUT, UserError
from bornes.drivers.events import CONTROL_NAMES, ButtonPressed, InputEvent, button_name, pad_place
from bornes.drivers.files import MIB, UnreadableFile, read_stream_bounded, read_text_bounded
from bornes.drivers.readers.resolver import CardResolver
from bornes.engine import EDITIONS, GameSetup, OptionError, SetupError, sheets_list, table_dict
from bornes.firmware.commands import add_language_argument
from bornes.firmware.language.i18n import _, current_language, edition_language, use
from bornes.firmware.language.words import SHEET_ROWS, sheet_row
from bornes.firmware.table.flow import TableFlow
from bornes.firmware.table.present import screen


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("script", help="the script file (docs/feed.md), or - for standard input")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--state-dir", help="keep the game in this journal (resumes a game in progress)")
    add_language_argument(parser, help="language of the verdicts (default: the edition's, French for the French "
                                       "editions)")


MAX_PLAYERS = 8  # the most seats any edition has
MAX_SCRIPT_BYTES = 4 * MIB  # about 200 000 lines: far more than any table plays, far less than a hang


class ScriptError(ValueError):
    """A script line that is not setup, scan or press."""


def parse_setup(words: list[str]) -> GameSetup:
    """``setup edition=E names=Ann,Bob dealer=B teams=yes option.NAME=VALUE …``"""
    values: dict[str, str] = {}
    overrides: dict[str, str] = {}
    for word in words:
        key, sep, value = word.partition("=")
        if not sep:
            raise ScriptError(_("setup takes key=value words, not {word!r}").format(word=word))
        if key.startswith("option."):
            overrides[key[7:]] = value
        elif key in ("edition", "names", "dealer", "teams", "players"):
            values[key] = value
        else:
            said = _("unknown setup key {key!r} (edition, players, names, dealer, teams, option.NAME)")
            raise ScriptError(said.format(key=key))
    edition_name = values.get("edition", "winning-moves")
    if edition_name not in EDITIONS:
        raise ScriptError(_("unknown edition {edition!r}; choose one of {editions}").format(
            edition=edition_name, editions=", ".join(EDITIONS)))
    names = [n for n in values.get("names", "").split(",", MAX_PLAYERS) if n]
    if len(names) > MAX_PLAYERS:
        raise ScriptError(_("names lists more than {count} players").format(count=MAX_PLAYERS))
    if "players" in values:
        text = values["players"]
        if not (text.isascii() and text.isdigit() and len(text) <= 2 and 2 <= int(text) <= MAX_PLAYERS):
            raise ScriptError(_("players must be a number from 2 to {count}, not {text!r}").format(count=MAX_PLAYERS,
                                                                                                text=text[:12]))
        count = int(text)
        names = (names + [f"P{i + 1}" for i in range(len(names), count)])[:count]
    if not names:
        raise ScriptError(_("setup needs names=… or players=N"))
    dealer_text = values.get("dealer", "A").upper()
    if len(dealer_text) != 1 or not "A" <= dealer_text <= "H":
        raise ScriptError(_("dealer must be a seat letter, not {text!r}").format(text=dealer_text))
    teams = None if "teams" not in values else values["teams"].lower() in ("yes", "true", "1")
    try:
        options = EDITIONS[edition_name].options.with_strings(overrides)
        return GameSetup.create(edition_name, names, teams=teams, dealer=ord(dealer_text) - 65, options=options)
    except (OptionError, SetupError) as error:
        raise ScriptError(str(error)) from None


def input_event(words: list[str], resolver: CardResolver) -> InputEvent:
    verb, at, where = words[0].lower().partition("@")
    if verb == "scan" and at:  # scan@B PAYLOAD: laid on seat B's pad (scan@table, scan@discard)
        pad = pad_place(where)
        if pad is None or len(words) != 2:
            raise ScriptError(f"scan@PAD PAYLOAD with PAD a seat letter A-H, table or discard, not {' '.join(words)!r}")
        return dataclasses.replace(resolver.resolve(words[1]), pad=pad)
    if verb == "scan" and len(words) == 2:
        return resolver.resolve(words[1])
    if verb == "press" and len(words) in (2, 3):
        name = button_name(words[1])
        long = len(words) == 3 and words[2].lower() == "long"
        if len(words) == 3 and not long:
            raise ScriptError(_("press NAME [long], not {line!r}").format(line=" ".join(words)))
        if name is None:
            raise ScriptError(_("unknown button {name!r} ({names}, SEAT1…SEAT8)").format(name=words[1],
                                                                                   names=", ".join(CONTROL_NAMES)))
        return ButtonPressed(name, long)
    raise ScriptError(_("expected 'setup …', 'scan[@PAD] PAYLOAD' or 'press BUTTON [long]', not {line!r}").format(
        line=" ".join(words)))


def feed(text: str, flow: TableFlow, language: str | None = None) -> list[dict[str, object]]:
    """Run every line of a script through the flow; a bad line is a verdict, not a crash.

    The verdicts are worded in ``language``; None follows the table: each ``setup`` line's
    edition (French for the French editions), else the game resumed. The language in use before
    is back when this returns.
    """
    before = current_language()
    state = flow.state
    use(language or (edition_language(state.setup.edition) if state is not None else before))
    try:
        return _feed(text, flow, language)
    finally:
        use(before)


def _feed(text: str, flow: TableFlow, language: str | None) -> list[dict[str, object]]:
    resolver = CardResolver()
    results: list[dict[str, object]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        entry: dict[str, object] = {"line": number, "input": line}
        try:
            if words[0].lower() == "setup":
                setup = parse_setup(words[1:])
                use(language or edition_language(setup.edition))
                outcome = flow.start_game(setup)
            else:
                outcome = flow.handle(input_event(words, resolver))
        except ScriptError as error:
            entry.update(verdict="bad-input", reason="bad-input", message=str(error))
            results.append(entry)
            continue
        entry["verdict"] = outcome.verdict
        if outcome.reason:
            entry["reason"] = outcome.reason
        if outcome.message:
            entry["message"] = outcome.message
        if outcome.action is not None:
            entry["action"] = outcome.action.notation()
        entry["screen"] = type(screen(flow)).__name__
        results.append(entry)
    return results


def run(args: argparse.Namespace) -> int:
    try:
        if args.script == "-":
            text = read_stream_bounded(sys.stdin, MAX_SCRIPT_BYTES)
        else:
            text = read_text_bounded(args.script, MAX_SCRIPT_BYTES)
    except FileNotFoundError:
        raise UserError(f"cannot read {args.script}: no such file", EX_NOINPUT) from None
    except UnreadableFile as error:
        raise UserError(f"script {args.script} {error}", EX_DATAERR) from None
    except UnicodeDecodeError:
        raise UserError(f"{args.script} is not a text file", EX_DATAERR) from None
    journal = None
    if args.state_dir:
        from bornes.firmware.storage.journal import Journal
        from bornes.firmware.storage.statelock import StateLock
        from bornes.firmware.storage.store import JournalStore

        try:
            Path(args.state_dir).mkdir(parents=True, exist_ok=True)
        except OSError as error:  # docs/exit-codes.md: a state folder that cannot be used is the config's 78
            said = "is not a folder" if isinstance(error, FileExistsError) else (error.strerror or str(error))
            full = error.errno == errno.ENOSPC  # the storage (74), not the config (78)
            raise UserError(f"--state-dir {args.state_dir}: {said}", EX_IOERR if full else EX_CONFIG) from None
        lock = StateLock.acquire(args.state_dir, "feed")  # never into the live referee's journal
        try:
            journal = Journal.open(args.state_dir)
            store = JournalStore(journal)
            flow = TableFlow(store=store, game=store.resume())
        except BaseException:
            if journal is not None:
                journal.close()
            lock.close()
            raise
    else:
        flow = TableFlow()
    try:
        results = feed(text, flow, args.lang)
    finally:
        if journal is not None:
            journal.close()
            lock.close()
    state = flow.state
    if args.json:
        language = args.lang or (edition_language(state.setup.edition) if state else "en")
        out = {
            "inputs": results,
            "table": table_dict(state) if state else None,
            "sheets": sheets_list(state) if state else [],
        }
        if language != "en":  # the sheets' rows keep their stable names; here is what the table calls them
            out["labels"] = {row: sheet_row(row, language) for row in SHEET_ROWS}
        print(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        for entry in results:
            reason = f" [{entry['reason']}]" if "reason" in entry else ""
            print(f"{entry['line']:>4} {entry['verdict']:<9}{reason} {entry['input']}  {entry.get('message', '')}")
        if state:  # a person reads this: each hand's sheet as the table's own score sheet, in its words
            language = args.lang or edition_language(state.setup.edition)
            for sheet in sheets_list(state):
                print(sheet_text(sheet, language))
    return exit_status(results)


def sheet_text(sheet: dict[str, Any], language: str) -> str:
    """A hand's sheet (``sheets_list``) for a person: its rows named as the table names them ("Kilomètres",
    "Total cumulé") and one column a side. ``--json`` keeps the rows' stable names (docs/feed.md)."""
    from bornes.firmware.language.i18n import catalogue

    sides = list(sheet["sides"])
    rows = list(dict.fromkeys(row for values in sheet["sides"].values() for row in values))
    labels = [sheet_row(row, language) for row in rows]
    title = catalogue(language).gettext("Hand {hand}").format(hand=sheet["hand"])
    width = max(len(title), *(len(label) for label in labels)) + 2
    columns = [max(len(side), 6) for side in sides]
    lines = [title.ljust(width) + "  ".join(side.rjust(column) for side, column in zip(sides, columns, strict=True))]
    for row, label in zip(rows, labels, strict=True):
        values = [str(sheet["sides"][side].get(row, "")) for side in sides]
        lines.append(label.ljust(width) + "  ".join(v.rjust(c) for v, c in zip(values, columns, strict=True)))
    return "\n".join(lines)


EX_REFUSED = 1  # docs/feed.md: the script ran, but the referee refused at least one input


def exit_status(results: list[dict[str, object]]) -> int:
    """0 when no input was refused; 65 (EX_DATAERR) when a line was bad input (not a script line, not a
    card or button); 1 when the referee refused an input. A script can tell each from the others."""
    if any(entry.get("reason") == "bad-input" for entry in results):
        return EX_DATAERR
    if any(entry["verdict"] == "refused" for entry in results):
        return EX_REFUSED
    return 0
