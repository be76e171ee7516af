"""Every malformed message becomes one line, never an exception the receiver did not expect."""

from __future__ import annotations

import json

import pytest

from bornes.firmware.club import topics


def test_round_trip() -> None:
    payload = topics.encode("action", game=3, created="2026-01-01T00:00:00+00:00", seq=0, line="A:MB-ROLL-01")
    data = topics.decode(payload, "action", topics.ACTION_FIELDS)
    assert data["v"] == topics.VERSION and data["seq"] == 0


@pytest.mark.parametrize("payload, words", [
    (b"\xff\xfe", "not JSON"),
    (b"[1, 2]", "not a JSON object"),
    (json.dumps({"v": 2, "type": "action"}).encode(), "version 2"),
    (json.dumps({"v": 1, "type": "live"}).encode(), "type 'live'"),
    (json.dumps({"v": 1, "type": "action", "game": True, "created": "x", "seq": 0, "line": "x"}).encode(), "'game'"),
    (json.dumps({"v": 1, "type": "action", "game": 1, "created": "x", "seq": "0", "line": "x"}).encode(), "'seq'"),
    (b"{" + b" " * topics.MAX_PAYLOAD + b"}", "limit"),
    # Round two, finding 1: numbers strict JSON has no word for, or past anything real (SQLite overflowed).
    (b'{"v":1,"type":"action","game":NaN,"created":"x","seq":0,"line":"x"}', "not strict JSON"),
    (b'{"v":1,"type":"action","game":1,"created":"x","seq":1e400,"line":"x"}', "not strict JSON"),
    (b'{"v":1,"type":"action","game":1,"created":"x","seq":-Infinity,"line":"x"}', "not strict JSON"),
    (b'{"v":1,"type":"action","game":100000000000000000000000000000,"created":"x","seq":0,"line":"x"}',
     "out of range"),
])
def test_bad_messages_are_one_line(payload: bytes, words: str) -> None:
    with pytest.raises(topics.BadMessage) as caught:
        topics.decode(payload, "action", topics.ACTION_FIELDS)
    assert words in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("name", ["bornes/club", "other/club/t1/live", "bornes/club/t 1/live", "bornes/c/t/x/y"])
def test_bad_topics(name: str) -> None:
    with pytest.raises(topics.BadMessage):
        topics.parse_topic(name)


def test_ids() -> None:
    assert topics.check_id("table", "t-12_b") == "t-12_b"
    for bad in ("", "board", "a/b", "a+b", "x" * 33):
        with pytest.raises(ValueError):
            topics.check_id("table", bad)
