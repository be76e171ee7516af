"""``bornes scan-test``: print every read live, so a person can check a new reader.

Cards, control tags, unknown codes, checksum errors and reconnects each get one line.
With no reader attached it says so in one line and keeps retrying until Ctrl-C.
"""

from __future__ import annotations

import argparse
import queue
from typing import Any

from bornes.drivers.events import CardScanned, ControlScanned, ReaderBack, ReaderLost, ReaderProblem, UnknownScanned
from bornes.firmware.errors import EX_UNAVAILABLE
from bornes.firmware.reader_options import (
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


def run(args: argparse.Namespace) -> int:
    choice = reader_choice(args)
    bindings = load_bindings(choice)
    events: queue.Queue[Any] = queue.Queue()
    print(f"Listening on {choice.describe()}; {len(bindings)} enrolled tags. Tap cards, Ctrl-C to stop.", flush=True)
    reader = start_reader(choice, events, bindings)
    reads = 0
    connected = False
    try:
        for event in events_until(events, args.seconds, lambda: args.count != 0):
            line = format_event(event)
            if line is not None:
                print(line, flush=True)
            if isinstance(event, ReaderBack):
                connected = True
            if isinstance(event, CardScanned | ControlScanned | UnknownScanned):
                reads += 1
                if args.count is not None and reads >= args.count:
                    break
    except KeyboardInterrupt:
        print()
    finally:
        reader.close()
    s = reader.stats
    print(
        f"{reads} reads, {s.bad_checksums} checksum errors, {s.garbage_bytes} garbage bytes, "
        f"{s.double_reads} double reads suppressed, {s.reconnects} reconnects",
        flush=True,
    )
    return 0 if connected else EX_UNAVAILABLE
