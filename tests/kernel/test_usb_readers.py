"""The readers on a real Linux kernel: USB devices as configfs gadgets, the referee as installed.

Debian's own kernel (trixie's linux-image-amd64) boots in qemu with the system test's trixie
root, where ``systemd/install.sh --hid …`` installed bornes as an image builder would; the
referee runs under the VM's booted systemd (``bornes.service``). The devices a family plugs in
(tests/kernel/gadgets.py: a keyboard-mode barcode scanner, a 125 kHz RFID reader, a CDC-ACM
scanner, a person's keyboard, four pads) are USB gadgets on ``dummy_hcd``: the kernel enumerates
them as it would the real ones (usbhid, hid-generic, evdev, cdc_acm, udev's by-id names and the
installed rules), and every key reaches the referee as input reports through the USB stack.

The tests share one VM and run in order (one module: one xdist worker). docs/system.md says what
this proves and what still needs a real Pi. Skipped, with the reason, where the machine cannot do
it (not root, no qemu); under CI=true that is a failure.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.driver import SETUP_TAPS, Script, script_games
from tests.kernel.gadgets import CAPS_LOCK, CATALOGUE, NUM_LOCK
from tests.kernel.table import IN_CI, CannotBoot, KernelTable, open_table, reader_config, why_not

pytestmark = pytest.mark.slow  # a VM, emulated where there is no KVM: tests/readers is the fast share
REPORT = Path("/var/tmp/bornes-kernel-report.json")
SCANNER, KEYBOARD, RFID, SERIAL = (CATALOGUE[n] for n in ("scanner", "keyboard", "rfid", "serial-scanner"))
UNPLUG_CYCLES = 20
FIGURE_SCANS = 200  # in CI; bench/kernel.py scans 1 000
SCANNER_GAP = 0.003  # seconds after each key: a fast scanner (2 to 20 ms a key; docs/readers.md)


class Game:
    """A scripted 2-player game tapped through one gadget, checked against the referee's journal."""

    def __init__(self, table: KernelTable, seed: int) -> None:
        self.table = table
        self.script: Script = script_games(players=2, seed=seed, games=1)
        self.done = 0  # steps accepted

    def play(self, gadget: str, steps: int = 1, layout: str = "us", serial: bool = False) -> None:
        """Tap each step's codes; a code refused as garbled is scanned again, as the panel asks a
        player to (counted: a reader read late loses keys, docs/system.md), never more than twice."""
        for step in self.script.steps[self.done:self.done + steps]:
            before = len(self.table.accepted())
            taps = step.taps if self.done else (*SETUP_TAPS, *step.taps[len(SETUP_TAPS):])
            for tap in taps:
                for attempt in range(3):
                    garbled = self.table.count("refused [garbled]")
                    if serial:
                        self.table.usb("write", gadget, f"{tap}\r\n")
                    else:
                        self.table.scan(gadget, tap, layout=layout, gap=SCANNER_GAP)
                    time.sleep(1.0)  # a refusal is in the journal well within a second
                    if self.table.count("refused [garbled]") == garbled:
                        break
                    assert attempt < 2, f"{tap} refused as garbled three times: {self.table.journal()[-4:]}"
                    self.table.figures["scanned again"] = self.table.figures.get("scanned again", 0.0) + 1
            self.table.wait_accepted(before, step.notation)
            assert self.table.accepted()[-1] == step.notation, self.table.journal()[-6:]
            self.done += 1

    def next_card(self) -> str:
        return self.script.steps[self.done].taps[-1]

    def check_stored(self) -> None:
        assert self.table.stored() == self.script.notations()[:self.done]


@pytest.fixture(scope="module")
def table() -> Iterator[KernelTable]:
    reason = why_not()
    if reason:
        if IN_CI:
            pytest.fail(f"the kernel tier cannot run under CI: {reason}")
        pytest.skip(reason)
    started = time.monotonic()
    try:
        result = open_table()
    except CannotBoot as error:
        if IN_CI:
            raise
        pytest.skip(str(error))
    try:
        for name in ("keyboard", "scanner"):  # the keyboard first: the lower event number, listed first
            result.plug(name)
        yield result
    finally:
        result.figures["whole tier"] = time.monotonic() - started
        result.figures["accelerator"] = {"kvm": 1.0, "tcg": 0.0}[result.vm.accel]
        REPORT.write_text(json.dumps({"figures": result.figures, "kvm_problem": result.vm.kvm_problem}, indent=1))
        result.close()


