"""The camera reader on generated plays (issue 30): ``python -m bench --only camera``.

Measured on generated scenes only (``tools/camera_scenes.py``): real cards under a real lamp are not.
For each of two editions' faces (``road``, English; ``route``, French with striped faces):

1. **Enrolment**, as an owner does it at 10 frames a second (:func:`tools.camera_scenes.enrolment_sequence`:
   each kind found in the deck in 3 to 6 s, laid in the zone, three shots, nudged between them, taken
   away) fed frame by frame to the :class:`~bornes.drivers.camera.enrol.Enroller`, on a table and lamp
   of its own and from a seed of its own: the recognizer never sees the scenes it is measured on. The
   owner's time is the frames it took until the enroller had every kind, at 10 a second.
2. **Plays**: ``plays`` generated plays (``SEED``, never used while the recognizer was tuned) with the
   frames around them (cards brought in, held with or without the hand, taken away; hands passing or
   resting with no card; a kind twice in a row), a new table and lamp every 25 plays, fed to the
   :class:`~bornes.drivers.camera.watch.PlayWatcher`. Each read and refusal is matched to the play whose
   frames it came in: a play's first read is right or wrong, a second one is doubled, a read in no
   play's frames is a phantom; a play with no read was refused (the player is asked to show it again)
   or missed (nothing said). The confusion matrix is printed.
3. **Cards it was not taught**: plays of the third edition's faces (``night``) shown to the road deck:
   how many were read as a kind (a guess), refused, or let be.
4. **Speed and memory** of the camera reader alone, in a child process (:mod:`bench.camera_replay`)
   that imports only what the reader imports, loads the saved templates and replays the frames of the
   first plays from PNG files: CPU time per frame pinned to one core, then the wall time per frame in a
   cgroup allowed a quarter of a core (cgroup v1 ``cpu.cfs_quota_us`` 25000 of ``cpu.cfs_period_us``
   100000, or v2 ``cpu.max`` "25000 100000"): the stand-in for a Pi Zero 2 W. Its peak RSS (VmHWM).
5. **The real camera process**: ``bornes camera-reader`` itself (what the referee starts, with everything it
   imports), reading the same frames from the folder twin at 10 a second: its peak RSS, which
   ``systemd/bornes-camera.conf`` sizes the referee's unit by, and the reads it printed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: The plays measured (never used while the recognizer and the watcher were tuned) and the owner's enrolment.
SEED = 3_030_001
ENROL_SEED = 3_030_002
#: The smoke run's own seeds: it proves the part runs and must not spend the measured plays.
SMOKE_SEED, SMOKE_ENROL_SEED = 3_030_101, 3_030_102
SMOKE_KINDS = ("STOP", "ROLL", "D100")
EDITIONS = ("road", "route")
FOREIGN = "night"
FPS = 10.0
#: How long an owner takes to find the next kind in their deck, in seconds (the enrolment's model).
FIND_S = (3.0, 6.0)
#: The smoke run's owner is quick (its enrolment time is no figure; it only has to run).
SMOKE_FIND_S = (0.5, 1.0)
#: A read or refusal this many frames after a play's last frame still belongs to it (a card refused as it
#: is taken away is said when the zone is empty again).
AFTER = 3
#: Plays whose frames the child process replays for speed and memory.
SPEED_PLAYS = 50
#: Frames the real camera process reads at 10 a second (the first of the replayed ones): enough for its peak.
LIVE_FRAMES = 300
SMOKE_LIVE_FRAMES = 30
CGROUP_V1 = Path("/sys/fs/cgroup/cpu")
CGROUP_V2 = Path("/sys/fs/cgroup")
QUOTA_US, PERIOD_US = 25_000, 100_000
REPO = Path(__file__).resolve().parent.parent


@dataclass
class Tally:
    """What the watcher said about a run of plays, against the truth."""

    plays: int = 0
    right: int = 0
    wrong: int = 0
    missed: int = 0
    refused: int = 0
    doubled: int = 0
    phantom: int = 0
    refused_no_card: int = 0
    frames: int = 0
    looked: int = 0
    kept_plays: int = 0  # plays whose frames were written for the speed run
    confusion: Counter[tuple[str, str]] = field(default_factory=Counter)
    cpu: list[float] = field(default_factory=list)
    seconds: float = 0.0

    def not_read(self) -> int:
        return self.missed + self.refused


@dataclass(frozen=True)
class Enrolment:
    """What the owner's enrolment left: the templates (or why not), and the owner's time."""

    taught: Any  # bornes.drivers.camera.templates.Taught, or None when it did not finish
    seconds: float
    check: str


def enrol(edition: str, seed: int, kinds: Sequence[str], find_s: tuple[float, float] = FIND_S) -> Enrolment:
    """The owner's enrolment, frame by frame through the Enroller, on its own table and seed."""
    from bornes.drivers.camera.enrol import AllTaught, Enroller, NoCard
    from tools.camera_scenes import enrolment_sequence

    frames, _ = enrolment_sequence(seed, edition, kinds=kinds, find_s=find_s)
    enroller = Enroller(kinds=kinds)
    misses = 0
    for index, frame in enumerate(frames.frames):
        for news in enroller.feed(frame):
            if isinstance(news, NoCard):
                misses += 1
            if isinstance(news, AllTaught):
                return Enrolment(news.taught, (index + 1) / FPS, news.taught.describe_check())
    return Enrolment(None, len(frames.frames) / FPS,
                     f"did not finish: {enroller.index} of {len(kinds)} kinds taught, {misses} shots with no card")


