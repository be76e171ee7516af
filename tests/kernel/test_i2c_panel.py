"""The OLED on a real I2C bus: an i2c-tiny-usb bridge the kernel drives, SSD1306 and SH1106 panels on it.

The Pi's panel hangs on the SoC's own I2C controller, which a VM does not have, and Debian's
kernel has no I2C simulator. It has the drivers of USB-to-I2C bridges: the bridge here is an
i2c-tiny-usb (0403:c631) written in Python in the VM and plugged into the VM's own kernel over
USB/IP (``vhci-hcd``; tools/kernel/guest/usbip.py, i2c_tiny_usb.py), so the kernel's driver
(``i2c-tiny-usb``) binds to it and ``i2c-dev`` gives ``/dev/i2c-N`` as on a Pi. On its bus sit
models of the SSD1306 and the SH1106 (tools/kernel/guest/oled.py) that decode what arrives into
display RAM as the controllers do and give the picture the glass would show. The referee, as
installed by install.sh, draws on it with luma.oled through smbus2 exactly as on a Pi.

The tests share one VM and run in order (one module: one xdist worker). docs/system.md says what
this proves and what still needs a Pi. Skipped, with the reason, where the machine cannot do it
(not root, no qemu); under CI=true that is a failure.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.kernel.game import GameTable
from tools.kernel.bridges import I2cBridge, PanelSpec, open_i2c_bridge, wire_ms
from tools.kernel.gadgets import CATALOGUE
from tools.kernel.guest.oled import power_on_noise
from tools.kernel.panel_run import PanelGame, same
from tools.kernel.table import IN_CI, PYTHON, CannotBoot, open_table, reader_config, why_not

pytestmark = pytest.mark.slow  # a VM, emulated where there is no KVM: tests/display is the fast share
REPORT = Path("/var/tmp/bornes-kernel-i2c-report.json")
SCANNER = CATALOGUE["scanner"]
SSD1306_STEPS = 8  # in CI; bench/kernel_i2c.py plays whole games
SH1106_STEPS = 3
UNPLUG_CYCLES = 1
LOST = "bornes: panel lost: "
BACK = "bornes: panel back: "


@dataclass
class PanelTable(GameTable):
    """The kernel tier's table with the I2C bridge plugged in."""

    bridge: I2cBridge | None = None
    #: The game the referee is in on the bus, for the next test to go on with (a restart is a minute under TCG).
    on_panel: PanelGame | None = None

    @property
    def i2c(self) -> I2cBridge:
        assert self.bridge is not None
        return self.bridge

    def panel_config(self, kind: str = "ssd1306", address: int = 0x3C) -> str:
        assert self.i2c.bus is not None
        display = f'panel = "{kind}"\ni2c_port = {self.i2c.bus}\ni2c_address = "0x{address:02X}"\nmax_backoff = 1.0'
        return reader_config(SCANNER.vendor_product, display=display)

    def panel_game(self, kind: str, seed: int, address: int = 0x3C) -> PanelGame:
        """The referee restarted on ``kind`` at ``address`` (a fresh game journal), and that game's twin."""
        config = self.panel_config(kind, address)
        self.configure(config)
        self.wait_count(f"reader back on {SCANNER.vendor_product}", 0, timeout=90)
        self.on_panel = PanelGame(self, self.i2c, config, seed, address=address)
        return self.on_panel


@pytest.fixture(scope="module")
def table() -> Iterator[PanelTable]:
    """One VM for the module, the scanner plugged and the bridge with one SSD1306 at 0x3C on its bus;
    the referee still on the image's config (the dummy panel) until a test gives it the bus."""
    reason = why_not()
    if reason:
        if IN_CI:
            pytest.fail(f"the kernel tier cannot run under CI: {reason}")
        pytest.skip(reason)
    started = time.monotonic()
    try:
        result = open_table(PanelTable)
    except CannotBoot as error:
        if IN_CI:
            raise
        pytest.skip(str(error))
    try:
        result.plug("scanner")
        result.bridge = open_i2c_bridge(result.vm, PanelSpec("ssd1306", 0x3C))
        result.figures.update(result.bridge.seconds)
        yield result
    finally:
        with contextlib.suppress(Exception):  # the driver's own word for a transfer the bridge answered too late
            failed = result.vm.run("sh", "-c", "dmesg | grep -c -E 'i2c-[0-9]+: failure (writing|reading)'",
                                   check=False).stdout.strip()
            result.figures["i2c-tiny-usb transfers the driver gave up on (dmesg)"] = float(failed or 0)
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


