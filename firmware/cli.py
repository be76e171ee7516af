"""The ``bornes`` command: the subcommands named in ``bornes.firmware.commands.COMMANDS``.

Only the chosen subcommand's module is imported (``bornes --help`` imports none), so a short
command starts in a fraction of the time it would take to load every command's libraries.

Whatever goes wrong, a person sees one line and a non-zero exit status; ``--debug``
shows the traceback for developers.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import NoReturn

from bornes.drivers.errors import EX_SOFTWARE, EX_USAGE, UserError
from bornes.firmware.commands import COMMANDS, add_language_argument, module_name

#: The options before the command that take a value (``bornes --lang fr history``).
_VALUED = ("--lang",)


def _chosen(argv: Sequence[str]) -> str | None:
    """The subcommand named in ``argv``: the first word that is not an option (nor an option's value),
    if it is a command."""
    words = iter(argv)
    for word in words:
        if word == "--":
            return None
        if word in _VALUED:
            next(words, None)
            continue
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def version() -> str:
    """The installed package's version (pyproject.toml), or "unknown" when run from a bare checkout."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("bornes")
    except PackageNotFoundError:
        return "unknown"


class _VersionAction(argparse.Action):
    """``--version``, looked up only when asked: importlib.metadata costs ~18 ms of every start."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        print(f"{parser.prog} {version()}")
        parser.exit()


class _Parser(argparse.ArgumentParser):
    """argparse, but a command line that does not parse exits 64 (EX_USAGE), as ``bornes`` alone does,
    not argparse's own 2 (docs/exit-codes.md: one table for every command)."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EX_USAGE, f"{self.prog}: error: {message}\n")


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser: every command listed from the table, arguments added only for the chosen one.

    ``argv`` picks the command whose module is imported; ``None`` imports every command (for
    tools and tests that want the whole parser). When ``argv`` names a command, the others are left
    out: each is an ``ArgumentParser`` whose set-up looks up argparse's own words through gettext,
    6 ms of every start here for nineteen parsers nobody reads (their names are listed only by the help
    and the error of a command line that names none, and those build them all).
    """
    parser = _Parser(prog="bornes", description="A Raspberry Pi referee for Mille Bornes. The commands' help is "
                                                "English on every table (the words the players read are in the "
                                                "table's language: docs/languages.md).")
    parser.add_argument("--debug", action="store_true", help="show tracebacks (for developers)")
    add_language_argument(parser, help="the language of the command's words, as its own --lang (before or after "
                                       "the command: bornes --lang fr history)", dest="lang_before")
    parser.add_argument("--version", action=_VersionAction, nargs=0, help="print the installed version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    chosen = _chosen(argv) if argv is not None else None
    for name, help_text in COMMANDS.items():
        if chosen is not None and name != chosen:
            continue
        command = sub.add_parser(name, help=help_text, description=help_text)
        if argv is None or name == chosen:
            module = importlib.import_module(module_name(name))
            module.add_arguments(command)
            command.set_defaults(_run=module.run)
    return parser



def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    parser = build_parser(words)
    args = parser.parse_args(words)
    if getattr(args, "lang", None) is None:  # "bornes --lang fr history" is "bornes history --lang fr"
        args.lang = args.lang_before
    if not getattr(args, "_run", None):
        parser.print_help()
        return EX_USAGE
    try:
        return int(args._run(args) or 0)
    except UserError as error:
        print(f"bornes: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as error:  # the last line of defence: no traceback reaches a player
        if args.debug:
            raise
        detail = f"{type(error).__name__}: {error}"
        print(f"bornes: internal error: {detail} (run with --debug for details)", file=sys.stderr)
        return EX_SOFTWARE


if __name__ == "__main__":
    sys.exit(main())
