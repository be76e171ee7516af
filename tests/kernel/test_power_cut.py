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
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.kernel.booting import booting
from tools.kernel.powercut import Figures, Recording, new_work_dir, record, sweep_in_own_process
from tools.kernel.table import IN_CI

pytestmark = pytest.mark.slow  # a VM, emulated where there is no KVM
REPORT = Path("/var/tmp/bornes-powercut-report.json")
KEPT_LOG = Path("/var/tmp/bornes-powercut-log.bin")  # and its VM's files: python -m tools.kernel.powercut LOG --digests
KEPT_DIGESTS = Path("/var/tmp/bornes-powercut-digests.json")
#: CI's share (issue 42 allows the module 3 minutes): 10 cards with a clean restart after 4 (SQLite removes the
#: WAL on a clean close, the next start makes a new one); every flush, FUA and mark, one reordered subset and
#: one torn write per flush interval, the real commands and the referee at 4 points. bench/powercut.py does
#: the full sizes, with a SIGKILL too (each referee start is some 25 qemu CPU seconds under TCG).
CARDS = 10
RESTART_AFTER, KILL_AFTER = 4, None
ORDERS, TORN = 1, 1
REAL = 4
SEED = 3


@pytest.fixture(scope="module")
def recording() -> Iterator[Recording]:
    """One VM for the module: the logged state folder made, a game tapped with a mark at each chirp, the log
    taken to the host; the VM is powered off before the sweep (which runs on the host)."""
    started, load = time.monotonic(), os.getloadavg()[0]
    REPORT.unlink(missing_ok=True)
    work = new_work_dir()
    try:
        with booting():
            result = record(work, CARDS, seed=SEED, restart_after=RESTART_AFTER, kill_after=KILL_AFTER)
        shutil.copyfile(result.log, KEPT_LOG)  # to sweep again by hand: python -m tools.kernel.powercut
        KEPT_DIGESTS.write_text(json.dumps(result.digests))
        yield result
        result.figures["whole module"] = time.monotonic() - started
        result.figures["load average at the start"] = load
        result.figures["load average at the end"] = os.getloadavg()[0]
        previous = json.loads(REPORT.read_text()) if REPORT.exists() else {}
        REPORT.write_text(json.dumps({**previous, "recording": result.figures, "made": result.made}, indent=1))
        print(json.dumps(result.figures, indent=1))
    finally:
        shutil.rmtree(work, ignore_errors=True)


@pytest.fixture(scope="module")
def swept(recording: Recording) -> Figures:
    """The sweep, once for the module, in a process of its own (tools/kernel/loopmount.py says why)."""
    figures = sweep_in_own_process(recording, orders=ORDERS, torn=TORN, real=REAL, seed=SEED)
    report = figures.as_json()
    print(json.dumps(report, indent=1))
    previous = json.loads(REPORT.read_text()) if REPORT.exists() else {}
    REPORT.write_text(json.dumps({**previous, "sweep": report}, indent=1, default=str))
    return figures


def test_the_state_folder_is_ext4_made_and_mounted_as_a_pis_root(recording: Recording) -> None:
    features = recording.made["Filesystem features"].split()
    assert "has_journal" in features and "extent" in features and "metadata_csum" in features, features
    assert "64bit" not in features and "huge_file" not in features, features  # pi-gen's -O ^64bit,^huge_file
    assert "fast_commit" not in features, features  # an fsync then commits every earlier change of the folder
    assert recording.made["Block size"].strip() == "4096", recording.made
    mount = recording.made["mount"].split()
    assert mount[2] == "ext4" and "noatime" in mount[3].split(","), mount
    assert "data=ordered" in recording.made["options"], recording.made  # ext4's own list of its options


def test_the_whole_log_replayed_gives_the_very_files_the_vm_had(recording: Recording, swept: Figures) -> None:
    """Our replayer against the kernel's log: every entry applied in order to a zeroed device gives a
    filesystem whose state folder holds byte for byte what the VM read there at the end."""
    assert recording.acknowledged == CARDS
    assert {"bornes.sqlite3", "bornes.sqlite3-pending"} <= set(recording.digests), recording.digests
    assert swept.replay_matches, swept.as_json()


