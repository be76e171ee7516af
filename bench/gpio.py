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
under TCG the VM shares the host's cores with whatever else runs. In ``python -m bench`` it is the
second half of the ``wired`` part (bench/kernel_i2c.py), in the panel's VM, so a smoke run in CI
boots one VM for both halves; docs/system.md has its figures.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bench.driver import script_games
from bornes.drivers.feedback import Pattern

if TYPE_CHECKING:
    from tools.kernel.gpio_bridge import BridgeKernelTable

BenchRow = tuple[str, str, str, bool | None]


@dataclass
class GpioMeasured:
    """What the bridge's buttons, buzzer and LEDs did."""

    presses: int = 0
    counts: dict[str, int] = field(default_factory=lambda: {"one line": 0, "none": 0, "more": 0})
    polls: int = 0
    gaps: list[float] = field(default_factory=list)  # seconds between two reads of the lines
    inside: int = 0  # reads that landed inside a bounce
    chirps: list[tuple[float, float, float]] = field(default_factory=list)  # buzzer high, green high, green after
    cycles: int = 0
    cycles_back: int = 0


def measure_on(table: BridgeKernelTable, presses: int, cycles: int, play_card: Callable[[], None],
               cards: int = 3) -> GpioMeasured:
    """On a table whose referee runs on the bridge (a game in progress): ``presses`` bounced presses of NEXT,
    ``cards`` cards played by ``play_card`` with their accept chirp read back, ``cycles`` unplugs."""
    from tools.kernel.gpio_bridge import BUZZER, GREEN, LABEL

    found = GpioMeasured(presses=presses, cycles=cycles)
    reads, pressed = len(table.bridge.read_times()), len(table.presses)
    for _ in range(presses):  # NEXT during a game: the next page, one line a press
        before = len(table.inputs())
        with contextlib.suppress(AssertionError):  # no line in 10 s: a press lost, counted below
            table.press("cp2112", "NEXT", timeout=10, again=0)  # a press not counted is a press lost here
        buttons = [line for line in table.inputs()[before:] if "button NEXT" in line]
        found.counts["one line" if len(buttons) == 1 else "none" if not buttons else "more"] += 1
    polls = table.bridge.read_times(reads)
    bounced = table.presses[pressed:]
    windows = [(p.start, p.start + span) for p, span in bounced] + [(p.end - span, p.end) for p, span in bounced]
    found.polls = len(polls)
    found.inside = sum(any(a <= t <= b for a, b in windows) for t in polls)
    found.gaps = [b - a for a, b in itertools.pairwise(polls)]
    for _ in range(cards):  # each accepted with the accept chirp
        mark = len(table.bridge.outputs()[1])
        play_card()
        time.sleep(Pattern.ACCEPT.duration + 1.0)
        new = table.bridge.outputs(mark)[1]
        buzz = [t for t, line, _ in new if line == BUZZER]
        green = [t for t, line, _ in new if line == GREEN]
        if len(buzz) >= 2 and len(green) >= 2:
            found.chirps.append((buzz[1] - buzz[0], green[1] - green[0], green[0] - buzz[0]))
    for _ in range(cycles):
        lost, back = table.count("buttons lost"), table.count(f"buttons back on {LABEL}")
        table.bridge.unplug()
        table.wait_count("buttons lost", lost, timeout=60)
        table.bridge.replug()
        table.wait_count(f"buttons back on {LABEL}", back, timeout=60)
        said = table.press("cp2112", "NEXT", timeout=30, again=0)
        found.cycles_back += any("button NEXT" in line for line in said)
    return found


def rows(found: GpioMeasured) -> list[BenchRow]:
    """The bench table's rows: what a Pi's user would call a wrong press, a chirp, a bridge pulled out."""
    out: list[BenchRow] = [
        (f"  gpio: bounced presses (5 edges in 3 ms at each end), one line each / none / more ({found.presses})",
         f"{found.counts['one line']} / {found.counts['none']} / {found.counts['more']}", "one line each",
         found.counts["one line"] == found.presses)]
    if found.gaps:
        out.append(("  gpio: reads of the lines meanwhile (hid-cp2112's polls, the referee's own while a button is "
                    "down): median apart; inside a bounce",
                    f"{1000 * statistics.median(found.gaps):.0f} ms; {found.inside} of {found.polls}", "—", None))
    for high, lit, lag in found.chirps:
        out.append((f"  gpio: accept chirp (pattern {Pattern.ACCEPT.duration:.2f} s) as line levels: buzzer high, "
                    "green high, green after the buzzer", f"{high:.3f} s, {lit:.3f} s, {1000 * lag:.0f} ms", "—",
                    None))
    out.append(("  gpio: bridge unplugged and put back: buttons lost, back by themselves, a press heard",
                f"{found.cycles_back} of {found.cycles}", "every one", found.cycles_back == found.cycles))
    return out


def main(argv: list[str]) -> int:
    from tools.kernel.gpio_bridge import LABEL, BridgeKernelTable, bridge_config, cached_lgpio, set_up
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
        table = open_table(BridgeKernelTable, boot_timeout=600, referee_at_boot=False)  # configured below
        set_up(table, cached_lgpio(cached_root(), cached_kernel()))
    except CannotBoot as error:
        print(f"bench.gpio: {error}", file=sys.stderr)
        return 69
    try:
        table.configure(bridge_config())
        table.wait_count(f"buttons back on {LABEL}", 0)
        script = script_games(players=2, seed=5, games=1)
        table.press("cp2112", "OK")  # the table's summary: OK starts the game
        steps = iter(script.steps[1:])

        def play_card() -> None:
            for payload in next(steps).taps:
                table.tap("scanner", payload)

        found = measure_on(table, args.presses, args.cycles, play_card)
    finally:
        table.close()
    print(f"== bench.gpio: the CP2112 bridge twin under hid-cp2112, Debian's kernel in qemu ({table.vm.accel}); "
          f"load average before {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}, after {os.getloadavg()[0]:.1f}; "
          f"{os.cpu_count()} cores; {time.monotonic() - started:.0f} s in all")
    for name, value, _budget, _met in rows(found):
        print(f"   {name.strip()}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
