"""``bornes bridge``: publish this table's journal to the club's MQTT broker (docs/club.md)."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
from types import FrameType

from bornes.drivers.errors import EX_CONFIG, UserError
from bornes.firmware.appliance.heap import release_freed_heap
from bornes.firmware.commands import add_deprecated


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--settings", help="bridge settings file (TOML; e.g. /etc/bornes/bridge.toml)")
    parser.add_argument("--club", help="club id (the topic's second level)")
    parser.add_argument("--table", help="this table's id; also its broker user name")
    parser.add_argument("--journal", help="the referee's state directory (read only)")
    parser.add_argument("--state", help="the bridge's own state directory (its outbox position)")
    parser.add_argument("--control", help="the referee's control socket, for assignments")
    # The bridge listens nowhere: its broker is --broker-host/--broker-port, as for `bornes club`.
    parser.add_argument("--broker-host", help="broker host (default: [broker] host)")
    parser.add_argument("--broker-port", type=int, help="broker port (default: [broker] port)")
    add_deprecated(parser, "--host", "--broker-host", "broker_host")
    add_deprecated(parser, "--port", "--broker-port", "broker_port", int)
    parser.add_argument("--password-file", help="file holding this table's broker password")
    parser.add_argument("--tls-ca", help="CA certificate: connect with TLS")
    parser.add_argument("--language", help="language of the live table's words (en, fr)")
    parser.add_argument("--web-url", help="this table's phone pages (bornes web), linked from the club board")
    parser.add_argument("--resend", type=float, help="seconds before an unconfirmed result is sent again")
    parser.add_argument("--all-history", action="store_true", default=None,
                        help="also publish games finished before this bridge first ran")


def run(args: argparse.Namespace) -> int:
    try:
        from bornes.firmware.club.bridge import Bridge
        from bornes.firmware.club.settings import load_bridge
    except ImportError as error:
        raise UserError(f"the bridge needs the club extra: pip install 'bornes[club]' ({error})", EX_CONFIG) from None
    password = None
    if args.password_file:
        try:
            with open(args.password_file, encoding="utf-8") as handle:
                password = handle.read().strip()
        except OSError as error:
            raise UserError(f"cannot read {args.password_file}: {error.strerror}", EX_CONFIG) from None
    settings = load_bridge(
        args.settings, club=args.club, table=args.table, journal=args.journal, state=args.state,
        control=args.control, language=args.language, web_url=args.web_url,
        resend=args.resend, all_history=args.all_history,
        broker={"host": args.broker_host, "port": args.broker_port, "password": password, "tls_ca": args.tls_ca},
    )
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(name)s: %(message)s")
    bridge = Bridge(settings)

    def stop(signum: int, frame: FrameType | None) -> None:
        bridge.stop()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    release_freed_heap()
    bridge.run()
    return 0

