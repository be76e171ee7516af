"""10 000 random and mutated frames per protocol: nothing escapes, the next good frame reads.

Each example is a batch of 100 frames, so 100 examples make 10 000 frames per protocol.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bornes.drivers.events import CardScanned, ControlScanned, UnknownScanned
from bornes.drivers.readers.base import Reading
from bornes.drivers.readers.em4100 import Em4100Decoder, em4100_frame
from bornes.drivers.readers.lines import LineDecoder
from bornes.drivers.readers.ntag import decode_text_tlv, encode_text_tlv
from bornes.drivers.readers.pn532 import DataFrame, Pn532Error, Pn532FrameDecoder, build_frame, parse_targets
from bornes.drivers.readers.resolver import CardResolver

BATCH = 100
FUZZ = settings(
    max_examples=100,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
RESOLVER = CardResolver({"0F00A1B2C3": "MB-D100-01", "04A1B2C3D4E5F6": "MB-CMD-OK"})


def mutated(good: st.SearchStrategy[bytes]) -> st.SearchStrategy[bytes]:
    """Good frames, random bytes, and good frames cut, bit-flipped, with bytes dropped or inserted."""

    @st.composite
    def mutate(draw: st.DrawFn) -> bytes:
        frame = bytearray(draw(good))
        how = draw(st.sampled_from(["good", "random", "cut", "flip", "drop", "insert", "double"]))
        if how == "random":
            return draw(st.binary(max_size=40))
        if how == "cut":
            return bytes(frame[: draw(st.integers(0, len(frame)))])
        if how == "double":
            return bytes(frame + frame)
        if not frame:
            return b""
        at = draw(st.integers(0, len(frame) - 1))
        if how == "flip":
            frame[at] ^= 1 << draw(st.integers(0, 7))
        elif how == "drop":
            del frame[at]
        elif how == "insert":
            frame.insert(at, draw(st.integers(0, 255)))
        return bytes(frame)

    return mutate()


def chunked(stream: bytes, sizes: list[int]) -> list[bytes]:
    """Split a stream the way a serial port delivers it: arbitrary pieces."""
    out, i = [], 0
    for size in sizes:
        if i >= len(stream):
            break
        out.append(stream[i : i + size])
        i += size
    out.append(stream[i:])
    return out


CHUNKS = st.lists(st.integers(1, 64), max_size=40)

# -- lines ------------------------------------------------------------------------------

PAYLOADS = st.sampled_from(["MB-D100-07", "MB-CMD-OK", "MB-PUNCTUREPROOF-01", "0F00A1B2C3", "MB-ZZZ-00", "x"])
LINE_FRAMES = mutated(st.builds(lambda p, e: p.encode() + e, PAYLOADS, st.sampled_from([b"\r", b"\n", b"\r\n"])))


@FUZZ
@given(st.lists(LINE_FRAMES, min_size=BATCH, max_size=BATCH), CHUNKS)
def test_lines_fuzz(frames: list[bytes], sizes: list[int]) -> None:
    decoder = LineDecoder(prefix="]C0", max_line=64)
    check_stream(decoder.feed, b"".join(frames) + b"\r\n", b"MB-D200-04\r\n", Reading("MB-D200-04"), sizes)
    assert len(decoder._buffer) <= 64


# -- EM4100 -----------------------------------------------------------------------------

UIDS = st.binary(min_size=5, max_size=5).map(lambda b: b.hex().upper())
EM_FRAMES = mutated(st.builds(lambda u, crlf: em4100_frame(u, crlf=crlf), UIDS, st.booleans()))


@pytest.mark.slow
@FUZZ
@given(st.lists(EM_FRAMES, min_size=BATCH, max_size=BATCH), CHUNKS)
def test_em4100_fuzz(frames: list[bytes], sizes: list[int]) -> None:
    decoder = Em4100Decoder()
    good = em4100_frame("0F00A1B2C3", crlf=True)
    check_stream(decoder.feed, b"".join(frames), good, Reading("0F00A1B2C3", is_uid=True), sizes)
    assert len(decoder._frame) <= 16


# -- PN532 ------------------------------------------------------------------------------

TFIS = st.sampled_from([0xD4, 0xD5])
PN_FRAMES = mutated(st.builds(lambda d, t: build_frame(d, tfi=t), st.binary(max_size=40), TFIS))


@pytest.mark.slow
@FUZZ
@given(st.lists(PN_FRAMES, min_size=BATCH, max_size=BATCH), CHUNKS)
def test_pn532_fuzz(frames: list[bytes], sizes: list[int]) -> None:
    decoder = Pn532FrameDecoder()
    answer = bytes([0x4B, 0x01, 0x01, 0x00, 0x44, 0x00, 0x07, 4, 1, 2, 3, 4, 5, 6])
    # 300 idle zero bytes complete any half-received frame header, as a quiet line does.
    stream = b"".join(frames) + bytes(300)
    check_stream(decoder.feed, stream, build_frame(answer, tfi=0xD5), DataFrame(0xD5, answer), sizes)
    assert len(decoder._buffer) <= 600
    for frame in frames:  # the answer parsers must fail only with their own error
        with contextlib.suppress(Pn532Error):
            parse_targets(frame[5:])
        decode_text_tlv(frame)


@pytest.mark.slow  # the fast tier's fuzzer is the lines decoder's, the one every barcode scanner uses
@FUZZ
@given(st.lists(mutated(st.builds(encode_text_tlv, PAYLOADS)), min_size=BATCH, max_size=BATCH))
def test_ntag_memory_fuzz(blobs: list[bytes]) -> None:
    """Damaged tag memory gives text or None, and that text resolves to a scan event, never an error."""
    for blob in blobs:
        text = decode_text_tlv(blob)
        assert text is None or isinstance(text, str)
        if text is not None:
            assert isinstance(RESOLVER.resolve(text), CardScanned | ControlScanned | UnknownScanned)


def check_stream(
    feed: Callable[[bytes], list[Any]], garbage: bytes, good: bytes, expected: object, sizes: list[int]
) -> None:
    out: list[Any] = []
    for piece in chunked(garbage + good, sizes):
        out.extend(feed(piece))
    for item in out:
        if isinstance(item, Reading):
            RESOLVER.resolve(item.raw, is_uid=item.is_uid)  # never raises either
    assert out and out[-1] == expected
