"""The table's buttons, buzzer and LEDs on a real GPIO chip: a CP2112 USB bridge that Debian's kernel drives.

Debian's kernel has no GPIO simulator (no GPIO_SIM, no GPIO_MOCKUP), but it has hid-cp2112, the
driver of Silicon Labs' USB HID to SMBus bridge with 8 GPIOs. Its twin (tools/kernel/guest/cp2112.py,
a FunctionFS gadget on dummy_hcd) is plugged in; hid-cp2112 binds it and registers the GPIO chip
``cp2112_gpio``; the referee, installed by install.sh, finds that chip by its label (as a Pi 5's
header chip must be found) and drives it through gpiozero's lgpio factory exactly as on a Pi: each
button a line with an edge alert, the buzzer and the LEDs lines it writes. Every read the kernel
makes of a line is a GET_REPORT of feature report 0x03 that the twin answers with the line's level
at that instant; every write a SET_REPORT of 0x04 that the twin keeps with its time.

One thing is faked, and only for the referee's unit: a Pi 5's ``Revision`` in its /proc/cpuinfo
(tools/kernel/gpio_bridge.py says why). lgpio is PyPI's 0.2.2.0 built for trixie's Python, where a
Pi has python3-lgpio from apt. The tests share one VM and run in order; docs/system.md says what
they prove and what still needs a Pi. Skipped, with the reason, where the machine cannot do it
(not root, no qemu); under CI=true that is a failure.
"""

from __future__ import annotations

import itertools
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bornes.drivers.feedback import Pattern
from tests.kernel.game import GameTable
from tools.kernel.gpio_bridge import (
    BUZZER,
    FREE,
    GREEN,
    LABEL,
    LINES,
    RED,
    START,
    BridgeKernelTable,
    Press,
    bridge_config,
    cached_lgpio,
    set_up,
)
from tools.kernel.table import IN_CI, INPUT, PYTHON, UNIT, CannotBoot, open_table, why_not
from tools.kernel.vm import cached_kernel
from tools.trixie import cached_root

pytestmark = pytest.mark.slow  # a VM under TCG: tests/hardware's MockFactory tests are the fast share
REPORT = Path("/var/tmp/bornes-kernel-gpio-report.json")
KEYS = {f"MB-CMD-{name}": name for name in LINES}  # the script's control tags, as the bridge's buttons
STEPS = 14  # seed 5's first 14 steps: the setup's OK, 13 cards, then A's coup fourré (CF, then the safety)


class BridgeTable(GameTable, BridgeKernelTable):
    """The kernel tier's table with the game the referee is in and the CP2112 bridge plugged in."""


@pytest.fixture(scope="module")
def table() -> Iterator[BridgeTable]:
    """One VM for the module, the bridge plugged in and the referee on it."""
    reason = why_not()
    if reason:
        if IN_CI:
            pytest.fail(f"the kernel tier cannot run under CI: {reason}")
        pytest.skip(reason)
    started = time.monotonic()
    try:
        lgpio = cached_lgpio(cached_root(), cached_kernel())
        result = open_table(BridgeTable, boot_timeout=START)  # a loaded machine's emulated boot: minutes
    except CannotBoot as error:
        if IN_CI:
            raise
        pytest.skip(str(error))
    try:
        set_up(result, lgpio)
        result.game = result.configure_game(bridge_config(), seed=5)
        yield result
    finally:
        result.figures["whole module"] = time.monotonic() - started
        result.figures["qemu CPU seconds"] = result.vm.cpu_seconds()
        result.figures["load average at the end"] = os.getloadavg()[0]
        REPORT.write_text(json.dumps({"figures": result.figures}, indent=1))
        print(json.dumps(result.figures, indent=1))
        result.close()


