"""Command-line options shared by the reader commands (scan-test, enroll, tags).

Values come from the ``[reader]`` and ``[state]`` sections of the config file unless a
person overrides them on the command line, so ``bornes scan-test`` tests exactly the
reader the referee will use.
"""

from __future__ import annotations

import argparse
import queue
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from drivers.readers import (
    DEFAULT_BAUDRATE,
    PROTOCOLS,
    BindingError,
    BindingTable,
    SerialReader,
    bindings_path,
    open_reader,
)
from firmware.config import Config, add_config_argument, load_config
from firmware.errors import EX_DATAERR, UserError


def add_reader_arguments(parser: argparse.ArgumentParser, *, protocol: bool = True) -> None:
    add_config_argument(parser)
    parser.add_argument("--port", help="serial device or pyserial URL (default: reader.port in the config)")
    if protocol:
        parser.add_argument("--protocol", choices=PROTOCOLS, help="reader protocol (default: reader.protocol)")
    parser.add_argument("--baudrate", type=int, help="serial speed (default: the config, else the protocol's usual)")
    parser.add_argument("--state-dir", help="where the binding table lives (default: state.dir in the config)")


@dataclass(frozen=True, slots=True)
class ReaderChoice:
    protocol: str
    port: str
    baudrate: int | None
    config: Config
    state_dir: Path

    @property
    def bindings_file(self) -> Path:
        return bindings_path(self.state_dir)

    def describe(self) -> str:
        return f"{self.port} ({self.protocol}, {self.baudrate or DEFAULT_BAUDRATE[self.protocol]} baud)"


def reader_choice(args: argparse.Namespace, *, protocol: str | None = None) -> ReaderChoice:
    config = load_config(getattr(args, "config", None))
    chosen = protocol or getattr(args, "protocol", None) or config.reader.protocol
    baud = args.baudrate or (config.reader.baudrate if chosen == config.reader.protocol else None)
    return ReaderChoice(
        protocol=chosen,
        port=args.port or config.reader.port,
        baudrate=baud,
        config=config,
        state_dir=Path(args.state_dir or config.state.dir),
    )


def load_bindings(choice: ReaderChoice) -> BindingTable:
    try:
        return BindingTable.load(choice.bindings_file)
    except BindingError as error:
        raise UserError(str(error), EX_DATAERR) from None


def start_reader(choice: ReaderChoice, events: queue.Queue[Any], bindings: BindingTable | None) -> SerialReader:
    r = choice.config.reader
    return open_reader(
        choice.protocol,
        choice.port,
        events,
        baudrate=choice.baudrate,
        prefix=r.prefix,
        suffix=r.suffix,
        double_read_window=r.double_read_window,
        quiet_gap=r.quiet_gap,
        max_backoff=r.max_backoff,
        bindings=bindings,
    )
