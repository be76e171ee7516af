"""Pure decoders: lines, EM4100, PN532 frames, NTAG payloads, and the time filters."""

from __future__ import annotations

import pytest

from bornes.drivers.events import UnknownKind, UnknownScanned
from bornes.drivers.readers.base import Reading
from bornes.drivers.readers.em4100 import Em4100Decoder, em4100_frame
from bornes.drivers.readers.lines import LineDecoder
from bornes.drivers.readers.ntag import decode_text_tlv, encode_text_tlv
from bornes.drivers.readers.pn532 import (
    ACK_FRAME,
    NACK_FRAME,
    Ack,
    DataFrame,
    ErrorFrame,
    Nack,
    Pn532FrameDecoder,
    build_frame,
    parse_targets,
)
from bornes.drivers.readers.presence import DoubleReadFilter, PresenceTracker
from bornes.drivers.readers.resolver import CardResolver


@pytest.mark.parametrize("ending", [b"\r", b"\n", b"\r\n"])
def test_lines_accept_every_line_ending(ending: bytes) -> None:
    decoder = LineDecoder()
    assert decoder.feed(b"MB-D100-07" + ending + b"MB-CMD-OK" + ending) == [Reading("MB-D100-07"), Reading("MB-CMD-OK")]


def test_lines_split_anywhere_and_strip_prefix_suffix() -> None:
    decoder = LineDecoder(prefix="]C0", suffix="#")
    out = [r for b in b"]C0MB-STOP-02#\r\n" for r in decoder.feed(bytes([b]))]
    assert out == [Reading("MB-STOP-02")]


def test_lines_are_bounded_and_recover_after_an_endless_line() -> None:
    decoder = LineDecoder(max_line=64)
    for _ in range(1000):
        assert decoder.feed(b"X" * 1000) == []
        assert len(decoder._buffer) <= 64
    assert decoder.feed(b"tail\nMB-ROLL-14\n") == [Reading("MB-ROLL-14")]
    assert decoder.stats.overflows == 1
    assert decoder.stats.garbage_bytes >= 1000 * 1000


def test_lines_drop_binary_garbage() -> None:
    decoder = LineDecoder()
    assert decoder.feed(b"\x00\xff\x07abc\r\nMB-D25-01\n") == [Reading("MB-D25-01")]
    assert decoder.stats.garbage_bytes > 0


@pytest.mark.parametrize("crlf", [False, True], ids=["rdm6300", "id-12la"])
def test_em4100_frames(crlf: bool) -> None:
    frame = em4100_frame("0F00A1B2C3", crlf=crlf)
    assert len(frame) == (16 if crlf else 14)
    decoder = Em4100Decoder()
    assert decoder.feed(frame) == [Reading("0F00A1B2C3", is_uid=True)]


def test_em4100_bad_checksum_dropped_and_counted_then_next_reads() -> None:
    decoder = Em4100Decoder()
    bad = em4100_frame("0F00A1B2C3", checksum=0x00)
    assert decoder.feed(bad) == []
    assert decoder.stats.bad_checksums == 1
    assert decoder.feed(b"\x02\x02garbage" + em4100_frame("1122334455")) == [Reading("1122334455", is_uid=True)]


def test_em4100_split_frame_and_resync_on_stx() -> None:
    decoder = Em4100Decoder()
    frame = em4100_frame("0A0B0C0D0E", crlf=True)
    assert decoder.feed(frame[:5]) == []
    assert decoder.feed(frame[:7]) == []  # the first frame is cut short by a new STX
    assert decoder.feed(frame[7:]) == [Reading("0A0B0C0D0E", is_uid=True)]
    assert decoder.feed(b"\x02" + b"1" * 40 + em4100_frame("0A0B0C0D0E")) == [Reading("0A0B0C0D0E", is_uid=True)]


