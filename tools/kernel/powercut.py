"""A power cut, for real (issue 42): the referee's state folder on ext4 over dm-log-writes, replayed at every flush.

In the kernel tier's VM (tools/kernel/vm.py: Debian's own kernel), :class:`LoggedStateFolder` puts
a loop device on the VM's tmpfs under the device-mapper ``log-writes`` target, makes ext4 on it as
Raspberry Pi OS makes its root, mounts it as a Pi mounts its root and bind-mounts its
``var/lib/bornes`` on the referee's state folder; ``bornes.service`` runs on it as installed.
:func:`record_game` taps a scripted game through the scanner gadget and, at each accepted card's
journal line (the moment the table hears the chirp), puts a mark ``acked-N`` in the log.

Then, on the host, :class:`Sweep` rebuilds the device with our replayer (tools/kernel/logwrites.py) at
every flush and FUA and every mark, and at seeded crash states between two flushes (a random
subset of the writes not yet flushed in a random order, or one of them torn to its first 512 bytes
or 4 KiB), mounts each (ext4 replays its journal) and reads the state folder with the product's
own readers. Why on the host: the host's kernel mounts a loop device at native speed, where under
TCG every reader's Python start-up costs seconds; the readers (``bornes history``, ``export``,
``doctor``) run in one process through the CLI's own ``main`` at every point, and as separate
``bornes`` processes with the referee started on the state (``bornes run``) at ``real`` points
spread over the log, so the batch is checked against the real commands as they run on a Pi.

What each point must show, and what counts (:class:`Figures`):

* at a flush, FUA or mark: the filesystem mounts, no reader calls the state damaged, every card
  acknowledged before the point is in the game, in order (the card in flight may be there or not),
  and nothing is deleted or set aside;
* at a crash state: the same, except that damage may be reported (a person is then asked); a reader
  that shows fewer cards than were acknowledged without saying anything is a silent loss.
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import hashlib
import io
import json
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bornes.firmware.storage.journal import CREATING as JOURNAL_CREATING
from bornes.firmware.storage.note import TEMPORARY as NOTE_TEMPORARY
from tools.kernel import loopmount
from tools.kernel.logwrites import Crash, Device, Entry, Interval, Log, apply_crash, intervals, reorderings, tearings
from tools.kernel.table import INPUT, KernelTable
from tools.kernel.vm import Image

REPO = Path(__file__).resolve().parents[2]
#: The state folder inside the filesystem, where a Pi's root has it.
STATE = "var/lib/bornes"
DEVICE_BYTES = 512 << 20  # mke2fs's own "default" type from 512 MiB up: 4 KiB blocks, as on a Pi's root of GiBs
LOG_BYTES = 320 << 20
DM_NAME = "bornes-sd"
GUEST_WORK = "/srv/powercut"  # a tmpfs of its own in the VM: the two loop devices' files
GUEST_MOUNT = "/srv/sd"
#: Raspberry Pi OS's image builder (pi-gen, export-image/prerun.sh) makes its root with
#: ``mkfs.ext4 -L rootfs -O "^64bit,^huge_file"`` (64bit taken out when mke2fs.conf has it, as
#: trixie's does), every other feature from mke2fs.conf. The device is a new sparse file, zeros
#: throughout, and ``assume_storage_prezeroed=1`` (e2fsprogs 1.47) tells mke2fs so: it marks the inode
#: tables zeroed without writing 25 MB of zeros through the log (they stand as on a Pi whose first
#: boots' lazy init is done, and the kernel's ext4lazyinit thread has nothing to write during the game).
MKFS = ("mkfs.ext4", "-q", "-L", "rootfs", "-O", "^64bit,^huge_file", "-E", "assume_storage_prezeroed=1")
#: pi-gen's fstab line for the root (stage1/01-sys-tweaks/files/fstab): ``defaults,noatime``; its
#: cmdline.txt gives no rootflags, so the journal mode is ext4's default, data=ordered.
MOUNT_OPTIONS = "defaults,noatime"
READY = "ready"
ACKED = "acked-"
MODULES = ("loop", "dm_log_writes", "ext4")
#: The installed unit gives a start 60 s and the loop's watchdog 10 s: a Pi does it in a few, but the VM is
#: emulated (TCG) on a shared 2-core host, where a start has been seen to take 44 CPU seconds. A drop-in in
#: /run (gone at the VM's power-off) gives both more room; nothing else of the unit changes.
UNIT_DROP_IN = "/run/systemd/system/bornes.service.d/powercut-slow-vm.conf"
SLOW_MACHINE = "[Service]\nTimeoutStartSec=600\nWatchdogSec=120\n"
#: The referee the VM would start at boot is held back by one condition (a drop-in written in the image before
#: the boot, removed before the referee starts on the logged folder): a start under TCG costs some 25 qemu CPU
#: seconds, and that referee would only be stopped.
HOLD_DROP_IN = "etc/systemd/system/bornes.service.d/powercut-hold.conf"
HOLD = "[Unit]\nConditionPathExists=/run/bornes-powercut-no-such-file\n"
BOOT_TIMEOUT = 900.0  # the same: four emulated VMs on two cores have been seen to need more than the tier's 240 s


def _acked(entry: Entry) -> int | None:
    return int(entry.mark[len(ACKED):]) if entry.mark and entry.mark.startswith(ACKED) else None


# -- in the VM: the logged state folder ---------------------------------------------------------------


class LoggedStateFolder:
    """The referee's /var/lib/bornes on ext4 on ``dm-log-writes`` over a loop device in the VM."""

    def __init__(self, table: KernelTable) -> None:
        self.table = table
        self.vm = table.vm
        self.loops: list[str] = []

    def sh(self, script: str, timeout: float = 120.0, input: str | None = None) -> str:
        return self.vm.run("sh", "-ec", script, timeout=timeout, input=input).stdout

    def set_up(self) -> dict[str, str]:
        """With the referee held back since the boot: make and mount the logged filesystem on its state folder,
        mark ``ready``, and let the unit start again (as installed, with more room for a slow VM).
        Returns what was made: dumpe2fs's features and block size, the mount's options."""
        self.sh(f"mkdir -p {UNIT_DROP_IN.rsplit('/', 1)[0]} && cat > {UNIT_DROP_IN} && rm -f /{HOLD_DROP_IN} && "
                "systemctl daemon-reload", input=SLOW_MACHINE)
        state = self.vm.run("systemctl", "is-active", "bornes.service", check=False).stdout.strip()
        assert state == "inactive", f"the referee the VM booted was not held back: {state}"
        self.vm.run("modprobe", "-a", *MODULES)
        self.sh(f"mkdir -p {GUEST_WORK} {GUEST_MOUNT} && mount -t tmpfs -o size=700M powercut {GUEST_WORK} && "
                f"truncate -s {DEVICE_BYTES} {GUEST_WORK}/sd.img && truncate -s {LOG_BYTES} {GUEST_WORK}/log.img")
        self.loops = [self.vm.run("losetup", "--find", "--show", f"{GUEST_WORK}/{name}.img").stdout.strip()
                      for name in ("sd", "log")]
        sd, log = self.loops
        self.sh(f'dmsetup create {DM_NAME} --table "0 $(blockdev --getsz {sd}) log-writes {sd} {log}"')
        device = f"/dev/mapper/{DM_NAME}"
        self.vm.run(*MKFS, device, timeout=300)
        # /var/lib/bornes is the unit's StateDirectory: systemd makes it at a start, and no referee has started yet.
        self.sh(f"mount -t ext4 -o {MOUNT_OPTIONS} {device} {GUEST_MOUNT} && mkdir -p {GUEST_MOUNT}/{STATE} && "
                "mkdir -p /var/lib/bornes && rm -rf /var/lib/bornes/* && "
                f"mount --bind {GUEST_MOUNT}/{STATE} /var/lib/bornes && "
                "chown bornes:bornes /var/lib/bornes && chmod 0750 /var/lib/bornes && sync")
        self.mark(READY)
        made = self.sh(f"dumpe2fs -h {device} 2>/dev/null | grep -E '^(Filesystem features|Block size|Inode size|"
                       f"Journal size)' ; grep ' {GUEST_MOUNT} ' /proc/mounts")
        found: dict[str, str] = {}
        for line in made.strip().splitlines():
            key, _, value = line.partition(":") if ":" in line else ("mount", "", line)
            found[key] = value
        dm = self.sh(f"basename $(readlink -f {device})").strip()
        found["options"] = ",".join(self.sh(f"cat /proc/fs/ext4/{dm}/options").split())  # every option, defaults too
        return {key: value.strip() for key, value in found.items()}

    def mark(self, text: str) -> None:
        self.vm.run("dmsetup", "message", DM_NAME, "0", "mark", text)

    def file_digests(self) -> dict[str, str]:
        """sha256 of every file of the state folder, as the VM reads it (the replay must give the same)."""
        out = self.sh("cd /var/lib/bornes && find . -maxdepth 1 -type f -exec sha256sum {} +")
        return {name.removeprefix("./"): digest for digest, name in (line.split(None, 1) for line in out.splitlines())}

    def take_log(self, target: Path) -> dict[str, str]:
        """Stop the referee, unmount, remove the target (its last mark brings the log's count up to date)
        and copy the log's used part to ``target`` on the host. Returns the state folder's file digests."""
        self.vm.run("systemctl", "stop", "bornes.service", timeout=120)
        digests = self.file_digests()
        self.sh(f"umount /var/lib/bornes && umount {GUEST_MOUNT}")
        status = self.vm.run("dmsetup", "status", DM_NAME).stdout.split()
        highest = int(status[4])  # "0 SECTORS log-writes ENTRIES HIGHEST"
        self.vm.run("dmsetup", "remove", DM_NAME)
        used = (highest + 1 + 8) * 512  # the end mark's sector after it, and a margin
        data = self.sh(f"head -c {used} {GUEST_WORK}/log.img | gzip -1 | base64 -w0", timeout=300)
        target.write_bytes(gzip.decompress(base64.b64decode(data)))
        self.sh(f"losetup -d {' '.join(self.loops)} && umount {GUEST_WORK}")
        return digests


