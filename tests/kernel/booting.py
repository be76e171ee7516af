"""The kernel tier's one rule for a machine that cannot boot its VMs: a skip that says why, but a failure under CI."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from tools.kernel.table import IN_CI, CannotBoot, why_not


@contextmanager
def booting() -> Iterator[None]:
    """Around a module fixture's boot: what the machine lacks (no root, no qemu) or a boot that failed skips the
    module with the reason; under ``CI=true`` the first fails it and the second is raised (.ci/run installs
    everything, so there neither may pass unseen)."""
    reason = why_not()
    if reason:
        if IN_CI:
            pytest.fail(f"the kernel tier cannot run under CI: {reason}")
        pytest.skip(reason)
    try:
        yield
    except CannotBoot as error:
        if IN_CI:
            raise
        pytest.skip(str(error))
