"""``bornes run``: the referee daemon (systemd starts it), or ``--emulate`` on a laptop."""

from __future__ import annotations

import argparse
import dataclasses
import logging
import queue
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bornes.firmware.appliance.config import Config
    from bornes.firmware.appliance.console import Console

# Only the standard library at import: ``run`` installs its signal handlers before it loads the
# rest (the referee, screens and PIL take most of the start), so a SIGTERM at any point of a
# slow start on a Pi Zero is a clean stop, never a death by signal.

log = logging.getLogger("bornes")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from bornes.firmware.appliance.config import add_config_argument
    from bornes.firmware.commands import add_language_argument

    add_config_argument(parser)
    add_language_argument(parser, help="language of the panel and the emulator's console (default: [table] "
                                       "language, else the edition's: French for the French editions)")
    parser.add_argument(
        "--emulate",
        action="store_true",
        help="no Pi: type card codes (MB-D100-07) and buttons (ok, next, cf, long ok, seat2) on standard input",
    )
    parser.add_argument(
        "--keypad",
        nargs="?",
        const="",
        metavar="DEVICE",
        help="with --emulate on a table whose [buttons] are a USB keypad: read that keypad (or DEVICE, its "
             "/dev/input/by-id name or VVVV:PPPP) beside the keyboard; without it, its keys are typed (+, enter, 0)",
    )
    parser.add_argument("--display", metavar="PANEL", help="override display.panel (dummy, terminal, pygame, ...)")
    parser.add_argument("--no-reader", action="store_true", help="do not open the card reader (nor the camera)")
    parser.add_argument(
        "--camera",
        metavar="FRAMES",
        help="a folder of pictures (or a video file) is the camera: its frames are read at [camera] fps, and "
             "pictures written into the folder later too (docs/camera.md, the camera twin)",
    )
    parser.add_argument(
        "--port",
        metavar="DEVICE",
        help="the card reader (overrides reader.port): a serial port such as /dev/ttyUSB0, or a keyboard-mode "
             "scanner by its /dev/input/by-id name or VVVV:PPPP (bornes scan-test --devices lists them; it is "
             "then read as protocol hid); with --emulate, it feeds the emulated table beside the keyboard",
    )


def port_reader(reader: Any, port: str) -> Any:
    """``[reader]`` with ``--port``: an input device or ``vvvv:pppp`` is a keyboard-mode scanner, read as such
    whatever protocol the file names (a serial port is never one)."""
    from bornes.drivers.parts import names_input_device

    if names_input_device(port) and reader.protocol != "hid":
        return dataclasses.replace(reader, port=port, protocol="hid", baudrate=None)
    return dataclasses.replace(reader, port=port)


def setup_logging(level: str) -> None:
    """journald gets the referee's lines at ``level``; other libraries' at info or above, so ``debug``
    is the referee's every input, not Pillow's every PNG chunk."""
    wanted = logging.getLevelName(level.upper())
    logging.basicConfig(format="bornes: %(message)s", stream=sys.stdout, level=max(wanted, logging.INFO), force=True)
    logging.getLogger("bornes").setLevel(wanted)


def _stdin_keys(events: queue.Queue[object], stop: threading.Event, console: Console | None = None,
                keys: Callable[[str], object | None] | None = None) -> None:
    """--emulate: each typed line is an input (``help`` is answered by the console); end of input stops.
    ``keys``: on a keypad table, the press the keypad would send for a line that names one of its keys."""
    from bornes.drivers.events import KeyTyped
    from bornes.firmware.appliance.console import Console
    from bornes.firmware.appliance.referee import STOP

    console = console or Console()
    for line in console.lines():
        if stop.is_set():
            return
        pressed = keys(line) if keys is not None else None
        events.put(pressed if pressed is not None else KeyTyped(line))
    events.put(STOP)


