"""Buttons, buzzer and LEDs on a real GPIO chip, measured.

``sudo .venv/bin/python -m bench.gpio [--presses N] [--cycles N]``.

Boots the kernel tier's VM with the CP2112 bridge twin plugged in (tools/kernel/gpio_bridge.py:
``hid-cp2112`` drives it, the referee as installed finds its chip by its label and drives it through
gpiozero's lgpio factory), then:

* presses NEXT N times (default 100), each with five edges of contact bounce within 3 ms as it closes
  and as it opens, and counts the referee's lines: one per press is right, none is a press lost, two a
  bounce read as a press; and how often the driver's reads of the lines (every 40 ms) landed inside a
  bounce, the only way a bounce can reach the referee through this chip;
* times the accept chirp as the twin saw the lines written: the buzzer's and the green LED's time high
  against the pattern's 0.12 s, and how long after the buzzer the LED came on (each write is one USB
  control transfer);
* unplugs and replugs the bridge N times (default 5): "buttons lost", then "buttons back" by
  themselves, and a press heard after each.

It measures and prints; it asserts nothing. The load of the machine is printed beside the figures:
under TCG the VM shares the host's cores with whatever else runs. Not a part of ``python -m bench``
(its smoke run in CI would boot a VM of its own for it); docs/system.md has its figures.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import os
import statistics
import sys
import time

from bench.driver import script_games
from bornes.drivers.feedback import Pattern


def main(argv: list[str]) -> int:
    from tools.kernel.gpio_bridge import BUZZER, GREEN, LABEL, BridgeKernelTable, bridge_config, cached_lgpio, set_up
    from tools.kernel.table import open_table, why_not
    from tools.kernel.vm import cached_kernel
    from tools.trixie import CannotBoot, cached_root

    parser = argparse.ArgumentParser(prog="python -m bench.gpio", description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=100, help="bounced presses (default 100)")
    parser.add_argument("--cycles", type=int, default=5, help="unplug and replug cycles (default 5)")
    args = parser.parse_args(argv)
    problem = why_not()
    if problem:
        print(f"bench.gpio: {problem}", file=sys.stderr)
        return 69
    load = os.getloadavg()
    started = time.monotonic()
    try:
        table = open_table(BridgeKernelTable, boot_timeout=600)
        set_up(table, cached_lgpio(cached_root(), cached_kernel()))
    except CannotBoot as error:
        print(f"bench.gpio: {error}", file=sys.stderr)
        return 69
    try:
        table.configure(bridge_config())
        table.wait_count(f"buttons back on {LABEL}", 0)
        script = script_games(players=2, seed=5, games=1)
        table.press("cp2112", "OK")  # the table's summary: OK starts the game
        reads, presses = len(table.bridge.read_times()), len(table.presses)
        counts = {"one line": 0, "none": 0, "more": 0}
        for _ in range(args.presses):  # NEXT during a game: the next page, one line a press
            before = len(table.inputs())
            with contextlib.suppress(AssertionError):  # no line in 10 s: a press lost, counted below
                table.press("cp2112", "NEXT", timeout=10)
            buttons = [line for line in table.inputs()[before:] if "button NEXT" in line]
            counts["one line" if len(buttons) == 1 else "none" if not buttons else "more"] += 1
        polls = table.bridge.read_times(reads)
        bounced = table.presses[presses:]
        windows = [(p.start, p.start + span) for p, span in bounced] + [(p.end - span, p.end) for p, span in bounced]
        inside = sum(any(a <= t <= b for a, b in windows) for t in polls)
        gaps = [b - a for a, b in itertools.pairwise(polls)]
        chirps = []
        for step in script.steps[1:4]:  # three cards of the script: each accepted with the accept chirp
            mark = len(table.bridge.outputs()[1])
            for payload in step.taps:
                table.tap("scanner", payload)
            time.sleep(Pattern.ACCEPT.duration + 1.0)
            new = table.bridge.outputs(mark)[1]
            buzz = [t for t, line, _ in new if line == BUZZER]
            green = [t for t, line, _ in new if line == GREEN]
            if len(buzz) >= 2 and len(green) >= 2:
                chirps.append((buzz[1] - buzz[0], green[1] - green[0], green[0] - buzz[0]))
        cycles = 0
        for _ in range(args.cycles):
            lost, back = table.count("buttons lost"), table.count(f"buttons back on {LABEL}")
            table.bridge.unplug()
            table.wait_count("buttons lost", lost, timeout=60)
            table.bridge.replug()
            table.wait_count(f"buttons back on {LABEL}", back, timeout=60)
            said = table.press("cp2112", "NEXT", timeout=30)
            cycles += any("button NEXT" in line for line in said)
    finally:
        table.close()
    print(f"== bench.gpio: the CP2112 bridge twin under hid-cp2112, Debian's kernel in qemu ({table.vm.accel}); "
          f"load average before {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}, after {os.getloadavg()[0]:.1f}; "
          f"{os.cpu_count()} cores; {time.monotonic() - started:.0f} s in all")
    print(f"   {args.presses} bounced presses (5 edges in 3 ms at each end): one line each {counts['one line']}, "
          f"none {counts['none']}, more than one {counts['more']}")
    if gaps:
        print(f"   line reads during them {len(polls)}, median {1000 * statistics.median(gaps):.0f} ms apart; "
              f"inside a bounce {inside}")
    for high, lit, lag in chirps:
        print(f"   accept chirp (pattern {Pattern.ACCEPT.duration:.2f} s): buzzer high {high:.3f} s, green high "
              f"{lit:.3f} s, green {1000 * lag:.0f} ms after the buzzer")
    print(f"   unplug and replug: {cycles} of {args.cycles} lost, back by themselves, a press heard after")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