def test_each_gadget_is_enumerated_as_the_model_it_copies(table: KernelTable) -> None:
    for name in ("rfid", "serial-scanner"):
        table.plug(name)
    for gadget in (SCANNER, KEYBOARD, RFID, SERIAL):
        udc = str(table.plugged[gadget.name]["udc"])
        device = f"/sys/bus/usb/devices/{int(udc.rsplit('.', 1)[1]) + 1}-1"  # dummy_hcd.N is usb bus N+1
        info = table.vm.run("udevadm", "info", "--query=property", device).stdout
        assert f"ID_VENDOR_ID={gadget.vendor:04x}" in info and f"ID_MODEL_ID={gadget.product:04x}" in info, info
        if gadget.listed:  # the id is linux-usb.org's name for the model (udev's hwdb of the VM's trixie)
            assert f"ID_MODEL_FROM_DATABASE={gadget.model}" in info, info
        stable = gadget.serial_by_id if gadget is SERIAL else gadget.input_by_id
        target = table.vm.run("readlink", "-f", stable).stdout.strip()
        nodes = table.plugged[gadget.name]["ttyACM" if gadget is SERIAL else "events"]
        assert target in nodes, (stable, target, nodes)  # type: ignore[operator]
    # install.sh's udev rule names the scanner by its ids; the keyboard gets no such name.
    assert table.vm.run("readlink", "-f", f"/dev/input/bornes-{SCANNER.vendor_product.replace(':', '-')}").stdout \
        .strip() == table.event_node("scanner")


def test_vendor_product_finds_the_scanner_never_the_keyboard(table: KernelTable) -> None:
    # As root, who may open every keyboard: both are keyboard-like, the ids pick the scanner.
    code = ("from bornes.drivers.readers.hid_device import keyboard_devices, resolve_device\n"
            f"print(resolve_device('{SCANNER.vendor_product}')); print([d.path for d in keyboard_devices()])")
    chosen, listed = table.vm.run("/opt/bornes/venv/bin/python", "-c", code).stdout.splitlines()
    assert chosen == table.event_node("scanner")
    assert table.event_node("keyboard") in listed and listed.index(table.event_node("keyboard")) < \
        listed.index(chosen), listed  # the keyboard comes first: the scanner is found by its ids, not by luck
    # The referee, configured with the ids (the image's config): a code typed on the keyboard is no card.
    table.wait_count("reader back on 05e0:1200", 0)
    game = Game(table, seed=3)
    heard = int(table.usb("listen", table.event_node("keyboard"), "3", "keyboard",
                          *[r for r in _hex("MB-CMD-OK")]).stdout)
    assert heard > 0  # the keyboard typed (to the console), not grabbed ...
    game.play("scanner", steps=2)  # ... and the scanner's codes are the cards
    assert table.count("accepted") == 2 and table.count("Unknown card") == 0
    game.check_stored()


def _hex(text: str, layout: str = "us") -> list[str]:
    from tests.kernel.gadgets import reports

    return [r.hex() for r in reports(text, layout)]


def test_the_grab_holds_while_the_referee_runs_and_is_released_on_stop(table: KernelTable) -> None:
    scanner = table.event_node("scanner")
    game = Game(table, seed=3)
    game.done = len(table.accepted())
    card = _hex(game.next_card())
    assert int(table.usb("listen", scanner, "3", "scanner", *card, "--gap", str(SCANNER_GAP)).stdout) == 0  # grabbed
    table.wait("the grabbed scan to be played", lambda: len(table.accepted()) > game.done)
    game.done += 1
    table.vm.run("systemctl", "stop", "bornes.service", timeout=60)
    assert int(table.usb("listen", scanner, "3", "scanner", *_hex("MB-CMD-OK")).stdout) > 0  # released
    backs = table.count("reader back on")
    table.vm.run("systemctl", "start", "bornes.service", timeout=90)
    table.wait_count("reader back on", backs, timeout=90)
    again = _hex(game.next_card())
    assert int(table.usb("listen", scanner, "3", "scanner", *again, "--gap", str(SCANNER_GAP)).stdout) == 0
    table.wait("the scan after the restart", lambda: len(table.accepted()) > game.done)
    game.done += 1
    game.check_stored()


def test_only_a_scan_at_scanner_speed_is_a_card(table: KernelTable) -> None:
    game = Game(table, seed=3)
    game.done = len(table.accepted())
    card = game.next_card()
    refusals = table.count("refused [")
    table.scan("scanner", card, gap=0.15)  # a person's pace
    table.wait_count("refused [typing]", 0)
    table.scan("scanner", card, ctrl=True)  # Ctrl held
    table.wait_count("refused [garbled]", 0)
    table.scan("scanner", card[:6], enter=False)  # half a code, then nothing for more than a second ...
    time.sleep(1.5)
    game.play("scanner")  # ... then the whole card: the half is refused, the card is played once
    said = table.journal()
    assert table.count("refused [") == refusals + 3, said[-8:]
    assert [line for line in said if "refused [" in line][-3:] == [
        "bornes: refused [typing] Typed by hand? Scan the card", "bornes: refused [garbled] The reader did not get "
        "that card: scan it again", "bornes: refused [garbled] The reader did not get that card: scan it again"]
    assert "Traceback" not in "\n".join(said)
    game.check_stored()  # nothing played by the refusals, the card once


