"""The camera reader on generated plays (issues 30, 41): ``python -m bench --only camera``.

Measured on generated scenes only (``tools/camera_scenes.py``): real cards under a real lamp are not.
For each of two editions' faces (``road``, English, pale cards with coloured ink; ``route``, French,
full-colour faces with stripes):

1. **Enrolment**, as an owner does it at 10 frames a second (:func:`tools.camera_scenes.enrolment_sequence`:
   each kind found in the deck in 3 to 6 s, laid in the zone, three shots, nudged between them, taken
   away) fed frame by frame to the :class:`~bornes.drivers.camera.enrol.Enroller`, on a table and lamp
   of its own and from a seed of its own: the recognizer never sees the scenes it is measured on. The
   owner's time is the frames it took until the enroller had every kind, at 10 a second.
2. **Plays under each light model** (:data:`tools.camera_scenes.LIGHTS`): ``plays`` generated plays
   (``SEED``, never used while the recognizer and the watcher were tuned) with the frames around them
   (cards brought in, held with or without the hand, taken away; hands passing or resting with no card;
   a kind twice in a row), a new table, camera mount (a card a fifth to two thirds of the picture's
   height, a quarter of the cameras slightly out of focus, glare on half the tables), lamp and light
   every 25 plays, at 10 frames a second, fed to the :class:`~bornes.drivers.camera.watch.PlayWatcher`
   with each frame's moment. The same plays under each light (the light has a generator of its own).
   Each read and refusal is matched to the play in whose time (its start to 0.3 s after its end) it
   came: a play's first read is right or wrong, a second one is doubled, a read in no play's time is a
   phantom; a play with no read was refused (the player is asked to show it again) or neither: then it
   was *blind* if the camera's "cannot see" status was up while it lay there, else *missed* (nothing
   said: the budget is none). ``steady`` and ``room`` have the budgets; ``failing`` (each frame its own
   exposure, ±15 %) is reported; ``stress`` (each frame its own light, in patches) must leave no play
   missed. The confusion matrix of ``room`` is printed. Under each light, the plays read by kind of scene
   (how tall a card is in the picture, a lens in focus or slightly out of it, glossy cards with a glare
   spot or matt ones): the recall must hold across them, not only on average.
3. **Seconds, not frames**: the same plays (their own seed) under the room's light sampled at 5, 7.5,
   10 and 15 frames a second: a row each, and how many plays came out otherwise than at 10.
4. **Cards it was not taught**: plays of the third edition's faces (``night``) shown to the road deck:
   how many were read as a kind (a guess), refused, or let be.
5. **Speed and memory** of the camera reader alone, in a child process (:mod:`bench.camera_replay`)
   that imports only what the reader imports, loads the saved templates and replays the frames of the
   first plays under the room's light from PNG files: CPU time per frame pinned to one core, then the
   wall time per frame in a cgroup allowed a quarter of a core (cgroup v1 ``cpu.cfs_quota_us`` 25000 of
   ``cpu.cfs_period_us`` 100000, or v2 ``cpu.max`` "25000 100000"): the stand-in for a Pi Zero 2 W.
   Its peak RSS (VmHWM).
6. **The real camera process**: ``bornes camera-reader`` itself (what the referee starts, with everything it
   imports), reading the same frames from the folder twin at 10 a second: its peak RSS, which
   ``systemd/bornes-camera.conf`` sizes the referee's unit by, and the reads it printed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
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
#: The plays the frame rates are compared on (their own, so the light tables' plays are not spent twice).
RATES_SEED = 3_030_003
#: The smoke run's own seeds: it proves the part runs and must not spend the measured plays.
SMOKE_SEED, SMOKE_ENROL_SEED = 3_030_101, 3_030_102
SMOKE_KINDS = ("STOP", "ROLL", "D100")
EDITIONS = ("road", "route")
FOREIGN = "night"
FPS = 10.0
#: The light models with budgets; the others are reported (docs/camera.md).
BUDGETED = ("steady", "room")
#: The frame rates the same plays are compared at.
RATES = (5.0, 7.5, 10.0, 15.0)
#: Plays of the unbudgeted light models and of each frame rate, as a share of ``plays``.
SHARE = 10
#: How long an owner takes to find the next kind in their deck, in seconds (the enrolment's model).
FIND_S = (3.0, 6.0)
#: The smoke run's owner is quick (its enrolment time is no figure; it only has to run).
SMOKE_FIND_S = (0.5, 1.0)
#: A read or refusal this many seconds after a play's end still belongs to it (a card refused as it is
#: taken away is said when the zone is empty again).
AFTER_S = 0.3
#: Plays whose frames the child process replays for speed and memory.
SPEED_PLAYS = 50
#: Frames the real camera process reads at 10 a second (the first of the replayed ones): enough for its peak.
LIVE_FRAMES = 300
SMOKE_LIVE_FRAMES = 30
CGROUP_V1 = Path("/sys/fs/cgroup/cpu")
CGROUP_V2 = Path("/sys/fs/cgroup")
QUOTA_US, PERIOD_US = 25_000, 100_000
REPO = Path(__file__).resolve().parent.parent
EPSILON = 1e-6


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
    blind: int = 0  # plays neither read nor refused while the camera said it could not see
    blind_spells: int = 0
    blind_s: float = 0.0
    seconds: float = 0.0  # of scenes
    frames: int = 0
    looked: int = 0
    kept_plays: int = 0  # plays whose frames were written for the speed run
    confusion: Counter[tuple[str, str]] = field(default_factory=Counter)
    cpu: list[float] = field(default_factory=list)
    outcomes: list[str] = field(default_factory=list)  # each play's: its first read's kind, refused, blind, missed
    scenes: Counter[tuple[str, bool]] = field(default_factory=Counter)  # (a kind of scene, read?): plays
    wall: float = 0.0

    def not_read(self) -> int:
        return self.missed + self.refused + self.blind


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
          keep: Path | None = None, keep_plays: int = 0, *, light: str = "steady", fps: float = FPS) -> Tally:
    """Play ``plays`` generated plays under ``light`` at ``fps`` to a fresh watcher per table; score every read,
    refusal and blind spell. The frames of the first ``keep_plays`` plays are written to ``keep`` (PNG) for
    the speed run."""
    import cv2

    from bornes.drivers.camera.watch import Blind, PlayWatcher, Read, Refusal, Seeing
    from tools.camera_scenes import play_sequence

    tally = Tally()
    started = time.perf_counter()
    kept = 0
    chosen = [kinds[i % len(kinds)] for i in range(plays)] if kinds else None
    for chunk, table in play_sequence(seed, edition, plays, kinds=chosen, fps=fps, light=light, mount=True):
        watcher = PlayWatcher(deck, fps=fps)
        keeping = keep is not None and tally.plays < keep_plays  # whole tables: a play's frames need the ones before
        said: list[tuple[float, str | None]] = []  # moment, kind (None: refused)
        blind: list[tuple[float, float]] = []  # the camera's "cannot see" spells
        for index, (frame, moment) in enumerate(zip(chunk.frames, chunk.times, strict=True)):
            before = watcher.looked
            cpu = time.thread_time()
            outcomes = watcher.feed(frame, str(index), moment)
            tally.cpu.append(time.thread_time() - cpu)
            tally.looked += watcher.looked > before
            for outcome in outcomes:
                if isinstance(outcome, Read):
                    said.append((moment, outcome.kind))
                elif isinstance(outcome, Refusal):
                    said.append((moment, None))
                elif isinstance(outcome, Blind):
                    blind.append((moment, math.inf))
                elif isinstance(outcome, Seeing) and blind:
                    blind[-1] = (blind[-1][0], moment)
            if keeping:
                assert keep is not None
                cv2.imwrite(str(keep / f"{kept:06d}.png"), frame, [cv2.IMWRITE_PNG_COMPRESSION, 1])
                kept += 1
        end = chunk.times[-1] if chunk.times else 0.0
        tally.frames += len(chunk.frames)
        tally.seconds += end
        tally.blind_spells += len(blind)
        tally.blind_s += sum(min(stop, end) - start for start, stop in blind)
        tally.kept_plays += len(chunk.plays) if keeping else 0
        _score(tally, chunk.plays, said, blind, scene_kinds(table))
        if plays >= 500 and tally.plays % 250 == 0:  # a long run says where it is (the table comes at the end)
            print(f"camera, {edition}, {light} light at {fps:g} frames/s: {tally.plays} of {plays} plays, "
                  f"{time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    tally.wall = time.perf_counter() - started
    return tally


def scene_kinds(table: Any) -> tuple[str, ...]:
    """What kinds of scene a table's plays are (issue 41: the recall must hold across them): how tall a card is in
    its camera's pictures, whether the lens is slightly out of focus, whether its cards are glossy (a glare spot
    where they pass under the lamp)."""
    from tools.camera_scenes import FRAME_H

    share = table.card_height / FRAME_H
    size = "cards a fifth to a third of the picture's height" if share < 1 / 3 else \
        "a third to a half" if share < 1 / 2 else "a half to two thirds"
    return (size, "out of focus" if table.blur >= 1.2 else "in focus",
            "glossy (a glare spot)" if table.glare is not None else "matt")


def _score(tally: Tally, plays: Sequence[Any], said: list[tuple[float, str | None]],
           blind: list[tuple[float, float]], scenes: Sequence[str] = ()) -> None:
    heard: dict[int, list[str | None]] = {}
    for moment, kind in said:
        play = next((n for n, p in enumerate(plays) if p.start_s - EPSILON <= moment <= p.end_s + AFTER_S), None)
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
        for scene in scenes:
            tally.scenes[scene, bool(reads)] += 1
        if not reads:
            unseen = any(start <= play.end_s and stop >= play.still_s for start, stop in blind)
            outcome = "refused" if heard.get(n) else "blind" if unseen else "missed"
            tally.refused += outcome == "refused"
            tally.blind += outcome == "blind"
            tally.missed += outcome == "missed"
            tally.confusion[play.kind, outcome] += 1
            tally.outcomes.append(outcome)
            continue
        tally.right += reads[0] == play.kind
        tally.wrong += reads[0] != play.kind
        tally.doubled += len(reads) > 1
        tally.confusion[play.kind, reads[0]] += 1
        tally.outcomes.append(reads[0])


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
    """Played kind by row, what the watcher said by column (a kind, refused, blind: nothing said while the camera
    said it could not see, or missed: nothing said at all)."""
    from bornes.drivers.camera.index import KINDS

    played = [kind for kind in KINDS if any(p == kind for p, _ in tally.confusion)]
    said = [kind for kind in KINDS if any(s == kind for _, s in tally.confusion)] + ["refused", "blind", "missed"]
    short = {kind: kind[:5] for kind in said}
    print(f"\ncamera, {edition} faces: confusion matrix of {tally.plays} plays (rows: played; columns: first read, "
          "or refused, blind, missed)\n")
    print("| played | " + " | ".join(short[kind] for kind in said) + " |")
    print("|---|" + "---:|" * len(said))
    for kind in played:
        print(f"| {kind} | " + " | ".join(str(tally.confusion[kind, s] or "·") for s in said) + " |")
    sys.stdout.flush()


def rows(plays: int, *, smoke: bool = False, editions: Sequence[str] = EDITIONS, lights: Sequence[str] | None = None,
         rates: Sequence[float] = RATES, speed: bool = True, foreign: bool = True) -> Rows:
    """The bench table's rows for ``plays`` plays in each edition under each budgeted light model (a tenth of
    that under the others and at each frame rate; smoke: three kinds, its own seeds, one edition)."""
    import cv2

    from bornes.drivers.camera.index import KINDS
    from bornes.drivers.camera.templates import save
    from tools.camera_scenes import LIGHTS

    cv2.setNumThreads(1)
    seed, enrol_seed = (SMOKE_SEED, SMOKE_ENROL_SEED) if smoke else (SEED, ENROL_SEED)
    kinds = SMOKE_KINDS if smoke else KINDS
    speed_plays = min(plays, 1 if smoke else SPEED_PLAYS)
    few = max(2, plays // SHARE)
    out: Rows = []
    with tempfile.TemporaryDirectory(prefix="bornes-camera-bench-") as scratch:
        for edition in editions[:1] if smoke else editions:  # the smoke run proves the part runs: one edition
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
            deck = enrolled.taught.deck()
            chosen = kinds if smoke else None
            kept = 0
            for light in lights if lights is not None else LIGHTS:
                count = plays if light in BUDGETED else few
                keeping = speed and light == "room"  # the speed is measured on the room's frames
                tally = watch(edition, count, seed, deck, chosen, frames if keeping else None,
                              speed_plays if keeping else 0, light=light)
                kept = tally.kept_plays if keeping else kept
                out += _accuracy_rows(edition, light, tally, seed)
                if light == "room":
                    print_confusion(edition, tally)
            if rates:
                out += _rate_rows(edition, deck, few, RATES_SEED if not smoke else seed, chosen, rates)
            if edition == "road" and foreign:
                out += _foreign_rows(deck, few, seed, chosen)
            if speed and kept:
                out += _speed_rows(edition, state, frames, kinds, kept, SMOKE_LIVE_FRAMES if smoke else LIVE_FRAMES)
    return out


def _accuracy_rows(edition: str, light: str, tally: Tally, seed: int) -> Rows:
    percent = 100 * tally.not_read() / max(1, tally.plays)
    judged = light in BUDGETED
    head = (f"camera, {edition} faces, {light} light: {tally.plays} generated plays (seed {seed}, {tally.frames} "
            f"frames, {tally.seconds / 60:.0f} min)")
    out: Rows = [
        (f"{head}: read right / wrong / refused / blind / missed / doubled / phantom",
         f"{tally.right} / {tally.wrong} / {tally.refused} / {tally.blind} / {tally.missed} / {tally.doubled} / "
         f"{tally.phantom}", "—", None),
        (f"  {edition}, {light}: wrong kind read", str(tally.wrong), "≤ 1" if judged else "—",
         tally.wrong <= 1 if judged else None),
        (f"  {edition}, {light}: plays not read (refused {tally.refused} + blind {tally.blind} + missed "
         f"{tally.missed})", f"{percent:.2f} %", "≤ 1 %" if judged else "—", percent <= 1 if judged else None),
        (f"  {edition}, {light}: plays neither read nor refused{'' if judged else ', nor blind while they lay'}",
         str(tally.missed + (tally.blind if judged else 0)), "0", tally.missed + (tally.blind if judged else 0) == 0),
        (f"  {edition}, {light}: plays read twice", str(tally.doubled), "≤ 2" if judged else "—",
         tally.doubled <= 2 if judged else None),
        (f"  {edition}, {light}: reads where no card was played", str(tally.phantom), "≤ 2" if judged else "—",
         tally.phantom <= 2 if judged else None),
        (f"  {edition}, {light}: refusals where no card was played", str(tally.refused_no_card), "—", None),
        (f"  {edition}, {light}: \"cannot see\" spells; their time", f"{tally.blind_spells}; {tally.blind_s:.0f} s of "
         f"{tally.seconds:.0f} s", "—", None),
        (f"  {edition}, {light}: frames the recognizer looked at; this run's CPU per frame, mean / p99 (in-process, "
         "with the generator beside it)",
         f"{tally.looked} of {tally.frames}; {ms(statistics.fmean(tally.cpu))} / {ms(_quantile(tally.cpu, 0.99))}",
         "—", None),
    ]
    kinds = list(dict.fromkeys(scene for scene, _ in tally.scenes))
    if kinds:
        read = {kind: (tally.scenes[kind, True], tally.scenes[kind, True] + tally.scenes[kind, False])
                for kind in kinds}
        out.append((f"  {edition}, {light}: plays read, by kind of scene (read of played)",
                    "; ".join(f"{kind} {got} of {total} ({100 * got / max(1, total):.1f} %)"
                              for kind, (got, total) in sorted(read.items(), key=lambda item: _scene_order(item[0]))),
                    "—", None))
    return out


def _scene_order(kind: str) -> int:
    order = ("cards a fifth", "a third to", "a half to", "in focus", "out of focus", "matt", "glossy")
    return next((n for n, start in enumerate(order) if kind.startswith(start)), len(order))


def _rate_rows(edition: str, deck: Any, plays: int, seed: int, kinds: Sequence[str] | None,
               rates: Sequence[float]) -> Rows:
    """The same plays under the room's light at each frame rate: what each read, and how many plays came out
    otherwise than at 10 frames a second."""
    tallies = {fps: watch(edition, plays, seed, deck, kinds, light="room", fps=fps) for fps in rates}
    base = tallies.get(FPS)
    out: Rows = []
    for fps, tally in tallies.items():
        percent = 100 * tally.not_read() / max(1, tally.plays)
        other = "" if base is None or fps == FPS else \
            f"; {sum(a != b for a, b in zip(tally.outcomes, base.outcomes, strict=True))} came out otherwise than at 10"
        out.append((f"  {edition}, room light at {fps:g} frames/s ({tally.plays} plays, seed {seed}, {tally.frames} "
                    f"frames): read right / wrong / refused / blind / missed / doubled / phantom{other}",
                    f"{tally.right} / {tally.wrong} / {tally.refused} / {tally.blind} / {tally.missed} / "
                    f"{tally.doubled} / {tally.phantom} ({percent:.1f} % not read)", "no wrong, none missed",
                    tally.wrong == 0 and tally.missed + tally.blind == 0))
    return out


def _foreign_rows(deck: Any, plays: int, seed: int, kinds: Sequence[str] | None) -> Rows:
    tally = watch(FOREIGN, plays, seed + 1, deck, kinds, light="room")
    guessed = sum(count for (played, said), count in tally.confusion.items()
                  if said not in ("refused", "missed", "blind") and said != played)
    own = sum(count for (played, said), count in tally.confusion.items() if said == played)
    return [(f"camera: {tally.plays} plays of cards it was not taught (the {FOREIGN} edition's faces) to the road "
             "deck, under the room's light: read as another kind / as their own kind / refused / nothing said",
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


def main(argv: list[str] | None = None) -> int:  # python -m bench.camera [--plays N] [--light L ...]
    parser = argparse.ArgumentParser(prog="python -m bench.camera", description=__doc__.splitlines()[0])
    parser.add_argument("--plays", type=int, default=200)
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--edition", action="append", choices=EDITIONS, help="only these editions (default: both)")
    parser.add_argument("--light", action="append", help="only these light models (default: all)")
    parser.add_argument("--rate", action="append", type=float, help="only these frame rates (default: 5, 7.5, 10, 15)")
    parser.add_argument("--no-rates", action="store_true", help="no frame-rate rows")
    parser.add_argument("--no-speed", action="store_true", help="no speed and memory rows")
    parser.add_argument("--no-foreign", action="store_true", help="no row of cards it was not taught")
    args = parser.parse_args(argv)
    found = rows(args.plays, smoke=args.smoke, editions=args.edition or EDITIONS, lights=args.light,
                 rates=() if args.no_rates else tuple(args.rate or RATES), speed=not args.no_speed,
                 foreign=not args.no_foreign)
    for figure, measured, budget, met in found:
        print(f"| {figure} | {measured} | {budget} | {'' if met is None else ('yes' if met else 'NO')} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
