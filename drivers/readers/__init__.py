"""Card readers over serial: barcode/bridge lines, EM4100 125 kHz, PN532 NFC.

The appliance calls :func:`open_reader` with the ``[reader]`` section of its config;
the reader thread puts :mod:`bornes.drivers.events` events on the queue and nothing else.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Mapping
from typing import Any

from bornes.drivers.parts import DEFAULT_BAUDRATE, PROTOCOLS
from bornes.drivers.readers.bindings import BindingError, BindingTable, bindings_path
from bornes.drivers.readers.em4100 import Em4100Decoder
from bornes.drivers.readers.lines import LineDecoder
from bornes.drivers.readers.presence import PresenceTracker
from bornes.drivers.readers.resolver import CardResolver
from bornes.drivers.readers.serial_reader import Link, PassiveLink, Pn532Link, SerialFactory, SerialReader, open_serial

__all__ = [
    "DEFAULT_BAUDRATE",
    "PROTOCOLS",
    "BindingError",
    "BindingTable",
    "CardResolver",
    "ReaderConfigError",
    "SerialReader",
    "bindings_path",
    "make_link",
    "open_reader",
]


class ReaderConfigError(ValueError):
    """A [reader] setting that cannot work (unknown protocol, bad number)."""


def make_link(protocol: str, *, prefix: str = "", suffix: str = "", quiet_gap: float = 0.5) -> Link:
    """The loop body for a protocol name from the config file."""
    if protocol == "lines":
        return PassiveLink(LineDecoder(prefix=prefix, suffix=suffix))
    if protocol == "em4100":
        return PassiveLink(Em4100Decoder(), PresenceTracker(quiet_gap))
    if protocol == "pn532":
        return Pn532Link(PresenceTracker(quiet_gap))
    raise ReaderConfigError(f"unknown reader protocol {protocol!r}; choose one of {', '.join(PROTOCOLS)}")


def open_reader(
    protocol: str,
    port: str,
    events: queue.Queue[Any],
    *,
    baudrate: int | None = None,
    prefix: str = "",
    suffix: str = "",
    double_read_window: float = 1.5,
    quiet_gap: float = 0.5,
    max_backoff: float = 1.0,
    bindings: BindingTable | Mapping[str, str] | None = None,
    name: str = "reader",
    monotonic: Callable[[], float] = time.monotonic,
    serial_factory: SerialFactory = open_serial,
) -> SerialReader:
    """Build and start a reader thread; call ``close()`` on it when done."""
    link = make_link(protocol, prefix=prefix, suffix=suffix, quiet_gap=quiet_gap)
    for label, value in (("double_read_window", double_read_window), ("quiet_gap", quiet_gap)):
        if value < 0:
            raise ReaderConfigError(f"{label} must be 0 or more seconds, not {value}")
    if max_backoff < 0.1:
        raise ReaderConfigError(f"max_backoff must be at least 0.1 seconds, not {max_backoff}")
    reader = SerialReader(
        port,
        events,
        link,
        baudrate=baudrate or DEFAULT_BAUDRATE[protocol],
        name=name,
        resolver=CardResolver(bindings, reader=name),
        double_read_window=double_read_window,
        max_backoff=max_backoff,
        read_timeout=0.05 if protocol == "pn532" else 1.0,  # close() cancels a waiting read: no need to wake
        monotonic=monotonic,
        serial_factory=serial_factory,
    )
    return reader.start()
