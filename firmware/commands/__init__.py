"""One module per ``bornes`` subcommand, named in :data:`COMMANDS`.

Each module defines ``add_arguments(parser)`` and ``run(args) -> int``. The table below is the
only place a command's name and one-line help are written: ``bornes --help`` lists it without
importing any command, and ``bornes NAME`` imports only ``bornes.firmware.commands.NAME`` (dashes
become underscores), so a short command does not pay for PIL, gpiozero or the simulator.
Adding a command is one module plus one line here; ``tests/appliance/test_cli.py`` checks both agree.
May import every room; only ``firmware.cli`` imports this one.
"""

from __future__ import annotations

#: command name -> one-line help, in the order ``bornes --help`` lists them.
COMMANDS: dict[str, str] = {
    "archive": "write games older than the newest N to record files, then remove them from the journal",
    "bridge": "publish this table's games to the club's MQTT broker and take its assignments (docs/club.md)",
    "club": "run the club's tournament board: subscribe to every table and serve the club pages (docs/club.md)",
    "demo": "watch bots play a table through the real reader, referee and screens (no Pi needed)",
    "doctor": "check the config, reader, display, pins, state folder and journal, one line each",
    "enroll": "bind RFID/NFC tags to the cards of a deck (resumable); also --list, --export, --import, --forget",
    "export": "write one game from the journal as a game record (the engine's text) or JSON",
    "feed": "drive the table's input path from a script of setup/scan/press lines and print every verdict",
    "history": "list the games in the journal: id, date, edition, players, winner, totals",
    "kiosk": "show the TV page full screen on the Pi's HDMI screen (cage and Chromium) when [display] panel = tv",
    "labels": "print sticker labels (Code 128 / DataMatrix) for a deck and the control cards, as a PDF",
    "replay": "replay a game record and print every action's verdict and every hand's score sheet",
    "run": "run the referee: readers, buttons, display and the game journal",
    "scan-test": "print every card the reader decodes, live (checks a new reader; Ctrl-C to stop)",
    "screens": "render every screen of a sample game (2 to 6 sides, 128x64 and 256x64) into PNG files",
    "simulate": "deal real hidden hands to bots and referee them, checking invariants after every action",
    "tags": "program NTAG213 stickers with card codes through a PN532 (tags write), or show one (tags read)",
    "web": "serve the phone pages: live table, score sheets, history, statistics (read-only)",
}


def module_name(command: str) -> str:
    """The module that implements ``command``."""
    return f"{__name__}.{command.replace('-', '_')}"


def add_deprecated(parser: object, old: str, new: str, dest: str, kind: type = str) -> None:
    """Keep an old flag spelling working for one release, hidden from ``--help``: it fills ``dest``
    (the new flag's) and says once on standard error which flag to use instead."""
    import argparse
    import sys

    class _Renamed(argparse.Action):
        def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                     option_string: str | None = None) -> None:
            print(f"bornes: {old} is deprecated and goes in the next release: use {new}", file=sys.stderr)
            setattr(namespace, self.dest, values)

    assert isinstance(parser, argparse.ArgumentParser)
    parser.add_argument(old, dest=dest, type=kind, action=_Renamed, help=argparse.SUPPRESS)


def add_language_argument(parser: object, help: str) -> None:
    """``--lang``, the same on every command: a code, a locale or a name (``fr``, ``FR``, ``fr_FR``,
    ``French``) means that language; anything else is refused with the choices."""
    import argparse

    from bornes.firmware.language.i18n import language_choices, language_code

    def language(text: str) -> str:
        code = language_code(text)
        if code is None:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not a language the table speaks; choose {language_choices()}")
        return code

    assert isinstance(parser, argparse.ArgumentParser)
    parser.add_argument("--lang", type=language, default=None, metavar="LANG", help=help)
