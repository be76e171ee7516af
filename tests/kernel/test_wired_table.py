"""The wired table on a real kernel: the OLED on a real I2C bus, the buttons, buzzer and LEDs on a real GPIO chip.

A Pi's panel hangs on the SoC's I2C controller and its buttons on the header's GPIO chip; a VM has
neither, and Debian's kernel has no I2C or GPIO simulator. It has the drivers of USB bridges, and
two are plugged into the VM here, each written in Python from its driver's source and its vendor's
documents:

* an **i2c-tiny-usb** (0403:c631) over USB/IP (``vhci-hcd``; tools/kernel/guest/usbip.py,
  i2c_tiny_usb.py): the kernel's ``i2c-tiny-usb`` binds it and ``i2c-dev`` gives ``/dev/i2c-N``;
  on its bus sit models of the SSD1306 and the SH1106 (tools/kernel/guest/oled.py) that decode what
  arrives into display RAM as the controllers do and give the picture the glass would show;
* a **CP2112** (10c4:ea90) as a FunctionFS gadget (tools/kernel/guest/cp2112.py): ``hid-cp2112``
  binds it and registers the GPIO chip ``cp2112_gpio``, whose every line read and write reaches the
  twin as a HID report.

The referee, as installed by install.sh, draws with luma.oled through smbus2 and drives its buttons,
buzzer and LEDs through gpiozero's lgpio factory, the chip found by its label, exactly as on a Pi.
One thing is faked, for the referee's unit only: a Pi 5's ``Revision`` in its /proc/cpuinfo
(tools/kernel/gpio_bridge.py says why).

One VM for the module, both bridges plugged in at its start; the tests run in order (one module:
one xdist worker) and go on with the game the referee is in, so the referee starts twice in all (the
wired table's config; the SH1106's). docs/system.md says what this proves and what still needs a Pi.
Skipped, with the reason, where the machine cannot do it (not root, no qemu); under CI=true that is
a failure.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bornes.drivers.feedback import Pattern
from tests.kernel.booting import booting
from tools.kernel.bridges import I2cBridge, PanelSpec, open_i2c_bridge, wire_ms
from tools.kernel.gadgets import CATALOGUE
from tools.kernel.gpio_bridge import (
    BUZZER,
    FREE,
    GREEN,
    LABEL,
    LINES,
    PINS,
    RED,
    START,
    BridgeKernelTable,
    Press,
    bridge_config,
    cached_lgpio,
    set_up,
)
from tools.kernel.guest.oled import power_on_noise
from tools.kernel.panel_run import PanelGame, same
from tools.kernel.table import INPUT, PYTHON, UNIT, open_table, reader_config
from tools.kernel.vm import cached_kernel
from tools.trixie import cached_root

pytestmark = pytest.mark.slow  # a VM under TCG: tests/display, tests/hardware and test_bridge_models are the fast share
REPORT = Path("/var/tmp/bornes-kernel-wired-report.json")
SCANNER = CATALOGUE["scanner"]
KEYS = {f"MB-CMD-{name}": name for name in LINES}  # the script's control tags, as the bridge's buttons
#: Seed 140's first 3 steps: the setup's OK (a button) and a card, a card, then B's coup fourré (CF on its
#: button, then the safety scanned): the earliest coup fourré of seeds 0-399, so the module's game is short
#: (each tap's picture is read back through a VM under TCG). bench/kernel_i2c.py plays whole games.
SEED, STEPS = 140, 3
SH1106_STEPS = 3
LOST = "bornes: panel lost: "
BACK = "bornes: panel back: "


@dataclass
class WiredTable(BridgeKernelTable):
    """The kernel tier's table with both bridges plugged in (the GPIO one is :attr:`bridge`) and the game the
    referee is in on them, for the next test to go on with (a restart is a minute under TCG)."""

    i2c_bridge: I2cBridge | None = None
    on_panel: PanelGame | None = None

    @property
    def i2c(self) -> I2cBridge:
        assert self.i2c_bridge is not None
        return self.i2c_bridge

    def diagnosis(self) -> str:
        """The guest's side, then the I2C bridge's (its USB/IP link, transfers, the bus's last message)."""
        try:
            bridge = json.dumps(self.i2c.counts(timeout=30)) if self.i2c_bridge is not None else "not plugged"
        except Exception as error:  # a diagnosis says what it could not get, never hides the failure
            bridge = f"no answer: {type(error).__name__}: {error}"
        return f"{super().diagnosis()}\n== the I2C bridge (USB/IP): {bridge}"

    def display(self, kind: str = "ssd1306", address: int = 0x3C) -> str:
        return f'panel = "{kind}"\ni2c_port = {self.i2c.bus}\ni2c_address = "0x{address:02X}"\nmax_backoff = 1.0'

    def wired_config(self) -> str:
        """The whole wired table: the panel on the bridge's bus, the pin map on the bridge's chip, the scanner."""
        return bridge_config().replace('[display]\npanel = "dummy"\n', f"[display]\n{self.display()}\n")

    def game(self) -> PanelGame:
        """The game on the wired table, the referee restarted on it the first time it is asked for."""
        if self.on_panel is None:
            config = self.wired_config()
            self.configure(config)
            self.wait_count(f"reader back on {SCANNER.vendor_product}", 0, timeout=START)
            self.wait_count(f"buttons back on {LABEL}", 0, timeout=START)
            self.on_panel = PanelGame(self, self.i2c, config, SEED, buttons="cp2112", keys=KEYS)
        return self.on_panel


@pytest.fixture(scope="module")
def table() -> Iterator[WiredTable]:
    """One VM for the module: the scanner, the I2C bridge with one SSD1306 at 0x3C, the GPIO bridge; the
    referee not started (the image's unit not enabled) until a test gives it the bridges (table.game())."""
    started = time.monotonic()
    with booting():
        lgpio = cached_lgpio(cached_root(), cached_kernel())
        # Not started at boot: the first test needs no referee, the second gives it the wired config (table.game()).
        result = open_table(WiredTable, boot_timeout=START, referee_at_boot=False)  # under load: minutes
    try:
        set_up(result, lgpio)  # lgpio, the Pi's revision, the GPIO bridge, the scanner, the pin map
        result.i2c_bridge = open_i2c_bridge(result.vm, PanelSpec("ssd1306", 0x3C))
        result.figures.update(result.i2c.seconds)
        yield result
    finally:
        with contextlib.suppress(Exception):  # the driver's own word for a transfer the bridge answered too late
            failed = result.vm.run("sh", "-c", "dmesg | grep -c -E 'i2c-[0-9]+: failure (writing|reading)'",
                                   check=False).stdout.strip()
            result.figures["i2c-tiny-usb transfers the driver gave up on (dmesg)"] = float(failed or 0)
            errors = result.vm.run("sh", "-c", "dmesg | grep -c -E 'cp2112.*error'", check=False).stdout.strip()
            result.figures["hid-cp2112 errors (dmesg)"] = float(errors or 0)
            result.figures["button lines read otherwise than their last edge said (the referee's debug lines)"] = \
                float(result.count("not as its last edge said"))
        result.figures["whole module"] = time.monotonic() - started
        result.figures["qemu CPU seconds"] = result.vm.cpu_seconds()
        result.figures["load average at the end"] = os.getloadavg()[0]
        REPORT.write_text(json.dumps({"figures": result.figures}, indent=1))
        print(json.dumps(result.figures, indent=1))
        result.close()


PROBE = """
import errno, json
from smbus2 import SMBus, i2c_msg
bus, frame = SMBus(BUS), bytes([0x40]) + bytes(range(256)) * 4
bus.i2c_rdwr(i2c_msg.write(0x3C, frame))  # luma's whole frame: one message of 1 025 bytes
said = {"frame": len(frame)}
try:
    bus.i2c_rdwr(i2c_msg.write(0x3D, b"\\x00\\xaf"))
    said["0x3D"] = "written"
except OSError as error:
    said["0x3D"] = errno.errorcode[error.errno]
said["status"] = bus.read_byte(0x3C)
print(json.dumps(said))
"""


def test_the_i2c_bridge_is_an_adapter_of_the_kernel(table: WiredTable) -> None:
    """The kernel's i2c-tiny-usb driver bound to the bridge; /dev/i2c-N is found by its adapter's name; a
    1 025-byte I2C_RDWR write (a frame, as luma sends it) crosses as one control transfer and lands
    intact in the panel's RAM; a write to an address nobody answers fails with ENXIO."""
    bus = table.i2c.bus
    name = table.vm.run("cat", f"/sys/class/i2c-dev/i2c-{bus}/name").stdout.strip()
    assert name.startswith("i2c-tiny-usb at bus "), name
    interface = table.vm.run("sh", "-c", f"readlink -f /sys/class/i2c-dev/i2c-{bus}/device/..").stdout.strip()
    driver = table.vm.run("readlink", "-f", f"{interface}/driver").stdout.strip()
    ids = table.vm.run("cat", f"{interface}/../idVendor", f"{interface}/../idProduct").stdout.split()
    assert driver.endswith("/i2c-tiny-usb") and ids == ["0403", "c631"], (driver, ids)
    before = table.i2c.counts()
    done = table.as_bornes(PROBE.replace("BUS", str(bus)))  # the referee's user: group i2c, as install.sh makes it
    assert done.rc == 0, done.stderr[-2000:]
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert said["frame"] == 1025 and said["0x3D"] == "ENXIO", said
    after = table.i2c.counts()
    assert after["largest_write"] == 1025, after  # one control transfer carried the whole message
    assert after["transfers"] - before["transfers"] == 3, (before, after)  # the frame, the NAKed write, the read
    state = table.i2c.panel(0x3C).state
    frame = bytes([0x40]) + bytes(range(256)) * 4
    assert state["last_write"] == hashlib.sha256(frame).hexdigest() and state["data_bytes"] == 1024, state  # intact
    assert said["status"] == 0x40  # the SSD1306's status byte: display off (nobody has turned it on)


def test_hid_cp2112_binds_the_gpio_bridge_and_its_chip_is_found_by_label(table: WiredTable) -> None:
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
    table.game()  # the referee on the wired table found the chip by its label (the pin map's [chip]): "buttons back"


def test_a_game_on_the_wired_table_every_tap_drawn_pixel_for_pixel_every_press_once(table: WiredTable) -> None:
    """``panel = "ssd1306"`` on the bridge's bus and the buttons on the bridge's chip: the bridge's OK
    starts the game, the scanner scans two cards, CF calls B's coup fourré and the safety after it
    plays; every press bounces (five edges within 3 ms at each end) and is one press; after every tap
    the panel model shows the golden picture of that screen; the bytes each tap put on the bus are counted."""
    game = table.game()
    state = table.i2c.panel(0x3C).state
    assert state["display_on"] and state["powered"] and state["addressing"] == "horizontal", state
    assert state["segment_remap"] and state["com_remap"] and state["contrast"] == 0xCF, state  # luma's init
    reads, presses = len(table.bridge.read_times()), len(table.presses)
    game.play(STEPS)
    assert not game.run.mismatched
    game.check_stored()
    assert table.accepted()[-1] == "B coup MB-EXTRATANK-01"
    pressed = [line for line in table.inputs() if line.startswith(f"{INPUT}button ")]
    assert pressed == [f"{INPUT}button OK: accepted", f"{INPUT}button CF: prompt"], pressed  # one line a press
    bounce_figures(table, table.bridge.read_times(reads), table.presses[presses:])
    figures = game.run.figures("ssd1306: ")
    table.figures.update(figures)
    print(json.dumps(figures, indent=1))
    # Tap to light on a 400 kHz bus: the first frame after an accepted tap is over within 35 ms (p99).
    assert figures["ssd1306: ms at 400 kHz per accepted tap, p99"] <= 35.0, figures
    assert max(game.run.accepted + game.run.other) <= 1034 + 10, figures  # never more than one whole frame a tap
    assert len(game.run.accepted) >= 2, figures  # most taps counted (not lost to a loaded host)


def bounce_figures(table: WiredTable, polls: list[float], presses: list[tuple[Press, float]]) -> None:
    """How the kernel saw the bounces: hid-cp2112 reads the lines every 10 jiffies (40 ms at HZ=250), so a
    bounce of 3 ms is seen only when a read lands inside it; the figures say how often one did."""
    windows = [(p.start, p.start + span) for p, span in presses] + [(p.end - span, p.end) for p, span in presses]
    inside = sum(any(a <= t <= b for a, b in windows) for t in polls)
    gaps = sorted(b - a for a, b in itertools.pairwise(polls))
    table.figures["bounced presses"] = float(len(presses))
    table.figures["line reads (GET_REPORT 0x03) during the game"] = float(len(polls))
    table.figures["reads that landed inside a bounce"] = float(inside)
    table.figures["median time between line reads (ms)"] = 1000 * gaps[len(gaps) // 2] if gaps else 0.0


def test_a_panel_that_naks_mid_frame_is_lost_and_comes_back(table: WiredTable) -> None:
    """The referee's side of a NAK mid-frame: the frame fails, "panel lost" is journalled, the game goes
    on; once the panel acknowledges again, the referee puts the whole picture back by itself."""
    game = table.game()
    lost, back = table.count(LOST), table.count(BACK)
    table.i2c.set_nak(0x3C, 40)
    game.play(1, check=False)  # its frame NAKed: the referee says so and accepts the card all the same
    table.wait_count(LOST, lost, timeout=30)
    table.i2c.set_nak(0x3C, None)
    table.wait_count(BACK, back, timeout=60)
    game.wait_picture(game.expected_now(), "the panel after it answered again")
    game.play(1)
    game.check_stored()


def test_the_i2c_bridge_unplugged_mid_game_and_put_back(table: WiredTable) -> None:
    """The I2C bridge pulled out mid-game: the referee says the panel is lost (without a frame to draw: the
    bus's node is gone), keeps the game (a card tapped meanwhile is accepted and stored), and once the
    bridge is back draws the table again by itself; no card lost or doubled."""
    game = table.game()
    lost, back = table.count(LOST), table.count(BACK)
    table.i2c.unplug()
    table.wait_count(LOST, lost, timeout=30)  # noticed by itself: no tap in between
    table.i2c.wait_gone()  # the kernel let the adapter go: the referee closed it
    game.play(1, check=False)  # a card while the panel is away: played and stored
    bus = table.i2c.bus
    assert table.i2c.replug() == bus  # the kernel gives the lowest free number: the one it had
    table.wait_count(BACK, back, timeout=60)
    game.wait_picture(game.expected_now(), "the panel back after the unplug")
    game.play(1)
    game.check_stored()
    assert "Traceback" not in "\n".join(table.journal())
    assert same(table.i2c.panel(0x3C).picture, game.expected_now())
    table.figures["bus ms at 400 kHz of one whole frame"] = wire_ms(1034)


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


def test_the_buzzer_and_leds_follow_the_patterns_read_back_as_line_levels(table: WiredTable) -> None:
    """A card played: the buzzer's and the LEDs' lines, as the twin saw the kernel write them, in the
    accept pattern's order and length (drivers/feedback.py)."""
    game = table.game()
    while len(game.script.steps[game.done].taps) > 1:  # up to a card played in one tap (no prompt's chirp)
        game.play(1)
    _, before = table.bridge.outputs()
    game.play(1)  # one card accepted: the accept chirp, green
    time.sleep(Pattern.ACCEPT.duration + 0.5)
    _, changes = table.bridge.outputs(len(before))
    beeps, greens = _segments(changes, BUZZER), _segments(changes, GREEN)
    expected = Pattern.ACCEPT.duration
    assert len(beeps) == 1 and len(greens) == 1, changes
    measured = [end - start for start, end in beeps + greens]
    table.figures["accept chirp, buzzer line high (s)"] = measured[0]
    table.figures["accept chirp, green line high (s)"] = measured[1]
    table.figures["accept chirp, green after the buzzer (s)"] = greens[0][0] - beeps[0][0]
    # Never shorter than the pattern; longer by what each write costs (a USB control transfer under TCG), and by
    # how long a starved guest holds the write that ends it (CI17, load 6: the buzzer's 0.12 s read 1.22 s).
    assert all(expected - 0.005 <= m < expected + 3.0 for m in measured), (measured, expected)
    assert not _segments(changes, RED)


def test_a_long_press_is_a_long_press(table: WiredTable) -> None:
    table.game()
    said = table.press("cp2112", "OK", hold=1.6)  # held past hold_time: what the icons mean
    assert said == [f"{INPUT}button OK (long): prompt"], said
    said = table.press("cp2112", "OK")  # a short press brings the game back
    assert said == [f"{INPUT}button OK: prompt"], said


def test_the_gpio_bridge_unplugged_mid_game_the_buttons_are_lost_and_come_back(table: WiredTable) -> None:
    """The panel says "Buttons lost" meanwhile (a status line the host's twin does not draw): the pictures
    are not compared here."""
    game = table.game()
    lost, back = table.count("buttons lost"), table.count(f"buttons back on {LABEL}")
    table.bridge.unplug()
    table.wait_count("buttons lost", lost, timeout=30)
    keys, game.keys = game.keys, {}
    try:
        game.play(1, check=False)  # the cards still play while the buttons are away (a control card for a button)
    finally:
        game.keys = keys
        table.bridge.replug()  # failed or not: the module's later tests need the bridge
    table.wait_count(f"buttons back on {LABEL}", back, timeout=30)
    said = table.press("cp2112", "NEXT")  # a button of the bridge is heard again
    assert len(said) == 1 and said[0].startswith(f"{INPUT}button NEXT"), said
    game.play(1, check=False)
    game.check_stored()  # no card lost or doubled


def test_the_bench_part_measures_and_prints_on_this_vm(table: WiredTable) -> None:
    """``python -m bench``'s wired part at a smoke's size on this module's VM: the buttons' measuring (3 bounced
    presses, a card with its chirp read back, one unplug) and the part's rows, with this module's game as its
    panel run. A smoke run of the bench boots no VM of its own, so this is where CI runs that part's code."""
    from bench import gpio
    from bench.kernel_i2c import Measured, rows_from

    game = table.game()
    found = Measured(runs={"ssd1306": game.run.figures()}, accel=table.vm.accel, load_before=os.getloadavg())
    found.gpio = gpio.measure_on(table, 3, 1, lambda: game.play(1, check=False), 1)
    rows = rows_from(found)
    assert all(len(row) == 4 for row in rows), rows
    judged = {figure.strip(): (measured, met) for figure, measured, _, met in rows if met is not None}
    frames = judged["ssd1306: frames the panel model showed after a tap, compared pixel for pixel with the golden"]
    assert frames[1] is True and frames[0].endswith(", 0 differed"), rows
    presses = judged["gpio: bounced presses (5 edges in 3 ms at each end), one line each / none / more (3)"]
    assert presses == ("3 / 0 / 0", True), rows
    assert judged["gpio: bridge unplugged and put back: buttons lost, back by themselves, a press heard"] == \
        ("1 of 1", True), rows


def test_an_sh1106_is_drawn_two_columns_in(table: WiredTable) -> None:
    """A 1.3-inch SH1106 (132-column RAM, the glass on its middle 128): ``panel = "sh1106"`` draws every
    tap pixel for pixel; its RAM's two columns each side are never written."""
    table.vm.run("systemctl", "stop", UNIT, timeout=START)  # or it would draw as an ssd1306 meanwhile
    table.on_panel = None
    table.i2c.plug(PanelSpec("sh1106", 0x3C))
    config = reader_config(SCANNER.vendor_product, display=table.display("sh1106"))  # mock pins: a quicker start
    table.configure(config)
    table.wait_count(f"reader back on {SCANNER.vendor_product}", 0, timeout=START)
    game = PanelGame(table, table.i2c, config, seed=4)
    game.play(SH1106_STEPS)
    assert not game.run.mismatched
    game.check_stored()
    shown = table.i2c.panel(0x3C)
    assert shown.state["kind"] == "sh1106" and shown.state["display_on"] and shown.state["dc_dc"], shown.state
    noise = power_on_noise(132 * 8, seed=0x1306 + 0x3C)  # what the RAM held at power-up
    for page in range(8):
        for column in (0, 1, 130, 131):  # outside the glass: luma's page_address_offset=2 never writes them
            assert shown.ram[page * 132 + column] == noise[page * 132 + column], (page, column)
    table.figures.update(game.run.figures("sh1106: "))


DOCTOR_CONFIG = "/run/bornes-doctor.toml"
#: bornes doctor's display and gpio checks (the functions `bornes doctor` calls for those lines), as the
#: referee's user, in one process for the module: the whole command checks everything else too, and each of
#: its start-ups is most of a minute under TCG on a loaded host. One line in: the check's name and a config.
DOCTOR_CHECKS = ("import json, sys\nfrom bornes.firmware.appliance.config import load_config\n"
                 "from bornes.firmware.commands.doctor import check_display, check_gpio\n"
                 "checks = {'display': check_display, 'gpio': check_gpio}\n"
                 "for line in sys.stdin:\n"
                 "    check, path = line.split()\n"
                 "    print(json.dumps([f.line() for f in checks[check](load_config(path))]), flush=True)")


def _doctor(table: WiredTable, check: str, config: str) -> list[str]:
    """``bornes doctor``'s ``check`` lines, as the referee's user, on ``config``."""
    table.vm.run("sh", "-c", f"cat > {DOCTOR_CONFIG} && chmod 644 {DOCTOR_CONFIG}", input=config)
    argv = ["setpriv", "--reuid=bornes", "--regid=bornes", "--init-groups", "env", "LG_WD=/tmp", PYTHON, "-c",
            DOCTOR_CHECKS]
    return [str(line) for line in json.loads(table.vm.helper("doctor-checks", argv, f"{check} {DOCTOR_CONFIG}",
                                                             timeout=START))]


def _doctor_display(table: WiredTable, address: int = 0x3C) -> str:
    """The display line on a config that names the bridge's bus (the pins as on a Pi: the display is probed
    only off the desktop)."""
    bus = table.i2c.bus if table.i2c.bus is not None else 0
    (line,) = _doctor(table, "display", f'[display]\npanel = "ssd1306"\ni2c_port = {bus}\n'
                                        f'i2c_address = "0x{address:02X}"\n[pins]\nfactory = "auto"\n')
    return line


def test_doctor_says_what_is_wrong_with_the_bus_in_one_line(table: WiredTable) -> None:
    """I2C off (no /dev/i2c-N), nothing at the address, the panel at the other address, a panel that
    stops acknowledging mid-frame, and a good one: each is one line of ``bornes doctor``."""
    table.vm.run("systemctl", "stop", UNIT, timeout=START)  # the referee off the bus: doctor alone on it
    table.on_panel = None
    table.i2c.plug(PanelSpec("ssd1306", 0x3C))
    bus = table.i2c.bus
    good = f"OK   display /dev/i2c-{bus}: a device answers at 0x3C and takes a whole frame (configured as ssd1306)"
    assert _doctor_display(table) == good
    table.i2c.set_nak(0x3C, 300)  # a loose ground: the address and short writes go through, a frame does not
    line = _doctor_display(table)
    assert line.startswith(f"FAIL display /dev/i2c-{bus}: a device answers at 0x3C but stopped acknowledging "
                           "within a 1025-byte write") and "check GND, SDA and SCL" in line, line
    table.i2c.plug(PanelSpec("ssd1306", 0x3D))
    line = _doctor_display(table)
    assert line == f'FAIL display /dev/i2c-{bus}: nothing answers at 0x3C, but a device answers at 0x3D: set ' \
                   f'i2c_address = "0x3D" in [display] of {DOCTOR_CONFIG}', line
    table.i2c.plug(PanelSpec("sh1106", 0x3F))
    assert _doctor_display(table) == f"FAIL display /dev/i2c-{bus}: nothing answers at 0x3C; check the wiring " \
                                     "and display.i2c_address"
    table.i2c.unplug()
    table.i2c.wait_gone()
    assert _doctor_display(table) == f"WARN display /dev/i2c-{bus}: does not exist; enable I2C: sudo raspi-config " \
                                     "nonint do_i2c 0"


def test_doctor_says_a_line_is_held_and_the_chip_is_missing_in_one_line_each(table: WiredTable) -> None:
    """The module's last test: the referee stopped, another program holds a line; then the bridge is unplugged."""
    table.vm.run("systemctl", "stop", UNIT, timeout=START)
    table.on_panel = None
    config = bridge_config()  # the pin map on the bridge's chip (PINS)
    assert PINS in config
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
        lines = _doctor(table, "gpio", config)
        assert lines == [f"WARN gpio: {table.bridge.chip['name']} [{LABEL}] (8 lines): held by another program "
                         "(the referee, if it runs): line 1 (Button CF) by lg"], lines
    finally:
        table.vm.run("systemctl", "stop", "bornes-line-holder", check=False)
    table.bridge.unplug()
    try:
        lines = _doctor(table, "gpio", config)
        assert len(lines) == 1 and lines[0].startswith(f"FAIL gpio: no GPIO chip labelled '{LABEL}'"), lines
        assert lines[0].endswith("plug the bridge in, or correct [chip] label in the pin map"), lines
    finally:
        table.bridge.replug()
