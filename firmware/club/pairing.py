"""Pairings for a tournament round: round-robin (the circle method) and Swiss.

Entrants are players, or teams of partners; a table holds two entrants. Both functions return
pairs in table order, and ``None`` as the second of a pair is a bye.
"""

from __future__ import annotations

from collections.abc import Sequence

Pair = tuple[str, str | None]


class PairingError(ValueError):
    """The round cannot be paired as asked (too few entrants, too few tables…)."""


def round_robin(entrants: Sequence[str], round_number: int) -> list[Pair]:
    """Round ``round_number`` (1-based) of a full round-robin: everyone meets everyone once.

    The circle method: the first entrant stays put and the others rotate one place a round, so
    ``n`` entrants (plus a bye if odd) need ``n - 1`` rounds; later rounds start the cycle again.
    """
    if len(entrants) < 2:
        raise PairingError("a round needs at least two entrants")
    ring: list[str | None] = list(entrants)
    if len(ring) % 2:
        ring.append(None)
    size = len(ring)
    turn = (round_number - 1) % (size - 1)
    rest = ring[1:]
    rest = rest[-turn:] + rest[:-turn] if turn else rest
    ring = [ring[0], *rest]
    pairs: list[Pair] = []
    for i in range(size // 2):
        a, b = ring[i], ring[size - 1 - i]
        if a is None:
            a, b = b, None
        assert a is not None
        pairs.append((a, b))
    return sorted(pairs, key=lambda pair: pair[1] is None)  # the bye last


def swiss(ranked: Sequence[str], met: set[frozenset[str]], had_bye: set[str] | None = None) -> list[Pair]:
    """Swiss pairing: entrants in standings order, each paired with the best-placed one not yet met.

    An odd field gives the bye to the lowest-placed entrant who has not had one. When no pairing
    avoids every rematch, the fewest rematches are allowed, top first.
    """
    if len(ranked) < 2:
        raise PairingError("a round needs at least two entrants")
    players = list(ranked)
    bye: str | None = None
    if len(players) % 2:
        had = had_bye or set()
        bye = next((p for p in reversed(players) if p not in had), players[-1])
        players.remove(bye)
    for allowed_rematches in range(len(players) // 2 + 1):
        found = _pair(players, met, allowed_rematches)
        if found is not None:
            pairs: list[Pair] = list(found)
            if bye is not None:
                pairs.append((bye, None))
            return pairs
    raise PairingError("no pairing found")  # unreachable: with every rematch allowed, anyone pairs


def _pair(players: list[str], met: set[frozenset[str]], rematches: int) -> list[tuple[str, str]] | None:
    if not players:
        return []
    first, rest = players[0], players[1:]
    for index, other in enumerate(rest):
        again = frozenset((first, other)) in met
        if again and rematches == 0:
            continue
        tail = _pair(rest[:index] + rest[index + 1:], met, rematches - again)
        if tail is not None:
            return [(first, other), *tail]
    return None
