"""Suite-wide fixtures."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def no_daemon_outlives_its_test() -> Iterator[None]:
    """A test that failed half-way left its ``bornes run`` (bench.driver.Daemon) running, holding a pty
    and a state folder; the tests after it met that daemon instead of their own."""
    yield
    driver = sys.modules.get("bench.driver")
    if driver is not None:
        driver.kill_leftovers()
