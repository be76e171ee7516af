"""The life cycle every reader shares: one daemon thread that reads until told to stop.

A serial reader and a camera differ in what they read and how they come back after a loss, not in
how they start and stop, so that part is written once: ``start()`` runs ``_run`` in a daemon thread
(once), ``close()`` asks it to stop, lets the subclass wake a blocked read (``_interrupt``) and joins
it. ``close()`` is safe twice, before ``start()`` and from the reader's own thread, as gpiozero's is.
"""

from __future__ import annotations

import threading
from typing import Self


class RunningReader:
    """Base of the readers: the thread, the stop flag and ``with`` support."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _run(self) -> None:
        """Read until ``self._stop`` is set, putting events on the queue."""
        raise NotImplementedError

    def _interrupt(self, timeout: float) -> None:
        """Wake a read blocked on the device, so the thread sees the stop flag (nothing by default)."""

    def start(self) -> Self:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=f"bornes-{self.name}", daemon=True)
            self._thread.start()
        return self

    def close(self, timeout: float = 3.0) -> None:
        """Stop the thread and release the device; safe to call twice or before start()."""
        self._stop.set()
        self._interrupt(timeout)
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