def test_hid_cp2112_binds_the_bridge_and_its_chip_is_found_by_label(table: BridgeTable) -> None:
    chip = table.bridge.chip
    assert (chip["label"], chip["lines"]) == (LABEL, 8), chip  # what the kernel's ioctl says, not the twin
    driver = table.vm.run("sh", "-c", "ls /sys/bus/hid/drivers/cp2112/").stdout
    assert "10C4:EA90" in driver, driver  # hid-cp2112, not hid-generic, holds the interface
    reads = table.bridge.reads()
    code = ("import lgpio, sys; h = lgpio.gpiochip_open(int(sys.argv[1])); lgpio.gpio_claim_input(h, int(sys.argv[2]));"
            "print(lgpio.gpio_read(h, int(sys.argv[2])))")
    chip_number = str(chip["chip"]).removeprefix("/dev/gpiochip")
    said = table.vm.run("env", "LG_WD=/tmp", PYTHON, "-c", code, chip_number, str(FREE), timeout=120).stdout.strip()
    assert said == "1"  # an input line with nothing pressed: its pull-up
    assert table.bridge.reads() > reads  # ... read through GET_REPORT 0x03, answered by the twin
    # The referee found the chip by its label (the pin map's [chip]) and opened its lines there.
    table.wait_count(f"buttons back on {LABEL}", 0)


def test_bounced_presses_are_one_press_each_and_the_coup_fourre_plays(table: BridgeTable) -> None:
    """The game's buttons on the bridge, each press with five edges within 3 ms at both ends: OK starts
    the game, the scanner scans thirteen cards, CF calls A's coup fourré and the safety after it plays."""
    game = table.current()
    reads, presses = len(table.bridge.read_times()), len(table.presses)
    game.play("scanner", steps=STEPS, keypad="cp2112", keys=KEYS)
    assert table.accepted()[-1] == "A coup MB-EXTRATANK-01"
    pressed = [line for line in table.inputs() if line.startswith(f"{INPUT}button ")]
    assert pressed == [f"{INPUT}button OK: accepted", f"{INPUT}button CF: prompt"], pressed  # one line a press
    game.check_stored()
    bounce_figures(table, table.bridge.read_times(reads), table.presses[presses:])