def watch(edition: str, plays: int, seed: int, deck: Any, kinds: Sequence[str] | None = None,
          keep: Path | None = None, keep_plays: int = 0) -> Tally:
    """Play ``plays`` generated plays to a fresh watcher per table; score every read and refusal.
    The frames of the first ``keep_plays`` plays are written to ``keep`` (PNG) for the speed run."""
    import cv2

    from bornes.drivers.camera.watch import PlayWatcher, Read, Refusal
    from tools.camera_scenes import play_sequence

    tally = Tally()
    started = time.perf_counter()
    kept = 0
    chosen = [kinds[i % len(kinds)] for i in range(plays)] if kinds else None
    for chunk, _table in play_sequence(seed, edition, plays, kinds=chosen):
        watcher = PlayWatcher(deck)
        keeping = keep is not None and tally.plays < keep_plays  # whole tables: a play's frames need the ones before
        said: list[tuple[int, str | None]] = []  # frame, kind (None: refused)
        for index, frame in enumerate(chunk.frames):
            before = watcher.looked
            cpu = time.thread_time()
            outcomes = watcher.feed(frame, str(index))
            tally.cpu.append(time.thread_time() - cpu)
            tally.looked += watcher.looked > before
            said += [(index, o.kind) for o in outcomes if isinstance(o, Read)]
            said += [(index, None) for o in outcomes if isinstance(o, Refusal)]
            if keeping:
                assert keep is not None
                cv2.imwrite(str(keep / f"{kept:06d}.png"), frame, [cv2.IMWRITE_PNG_COMPRESSION, 1])
                kept += 1
        tally.frames += len(chunk.frames)
        tally.kept_plays += len(chunk.plays) if keeping else 0
        _score(tally, chunk.plays, said)
        if plays >= 500 and tally.plays % 250 == 0:  # a long run says where it is (the table comes at the end)
            print(f"camera, {edition}: {tally.plays} of {plays} plays, {time.perf_counter() - started:.0f} s",
                  file=sys.stderr, flush=True)
    tally.seconds = time.perf_counter() - started
    return tally


def _score(tally: Tally, plays: Sequence[Any], said: list[tuple[int, str | None]]) -> None:
    heard: dict[int, list[str | None]] = {}
    for index, kind in said:
        play = next((n for n, p in enumerate(plays) if p.first <= index <= p.last + AFTER), None)
        if play is None:
            if kind is None:
                tally.refused_no_card += 1
            else:
                tally.phantom += 1
            continue
        heard.setdefault(play, []).append(kind)
    for n, play in enumerate(plays):
        tally.plays += 1
        reads = [kind for kind in heard.get(n, []) if kind is not None]
        if not reads:
            outcome = "refused" if heard.get(n) else "missed"
            tally.refused += outcome == "refused"
            tally.missed += outcome == "missed"
            tally.confusion[play.kind, outcome] += 1
            continue
        tally.right += reads[0] == play.kind
        tally.wrong += reads[0] != play.kind
        tally.doubled += len(reads) > 1
        tally.confusion[play.kind, reads[0]] += 1


# -- speed and memory: the reader alone in a child process ------------------------------------------------


@dataclass(frozen=True)
class Replay:
    cpu: list[float]
    wall: list[float]
    looked: list[bool]
    hwm_kib: int
    cpus: list[int]

    def stats(self, values: list[float], looked_only: bool = False) -> tuple[float, float]:
        chosen = [v for v, seen in zip(values, self.looked, strict=True) if seen or not looked_only]
        return (statistics.fmean(chosen), _quantile(chosen, 0.99)) if chosen else (float("nan"), float("nan"))


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


