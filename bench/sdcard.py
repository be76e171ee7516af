"""A durable tap at SD-card speed: tap-to-chirp with every sync made slower by a set delay (issue 34).

On the development VM's disk a sync costs well under a millisecond; on a Pi's SD card it costs
milliseconds, more while the card is busy (docs/journal.md cites the figures). So the referee's
real tap path runs in a child process under an ``LD_PRELOAD`` shim (bench/syncdelay.c, built with
gcc here) that lets every ``fsync``/``fdatasync`` run for real and then waits the set delay more,
and counts the calls. What runs is the daemon's chain: a pty (the reader) → ``open_reader("lines")``
→ the queue → :class:`Referee` → :class:`TableFlow` → the journal → the dummy panel → the chirp
(a :class:`Sounder` that notes when it is asked to play), then the journal's upkeep after the chirp.

Two ways to tap, both printed:

* *paced*: the next card is tapped once the referee is idle again (its upkeep after the chirp
  done), as at a table where a turn takes seconds. The budgets judge this one.
* *back to back*: the next card right after the chirp, so it may wait behind the upkeep: what a
  player tapping faster than the card can write would feel.

    python -m bench.sdcard [--scans 200] [--delays 0,2,8,25] [--commit REV] [--dir FOLDER]
    python -m bench --only sdcard

``--commit`` measures another revision of this repository (``git archive`` into a temporary folder),
e.g. the journal before round three. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHIM_SOURCE = Path(__file__).resolve().parent / "syncdelay.c"
DELAYS_MS = (0, 2, 8, 25)
#: The budgets of issue 34, judged on the paced taps: p99 tap-to-chirp for a sync delay.
BUDGETS_MS = {8: 25.0, 25: 60.0}


class ShimError(RuntimeError):
    """The sync-delay shim cannot be built (no gcc) or loaded."""


def build_shim(into: Path) -> Path:
    """Compile bench/syncdelay.c into ``into``/syncdelay.so with gcc."""
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        raise ShimError("no gcc: the sync-delay shim is C, built at bench time (apt install gcc)")
    target = into / "syncdelay.so"
    done = subprocess.run([gcc, "-shared", "-fPIC", "-O2", "-o", str(target), str(SHIM_SOURCE), "-ldl"],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ShimError(f"gcc could not build the shim: {done.stderr.strip().splitlines()[-1:]}")
    return target


@dataclass
class Run:
    """One child's taps at one delay."""

    delay_ms: int
    paced: bool
    chirp: list[float] = field(default_factory=list)  # seconds, tap of the card's last payload to its chirp
    syncs_before: list[int] = field(default_factory=list)  # per card, between that tap and the chirp
    sync_time: list[float] = field(default_factory=list)  # seconds inside those syncs (delay, real, oversleep)
    upkeep: list[float] = field(default_factory=list)  # seconds the upkeep after the chirp took
    syncs_total: int = 0
    cards: int = 0

    @property
    def per_card(self) -> float:
        return self.syncs_total / self.cards if self.cards else 0.0


