"""``bornes tags write``: put each card's ``MB-…`` payload on an NTAG213 sticker via a PN532.

Tags written this way read as their card on any PN532 table with no binding table.
``bornes tags read`` shows what a tag holds.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

import serial

from bornes.drivers.errors import EX_UNAVAILABLE, UserError
from bornes.drivers.readers.pn532 import Pn532, Pn532Error, Pn532Timeout
from bornes.drivers.readers.serial_reader import open_serial
from bornes.firmware.appliance.reader_options import ReaderChoice, add_reader_arguments, reader_choice
from bornes.firmware.deck.enrollment import deck_payloads, parse_payloads
from bornes.firmware.deck.tags import TagWriter, read_payload


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="tags_action", metavar="ACTION", required=True)
    write = sub.add_parser("write", help="write the deck's codes on NTAG213 stickers, one tap per card")
    add_reader_arguments(write, protocol=False)
    write.add_argument("--edition", help="edition whose deck to write (default: game.edition in the config)")
    write.add_argument("--players", type=int, help="the short deck for this many players, if the edition has one")
    write.add_argument("--no-controls", action="store_true", help="leave out the six control tags")
    write.add_argument("--card", action="append", default=[], metavar="CODE", help="write only this card (repeat)")
    write.add_argument("--from", dest="start", metavar="CODE", help="start the walk at this card (to resume)")
    write.add_argument("--overwrite", action="store_true", help="rewrite tags that already hold another code")
    write.add_argument("--seconds", type=float, metavar="S", help="stop after S seconds")
    read = sub.add_parser("read", help="show the code stored on the tags you tap")
    add_reader_arguments(read, protocol=False)
    read.add_argument("--seconds", type=float, metavar="S", help="stop after S seconds")


def _open(choice: ReaderChoice) -> tuple[Pn532, Any, str]:
    try:
        port = open_serial(choice.port, choice.baudrate or 115200, 0.05)
    except (serial.SerialException, OSError, ValueError) as error:
        reason = getattr(error, "errno", None)
        detail = os.strerror(reason) if isinstance(reason, int) and reason > 0 else str(error)
        raise UserError(f"cannot open the PN532 on {choice.port}: {detail}", EX_UNAVAILABLE) from None
    client = Pn532(port)
    try:
        client.wake()
    except Pn532Error as error:
        port.close()
        raise UserError(
            f"the PN532 on {choice.port} does not answer ({error}); check wiring, HSU mode and --port",
            EX_UNAVAILABLE,
        ) from None
    return client, port, choice.describe()


def run(args: argparse.Namespace) -> int:
    payloads: list[str] = []
    choice = reader_choice(args, protocol="pn532")  # reads the config once, for the deck and the port
    if args.tags_action == "write":
        if args.card:
            payloads = parse_payloads(args.card)
        else:
            payloads = deck_payloads(
                args.edition or choice.config.game.edition, args.players, controls=not args.no_controls
            )
        if args.start:
            first = parse_payloads([args.start])[0]
            if first not in payloads:
                raise UserError(f"{first} is not in this deck")
            payloads = payloads[payloads.index(first) :]
    client, port, where = _open(choice)
    deadline = None if args.seconds is None else time.monotonic() + args.seconds
    try:
        if args.tags_action == "write":
            return _write(client, payloads, args.overwrite, deadline, where)
        return _read(client, deadline, where)
    except (serial.SerialException, OSError) as error:
        raise UserError(f"lost the PN532: {error}", EX_UNAVAILABLE) from None
    except Pn532Timeout as error:
        raise UserError(f"the PN532 stopped answering ({error})", EX_UNAVAILABLE) from None
    except KeyboardInterrupt:
        print()
        return 0
    finally:
        port.close()


def _expired(deadline: float | None) -> bool:
    return deadline is not None and time.monotonic() >= deadline


def _write(client: Pn532, payloads: list[str], overwrite: bool, deadline: float | None, where: str) -> int:
    writer = TagWriter(client, payloads, overwrite=overwrite)
    print(f"Writing {len(payloads)} tags with the PN532 on {where}. Ctrl-C to stop; --from CODE resumes.")
    print(writer.prompt(), flush=True)
    try:
        while writer.current is not None and not _expired(deadline):
            writer.poll(lambda line: print(line, flush=True))
            time.sleep(0.1)
    except (serial.SerialException, OSError, Pn532Timeout) as error:
        # A sheet of stickers takes a while: say exactly where to pick up again.
        raise UserError(
            f"lost the PN532 after {writer.index} of {len(payloads)} tags ({error}); "
            f"plug it back in and resume with --from {writer.current}",
            EX_UNAVAILABLE,
        ) from None
    except KeyboardInterrupt:
        print()
        if writer.current is not None:
            print(f"Stopped: resume with --from {writer.current}", flush=True)
    print(f"{writer.index} of {len(payloads)} tags written.", flush=True)
    return 0


def _read(client: Pn532, deadline: float | None, where: str) -> int:
    print(f"Reading tags with the PN532 on {where}. Ctrl-C to stop.", flush=True)
    last: str | None = None
    while not _expired(deadline):
        targets = client.list_targets(1)
        if not targets:
            last = None
        elif targets[0].uid_hex != last:
            target = targets[0]
            last = target.uid_hex
            try:
                payload = read_payload(client, target) if target.is_ntag else None
            except Pn532Error as error:
                payload, last = f"(read failed: {error})", None
            print(f"tag {target.uid_hex}: {payload or '(no MB- code stored)'}", flush=True)
        time.sleep(0.1)
    return 0
