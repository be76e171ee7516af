"""Seats for live streams (server-sent events), shared by the phone pages and the club board.

A stream holds a connection and a task for as long as the page stays open, so streams are counted
apart from pages. Two kinds:

* **trusted**: a paired phone (``bornes web``), or a browser the organiser made a board screen
  (``bornes club``). They have seats of their own (:data:`TRUSTED`), so no flood of other streams
  can keep them out;
* **everyone else**: at most :data:`OPEN` seats in all and :data:`PER_CLIENT` per address. When
  they are all taken, a newcomer takes the seat of the oldest stream of the address holding the
  most, if that address holds at least two more than the newcomer's (so a phone with one tab gets
  a seat from an address holding four, and a full flood only refuses itself).

A seat given up is closed by its ``leave`` callback: the stream ends and the browser's EventSource
reconnects by itself a few seconds later (and then takes its fair share like everyone).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

#: Streams for everyone else: in all, and per client address (one phone's tabs).
OPEN = 100
PER_CLIENT = 4
#: Streams for paired phones (or the board's screens), apart: a household has a few phones.
TRUSTED = 32

_order = itertools.count()


@dataclass(eq=False)
class Seat:
    """One live stream: who holds it, and how to end it when it gives way."""

    address: str
    trusted: bool
    leave: Callable[[], None]
    order: int = field(default_factory=lambda: next(_order))


class StreamSeats:
    """Who holds a live stream now, and whether a newcomer gets one."""

    def __init__(self, open_seats: int = OPEN, per_client: int = PER_CLIENT, trusted_seats: int = TRUSTED) -> None:
        self.open_seats = open_seats
        self.per_client = per_client
        self.trusted_seats = trusted_seats
        self.seats: set[Seat] = set()
        self.given_way = 0

    def __len__(self) -> int:
        return len(self.seats)

    def _of(self, trusted: bool, address: str | None = None) -> list[Seat]:
        return sorted((seat for seat in self.seats if seat.trusted is trusted
                       and (address is None or seat.address == address)), key=lambda seat: seat.order)

    def take(self, address: str, trusted: bool, leave: Callable[[], None]) -> Seat | None:
        """A seat for a stream from ``address``, or None (the stream is refused: 503)."""
        mine = self._of(trusted, address)
        if len(mine) >= self.per_client:
            return None
        if trusted:
            if len(self._of(True)) >= self.trusted_seats:
                return None
        elif len(self._of(False)) >= self.open_seats:
            victim = self._victim(len(mine))
            if victim is None:
                return None
            self._give_way(victim)
        seat = Seat(address, trusted, leave)
        self.seats.add(seat)
        return seat

    def release(self, seat: Seat) -> None:
        self.seats.discard(seat)

    def _victim(self, newcomer_holds: int) -> Seat | None:
        by_address: dict[str, list[Seat]] = {}
        for seat in self._of(False):
            by_address.setdefault(seat.address, []).append(seat)
        if not by_address:
            return None
        most = max(by_address.values(), key=lambda held: (len(held), -held[0].order))
        return most[0] if len(most) >= newcomer_holds + 2 else None

    def _give_way(self, seat: Seat) -> None:
        self.seats.discard(seat)
        self.given_way += 1
        seat.leave()
