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
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bench.figures import Soak

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


@dataclass(frozen=True)
class Sizes:
    """How much each part measures. The full run is the default; ``--quick`` is about a minute a part;
    ``--smoke`` is each part at its smallest, to prove it runs to its end (tests/bench), not to judge."""

    scans: int = 1000
    idle_s: float = 30.0
    hands: int = 1000
    games: int = 200
    ready_runs: int = 10
    journal_games: int = 20_000
    flat_hands: int = 100_000
    replay_actions: int = 100_000
    rounds: int = 7
    baseline_hands: int = 400
    panel_games: int = 3
    web_appends: int = 120
    club_games: int = 2
    club_idle_s: float = 20.0
    sdcard_scans: int = 300
    camera_plays: int = 2000
    kernel_scans: int = 1000
    unplug_cycles: int = 20
    powercut_cards: int = 100
    powercut_orders: int = 20
    smoke: bool = False


QUICK = Sizes(idle_s=5.0, hands=200, games=20, ready_runs=3, flat_hands=10_000, replay_actions=20_000, rounds=3,
              panel_games=2, club_games=1, club_idle_s=5.0, sdcard_scans=100, camera_plays=200, kernel_scans=200,
              unplug_cycles=5)
SMOKE = Sizes(scans=20, idle_s=0.5, hands=10, games=2, ready_runs=1, journal_games=20, flat_hands=200,
              replay_actions=500, rounds=1, baseline_hands=10, panel_games=1, web_appends=5, club_games=1,
              club_idle_s=0.5, sdcard_scans=20, camera_plays=3, kernel_scans=5, unplug_cycles=1, smoke=True)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="shorter runs (about a minute a part)")
    parser.add_argument("--smoke", action="store_true",
                        help="every part at its smallest: proves it runs to its end; the budgets are not judged "
                             "and the exit status is 0 unless a part fails")
    parser.add_argument("--scans", type=int, help="scans for tap to screen (default 1000)")
    parser.add_argument("--idle", type=float, help="seconds of idle measurement (default 30; 5 with --quick)")
    parser.add_argument("--hands", type=int, help="hands per `bornes simulate` run (default 1000; 200 with --quick)")
    parser.add_argument("--games", type=int, help="games in the soak (default 200; 20 with --quick)")
    parser.add_argument("--journal-games", type=int, help="finished games in the year-of-play journal (default 20000)")
    parser.add_argument("--flat-hands", type=int,
                        help="hands of the `bornes simulate` memory run (default 100000; 10000 with --quick)")
    parser.add_argument("--rounds", type=int,
                        help="interleaved rounds of the side-by-side with older commits (default 7; 3 with --quick)")
    parser.add_argument("--only", help=f"comma-separated parts: {', '.join(PARTS)}")
    return parser.parse_args(argv)


def sizes_from(args: argparse.Namespace) -> Sizes:
    base = SMOKE if args.smoke else QUICK if args.quick else Sizes()
    asked = {"scans": args.scans, "idle_s": args.idle, "hands": args.hands, "games": args.games,
             "journal_games": args.journal_games, "flat_hands": args.flat_hands, "rounds": args.rounds}
    return replace(base, **{name: value for name, value in asked.items() if value is not None})


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    sizes = sizes_from(args)
    parts = list(PARTS) if not args.only else args.only.split(",")
    unknown = [name for name in parts if name not in PARTS]
    if unknown:
        print(f"bench: no part named {', '.join(unknown)}; the parts are {', '.join(PARTS)}", file=sys.stderr)
        return 64
    rows: list[Row] = []
    started = time.perf_counter()
    for name in parts:
        print(f"… {name}", file=sys.stderr, flush=True)
        rows.extend(PARTS[name](sizes))

    print(f"bornes bench on {machine()}")
    print(f"command: python -m bench {' '.join(argv if argv is not None else sys.argv[1:])}".rstrip()
          + f"  ({time.perf_counter() - started:.0f} s)")
    if sizes.smoke:
        print("smoke run: every part at its smallest; the figures are not judged")
    print()
    print_table(rows)
    return 0 if sizes.smoke or not any(r.met is False for r in rows) else 1