def bounce_figures(table: BridgeTable, polls: list[float], presses: list[tuple[Press, float]]) -> None:
    """How the kernel saw the bounces: hid-cp2112 reads the lines every 10 jiffies (40 ms at HZ=250), so a
    bounce of 3 ms is seen only when a read lands inside it; the figures say how often one did."""
    windows = [(p.start, p.start + span) for p, span in presses] + [(p.end - span, p.end) for p, span in presses]
    inside = sum(any(a <= t <= b for a, b in windows) for t in polls)
    gaps = sorted(b - a for a, b in itertools.pairwise(polls))
    table.figures["bounced presses"] = float(len(presses))
    table.figures["line reads (GET_REPORT 0x03) during them"] = float(len(polls))
    table.figures["reads that landed inside a bounce"] = float(inside)
    table.figures["median time between line reads (ms)"] = 1000 * gaps[len(gaps) // 2] if gaps else 0.0


def test_a_long_press_is_a_long_press(table: BridgeTable) -> None:
    said = table.press("cp2112", "OK", hold=1.6)  # held past hold_time: what the icons mean
    assert said == [f"{INPUT}button OK (long): prompt"], said
    said = table.press("cp2112", "OK")  # a short press brings the game back
    assert said == [f"{INPUT}button OK: prompt"], said


def _segments(changes: list[tuple[float, int, int]], line: int) -> list[tuple[float, float]]:
    """The times ``line`` was high: (start, end) pairs, from its changes."""
    out, rose = [], None
    for at, which, level in changes:
        if which != line:
            continue
        if level and rose is None:
            rose = at
        elif not level and rose is not None:
            out.append((rose, at))
            rose = None
    return out


def _expected(pattern: Pattern, on: object) -> list[float]:
    """The lengths of the stretches where ``on(step)`` holds, consecutive steps merged (an active buzzer
    sounds two notes in a row as one beep)."""
    out: list[float] = []
    last = False
    for step in pattern.steps:
        now = bool(on(step))  # type: ignore[operator]
        if now and last:
            out[-1] += step.seconds
        elif now:
            out.append(step.seconds)
        last = now
    return out


def test_the_buzzer_and_leds_follow_the_patterns_read_back_as_line_levels(table: BridgeTable) -> None:
    """A card played and a coup fourré: the buzzer's and the LEDs' lines, as the twin saw the kernel write
    them, in the patterns' order and lengths (drivers/feedback.py)."""
    game = table.current()
    _, before = table.bridge.outputs()
    game.play("scanner")  # one card accepted: the accept chirp, green
    time.sleep(Pattern.ACCEPT.duration + 0.5)
    _, changes = table.bridge.outputs(len(before))
    beeps, greens = _segments(changes, BUZZER), _segments(changes, GREEN)
    expected = Pattern.ACCEPT.duration
    assert len(beeps) == 1 and len(greens) == 1, changes
    measured = [end - start for start, end in beeps + greens]
    table.figures["accept chirp, buzzer line high (s)"] = measured[0]
    table.figures["accept chirp, green line high (s)"] = measured[1]
    table.figures["accept chirp, green after the buzzer (s)"] = greens[0][0] - beeps[0][0]
    # Never shorter than the pattern; longer by what each write costs (a USB control transfer under TCG).
    assert all(expected - 0.005 <= m < expected + 1.0 for m in measured), (measured, expected)
    assert not _segments(changes, RED)


def test_unplugged_mid_game_the_buttons_are_lost_and_come_back_by_themselves(table: BridgeTable) -> None:
    game = table.current()
    lost, back = table.count("buttons lost"), table.count(f"buttons back on {LABEL}")
    table.bridge.unplug()
    table.wait_count("buttons lost", lost, timeout=30)
    game.play("scanner")  # the cards still play while the buttons are away
    table.bridge.replug()
    table.wait_count(f"buttons back on {LABEL}", back, timeout=30)
    said = table.press("cp2112", "NEXT")  # a button of the bridge is heard again
    assert len(said) == 1 and said[0].startswith(f"{INPUT}button NEXT"), said
    game.play("scanner")
    game.check_stored()  # no card lost or doubled


def test_doctor_says_a_line_is_held_and_the_chip_is_missing_in_one_line_each(table: BridgeTable) -> None:
    """The module's last test: the referee stopped, another program holds a line; then the bridge is unplugged."""
    table.vm.run("systemctl", "stop", UNIT, timeout=START)
    doctor = ["setpriv", "--reuid=bornes", "--regid=bornes", "--init-groups", "/opt/bornes/venv/bin/bornes", "doctor",
              "--config", "/etc/bornes/config.toml"]

    def gpio_lines() -> list[str]:
        said = table.vm.run(*doctor, check=False, timeout=START)
        return [line for line in said.stdout.splitlines() if " gpio:" in line]

    holder = ("import lgpio, sys, time; h = lgpio.gpiochip_open(int(sys.argv[1])); lgpio.gpio_claim_input(h, 1);"
              "print('holding', flush=True); time.sleep(600)")
    table.vm.run("systemd-run", "--unit=bornes-line-holder", "--setenv=LG_WD=/tmp", "--property=StandardOutput="
                 "file:/run/bornes-line-holder.out", "/usr/bin/python3", "-c", holder,
                 str(table.bridge.chip["chip"]).removeprefix("/dev/gpiochip"))
    try:
        deadline = time.monotonic() + START
        while "holding" not in table.vm.run("cat", "/run/bornes-line-holder.out", check=False).stdout:
            assert time.monotonic() < deadline, "the other program never held line 1"
            time.sleep(1)
        lines = gpio_lines()
        assert lines == [f"WARN gpio: {table.bridge.chip['name']} [{LABEL}] (8 lines): held by another program "
                         "(the referee, if it runs): line 1 (Button CF) by lg"], lines
    finally:
        table.vm.run("systemctl", "stop", "bornes-line-holder", check=False)
    table.bridge.unplug()
    try:
        lines = gpio_lines()
        assert len(lines) == 1 and lines[0].startswith(f"FAIL gpio: no GPIO chip labelled '{LABEL}'"), lines
        assert lines[0].endswith("plug the bridge in, or correct [chip] label in the pin map"), lines
    finally:
        table.bridge.replug()
