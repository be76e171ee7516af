"""A power cut, for real: the ``powercut`` part of ``python -m bench`` (root, qemu), or alone:
``sudo .venv/bin/python -m bench.powercut [--cards N] [--orders N] [--torn N] [--real N]``.

Boots the kernel tier's VM, puts the referee's state folder on ext4 over dm-log-writes (made and
mounted as Raspberry Pi OS makes its root), taps N cards of a scripted game through the scanner
gadget (default 100, with a ``systemctl restart`` at a third and a SIGKILL at two thirds), a mark
in the log at each chirp; then on the host, in a process and mount namespace of its own, replays
the log at every flush, FUA and mark, and at ``--orders`` seeded crash states per flush interval
(default 20: random subsets of the writes not yet flushed in random orders) plus ``--torn`` torn
writes (default 2: the first 512 bytes, the first 4 KiB), and reads each with the product's
readers; the real ``bornes`` commands and the referee run at ``--real`` flush or mark points
spread over the log (default 40). tools/kernel/powercut.py says what is judged.

Prints the points replayed by kind, the cards acknowledged, the acknowledged cards lost, the damage
reported at a flush point, the silently shorter games at crash states (the three must be 0), the
times and CPU seconds (qemu's, the sweep's), with the machine's load. It measures and prints; it
asserts nothing. A smoke run (``python -m bench --smoke``) taps 2 cards with one crash state and one
torn write an interval and no real commands. Without root or qemu the part prints one row saying
so, except under ``CI=true``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

BenchRow = tuple[str, str, str, bool | None]


class CannotMeasure(RuntimeError):
    """The machine cannot boot the tier's VM."""


@dataclass(frozen=True)
class Sizes:
    cards: int = 100
    orders: int = 20
    torn: int = 2
    real: int = 40
    seed: int = 3


SMOKE = Sizes(cards=2, orders=1, torn=1, real=0)
#: A full run keeps its log, its VM's files and its figures here (``python -m tools.kernel.powercut LOG
#: --digests DIGESTS`` sweeps the log again without a VM).
KEPT = Path("/var/tmp/bornes-powercut-bench")


def measure(sizes: Sizes) -> tuple[object, object, float, float]:
    """The VM part then the sweep (in its own process): the recording, the figures, the load before, seconds."""
    from tools.kernel.powercut import new_work_dir, record, sweep_in_own_process
    from tools.kernel.table import why_not
    from tools.trixie import CannotBoot

    problem = why_not()
    if problem:
        raise CannotMeasure(problem)
    load = os.getloadavg()[0]
    started = time.monotonic()
    work = new_work_dir()
    try:
        cards = sizes.cards
        try:
            recording = record(work, cards, seed=sizes.seed, restart_after=cards // 3 if cards >= 6 else None,
                               kill_after=2 * cards // 3 if cards >= 6 else None)
        except CannotBoot as error:
            raise CannotMeasure(str(error)) from None
        if sizes != SMOKE:
            KEPT.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(recording.log, KEPT / "log.bin")
            (KEPT / "digests.json").write_text(json.dumps(recording.digests))
            (KEPT / "recording.json").write_text(json.dumps({"sizes": asdict(sizes), "vm": recording.figures,
                                                             "made": recording.made, "load before": load}, indent=1))
        figures = sweep_in_own_process(recording, orders=sizes.orders, torn=sizes.torn, real=sizes.real,
                                       seed=sizes.seed, timeout=6 * 3600)
        if sizes != SMOKE:
            (KEPT / "sweep.json").write_text(json.dumps(figures.as_json(), indent=1, default=str))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return recording, figures, load, time.monotonic() - started


def rows(cards: int = 100, orders: int = 20, *, smoke: bool = False) -> list[BenchRow]:
    from tools.kernel.powercut import Figures, Recording

    sizes = SMOKE if smoke else Sizes(cards=cards, orders=orders)
    try:
        recording, found, load, seconds = measure(sizes)
    except CannotMeasure as error:
        if os.environ.get("CI") == "true":
            raise
        return [("power cut: the state folder on ext4 over dm-log-writes", f"not measured: {error}", "—", None)]
    assert isinstance(recording, Recording) and isinstance(found, Figures)
    points, vm = found.points, recording.figures
    return [
        (f"power cut: ext4 over dm-log-writes in the kernel tier's VM, {sizes.cards} cards, {sizes.orders} "
         f"reordered and {sizes.torn} torn an interval; load {load:.1f} before, {os.getloadavg()[0]:.1f} after, "
         f"{os.cpu_count()} cores",
         f"VM part {vm.get('VM part (boot, game, log)', 0):.0f} s (qemu {vm.get('qemu CPU seconds', 0):.0f} CPU s); "
         f"sweep {found.seconds:.0f} s ({found.cpu.get('process', 0) + found.cpu.get('commands', 0):.0f} CPU s); "
         f"whole {seconds:.0f} s", "—", None),
        (f"  points replayed: flush/FUA, mark, reordered, torn ({found.real_points} with the real commands "
         "and the referee)",
         f"{points['flush']} / {points['mark']} / {points['reordered']} / {points['torn']}", "—", None),
        ("  cards acknowledged; the replayed log gives the VM's own files", f"{found.acknowledged}; "
         f"{'yes' if found.replay_matches else 'NO'}", "yes", found.replay_matches),
        ("  acknowledged cards lost", str(found.lost), "0", found.lost == 0),
        ("  damage reported at a flush or mark", str(found.damage_at_flush), "0", found.damage_at_flush == 0),
        ("  silently shorter games at reordered or torn points", str(found.silent), "0", found.silent == 0),
    ]


def main(argv: list[str]) -> int:
    defaults = Sizes()
    parser = argparse.ArgumentParser(prog="python -m bench.powercut", description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=defaults.cards, help="cards tapped (default 100)")
    parser.add_argument("--orders", type=int, default=defaults.orders,
                        help="reordered crash states per flush interval (default 20)")
    parser.add_argument("--torn", type=int, default=defaults.torn, choices=(0, 1, 2),
                        help="torn writes per flush interval (default 2)")
    parser.add_argument("--real", type=int, default=defaults.real,
                        help="flush or mark points with the real commands and the referee (default 40)")
    parser.add_argument("--seed", type=int, default=defaults.seed)
    args = parser.parse_args(argv)
    sizes = Sizes(args.cards, args.orders, args.torn, args.real, args.seed)
    try:
        recording, found, load, seconds = measure(sizes)
    except CannotMeasure as error:
        print(f"bench.powercut: {error}", file=sys.stderr)
        return 69
    from tools.kernel.powercut import Figures, Recording

    assert isinstance(recording, Recording) and isinstance(found, Figures)
    print(f"== bench.powercut: {sizes}; load average before {load:.1f}, after {os.getloadavg()[0]:.1f}; "
          f"{os.cpu_count()} cores")
    for name, value in recording.figures.items():
        print(f"   {name:<52} {value:.1f}")
    print(json.dumps(found.as_json(), indent=1))
    print(f"   {'total':<52} {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
