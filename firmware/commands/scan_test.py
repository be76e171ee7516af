"""``bornes scan-test``: print every read live, so a person can check a new reader.

Cards, control tags, unknown codes, checksum errors and reconnects each get one line.
With no reader attached it says so in one line and keeps retrying until Ctrl-C.
"""

from __future__ import annotations

import argparse
import queue
from typing import Any

from bornes.drivers.errors import EX_UNAVAILABLE, UserError
from bornes.drivers.events import CardScanned, ControlScanned, ReaderBack, ReaderLost, ReaderProblem, UnknownScanned
from bornes.firmware.appliance.reader_options import (
    add_reader_arguments,
    events_until,
    load_bindings,
    reader_choice,
    start_reader,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_reader_arguments(parser)
    parser.add_argument("--count", type=int, metavar="N", help="stop after N reads")
    parser.add_argument("--seconds", type=float, metavar="S", help="stop after S seconds")
    parser.add_argument("--devices", action="store_true",
                        help="list the keyboard-like input devices (USB scanners and RFID readers in keyboard "
                             "mode) and show what each decodes")


def format_event(event: object) -> str | None:
    """One line per event, or None for events that are not the reader's."""
    if isinstance(event, CardScanned):
        line = f"{event.card.code():<20} {event.card.describe()}"
        return line if event.raw == event.card.code() else f"{line}  [tag {event.raw}]"
    if isinstance(event, ControlScanned):
        return f"{event.raw:<20} control {event.name}"
    if isinstance(event, UnknownScanned):
        return f"{'?':<20} unknown card {event.raw!r} ({event.reason})"
    if isinstance(event, ReaderProblem):
        return f"{'!':<20} {event.kind}: {event.detail}"
    if isinstance(event, ReaderLost):
        return f"{'!':<20} reader lost: {event.detail}; retrying (plug it in, or check --port)"
    if isinstance(event, ReaderBack):
        return f"{'+':<20} reader connected on {event.port}"
    return None


def _list_devices() -> None:
    """Before listening on a keyboard-mode reader: what else is there, in case the port is wrong."""
    from bornes.drivers.readers.hid_device import HidUnavailable, keyboard_devices

    try:
        devices = keyboard_devices()
    except HidUnavailable as error:
        print(f"{'!':<20} {error}", flush=True)
        return
    print(f"Keyboard-like input devices here: {len(devices)}", flush=True)
    for device in devices:
        print(f"  {device.line()}", flush=True)


def run_devices(args: argparse.Namespace) -> int:
    """Every keyboard-like input device, each grabbed and read at once: tap a card on the reader and
    its line shows which device it is and what it decodes (with the layout it types in)."""
    from bornes.drivers.readers import open_reader
    from bornes.drivers.readers.hid_device import HidUnavailable, keyboard_devices

    try:
        devices = keyboard_devices()
    except HidUnavailable as error:
        raise UserError(str(error), EX_UNAVAILABLE) from None
    if not devices:
        print("No keyboard-like input devices (plug the reader in; a user outside group input or bornes sees none).",
              flush=True)
        return EX_UNAVAILABLE
    print("Keyboard-like input devices (stable name, vendor:product, name): put one as reader.port", flush=True)
    for device in devices:
        print(f"  {device.line()}", flush=True)
    print("Tap a card on each reader to see what it decodes; Ctrl-C to stop. (They are grabbed meanwhile: "
          "a keyboard here types nothing.)", flush=True)
    choice = reader_choice(args, protocol="hid")
    bindings = load_bindings(choice)
    events: queue.Queue[Any] = queue.Queue()
    readers = [open_reader("hid", device.stable or device.path, events, name=device.stable or device.path,
                           bindings=bindings, layout=choice.reader.layout) for device in devices]
    try:
        reads, _connected = _print_reads(events, args, each_device=True)
    finally:
        for reader in readers:
            reader.close()
    print(f"{reads} reads on {len(devices)} devices", flush=True)
    return 0


def run(args: argparse.Namespace) -> int:
    if args.devices:
        return run_devices(args)
    choice = reader_choice(args)
    bindings = load_bindings(choice)
    if choice.protocol == "hid":
        _list_devices()
    events: queue.Queue[Any] = queue.Queue()
    print(f"Listening on {choice.describe()}; {len(bindings)} enrolled tags. Tap cards, Ctrl-C to stop.", flush=True)
    reader = start_reader(choice, events, bindings)
    try:
        reads, connected = _print_reads(events, args, each_device=False)
    finally:
        reader.close()
    s = reader.stats
    print(
        f"{reads} reads, {s.bad_checksums} checksum errors, {s.garbage_bytes} garbage bytes, "
        f"{s.double_reads} double reads suppressed, {s.reconnects} reconnects",
        flush=True,
    )
    return 0 if connected else EX_UNAVAILABLE


def _print_reads(events: queue.Queue[Any], args: argparse.Namespace, each_device: bool) -> tuple[int, bool]:
    """Print each reader event until ``--count`` reads or ``--seconds`` (Ctrl-C stops too): how many
    cards were read, and whether a reader said it was connected. With ``each_device``, lines name
    the device they came from and connection notices are left out (the devices were just listed)."""
    reads = 0
    connected = False
    try:
        for event in events_until(events, args.seconds, lambda: args.count != 0):
            if isinstance(event, ReaderBack):
                connected = True
            line = format_event(event)
            if line is not None and each_device and not isinstance(event, ReaderBack):
                print(f"{getattr(event, 'reader', '?')}: {line.strip()}", flush=True)
            elif line is not None and not each_device:
                print(line, flush=True)
            if isinstance(event, CardScanned | ControlScanned | UnknownScanned):
                reads += 1
                if args.count is not None and reads >= args.count:
                    break
    except KeyboardInterrupt:
        print()
    return reads, connected