def hold_referee(image: Image) -> None:
    """Before the boot: ``bornes.service`` held back (see HOLD_DROP_IN), so the VM boots without a referee."""
    drop_in = image.root / HOLD_DROP_IN
    drop_in.parent.mkdir(parents=True, exist_ok=True)
    drop_in.write_text(HOLD)


# -- in the VM: the game ------------------------------------------------------------------------------


def record_game(table: KernelTable, folder: LoggedStateFolder, script_steps: list[tuple[tuple[str, ...], str]],
                setup_taps: tuple[str, ...], *, restart_after: int | None = None, kill_after: int | None = None,
                gadget: str = "scanner", figures: dict[str, float] | None = None) -> int:
    """Tap ``script_steps`` (each: its taps and the notation the referee logs) through ``gadget``; after each
    accepted card's journal line, mark ``acked-N`` in the log. ``restart_after``/``kill_after``: after that
    many cards, ``systemctl restart`` the referee (a clean stop: SQLite removes the WAL, the next start
    makes a new one) or kill it with SIGKILL (systemd restarts it). Returns the cards acknowledged; the
    seconds and qemu CPU seconds of the restart and the kill go to ``figures``."""
    done = 0
    times = figures if figures is not None else {}
    for number, (taps, notation) in enumerate(script_steps):
        if number == 0:
            for _ in setup_taps:
                said = _tap(table, gadget, setup_taps[0])
                if said.endswith(": accepted"):
                    break
        for k, payload in enumerate(taps):
            said = _tap(table, gadget, payload)
            assert said.endswith(": accepted" if k == len(taps) - 1 else ": prompt"), (payload, said)
        assert table.accepted()[-1] == notation, table.journal()[-6:]
        done += 1
        folder.mark(f"{ACKED}{done}")
        for after, what, command in ((restart_after, "restart", ("systemctl", "restart", "--no-block")),
                                     (kill_after, "SIGKILL", ("systemctl", "kill", "--signal=KILL"))):
            if done == after:  # after the kill systemd starts it again (Restart=on-failure, RestartSec=2)
                wall, cpu = time.monotonic(), table.vm.cpu_seconds()
                _referee_back(table, *command, "bornes.service")
                times[f"referee back after the {what} (s)"] = time.monotonic() - wall
                times[f"referee back after the {what} (qemu CPU s)"] = table.vm.cpu_seconds() - cpu
    return done


