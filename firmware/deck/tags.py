"""Programming NTAG213 stickers through a PN532 so they carry their own ``MB-…`` payload.

A tag written this way needs no binding table: the reader reads the NDEF Text record
back (see :mod:`bornes.drivers.readers.ntag`). The writer refuses a tag that already holds a
different payload unless told to overwrite, and verifies every write by reading back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bornes.drivers.readers.bindings import describe_payload
from bornes.drivers.readers.ntag import FIRST_USER_PAGE, NTAG213_CC, decode_text_tlv, encode_text_tlv, pages_of
from bornes.drivers.readers.pn532 import Pn532, Pn532Error, Target


@dataclass(frozen=True, slots=True)
class WriteResult:
    message: str
    written: bool = False
    uid: str | None = None


def read_payload(client: Pn532, target: Target) -> str | None:
    memory = client.ntag_read(target.number, FIRST_USER_PAGE) + client.ntag_read(target.number, FIRST_USER_PAGE + 4)
    return decode_text_tlv(memory)


def write_tag(client: Pn532, target: Target, payload: str, *, overwrite: bool = False) -> WriteResult:
    """Write ``payload`` on one NTAG in the field and read it back."""
    uid = target.uid_hex
    if not target.is_ntag:
        return WriteResult(f"Tag {uid} is not an NTAG21x sticker; use NTAG213 (or enroll it with bornes enroll)")
    try:
        current = read_payload(client, target)
        if current == payload:
            return WriteResult(f"Tag {uid} already holds {payload}; kept", written=True, uid=uid)
        if current is not None and current.startswith("MB-") and not overwrite:
            return WriteResult(f"Refused: tag {uid} already holds {current}; tap a blank one or use --overwrite")
        cc = client.ntag_read(target.number, 3)[:4]
        if cc == bytes(4):  # blank capability container (one-time programmable): make it NDEF
            client.ntag_write(target.number, 3, NTAG213_CC)
        for offset, page in enumerate(pages_of(encode_text_tlv(payload))):
            client.ntag_write(target.number, FIRST_USER_PAGE + offset, page)
        if read_payload(client, target) != payload:
            return WriteResult(f"Tag {uid} did not keep the data (locked?); tap another one")
    except Pn532Error as error:
        return WriteResult(f"Writing tag {uid} failed ({error}); hold it still and tap again")
    return WriteResult(f"Wrote {payload} ({describe_payload(payload)}) on tag {uid}", written=True, uid=uid)


class TagWriter:
    """Walk a list of payloads: one tag per payload, each tag must leave before the next."""

    def __init__(self, client: Pn532, payloads: list[str], *, overwrite: bool = False) -> None:
        self.client = client
        self.payloads = payloads
        self.overwrite = overwrite
        self.index = 0
        self._last_uid: str | None = None  # the tag just written must leave the field first

    @property
    def current(self) -> str | None:
        return self.payloads[self.index] if self.index < len(self.payloads) else None

    def prompt(self) -> str:
        current = self.current
        if current is None:
            return "All done."
        return f"Tap a blank NTAG213 for: {describe_payload(current)}   [{self.index + 1}/{len(self.payloads)}]"

    def poll(self, say: Callable[[str], None]) -> None:
        """One poll of the field; reports through ``say``."""
        current = self.current
        if current is None:
            return
        targets = self.client.list_targets(2)
        if not targets:
            self._last_uid = None
            return
        if len(targets) > 1:
            if self._last_uid != "many":
                say("One card at a time: take all but one tag out of the field")
            self._last_uid = "many"
            return
        target = targets[0]
        if target.uid_hex == self._last_uid:
            return
        self._last_uid = target.uid_hex
        result = write_tag(self.client, target, current, overwrite=self.overwrite)
        say(result.message)
        if result.written:
            self.index += 1
            if self.current is not None:
                say(self.prompt())
