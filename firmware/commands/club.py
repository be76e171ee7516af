"""``bornes club``: the tournament board: every table live, standings, rounds, over MQTT (docs/club.md)."""

from __future__ import annotations

import argparse
import logging
import sys

from bornes.drivers.errors import EX_CONFIG, UserError
from bornes.firmware.commands import add_deprecated, serve


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--settings", help="board settings file (TOML; e.g. /etc/bornes/club.toml)")
    parser.add_argument("--club", help="club id (the topic's second level)")
    parser.add_argument("--database", help="the tournament's SQLite file")
    # --host/--port: where this process listens (as for `bornes web`); --broker-*: the broker.
    parser.add_argument("--host", help="address the pages listen on (default: [club] listen, 0.0.0.0; "
                                       "127.0.0.1: this computer only)")
    parser.add_argument("--port", type=int, help="port the pages listen on (default: [club] port, 8080)")
    parser.add_argument("--broker-host", help="broker host (default: [broker] host)")
    parser.add_argument("--broker-port", type=int, help="broker port (default: [broker] port)")
    add_deprecated(parser, "--listen", "--host", "host")
    parser.add_argument("--username", help="broker user name (default: board)")
    parser.add_argument("--password-file", help="file holding the board's broker password")
    parser.add_argument("--organiser-password-file", help="file holding the organiser pages' password")
    parser.add_argument("--tls-ca", help="CA certificate: connect to the broker with TLS")
    parser.add_argument("--language", help="the pages' language (en, fr)")


def _read(path: str | None) -> str | None:
    if not path:
        return None
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read().strip()
    except OSError as error:
        raise UserError(f"cannot read {path}: {error.strerror}", EX_CONFIG) from None


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from bornes.firmware.club.board import Board
        from bornes.firmware.club.settings import load_board
        from bornes.firmware.club.store import ClubStore
        from bornes.firmware.club.web import create_app
        from bornes.firmware.web.connections import server_config
    except ImportError as error:
        raise UserError(f"the board needs the club extra: pip install 'bornes[club]' ({error})", EX_CONFIG) from None
    settings = load_board(
        args.settings, club=args.club, database=args.database, listen=args.host, port=args.port,
        organiser_password=_read(args.organiser_password_file), language=args.language,
        broker={"host": args.broker_host, "port": args.broker_port, "username": args.username,
                "password": _read(args.password_file), "tls_ca": args.tls_ca},
    )
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(name)s: %(message)s")
    store = ClubStore(settings.database)
    board = Board(settings, store)
    board.start()
    try:
        app = create_app(board, store, settings.organiser_password, settings.language, settings.url)
        server = uvicorn.Server(server_config(app, settings.listen, settings.port, log_level="warning",
                                              timeout_graceful_shutdown=2))  # 2 s: open event streams
        return serve(server, settings.listen, settings.port, "bornes club", on_stop=board.end_streams)
    finally:
        board.stop()
        store.close()
