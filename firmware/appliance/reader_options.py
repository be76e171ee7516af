"""Command-line options shared by the reader commands (scan-test, enroll, tags).

Values come from the ``[reader]`` and ``[state]`` sections of the config file unless a
person overrides them on the command line, so ``bornes scan-test`` tests exactly the
reader the referee will use.
"""

from __future__ import annotations

import argparse
import dataclasses
import queue
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bornes.drivers.errors import EX_DATAERR, EX_USAGE, UserError
from bornes.drivers.parts import HID_LAYOUTS
from bornes.drivers.readers import (
    PROTOCOLS,
    BindingError,
    BindingTable,
    DoubleReadFilter,
    SerialReader,
    bindings_path,
    open_reader,
)
from bornes.drivers.readers.rc522 import POLL_INTERVAL, spidev_path
from bornes.firmware.appliance.config import Config, ReaderConfig, add_config_argument, load_config


def add_reader_arguments(parser: argparse.ArgumentParser, *, protocol: bool = True) -> None:
    add_config_argument(parser)
    parser.add_argument("--port", help="serial device or pyserial URL; for hid an input device (/dev/input/by-id/…) "
                                       "or vendor:product (default: reader.port in the config)")
    if protocol:
        parser.add_argument("--protocol", choices=PROTOCOLS, help="reader protocol (default: reader.protocol)")
    parser.add_argument("--baudrate", type=int, help="serial speed (default: the config, else the protocol's usual)")
    parser.add_argument("--state-dir", help="where the binding table lives (default: state.dir in the config)")
    parser.add_argument("--pad", metavar="NAME", help="use the reader of [pads.NAME] instead of [reader]")
    parser.add_argument("--layout", choices=HID_LAYOUTS, help="hid: the keyboard layout it types in (default: "
                                                              "reader.layout)")


@dataclass(frozen=True, slots=True)
class ReaderChoice:
    """The reader a command uses: the config's ``[reader]`` with the command line's overrides."""

    reader: ReaderConfig
    config: Config
    state_dir: Path

    @property
    def protocol(self) -> str:
        return self.reader.protocol

    @property
    def port(self) -> str:
        return self.reader.port

    @property
    def baudrate(self) -> int | None:
        return self.reader.baudrate

    @property
    def bindings_file(self) -> Path:
        return bindings_path(self.state_dir)

    def describe(self) -> str:
        if self.protocol == "rc522":
            return f"{self.port} (an RC522 on SPI, polled {1 / POLL_INTERVAL:.0f} times a second)"
        if self.protocol == "hid":
            return f"{self.port} (keyboard mode, layout {self.reader.layout})"
        return f"{self.port} ({self.protocol}, {self.reader.baud} baud)"


def reader_choice(args: argparse.Namespace, *, protocol: str | None = None) -> ReaderChoice:
    config = load_config(getattr(args, "config", None))
    base = config.reader
    if getattr(args, "pad", None):
        pads = {pad.name: pad.reader for pad in config.pads}
        if args.pad not in pads:
            raise UserError(f"no [pads.{args.pad}] in the config; pads: {', '.join(pads) or 'none'}", EX_USAGE)
        base = pads[args.pad]
    chosen = protocol or getattr(args, "protocol", None) or base.protocol
    baud = args.baudrate or (base.baudrate if chosen == base.protocol else None)
    port = args.port or base.port
    if chosen == "rc522" and not args.port and base.protocol != "rc522":  # --protocol rc522: SPI0 CE0's device
        port = spidev_path(base.bus, base.device)
    return ReaderChoice(
        reader=dataclasses.replace(base, protocol=chosen, port=port, baudrate=baud,
                                   layout=getattr(args, "layout", None) or base.layout),
        config=config,
        state_dir=Path(args.state_dir or config.state.dir),
    )


def load_bindings(choice: ReaderChoice) -> BindingTable:
    try:
        return BindingTable.load(choice.bindings_file)
    except BindingError as error:
        raise UserError(str(error), EX_DATAERR) from None


def open_configured_reader(
    reader: ReaderConfig, events: queue.Queue[Any], bindings: BindingTable | None, *,
    name: str = "reader", pad: str | None = None, double_reads: DoubleReadFilter | None = None,
) -> SerialReader:
    """The reader ``[reader]`` (or a ``[pads.NAME]``) describes, putting its events on ``events``:
    the one place the config's reader settings are handed to the driver (the referee and the
    reader commands)."""
    return open_reader(
        reader.protocol,
        reader.port,
        events,
        baudrate=reader.baudrate,
        prefix=reader.prefix,
        suffix=reader.suffix,
        double_read_window=reader.double_read_window,
        quiet_gap=reader.quiet_gap,
        max_backoff=reader.max_backoff,
        bindings=bindings,
        layout=reader.layout,
        name=name,
        pad=pad,
        double_reads=double_reads,
    )


def open_table_readers(config: Config, events: queue.Queue[Any], bindings: BindingTable | None) -> list[SerialReader]:
    """Every reader of the table: ``[reader]`` (unless only pads are configured) and each pad,
    all on one queue (FIFO: each reader's taps stay in order) and one double-read filter."""
    windows = [pad.reader.double_read_window for pad in config.pads] + [config.reader.double_read_window]
    shared = DoubleReadFilter(max(windows))
    readers: list[SerialReader] = []
    try:
        if config.table_reader:
            readers.append(open_configured_reader(config.reader, events, bindings, double_reads=shared))
        for pad in config.pads:
            readers.append(open_configured_reader(pad.reader, events, bindings, name=f"pad {pad.name}",
                                                  pad=pad.place, double_reads=shared))
    except BaseException:
        for reader in readers:
            reader.close()
        raise
    return readers


def start_reader(choice: ReaderChoice, events: queue.Queue[Any], bindings: BindingTable | None) -> SerialReader:
    return open_configured_reader(choice.reader, events, bindings)


def events_until(
    events: queue.Queue[Any], seconds: float | None, going: Callable[[], bool] = lambda: True
) -> Iterator[Any]:
    """The reader's events as they come, while ``going()`` and for at most ``seconds`` (None: no
    limit); the loop of ``scan-test`` and ``enroll``, which wake twice a second to check both."""
    deadline = None if seconds is None else time.monotonic() + seconds
    while going():
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            return
        try:
            yield events.get(timeout=min(left, 0.5) if left is not None else 0.5)
        except queue.Empty:
            continue