# -- the parts, in the order a full run takes them ------------------------------------------------------


def tap_rows(sizes: Sizes) -> list[Row]:
    from bench.driver import script_games
    from bench.tap import run_taps

    scans = sizes.scans
    script = script_games(players=4, seed=1, games=1)
    seed = 2
    while script.taps < scans:  # enough whole games, back to back, for the scans asked
        script = script_games(players=4, seed=seed, games=max(2, scans // max(1, script.taps) + 2))
        seed += 1
    memory = run_taps(script, scans, durable=False)
    journal = run_taps(script, scans, durable=True)
    p99 = quantile(memory.total, 0.99)
    rows = [Row(f"tap to screen, {scans} scans, without the durable write (p50 / p99)",
                f"{ms(quantile(memory.total, 0.5))} / {ms(p99)}", "p99 ≤ 3 ms", p99 <= 0.003),
            Row("tap to screen, with the durable write (p50 / p99)",
                f"{ms(quantile(journal.total, 0.5))} / {ms(quantile(journal.total, 0.99))}")]
    for label, values in (("parse (reader decoder + resolver)", journal.parse),
                          ("engine (check + push)", journal.engine),
                          ("durable write (SQLite WAL, synchronous=FULL)", journal.write),
                          ("render (screen → PIL → dummy device)", journal.render)):
        rows.append(Row(f"  stage: {label} (p50 / p99)", f"{ms(quantile(values, 0.5))} / {ms(quantile(values, 0.99))}"))
    for result in (memory, journal):
        ratio = result.cpu_per_scan * 1000 / FRAME_MS
        rows.append(Row(f"CPU per scan ({result.store} store) vs one 128×64 I2C frame ({FRAME_MS:.0f} ms)",
                        f"{ms(result.cpu_per_scan)} = {ratio:.3f} frame (×10 for a Pi: {ratio * 10:.2f})"))
    return rows


def idle_rows(sizes: Sizes) -> list[Row]:
    from bench import figures

    percent = figures.idle_cpu(sizes.idle_s)
    return [Row(f"idle CPU over {sizes.idle_s:g} s (mock pins, pty reader)", f"{percent:.2f} % of a core",
                "≤ 0.5 %", percent <= 0.5)]


def ready_rows(sizes: Sizes) -> list[Row]:
    from bench import figures

    times = figures.start_to_ready(sizes.ready_runs)
    worst = max(times)
    return [Row(f"start to READY (sd_notify), median / max of {sizes.ready_runs}",
                f"{figures.median(times):.3f} s / {worst:.3f} s", "≤ 1.5 s", worst <= 1.5)]


def recovery_rows(sizes: Sizes) -> list[Row]:
    from bench import figures
    from bench.driver import script_games

    actions, times = figures.recovery(script_games(players=2, seed=1, games=1))
    worst = max(times)
    return [Row(f"recovery: resume a full game from the journal ({actions} actions), median / max",
                f"{figures.median(times) * 1000:.1f} ms / {worst * 1000:.1f} ms", "≤ 0.3 s", worst <= 0.3)]


def memory_rows(sizes: Sizes) -> list[Row]:
    from bench import figures
    from bench.driver import script_games

    script = script_games(players=2, seed=1, games=min(sizes.games, 10))
    result = figures.soak(script, rounds=-(-sizes.games // script.games))
    first, last = result.warm_up + 1, result.games
    return [
        Row(f"peak RSS (VmHWM) after {result.games} games through the daemon", f"{result.peak / MB:.1f} MB",
            "≤ 60 MB", result.peak <= 60 * MB),
        Row(f"soak: RSS growth from game 1 to game {result.games} ({result.actions} actions, {result.seconds:.0f} s)",
            f"{result.growth / MB:+.2f} MB", "≤ 5 MB", result.growth <= 5 * MB),
        slope_row(result, first, last),
    ]


def slope_row(result: Soak, first: int, last: int) -> Row:
    """The soak's per-game slope, judged only when the soak is long enough to show it (``--quick``'s 20 games
    are not: the caches still fill until about game 50, so the slope there is reported, not judged)."""
    from bench import figures

    figure = (f"soak: RSS growth per game over games {first}–{last}, after the caches fill (quiet mock pins; "
              f"RSS after each game, KiB: {result.curve()})")
    measured = f"{result.per_game:+.1f} KiB/game"
    if not result.judges_the_slope:
        return Row(figure.replace("after the caches fill", "caches still filling"), measured,
                   f"not judged under {2 * figures.SLOPE_WARM_UP} games (≤ 4 KiB from game "
                   f"{figures.SLOPE_WARM_UP + 1} on)")
    return Row(figure, measured, "≤ 4 KiB (one page: noise)", result.per_game <= 4)


def simulate_part(sizes: Sizes) -> list[Row]:
    return simulate_rows(sizes.hands, sizes.rounds)


def baseline_part(sizes: Sizes) -> list[Row]:
    return baseline_rows(sizes.rounds, sizes.baseline_hands, reuse_build=sizes.smoke)


def flat_rows(sizes: Sizes) -> list[Row]:
    from bench import figures

    peak, seconds = figures.simulate_memory(sizes.flat_hands)
    rows = [Row(f"peak RSS of `bornes simulate --hands {sizes.flat_hands}` (4 players, {seconds:.0f} s)",
                f"{peak / MB:.1f} MB", "< 40 MB", peak < 40 * MB)]
    short_n, short_kib, long_n, long_kib = figures.replay_memory(sizes.replay_actions)
    # Holding every verdict cost ~3.4 MB per 1000 actions; streaming leaves one score sheet a hand.
    per_thousand = (long_kib - short_kib) / MB / (long_n - short_n) * 1000
    rows.append(Row(f"peak RSS of `bornes replay --json`: {short_n} / {long_n} actions, the longest game a table "
                    "can play and its first tenth (growth per 1000)",
                    f"{short_kib / MB:.1f} / {long_kib / MB:.1f} MB ({per_thousand:+.3f} MB)",
                    "streams: ≤ 0.1 MB", per_thousand <= 0.1))
    return rows


def startup_part(sizes: Sizes) -> list[Row]:
    from bench.startup import startup_rows

    return [Row(*row) for row in startup_rows(sizes.ready_runs)]


def journal_rows(sizes: Sizes) -> list[Row]:
    from bench import figures
    from bench.journal import commit_rows, measure

    result = measure(sizes.journal_games, sizes.ready_runs)
    n = f"{result.games:,}".replace(",", " ")
    empty, full = figures.median(result.ready_empty), figures.median(result.ready_full)
    rows = [
        Row(f"year of play: {n} finished games of {result.actions_per_game} actions",
            f"{result.megabytes:.0f} MB, built in {result.build_seconds:.0f} s"),
        Row(f"start to READY, {n} games vs an empty journal (median of {sizes.ready_runs})",
            f"{full:.3f} s vs {empty:.3f} s = {full / empty:.2f}×", "≤ 1.2×", full <= 1.2 * empty),
        Row(f"  journal open check, {n} games vs empty", f"{ms(result.open_full)} vs {ms(result.open_empty)}"),
        Row("  PRAGMA quick_check of the whole file (what every start ran before)", ms(result.quick_check)),
        Row(f"`bornes history` work with {n} games (newest 50)", ms(result.history_default), "≤ 100 ms",
            result.history_default <= 0.1),
        Row(f"  `bornes history --all` work with {n} games", ms(result.history_all)),
    ]
    rows.extend(Row(label, value) for label, value in commit_rows())
    return rows


def panel_part(sizes: Sizes) -> list[Row]:
    from bench.panel import rows as panel_rows

    return [Row(*row) for players in (2, 4, 6)
            for row in panel_rows(players, sizes.panel_games, whole_frame=players == 2)]


def gestures_rows(sizes: Sizes) -> list[Row]:
    from bench.gestures import rows as gesture_rows

    return [Row(f"inputs per gesture: {g.kind} ({g.seen} seen)", f"{g.most} (median {g.median:g})",
                f"≤ {g.budget}", g.met) for g in gesture_rows()]


def web_part(sizes: Sizes) -> list[Row]:
    from bench.web import web_rows

    return [Row(*row) for row in web_rows(sizes.idle_s, sizes.web_appends)]


def club_part(sizes: Sizes) -> list[Row]:  # docs/club.md: a real Mosquitto, eight bridges and the board on loopback
    from bench.club import bench_rows

    return [Row(*row) for row in bench_rows(games=sizes.club_games, idle_s=sizes.club_idle_s)]


def hid_part(sizes: Sizes) -> list[Row]:
    from bench.hid import rows as hid_rows

    return [Row(*row) for row in hid_rows(max(20, sizes.scans))]


def sdcard_part(sizes: Sizes) -> list[Row]:  # issue 34: the tap path with every sync made slower (bench/sdcard.py)
    from bench.sdcard import DELAYS_MS, measure, sdcard_rows

    # a smoke run: the fastest and the slowest sync (a row with no budget and one with), not all four
    delays = (0, 25) if sizes.smoke else DELAYS_MS
    return [Row(*row) for row in sdcard_rows(measure(sizes.sdcard_scans, delays))]


def kit_part(sizes: Sizes) -> list[Row]:  # the table without a soldering iron: keypad, TV page, chirps
    from bench.kit import rows as kit_rows

    if sizes.smoke:
        return [Row(*row) for row in kit_rows(presses=20, live_presses=3, frames=3, plays=3)]
    return [Row(*row) for row in kit_rows()]


def camera_part(sizes: Sizes) -> list[Row]:  # docs/camera.md: generated plays, two editions' faces
    from bench.camera import rows as camera_rows

    return [Row(*row) for row in camera_rows(sizes.camera_plays, smoke=sizes.smoke)]


def rc522_part(sizes: Sizes) -> list[Row]:  # docs/readers.md, RC522: the driver over the chip's model, four pads
    from bench.rc522 import rows as rc522_rows

    if sizes.smoke:
        return [Row(*row) for row in rc522_rows(plays=4, cycle_count=2, idle_s=0.5)]
    quick = sizes.scans < 1000
    return [Row(*row) for row in rc522_rows(plays=sizes.scans, cycle_count=200 if quick else 1000,
                                            idle_s=sizes.idle_s)]


def kernel_part(sizes: Sizes) -> list[Row]:  # docs/system.md: scans through a USB gadget, Debian's kernel in qemu
    from bench.kernel import rows as kernel_rows
    from bench.kernel_webcam import rows as webcam_rows  # and a webcam's hand (docs/camera.md)

    return [Row(*row) for row in [*kernel_rows(sizes.kernel_scans, sizes.unplug_cycles, smoke=sizes.smoke),
                                  *webcam_rows(smoke=sizes.smoke)]]


def wired_part(sizes: Sizes) -> list[Row]:  # docs/system.md: the panel on an I2C bus, the buttons on a GPIO chip
    from bench.kernel_i2c import rows as wired_rows

    return [Row(*row) for row in wired_rows(smoke=sizes.smoke)]


def powercut_part(sizes: Sizes) -> list[Row]:  # docs/journal.md: the state folder on ext4 over dm-log-writes, replayed
    from bench.powercut import rows as powercut_rows

    return [Row(*row) for row in powercut_rows(sizes.powercut_cards, sizes.powercut_orders, smoke=sizes.smoke)]


#: Every part of ``python -m bench``, in the order a full run takes them. A new part is one entry here:
#: tests/bench runs each at its smallest (``--smoke``), so a part that stops rotting shows in CI.
PARTS: dict[str, Callable[[Sizes], list[Row]]] = {
    "tap": tap_rows, "idle": idle_rows, "ready": ready_rows, "recovery": recovery_rows, "memory": memory_rows,
    "simulate": simulate_part, "baseline": baseline_part, "flat": flat_rows, "startup": startup_part,
    "journal": journal_rows, "panel": panel_part, "gestures": gestures_rows, "hid": hid_part, "web": web_part,
    "club": club_part, "sdcard": sdcard_part, "kit": kit_part, "camera": camera_part, "rc522": rc522_part,
    "kernel": kernel_part, "wired": wired_part, "powercut": powercut_part,
}


#: Issue 6 asked 500 hands per CPU second of a 4-player `bornes simulate` on the development machine
#: of the time (an AMD EPYC), where the November baseline f83ad17 made 368 (issue 22, its lowest
#: figure there). This machine is slower at it (f83ad17 makes about 150 here), so the budget is that
#: bar stated against f83ad17 measured alternately in the same run: 500 / 368.
SIMULATE_BUDGET = 500 / 368


def simulate_rows(hands: int, rounds: int = 1) -> list[Row]:
    """`bornes simulate` and the engine alone: hands per second, and where one action's time goes."""
    from bench import figures
    from bench.baseline import BASELINE, side_by_side

    rows: list[Row] = []
    for players in (2, 4, 6):
        wall, cpu = figures.simulate_rate(players, hands)
        rows.append(Row(f"`bornes simulate`, {players} players, {hands} hands (per CPU second; wall clock)",
                        f"{cpu:.0f} hands/s; {wall:.0f}"))
    run = side_by_side([BASELINE], players=4, hands=hands, rounds=rounds, compiled=False)
    today, november = run.python.simulate_median, run.commit(BASELINE).simulate_median
    failures = sum(subject.failures for subject in run.subjects)
    plural = "s" if rounds != 1 else ""
    rows.append(Row(f"  4 players as Python vs {BASELINE}, {rounds} interleaved round{plural} of {hands} hands "
                    f"(per CPU second, medians; issue 6's 500 hands/s where {BASELINE} made 368)",
                    f"{today:.0f} vs {november:.0f} = {today / november:.2f}×"
                    + (f"; {failures} invariant failures" if failures else ""),
                    f"≥ {SIMULATE_BUDGET:.2f}×", today / november >= SIMULATE_BUDGET and not failures))
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


def baseline_rows(rounds: int, hands: int = 400, reuse_build: bool = False) -> list[Row]:
    """Issue 22: today's simulate and engine, compiled and as Python, side by side with the November
    baseline (f83ad17) and the tree the speed-up started from (44cd1eb), both unpacked from git history.

    The budgets judge the compiled build, which is what a ``BORNES_COMPILE=1`` install runs; the
    Python figures (a plain or editable install, the Pi's default) are shown beside them. Without
    mypy or a C compiler the budgets judge Python and a row says why the compiled build is missing.
    """
    from bench.baseline import BASELINE, side_by_side

    run = side_by_side([BASELINE, "44cd1eb"], players=4, hands=hands, rounds=rounds, reuse_build=reuse_build)
    november, start, python = run.commit(BASELINE), run.commit("44cd1eb"), run.python
    today = run.compiled or python
    rows: list[Row] = []
    if run.compiled is None:
        rows.append(Row("compiled engine (BORNES_COMPILE=1): not measured", str(run.unavailable), "built", False))
    else:
        rows.append(Row("compiled engine: BORNES_COMPILE=1 pip wheel --no-build-isolation of this tree, wall time",
                        f"{run.build_seconds:.0f} s"))
    name = "compiled" if run.compiled else "Python"
    label = f"4 players, {hands} hands, {rounds} interleaved rounds, hands per CPU second, medians"
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
