"""Scans through a real kernel: the ``kernel`` part of ``python -m bench`` (root, qemu), or alone:
``sudo .venv/bin/python -m bench.kernel [--scans N] [--cycles N]``.

Boots the kernel tier's VM (Debian's kernel in qemu, the trixie root with bornes installed by
install.sh; tools/kernel/), plugs the scanner gadget and types N card codes (default 1 000) into
``bornes scan-test``, once at a fast scanner's pace (3 ms a key) and once as fast as USB takes the
reports; then unplugs and replugs the scanner N times (default 20), a card after each. Prints how
many scans were read, garbled (refused: scan it again), misread as no card, read as another card
and lost, the cycles survived, and the time of each step: the cached parts, the install (0 when
its cached layer fits the tree), the boot, the whole run. It measures and prints; it asserts
nothing. The load of the machine is printed beside the figures: under TCG the VM shares the
host's cores with whatever else runs, and a slow guest reads its keys late.

A smoke run (``python -m bench --smoke``, which tests/bench runs in CI) does not boot a VM of its
own: a boot is most of a minute of CPU under TCG, and tests/kernel/test_usb_readers.py already has one.
Its figures test runs this part's measuring (:func:`measure_on`, its 200 scans at the scanner's pace and
one unplug cycle, on a second scanner beside the referee's) and its rows (:func:`rows_from`) on that VM, so
the code that a full run takes is the code CI runs. Without root or qemu the part prints one row saying
so, except under ``CI=true``, where that is an error.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tools.kernel.table import KernelTable

#: One row of ``python -m bench``'s table: figure, measured, budget, met.
BenchRow = tuple[str, str, str, bool | None]
PACES = {"at 3 ms a key (a fast scanner)": 0.003, "as fast as USB takes the reports": 0.0}


@dataclass
class Measured:
    """What one boot of the VM measured."""

    steps: dict[str, float] = field(default_factory=dict)  # the table's own figures: cache, install, boot
    runs: dict[str, dict[str, float]] = field(default_factory=dict)  # per pace: scan_run's figures
    cycles: dict[str, float] = field(default_factory=dict)
    accel: str = ""
    kvm_problem: str | None = None
    load_before: tuple[float, float, float] = (0.0, 0.0, 0.0)
    load_after: float = 0.0
    seconds: float = 0.0


class CannotMeasure(RuntimeError):
    """The machine cannot boot the tier's VM (not root, no qemu, no cached root and no network)."""


def measure(scans: int, cycles: int, paces: dict[str, float] = PACES) -> Measured:
    from tools.kernel.table import KernelTable, open_table, why_not
    from tools.trixie import CannotBoot

    problem = why_not()
    if problem:
        raise CannotMeasure(problem)
    found = Measured(load_before=os.getloadavg())
    started = time.monotonic()
    try:
        table = open_table(KernelTable)
    except CannotBoot as error:
        raise CannotMeasure(str(error)) from None
    try:
        table.plug("scanner")
        measure_on(table, scans, cycles, paces, found)
    finally:
        table.close()
    found.steps = dict(table.figures)
    found.seconds = time.monotonic() - started
    found.load_after = os.getloadavg()[0]
    return found


def measure_on(table: KernelTable, scans: int, cycles: int, paces: dict[str, float] = PACES,
               found: Measured | None = None, *, gadget: str = "scanner", stop_referee: bool = True) -> Measured:
    """The scans and the unplug cycles on a booted table whose ``gadget`` is plugged; with ``stop_referee``
    the referee (whose reader it is) is stopped meanwhile and started again after."""
    from tools.kernel.figures import scan_run, scan_test, unplug_run

    found = found if found is not None else Measured(load_before=os.getloadavg())
    started = time.monotonic()
    with scan_test(table, gadget, stop_referee=stop_referee):  # one scan-test for every run: seconds under TCG
        for pace, gap in paces.items():
            found.runs[pace] = scan_run(table, scans, gap=gap, gadget=gadget, session=False)
        found.cycles = unplug_run(table, cycles, gadget=gadget, session=False)
    found.accel, found.kvm_problem = table.vm.accel, table.vm.kvm_problem
    found.seconds = time.monotonic() - started
    found.load_after = os.getloadavg()[0]
    return found


