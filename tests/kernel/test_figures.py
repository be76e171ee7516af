"""How the kernel tier counts a scan lost (tools/kernel/figures.py), without a VM: a scan missing where
scan-test said something (a refusal: keys were lost) is covered by that word; one missing where nothing
was said is lost silently, which the readers' tests and the bench judge."""

from __future__ import annotations

import pytest

from tools.kernel.figures import _match

SENT = ["MB-ROLL-01", "MB-STOP-01", "MB-ROLL-02", "MB-D100-01", "MB-D50-01"]


@pytest.mark.parametrize(("said", "read", "silent"), [
    (["MB-ROLL-01 Roll", "MB-STOP-01 Stop", "MB-ROLL-02 Roll", "MB-D100-01 100", "MB-D50-01 50"], 5, 0),
    (["MB-ROLL-01 Roll", "! garbled: keys were lost", "MB-D100-01 100", "MB-D50-01 50"], 3, 0),  # one word, two scans
    (["MB-ROLL-01 Roll", "MB-ROLL-02 Roll", "MB-D100-01 100", "MB-D50-01 50"], 4, 1),  # the Stop gone unsaid
    (["MB-ROLL-01 Roll", "MB-STOP-01 Stop", "MB-ROLL-02 Roll"], 3, 2),  # the last two gone unsaid
    (["MB-ROLL-01 Roll", "MB-STOP-01 Stop", "MB-ROLL-02 Roll", "? 12345 unknown card"], 3, 0),
    (["MB-ROLL-01 Roll", "MB-D25-01 25", "MB-STOP-01 Stop"], 2, 3),  # a wrong card is no word for the rest
])
def test_a_scan_is_lost_silently_only_where_nothing_was_said(said: list[str], read: int, silent: int) -> None:
    assert _match(SENT, said) == (read, silent)
