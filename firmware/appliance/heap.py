"""The process's heap, handed back to the system once a big, one-off job has freed it.

glibc keeps freed heap pages for later allocations, and a thread's own arena keeps them for that
thread. A daemon's start-up (imports, the settings, the first journal read) and the referee's daily
whole-journal check (a read of every page, in a thread of its own) free megabytes a long-running
process never needs again; ``malloc_trim(0)`` returns them.
"""

from __future__ import annotations

import ctypes
import gc


def release_freed_heap() -> None:
    """Return the freed heap of every arena to the system (``bornes bridge``: 29.8 MB resident before, 27.7
    MB after its start-up; the referee: the ~700 KiB its daily journal check left). About a millisecond;
    a libc without ``malloc_trim`` (musl) is left alone."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return
    trim(0)


def settle_after_start_up() -> None:
    """Freeze what start-up left alive out of the cyclic garbage collector, and hand back its freed heap.

    The modules, the engine's tables, the fonts and the settings live as long as the daemon, yet every
    full collection walks them all again: about 25 000 objects, 4.5 ms here and several times that on
    a Pi Zero 2 W, landing on whichever tap happens to trigger it (a tap's budget is 25 ms with its
    syncs). ``gc.freeze()`` moves them to a generation the collector never walks (a full collection
    then takes well under 0.1 ms); they are still freed by reference counting if they ever die.
    Called once, just before the referee's loop, by ``bornes run`` and the SD-card bench.
    """
    gc.collect()
    gc.freeze()
    release_freed_heap()
