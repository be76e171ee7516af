"""``python -m bench``: measure the referee and print one table, each figure against its budget.

The budgets are for this (development) machine and stand in for a Pi Zero 2 W, roughly ten
times slower. Nothing here asserts: the table says which budgets are met, and the exit status
is 1 when one is not, so a person (or a script) can see it at a glance.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

FRAME_MS = 128 * 64 / 8 * 9 / 400_000 * 1000  # one full frame on I2C at 400 kHz: 1024 bytes of 9 bits ≈ 23 ms
MB = 1024  # KiB per MiB


@dataclass
class Row:
    figure: str
    measured: str
    budget: str = "—"
    met: bool | None = None


def quantile(values: list[float], q: float) -> float:
    """Nearest-rank quantile (p99 of 1000 scans is the 990th slowest)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f} ms" if seconds < 0.01 else f"{seconds * 1000:.1f} ms"


def machine() -> str:
    found: dict[str, str] = {}
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                key, _, value = line.partition(":")
                found.setdefault(key.strip().lower(), value.strip())
    except OSError:
        pass
    model = found.get("model name") or found.get("hardware") or found.get("model") or "unknown CPU"
    return (f"{model}, {os.cpu_count()} cores, Python {platform.python_version()} "
            f"({platform.python_implementation()}), {platform.system()} {platform.release()}")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="shorter runs (about a minute in all)")
    parser.add_argument("--scans", type=int, help="scans for tap to screen (default 1000)")
    parser.add_argument("--idle", type=float, help="seconds of idle measurement (default 30; 5 with --quick)")
    parser.add_argument("--hands", type=int, help="hands per `bornes simulate` run (default 1000; 200 with --quick)")
    parser.add_argument("--games", type=int, help="games in the soak (default 10)")
    parser.add_argument("--only",
                        help="comma-separated parts: tap, idle, ready, recovery, memory, simulate, panel, gestures,"
                        " web")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    scans = args.scans or 1000
    idle_s = args.idle if args.idle is not None else (5.0 if args.quick else 30.0)
    hands = args.hands or (200 if args.quick else 1000)
    games = args.games or 10
    ready_runs = 3 if args.quick else 10
    parts = set((args.only or "tap,idle,ready,recovery,memory,simulate,panel,gestures,web").split(","))

    from bench import figures
    from bench.driver import script_games

    rows: list[Row] = []
    started = time.perf_counter()

    def part(name: str, work: Callable[[], None]) -> None:
        if name in parts:
            print(f"… {name}", file=sys.stderr, flush=True)
            work()

    def tap() -> None:
        from bench.tap import run_taps

        script = script_games(players=4, seed=1, games=1)
        seed = 2
        while script.taps < scans:  # enough whole games, back to back, for the scans asked
            script = script_games(players=4, seed=seed, games=max(2, scans // max(1, script.taps) + 2))
            seed += 1
        memory = run_taps(script, scans, durable=False)
        journal = run_taps(script, scans, durable=True)
        p99 = quantile(memory.total, 0.99)
        rows.append(Row(f"tap to screen, {scans} scans, without the durable write (p50 / p99)",
                        f"{ms(quantile(memory.total, 0.5))} / {ms(p99)}", "p99 ≤ 3 ms", p99 <= 0.003))
        rows.append(Row("tap to screen, with the durable write (p50 / p99)",
                        f"{ms(quantile(journal.total, 0.5))} / {ms(quantile(journal.total, 0.99))}"))
        for label, values in (("parse (reader decoder + resolver)", journal.parse),
                              ("engine (check + push)", journal.engine),
                              ("durable write (SQLite WAL, synchronous=FULL)", journal.write),
                              ("render (screen → PIL → dummy device)", journal.render)):
            rows.append(Row(f"  stage: {label} (p50 / p99)",
                            f"{ms(quantile(values, 0.5))} / {ms(quantile(values, 0.99))}"))
        for result in (memory, journal):
            ratio = result.cpu_per_scan * 1000 / FRAME_MS
            rows.append(Row(f"CPU per scan ({result.store} store) vs one 128×64 I2C frame ({FRAME_MS:.0f} ms)",
                            f"{ms(result.cpu_per_scan)} = {ratio:.3f} frame (×10 for a Pi: {ratio * 10:.2f})"))

    def idle() -> None:
        percent = figures.idle_cpu(idle_s)
        rows.append(Row(f"idle CPU over {idle_s:g} s (mock pins, pty reader)", f"{percent:.2f} % of a core",
                        "≤ 0.5 %", percent <= 0.5))

    def ready() -> None:
        times = figures.start_to_ready(ready_runs)
        worst = max(times)
        rows.append(Row(f"start to READY (sd_notify), median / max of {ready_runs}",
                        f"{figures.median(times):.3f} s / {worst:.3f} s", "≤ 1.5 s", worst <= 1.5))

    def recovery() -> None:
        script = script_games(players=2, seed=1, games=1)
        actions, times = figures.recovery(script)
        worst = max(times)
        rows.append(Row(f"recovery: resume a full game from the journal ({actions} actions), median / max",
                        f"{figures.median(times) * 1000:.1f} ms / {worst * 1000:.1f} ms", "≤ 0.3 s", worst <= 0.3))

    def memory() -> None:
        script = script_games(players=2, seed=1, games=games)
        result = figures.soak(script)
        rows.append(Row(f"peak RSS (VmHWM) after {result.games} games through the daemon",
                        f"{result.peak / MB:.1f} MB", "≤ 60 MB", result.peak <= 60 * MB))
        rows.append(Row(f"soak: RSS growth from game 1 to game {result.games} ({result.actions} actions, "
                        f"{result.seconds:.0f} s)", f"{result.growth / MB:+.2f} MB", "≤ 5 MB",
                        result.growth <= 5 * MB))

    def simulate() -> None:
        for players in (2, 4, 6):
            rate = figures.simulate_rate(players, hands)
            budgeted = players == 4
            rows.append(Row(f"`bornes simulate`, {players} players, {hands} hands", f"{rate:.0f} hands/s",
                            "≥ 500 hands/s" if budgeted else "—", rate >= 500 if budgeted else None))
        for players in (2, 4, 6):
            rate = figures.engine_replay_rate(players, hands)
            rows.append(Row(f"  engine alone: the same hands replayed from their logs, {players} players",
                            f"{rate:.0f} hands/s", "—", None))
        split = figures.simulate_split(4, hands)
        rows.append(Row(f"  one 4-player simulate action ({split.actions} actions): total", f"{split.total:.1f} µs",
                        "—", None))
        parts = (("bots' legal-move generation", split.legal),
                 ("referee (validate + apply)", split.referee),
                 ("invariant check after the action", split.check),
                 ("the rest (bot choice, physical cards)", split.rest))
        for label, value in parts:
            rows.append(Row(f"    {label}", f"{value:.1f} µs = {value / split.total:.0%}", "—", None))

    def panel() -> None:
        from bench.panel import rows as panel_rows

        for players in (2, 4, 6):
            rows.extend(Row(*row) for row in panel_rows(players, 2 if args.quick else 3, whole_frame=players == 2))

    def gestures() -> None:
        from bench.gestures import rows as gesture_rows

        for g in gesture_rows():
            rows.append(Row(f"inputs per gesture: {g.kind} ({g.seen} seen)",
                            f"{g.most} (median {g.median:g})", f"≤ {g.budget}", g.met))

    def web() -> None:
        from bench.web import web_rows

        rows.extend(Row(*row) for row in web_rows(idle_s))

    for name, work in (("tap", tap), ("idle", idle), ("ready", ready), ("recovery", recovery),
                       ("memory", memory), ("simulate", simulate), ("panel", panel), ("gestures", gestures),
                       ("web", web)):
        part(name, work)

    print(f"bornes bench on {machine()}")
    print(f"command: python -m bench {' '.join(argv if argv is not None else sys.argv[1:])}".rstrip()
          + f"  ({time.perf_counter() - started:.0f} s)")
    print()
    widths = [max(len(r.figure) for r in rows), max(len(r.measured) for r in rows),
              max(len("budget"), *(len(r.budget) for r in rows))]
    header = ("figure", "measured", "budget", "met?")
    print(f"| {header[0]:<{widths[0]}} | {header[1]:<{widths[1]}} | {header[2]:<{widths[2]}} | met? |")
    print(f"|{'-' * (widths[0] + 2)}|{'-' * (widths[1] + 2)}|{'-' * (widths[2] + 2)}|------|")
    for r in rows:
        met = "" if r.met is None else ("yes" if r.met else "NO")
        print(f"| {r.figure:<{widths[0]}} | {r.measured:<{widths[1]}} | {r.budget:<{widths[2]}} | {met:<4} |")
    return 1 if any(r.met is False for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