def quantile(values: list[float], q: float) -> float:
    """Nearest rank, as bench/__main__.py does it."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))] if ordered else float("nan")


def run_child(shim: Path, delay_ms: int, spec: dict[str, object], *, paced: bool, tree: str = "",
              where: str | None = None) -> Run:
    """The tap path in a fresh interpreter with the shim preloaded; its figures come back as JSON."""
    with tempfile.TemporaryDirectory(prefix="bornes-sdcard-", dir=where) as scratch:
        spec_path = Path(scratch) / "spec.json"
        spec_path.write_text(json.dumps({**spec, "paced": paced, "state": str(Path(scratch) / "state")}))
        env = {**os.environ, "LD_PRELOAD": str(shim), "BORNES_SYNC_DELAY_US": str(delay_ms * 1000)}
        code = (f"import sys; sys.path[:0] = [p for p in ({tree!r}, {str(REPO)!r}) if p]; "
                "from bench.sdcard import child; child(sys.argv[1])")
        done = subprocess.run([sys.executable, "-c", code, str(spec_path)], capture_output=True, text=True,
                              env=env, cwd=tempfile.gettempdir(), check=False, timeout=1800)
    if done.returncode != 0:
        raise ShimError(f"the tap child failed: {(done.stderr.strip().splitlines() or ['?'])[-1]}")
    found = json.loads(done.stdout.strip().splitlines()[-1])
    return Run(delay_ms, paced, found["chirp"], found["syncs_before"], found["sync_time"], found["upkeep"],
               found["syncs_total"], found["cards"])


def child(spec_path: str) -> None:
    """Inside the preloaded interpreter: tap the scripted steps through the real chain, print JSON."""
    import ctypes
    import queue
    import threading
    import time
    from typing import Any

    spec = json.loads(Path(spec_path).read_text())
    try:
        counter = ctypes.c_long.in_dll(ctypes.CDLL(None), "bornes_syncs")
        spent = ctypes.c_long.in_dll(ctypes.CDLL(None), "bornes_sync_ns")
    except ValueError:
        sys.exit("the sync-delay shim is not loaded (LD_PRELOAD)")
    from bornes.drivers.display import open_display
    from bornes.drivers.readers import open_reader
    from bornes.firmware.appliance import heap
    from bornes.firmware.appliance.referee import STOP, Referee
    from bornes.firmware.storage.journal import Journal
    from bornes.firmware.storage.store import JournalStore
    from bornes.firmware.table.flow import TableFlow, Verdict

    journal = Journal.open(spec["state"])
    idle = threading.Event()
    upkeep = getattr(journal, "upkeep", None)  # the journal before round three has none: it settles inline

    upkeeps: list[float] = []

    def upkept() -> None:
        assert upkeep is not None
        started = time.perf_counter()
        upkeep()
        upkeeps.append(time.perf_counter() - started)
        idle.set()

    chirps: list[tuple[float, int, int]] = []

    class Chirp:
        def play(self, pattern: object) -> None:
            chirps.append((time.perf_counter(), counter.value, spent.value))

    flow = TableFlow(edition=spec["edition"], players=spec["seats"], names=tuple(spec["names"]), dealer=0,
                     store=JournalStore(journal))
    events: queue.Queue[Any] = queue.Queue()
    done: queue.Queue[tuple[Any, Any]] = queue.Queue()
    master, slave = os.openpty()
    display = open_display("dummy")
    reader = open_reader("lines", os.ttyname(slave), events, double_read_window=0.0)
    options: dict[str, Any] = {"upkeep": upkept} if upkeep is not None else {}
    referee = Referee(flow, events, display=display, feedback=Chirp(), watchdog=False,
                      on_outcome=lambda event, outcome: done.put((event, outcome)), **options)
    result: dict[str, Any] = {"chirp": [], "syncs_before": [], "sync_time": [], "upkeep": [], "syncs_total": 0,
                              "cards": 0}
    failure: list[BaseException] = []

    def tap_all() -> None:
        try:
            done.get(timeout=30)  # the reader coming up
            if upkeep is not None:
                idle.wait(30)
            start = counter.value
            for taps, notation in spec["steps"]:
                for payload in taps:
                    idle.clear()
                    chirps.clear()
                    upkeeps.clear()
                    sent, before, before_ns = time.perf_counter(), counter.value, spent.value
                    os.write(master, payload.encode("ascii") + b"\r\n")
                    _event, outcome = done.get(timeout=60)
                    if outcome.refused:
                        raise RuntimeError(f"{payload}: refused: {outcome.message}")
                    if spec["paced"] and upkeep is not None:
                        idle.wait(60)
                    if outcome.verdict is Verdict.ACCEPTED and outcome.action is not None:
                        if outcome.action.notation() != notation:
                            raise RuntimeError(f"{payload}: accepted {outcome.action.notation()}, not {notation}")
                        heard, syncs, in_syncs = chirps[-1]
                        result["chirp"].append(heard - sent)
                        result["syncs_before"].append(syncs - before)
                        result["sync_time"].append((in_syncs - before_ns) / 1e9)
                        result["upkeep"].extend(upkeeps[-1:] if spec["paced"] else [])
                        result["cards"] += 1
            result["syncs_total"] = counter.value - start
        except BaseException as error:
            failure.append(error)
        finally:
            events.put(STOP)

    tapper = threading.Thread(target=tap_all, name="tapper", daemon=True)
    tapper.start()
    settle = getattr(heap, "settle_after_start_up", None)  # what bornes run does (none before this round)
    if settle is not None:
        settle()
    try:
        referee.run()
    finally:
        tapper.join(10)
        reader.close()
        display.close()
        os.close(master)
        os.close(slave)
        journal.close()
    if failure:
        raise failure[0]
    print(json.dumps(result))


def script_spec(scans: int) -> dict[str, object]:
    """Whole scripted steps (a card and the taps around it) up to about ``scans`` taps, 2 players."""
    from bench.driver import NAMES, script_games

    seed, script = 1, script_games(players=2, seed=1, games=1)
    while script.taps < scans:
        seed += 1
        script = script_games(players=2, seed=seed, games=max(2, scans // max(1, script.taps) + 2))
    steps: list[tuple[list[str], str]] = []
    taps = 0
    for step in script.steps:
        if taps >= scans:
            break
        steps.append((list(step.taps), step.notation))
        taps += len(step.taps)
    setup = script.setup
    return {"edition": setup.edition, "seats": setup.seats, "names": list(NAMES[: setup.seats]), "steps": steps}


def measure(scans: int, delays: tuple[int, ...] = DELAYS_MS, *, commit: str | None = None,
            where: str | None = None, back_to_back: bool = True) -> list[Run]:
    spec = script_spec(scans)
    with tempfile.TemporaryDirectory(prefix="bornes-shim-") as scratch:
        shim = build_shim(Path(scratch))
        tree = ""
        if commit is not None:
            from bench.baseline import materialise

            tree = materialise(commit, Path(scratch) / "tree").root
        runs = []
        for delay in delays:
            runs.append(run_child(shim, delay, spec, paced=True, tree=tree, where=where))
            if back_to_back:
                runs.append(run_child(shim, delay, spec, paced=False, tree=tree, where=where))
    return runs


def sdcard_rows(runs: list[Run], label: str = "") -> list[tuple[str, str, str, bool | None]]:
    """Rows for bench/__main__.py's table: figure, measured, budget, met."""
    out: list[tuple[str, str, str, bool | None]] = []
    for run in runs:
        p50, p99 = quantile(run.chirp, 0.5) * 1000, quantile(run.chirp, 0.99) * 1000
        before = f"{statistics.mean(run.syncs_before):.2f} (max {max(run.syncs_before)})" if run.syncs_before else "-"
        in_syncs = quantile(run.sync_time, 0.5) * 1000
        own = [chirp - syncs for chirp, syncs in zip(run.chirp, run.sync_time, strict=True)]
        own_p99 = quantile(own, 0.99) * 1000
        if run.paced:
            budget = BUDGETS_MS.get(run.delay_ms)
            upkeep = f"{quantile(run.upkeep, 0.5) * 1000:.1f} ms" if run.upkeep else "none"
            out.append((f"SD card{label}: {run.delay_ms} ms per sync, {run.cards} cards paced: tap to chirp p50 / p99 "
                        "(p50 inside syncs; p99 outside them); syncs before the chirp; syncs per card in all; "
                        "upkeep after it p50",
                        f"{p50:.1f} / {p99:.1f} ms ({in_syncs:.1f}; {own_p99:.1f}); {before}; {run.per_card:.2f}; "
                        f"{upkeep}",
                        f"p99 ≤ {budget:g} ms" if budget else "—", None if budget is None else p99 <= budget))
        else:
            out.append(("  the same, back to back (the next card at the chirp): tap to chirp p50 / p99 "
                        "(p50 inside syncs; p99 outside them); syncs before the chirp",
                        f"{p50:.1f} / {p99:.1f} ms ({in_syncs:.1f}; {own_p99:.1f}); {before}", "—", None))
    return out


