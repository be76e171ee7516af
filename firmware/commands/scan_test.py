"""``bornes scan-test``: print every read live, so a person can check a new reader.

Cards, control tags, unknown codes, checksum errors and reconnects each get one line.
With no reader attached it says so in one line and keeps retrying until Ctrl-C.
``--buttons`` does the same for the USB keypad of ``[buttons]`` (each press, and the name of a key
the map does not use, for ``[buttons.keys]``); ``--identify`` finds which device is the scanner
and which the keypad (``systemd/install.sh --kit`` asks it).
"""

from __future__ import annotations

import argparse
import queue
from typing import Any

from bornes.drivers.errors import EX_UNAVAILABLE, UserError
from bornes.drivers.events import (
    KEYPAD,
    ButtonPressed,
    CardScanned,
    ControlScanned,
    ReaderBack,
    ReaderLost,
    ReaderProblem,
    UnknownScanned,
)
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
    parser.add_argument("--buttons", action="store_true",
                        help="check the USB keypad of [buttons]: print each button it presses, and the name of "
                             "any other key (for [buttons.keys])")
    parser.add_argument("--identify", action="store_true",
                        help="find the scanner (scan a label) and the keypad (press a key): prints "
                             "'scanner VVVV:PPPP PORT' and 'keypad VVVV:PPPP PORT'")


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
    if isinstance(event, ButtonPressed):
        return f"{'button':<20} {event.name}{' (held)' if event.long else ''}"
    if isinstance(event, ReaderLost):
        what = "keypad" if event.reader == KEYPAD else "reader"
        if "/dev/spidev" in str(event.detail):  # an RC522: nothing to plug, but SPI to turn on or a wire to check
            return f"{'!':<20} {what} lost: {event.detail}; retrying (bornes doctor says why)"
        return f"{'!':<20} {what} lost: {event.detail}; retrying (plug it in, or check --port)"
    if isinstance(event, ReaderBack):
        return f"{'+':<20} {'keypad' if event.reader == KEYPAD else 'reader'} connected on {event.port}"
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
    choice = reader_choice(args, protocol="hid")
    buttons = _buttons_device(choice.config, devices)
    print("Keyboard-like input devices (stable name, vendor:product, name): put one as reader.port", flush=True)
    for device in devices:
        mark = "  <- the buttons ([buttons] port)" if device is buttons else ""
        print(f"  {device.line()}{mark}", flush=True)
    print("Tap a card on each reader to see what it decodes; Ctrl-C to stop. (They are grabbed meanwhile: "
          "a keyboard here types nothing.)", flush=True)
    bindings = load_bindings(choice)
    events: queue.Queue[Any] = queue.Queue()
    readers = [open_reader("hid", device.stable or device.path, events, name=device.stable or device.path,
                           bindings=bindings, layout=choice.reader.layout)
               for device in devices if device is not buttons]
    if buttons is not None:  # read as the referee reads it: presses, not codes
        from bornes.drivers.keypad import holds_of, open_keypad

        readers.append(open_keypad(buttons.stable or buttons.path, events, choice.config.buttons.key_map,
                                   holds_of(_pin_map(choice.config))))
    try:
        reads, _connected = _print_reads(events, args, each_device=True)
    finally:
        for reader in readers:
            reader.close()
    print(f"{reads} reads on {len(devices)} devices", flush=True)
    return 0


def run_buttons(args: argparse.Namespace) -> int:
    """The keypad of ``[buttons]``, as the referee reads it: its key map, then each press live."""
    from bornes.drivers.keypad import holds_of, open_keypad

    choice = reader_choice(args)
    config = choice.config
    b = config.buttons
    port = args.port or b.port
    if not port:
        raise UserError('no keypad: [buttons] source = "hid" and port name it (bornes scan-test --devices lists '
                        "the devices)", EX_UNAVAILABLE)
    _list_devices()
    print(f"Listening on the keypad {port}, keys: {b.key_map.described()}. Press keys, Ctrl-C to stop.",
          flush=True)
    events: queue.Queue[Any] = queue.Queue()
    keypad = open_keypad(port, events, b.key_map, holds_of(_pin_map(config)), max_backoff=b.max_backoff)
    presses = 0
    connected = False
    try:
        for event in events_until(events, args.seconds, lambda: args.count != 0):
            connected |= isinstance(event, ReaderBack)
            line = format_event(event)
            if line is not None:
                print(line, flush=True)
            if isinstance(event, ButtonPressed):
                presses += 1
                if args.count is not None and presses >= args.count:
                    break
    except KeyboardInterrupt:
        print()
    finally:
        keypad.close()
    print(f"{presses} presses, {keypad.stats.reconnects} reconnects", flush=True)
    return 0 if connected else EX_UNAVAILABLE


