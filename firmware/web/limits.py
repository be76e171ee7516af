"""The caps that keep one phone (or many) from wearing out a Pi: rate limits, and PDF children at once."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import AsyncIterator

#: PDF score sheets drawn at once (each child is ~30 MB: a Pi Zero 2 W has 512 MB), and how many may wait.
PDF_AT_ONCE = 2
PDF_WAITING = 4


class RateLimit:
    """At most ``count`` events per ``window`` seconds per key (a client address)."""

    def __init__(self, count: int, window: float = 60.0) -> None:
        self.count = count
        self.window = window
        self._seen: dict[str, deque[float]] = {}

    def allow(self, key: str, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        times = self._seen.setdefault(key, deque())
        while times and times[0] <= now - self.window:
            times.popleft()
        if len(self._seen) > 1024:  # forget idle clients; never grow without bound
            for other in [k for k, v in self._seen.items() if not v and k != key]:
                del self._seen[other]
        if len(times) >= self.count:
            return False
        times.append(now)
        return True

    def retry_after(self, key: str) -> int:
        times = self._seen.get(key)
        if not times:
            return 0
        return max(1, int(times[0] + self.window - time.monotonic()) + 1)


class PdfSlots:
    """At most :data:`PDF_AT_ONCE` PDF children at once; :data:`PDF_WAITING` more wait, the rest hear 503."""

    def __init__(self) -> None:
        self.slots = asyncio.Semaphore(PDF_AT_ONCE)
        self.waiting = 0

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[bool]:
        if self.slots.locked() and self.waiting >= PDF_WAITING:
            yield False
            return
        self.waiting += 1
        try:
            await self.slots.acquire()
        finally:
            self.waiting -= 1
        try:
            yield True
        finally:
            self.slots.release()
