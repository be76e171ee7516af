"""Scans through a real kernel: ``sudo .venv/bin/python -m bench.kernel [--scans N] [--cycles N]``.

Boots the kernel tier's VM (Debian's kernel in qemu, the trixie root with bornes installed by
install.sh; tools/kernel/), plugs the scanner gadget and types N card codes (default 1 000) into
``bornes scan-test``, once at a fast scanner's pace (3 ms a key) and once as fast as USB takes the
reports; then unplugs and replugs the scanner N times (default 20), a card after each. Prints how
many scans were read, garbled (refused: scan it again), misread as no card, read as another card
and lost, the cycles survived, and the time of each step: the cached parts, the install (0 when
its cached layer fits the tree), the boot, the whole run. It measures and prints; it asserts
nothing. The load of the machine is printed beside the figures: under TCG the VM shares the
host's cores with whatever else runs, and a slow guest reads its keys late.

Not a part of ``python -m bench``: booting the VM takes minutes under TCG, more than a smoke run
may (tests/bench runs every part with ``--smoke`` in CI). The kernel tier's own test prints the
same figures for 200 scans in every CI run.
"""

from __future__ import annotations

import argparse
import os
import sys
import time


def main(argv: list[str]) -> int:
    from tools.kernel.figures import scan_run, unplug_run
    from tools.kernel.table import KernelTable, open_table, why_not
    from tools.trixie import CannotBoot

    parser = argparse.ArgumentParser(prog="python -m bench.kernel", description=__doc__.splitlines()[0])
    parser.add_argument("--scans", type=int, default=1000, help="scans at each pace (default 1000)")
    parser.add_argument("--cycles", type=int, default=20, help="unplug and replug cycles (default 20)")
    args = parser.parse_args(argv)
    problem = why_not()
    if problem:
        print(f"bench.kernel: {problem}", file=sys.stderr)
        return 69
    load = os.getloadavg()
    started = time.monotonic()
    try:
        table = open_table(KernelTable)
    except CannotBoot as error:
        print(f"bench.kernel: {error}", file=sys.stderr)
        return 69
    runs = {}
    try:
        table.plug("scanner")
        runs["at 3 ms a key (a fast scanner)"] = scan_run(table, args.scans, gap=0.003)
        runs["as fast as USB takes the reports"] = scan_run(table, args.scans, gap=0.0)
        cycles = unplug_run(table, args.cycles)
        accel, kvm_problem = table.vm.accel, table.vm.kvm_problem
    finally:
        table.close()
    print(f"== bench.kernel: scans through a USB gadget into bornes scan-test, Debian's kernel in qemu ({accel}); "
          f"load average before {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}, after {os.getloadavg()[0]:.1f}; "
          f"{os.cpu_count()} cores")
    if kvm_problem:
        print(f"   KVM given up: {kvm_problem[:160]}")
    for name, value in table.figures.items():
        print(f"   {name:<52} {value:.1f} s")
    for pace, figures in runs.items():
        print(f"   -- {args.scans} scans {pace}")
        for name, value in figures.items():
            print(f"   {name:<52} {value:.1f}" if "second" in name else f"   {name:<52} {value:g}")
    print(f"   -- {args.cycles} unplug cycles, a card after each")
    for name, value in cycles.items():
        print(f"   {name:<52} {value:.1f}" if "second" in name else f"   {name:<52} {value:g}")
    print(f"   {'total':<52} {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
