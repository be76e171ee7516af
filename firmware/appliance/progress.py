"""A progress bar for long commands (``simulate``, ``demo``), only where a person watches.

tqdm draws on standard error; when that is not a terminal (a pipe, a log, CI) nothing is
drawn at all, so scripts and ``--json`` output stay clean.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


def wanted(stream: Any = None) -> bool:
    """True when the bar's stream (standard error) is a terminal."""
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


class _NoBar:
    n = 0

    def update(self, n: int = 1) -> None:
        self.n += n

    def refresh(self) -> None:
        pass

    def close(self) -> None:
        pass


@contextmanager
def bar(total: int, unit: str, enabled: bool | None = None) -> Iterator[Any]:
    """A tqdm bar of ``total`` ``unit`` on standard error, or an object that draws nothing."""
    if enabled is None:
        enabled = wanted()
    if not enabled:
        yield _NoBar()
        return
    from tqdm import tqdm

    try:
        size = os.get_terminal_size(sys.stderr.fileno())
    except (OSError, ValueError):
        size = os.terminal_size((0, 0))
    # A terminal that reports no size (a fresh pty, a serial console) still gets an 80x24 bar:
    # tqdm would otherwise draw zero columns, or nothing at all on a zero-line screen.
    sizing: dict[str, Any] = {"dynamic_ncols": True} if size.columns and size.lines else {"ncols": 80, "nrows": 24}
    progress = tqdm(total=total, unit=unit, file=sys.stderr, leave=False, **sizing)
    try:
        yield progress
    finally:
        progress.close()


@contextmanager
def watching(total: int, unit: str, count: Callable[[], int], enabled: bool | None = None,
             interval: float = 0.1) -> Iterator[None]:
    """Show a bar that follows ``count()`` (read from another thread) while the block runs."""
    with bar(total, unit, enabled) as progress:
        if isinstance(progress, _NoBar):
            yield
            return
        done = threading.Event()

        def follow() -> None:
            while not done.wait(interval):
                _advance(progress, count())

        follower = threading.Thread(target=follow, name="progress", daemon=True)
        follower.start()
        try:
            yield
        finally:
            done.set()
            follower.join()
            _advance(progress, count())


def _advance(progress: Any, value: int) -> None:
    if value > progress.n:
        progress.update(value - progress.n)