def _referee_back(table: KernelTable, *command: str) -> None:
    """Run ``command`` (a start, restart or kill), then wait until a new referee is up and has the scanner
    (its own "reader back on", after its "referee up": a tap before it would go to no one)."""
    first = len(table.journal())
    table.vm.run(*command, timeout=120)

    def back() -> bool:
        lines = table.journal()[first:]
        up = next((k for k, line in enumerate(lines) if line.endswith("bornes: referee up")), None)
        return up is not None and any(line.startswith("bornes: reader back on") for line in lines[up:])

    table.wait("the referee up again with its scanner", back, timeout=600)


#: Refusals that say the scan came in badly, not what it was: scanned again, as the panel asks a player to. The
#: second is the loaded host's: the emulated VM descheduled between two keys makes a scan look typed by hand.
RESCAN = (f"{INPUT}garbled", f"{INPUT}typing")


def _tap(table: KernelTable, gadget: str, payload: str) -> str:
    """One scan, scanned again while the referee refuses it as garbled or typed (the machine's doing, not the card)."""
    for _ in range(8):
        try:
            said = table.tap(gadget, payload)
        except AssertionError as error:  # no line within the tap's minute: the recording is lost; say where it hung
            raise AssertionError(f"{error}\n{table.diagnosis()}") from None
        if not said[-1].startswith(RESCAN):
            return said[-1]
    raise AssertionError(f"{payload} refused as garbled or typed eight times: {table.journal()[-6:]}")


@dataclass
class Recording:
    """What the VM left: the log, the game's notations, the state folder's files at the end."""

    log: Path
    notations: list[str]
    acknowledged: int
    digests: dict[str, str] = field(default_factory=dict)
    made: dict[str, str] = field(default_factory=dict)
    device_bytes: int = DEVICE_BYTES
    figures: dict[str, float] = field(default_factory=dict)  # the VM part's times


