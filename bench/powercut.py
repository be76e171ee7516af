"""A power cut, for real: the ``powercut`` part of ``python -m bench`` (root, qemu), or alone:
``sudo .venv/bin/python -m bench.powercut [--cards N] [--orders N] [--real-every N]``.

Boots the kernel tier's VM, puts the referee's state folder on ext4 over dm-log-writes (made and
mounted as Raspberry Pi OS makes its root), taps N cards of a scripted game through the scanner
gadget (default 100, with a ``systemctl restart`` at a third and a SIGKILL at two thirds), a mark
in the log at each chirp; then on the host replays the log at every flush, FUA and mark, and at
``--orders`` seeded crash states per flush interval (default 20: random subsets of the writes not
yet flushed in random orders) plus two torn writes (the first 512 bytes, the first 4 KiB), and
reads each with the product's readers; the real ``bornes`` commands and the referee run at every
``--real-every``-th flush or mark (default 10). tools/kernel/powercut.py says what is judged.

Prints the points replayed by kind, the cards acknowledged, the acknowledged cards lost, the damage
reported at a flush point, the silently shorter games at crash states (the three must be 0) and
the times, with the machine's load. It measures and prints; it asserts nothing. A smoke run
(``python -m bench --smoke``) taps 4 cards with 1 crash state an interval and no real commands.
Without root or qemu the part prints one row saying so, except under ``CI=true``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time

BenchRow = tuple[str, str, str, bool | None]


class CannotMeasure(RuntimeError):
    """The machine cannot boot the tier's VM."""


def measure(cards: int, orders: int, real_every: int, seed: int = 3) -> tuple[object, object, float, float]:
    from tools.kernel.powercut import Sweep, new_work_dir, record
    from tools.kernel.table import why_not
    from tools.trixie import CannotBoot

    problem = why_not()
    if problem:
        raise CannotMeasure(problem)
    load = os.getloadavg()[0]
    started = time.monotonic()
    work = new_work_dir()
    try:
        try:
            recording = record(work, cards, seed=seed, restart_after=max(1, cards // 3) if cards >= 6 else None,
                               kill_after=max(2, 2 * cards // 3) if cards >= 6 else None)
        except CannotBoot as error:
            raise CannotMeasure(str(error)) from None
        figures = Sweep(recording, work, orders=orders, seed=seed, real_every=real_every).run()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return recording, figures, load, time.monotonic() - started


def rows(cards: int = 100, orders: int = 20, real_every: int = 10, *, smoke: bool = False) -> list[BenchRow]:
    from tools.kernel.powercut import Figures, Recording

    try:
        recording, found, load, seconds = measure(4 if smoke else cards, 1 if smoke else orders,
                                                  0 if smoke else real_every)
    except CannotMeasure as error:
        if os.environ.get("CI") == "true":
            raise
        return [("power cut: the state folder on ext4 over dm-log-writes", f"not measured: {error}", "—", None)]
    assert isinstance(recording, Recording) and isinstance(found, Figures)
    points = found.points
    return [
        (f"power cut: ext4 over dm-log-writes in the kernel tier's VM, load {load:.1f} before, "
         f"{os.getloadavg()[0]:.1f} after, {os.cpu_count()} cores",
         f"VM part {recording.figures.get('VM part (boot, game, log)', 0):.0f} s; sweep {found.seconds:.0f} s; "
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
    parser = argparse.ArgumentParser(prog="python -m bench.powercut", description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=100, help="cards tapped (default 100)")
    parser.add_argument("--orders", type=int, default=20, help="crash states per flush interval (default 20)")
    parser.add_argument("--real-every", type=int, default=10,
                        help="the real commands and the referee at every Nth flush or mark (default 10; 0: never)")
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args(argv)
    try:
        recording, found, load, seconds = measure(args.cards, args.orders, args.real_every, args.seed)
    except CannotMeasure as error:
        print(f"bench.powercut: {error}", file=sys.stderr)
        return 69
    from tools.kernel.powercut import Figures, Recording

    assert isinstance(recording, Recording) and isinstance(found, Figures)
    print(f"== bench.powercut: {args.cards} cards, {args.orders} crash states an interval; load average before "
          f"{load:.1f}, after {os.getloadavg()[0]:.1f}; {os.cpu_count()} cores")
    for name, value in recording.figures.items():
        print(f"   {name:<52} {value:.1f}")
    print(json.dumps(found.as_json(), indent=1))
    print(f"   {'total':<52} {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