def test_the_leds_are_what_the_referee_reads_the_keys_with(table: KernelTable) -> None:
    table.leds("scanner", 0.2), table.leds("keyboard", 0.2)  # what plugging in sent: forgotten
    table.usb("send", "scanner", f"0000{CAPS_LOCK:02x}0000000000", "0000000000000000")
    assert table.leds("scanner", 3) == ["02"]  # Caps Lock pressed on the scanner: its Caps Lock LED
    table.usb("send", "scanner", f"0000{NUM_LOCK:02x}0000000000", "0000000000000000")
    assert table.leds("scanner", 3) == ["03"]  # and Num Lock: both
    # Caps Lock on the person's keyboard: the console lights the keyboard, the grabbed scanner hears nothing.
    table.usb("send", "keyboard", f"0000{CAPS_LOCK:02x}0000000000", "0000000000000000")
    assert table.leds("keyboard", 3) == ["02"]
    assert table.leds("scanner", 1) == []
    # A scan with the referee's Caps Lock on still reads (its codes are capitals either way).
    game = Game(table, seed=3)
    game.done = len(table.accepted())
    game.play("scanner")
    for usage in (CAPS_LOCK, NUM_LOCK):  # back as it was
        table.usb("send", "scanner", f"0000{usage:02x}0000000000", "0000000000000000")
    assert table.leds("scanner", 3)[-1:] == ["00"]
    table.usb("send", "keyboard", f"0000{CAPS_LOCK:02x}0000000000", "0000000000000000")
    game.check_stored()


def test_the_udev_rule_gives_the_referee_the_scanner_and_not_the_keyboard(table: KernelTable) -> None:
    probe = "import os, sys\ntry:\n    os.close(os.open(sys.argv[1], os.O_RDONLY)); print('opened')\n" \
            "except OSError as e:\n    print(e.strerror)"
    for name, expected in (("scanner", "opened"), ("rfid", "opened"), ("keyboard", "Permission denied")):
        done = table.vm.run("setpriv", "--reuid=bornes", "--regid=bornes", "--init-groups", "python3", "-c", probe,
                            table.event_node(name))
        assert done.stdout.strip() == expected, (name, done)
    owners = table.vm.run("stat", "-c", "%G %a", table.event_node("scanner"), table.event_node("keyboard")).stdout
    assert owners.split("\n")[:2] == ["bornes 660", "input 660"], owners


def test_selection_by_input_by_id_and_an_azerty_scanner_pinned_by_the_layout_label(table: KernelTable) -> None:
    table.configure(reader_config(SCANNER.input_by_id, layout="auto"))
    table.wait_count(f"reader back on {SCANNER.input_by_id}", 0, timeout=90)
    table.scan("scanner", "MB-LAYOUT-AZQWYM", layout="fr")
    table.wait_count('Scanner: keyboard layout French AZERTY (layout = "fr")', 0)
    game = Game(table, seed=5)
    game.play("scanner", steps=3, layout="fr")
    refused = table.count("refused [garbled]")
    table.scan("scanner", game.next_card(), layout="us")  # the layout is pinned: a US scanner's keys are garbage now
    table.wait_count("refused [garbled]", refused)
    table.scan("keyboard", game.next_card(), layout="fr")  # and the keyboard, even typing a card, is not the reader
    time.sleep(2)
    game.play("scanner", layout="fr")
    game.check_stored()


def test_unplug_and_replug_mid_game_loses_and_doubles_nothing(table: KernelTable) -> None:
    game = Game(table, seed=5)
    game.done = len(table.accepted())
    inputs = set()
    started = time.monotonic()
    for _ in range(UNPLUG_CYCLES):
        lost, back = table.count("reader lost"), table.count("reader back on")
        table.unplug("scanner")
        table.wait_count("reader lost", lost)  # the panel's status: "Reader lost"
        found = table.replug("scanner")
        table.wait_count("reader back on", back)
        node = table.event_node("scanner")
        inputs.add(table.vm.run("readlink", "-f", f"/sys/class/input/{node.rsplit('/', 1)[1]}/device").stdout.strip())
        assert found["events"]
        game.play("scanner", layout="fr")
    table.figures["unplug cycles survived"] = float(UNPLUG_CYCLES)
    table.figures["seconds per unplug cycle (with a card)"] = (time.monotonic() - started) / UNPLUG_CYCLES
    assert len(inputs) == UNPLUG_CYCLES  # a new input device each time (the kernel reuses the event number)
    assert table.count("reader lost") >= UNPLUG_CYCLES and "Traceback" not in "\n".join(table.journal())
    game.check_stored()  # every card once: none lost, none doubled


