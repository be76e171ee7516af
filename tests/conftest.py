"""Suite-wide fixtures."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest


def pytest_configure(config: pytest.Config) -> None:
    """``BORNES_EXPECT_ENGINE=mypyc`` (or ``python``): the session stops before any test unless the
    engine it imports is that build, so a run meant for the compiled engine cannot pass on the
    Python one by a path mix-up (tests/engine/test_compiled_engine.py)."""
    expected = os.environ.get("BORNES_EXPECT_ENGINE")
    if not expected:
        return
    from bornes.engine import engine_build, rules

    running = engine_build()
    if running != expected:
        raise pytest.UsageError(f"BORNES_EXPECT_ENGINE={expected}, but the {running} engine answered "
                                f"({rules.__file__})")


@pytest.fixture(autouse=True)
def no_daemon_outlives_its_test() -> Iterator[None]:
    """A test that failed half-way left its ``bornes run`` (bench.driver.Daemon) running, holding a pty
    and a state folder; the tests after it met that daemon instead of their own."""
    yield
    driver = sys.modules.get("bench.driver")
    if driver is not None:
        driver.kill_leftovers()
