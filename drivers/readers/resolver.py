"""Turn a decoded value into the event the referee sees.

``MB-<KIND>-<NN>`` -> :class:`CardScanned`, ``MB-CMD-<NAME>`` -> :class:`ControlScanned`,
a UID -> whatever the binding table says it stands for, anything else ->
:class:`UnknownScanned` with the raw value. Never raises for any input.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from bornes.drivers.events import CONTROL_NAMES, CardScanned, ControlScanned, UnknownKind, UnknownScanned
from bornes.drivers.readers.bindings import BindingTable, normalise_uid
from bornes.engine.cards import PAYLOAD_PREFIX, Card, CardCodeError

ScanEvent = CardScanned | ControlScanned | UnknownScanned
_CONTROL_PREFIX = "MB-CMD-"
_MAX_RAW = 64


class CardResolver:
    """Map payloads and UIDs to scan events; ``bindings`` may be a table, a plain dict or None."""

    def __init__(self, bindings: BindingTable | Mapping[str, str] | None = None, reader: str = "reader",
                 pad: str | None = None) -> None:
        self.bindings = bindings
        self.reader = reader
        self.pad = pad

    def resolve(self, raw: str, *, is_uid: bool = False) -> ScanEvent:
        event = self._resolve(raw, is_uid=is_uid)
        return dataclasses.replace(event, pad=self.pad) if self.pad is not None else event

    def _resolve(self, raw: str, *, is_uid: bool = False) -> ScanEvent:
        text = raw.strip()[:_MAX_RAW]
        if not is_uid and text.upper().startswith(PAYLOAD_PREFIX):
            return self._payload(text.upper(), text)
        uid = normalise_uid(text)
        if uid is not None:
            bound = self._lookup(uid)
            if bound is not None:
                return self._payload(bound, uid)
            return UnknownScanned(uid, UnknownKind.NOT_ENROLLED.value, self.reader, UnknownKind.NOT_ENROLLED)
        return UnknownScanned(text, UnknownKind.NOT_A_CARD_CODE.value, self.reader, UnknownKind.NOT_A_CARD_CODE)

    def _lookup(self, uid: str) -> str | None:
        if self.bindings is None:
            return None
        if isinstance(self.bindings, BindingTable):
            self.bindings.refresh()
            return self.bindings.lookup(uid)
        return self.bindings.get(uid)

    def _payload(self, payload: str, raw: str) -> ScanEvent:
        if payload.startswith(_CONTROL_PREFIX):
            name = payload[len(_CONTROL_PREFIX) :]
            if name in CONTROL_NAMES:
                return ControlScanned(name, raw, self.reader)
            return UnknownScanned(raw, f"unknown control {name!r}", self.reader, UnknownKind.UNKNOWN_CONTROL)
        try:
            return CardScanned(Card.from_code(payload), raw, self.reader)
        except CardCodeError as error:
            return UnknownScanned(raw, str(error), self.reader, UnknownKind.BAD_CARD_CODE)