def test_pn532_frames_round_trip_and_checksums() -> None:
    decoder = Pn532FrameDecoder()
    response = build_frame(bytes([0x4B, 0x00]), tfi=0xD5)
    stream = ACK_FRAME + b"\x55\x13" + NACK_FRAME + response + bytes([0x00, 0x00, 0xFF, 0x01, 0xFF, 0x7F, 0x81, 0x00])
    assert decoder.feed(stream) == [Ack(), Nack(), DataFrame(0xD5, bytes([0x4B, 0x00])), ErrorFrame()]
    corrupt = bytearray(response)
    corrupt[-2] ^= 0x01  # DCS
    bad_len = bytearray(response)
    bad_len[4] ^= 0x10  # LCS
    assert decoder.feed(bytes(corrupt) + bytes(bad_len) + response) == [DataFrame(0xD5, bytes([0x4B, 0x00]))]
    assert decoder.stats.bad_checksums == 2


def test_pn532_frame_split_byte_by_byte() -> None:
    decoder = Pn532FrameDecoder()
    frame = build_frame(bytes([0x41, 0x00]) + bytes(range(16)), tfi=0xD5)
    out = [f for b in frame for f in decoder.feed(bytes([b]))]
    assert out == [DataFrame(0xD5, bytes([0x41, 0x00]) + bytes(range(16)))]


def test_pn532_targets() -> None:
    data = bytes([2, 1, 0x00, 0x44, 0x00, 7]) + bytes(range(7)) + bytes([2, 0x00, 0x04, 0x08, 4]) + b"\xde\xad\xbe\xef"
    first, second = parse_targets(data)
    assert first.uid_hex == "00010203040506" and first.is_ntag
    assert second.uid_hex == "DEADBEEF" and not second.is_ntag


@pytest.mark.parametrize("text", ["MB-D100-07", "MB-PUNCTUREPROOF-01", "MB-CMD-DISCARD"])
def test_ntag_text_round_trip(text: str) -> None:
    blob = encode_text_tlv(text)
    assert len(blob) % 4 == 0 and len(blob) <= 32  # fits the two READs the reader does
    assert decode_text_tlv(blob + bytes(8)) == text


def test_ntag_blank_and_foreign_memory() -> None:
    assert decode_text_tlv(bytes(32)) is None
    assert decode_text_tlv(bytes([0x03, 0x00, 0xFE]) + bytes(29)) is None
    uri = bytes([0x03, 0x0B, 0xD1, 0x01, 0x07, 0x55, 0x04]) + b"ab.com" + b"\xfe"
    assert decode_text_tlv(uri) is None
    assert decode_text_tlv(bytes([0x01, 0x03, 0xA0, 0x10, 0x44]) + encode_text_tlv("MB-STOP-01")) == "MB-STOP-01"


def test_presence_collapses_repeats_until_the_tag_leaves() -> None:
    presence = PresenceTracker(quiet_gap=0.5)
    assert presence.observe("A", 0.0)
    assert not any(presence.observe("A", t / 10) for t in range(1, 50))  # held for 5 s
    assert presence.observe("A", 5.7)  # 0.8 s quiet: a new arrival
    assert presence.observe("B", 5.8)
    assert presence.observe("A", 5.9)
    presence.clear()
    assert presence.observe("A", 6.0)


def test_double_read_window() -> None:
    double = DoubleReadFilter(window=1.5)
    assert double.accept("X", 0.0)
    assert not double.accept("X", 1.0)
    assert not double.accept("X", 2.0)  # each sighting restarts the window
    assert double.accept("Y", 2.1)
    assert double.accept("X", 3.6)
    for i in range(10_000):
        double.accept(f"Z{i}", 4.0 + i * 0.0001)
    assert len(double._last) <= double.max_entries


@pytest.mark.parametrize(("raw", "is_uid", "kind"), [
    ("04A1B2C3D4E5F7", True, UnknownKind.NOT_ENROLLED),
    ("hello there", False, UnknownKind.NOT_A_CARD_CODE),
    ("MB-CMD-JUMP", False, UnknownKind.UNKNOWN_CONTROL),
    ("MB-NOPE-01", False, UnknownKind.BAD_CARD_CODE),
])
def test_unknown_scans_say_why_as_a_kind(raw: str, is_uid: bool, kind: UnknownKind) -> None:
    """Code acts on the kind (``bornes enroll`` binds NOT_ENROLLED tags), never on the words."""
    event = CardResolver({"0F00A1B2C3": "MB-D100-01"}).resolve(raw, is_uid=is_uid)
    assert isinstance(event, UnknownScanned)
    assert event.kind is kind and event.raw
