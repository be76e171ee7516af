"""Scans through a real kernel: ``python -m bench.kernel [SCANS]`` (root; qemu; the kernel tier's cache).

Boots the kernel tier's VM (Debian's kernel, the trixie root with bornes installed by install.sh,
tests/kernel/), plugs the scanner gadget and types SCANS different card codes (default 1 000) at
USB speed into ``bornes scan-test``; prints how many were read, lost and garbled (refused, to be
scanned again), whether any read as another card, and the time of each step: the image, the boot,
the scans. It measures and prints; it asserts nothing. The load of the machine is printed beside
the figures (TCG shares its two cores with whatever else runs).
"""

from __future__ import annotations

import os
import sys
import time


def main(argv: list[str]) -> int:
    from tests.kernel.figures import scan_run
    from tests.kernel.table import open_table, why_not

    scans = int(argv[0]) if argv else 1000
    problem = why_not()
    if problem:
        print(f"bench.kernel: {problem}")
        return 69
    load = os.getloadavg()
    started = time.monotonic()
    table = open_table()
    try:
        table.plug("scanner")
        figures = scan_run(table, scans)
        accel, kvm_problem = table.vm.accel, table.vm.kvm_problem
    finally:
        table.close()
    print(f"== kernel tier: {scans} scans through the USB gadget (qemu {accel}; load average before "
          f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f}, after {os.getloadavg()[0]:.1f}; {os.cpu_count()} cores)")
    if kvm_problem:
        print(f"   KVM given up: {kvm_problem[:160]}")
    for name, value in {**table.figures, **figures}.items():
        shown = f"{value:.1f} s" if name.startswith(("cache", "install", "boot")) else f"{value:g}"
        print(f"   {name:<32} {shown}")
    print(f"   {'total':<32} {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
