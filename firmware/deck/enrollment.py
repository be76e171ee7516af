"""Binding a deck of RFID/NFC tags to cards: the order, the resume point, the checks.

``bornes enroll`` and ``bornes tags write`` both walk the same fixed list of payloads:
every card of the chosen deck (full box, or the short deck for 2 and 3 players), then
the six control tags. Resuming is simply "the first payload that is not bound yet".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bornes.drivers.errors import EX_USAGE, UserError
from bornes.drivers.events import CONTROL_NAMES
from bornes.drivers.readers.bindings import BindingError, BindingTable, check_payload, describe_payload, normalise_uid
from bornes.engine import OptionError, deck_counts, edition, iter_deck

CONTROL_PAYLOADS: tuple[str, ...] = tuple(f"MB-CMD-{name}" for name in CONTROL_NAMES)


def deck_payloads(edition_name: str, players: int | None = None, *, controls: bool = True) -> list[str]:
    """Every payload of the deck, in the fixed enrolment/label order."""
    try:
        chosen = edition(edition_name)
    except OptionError as error:
        raise UserError(str(error), EX_USAGE) from None
    if players is not None and players not in chosen.seat_counts:
        counts = ", ".join(map(str, chosen.seat_counts))
        raise UserError(f"{chosen.name} is played by {counts} players, not {players}", EX_USAGE)
    short = players is not None and players in chosen.short_deck_seats
    payloads = [card.code() for card in iter_deck(deck_counts(short))]
    return payloads + (list(CONTROL_PAYLOADS) if controls else [])


def parse_payloads(codes: Iterable[str]) -> list[str]:
    """Card codes typed by a person (``--card MB-D100-07``), checked and normalised."""
    out = []
    for code in codes:
        try:
            out.append(check_payload(code))
        except BindingError as error:
            raise UserError(str(error), EX_USAGE) from None
    return out


@dataclass(frozen=True, slots=True)
class Outcome:
    """What happened to one tap: a line for the person, and whether the walk moved on."""

    message: str
    bound: bool = False


class Enrollment:
    """The walk through a deck; saves the table after every binding so Ctrl-C loses nothing."""

    def __init__(self, table: BindingTable, payloads: list[str], *, rebind: bool = False) -> None:
        self.table = table
        self.payloads = payloads
        #: Ask for every payload even if bound (replacing a lost or damaged tag); the old tag
        #: stays bound until the new one is tapped.
        self.rebind = rebind
        self.skipped: set[str] = set()
        self.history: list[str] = []  # payloads bound in this session, for UNDO

    def _bound(self) -> set[str]:
        return set(self.history) if self.rebind else self.table.payloads()

    @property
    def current(self) -> str | None:
        bound = self._bound()
        for payload in self.payloads:
            if payload not in bound and payload not in self.skipped:
                return payload
        return None

    @property
    def done_count(self) -> int:
        bound = self._bound()
        return sum(1 for p in self.payloads if p in bound)

    def prompt(self) -> str:
        current = self.current
        if current is None:
            return "Nothing left to bind."
        return f"Tap: {describe_payload(current)}   [{self.done_count + 1}/{len(self.payloads)}]"

    def offer_uid(self, uid_text: str) -> Outcome:
        """A tag UID was read: bind it to the current payload unless it is already bound."""
        uid = normalise_uid(uid_text)
        current = self.current
        if uid is None:
            return Outcome(f"{uid_text!r} is not a tag UID; tap an RFID/NFC tag")
        if current is None:
            return Outcome("Nothing left to bind.")
        already = self.table.lookup(uid)
        if already == current:
            self.history.append(current)
            return Outcome(f"Tag {uid} is already {describe_payload(current)}; kept", bound=True)
        if already is not None:
            return Outcome(f"Refused: tag {uid} is already bound to {describe_payload(already)}; tap another tag")
        self.table.bind(uid, current)
        self.table.save()
        self.history.append(current)
        return Outcome(f"Bound tag {uid} to {describe_payload(current)} ({current})", bound=True)

    def skip(self) -> Outcome:
        current = self.current
        if current is None:
            return Outcome("Nothing left to skip.")
        self.skipped.add(current)
        return Outcome(f"Skipped {describe_payload(current)}; it stays unbound for next time")

    def undo(self) -> Outcome:
        if not self.history:
            return Outcome("Nothing to undo in this session.")
        payload = self.history.pop()
        self.table.unbind(payload)
        self.table.save()
        return Outcome(f"Unbound {describe_payload(payload)}; tap its tag again")
