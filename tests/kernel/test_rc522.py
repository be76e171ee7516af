"""RC522 readers through real spidev ioctls: four ``/dev/spidevB.C`` nodes made by CUSE in the kernel tier's VM.

Debian's kernel boots with the trixie root where install.sh (with ``--spi``) installed bornes; ``cuse.ko``
turns ``tools/kernel/guest/cuse_spi.py`` into four SPI character devices, ``/dev/spidev0.0``, ``0.1``,
``1.0`` and ``1.2`` (SPI0 CE0/CE1, SPI1 CE0 and CE2), each an MFRC522 model with ISO 14443-3 cards laid
on it on a timeline (tools/kernel/guest/mfrc522_model.py). The referee, under its own unit and user,
opens them and makes the ioctls it makes on a Pi (SPI_IOC_MESSAGE with its user-space pointers, which CUSE
fetches with its unrestricted-ioctl retries): the four are the seats' pads. docs/readers.md (RC522) and
docs/system.md (the kernel tier) say what this proves and what only a Pi can.

One VM for the module, the tests in order. Skipped with the reason where the machine cannot (not root,
no qemu); under CI=true that is a failure.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.kernel.booting import booting
from tests.kernel.test_usb_readers import PAD_TAPS
from tools.kernel.spi import SpiPads
from tools.kernel.table import UNIT, KernelTable, open_table, reader_config

pytestmark = pytest.mark.slow  # a VM: tests/readers/test_rc522.py is the fast share
REPORT = Path("/var/tmp/bornes-kernel-rc522-report.json")
PADS = {"A": "0.0", "B": "0.1", "C": "1.0", "D": "1.2"}  # seat pads; D lies by the discard pile
PLACES = {"A": "A", "B": "B", "C": "C", "D": "discard"}
#: The deck of the game's taps, each on a tag of another kind: MIFARE Classic (4-byte UID), Ultralight and
#: NTAG213/215/216 (7-byte UIDs), enrolled by UID, and NTAGs carrying their code (bornes tags write).
TAGS: dict[str, tuple[str, str, bool]] = {  # code -> (kind, UID, written on the tag rather than enrolled)
    "MB-CMD-OK": ("classic1k", "DEADBEEF", False),
    "MB-ROLL-01": ("ntag213", "04A10000000001", True),
    "MB-ROLL-02": ("ultralight", "04A10000000002", False),
    "MB-ROLL-03": ("classic4k", "0A0B0C0D", False),
    "MB-D100-01": ("ntag215", "04A10000000004", False),
    "MB-STOP-01": ("ntag216", "04A10000000005", True),
    "MB-SPEEDLIMIT-01": ("ntag213", "04A10000000006", False),
    "MB-RIGHTOFWAY-01": ("ntag213", "04A1000000000711223F", False),  # a triple-size UID
}


class SpiTable(KernelTable):
    spi: SpiPads


@pytest.fixture(scope="module")
def table() -> Iterator[SpiTable]:
    started = time.monotonic()
    with booting():
        # Not started at boot: its first step is its own config (the pads), which starts the referee.
        result = open_table(SpiTable, boot_timeout=600.0, referee_at_boot=False)  # a shared host boots slowly (TCG)
    try:
        result.spi = SpiPads(result.vm, tuple(PADS.values()))
        pads = "".join(f'[pads.{seat}]\nplace = "{PLACES[seat]}"\nprotocol = "rc522"\nbus = {device[0]}\n'
                       f'device = {device[2]}\ndouble_read_window = 0\nmax_backoff = 0.5\n'
                       for seat, device in PADS.items())
        enrolled = {uid: code for code, (_, uid, written) in TAGS.items() if not written}
        # The pads take SPI1's pins, where wiring/pins.toml has buttons: the four-pad pin map (its RST pin too).
        config = reader_config("", players=3, names=("Ann", "Bob", "Cid"), extra="dealer = 2\n").replace(
            '[pins]\nfactory = "mock"\n', '[pins]\nfactory = "mock"\nmap = "/opt/bornes/src/wiring/pins-rc522.toml"\n')
        assert "pins-rc522.toml" in config
        # The chips answer nothing while the referee starts (four readers polling through CUSE from its first
        # second would take the guest's CPU from its start-up, past the unit's 60 s under a loaded host) ...
        for device in PADS.values():
            result.spi.wiring(device, 0xFF)
        result.configure(config + pads, bindings=enrolled)
        for device in PADS.values():  # ... and are wired once it is up: each reader is back within its backoff
            result.spi.wiring(device, None)
        result.wait("the four pads", lambda: result.count("reader back on /dev/spidev") >= 4, timeout=120)
        yield result
    finally:
        result.figures["whole module"] = time.monotonic() - started
        result.figures["qemu CPU seconds"] = result.vm.cpu_seconds()
        result.figures["load average at the end"] = os.getloadavg()[0]
        REPORT.write_text(json.dumps({"figures": result.figures}, indent=1))
        print(json.dumps(result.figures, indent=1))
        result.close()


def _lay(table: SpiTable, seat: str, code: str) -> list[str]:
    """Lay ``code``'s tag on ``seat``'s pad until the referee has its line, then lift it; the new input lines."""
    kind, uid, written = TAGS[code]
    before = len(table.inputs())
    table.spi.lay(PADS[seat], kind, uid, text=code if written else None)
    table.wait(f"the referee's line for {code} on pad {seat}", lambda: len(table.inputs()) > before, timeout=90)
    table.spi.clear(PADS[seat])
    return table.inputs()[before:]


def test_the_spi_nodes_are_group_spi_and_the_referees_user_is_in_it(table: SpiTable) -> None:
    groups = table.vm.run("id", "-nG", "bornes").stdout.split()
    assert "spi" in groups, groups  # install.sh --spi
    assert 'SUBSYSTEM=="spidev", GROUP="spi", MODE="0660"' in \
        table.vm.run("cat", "/etc/udev/rules.d/99-bornes-spi.rules").stdout
    for device in PADS.values():
        assert table.vm.run("stat", "-c", "%G %a %F", f"/dev/spidev{device}").stdout.split() == \
            ["spi", "660", "character", "special", "file"]
    # The referee's user, through the driver's own ioctls: SPI mode 0 held by the kernel's side, the chip's version.
    code = ("from bornes.drivers.readers.spidev import Spidev\nfrom bornes.drivers.readers.mfrc522 import read_frame\n"
            "s = Spidev('/dev/spidev1.2'); print(s.mode(), s.transfer([read_frame(0x37, 0x37)])[0].hex()); s.close()")
    done = table.as_bornes(code)
    assert done.rc == 0 and done.stdout.split() == ["0", "009292"], done
    assert table.spi.stats()["devices"]["1.2"]["speed"] == 1_000_000  # SPI_IOC_WR_MAX_SPEED_HZ reached the device


def test_doctor_names_each_chip_genuine_or_clone_its_gain_and_a_pulled_wire(table: SpiTable) -> None:
    """Doctor beside the running referee (reads only), one run for four chips: a genuine one, a clone, and
    pad D's MISO held low, as a pulled wire leaves it: the model's VersionReg reads 0x00."""
    table.spi.version("0.1", 0x88)
    lost, back = table.count("reader lost: /dev/spidev1.2"), table.count("reader back on /dev/spidev1.2")
    table.spi.wiring("1.2", 0x00)
    done = table.vm.run("setpriv", "--reuid=bornes", "--regid=bornes", "--init-groups", "/opt/bornes/venv/bin/bornes",
                        "doctor", "--config", "/etc/bornes/config.toml", check=False, timeout=120)
    lines = {line.split(":")[0]: line for line in done.stdout.splitlines() if "/dev/spidev" in line}
    assert lines["OK   pad A /dev/spidev0.0"].endswith("MFRC522 v2.0 (VersionReg 0x92, a genuine chip); antenna "
                                                       "gain 33 dB, antenna on: the referee is polling it"), lines
    assert "FM17522 (VersionReg 0x88, a known clone)" in lines["OK   pad B /dev/spidev0.1"], lines
    assert lines["FAIL pad D (discard) /dev/spidev1.2"].startswith(
        "FAIL pad D (discard) /dev/spidev1.2: nothing answers (VersionReg 0x00): check the wiring"), lines
    assert "OK   groups: bornes is in spi" in done.stdout, done.stdout
    # The referee's reader of that chip: lost, in one line that says why; back when the wire is in again.
    table.wait_count("reader lost: /dev/spidev1.2", lost, timeout=60)
    said = [line for line in table.journal() if "reader lost: /dev/spidev1.2" in line][-1]
    assert "nothing answers" in said and "VersionReg 0x00" in said, said
    table.spi.wiring("1.2", None)
    table.wait_count("reader back on /dev/spidev1.2", back, timeout=60)
    assert "Traceback" not in "\n".join(table.journal())


def test_four_rc522_pads_a_hazard_on_a_third_side_and_a_coup_fourre_in_one_tap_each(table: SpiTable) -> None:
    assert _lay(table, "A", "MB-CMD-OK")[0].endswith(": accepted")  # the summary: one OK starts the game
    for seat, card, notation in PAD_TAPS:
        said = _lay(table, seat, card)  # one laying each, no prompt, no button
        assert len(said) == 1 and said[0].endswith(": accepted") and table.accepted()[-1] == notation, said
    assert table.stored() == [f"{notation} ; pad {seat}" for seat, _, notation in PAD_TAPS], table.stored()


def _until(moment: float, table: SpiTable) -> None:
    """Wait till the guest's clock reaches ``moment`` (a card's lifting), then read the referee's journal."""
    left = moment - float(table.spi.ask({"op": "now"})["now"])
    if left > 0:
        time.sleep(left)
    table.journal()