def test_every_flush_and_mark_keeps_every_acknowledged_card(swept: Figures) -> None:
    report = swept.as_json()
    assert swept.points["mark"] >= CARDS and swept.points["flush"] > CARDS, report
    assert swept.points["reordered"] > 0 and swept.points["torn"] > 0, report
    assert swept.real_points == REAL, report
    assert swept.held == 0, report  # no point's filesystem outlived it (its own mount namespace)
    assert swept.lost == 0, report
    assert swept.damage_at_flush == 0, report
    assert swept.silent == 0, report
    assert not swept.failures, report


def test_the_bench_part_prints_its_rows_from_this_recording(recording: Recording, swept: Figures) -> None:
    """``python -m bench``'s powercut part, its rows made from this module's recording and sweep (a smoke run
    of the bench boots no VM of its own, so this is where CI runs that part's code)."""
    from bench.powercut import Sizes, rows_from

    sizes = Sizes(cards=CARDS, orders=ORDERS, torn=TORN, real=REAL, seed=SEED)
    rows = rows_from(recording, swept, sizes, load=os.getloadavg()[0], seconds=1.0)
    assert all(len(row) == 4 for row in rows), rows
    judged = {figure.strip(): (measured, met) for figure, measured, _, met in rows if met is not None}
    assert judged["acknowledged cards lost"] == ("0", True), rows
    assert judged["cards acknowledged; the replayed log gives the VM's own files"] == (f"{CARDS}; yes", True), rows
    assert rows[0][0].startswith(f"power cut: ext4 over dm-log-writes in the kernel tier's VM, {CARDS} cards"), rows


#: Mounts an ext4 image with tools/kernel/loopmount.py (in a mount namespace of its own or not) and waits, mounted,
#: for a line on its input; then unmounts and prints whether the loop device was released.
_MOUNT_AND_WAIT = """
import sys
from pathlib import Path
from tools.kernel import loopmount
image, mountpoint, isolate = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3] == "own"
if isolate:
    loopmount.isolate_mounts()
with loopmount.mounted(image, mountpoint) as point:
    assert point.root is not None, point.reason
    (point.root / "written").write_text("a reader's file")
    print("mounted", flush=True)
    sys.stdin.readline()
print(point.released, flush=True)
"""


@pytest.mark.parametrize("namespace", ["own", "host's"])
def test_a_mount_namespace_made_during_a_point_cannot_keep_its_filesystem(tmp_path: Path, namespace: str) -> None:
    """Run 9's failure, on demand: a mount namespace made while a point is mounted (the kernel tier's own
    systemd-nspawn makes one) copies the host's mounts and keeps that point's filesystem alive after the sweep
    unmounts it, so the loop device stays attached and the filesystem can write into its image later. In the
    sweep's own mount namespace the copy holds nothing; in the host's it does (the harness's old way)."""
    if os.geteuid() != 0 or not shutil.which("mkfs.ext4") or not shutil.which("unshare"):
        if IN_CI:
            pytest.fail("the sweep's mounting needs root, mkfs.ext4 and unshare")
        pytest.skip("needs root, mkfs.ext4 and unshare")
    image, mountpoint = tmp_path / "point.img", tmp_path / "mnt"
    mountpoint.mkdir()
    image.write_bytes(b"")
    os.truncate(image, 64 << 20)
    subprocess.run(["mkfs.ext4", "-q", str(image)], check=True, capture_output=True)
    point = subprocess.Popen([sys.executable, "-c", _MOUNT_AND_WAIT, str(image), str(mountpoint), namespace],
                             cwd=Path(__file__).resolve().parents[2], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True)
    copy = None
    try:
        assert point.stdin is not None and point.stdout is not None
        assert point.stdout.readline().strip() == "mounted"
        # A namespace made from this process's (the host's), as systemd-nspawn makes its container's.
        copy = subprocess.Popen(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                                 "echo made; exec sleep 60"], stdout=subprocess.PIPE, text=True)
        assert copy.stdout is not None and copy.stdout.readline().strip() == "made"
        point.stdin.write("unmount\n")
        point.stdin.flush()
        released = point.stdout.readline().strip()
        assert point.wait(timeout=60) == 0
    finally:
        for process in (point, copy):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
    assert released == ("True" if namespace == "own" else "False")
