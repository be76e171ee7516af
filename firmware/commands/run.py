"""``bornes run``: the referee daemon (systemd starts it), or ``--emulate`` on a laptop."""

from __future__ import annotations

import argparse
import logging
import queue
import signal
import sys
import threading
from types import FrameType

from drivers.events import KeyTyped
from firmware.config import add_config_argument, load_config
from firmware.journal import Journal, JournalCorrupt
from firmware.referee import STOP, wait_for_long_ok

NAME = "run"
HELP = "run the referee: readers, buttons, display and the game journal"

log = logging.getLogger("bornes")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser)
    parser.add_argument(
        "--emulate",
        action="store_true",
        help="no Pi: type card codes (MB-D100-07) and buttons (ok, next, cf, long ok, seat2) on standard input",
    )
    parser.add_argument("--display", metavar="PANEL", help="override display.panel (dummy, terminal, pygame, ...)")
    parser.add_argument("--no-reader", action="store_true", help="do not open the card reader")


def setup_logging(level: str) -> None:
    logging.basicConfig(format="bornes: %(message)s", stream=sys.stdout, level=level.upper(), force=True)


def _stdin_keys(events: object, stop: threading.Event) -> None:
    """--emulate: each typed line is an input; end of input stops the referee."""
    import queue as _queue

    assert isinstance(events, _queue.Queue)
    for line in sys.stdin:
        if stop.is_set():
            return
        events.put(KeyTyped(line.rstrip("\n")))
    events.put(STOP)


def run(args: argparse.Namespace) -> int:
    from firmware.appliance import Appliance

    config = load_config(args.config)
    setup_logging(config.log.level)
    log.info("starting with %s", config.source or "built-in defaults")
    stop = threading.Event()
    queues: list[queue.Queue[object]] = []  # whichever loop is waiting gets the STOP

    def on_signal(signum: int, frame: FrameType | None) -> None:
        log.info("signal %s: shutting down", signal.Signals(signum).name)
        stop.set()
        for waiting in queues:
            waiting.put(STOP)

    # From the very start: systemd may stop us while the journal is being checked.
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    journal = _open_journal(config, args, stop, queues)
    if journal is None or stop.is_set():
        if journal is not None:
            journal.close()
        log.info("stopped")
        return 0
    appliance = Appliance(
        config, emulate=args.emulate, panel=args.display, with_reader=not (args.no_reader or args.emulate),
        journal=journal,
    )
    queues.append(appliance.events)
    if stop.is_set():
        appliance.events.put(STOP)
    if args.emulate:
        threading.Thread(target=_stdin_keys, args=(appliance.events, stop), daemon=True, name="keys").start()
    try:
        appliance.referee.run(stop)
    finally:
        appliance.close()
        log.info("stopped")
    return 0


def _open_journal(
    config: object, args: argparse.Namespace, stop: threading.Event, queues: list[queue.Queue[object]]
) -> Journal | None:
    """Open the journal; a damaged one is shown and kept until a person holds OK to set it aside."""
    from firmware.appliance import open_display_from_config
    from firmware.config import Config, ensure_state_dir
    from firmware.screens.model import StatusView
    from firmware.screens.render import render

    assert isinstance(config, Config)
    state_dir = ensure_state_dir(config)
    try:
        return Journal.open(state_dir)
    except JournalCorrupt as error:
        log.error("%s", error)
        from drivers.buttons import Buttons
        from drivers.pins import load, make_pin_factory

        events: queue.Queue[object] = queue.Queue()
        queues.append(events)
        display = open_display_from_config(config, args.display)
        factory = make_pin_factory("mock" if args.emulate or config.pins.factory == "mock" else None)
        buttons = Buttons(load(config.pins.map), events, pin_factory=factory)
        try:
            view = StatusView("Journal damaged", "Kept as is. Hold OK to set it aside and start afresh")
            display.show(render(view, display.size, display.mode))
            if args.emulate:
                threading.Thread(target=_stdin_keys, args=(events, stop), daemon=True).start()
            if not wait_for_long_ok(events, stop):
                return None
            moved = Journal.quarantine(state_dir)
            log.info("damaged journal moved to %s", moved)
            return Journal.open(state_dir)
        finally:
            buttons.close()
            display.close()
