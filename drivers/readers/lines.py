"""Line protocol: barcode scanners in USB-COM/CDC mode and microcontroller bridges.

One payload per line, ended by CR, LF or CRLF. The buffer never holds more than
``max_line`` bytes: an over-long line is thrown away up to its terminator, so a stream
that never ends a line cannot grow memory.
"""

from __future__ import annotations

from bornes.drivers.readers.base import DecoderStats, Reading

_TERMINATORS = b"\r\n"
_EDGE_JUNK = "".join(chr(c) for c in range(0x20)) + " \x7f"


class LineDecoder:
    """Split a byte stream into payload lines, stripping an optional prefix and suffix."""

    def __init__(self, prefix: str = "", suffix: str = "", max_line: int = 128) -> None:
        self.prefix = prefix
        self.suffix = suffix
        self.max_line = max_line
        self.stats = DecoderStats()
        self._buffer = bytearray()
        self._discarding = False  # inside an over-long line: drop until the next terminator

    def reset(self) -> None:
        """Forget a partial line (after a reconnect the rest of it is never coming)."""
        self._buffer.clear()
        self._discarding = False

    def feed(self, data: bytes) -> list[Reading]:
        out: list[Reading] = []
        for byte in data:
            if byte in _TERMINATORS:
                if self._discarding:
                    self._discarding = False
                elif self._buffer:
                    reading = self._finish(bytes(self._buffer))
                    if reading is not None:
                        out.append(reading)
                self._buffer.clear()
            elif self._discarding:
                self.stats.garbage_bytes += 1
            elif len(self._buffer) >= self.max_line:
                self.stats.overflows += 1
                self.stats.garbage_bytes += len(self._buffer) + 1
                self._buffer.clear()
                self._discarding = True
            else:
                self._buffer.append(byte)
        return out

    def _finish(self, line: bytes) -> Reading | None:
        # Scanners may frame codes with STX/ETX or NUL padding (reportlab's DataMatrix pads with NUL).
        text = line.decode("latin-1").strip(_EDGE_JUNK)
        if self.prefix and text.startswith(self.prefix):
            text = text[len(self.prefix) :]
        if self.suffix and text.endswith(self.suffix):
            text = text[: -len(self.suffix)]
        text = text.strip(_EDGE_JUNK)
        if not text:
            return None
        if not all(0x21 <= ord(ch) <= 0x7E or ch == " " for ch in text):
            self.stats.garbage_bytes += len(line)
            return None
        self.stats.good += 1
        return Reading(text)
