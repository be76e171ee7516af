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
    parser.add_argument("--journal-games", type=int, help="finished games in the year-of-play journal (default 20000)")
    parser.add_argument("--flat-hands", type=int,
                        help="hands of the `bornes simulate` memory run (default 100000; 10000 with --quick)")
    parser.add_argument("--rounds", type=int,
                        help="interleaved rounds of the side-by-side with older commits (default 7; 3 with --quick)")
    parser.add_argument("--only", help="comma-separated parts: tap, idle, ready, recovery, memory, simulate, "
                                       "baseline, flat, startup, journal, panel, gestures, web, club, sdcard")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    scans = args.scans or 1000
    idle_s = args.idle if args.idle is not None else (5.0 if args.quick else 30.0)
    hands = args.hands or (200 if args.quick else 1000)
    games = args.games or 10
    ready_runs = 3 if args.quick else 10
    flat_hands = args.flat_hands or (10_000 if args.quick else 100_000)
    everything = "tap,idle,ready,recovery,memory,simulate,baseline,flat,startup,journal,panel,gestures,web,club,sdcard"
    parts = set((args.only or everything).split(","))

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
        script = script_games(players=2, seed=1, games=min(games, 10))
        result = figures.soak(script, rounds=-(-games // script.games))
        rows.append(Row(f"peak RSS (VmHWM) after {result.games} games through the daemon",
                        f"{result.peak / MB:.1f} MB", "≤ 60 MB", result.peak <= 60 * MB))
        rows.append(Row(f"soak: RSS growth from game 1 to game {result.games} ({result.actions} actions, "
                        f"{result.seconds:.0f} s)", f"{result.growth / MB:+.2f} MB", "≤ 5 MB",
                        result.growth <= 5 * MB))
        rows.append(Row(f"soak: RSS growth per game after {result.warm_up} warm-up games (quiet mock pins; "
                        f"RSS after each: {' '.join(str(k) for k in result.rss_after_each)} KiB)",
                        f"{result.per_game:+.1f} KiB/game", "≤ 4 KiB (one page: noise)",
                        result.per_game <= 4))

    def simulate() -> None:
        rows.extend(simulate_rows(hands))

    def baseline() -> None:
        rows.extend(baseline_rows(args.rounds or (3 if args.quick else 7)))

    def startup() -> None:
        from bench.startup import startup_rows

        rows.extend(Row(*row) for row in startup_rows(ready_runs))

    def journal() -> None:
        from bench.journal import measure

        result = measure(args.journal_games or 20_000, ready_runs)
        n = f"{result.games:,}".replace(",", " ")
        empty, full = figures.median(result.ready_empty), figures.median(result.ready_full)
        rows.append(Row(f"year of play: {n} finished games of {result.actions_per_game} actions",
                        f"{result.megabytes:.0f} MB, built in {result.build_seconds:.0f} s"))
        rows.append(Row(f"start to READY, {n} games vs an empty journal (median of {ready_runs})",
                        f"{full:.3f} s vs {empty:.3f} s = {full / empty:.2f}×", "≤ 1.2×", full <= 1.2 * empty))
        rows.append(Row(f"  journal open check, {n} games vs empty",
                        f"{ms(result.open_full)} vs {ms(result.open_empty)}"))
        rows.append(Row("  PRAGMA quick_check of the whole file (what every start ran before)",
                        ms(result.quick_check)))
        rows.append(Row(f"`bornes history` work with {n} games (newest 50)", ms(result.history_default), "≤ 100 ms",
                        result.history_default <= 0.1))
        rows.append(Row(f"  `bornes history --all` work with {n} games", ms(result.history_all)))
        from bench.journal import commit_rows

        rows.extend(Row(label, value) for label, value in commit_rows())

    def flat() -> None:
        peak, seconds = figures.simulate_memory(flat_hands)
        rows.append(Row(f"peak RSS of `bornes simulate --hands {flat_hands}` (4 players, {seconds:.0f} s)",
                        f"{peak / MB:.1f} MB", "< 40 MB", peak < 40 * MB))
        short_n, short_kib, long_n, long_kib = figures.replay_memory(20_000 if args.quick else 100_000)
        # Holding every verdict cost ~3.4 MB per 1000 actions; streaming leaves one score sheet a hand.
        per_thousand = (long_kib - short_kib) / MB / (long_n - short_n) * 1000
        rows.append(Row(f"peak RSS of `bornes replay --json`: {short_n} / {long_n} actions (growth per 1000)",
                        f"{short_kib / MB:.1f} / {long_kib / MB:.1f} MB ({per_thousand:+.3f} MB)",
                        "streams: ≤ 0.1 MB", per_thousand <= 0.1))

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

    def club() -> None:  # docs/club.md: a real Mosquitto, eight bridges and the board on loopback
        from bench.club import bench_rows

        rows.extend(Row(*row) for row in bench_rows(quick=args.quick))

    def sdcard() -> None:  # issue 34: the tap path with every sync made slower (bench/sdcard.py)
        from bench.sdcard import measure, sdcard_rows

        rows.extend(Row(*row) for row in sdcard_rows(measure(min(scans, 100 if args.quick else 300))))

    for name, work in (("tap", tap), ("idle", idle), ("ready", ready), ("recovery", recovery),
                       ("memory", memory), ("simulate", simulate), ("baseline", baseline), ("flat", flat),
                       ("startup", startup), ("journal", journal), ("panel", panel), ("gestures", gestures),
                       ("web", web), ("club", club), ("sdcard", sdcard)):
        part(name, work)

    print(f"bornes bench on {machine()}")
    print(f"command: python -m bench {' '.join(argv if argv is not None else sys.argv[1:])}".rstrip()
          + f"  ({time.perf_counter() - started:.0f} s)")
    print()
    print_table(rows)
    return 1 if any(r.met is False for r in rows) else 0


def simulate_rows(hands: int) -> list[Row]:
    """`bornes simulate` and the engine alone: hands per second, and where one action's time goes."""
    from bench import figures

    rows: list[Row] = []
    for players in (2, 4, 6):
        wall, cpu = figures.simulate_rate(players, hands)
        budgeted = players == 4
        rows.append(Row(f"`bornes simulate`, {players} players, {hands} hands (per CPU second; wall clock)",
                        f"{cpu:.0f} hands/s; {wall:.0f}", "≥ 500 hands/s" if budgeted else "—",
                        cpu >= 500 if budgeted else None))
    for players in (2, 4, 6):
        rate = figures.engine_replay_rate(players, hands)
        budgeted = players == 4
        rows.append(Row(f"  engine alone: the same hands replayed from their logs, {players} players",
                        f"{rate:.0f} hands/s", "≥ 1500 hands/s" if budgeted else "—",
                        rate >= 1500 if budgeted else None))
    measured = figures.legal_actions_cost()
    assert measured is not None, "this tree replays the games its own bots played"
    calls, micros, _ = measured
    rows.append(Row(f"one legal_actions call, seat of 6–7 cards, every kind ({calls} calls, best of 5)",
                    f"{micros:.2f} µs", "≤ 10 µs", micros <= 10))
    split = figures.simulate_split(4, hands)
    rows.append(Row(f"  one 4-player simulate action ({split.actions} actions): total", f"{split.total:.1f} µs",
                    "—", None))
    parts = (("bots' legal-move generation", split.legal),
             ("referee (validate + apply)", split.referee),
             ("invariant check after the action", split.check),
             ("the rest (bot choice, physical cards)", split.rest))
    for label, value in parts:
        rows.append(Row(f"    {label}", f"{value:.1f} µs = {value / split.total:.0%}", "—", None))
    return rows


def baseline_rows(rounds: int) -> list[Row]:
    """Issue 22: today's simulate and engine, compiled and as Python, side by side with the November
    baseline (f83ad17) and the tree the speed-up started from (44cd1eb), both unpacked from git history.

    The budgets judge the compiled build, which is what a ``BORNES_COMPILE=1`` install runs; the
    Python figures (a plain or editable install, the Pi's default) are shown beside them. Without
    mypy or a C compiler the budgets judge Python and a row says why the compiled build is missing.
    """
    from bench.baseline import BASELINE, side_by_side

    run = side_by_side([BASELINE, "44cd1eb"], players=4, hands=400, rounds=rounds)
    november, start, python = run.commit(BASELINE), run.commit("44cd1eb"), run.python
    today = run.compiled or python
    rows: list[Row] = []
    if run.compiled is None:
        rows.append(Row("compiled engine (BORNES_COMPILE=1): not measured", str(run.unavailable), "built", False))
    else:
        rows.append(Row("compiled engine: BORNES_COMPILE=1 pip wheel --no-build-isolation of this tree, wall time",
                        f"{run.build_seconds:.0f} s"))
    name = "compiled" if run.compiled else "Python"
    label = f"4 players, 400 hands, {rounds} interleaved rounds, hands per CPU second, medians"
    ratio = today.simulate_median / november.simulate_median
    rows.append(Row(f"`bornes simulate` today ({name}) vs {BASELINE} ({label})",
                    f"{today.simulate_median:.0f} vs {november.simulate_median:.0f} = {ratio:.2f}×", "≥ 3.3×",
                    ratio >= 3.3))
    ratio = today.replay_median / start.replay_median
    rows.append(Row(f"  engine alone (the same games replayed) today ({name}) vs {start.label} and {BASELINE}",
                    f"{today.replay_median:.0f} vs {start.replay_median:.0f} = {ratio:.2f}× "
                    f"(vs {november.replay_median:.0f} = {today.replay_median / november.replay_median:.2f}×)",
                    "≥ 2× 44cd1eb", ratio >= 2))
    ratio = today.simulate_median / start.simulate_median
    rows.append(Row(f"  `bornes simulate` today ({name}) vs {start.label}",
                    f"{today.simulate_median:.0f} vs {start.simulate_median:.0f} = {ratio:.2f}×"))
    if run.compiled is not None:
        rows.append(Row(f"  today as Python (plain or editable install): simulate vs {BASELINE}; "
                        f"engine alone vs {start.label}",
                        f"{python.simulate_median:.0f} vs {november.simulate_median:.0f} = "
                        f"{python.simulate_median / november.simulate_median:.2f}×; {python.replay_median:.0f} vs "
                        f"{start.replay_median:.0f} = {python.replay_median / start.replay_median:.2f}×"))
        rows.append(Row("  compiled ÷ Python: simulate; engine alone",
                        f"{today.simulate_median / python.simulate_median:.2f}×; "
                        f"{today.replay_median / python.replay_median:.2f}×"))
    if run.legal:
        rows.append(Row(f"one legal_actions call for the seat in turn holding 6–7 cards ({run.legal_calls} turns of "
                        "200 hands replayed, best of 5 passes)",
                        "; ".join(f"{label.removeprefix('today, ')} {micros:.2f} µs"
                                  for label, micros in run.legal.items())))
    failed = [s.label for s in run.subjects if s.failures]
    rows.append(Row("  invariant failures in the side-by-side runs", ", ".join(failed) or "none", "none",
                    not failed))
    return rows


def print_table(rows: list[Row]) -> None:
    """The figures as a Markdown table, each with its budget and whether it was met."""
    widths = [max(len(r.figure) for r in rows), max(len(r.measured) for r in rows),
              max(len("budget"), *(len(r.budget) for r in rows))]
    header = ("figure", "measured", "budget", "met?")
    print(f"| {header[0]:<{widths[0]}} | {header[1]:<{widths[1]}} | {header[2]:<{widths[2]}} | met? |")
    print(f"|{'-' * (widths[0] + 2)}|{'-' * (widths[1] + 2)}|{'-' * (widths[2] + 2)}|------|")
    for r in rows:
        met = "" if r.met is None else ("yes" if r.met else "NO")
        print(f"| {r.figure:<{widths[0]}} | {r.measured:<{widths[1]}} | {r.budget:<{widths[2]}} | {met:<4} |")


if __name__ == "__main__":
    sys.exit(main())