def _lines_with(table: SpiTable, text: str) -> int:
    return sum(text in line for line in table.inputs())


def test_one_play_per_card_laid_down_resting_lifted_flickering_two_at_once(table: SpiTable) -> None:
    """Tags no one enrolled: each laying the referee reads is one "unknown card" line, whatever the game. The
    three timelines run at once, one a pad (each pad's reader is its own thread, as at a table)."""
    rest, edge, pair = "04EE0000000001", "CAFEF00D", ("04EE0000000002", "04EE0000000003")
    problems = _lines_with(table, "one-card-at-a-time")
    table.spi.lay(PADS["C"], "ntag213", rest, until=4.0)  # resting four seconds: one line
    # Lifted three seconds, laid again: a new play. A stay ends once the polls have seen the field empty for more
    # than quiet_gap (0.5 s), from one empty poll to another; a Pi polls every 60 ms, a loaded TCG guest's four
    # pads about once a second each: the lifting must span two empty polls here.
    relaid = table.spi.lay(PADS["C"], "ntag213", rest, at=7.0, until=10.0)
    table.spi.lay(PADS["A"], "classic1k", edge, at=0.5, until=5.0,
                  gaps=[(1.5, 0.2), (2.5, 0.15), (3.5, 0.25)])  # flickering at the edge of the field: one play
    # Two at once: refused, neither read. Laid from one moment: the second request reached a loaded guest after
    # a poll had seen the first alone (a single card, rightly read).
    together = table.spi.lay(PADS["B"], "ntag213", pair[0], at=2.0, until=5.5)["from"]
    table.spi.lay(PADS["B"], "ntag213", pair[1], at=2.0, until=5.5, since=together)
    table.wait("one line for each laying", lambda: (_lines_with(table, rest), _lines_with(table, edge),
                                                     _lines_with(table, "one-card-at-a-time")) == (2, 1, problems + 1),
               timeout=90)
    _until(relaid["until"] + 2.0, table)  # past the last lifting, with room for a late line
    assert [_lines_with(table, uid) for uid in (rest, edge, *pair)] == [2, 1, 0, 0]
    assert _lines_with(table, "one-card-at-a-time") == problems + 1  # said once