def test_the_bridge_is_an_i2c_adapter_of_the_kernel(table: PanelTable) -> None:
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


def _played(game: PanelGame, steps: int) -> None:
    game.play(steps)
    assert not game.run.mismatched
    game.check_stored()


def test_the_referee_draws_every_tap_pixel_for_pixel_on_an_ssd1306(table: PanelTable) -> None:
    """``[display] panel = "ssd1306"`` on the bridge's bus: after every tap of a scripted game the panel
    model shows the golden picture of that screen, and the bytes each tap put on the bus are counted."""
    game = table.panel_game("ssd1306", seed=3)
    state = table.i2c.panel(0x3C).state
    assert state["display_on"] and state["powered"] and state["addressing"] == "horizontal", state
    assert state["segment_remap"] and state["com_remap"] and state["contrast"] == 0xCF, state  # luma's init
    _played(game, SSD1306_STEPS)
    figures = game.run.figures("ssd1306: ")
    table.figures.update(figures)
    print(json.dumps(figures, indent=1))
    # Tap to light on a 400 kHz bus: the first frame after an accepted tap is over within 35 ms (p99).
    assert figures["ssd1306: ms at 400 kHz per accepted tap, p99"] <= 35.0, figures
    assert max(game.run.accepted + game.run.other) <= 1034 + 10, figures  # never more than one whole frame a tap
    assert len(game.run.accepted) >= SSD1306_STEPS // 2, figures  # most taps counted (not lost to a loaded host)


def test_a_panel_that_naks_mid_frame_is_lost_and_comes_back(table: PanelTable) -> None:
    """The referee's side of a NAK mid-frame: the frame fails, "panel lost" is journalled, the game goes
    on; once the panel acknowledges again, the referee puts the whole picture back by itself."""
    game = table.on_panel or table.panel_game("ssd1306", seed=6)  # the game on the bus goes on
    lost, back = table.count(LOST), table.count(BACK)
    table.i2c.set_nak(0x3C, 40)
    game.play(1, check=False)  # its frame NAKed: the referee says so and accepts the card all the same
    table.wait_count(LOST, lost, timeout=30)
    table.i2c.set_nak(0x3C, None)
    table.wait_count(BACK, back, timeout=60)
    game.wait_picture(game.expected_now(), "the panel after it answered again")
    game.play(1)
    game.check_stored()


def test_the_bridge_unplugged_mid_game_and_put_back(table: PanelTable) -> None:
    """The bridge pulled out mid-game: the referee says the panel is lost (without a frame to draw: the
    bus's node is gone), keeps the game (cards tapped meanwhile are accepted and stored), and once the
    bridge is back draws the table again by itself; no card lost or doubled."""
    game = table.on_panel or table.panel_game("ssd1306", seed=8)  # the game on the bus goes on
    for cycle in range(UNPLUG_CYCLES):
        lost, back = table.count(LOST), table.count(BACK)
        table.i2c.unplug()
        table.wait_count(LOST, lost, timeout=30)  # noticed by itself: no tap in between
        table.i2c.wait_gone()  # the kernel let the adapter go: the referee closed it
        game.play(1, check=False)  # a card while the panel is away: played and stored
        bus = table.i2c.bus
        assert table.i2c.replug() == bus  # the kernel gives the lowest free number: the one it had
        table.wait_count(BACK, back, timeout=60)
        game.wait_picture(game.expected_now(), f"the panel back after unplug {cycle + 1}")
        game.play(1)
    game.check_stored()
    assert "Traceback" not in "\n".join(table.journal())
    assert same(table.i2c.panel(0x3C).picture, game.expected_now())
    table.figures["bus ms at 400 kHz of one whole frame"] = wire_ms(1034)