#: A smoke run's paces: the scanner's only.
SMOKE_PACES = dict(list(PACES.items())[:1])


def rows(scans: int = 1000, cycles: int = 20, *, smoke: bool = False) -> list[BenchRow]:
    """The bench table's rows. A smoke run boots nothing: tests/kernel/test_usb_readers.py measures with
    :func:`measure_on` and prints :func:`rows_from` on the VM it has booted anyway."""
    if smoke:
        return [("kernel tier: scans through a USB gadget", "not run in a smoke run (tests/kernel/"
                 "test_usb_readers.py runs its measuring and its rows on its own VM in CI)", "—", None)]
    try:
        found = measure(scans, cycles, PACES)
    except CannotMeasure as error:
        if os.environ.get("CI") == "true":
            raise
        return [("kernel tier: scans through a USB gadget", f"not measured: {error}", "—", None)]
    return rows_from(found, cycles)


def rows_from(found: Measured, cycles: int) -> list[BenchRow]:
    """The rows of what one boot measured."""
    out: list[BenchRow] = [
        (f"kernel tier: Debian's kernel in qemu ({found.accel}), load {found.load_before[0]:.1f} before, "
         f"{found.load_after:.1f} after, {os.cpu_count()} cores",
         f"boot {found.steps.get('boot to running', 0.0):.0f} s; whole {found.seconds:.0f} s", "—", None)]
    for pace, figures in found.runs.items():
        count = int(figures["scans"])
        bad = figures["wrong card"] + figures["unknown card"]
        keys_lost = figures["of which keys lost (the kernel's buffer overflowed)"]
        silent = figures.get("lost without a word (no refusal between the reads around it)", 0.0)
        out.append((f"  {count} scans {pace}: read / garbled (of which keys lost) / lost (of which without a word) "
                    "/ wrong or no card",
                    f"{figures['read']:g} / {figures['garbled']:g} ({keys_lost:g}) / {figures['lost']:g} ({silent:g}) "
                    f"/ {bad:g}", "0 wrong or no card, 0 lost without a word", bad == 0 and silent == 0))
    survived = found.cycles.get("survived (lost, back, the next card read)", 0.0)
    per_cycle = found.cycles.get("seconds per cycle", 0.0)
    out.append((f"  unplug and replug mid-read, a card after each ({per_cycle:.1f} s a cycle)",
                f"{survived:g} of {cycles} survived", f"{cycles} of {cycles}", survived == cycles))
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.kernel", description=__doc__.splitlines()[0])
    parser.add_argument("--scans", type=int, default=1000, help="scans at each pace (default 1000)")
    parser.add_argument("--cycles", type=int, default=20, help="unplug and replug cycles (default 20)")
    args = parser.parse_args(argv)
    try:
        found = measure(args.scans, args.cycles)
    except CannotMeasure as error:
        print(f"bench.kernel: {error}", file=sys.stderr)
        return 69
    load = found.load_before
    print(f"== bench.kernel: scans through a USB gadget into bornes scan-test, Debian's kernel in qemu "
          f"({found.accel}); "
          f"load average before {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}, after {found.load_after:.1f}; "
          f"{os.cpu_count()} cores")
    if found.kvm_problem:
        print(f"   KVM given up: {found.kvm_problem[:160]}")
    for name, value in found.steps.items():
        print(f"   {name:<52} {value:.1f} s")
    for pace, figures in found.runs.items():
        print(f"   -- {args.scans} scans {pace}")
        for name, value in figures.items():
            print(f"   {name:<52} {value:.1f}" if "second" in name else f"   {name:<52} {value:g}")
    print(f"   -- {args.cycles} unplug cycles, a card after each")
    for name, value in found.cycles.items():
        print(f"   {name:<52} {value:.1f}" if "second" in name else f"   {name:<52} {value:g}")
    print(f"   {'total':<52} {found.seconds:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
