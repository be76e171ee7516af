"""Live-stream seats (firmware/web/streams.py): who gets one when many addresses hold theirs (issue 32, finding 3)."""

from __future__ import annotations

from collections.abc import Callable

from bornes.firmware.web.streams import StreamSeats


def note(ended: list[str], name: str) -> Callable[[], None]:
    return lambda: ended.append(name)


def fill(seats: StreamSeats, addresses: int, each: int, ended: list[str]) -> None:
    for address in range(addresses):
        for tab in range(each):
            seats.take(f"10.0.0.{address}", False, note(ended, f"10.0.0.{address}#{tab}"))


def test_a_paired_phone_has_a_seat_whatever_the_others_hold() -> None:
    """Round two, finding 3: 4 streams from each of 25 addresses filled the 100 and a paired phone's
    stream got 503. Paired phones have seats of their own: nobody else's stream ends for them."""
    seats: StreamSeats = StreamSeats()
    ended: list[str] = []
    fill(seats, 25, 4, ended)
    assert len(seats) == 100
    for tab in range(4):
        assert seats.take("10.0.1.1", True, lambda: None) is not None, tab
    assert seats.take("10.0.1.1", True, lambda: None) is None  # a phone's own tabs are still four at most
    assert ended == [] and len(seats) == 104


def test_a_newcomer_takes_the_oldest_seat_of_the_address_holding_most() -> None:
    """Everyone else shares 100 seats fairly: a phone with no stream gets the oldest seat of an address
    holding four; an address already holding its share is refused instead (no endless reshuffle)."""
    seats: StreamSeats = StreamSeats()
    ended: list[str] = []
    fill(seats, 25, 4, ended)
    assert len(seats) == 100
    assert seats.take("10.0.2.1", False, lambda: None) is not None
    assert ended == ["10.0.0.0#0"]  # the first address held the most, and that was its oldest stream
    assert seats.take("10.0.0.0", False, lambda: None) is None  # 3 against 4: it waits its turn
    assert seats.take("10.0.2.1", False, lambda: None) is not None and ended[-1] == "10.0.0.1#0"
    assert len(seats) == 100


def test_fifty_addresses_of_four_share_the_seats_at_two_or_three_each() -> None:
    seats: StreamSeats = StreamSeats()
    ended: list[str] = []
    fill(seats, 50, 4, ended)
    held = [sum(seat.address == f"10.0.0.{a}" for seat in seats.seats) for a in range(50)]
    assert len(seats) == 100 and max(held) - min(held) <= 1, held


def test_a_seat_given_up_is_free_again() -> None:
    seats = StreamSeats(open_seats=2, per_client=2)
    first = seats.take("a", False, lambda: None)
    assert first is not None and seats.take("a", False, lambda: None) is not None
    assert seats.take("a", False, lambda: None) is None  # its own two tabs
    seats.release(first)
    assert seats.take("a", False, lambda: None) is not None
