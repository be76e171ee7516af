"""What the daemon does to its own heap once started (firmware/appliance/heap.py)."""

from __future__ import annotations

import gc

from bornes.firmware.appliance.heap import settle_after_start_up


def test_start_ups_objects_leave_the_full_collections_walk() -> None:
    """After start-up, a full collection no longer walks the modules and tables that live for good, so
    it cannot land a pause of milliseconds on a tap (docs/journal.md, SD-card speed)."""
    import bornes.firmware.appliance.assembly  # noqa: F401  (what bornes run has loaded by then)

    gc.unfreeze()
    tracked = len(gc.get_objects())
    try:
        settle_after_start_up()
        assert gc.get_freeze_count() >= tracked // 2
        assert len(gc.get_objects()) < tracked // 10
    finally:
        gc.unfreeze()  # the rest of this test process collects as before
