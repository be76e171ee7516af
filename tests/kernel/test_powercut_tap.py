"""The power cut's recording says where the referee hung when a tap gets no line (no VM: the harness's own logic)."""

from __future__ import annotations

from typing import cast

import pytest

from tools.kernel.powercut import _tap
from tools.kernel.table import KernelTable


class _SilentTable:
    """A table whose referee never answers a scan, and whose guest says what its threads wait on."""

    def tap(self, gadget: str, payload: str) -> list[str]:
        raise AssertionError(f"timed out after 60 s waiting for the referee's line for {payload}")

    def diagnosis(self) -> str:
        return "== threads of bornes run\nwchan: ext4_sync_file"


def test_a_tap_with_no_line_fails_with_the_guests_diagnosis() -> None:
    with pytest.raises(AssertionError, match=r"(?s)line for MB-GASOLINE-02.*wchan: ext4_sync_file"):
        _tap(cast(KernelTable, _SilentTable()), "scanner", "MB-GASOLINE-02")