def record(work: Path, cards: int, *, seed: int = 3, restart_after: int | None = None,
           kill_after: int | None = None) -> Recording:
    """The whole VM part: boot the kernel tier's VM (tools/kernel/table.py), make the logged state folder, start
    the referee on it, tap ``cards`` cards of a scripted game with a mark at each chirp, take the log to
    ``work/log.bin`` and power the VM off. Raises CannotBoot where the machine cannot boot the VM."""
    from bench.driver import SETUP_TAPS, script_games
    from tools.kernel.gadgets import CATALOGUE
    from tools.kernel.table import open_table, reader_config

    started = time.monotonic()
    table = open_table(KernelTable, boot_timeout=BOOT_TIMEOUT, prepare=hold_referee)
    figures: dict[str, float] = dict(table.figures)
    vm = table.vm
    phase = [time.monotonic(), vm.cpu_seconds()]
    figures["qemu CPU seconds: boot"] = phase[1]

    def lap(name: str) -> None:  # the seconds and qemu CPU seconds of one phase of the VM part
        now, cpu = time.monotonic(), vm.cpu_seconds()
        figures[f"{name} (s)"], figures[f"{name} (qemu CPU s)"] = now - phase[0], cpu - phase[1]
        phase[:] = [now, cpu]

    try:
        table.plug("scanner")
        folder = LoggedStateFolder(table)
        made = folder.set_up()
        lap("the logged state folder made")
        # As KernelTable.configure, the start not waited for by systemctl: on a loaded host a start under TCG
        # can outlast the unit's TimeoutStartSec, and systemd then starts it again (Restart=on-failure).
        config = reader_config(CATALOGUE["scanner"].vendor_product)
        vm.run("sh", "-c", "cat > /etc/bornes/config.toml", input=config)
        _referee_back(table, "systemctl", "start", "--no-block", "bornes.service")
        lap("the referee started on it")
        script = script_games(players=2, seed=seed, games=1)
        steps = [(step.taps[len(SETUP_TAPS):] if n == 0 else step.taps, step.notation)
                 for n, step in enumerate(script.steps[:cards])]
        acked = record_game(table, folder, steps, SETUP_TAPS, restart_after=restart_after, kill_after=kill_after,
                            figures=figures)
        lap(f"the game ({cards} cards)")
        digests = folder.take_log(work / "log.bin")
        lap("the log taken")
        figures["log bytes"] = float((work / "log.bin").stat().st_size)
        figures["qemu CPU seconds"] = vm.cpu_seconds()
    finally:
        stopping = time.monotonic()
        table.close()
        figures["power-off (s)"] = time.monotonic() - stopping
    figures["VM part (boot, game, log)"] = time.monotonic() - started
    return Recording(work / "log.bin", script.notations(), acked, digests, made, DEVICE_BYTES, figures)


# -- on the host: the sweep --------------------------------------------------------------------------


@dataclass
class Verdict:
    """One point: what kind, where, the cards acknowledged before it, and what the readers made of it."""

    kind: str  # "flush" (flush or FUA), "mark", "reordered", "torn"
    where: str
    acked: int
    outcome: str  # "whole", "damage", "lost (reported)", "shorter", "wrong", "unmountable", "changed"
    cards: int | None = None  # what the readers showed (None: damage reported)
    detail: str = ""
    real: bool = False  # the real commands and the referee ran here too


