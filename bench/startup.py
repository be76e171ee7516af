"""``python -m bench.startup``: how long short commands and the daemon take to start.

Start-up on a Pi Zero 2 W is mostly imports, about ten times slower than here, so the
budgets are set against a bare interpreter on the same machine, measured in the same run:
``bornes replay`` of one hand within 4x ``python3 -c pass``, and start to READY (the
sd_notify datagram systemd waits for) within 0.25 s. Each command runs alternately with
the bare interpreter, so a drift in the machine's speed moves both.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bench import figures

REPLAY_BUDGET = 4.0  # x a bare interpreter
READY_BUDGET = 0.25  # seconds
RECORD = Path(__file__).resolve().parent.parent / "tests" / "engine" / "records" / "winning-moves-2p.record"


def one_hand_record(folder: Path) -> Path:
    """The first hand of a recorded game (everything before its first ``next``), as a record file."""
    lines: list[str] = []
    for line in RECORD.read_text(encoding="utf-8").splitlines():
        if line.strip() == "next":
            break
        lines.append(line)
    path = folder / "one-hand.record"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _wall(argv: Sequence[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def paired(command: Sequence[str], runs: int) -> tuple[float, float]:
    """Median seconds of ``command`` and of ``python -c pass``, run in turn (one warm-up each)."""
    bare = [sys.executable, "-c", "pass"]
    _wall(command), _wall(bare)
    mine, base = [], []
    for _ in range(runs):
        mine.append(_wall(command))
        base.append(_wall(bare))
    return statistics.median(mine), statistics.median(base)


def startup_rows(runs: int) -> list[tuple[str, str, str, bool | None]]:
    """(figure, measured, budget, met) for the bench table."""
    bornes = [sys.executable, "-m", "bornes.firmware.cli"]
    rows: list[tuple[str, str, str, bool | None]] = []
    with tempfile.TemporaryDirectory(prefix="bornes-startup-") as scratch:
        record = one_hand_record(Path(scratch))
        for label, argv, budget in (("`bornes --help`", [*bornes, "--help"], None),
                                    ("`bornes replay` of one hand", [*bornes, "replay", str(record)], REPLAY_BUDGET)):
            mine, base = paired(argv, runs)
            ratio = mine / base
            rows.append((f"{label} vs `python -c pass` ({base * 1000:.0f} ms), median of {runs}",
                         f"{mine * 1000:.0f} ms = {ratio:.1f}x", f"≤ {budget:g}x" if budget else "—",
                         ratio <= budget if budget else None))
    times = figures.start_to_ready(runs)
    worst = max(times)
    rows.append((f"start to READY (`bornes run`, mock pins, pty reader), median / max of {runs}",
                 f"{figures.median(times):.3f} s / {worst:.3f} s", f"≤ {READY_BUDGET:g} s", worst <= READY_BUDGET))
    return rows


def main(argv: list[str] | None = None) -> int:
    runs = int((argv if argv is not None else sys.argv[1:] or ["10"])[0])
    rows = startup_rows(runs)
    for figure, measured, budget, met in rows:
        print(f"{figure}: {measured} (budget {budget}{'' if met is None else ', met' if met else ', NOT met'})")
    return 1 if any(met is False for *_, met in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
