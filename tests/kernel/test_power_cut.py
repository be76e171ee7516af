"""A power cut, for real: the state folder on ext4 over dm-log-writes, replayed at every flush (issue 42).

In the kernel tier's VM (Debian's own kernel), the referee's /var/lib/bornes is ext4 made and
mounted as Raspberry Pi OS makes and mounts its root, on a device-mapper ``log-writes`` target that
logs every write in the order it reached the medium. ``bornes.service`` runs on it as installed; a
scripted game is tapped through the scanner gadget, with a restart and a SIGKILL in it; at each
accepted card's journal line the test marks the log. On the host, the log is replayed
(tools/kernel/logwrites.py) at every flush, FUA and mark, and at seeded crash states between flushes,
each mounted and read with the product's readers (tools/kernel/powercut.py says what each point
must show). The full sweep is ``python -m bench --only powercut``; this one samples fewer crash
states per interval.

Skipped, with the reason, where the machine cannot do it (not root, no qemu); under CI=true that
is a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tools.kernel.powercut import Recording, Sweep, new_work_dir, record
from tools.kernel.table import IN_CI, CannotBoot, why_not

pytestmark = pytest.mark.slow  # a VM, emulated where there is no KVM
REPORT = Path("/var/tmp/bornes-powercut-report.json")
KEPT_LOG = Path("/var/tmp/bornes-powercut-log.bin")
CARDS = 24  # bench/powercut.py taps more
RESTART_AFTER, KILL_AFTER = 8, 16
ORDERS = 2  # crash states a flush interval in CI (the bench: 20), and one torn write
REAL_EVERY = 12  # the real commands and the referee at every 12th flush or mark
SEED = 3


@pytest.fixture(scope="module")
def recording() -> Iterator[Recording]:
    """One VM for the module: the logged state folder made, a game tapped with a mark at each chirp, the log
    taken to the host; the VM is powered off before the sweep (which runs on the host)."""
    reason = why_not()
    if reason:
        if IN_CI:
            pytest.fail(f"the kernel tier cannot run under CI: {reason}")
        pytest.skip(reason)
    started = time.monotonic()
    work = new_work_dir()
    try:
        try:
            result = record(work, CARDS, seed=SEED, restart_after=RESTART_AFTER, kill_after=KILL_AFTER)
        except CannotBoot as error:
            if IN_CI:
                raise
            pytest.skip(str(error))
        shutil.copyfile(result.log, KEPT_LOG)  # to sweep again by hand: python -m tools.kernel.powercut
        yield result
        result.figures["whole module"] = time.monotonic() - started
        result.figures["load average at the end"] = os.getloadavg()[0]
        previous = json.loads(REPORT.read_text()) if REPORT.exists() else {}
        REPORT.write_text(json.dumps({**previous, "recording": result.figures, "made": result.made}, indent=1))
        print(json.dumps(result.figures, indent=1))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_the_state_folder_is_ext4_made_and_mounted_as_a_pis_root(recording: Recording) -> None:
    features = recording.made["Filesystem features"].split()
    assert "has_journal" in features and "extent" in features and "metadata_csum" in features, features
    assert "64bit" not in features and "huge_file" not in features, features  # pi-gen's -O ^64bit,^huge_file
    assert recording.made["Block size"].strip() == "4096", recording.made
    mount = recording.made["mount"].split()
    assert mount[2] == "ext4" and "noatime" in mount[3].split(","), mount
    assert "data=ordered" in recording.made["options"], recording.made  # ext4's own list of its options


def test_the_whole_log_replayed_gives_the_very_files_the_vm_had(recording: Recording) -> None:
    """Our replayer against the kernel's log: every entry applied in order to a zeroed device gives a
    filesystem whose state folder holds byte for byte what the VM read there at the end."""
    assert recording.acknowledged == CARDS
    assert {"bornes.sqlite3", "bornes.sqlite3-pending"} <= set(recording.digests), recording.digests
    sweep = Sweep(recording, recording.log.parent, orders=0)
    assert sweep.replay_to_end() == recording.digests


def test_every_flush_and_mark_keeps_every_acknowledged_card(recording: Recording) -> None:
    sweep = Sweep(recording, recording.log.parent, orders=ORDERS, seed=SEED, real_every=REAL_EVERY)
    figures = sweep.run()
    report = figures.as_json()
    print(json.dumps(report, indent=1))
    previous = json.loads(REPORT.read_text()) if REPORT.exists() else {}
    REPORT.write_text(json.dumps({**previous, "sweep": report}, indent=1, default=str))
    assert figures.points["mark"] >= CARDS and figures.points["flush"] > CARDS, report
    assert figures.points["reordered"] > 0 and figures.points["torn"] > 0, report
    assert figures.real_points > 0, report
    assert figures.lost == 0, report
    assert figures.damage_at_flush == 0, report
    assert not figures.failures, report