@dataclass
class Figures:
    points: Counter[str] = field(default_factory=Counter)
    outcomes: Counter[tuple[str, str]] = field(default_factory=Counter)
    acknowledged: int = 0
    real_points: int = 0
    seconds: float = 0.0
    failures: list[Verdict] = field(default_factory=list)
    replay_matches: bool = False
    held: int = 0  # loop devices still attached after their point (a mount namespace copied the mount)
    cpu: dict[str, float] = field(default_factory=dict)  # the sweep process's CPU seconds (see Sweep.run)

    @property
    def lost(self) -> int:
        """Points where an acknowledged card is gone: a reader showed fewer cards than acknowledged without a
        word (at any kind of point), or said the journal lost acknowledged cards (at a flush or mark)."""
        return sum(n for (kind, outcome), n in self.outcomes.items()
                   if outcome == "shorter" or (outcome == "lost (reported)" and kind in ("flush", "mark")))

    @property
    def silent(self) -> int:
        """Silently shorter games at crash states (reordered or torn writes)."""
        return sum(n for (kind, outcome), n in self.outcomes.items()
                   if outcome == "shorter" and kind in ("reordered", "torn"))

    @property
    def damage_at_flush(self) -> int:
        return sum(n for (kind, outcome), n in self.outcomes.items()
                   if kind in ("flush", "mark") and outcome in ("damage", "lost (reported)", "unmountable"))

    def as_json(self) -> dict[str, object]:
        return {"points": dict(self.points), "outcomes": {f"{k} {o}": n for (k, o), n in sorted(self.outcomes.items())},
                "acknowledged": self.acknowledged, "real_points": self.real_points, "seconds": round(self.seconds, 1),
                "lost": self.lost, "silent": self.silent, "damage_at_flush": self.damage_at_flush,
                "replay_matches": self.replay_matches, "held": self.held, "cpu": self.cpu,
                "failures": [v.__dict__ for v in self.failures]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Figures:
        """The figures a sweep process printed (:meth:`as_json`), read back by the process that ran it."""
        outcomes: Counter[tuple[str, str]] = Counter()
        for key, count in data["outcomes"].items():
            kind, _, outcome = key.partition(" ")
            outcomes[(kind, outcome)] = count
        return cls(Counter(data["points"]), outcomes, data["acknowledged"], data["real_points"], data["seconds"],
                   [Verdict(**verdict) for verdict in data["failures"]], data["replay_matches"], data["held"],
                   data["cpu"])


#: The readers' English words (the sweep's config names no language; "1 action" since they say it so).
_IN_PROGRESS = re.compile(r"^\s*(\d+)\s.*\(in progress, (\d+) actions?\)")
_DOCTOR_GAME = re.compile(r"game (\d+) in progress \((\d+) actions?\)")
_RESUMED = re.compile(r"resumed game in progress: hand \d+, (\d+) actions")
NO_CARDS = 0
#: What a reader says when the pending note proves acknowledged cards the journal no longer holds (journal.py).
LOSS_WORDS = ("were acknowledged", "was acknowledged but is missing")


class Sweep:
    """Every durable point and mark of a recording, and seeded crash states between flushes, judged.

    ``orders`` reordered subsets and ``torn`` torn writes per flush interval; the real ``bornes`` commands and
    the referee at ``real`` flush or mark points spread evenly over the log. Runs in a process of its own
    (tools/kernel/loopmount.py says why): :func:`sweep_in_own_process`, or ``python -m tools.kernel.powercut``."""

    def __init__(self, recording: Recording, work: Path, *, orders: int, torn: int = 1, seed: int = 42,
                 real: int = 0, start_mark: str = READY) -> None:
        self.recording = recording
        self.work = work
        self.orders, self.torn = orders, torn
        self.rng = random.Random(seed)
        self.real = real
        self.start_mark = start_mark
        self.mountpoint = work / "mnt"
        self.config = work / "config.toml"
        self.figures = Figures(acknowledged=recording.acknowledged)
        self._images = 0  # images made so far: each point's has a name of its own
        self._real_at: set[int] = set()  # which flush or mark points (their order in the walk) run the real commands
        self._durable = 0  # flush or mark points judged so far

    # -- the walk --------------------------------------------------------------------------------

    def run(self) -> Figures:
        """The walk; the figures, with the process's CPU seconds (itself, and the commands it waited for) and the
        seconds its main thread waited for a CPU (a loaded host's share of the wall time, not the sweep's)."""
        loopmount.isolate_mounts()  # done already when this is the sweep's own process (main)
        started, waited = time.monotonic(), _runqueue_seconds()
        self.mountpoint.mkdir(parents=True, exist_ok=True)
        self.config.write_text(_reader_config(self.mountpoint / STATE, self.work))
        with Log(self.recording.log) as log:
            start = next(e.index for e in log.entries if e.mark == self.start_mark)
            self._plan_real(log, start)
            by_end = {interval.end: interval for interval in intervals(log)}
            device = Device(self.work / "replay.img", self.recording.device_bytes, log)
            acked, base = 0, None
            try:
                for entry in log.entries:
                    device.apply(entry)
                    device.applied = entry.index + 1
                    if entry.index < start:
                        if entry.durable_point:
                            base = self._rebase(base, device)
                        continue
                    count = _acked(entry)
                    if entry.durable_point:
                        interval = by_end.get(entry.index)
                        if interval is not None and base is not None:
                            self._crashes(interval, base, self._acked_before(log, entry.index))
                        self._judge_copy(device, "flush", f"entry {entry.index} ({_flags(entry)})", acked)
                        base = self._rebase(base, device)
                    if count is not None:
                        acked = count
                        self._judge_copy(device, "mark", f"mark {entry.mark} (entry {entry.index})", acked)
                    elif entry.mark == self.start_mark:
                        self._judge_copy(device, "mark", f"mark {entry.mark} (entry {entry.index})", acked)
                if self.recording.digests:
                    self.figures.replay_matches = self._files(self._copy(device, "final")) == self.recording.digests
            finally:
                device.close()
                if base is not None:
                    base.close()
        self.figures.seconds = time.monotonic() - started
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        self.figures.cpu = {"process": round(own.ru_utime + own.ru_stime, 1),
                            "commands": round(children.ru_utime + children.ru_stime, 1),
                            "waited for a CPU": round(_runqueue_seconds() - waited, 1)}
        return self.figures

    def _plan_real(self, log: Log, start: int) -> None:
        """Spread the ``real`` points evenly over the walk's flush and mark points (the last one among them)."""
        count = sum(1 for e in log.entries[start:] if e.durable_point or _acked(e) is not None or e.mark == READY)
        if self.real > 0 and count:
            self._real_at = {min(count - 1, round((k + 1) * count / self.real) - 1) for k in range(self.real)}

    def _rebase(self, base: Device | None, device: Device) -> Device:
        """The last durable point's image (crash states start from it): never mounted, so it may be rewritten."""
        if base is not None:
            base.close()
        return device.copy_to(self.work / "base.img")

    @staticmethod
    def _acked_before(log: Log, end: int) -> int:
        """Cards acknowledged by a crash inside the interval that ends at ``end``: every mark logged
        before that flush (a card's two syncs completed before its chirp, so before its mark)."""
        found = 0
        for entry in log.entries[:end]:
            count = _acked(entry)
            if count is not None:
                found = count
        return found

    def _crashes(self, interval: Interval, base: Device, acked: int) -> None:
        crashes: list[Crash] = reorderings(interval, self.orders, self.rng) if self.orders > 0 else []
        crashes += tearings(interval, base.log, self.rng)[:self.torn]
        for crash in crashes:
            image = self._copy(base, "crash")
            try:
                apply_crash(image, crash)
                self._judge(image, "torn" if crash.torn else "reordered", crash.describe(), acked)
            finally:
                image.close()
                image.path.unlink(missing_ok=True)

    def _copy(self, device: Device, kind: str) -> Device:
        """A copy of ``device`` under a name no image had before (never an image path used again)."""
        self._images += 1
        return device.copy_to(self.work / f"{kind}-{self._images}.img")

    def _files(self, image: Device) -> dict[str, str] | None:
        try:
            image.close()
            with loopmount.mounted(image.path, self.mountpoint) as point:
                if point.root is None:
                    return None
                folder = point.root / STATE
                return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir() if p.is_file()}
        finally:
            image.path.unlink(missing_ok=True)

    # -- one point -------------------------------------------------------------------------------------

    def _judge_copy(self, device: Device, kind: str, where: str, acked: int) -> None:
        """A flush or mark point: the replayed device copied (the walk goes on from the original), judged."""
        image = self._copy(device, "point")
        try:
            self._judge(image, kind, where, acked, real=self._durable in self._real_at)
        finally:
            self._durable += 1
            image.close()
            image.path.unlink(missing_ok=True)

    def _judge(self, image: Device, kind: str, where: str, acked: int, *, real: bool = False) -> None:
        image.close()  # the loop device holds the file while it is mounted
        with loopmount.mounted(image.path, self.mountpoint) as point:
            if point.root is None:
                verdict = Verdict(kind, where, acked, "unmountable", detail=point.reason)
            else:
                verdict = self._read(point.root / STATE, kind, where, acked, real)
        self.figures.held += int(not point.released)
        self.figures.points[kind] += 1
        self.figures.outcomes[(kind, verdict.outcome)] += 1
        self.figures.real_points += int(verdict.real)
        bad = verdict.outcome in ("shorter", "wrong", "changed") or (
            kind in ("flush", "mark") and verdict.outcome != "whole")
        if bad:
            self.figures.failures.append(verdict)

    def _read(self, folder: Path, kind: str, where: str, acked: int, real: bool) -> Verdict:
        before = _digests(folder)
        readings = read_state(self.config, self.recording.notations)
        changed = _changed(before, _digests(folder))
        if changed:
            return Verdict(kind, where, acked, "changed", detail=f"a reader changed the journal's files: {changed}")
        if real:
            readings += real_readings(self.config, self.recording.notations, self.work)
        verdict = _verdict(kind, where, acked, readings)
        verdict.real = real
        if real:
            # Gone is allowed only for what holds no card: the -shm index, a WAL the referee checkpointed and
            # removed, the temporary file of a journal whose making a cut interrupted (never linked in), and the
            # pending note's temporary file, cut between its write and its rename (the next note replaces it).
            gone = [name for name in before if not (folder / name).exists()
                    and not name.endswith(("-shm", "-wal")) and not name.startswith(JOURNAL_CREATING)
                    and name != NOTE_TEMPORARY]
            aside = [p.name for p in folder.iterdir() if ".corrupt-" in p.name]
            if gone or aside:
                return Verdict(kind, where, acked, "changed", detail=f"deleted {gone}, set aside {aside}", real=True)
        return verdict