def test_an_sh1106_is_drawn_two_columns_in(table: PanelTable) -> None:
    """A 1.3-inch SH1106 (132-column RAM, the glass on its middle 128): ``panel = "sh1106"`` draws every
    tap pixel for pixel; its RAM's two columns each side are never written."""
    table.vm.run("systemctl", "stop", "bornes.service", timeout=60)  # or it would draw as an ssd1306 meanwhile
    table.i2c.plug(PanelSpec("sh1106", 0x3C))
    game = table.panel_game("sh1106", seed=4)
    _played(game, SH1106_STEPS)
    shown = table.i2c.panel(0x3C)
    assert shown.state["kind"] == "sh1106" and shown.state["display_on"] and shown.state["dc_dc"], shown.state
    noise = power_on_noise(132 * 8, seed=0x1306 + 0x3C)  # what the RAM held at power-up
    for page in range(8):
        for column in (0, 1, 130, 131):  # outside the glass: luma's page_address_offset=2 never writes them
            assert shown.ram[page * 132 + column] == noise[page * 132 + column], (page, column)
    table.figures.update(game.run.figures("sh1106: "))


DOCTOR_CONFIG = "/run/bornes-doctor.toml"
#: bornes doctor's display check (the function `bornes doctor` calls for its display line), as the referee's
#: user, in one process for the module: the whole command checks everything else too, and each of its
#: start-ups is most of a minute under TCG on a loaded host.
DOCTOR_DISPLAY = ("import json, sys\nfrom bornes.firmware.appliance.config import load_config\n"
                  "from bornes.firmware.commands.doctor import check_display\n"
                  "for path in sys.stdin:\n"
                  "    print(json.dumps([f.line() for f in check_display(load_config(path.strip()))]), flush=True)")


def _doctor_line(table: PanelTable, address: int = 0x3C) -> str:
    """``bornes doctor``'s display line, as the referee's user, on a config that names the bridge's bus (the
    pins as on a Pi: the display is probed only off the desktop)."""
    bus = table.i2c.bus if table.i2c.bus is not None else 0
    config = (f'[display]\npanel = "ssd1306"\ni2c_port = {bus}\ni2c_address = "0x{address:02X}"\n'
              '[pins]\nfactory = "auto"\n')
    table.vm.run("sh", "-c", f"cat > {DOCTOR_CONFIG} && chmod 644 {DOCTOR_CONFIG}", input=config)
    argv = ["setpriv", "--reuid=bornes", "--regid=bornes", "--init-groups", PYTHON, "-c", DOCTOR_DISPLAY]
    (line,) = json.loads(table.vm.helper("doctor-display", argv, DOCTOR_CONFIG))
    return str(line)


def test_doctor_says_what_is_wrong_with_the_bus_in_one_line(table: PanelTable) -> None:
    """I2C off (no /dev/i2c-N), nothing at the address, the panel at the other address, a panel that
    stops acknowledging mid-frame, and a good one: each is one line of ``bornes doctor``."""
    table.vm.run("systemctl", "stop", "bornes.service", timeout=60)  # the referee off the bus: doctor alone on it
    table.on_panel = None
    table.i2c.plug(PanelSpec("ssd1306", 0x3C))
    bus = table.i2c.bus
    good = f"OK   display /dev/i2c-{bus}: a device answers at 0x3C and takes a whole frame (configured as ssd1306)"
    assert _doctor_line(table) == good
    table.i2c.set_nak(0x3C, 300)  # a loose ground: the address and short writes go through, a frame does not
    line = _doctor_line(table)
    assert line.startswith(f"FAIL display /dev/i2c-{bus}: a device answers at 0x3C but stopped acknowledging "
                           "within a 1025-byte write") and "check GND, SDA and SCL" in line, line
    table.i2c.plug(PanelSpec("ssd1306", 0x3D))
    line = _doctor_line(table)
    assert line == f'FAIL display /dev/i2c-{bus}: nothing answers at 0x3C, but a device answers at 0x3D: set ' \
                   'i2c_address = "0x3D" in [display] of /run/bornes-doctor.toml', line
    table.i2c.plug(PanelSpec("sh1106", 0x3F))
    assert _doctor_line(table) == f"FAIL display /dev/i2c-{bus}: nothing answers at 0x3C; check the wiring and " \
                                  "display.i2c_address"
    table.i2c.unplug()
    table.i2c.wait_gone()
    assert _doctor_line(table) == f"WARN display /dev/i2c-{bus}: does not exist; enable I2C: sudo raspi-config " \
                                  "nonint do_i2c 0"
