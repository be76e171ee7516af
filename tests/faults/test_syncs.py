"""A card costs at most two syncs before its chirp (issue 34, item 6): counted, not timed.

The daemon's tap chain runs under the sync-counting shim of ``python -m bench --only sdcard``
(bench/syncdelay.c, built with gcc), with no delay: the count of ``fsync``/``fdatasync`` calls
between a card's last tap and its chirp is exact whatever the machine's load. The two are SQLite's
commit of the WAL and the pending note; the checkpoint and the next WAL's primer come after.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from bench.sdcard import build_shim, run_child, script_spec


@pytest.fixture(scope="module")
def shim(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("gcc") is None and os.environ.get("CI") != "true":
        pytest.skip("no gcc: the sync-counting shim is built with it (.ci/run installs gcc)")
    return build_shim(tmp_path_factory.mktemp("shim"))


@pytest.mark.slow  # paced: each card waits for the upkeep after its chirp (0.25 s of quiet), 15 s in all
def test_every_card_is_durable_after_two_syncs_and_before_its_chirp(shim: Path, tmp_path: Path) -> None:
    paced = run_child(shim, 0, script_spec(60), paced=True, where=str(tmp_path))
    assert paced.cards >= 20
    assert set(paced.syncs_before) == {2}, paced.syncs_before  # the WAL's commit, then the note
    assert paced.per_card < 3.5  # a checkpoint and its primer (4 syncs) after the chirp, once per few cards


def test_back_to_back_taps_still_cost_two_syncs_before_the_chirp(shim: Path, tmp_path: Path) -> None:
    """The next card tapped at once: the upkeep may not have run, and a card must not pay for it."""
    hurried = run_child(shim, 0, script_spec(60), paced=False, where=str(tmp_path))
    assert hurried.cards >= 20 and max(hurried.syncs_before) <= 2, hurried.syncs_before