def _runqueue_seconds() -> float:
    """Seconds this process's main thread has waited, runnable, for a CPU (/proc/self/schedstat's second field)."""
    try:
        return int(Path("/proc/self/schedstat").read_text().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0

def _flags(entry: Entry) -> str:
    return "+".join(name for name, on in (("flush", entry.flush), ("FUA", entry.fua)) if on)


def _digests(folder: Path) -> dict[str, str]:
    if not folder.is_dir():
        return {}
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


EMPTY = hashlib.sha256(b"").hexdigest()


def _changed(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """Files a reader changed, removed or made. Not counted: SQLite's ``-shm`` index (a reader's own), and an
    empty ``-wal`` a reader's SQLite makes when a WAL-mode file has none (it opens the log to read it)."""
    changed = [name for name, digest in before.items() if not name.endswith("-shm") and after.get(name) != digest]
    made = [name for name, digest in after.items() if name not in before and not name.endswith("-shm")
            and not (name.endswith("-wal") and digest == EMPTY)]
    return changed + made


def _reader_config(state: Path, work: Path) -> str:
    """The readers' config: the state folder under test, the desktop twin's hardware (nothing to probe)."""
    return (f'[reader]\nprotocol = "lines"\nport = "{work / "reader"}"\ndouble_read_window = 0\nmax_backoff = 0.5\n'
            '[display]\npanel = "dummy"\n[pins]\nfactory = "mock"\n'
            f'[state]\ndir = "{state}"\n[control]\nsocket = "{work / "control.sock"}"\n'
            '[game]\nplayers = 2\nnames = ["Anne", "Bruno"]\n')


@dataclass(frozen=True)
class Reading:
    """What one reader said: the cards of the game in progress it showed, or that the state is damaged."""

    reader: str
    cards: int | None  # None: it reported damage (or failed with a message)
    lines_ok: bool = True  # the cards it showed are the game's first ones, in order
    said: str = ""


def read_state(config: Path, notations: list[str]) -> list[Reading]:
    """``bornes history``, ``export 1 --json`` and ``doctor`` on the state, in this process through the
    CLI's own ``main`` (the code each command runs, without a Python start-up per point)."""
    from bornes.firmware.cli import main

    said: dict[str, tuple[int, str]] = {}
    for name, argv in (("history", ["history", "--all"]), ("export", ["export", "1", "--json"]),
                       ("doctor", ["doctor"])):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main([*argv, "--config", str(config)])
        said[name] = (code, out.getvalue() + err.getvalue())
    return _readings(said, notations)


def real_readings(config: Path, notations: list[str], work: Path) -> list[Reading]:
    """The same three as ``bornes`` processes, and the referee started on the state (``bornes run``)."""
    from bench.driver import Daemon, Pty, bornes_command

    said: dict[str, tuple[int, str]] = {}
    for name, argv in (("history", ["history", "--all"]), ("export", ["export", "1", "--json"]),
                       ("doctor", ["doctor"])):
        done = subprocess.run([*bornes_command(), *argv, "--config", str(config)], capture_output=True, text=True,
                              timeout=120, check=False)
        said[f"bornes {name}"] = (done.returncode, done.stdout + done.stderr)
    readings = _readings(said, notations)
    pty = Pty(work / "reader")
    daemon = Daemon(config)
    try:
        line = daemon.wait_for(lambda text: "is damaged" in text or text.endswith("referee up"), timeout=120)
        if "is damaged" in line:
            readings.append(Reading("bornes run", None, said=line))
        else:
            found = [m for m in map(_RESUMED.search, daemon.log) if m]
            readings.append(Reading("bornes run", int(found[-1].group(1)) if found else NO_CARDS, said=line))
    finally:
        try:
            code = daemon.stop()
        except subprocess.TimeoutExpired:
            daemon.kill()
            code = -1
        pty.close()
    if code != 0:
        readings.append(Reading("bornes run", -1, False, f"exit status {code}: {daemon.log[-3:]}"))
    return readings


def _readings(said: dict[str, tuple[int, str]], notations: list[str]) -> list[Reading]:
    readings = []
    for name, (code, text) in said.items():
        kind = name.removeprefix("bornes ")
        if kind == "history":
            found = [int(m.group(2)) for m in map(_IN_PROGRESS.match, text.splitlines()) if m]
            readings.append(Reading(name, (found[-1] if found else NO_CARDS) if code == 0 else None, said=text))
        elif kind == "export":
            if code == 0:
                actions = json.loads(text)["actions"]
                readings.append(Reading(name, len(actions), actions == notations[:len(actions)], text[-200:]))
            else:  # 1: "there is no game 1" (nothing recorded: no card); else damage, said in one line
                readings.append(Reading(name, NO_CARDS if code == 1 and "there is no game" in text else None,
                                        said=text))
        else:  # doctor: its journal line (a reader or pin check of the host may FAIL: not ours)
            journal = [line for line in text.splitlines() if " journal" in line[:12]]
            failed = any(line.startswith("FAIL") for line in journal)
            match = next((m for m in map(_DOCTOR_GAME.search, journal) if m), None)
            readings.append(Reading(name, None if failed else int(match.group(2)) if match else NO_CARDS,
                                    said="\n".join(journal)))
    return readings


def _verdict(kind: str, where: str, acked: int, readings: list[Reading]) -> Verdict:
    """The point's outcome: a reader showing fewer cards than acknowledged is a silent loss whatever the others
    say; any reader reporting damage makes it damage; else the game (acknowledged, or one more in flight)."""
    shown = [(r, r.cards) for r in readings if r.cards is not None]
    short = [r for r, cards in shown if cards < acked]
    if short:
        return Verdict(kind, where, acked, "shorter", short[0].cards, f"{short[0].reader}: {short[0].said[-300:]}")
    wrong = [r for r, cards in shown if cards > acked + 1 or not r.lines_ok]
    if wrong:
        return Verdict(kind, where, acked, "wrong", wrong[0].cards, f"{wrong[0].reader}: {wrong[0].said[-300:]}")
    if len(shown) < len(readings):
        damaged = next(r for r in readings if r.cards is None)
        said = f"{damaged.reader}: {damaged.said.strip()[-300:]}"
        # The pending note proves a card acknowledged that the journal no longer holds: lost, though said.
        lost = any(words in r.said for r in readings if r.cards is None for words in LOSS_WORDS)
        return Verdict(kind, where, acked, "lost (reported)" if lost else "damage", None, said)
    return Verdict(kind, where, acked, "whole", shown[0][1] if shown else None)


def new_work_dir() -> Path:
    """Where the sweep keeps its images: in memory when the host has room (/dev/shm), else /var/tmp."""
    base = "/dev/shm" if shutil.disk_usage("/dev/shm").free > (2 << 30) else "/var/tmp"
    return Path(tempfile.mkdtemp(prefix="bornes-powercut-", dir=base))


def sweep_in_own_process(recording: Recording, *, orders: int, torn: int = 1, real: int = 0, seed: int = 3,
                         timeout: float = 3600.0) -> Figures:
    """The sweep of ``recording`` run as ``python -m tools.kernel.powercut`` (a process of its own, in a mount
    namespace of its own: tools/kernel/loopmount.py), its figures read back."""
    work = recording.log.parent
    digests, out = work / "digests.json", work / "figures.json"
    digests.write_text(json.dumps(recording.digests))
    argv = [sys.executable, "-m", "tools.kernel.powercut", str(recording.log), "--digests", str(digests),
            "--orders", str(orders), "--torn", str(torn), "--real", str(real), "--seed", str(seed), "--json", str(out)]
    done = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=timeout, check=False)
    if not out.exists():
        raise RuntimeError(f"the sweep process failed (exit status {done.returncode}): {done.stderr[-2000:]}")
    return Figures.from_json(json.loads(out.read_text()))


__all__ = ["ACKED", "DEVICE_BYTES", "Figures", "LoggedStateFolder", "Recording", "Sweep", "new_work_dir", "record",
           "record_game", "sweep_in_own_process"]


def main(argv: list[str]) -> int:
    """Sweep a dm-log-writes log of the power-cut module (it keeps its last at /var/tmp/bornes-powercut-log.bin),
    no VM needed; in a mount namespace of its own. Exit status 1 when a point fails."""
    import argparse

    from bench.driver import script_games

    parser = argparse.ArgumentParser(prog="python -m tools.kernel.powercut", description=main.__doc__)
    parser.add_argument("log", type=Path)
    parser.add_argument("--seed", type=int, default=3, help="the scripted game's seed, and the sweep's (the tier's: 3)")
    parser.add_argument("--orders", type=int, default=2, help="reordered crash states per flush interval")
    parser.add_argument("--torn", type=int, default=1, choices=(0, 1, 2), help="torn writes per flush interval")
    parser.add_argument("--real", type=int, default=0, help="flush or mark points with the real commands and referee")
    parser.add_argument("--digests", type=Path, help="the VM's files (JSON): the whole log replayed must give them")
    parser.add_argument("--json", type=Path, help="write the figures there too")
    args = parser.parse_args(argv)
    loopmount.isolate_mounts()  # first, while this process has one thread
    with Log(args.log) as log:
        acked = max((count for count in map(_acked, log.entries) if count is not None), default=0)
    work = new_work_dir()
    try:
        shutil.copyfile(args.log, work / "log.bin")
        digests = json.loads(args.digests.read_text()) if args.digests else {}
        recording = Recording(work / "log.bin", script_games(players=2, seed=args.seed, games=1).notations(), acked,
                              digests)
        figures = Sweep(recording, work, orders=args.orders, torn=args.torn, seed=args.seed, real=args.real).run()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report = json.dumps(figures.as_json(), indent=1)
    if args.json:
        args.json.write_text(report)
    print(report)
    return 0 if not figures.failures else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