def test_a_cdc_acm_scanner_by_its_serial_by_id_path(table: KernelTable) -> None:
    table.configure(reader_config(SERIAL.serial_by_id, protocol="lines"))
    table.wait_count(f"reader back on {SERIAL.serial_by_id}", 0, timeout=90)
    game = Game(table, seed=7)
    game.play("serial-scanner", steps=3, serial=True)
    game.check_stored()


PAD_TAPS = (  # tests/flow/games/three-sides-pads.feed, its first seven taps: Ann, Bob, Cid; Cid deals
    ("A", "MB-ROLL-01", "A play MB-ROLL-01"), ("B", "MB-ROLL-02", "B play MB-ROLL-02"),
    ("C", "MB-ROLL-03", "C play MB-ROLL-03"), ("A", "MB-D100-01", "A play MB-D100-01"),
    ("A", "MB-STOP-01", "B play MB-STOP-01 > A"),  # Bob's hazard on Ann's pad: on Ann, no question
    ("B", "MB-SPEEDLIMIT-01", "C play MB-SPEEDLIMIT-01 > B"),  # Cid's on Bob's pad
    ("B", "MB-RIGHTOFWAY-01", "B coup MB-RIGHTOFWAY-01"),  # Bob's coup fourré: one tap on his pad
)


def test_four_pads_a_hazard_on_a_third_side_and_a_coup_fourre_in_one_tap_each(table: KernelTable) -> None:
    for seat in "ABCD":
        table.plug(f"pad-{seat}")
    # Four of the same reader: same ids, same serial, so one by-id name; the USB socket (by-path) tells them apart.
    paths = {}
    for seat in "ABCD":
        node = table.event_node(f"pad-{seat}")
        links = table.vm.run("sh", "-c", f"for l in /dev/input/by-path/*-event-kbd; do [ \"$(readlink -f $l)\" = "
                                         f"{node} ] && echo $l; done").stdout.split()
        paths[seat] = next(link for link in links if "-usb-" in link)
    tags = {card: f"{4100 + i:010d}" for i, card in enumerate(["MB-CMD-OK", *(tap for _, tap, _ in PAD_TAPS)])}
    places = {"A": "A", "B": "B", "C": "C", "D": "discard"}
    pads = "".join(f'[pads.{seat}]\nplace = "{places[seat]}"\nprotocol = "hid"\nport = "{paths[seat]}"\n'
                   f'double_read_window = 0\nmax_backoff = 0.5\n' for seat in "ABCD")
    table.configure(reader_config("", players=3, names=("Ann", "Bob", "Cid"), extra="dealer = 2\n") + pads,
                    bindings={f"{int(number):08X}": card for card, number in tags.items()})
    table.wait("the four pads", lambda: table.count("reader back on /dev/input/by-path/") >= 4, timeout=90)
    table.scan("pad-A", tags["MB-CMD-OK"])  # the summary of the configured table: one OK starts the game
    for seat, card, notation in PAD_TAPS:
        before = len(table.accepted())
        table.scan(f"pad-{seat}", tags[card])  # one tap each, no prompt, no button
        table.wait_accepted(before, notation)
        assert table.accepted()[-1] == notation, table.journal()[-5:]
    assert table.stored() == [f"{notation} ; pad {seat}" for seat, _, notation in PAD_TAPS], table.stored()


def test_the_uinput_test_of_tests_readers_runs_here(table: KernelTable) -> None:
    done = table.vm.run("/opt/bornes-tests/bin/python", "-m", "pytest", "/opt/bornes/src/tests/readers/test_hid.py",
                        "-k", "uinput", "-p", "no:cacheprovider", "-o", "addopts=", "-rs", "-q", timeout=300,
                        check=False)
    assert re.search(r"\b1 passed\b", done.stdout) and "skipped" not in done.stdout, done.stdout[-2000:]


def test_figures_scans_through_the_gadget(table: KernelTable) -> None:
    """Read / lost / garbled of many scans at scanner speed (the tier's report; bench/kernel.py for 1 000)."""
    from tests.kernel.figures import scan_run

    figures = scan_run(table, FIGURE_SCANS)
    table.figures.update(figures)
    print(json.dumps(figures))
    assert figures["read"] + figures["garbled"] + figures["lost"] == FIGURE_SCANS
    assert figures["wrong card"] == 0  # a scan may be refused (and scanned again), never read as another card