def strace_syncs(cards: int, commit: str | None = None, pause: float = 0.5) -> tuple[int, dict[str, int]]:
    """``strace -f -c -e trace=fsync,fdatasync`` around the real daemon (``bornes run`` of this tree, or of
    ``commit``) while ``cards`` scripted cards are tapped on its pty, ``pause`` seconds apart (the referee's
    upkeep runs when the table is quiet): (cards, calls by name), start-up and the new game included."""
    import re
    import signal
    import time

    from bench.driver import Daemon, Pty, script_games, tree_command, write_config

    if shutil.which("strace") is None:
        raise ShimError("no strace (apt install strace)")
    script = script_games(players=2, seed=3, games=max(1, cards // 60 + 1))
    with tempfile.TemporaryDirectory(prefix="bornes-strace-") as scratch:
        where = Path(scratch)
        tree = None
        if commit is not None:
            from bench.baseline import materialise

            tree = Path(materialise(commit, where / "tree").root)
        pty = Pty(where / "reader")
        report = where / "strace.txt"
        traced = ["strace", "-f", "-c", "-e", "trace=fsync,fdatasync", "-o", str(report), *tree_command(tree)]
        daemon = Daemon(write_config(where, pty.link, players=2, state=where / "state"), command=traced,
                        cwd=Path(tempfile.gettempdir()))
        try:
            daemon.wait_up()
            if not any("reader back" in text for text in daemon.log):
                daemon.wait_for(lambda text: "reader back" in text)
            for step in script.steps[:cards]:
                for payload in step.taps:
                    pty.tap(payload)
                if daemon.wait_accepted() != step.notation:
                    raise ShimError(f"the daemon accepted something else than {step.notation}")
                time.sleep(pause)
            traced = subprocess.run(["pgrep", "-P", str(daemon.pid)], capture_output=True, text=True).stdout.split()
            os.kill(int(traced[0]), signal.SIGTERM)  # the referee under strace: a clean stop writes the report
            daemon.process.wait(60)
        finally:
            daemon.kill()
            pty.close()
        text = report.read_text()
    calls = {m.group(2): int(m.group(1)) for m in re.finditer(
        r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(fsync|fdatasync)$", text, re.MULTILINE)}
    return min(cards, len(script.steps)), calls


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.sdcard", description=__doc__.splitlines()[0])
    parser.add_argument("--scans", type=int, default=200, help="taps per run (default 200)")
    parser.add_argument("--delays", default=",".join(map(str, DELAYS_MS)), help="ms added to each sync")
    parser.add_argument("--commit", help="measure this revision of the repository instead of the working tree")
    parser.add_argument("--dir", help="where the journal lives (default: the temporary folder)")
    parser.add_argument("--paced-only", action="store_true", help="skip the back-to-back runs")
    parser.add_argument("--strace", type=int, metavar="CARDS",
                        help="instead: count fsync/fdatasync with strace around `bornes run` over CARDS cards")
    args = parser.parse_args(argv)
    if args.strace:
        cards, calls = strace_syncs(args.strace, args.commit)
        said = ", ".join(f"{name} {count}" for name, count in sorted(calls.items()))
        print(f"strace -f -c -e trace=fsync,fdatasync, `bornes run` of {args.commit or 'this tree'}, {cards} cards: "
              f"{said}: {sum(calls.values()) / cards:.2f} syncs per card")
        return 0
    delays = tuple(int(d) for d in args.delays.split(","))
    runs = measure(args.scans, delays, commit=args.commit, where=args.dir, back_to_back=not args.paced_only)
    label = f" ({args.commit})" if args.commit else ""
    for figure, measured, budget, met in sdcard_rows(runs, label):
        print(f"{figure:<118} {measured:<40} {budget:<14} {'' if met is None else 'yes' if met else 'NO'}")
    return 1 if any(met is False for *_, met in sdcard_rows(runs)) else 0


if __name__ == "__main__":
    sys.exit(main())