def typed_keys(config: Config) -> Callable[[str], object | None] | None:
    """On a keypad table (``[buttons] source = "hid"``), a typed line naming one of its keys (``+``,
    ``enter``, ``KP0``, ``long enter``) as the event the keypad would put on the queue: its button's
    press, or the keypad's "no button" for a key of none. None on a table of wired buttons."""
    if config.buttons.source != "hid":
        return None
    from bornes.drivers.events import KEYPAD, ButtonPressed, ReaderProblem
    from bornes.drivers.keypad import holds_of, typed_press
    from bornes.drivers.keys import key_label
    from bornes.firmware.language.buttons import key_word

    keymap, holds = config.buttons.key_map, holds_of(config.load_pin_map())
    # A key as the table's language prints it ("entrée") is that key too.
    said = {key_word(key_label(code)).casefold(): key_label(code) for code, _button in keymap.pairs}

    def press(line: str) -> object | None:
        words = line.split()
        if words and words[-1].casefold() in said:
            words[-1] = said[words[-1].casefold()]
        found = typed_press(keymap, holds, " ".join(words))
        if found is None or isinstance(found, ButtonPressed):
            return found
        return ReaderProblem(found.kind, found.detail, KEYPAD)

    return press


def run(args: argparse.Namespace) -> int:
    stop = threading.Event()
    queues: list[queue.Queue[object]] = []  # whichever loop is waiting gets the STOP

    def deliver_stop(name: str) -> None:
        from bornes.firmware.language.i18n import N_, Phrase

        said = Phrase(N_("signal {name}: shutting down"), name=name)
        log.info("signal %s: shutting down", name, extra={"said": said})
        stop.set()
        if queues:  # a loop is waiting, so the referee module is loaded already
            from bornes.firmware.appliance.referee import STOP

            for waiting in list(queues):
                waiting.put(STOP)

    def on_signal(signum: int, frame: FrameType | None) -> None:
        # A Queue's lock is not reentrant and the main thread may hold it right now: hand over.
        name = signal.Signals(signum).name
        threading.Thread(target=deliver_stop, args=(name,), name="signal", daemon=True).start()

    # First of all, before the slow imports: systemd may stop us at any moment of the start.
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    from bornes.firmware.appliance.config import ensure_state_dir, load_config
    from bornes.firmware.storage.statelock import StateLock

    config = load_config(args.config)
    if args.port:
        config = dataclasses.replace(config, reader=port_reader(config.reader, args.port))
    if args.keypad:
        config = dataclasses.replace(config, buttons=dataclasses.replace(config.buttons, port=args.keypad))
    if args.lang:
        config = dataclasses.replace(config, table=dataclasses.replace(config.table, language=args.lang))
    if args.camera:
        config = _camera_twin(config, args.camera)
    setup_logging(config.log.level)
    from bornes.firmware.appliance.config import table_language
    from bornes.firmware.language import i18n

    i18n.use(table_language(config))
    if args.emulate:  # a person reads this terminal: every line in the table's language from the first
        from bornes.firmware.appliance.console import SpokenLines

        for handler in logging.getLogger().handlers:
            handler.addFilter(SpokenLines())
    if stop.is_set():
        return _stopped()
    # What a restart cannot cure stops in one line, never after "starting with" (docs/exit-codes.md).
    state_dir = ensure_state_dir(config)
    config.load_pin_map()
    _check_room(state_dir)
    lock = StateLock.acquire(state_dir, "run")  # one writer: held until this process ends
    try:
        return _run_locked(config, args, state_dir, stop, queues)
    finally:
        lock.close()


def _camera_twin(config: Config, frames: str) -> Config:
    """``--camera FRAMES``: the [camera] section (or a new one) reading a folder or a video instead."""
    from bornes.drivers.errors import EX_NOINPUT, UserError
    from bornes.firmware.appliance.config import CameraConfig

    path = Path(frames).expanduser().resolve()
    if not path.exists():
        raise UserError(f"--camera {frames}: no such folder or video file", EX_NOINPUT)
    camera = config.camera or CameraConfig()
    return dataclasses.replace(config, camera=dataclasses.replace(camera, source="folder", device=str(path)))


def _check_room(state_dir: Path) -> None:
    """A disk too full for one card stops the start in one line (exit 74, not restarted by systemd)."""
    from bornes.firmware.storage.journal import JournalFull, headroom

    room = headroom(state_dir)
    if room.full:
        raise JournalFull(f"state directory {state_dir}: the storage is full ({room.describe()}), "
                          "then: sudo systemctl restart bornes")


