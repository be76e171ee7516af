"""The club's topic tree and message formats, shared by the bridge and the board (docs/club.md).

Every message is one JSON object with ``"v": 1``. A message that is not valid JSON, is larger
than :data:`MAX_PAYLOAD`, has another version or lacks a field raises :class:`BadMessage`, which
the receiver logs in one line and otherwise ignores.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

VERSION = 1
ROOT = "bornes"
#: The board refuses anything larger (a whole game record is about 5 KB; 64 KiB leaves room for long games).
MAX_PAYLOAD = 64 * 1024
#: A club or table id: what a person types in a config file, safe in a topic and an ACL pattern.
ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$")
BOARD_USER = "board"  # reserved: no table may be called this

# What a table publishes (its own topics only, by the broker's ACL):
STATUS = "status"  # retained: the bridge online/offline (last will), the last assignment forwarded
LIVE = "live"  # retained: the table as it stands
ACTION = "action"  # QoS 1: every accepted action, numbered
RESULT = "result"  # QoS 1: a finished game, its result and whole record, until the board confirms it
TABLE_TOPICS = (STATUS, LIVE, ACTION, RESULT)
# What the board publishes to a table:
ASSIGNMENT = "assignment"  # retained: the table's next game (names, edition, options)
RECEIPT = "receipt"  # QoS 1: "I have stored game N's result", so the bridge can stop resending it


class BadMessage(ValueError):
    """A message the receiver cannot use; the text is the one line it logs."""


def check_id(kind: str, value: str) -> str:
    if not ID_PATTERN.match(value) or value == BOARD_USER:
        raise ValueError(
            f"{kind} id {value!r} must be 1-32 letters, digits, '-' or '_' (and not {BOARD_USER!r})"
        )
    return value


def topic(club: str, table: str, leaf: str) -> str:
    return f"{ROOT}/{club}/{table}/{leaf}"


@dataclass(frozen=True, slots=True)
class Address:
    """Where a message came from: ``bornes/<club>/<table>/<leaf>``."""

    club: str
    table: str
    leaf: str


def parse_topic(name: str) -> Address:
    parts = name.split("/")
    if len(parts) != 4 or parts[0] != ROOT or not all(ID_PATTERN.match(p) for p in parts[1:3]):
        raise BadMessage(f"topic {name[:120]!r} is not bornes/<club>/<table>/<leaf>")
    return Address(parts[1], parts[2], parts[3])


def encode(kind: str, **fields: Any) -> bytes:
    """One message as strict JSON: a ``NaN`` or an infinity is a ``ValueError`` here, never a token on the wire."""
    return json.dumps({"v": VERSION, "type": kind, **fields}, ensure_ascii=False, separators=(",", ":"),
                      allow_nan=False).encode()


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e400 reads as inf: JSON has no infinity
        raise ValueError(f"{text[:40]} is out of range")
    return value


def strict_loads(payload: bytes | str) -> Any:
    """JSON as RFC 8259 has it: ``NaN``, ``Infinity`` and numbers past a float's range are errors (Python's
    ``json.loads`` takes all three), so nothing read here can make a strict JSON writer fail later."""
    return json.loads(payload, parse_constant=_no_constant, parse_float=_finite)


def decode(payload: bytes, kind: str, required: dict[str, type | tuple[type, ...]]) -> dict[str, Any]:
    """Parse and check one message; every problem is a one-line :class:`BadMessage`."""
    if len(payload) > MAX_PAYLOAD:
        raise BadMessage(f"{kind} message of {len(payload)} bytes is over the {MAX_PAYLOAD}-byte limit")
    try:
        data = strict_loads(payload)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise BadMessage(f"{kind} message is not JSON ({error})") from None
    except ValueError as error:  # NaN, Infinity, 1e400, an integer of more than 4300 digits
        raise BadMessage(f"{kind} message is not strict JSON ({error})") from None
    except RecursionError:  # 64 KiB of "[" nests deeper than Python's parser goes
        raise BadMessage(f"{kind} message nests too deep") from None
    if not isinstance(data, dict):
        raise BadMessage(f"{kind} message is not a JSON object")
    if data.get("v") != VERSION:
        raise BadMessage(f"{kind} message has version {data.get('v')!r}; this board speaks {VERSION}")
    if data.get("type") != kind:
        raise BadMessage(f"message of type {data.get('type')!r} on a {kind} topic")
    for name, types in required.items():
        value = data.get(name)
        # bool is an int in Python; a count or id given as true/false is still wrong.
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in _tuple(types)):
            raise BadMessage(f"{kind} message: field {name!r} is missing or not {_names(types)}")
        # A game number or a count past any real one (SQLite's integers end at 2**63: no overflow on the way in).
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > _LARGEST:
            raise BadMessage(f"{kind} message: field {name!r} is out of range")
    return data


def _tuple(types: type | tuple[type, ...]) -> tuple[type, ...]:
    return types if isinstance(types, tuple) else (types,)


def _names(types: type | tuple[type, ...]) -> str:
    return " or ".join(t.__name__ for t in _tuple(types))


# Required fields per message, checked by :func:`decode` (docs/club.md lists them all).
ACTION_FIELDS: dict[str, type | tuple[type, ...]] = {"game": int, "created": str, "seq": int, "line": str}
RESULT_FIELDS: dict[str, type | tuple[type, ...]] = {
    "game": int, "created": str, "edition": str, "teams": bool, "sides": list, "tie": bool, "record": str,
}
LIVE_FIELDS: dict[str, type | tuple[type, ...]] = {"status": str, "sides": list, "action_count": int}
STATUS_FIELDS: dict[str, type | tuple[type, ...]] = {"online": bool}
ASSIGNMENT_FIELDS: dict[str, type | tuple[type, ...]] = {
    "id": str, "edition": str, "names": list, "teams": (bool, type(None)), "dealer": int, "options": dict,
}
RECEIPT_FIELDS: dict[str, type | tuple[type, ...]] = {"game": int, "created": str}


# -- the live table, field by field (the board shows every one of them) -------------------------------

_TEXT = 400  # the longest text a live message may carry in one field (a turn line, an edition title)
_LARGEST = 10**9  # a count, miles, points: larger is no Mille Bornes number
_LATEST = 10**10  # ``at``, seconds since 1970: the year 2286
_TIME = "time"  # a field kind: seconds since 1970, a whole or a decimal number, 0 to _LATEST
_INT = (int,)
_Schema = dict[str, Any]
_SAFETY: _Schema = {"name": (str, True), "coup_fourre": (bool, False), "kind": (str, False)}
_SIDE: _Schema = {
    "name": (str, True), "miles": (int, True), "hand_points": (int, True), "total": (int, True),
    "turn": (bool, False), "limit": (bool, False), "battle": (str, False), "battle_words": (str, False),
    "index": (int, False), "seats": (str, False), "trip": (int, False), "players": ([str], False),
    "safeties": ([_SAFETY], True),
}
_ACTION_WORDS: _Schema = {"n": (int, False), "text": (str, True)}
LIVE_SCHEMA: _Schema = {
    "v": (int, True), "type": (str, True), "status": (str, True), "action_count": (int, True), "sides": ([_SIDE], True),
    "game_id": ((int, type(None)), False), "created": ((str, type(None)), False), "at": (_TIME, False),
    "edition": (str, False), "edition_title": (str, False), "language": (str, False), "unit": (str, False),
    "hand": (int, False), "dealer": (str, False), "phase": (str, False), "turn": (str, False),
    "to_act": ([str], False), "turn_text": (str, False), "trip": (int, False), "draw_pile": (int, False),
    "over": (bool, False), "winner": ((str, type(None)), False), "tie": (bool, False),
    "last_actions": ([_ACTION_WORDS], False), "hands_scored": (int, False),
}


_ASSIGNMENT_STATE: _Schema = {"id": (str, True), "ok": (bool, True), "error": (str, False),
                               "waiting": (bool, False)}
STATUS_SCHEMA: _Schema = {
    "v": (int, True), "type": (str, True), "online": (bool, True),
    "assignment": ((_ASSIGNMENT_STATE, type(None)), False), "journal": ((str, type(None)), False),
    "web": ((str, type(None)), False),
}


def check_status(data: dict[str, Any]) -> dict[str, Any]:
    """A bridge's status, field by field, as :func:`check_live` (the Rounds page reads its assignment)."""
    return _check_object(data, STATUS_SCHEMA, "status message")