@contextlib.contextmanager
def quarter_core() -> Iterator[Path | None]:
    """A cgroup allowed a quarter of a core (25 ms of CPU every 100 ms), or None when none can be made."""
    candidates: list[tuple[Path, dict[str, str]]] = []
    if (CGROUP_V1 / "cpu.cfs_quota_us").exists():
        candidates.append((CGROUP_V1, {"cpu.cfs_period_us": str(PERIOD_US), "cpu.cfs_quota_us": str(QUOTA_US)}))
    with contextlib.suppress(OSError):
        if "cpu" in (CGROUP_V2 / "cgroup.controllers").read_text().split():
            candidates.append((CGROUP_V2, {"cpu.max": f"{QUOTA_US} {PERIOD_US}"}))
    for root, settings in candidates:
        group = root / f"bornes-bench-camera-{os.getpid()}"
        try:
            group.mkdir()
        except OSError:
            continue
        try:
            for name, value in settings.items():
                (group / name).write_text(value)
        except OSError:
            group.rmdir()
            continue
        try:
            yield group
        finally:
            for _ in range(50):  # the child has exited; the kernel lets go of the group a moment later
                try:
                    group.rmdir()
                    break
                except OSError:
                    time.sleep(0.1)
        return
    yield None


def replay(state: Path, frames: Path, kinds: Sequence[str], *, group: Path | None = None,
           cpu: int | None = None) -> Replay:
    """Run :mod:`bench.camera_replay` on ``frames``, pinned to ``cpu`` and/or inside the cgroup ``group``."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    child = subprocess.Popen([sys.executable, "-m", "bench.camera_replay", str(state), str(frames),
                              ",".join(kinds)], cwd=REPO,
                             env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert child.stdin is not None and child.stdout is not None
    try:
        if child.stdout.readline().strip() != "ready":
            raise RuntimeError("the camera replay did not start")
        if cpu is not None:
            os.sched_setaffinity(child.pid, {cpu})
        if group is not None:
            (group / "cgroup.procs").write_text(str(child.pid))
        child.stdin.write("go\n")
        child.stdin.flush()
        found = json.loads(child.stdout.read())
    finally:
        child.stdin.close()
        if child.wait(timeout=3600) != 0:
            raise RuntimeError(f"the camera replay failed (exit {child.returncode})")
    return Replay(found["cpu"], found["wall"], found["looked"], found["hwm_kib"], found["cpus"])


def live_process(templates: Path, frames: Path, count: int) -> tuple[int, int, int]:
    """``bornes camera-reader`` on the first ``count`` frames of ``frames`` (the folder twin, 10 a second):
    its peak RSS in KiB (VmHWM, read just before it is stopped), its most threads, and how many cards it
    said it saw."""
    from bornes.drivers.camera.wire import CameraSettings

    first = sorted(frames.glob("*.png"))[:count]
    twin = frames.parent / "live"
    twin.mkdir()
    for path in first:
        (twin / path.name).symlink_to(path)
    argv = CameraSettings("folder", str(twin), templates=str(templates)).argv()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             cwd=REPO, env=env)
    assert child.stdout is not None
    lines: list[bytes] = []
    reader = threading.Thread(target=lambda: lines.extend(child.stdout or ()), daemon=True)
    reader.start()
    hwm = threads = 0
    deadline = time.monotonic() + 60  # its start: imports, templates, then the source opens ("back")
    try:
        while time.monotonic() < deadline and child.poll() is None:
            if len(lines) and deadline - time.monotonic() > len(first) / FPS + 2:
                deadline = time.monotonic() + len(first) / FPS + 2  # it gives 10 frames a second from now
            hwm = max(hwm, _status_kib(child.pid, "VmHWM"))
            threads = max(threads, _status_kib(child.pid, "Threads"))
            time.sleep(0.25)
    finally:
        child.terminate()
        child.wait(timeout=30)
        reader.join(timeout=5)
    seen = sum(json.loads(line).get("type") == "seen" for line in lines if line.startswith(b"{"))
    return hwm, threads, seen


def _status_kib(pid: int, name: str) -> int:
    with contextlib.suppress(OSError), open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(name + ":"):
                return int(line.split()[1])
    return 0


def _least_busy_cpu() -> int:
    """The CPU this process may use that has been idle longest since boot (a rough pick on a shared machine)."""
    allowed = sorted(os.sched_getaffinity(0))
    idle: dict[int, int] = {}
    with contextlib.suppress(OSError), open("/proc/stat", encoding="ascii") as stat:
        for line in stat:
            name, *values = line.split()
            if name.startswith("cpu") and name[3:].isdigit():
                idle[int(name[3:])] = int(values[3])
    return max(allowed, key=lambda cpu: idle.get(cpu, 0))


# -- the table --------------------------------------------------------------------------------------------


Rows = list[tuple[str, str, str, bool | None]]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def print_confusion(edition: str, tally: Tally) -> None:
    """Played kind by row, what the watcher said by column (a kind, refused, or missed: nothing)."""
    from bornes.drivers.camera.index import KINDS

    played = [kind for kind in KINDS if any(p == kind for p, _ in tally.confusion)]
    said = [kind for kind in KINDS if any(s == kind for _, s in tally.confusion)] + ["refused", "missed"]
    short = {kind: kind[:5] for kind in said}
    print(f"\ncamera, {edition} faces: confusion matrix of {tally.plays} plays (rows: played; columns: first read, "
          "or refused, or missed)\n")
    print("| played | " + " | ".join(short[kind] for kind in said) + " |")
    print("|---|" + "---:|" * len(said))
    for kind in played:
        print(f"| {kind} | " + " | ".join(str(tally.confusion[kind, s] or "·") for s in said) + " |")
    sys.stdout.flush()


def rows(plays: int, *, smoke: bool = False) -> Rows:
    """The bench table's rows for ``plays`` plays in each edition (smoke: three kinds, its own seeds)."""
    import cv2

    from bornes.drivers.camera.index import KINDS
    from bornes.drivers.camera.templates import save

    cv2.setNumThreads(1)
    seed, enrol_seed = (SMOKE_SEED, SMOKE_ENROL_SEED) if smoke else (SEED, ENROL_SEED)
    kinds = SMOKE_KINDS if smoke else KINDS
    speed_plays = min(plays, 1 if smoke else SPEED_PLAYS)
    out: Rows = []
    with tempfile.TemporaryDirectory(prefix="bornes-camera-bench-") as scratch:
        for edition in EDITIONS[:1] if smoke else EDITIONS:  # the smoke run proves the part runs: one edition
            find_s = SMOKE_FIND_S if smoke else FIND_S
            enrolled = enrol(edition, enrol_seed, kinds, find_s)
            out.append((f"camera, {edition} faces: owner's enrolment of {len(kinds)} kinds at 10 frames/s "
                        f"(finding each kind {find_s[0]:g}–{find_s[1]:g} s, three shots; check: {enrolled.check})",
                        f"{enrolled.seconds:.0f} s", "< 180 s", enrolled.taught is not None and enrolled.seconds < 180))
            if enrolled.taught is None:
                continue
            state = Path(scratch) / edition / "templates"
            frames = Path(scratch) / edition / "frames"
            frames.mkdir(parents=True)
            save(state, enrolled.taught)
            tally = watch(edition, plays, seed, enrolled.taught.deck(), kinds if smoke else None, frames, speed_plays)
            out += _accuracy_rows(edition, tally, seed)
            print_confusion(edition, tally)
            if edition == "road":
                out += _foreign_rows(enrolled.taught.deck(), max(2, plays // 10), seed, kinds if smoke else None)
            out += _speed_rows(edition, state, frames, kinds, tally.kept_plays,
                               SMOKE_LIVE_FRAMES if smoke else LIVE_FRAMES)
    return out


def _accuracy_rows(edition: str, tally: Tally, seed: int) -> Rows:
    percent = 100 * tally.not_read() / max(1, tally.plays)
    head = f"camera, {edition} faces: {tally.plays} generated plays (seed {seed}, {tally.frames} frames)"
    return [
        (f"{head}: read right / wrong / missed / refused / doubled / phantom",
         f"{tally.right} / {tally.wrong} / {tally.missed} / {tally.refused} / {tally.doubled} / {tally.phantom}", "—",
         None),
        (f"  {edition}: wrong kind read", str(tally.wrong), "≤ 1", tally.wrong <= 1),
        (f"  {edition}: plays not read (missed {tally.missed} + refused {tally.refused})", f"{percent:.2f} %",
         "≤ 1 %", percent <= 1),
        (f"  {edition}: plays read twice", str(tally.doubled), "≤ 2", tally.doubled <= 2),
        (f"  {edition}: reads where no card was played", str(tally.phantom), "≤ 2", tally.phantom <= 2),
        (f"  {edition}: refusals where no card was played", str(tally.refused_no_card), "—", None),
        (f"  {edition}: frames the recognizer looked at; this run's CPU per frame, mean / p99 (in-process, "
         "with the generator beside it)",
         f"{tally.looked} of {tally.frames}; {ms(statistics.fmean(tally.cpu))} / {ms(_quantile(tally.cpu, 0.99))}",
         "—", None),
    ]


def _foreign_rows(deck: Any, plays: int, seed: int, kinds: Sequence[str] | None) -> Rows:
    tally = watch(FOREIGN, plays, seed + 1, deck, kinds)
    guessed = sum(count for (played, said), count in tally.confusion.items()
                  if said not in ("refused", "missed") and said != played)
    own = sum(count for (played, said), count in tally.confusion.items() if said == played)
    return [(f"camera: {tally.plays} plays of cards it was not taught (the {FOREIGN} edition's faces) to the road "
             "deck: read as another kind / as their own kind / refused / nothing said",
             f"{guessed} / {own} / {tally.refused} / {tally.missed}", "—", None)]


def _speed_rows(edition: str, state: Path, frames: Path, kinds: Sequence[str], plays: int,
                live_frames: int) -> Rows:
    cpu = _least_busy_cpu()
    alone = replay(state, frames, kinds, cpu=cpu)
    count, seen = len(alone.cpu), sum(alone.looked)
    mean, p99 = alone.stats(alone.cpu)
    looked_mean, looked_p99 = alone.stats(alone.cpu, looked_only=True)
    out: Rows = [
        (f"  {edition}: camera reader alone, pinned to CPU {cpu}, CPU time per 640×480 frame ({count} frames of "
         f"{plays} plays, {seen} looked at): every frame mean / p99; a frame looked at mean / p99",
         f"{ms(mean)} / {ms(p99)}; {ms(looked_mean)} / {ms(looked_p99)}", "p99 ≤ 60 ms", looked_p99 <= 0.060),
        (f"  {edition}: camera reader's peak RSS (VmHWM: OpenCV, numpy, the templates, the watcher)",
         f"{alone.hwm_kib / 1024:.1f} MB", "≤ 80 MB", alone.hwm_kib <= 80 * 1024),
    ]
    if edition == EDITIONS[0]:
        shown = min(live_frames, len(list(frames.glob("*.png"))))
        hwm, threads, seen = live_process(state, frames, shown)
        out.append((f"camera: the real camera process (bornes camera-reader, folder twin, {shown} frames at 10 a "
                    f"second; it said {seen} cards seen, {threads} threads at most), peak RSS (VmHWM)",
                    f"{hwm / 1024:.1f} MB", "≤ 80 MB", 0 < hwm <= 80 * 1024))
    with quarter_core() as group:
        if group is None:
            out.append((f"  {edition}: a quarter of a core (Pi Zero 2 W stand-in): not measured, no cgroup with a "
                        "cpu controller could be made here (needs root and cgroup v1 cpu or v2 cpu.max)", "—", "—",
                        None))
            return out
        quarter = replay(state, frames, kinds, group=group, cpu=cpu)
    mean, p99 = quarter.stats(quarter.wall)
    looked_mean, looked_p99 = quarter.stats(quarter.wall, looked_only=True)
    video = count / FPS
    spent = sum(quarter.wall)
    out.append((f"  {edition}: the same in a cgroup allowed a quarter of that core ({QUOTA_US // 1000} ms of "
                f"{PERIOD_US // 1000}), wall time per frame: every frame mean / p99; a frame looked at mean / p99",
                f"{ms(mean)} / {ms(p99)}; {ms(looked_mean)} / {ms(looked_p99)}", "—", None))
    out.append((f"  {edition}: a quarter of a core keeps up with 10 frames a second? ({video:.0f} s of frames)",
                f"{spent:.0f} s of work = {spent / video:.2f}× real time", "≤ 1×", spent <= video))
    return out


def main(argv: list[str] | None = None) -> int:  # python -m bench.camera [--plays N] [--seed S]
    parser = argparse.ArgumentParser(prog="python -m bench.camera", description=__doc__.splitlines()[0])
    parser.add_argument("--plays", type=int, default=200)
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args(argv)
    for figure, measured, budget, met in rows(args.plays, smoke=args.smoke):
        print(f"| {figure} | {measured} | {budget} | {'' if met is None else ('yes' if met else 'NO')} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
