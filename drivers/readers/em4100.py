"""EM4100 125 kHz readers: RDM6300 (14-byte frames) and ID-12LA/ID-20LA (16-byte frames).

Frame: STX, 10 hex digits (version + 4 data bytes), 2 hex digits of XOR checksum,
optionally CR LF (ID-xxLA), ETX. Frames with a bad checksum are dropped and counted.
Repeats while the tag stays in the field are collapsed later by
:class:`bornes.drivers.readers.presence.PresenceTracker`, not here: the decoder has no clock.
"""

from __future__ import annotations

from bornes.drivers.readers.base import DecoderStats, Reading

STX = 0x02
ETX = 0x03
_MAX_FRAME = 16  # STX + 12 hex + CR LF + ETX
_HEX = frozenset(b"0123456789ABCDEFabcdef")


def em4100_frame(uid: str, *, crlf: bool = False, checksum: int | None = None) -> bytes:
    """The frame a reader sends for ``uid`` (10 hex digits); for tests and the docs."""
    data = bytes.fromhex(uid)
    if len(data) != 5:
        raise ValueError("an EM4100 UID is 10 hex digits")
    if checksum is None:
        checksum = 0
        for b in data:
            checksum ^= b
    body = (uid.upper() + f"{checksum:02X}").encode("ascii")
    return bytes([STX]) + body + (b"\r\n" if crlf else b"") + bytes([ETX])


class Em4100Decoder:
    """Find checked frames in an EM4100 byte stream; memory is bounded by one frame."""

    def __init__(self) -> None:
        self.stats = DecoderStats()
        self._frame = bytearray()
        self._in_frame = False

    def reset(self) -> None:
        self._frame.clear()
        self._in_frame = False

    def feed(self, data: bytes) -> list[Reading]:
        out: list[Reading] = []
        for byte in data:
            if byte == STX:
                if self._in_frame:  # a frame cut short: resynchronise on the new STX
                    self.stats.garbage_bytes += len(self._frame) + 1
                self._frame.clear()
                self._in_frame = True
            elif not self._in_frame:
                self.stats.garbage_bytes += 1
            elif byte == ETX:
                reading = self._finish(bytes(self._frame))
                if reading is not None:
                    out.append(reading)
                self._frame.clear()
                self._in_frame = False
            elif len(self._frame) >= _MAX_FRAME - 2:
                self.stats.garbage_bytes += len(self._frame) + 2
                self.stats.overflows += 1
                self._frame.clear()
                self._in_frame = False
            else:
                self._frame.append(byte)
        return out

    def _finish(self, body: bytes) -> Reading | None:
        if body.endswith(b"\r\n"):
            body = body[:-2]
        if len(body) != 12 or not all(b in _HEX for b in body):
            self.stats.garbage_bytes += len(body) + 2
            return None
        values = bytes.fromhex(body.decode("ascii"))
        check = 0
        for b in values[:5]:
            check ^= b
        if check != values[5]:
            self.stats.bad_checksums += 1
            return None
        self.stats.good += 1
        return Reading(values[:5].hex().upper(), is_uid=True)