def _run_locked(
    config: Config, args: argparse.Namespace, state_dir: Path, stop: threading.Event, queues: list[queue.Queue[object]]
) -> int:
    from bornes.firmware.appliance.assembly import Appliance
    from bornes.firmware.appliance.heap import settle_after_start_up
    from bornes.firmware.appliance.referee import STOP
    from bornes.firmware.storage.journal import Journal, JournalCorrupt
    from bornes.firmware.storage.store import GameDoesNotReplay

    journal: Journal | None = None
    while True:
        if stop.is_set():
            if journal is not None:
                journal.close()
            return _stopped()
        try:
            if journal is None:
                journal = Journal.open(state_dir)
                _archive(config, journal, state_dir)
            appliance = Appliance(
                config, emulate=args.emulate, panel=args.display,
                with_reader=not args.no_reader and (not args.emulate or bool(args.port)), journal=journal,
                control=True, with_camera=not args.no_reader, with_keypad=not args.emulate or args.keypad is not None,
            )
            from bornes.firmware.language.i18n import N_, Phrase

            said = (Phrase(N_("starting with {file}"), file=config.source) if config.source
                    else Phrase(N_("starting with the built-in defaults")))
            log.info("starting with %s", config.source or "built-in defaults", extra={"said": said})  # once it can
            break
        except JournalCorrupt as error:  # at open, or while resuming: a person decides, nothing is changed
            if journal is not None:
                journal.close()
                journal = None
            log.error("%s", error)
            if not _hold_ok(config, args, stop, queues, "Journal damaged", "Kept as is. Hold OK to set it aside"):
                return _stopped()
            log.info("damaged journal moved to %s", Journal.quarantine(state_dir))
        except GameDoesNotReplay as error:  # the Appliance closed what it had opened
            journal = None
            log.error("%s", error)
            if not _hold_ok(config, args, stop, queues, "Game can't resume", "Hold OK to keep it in history"):
                return _stopped()
            journal = Journal.open(state_dir)
            journal.abandon(error.game_id)
            log.info("game %d kept in history as abandoned", error.game_id)
    queues.append(appliance.events)
    if stop.is_set():
        appliance.events.put(STOP)
    console: Console | None = None
    if args.emulate:
        console = _start_console(appliance, config, args)
        threading.Thread(target=_stdin_keys, args=(appliance.events, stop, console, typed_keys(config)), daemon=True,
                         name="keys").start()
    settle_after_start_up()
    try:
        appliance.referee.run(stop)
    finally:
        appliance.close()
        if console is not None:
            console.close()
    return _stopped()


def _archive(config: Config, journal: Any, state_dir: Path) -> None:
    """``state.keep_games``: archive old games; a problem with the archive folder is logged, never fatal
    (the journal simply keeps every game until it is fixed)."""
    if not config.state.keep_games:
        return
    from bornes.drivers.errors import UserError
    from bornes.firmware.commands.archive import ARCHIVE_DIR, archive_games
    from bornes.firmware.storage.journal import JournalCorrupt

    try:
        gone = archive_games(journal, config.state.keep_games, state_dir / ARCHIVE_DIR)
    except JournalCorrupt:
        raise
    except UserError as error:
        log.warning("old games not archived, the journal keeps them all: %s", error)
        return
    if gone:
        log.info("archived %d old games to %s (state.keep_games = %d)", gone, state_dir / ARCHIVE_DIR,
                 config.state.keep_games)


