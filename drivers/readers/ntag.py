"""The payload format on NTAG213 stickers: one NDEF Text record holding ``MB-…``.

Layout from page 4 (user memory): TLV ``03 <len>`` + NDEF record + terminator TLV ``FE``.
The record is a short well-known Text record (``D1 01 <n> 'T' 02 'en' <text>``), so
any phone NFC app shows the code too. :func:`encode_text_tlv` is what ``bornes tags write``
puts on the tag and :func:`decode_text_tlv` is what the reader reads back.
"""

from __future__ import annotations

PAGE_SIZE = 4
FIRST_USER_PAGE = 4
NTAG213_USER_PAGES = 36  # pages 4..39, 144 bytes
#: Capability container of an NTAG213 (NFC Forum Type 2, 144 bytes of data area).
NTAG213_CC = bytes([0xE1, 0x10, 0x12, 0x00])
#: Pages read back by the reader: 2 READs of 4 pages each hold every MB- payload.
READ_PAGES = 8

_TEXT_TYPE = b"T"
_LANG = b"en"


def encode_text_tlv(text: str) -> bytes:
    """NDEF message TLV with one Text record, padded with zeros to whole pages."""
    data = text.encode("utf-8")
    payload = bytes([len(_LANG)]) + _LANG + data  # status byte: UTF-8, language length
    if len(payload) > 255:
        raise ValueError("text too long for a short NDEF record")
    record = bytes([0xD1, len(_TEXT_TYPE), len(payload)]) + _TEXT_TYPE + payload
    tlv = bytes([0x03, len(record)]) + record + b"\xfe"
    if len(tlv) > NTAG213_USER_PAGES * PAGE_SIZE:
        raise ValueError("text too long for an NTAG213")
    padding = (-len(tlv)) % PAGE_SIZE
    return tlv + bytes(padding)


def pages_of(blob: bytes) -> list[bytes]:
    """Split page-aligned bytes into 4-byte pages."""
    return [blob[i : i + PAGE_SIZE] for i in range(0, len(blob), PAGE_SIZE)]


def decode_text_tlv(memory: bytes) -> str | None:
    """The text of the first NDEF Text record in user memory, or None (blank or foreign tag)."""
    i = 0
    while i < len(memory):
        tag = memory[i]
        if tag == 0x00:  # NULL TLV
            i += 1
            continue
        if tag == 0xFE or i + 1 >= len(memory):
            return None
        length = memory[i + 1]
        start = i + 2
        if length == 0xFF:  # three-byte length form
            if i + 3 >= len(memory):
                return None
            length = (memory[i + 2] << 8) | memory[i + 3]
            start = i + 4
        if tag == 0x03:
            return _text_from_record(memory[start : start + length])
        i = start + length
    return None


def _text_from_record(record: bytes) -> str | None:
    if len(record) < 3:
        return None
    header = record[0]
    if header & 0x07 != 0x01 or not header & 0x10:  # well-known type, short record
        return None
    type_length = record[1]
    payload_length = record[2]
    offset = 3
    if header & 0x08:  # ID length present
        if len(record) < 4:
            return None
        offset += 1 + record[3]
    rtype = record[offset : offset + type_length]
    payload = record[offset + type_length : offset + type_length + payload_length]
    if rtype != _TEXT_TYPE or len(payload) != payload_length or not payload:
        return None
    lang_length = payload[0] & 0x3F
    body = payload[1 + lang_length :]
    try:
        return body.decode("utf-16" if payload[0] & 0x80 else "utf-8")
    except UnicodeDecodeError:
        return None
