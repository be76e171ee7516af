"""Card readers: over serial (barcode/bridge lines, EM4100 125 kHz, PN532 NFC), keyboard-mode
USB readers through evdev (``hid``: barcode scanners and 125 kHz RFID readers that type), and the
RC522 (an MFRC522 on the Pi's SPI header, ``rc522``).

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
from bornes.drivers.readers.presence import DoubleReadFilter, PresenceTracker
from bornes.drivers.readers.resolver import CardResolver
from bornes.drivers.readers.serial_reader import Link, PassiveLink, Pn532Link, SerialFactory, SerialReader, open_serial

__all__ = [
    "DEFAULT_BAUDRATE",
    "PROTOCOLS",
    "BindingError",
    "BindingTable",
    "CardResolver",
    "DoubleReadFilter",
    "ReaderConfigError",
    "SerialReader",
    "bindings_path",
    "make_link",
    "open_reader",
]


class ReaderConfigError(ValueError):
    """A [reader] setting that cannot work (unknown protocol, bad number)."""


def make_link(protocol: str, *, prefix: str = "", suffix: str = "", quiet_gap: float = 0.5,
              layout: str = "auto") -> Link:
    """The loop body for a protocol name from the config file."""
    if protocol == "hid":
        from bornes.drivers.readers.hid import HidDecoder
        from bornes.drivers.readers.hid_device import HidLink

        try:
            return HidLink(HidDecoder(layout))
        except ValueError as error:
            raise ReaderConfigError(str(error)) from None
    if protocol == "lines":
        return PassiveLink(LineDecoder(prefix=prefix, suffix=suffix))
    if protocol == "em4100":
        return PassiveLink(Em4100Decoder(), PresenceTracker(quiet_gap))
    if protocol == "pn532":
        return Pn532Link(PresenceTracker(quiet_gap))
    if protocol == "rc522":
        from bornes.drivers.readers.rc522 import Rc522Link

        return Rc522Link(quiet_gap)
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
    serial_factory: SerialFactory | None = None,
    layout: str = "auto",
    pad: str | None = None,
    double_reads: DoubleReadFilter | None = None,
) -> SerialReader:
    """Build and start a reader thread; call ``close()`` on it when done.

    ``pad`` is where the reader lies (a seat letter, ``table`` or ``discard``; None: the table's
    one reader) and goes on every scan. Readers of one table share ``double_reads``, so one card
    seen by two pads within the window is one card.
    """
    link = make_link(protocol, prefix=prefix, suffix=suffix, quiet_gap=quiet_gap, layout=layout)
    if serial_factory is None:
        if protocol == "hid":
            from bornes.drivers.readers.hid_device import open_hid

            serial_factory = open_hid
        elif protocol == "rc522":
            from bornes.drivers.readers.spidev import open_spidev

            serial_factory = open_spidev
        else:
            serial_factory = open_serial
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
        resolver=CardResolver(bindings, reader=name, pad=pad),
        double_read_window=double_read_window,
        double_reads=double_reads,
        max_backoff=max_backoff,
        read_timeout=0.05 if protocol in ("pn532", "rc522") else 1.0,  # close() cancels a waiting read
        monotonic=monotonic,
        serial_factory=serial_factory,
    )
    return reader.start()
