"""The ``bornes`` command: discovers subcommands in ``firmware.commands``.

Whatever goes wrong, a person sees one line and a non-zero exit status; ``--debug``
shows the traceback for developers.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence
from types import ModuleType

from firmware import commands
from firmware.errors import EX_SOFTWARE, EX_USAGE, UserError


def _command_modules(only: str | None = None) -> list[ModuleType]:
    """Every command module, or just ``only``: a long-running command (``bornes web``) then loads
    none of the others' libraries (Pillow, the drivers), which would sit in its memory for days."""
    found = []
    for info in pkgutil.iter_modules(commands.__path__):
        if info.name.startswith("_") or (only is not None and info.name != only):
            continue
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        if hasattr(module, "NAME") and hasattr(module, "run"):
            found.append(module)
    return sorted(found, key=lambda m: m.NAME)


def version() -> str:
    """The installed package's version (pyproject.toml), or "unknown" when run from a bare checkout."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("bornes")
    except PackageNotFoundError:
        return "unknown"


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bornes", description="A Raspberry Pi referee for Mille Bornes.")
    parser.add_argument("--debug", action="store_true", help="show tracebacks (for developers)")
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in _command_modules(only):
        command = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(command)
        command.set_defaults(_run=module.run)
    return parser


#: Commands that run for days, started with only their own module loaded.
LEAN_COMMANDS = ("web",)


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(words[0] if words and words[0] in LEAN_COMMANDS else None)
    args = parser.parse_args(argv)
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