def test_figures_idle_polling(table: SpiTable) -> None:
    """What four idle pads cost in the VM (under TCG: a figure for the report, not a Pi's; bench --only rc522
    measures the driver's own share on this machine)."""
    for device in PADS.values():
        table.spi.clear(device)
    pid = table.vm.run("systemctl", "show", "-p", "MainPID", "--value", UNIT).stdout.strip()

    def cpu() -> float:
        fields = table.vm.run("cat", f"/proc/{pid}/stat").stdout.rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / 100

    before, stats, started = cpu(), table.spi.stats(), time.monotonic()
    time.sleep(6)
    after, later, seconds = cpu(), table.spi.stats(), time.monotonic() - started
    polls = sum(later["devices"][d]["transceives"] - stats["devices"][d]["transceives"] for d in PADS.values())
    table.figures["idle: referee CPU, share of one guest core (4 pads)"] = (after - before) / seconds
    table.figures["idle: CUSE server CPU, share of one guest core"] = (later["cpu"] - stats["cpu"]) / seconds
    table.figures["idle: polls a second, 4 pads together"] = polls / seconds
    table.figures["idle: SPI ioctls a second"] = sum(
        later["devices"][d]["messages"] - stats["devices"][d]["messages"] for d in PADS.values()) / seconds
    assert polls > 0