def _buttons_device(config: Any, devices: list[Any]) -> Any:
    """The device of ``devices`` that ``[buttons]`` names as the keypad, or None."""
    import os
    import re

    port = config.buttons.port.strip() if config.buttons.source == "hid" else ""
    if not port:
        return None
    if re.fullmatch(r"[0-9a-fA-F]{4}:[0-9a-fA-F]{4}", port):
        return next((device for device in devices if device.vendor_product == port.lower()), None)
    real = os.path.realpath(port)
    return next((device for device in devices if port in (device.stable, device.path) or real == device.path), None)


def _pin_map(config: Any) -> Any:
    """The pin map's holds apply to the keys; a pin map that does not load leaves the defaults (doctor says why)."""
    try:
        return config.load_pin_map()
    except UserError:
        return None


def run_identify(args: argparse.Namespace, port_factory: Any = None) -> int:
    """Which input device is the scanner (it types a code) and which the keypad (a key pressed by hand),
    as ``scanner VVVV:PPPP PORT`` and ``keypad VVVV:PPPP PORT``, PORT its stable name (or the ids)."""
    from bornes.drivers.readers.hid_device import HidUnavailable, keyboard_devices

    try:
        devices = keyboard_devices(lambda keys: bool(keys))  # a keypad may have no Enter of the main block
    except HidUnavailable as error:
        raise UserError(str(error), EX_UNAVAILABLE) from None
    if not devices:
        print("No input devices with keys here: plug the scanner and the keypad in.", flush=True)
        return EX_UNAVAILABLE
    seconds = args.seconds if args.seconds is not None else 120.0
    print(f"Scan a barcode with the scanner (a card's label, or any product's): {len(devices)} devices listen.",
          flush=True)
    scanner = _first_device(devices, scanner=True, seconds=seconds, port_factory=port_factory)
    if scanner is None:
        print("Nothing was scanned: is the scanner in keyboard mode and plugged in?", flush=True)
        return EX_UNAVAILABLE
    print(f"scanner {scanner.vendor_product} {scanner.stable or scanner.vendor_product}", flush=True)
    others = [device for device in devices if device.path != scanner.path]
    print("Now press Enter (or any key) on the keypad.", flush=True)
    keypad = _first_device(others, scanner=False, seconds=seconds, port_factory=port_factory)
    if keypad is None:
        print("No key was pressed on another device: is the keypad plugged in?", flush=True)
        return EX_UNAVAILABLE
    print(f"keypad {keypad.vendor_product} {keypad.stable or keypad.vendor_product}", flush=True)
    return 0


def _first_device(devices: list[Any], *, scanner: bool, seconds: float, port_factory: Any) -> Any:
    """The first of ``devices`` to type a code (``scanner``) or to have a key pressed by hand; each is
    grabbed meanwhile (a keyboard here types nothing) and released before this returns."""
    import time

    from bornes.drivers.keypad import KEYMAPS, KeypadDecoder, KeypadLink
    from bornes.drivers.readers import open_reader
    from bornes.drivers.readers.hid_device import HidPort
    from bornes.drivers.readers.serial_reader import SerialReader

    def open_port(port: str, baudrate: int, timeout: float) -> Any:
        return HidPort(port, accept=lambda keys: bool(keys))

    factory = port_factory or open_port
    listening: list[tuple[Any, queue.Queue[Any], Any]] = []
    try:
        for device in devices:
            events: queue.Queue[Any] = queue.Queue()
            if scanner:
                thread: Any = open_reader("hid", device.path, events, name=device.path, serial_factory=factory)
            else:
                link = KeypadLink(KeypadDecoder(KEYMAPS["numpad"]))
                thread = SerialReader(device.path, events, link, baudrate=0, name=device.path,
                                      serial_factory=factory).start()
            listening.append((device, events, thread))
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for device, events, _thread in listening:
                try:
                    event = events.get(timeout=0.05)
                except queue.Empty:
                    continue
                # Any code typed at a scanner's speed, even one that is no card (a product's barcode): a
                # hand on a keyboard is "typing", never these.
                typed = isinstance(event, CardScanned | ControlScanned | UnknownScanned) or (
                    isinstance(event, ReaderProblem) and event.kind in ("layout", "garbled"))
                pressed = isinstance(event, ButtonPressed) or (
                    isinstance(event, ReaderProblem) and event.kind == "unknown-key")
                if (scanner and typed) or (not scanner and pressed):
                    return device
        return None
    finally:
        for _device, _events, thread in listening:
            thread.close()


def run(args: argparse.Namespace) -> int:
    if args.identify:
        return run_identify(args)
    if args.buttons:
        return run_buttons(args)
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
                print(f"{getattr(event, 'reader', KEYPAD)}: {line.strip()}", flush=True)
            elif line is not None and not each_device:
                print(line, flush=True)
            if isinstance(event, CardScanned | ControlScanned | UnknownScanned):
                reads += 1
                if args.count is not None and reads >= args.count:
                    break
    except KeyboardInterrupt:
        print()
    return reads, connected
