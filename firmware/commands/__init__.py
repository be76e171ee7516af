"""One module per ``bornes`` subcommand, named in :data:`COMMANDS`.

Each module defines ``add_arguments(parser)`` and ``run(args) -> int``. The table below is the
only place a command's name and one-line help are written: ``bornes --help`` lists it without
importing any command, and ``bornes NAME`` imports only ``bornes.firmware.commands.NAME`` (dashes
become underscores), so a short command does not pay for PIL, gpiozero or the simulator.
Adding a command is one module plus one line here; ``tests/appliance/test_cli.py`` checks both agree.
May import every room; only ``firmware.cli`` imports this one.
"""

from __future__ import annotations

from collections.abc import Callable

#: command name -> one-line help, in the order ``bornes --help`` lists them.
COMMANDS: dict[str, str] = {
    "archive": "write games older than the newest N to record files, then remove them from the journal",
    "camera-reader": "the camera's own process, which the referee starts: frames in, one JSON line per card read",
    "camera-test": "read a folder of frames with a camera taught from a folder of pictures (KIND.png), JSON per read",
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


def serve(server: object, host: str, port: int, what: str, listening: str = "", warning: str = "",
          on_stop: Callable[[], object] | None = None) -> int:
    """Run a uvicorn ``server`` on ``host``:``port`` until SIGTERM or SIGINT, then return 0.

    The socket is bound here first, so a port in use or not allowed is one line and a status of
    docs/exit-codes.md (75: another program holds it; 78: the config names a port or address this
    machine cannot use), not uvicorn's log and its own status. uvicorn sends the stopping signal
    to itself again once it has shut down; the handler left in place here takes it, so a stop
    exits 0 instead of dying by the signal. ``listening`` (and ``warning``) are logged once the port
    is ours, so a refusal to listen stays the one line. ``on_stop`` runs when the stopping signal
    arrives while uvicorn runs, before it waits for open connections (the club ends its pages' streams).
    """
    import errno
    import logging
    import signal
    import socket

    from bornes.drivers.errors import EX_CONFIG, EX_TEMPFAIL, UserError

    def stop(signum: int, frame: object) -> None:
        server.should_exit = True  # type: ignore[attr-defined]  # uvicorn.Server: stop even before it starts

    # Before the port listens: a stop that comes as soon as a client can connect (systemd's, a test's) is taken
    # here, not by the signal's default action (the process killed, status -15 instead of 0: seen in CI).
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        family, _kind, _proto, _name, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                                    flags=socket.AI_PASSIVE)[0]
        listener = socket.create_server(address[:2], family=family)
    except socket.gaierror as error:
        raise UserError(f"{what}: cannot listen on {host}: {error.strerror}; set another host", EX_CONFIG) from None
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            raise UserError(f"{what}: port {port} on {host} is in use by another program; stop it or set another "
                            "port", EX_TEMPFAIL) from None
        hint = "; ports below 1024 need root" if error.errno == errno.EACCES and port < 1024 else ""
        raise UserError(f"{what}: cannot listen on {host}:{port}: {error.strerror}{hint}", EX_CONFIG) from None

    if on_stop is not None:
        uvicorns_own = server.handle_exit  # type: ignore[attr-defined]  # what uvicorn installs while it runs

        def handle_exit(signum: int, frame: object) -> None:
            uvicorns_own(signum, frame)
            on_stop()

        server.handle_exit = handle_exit  # type: ignore[attr-defined]
    if listening:
        logging.getLogger(f"bornes.{what.removeprefix('bornes ')}").info("%s", listening)
    if warning:
        logging.getLogger(f"bornes.{what.removeprefix('bornes ')}").warning("%s", warning)
    with listener:
        server.run(sockets=[listener])  # type: ignore[attr-defined]
    return 0


def add_language_argument(parser: object, help: str, dest: str = "lang") -> None:
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
    parser.add_argument("--lang", type=language, default=None, metavar="LANG", help=help, dest=dest)
