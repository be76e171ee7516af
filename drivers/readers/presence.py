"""Time-based filters, with the clock passed in so tests need no sleeps.

* :class:`PresenceTracker` turns "the reader keeps reporting this tag" into one arrival:
  RFID readers repeat a frame for as long as the tag stays in the field.
* :class:`DoubleReadFilter` drops the same raw value seen again within a short window
  (a barcode scanner in continuous mode, a card that bounces on the antenna).
"""

from __future__ import annotations

import threading


class PresenceTracker:
    """One arrival per stay in the field; a stay ends when another key shows up, ``clear()``
    is called (the reader says the field is empty), or nothing was seen for ``quiet_gap`` s."""

    def __init__(self, quiet_gap: float) -> None:
        self.quiet_gap = quiet_gap
        self._current: str | None = None
        self._last_seen = 0.0

    def observe(self, key: str, now: float) -> bool:
        """Record a sighting of ``key``; True if it is a new arrival."""
        arrival = key != self._current or now - self._last_seen > self.quiet_gap
        self._current = key
        self._last_seen = now
        return arrival

    def clear(self) -> None:
        self._current = None


class DoubleReadFilter:
    """Suppress a value seen again less than ``window`` seconds after its previous sighting.

    Every sighting restarts the window, so a card held in front of a scanner in
    continuous mode reads once. Memory is bounded to ``max_entries`` values. Thread-safe: the
    readers of one table (its pads) share one filter, so a card two pads see is one card.
    """

    def __init__(self, window: float, max_entries: int = 256) -> None:
        self.window = window
        self.max_entries = max_entries
        self.suppressed = 0
        self._last: dict[str, float] = {}
        self._lock = threading.Lock()

    def accept(self, raw: str, now: float) -> bool:
        with self._lock:
            return self._accept(raw, now)

    def _accept(self, raw: str, now: float) -> bool:
        previous = self._last.pop(raw, None)
        self._last[raw] = now
        if len(self._last) > self.max_entries or (previous is None and len(self._last) > 16):
            self._prune(now)
        if previous is not None and now - previous < self.window:
            self.suppressed += 1
            return False
        return True

    def _prune(self, now: float) -> None:
        for key in [k for k, t in self._last.items() if now - t >= self.window]:
            del self._last[key]
        while len(self._last) > self.max_entries:
            del self._last[next(iter(self._last))]  # oldest first: dicts keep insertion order