def _start_console(appliance: Any, config: Config, args: argparse.Namespace) -> Console:
    """The laptop's terminal: the panel on top (if drawn here), the log and the prompt below it."""
    from bornes.drivers.display.terminal import panel_rows
    from bornes.firmware.appliance.console import Console, SpokenLines, input_words
    from bornes.firmware.language.i18n import _

    display = appliance.display
    rows = panel_rows(display.size) if getattr(display, "name", "") == "terminal" else 0
    flow = appliance.flow

    keymap = config.buttons.key_map if config.buttons.source == "hid" else None

    def help_text() -> str:  # the cards' names as the edition being played (or set up) prints them
        return input_words(flow.state.setup.edition if flow.state is not None else flow.draft.edition, keymap)

    console = Console(panel_rows=rows, help_text=help_text)
    console.start()
    root = logging.getLogger()
    if console.interactive:  # log lines go above the prompt from now on
        handler = console.handler()
        for old in list(root.handlers):
            root.removeHandler(old)
        handler.addFilter(SpokenLines())  # a person reads these: the table's language, names, not seat letters
        root.addHandler(handler)
    console.say(help_text())
    if args.port:
        console.say(_("A scanner on {port} feeds the table too.").format(port=config.reader.port))
    else:
        unopened = unopened_readers(config)
        if unopened:  # the readers the file names wait for --port, and the person is told so, once
            console.say(_("Not opened with --emulate: {readers}; add --port to read them beside the keyboard")
                        .format(readers=", ".join(unopened)))
    if keymap is not None and args.keypad is None:  # its keys are typed instead, and said so
        console.say(_("Keypad {port} not opened with --emulate: type its keys (help lists them); add --keypad to "
                      "read it beside the keyboard").format(port=config.buttons.port))
    if flow.game is not None and flow.ui.message:
        console.say(flow.ui.message)  # "Game resumed: hand 3, Bob's turn"

    def hint(event: object, outcome: Any) -> None:
        if outcome.reason == "bad-input":
            console.say(_("(type help to see the cards and buttons you can type)"))
        elif outcome.reason == "layout-test":  # not a card and changes nothing, but worth an answer here too
            console.say(outcome.message)

    appliance.referee.on_outcome = hint
    return console


def unopened_readers(config: Config) -> list[str]:
    """The readers the config names that ``--emulate`` without ``--port`` leaves closed, as a person reads
    them: ``[reader]`` (keyboard-mode scanner, /dev/input/by-id/…), ``[pads.B]`` (serial, /dev/ttyUSB1)."""
    from bornes.firmware.language.i18n import _

    def kind(reader: Any) -> str:
        return _("keyboard-mode scanner") if reader.protocol == "hid" else reader.protocol

    found = [f"[reader] ({kind(config.reader)}, {config.reader.port})"] if config.reader_given else []
    return found + [f"[pads.{pad.name}] ({kind(pad.reader)}, {pad.reader.port})" for pad in config.pads]


def _stopped() -> int:
    from bornes.firmware.language.i18n import N_, Phrase

    log.info("stopped", extra={"said": Phrase(N_("stopped"))})
    return 0


def _hold_ok(
    config: Config, args: argparse.Namespace, stop: threading.Event, queues: list[queue.Queue[object]],
    title: str, detail: str,
) -> bool:
    """Show a problem on the panel and wait for a long OK; False if stopped first.

    READY goes to systemd first, so the unit is not killed for a slow start while a person
    decides; nothing is changed until they hold OK.
    """
    from bornes.drivers.pins import make_pin_factory
    from bornes.firmware.appliance import notify
    from bornes.firmware.appliance.assembly import desktop_panel, held_buttons, open_display_from_config
    from bornes.firmware.appliance.config import control_path, tv_file
    from bornes.firmware.appliance.referee import wait_for_long_ok
    from bornes.firmware.screens.model import StatusView
    from bornes.firmware.screens.render import render

    events: queue.Queue[object] = queue.Queue()
    queues.append(events)
    panel = args.display
    if panel is None and args.emulate and config.display.is_hardware:
        panel = desktop_panel()  # as the Appliance does: no I2C panel on a laptop
    tv = tv_file(config, control_path(config, args.emulate, config.state.dir))
    display = open_display_from_config(config, panel, tv=tv)
    pin_map = config.load_pin_map()
    factory = make_pin_factory("mock" if args.emulate or config.pins.factory == "mock" else None, pin_map.chip_labels)
    buttons = held_buttons(config, pin_map, events, factory)  # GPIO (on the pin map's chip), or the keypad
    try:
        display.show(render(StatusView(title, detail), display.size, display.mode))
        notify.ready(f"waiting: {title}")
        if args.emulate:  # "long ok", or on a keypad table its key held: "long enter"
            threading.Thread(target=_stdin_keys, args=(events, stop, None, typed_keys(config)), daemon=True).start()
        return wait_for_long_ok(events, stop)
    finally:
        queues.remove(events)
        buttons.close()
        display.close()
