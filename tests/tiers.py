"""The fast tier's share of a parametrized test: some cases in ``pytest -m "not slow"``, the rest marked slow.

A family of tests that starts a process, a server or a sweep per case keeps a few cases in the fast tier (README,
Tests): enough that a change breaking the room fails there first, while the whole suite, the test command, still
runs every case. One helper, so a sample is chosen the same way everywhere and a name that matches no case is an
error, not a case silently dropped from the fast tier.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import Any

import pytest


def tiered(cases: Iterable[Any], fast: Collection[str], ids: Sequence[str] | None = None) -> list[Any]:
    """``cases`` as pytest parameters, each with its id (``ids``, or the case's first item, or the case itself):
    the ids in ``fast`` plain, every other one marked slow."""
    listed = list(cases)
    names = list(ids) if ids is not None else [str(c[0] if isinstance(c, tuple) else c) for c in listed]
    unknown = set(fast) - set(names)
    if unknown:
        raise ValueError(f"no case named {', '.join(sorted(unknown))} to keep in the fast tier")
    return [pytest.param(*(case if isinstance(case, tuple) else (case,)), id=name,
                         marks=() if name in fast else pytest.mark.slow)
            for case, name in zip(listed, names, strict=True)]