def check_live(data: dict[str, Any]) -> dict[str, Any]:
    """Every field the board may show has its type, texts are short, numbers are numbers (not markup).

    Unknown fields are dropped, so nothing unchecked is stored or sent to a page.
    """
    return _check_object(data, LIVE_SCHEMA, "live message")


def _check_object(data: Any, schema: _Schema, where: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise BadMessage(f"{where} is not an object")
    out: dict[str, Any] = {}
    for name, (kind, required) in schema.items():
        if name not in data:
            if required:
                raise BadMessage(f"{where}: field {name!r} is missing")
            continue
        out[name] = _check_value(data[name], kind, f"{where}: {name}")
    return out


def _check_value(value: Any, kind: Any, where: str) -> Any:
    if kind == _TIME:
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) \
                or not 0 <= value <= _LATEST:
            raise BadMessage(f"{where} is not a time (seconds since 1970)")
        return value
    if isinstance(kind, list):  # a list of one kind, at most 16 long (8 sides, 4 safeties, a few words)
        if not isinstance(value, list) or len(value) > 16:
            raise BadMessage(f"{where} is not a short list")
        return [_check_value(item, kind[0], where) for item in value]
    if isinstance(kind, dict):
        return _check_object(value, kind, where)
    if isinstance(kind, tuple) and isinstance(kind[0], dict):  # an object or null
        return None if value is None else _check_object(value, kind[0], where)
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        raise BadMessage(f"{where} is not {_names(kinds)}")
    if not isinstance(value, kinds):
        raise BadMessage(f"{where} is not {_names(kinds)}")
    if isinstance(value, str) and (len(value) > _TEXT or not value.isprintable()):
        raise BadMessage(f"{where} is not a short printable text")
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > _LARGEST:
        raise BadMessage(f"{where} is out of range")
    if isinstance(value, float) and not math.isfinite(value):
        raise BadMessage(f"{where} is not a finite number")
    return value
