"""The readers on a real Linux kernel: USB devices as configfs gadgets, the referee as installed.

Debian's own kernel (trixie's linux-image-amd64) boots in qemu with the system test's trixie
root, where ``systemd/install.sh --hid …`` installed bornes as an image builder would; the
referee runs under the VM's booted systemd (``bornes.service``). The devices a family plugs in
(tools/kernel/gadgets.py: a keyboard-mode barcode scanner, a 125 kHz RFID reader, a CDC-ACM
scanner, a person's keyboard, a numeric keypad for the buttons, four pads) are USB gadgets on
``dummy_hcd``: the kernel enumerates them as it would the real ones (usbhid, hid-generic, evdev,
cdc_acm, udev's by-id names and the installed rules), and every key reaches the referee as input
reports through the USB stack.

The tests share one VM and run in order (one module: one xdist worker). docs/system.md says what
this proves and what still needs a real Pi. Skipped, with the reason, where the machine cannot do
it (not root, no qemu); under CI=true that is a failure.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.kernel.booting import booting
from tests.kernel.game import Game, GameTable
from tools.kernel.gadgets import CAPS_LOCK, CATALOGUE, NUM_LOCK
from tools.kernel.table import PYTHON, SCANNER_GAP, UNIT, open_table, reader_config
from tools.kernel.vm import UINPUT_TESTS

pytestmark = pytest.mark.slow  # a VM, emulated where there is no KVM: tests/readers is the fast share
REPORT = Path("/var/tmp/bornes-kernel-report.json")
SCANNER, KEYBOARD, RFID, SERIAL, KEYPAD = (CATALOGUE[n] for n in ("scanner", "keyboard", "rfid", "serial-scanner",
                                                                    "keypad"))
UNPLUG_CYCLES = 20
FIGURE_SCANS = 200  # in CI; bench/kernel.py scans 1 000


@pytest.fixture(scope="module")
def table() -> Iterator[GameTable]:
    """One VM for the module: booted once (the boot is most of the tier's time under TCG), the tests
    run in order in it, each going on from where the one before left the referee and its game."""
    started = time.monotonic()
    with booting():
        result = open_table(GameTable)
    try:
        for name in ("keyboard", "scanner"):  # the keyboard first: the lower event number, listed first
            result.plug(name)
        result.game = Game(result, seed=3)
        yield result
    finally:
        result.figures["whole tier"] = time.monotonic() - started
        result.figures["qemu CPU seconds"] = result.vm.cpu_seconds()
        result.figures["accelerator"] = {"kvm": 1.0, "tcg": 0.0}[result.vm.accel]
        result.figures["load average at the end"] = os.getloadavg()[0]
        REPORT.write_text(json.dumps({"figures": result.figures, "kvm_problem": result.vm.kvm_problem}, indent=1))
        print(json.dumps(result.figures, indent=1))
        result.close()


def test_each_gadget_is_enumerated_as_the_model_it_copies(table: GameTable) -> None:
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


def test_vendor_product_finds_the_scanner_never_the_keyboard(table: GameTable) -> None:
    # As root, who may open every keyboard: both are keyboard-like, the ids pick the scanner.
    code = ("from bornes.drivers.readers.hid_device import keyboard_devices, resolve_device\n"
            f"print(resolve_device('{SCANNER.vendor_product}')); print([d.path for d in keyboard_devices()])")
    chosen, listed = table.vm.run(PYTHON, "-c", code).stdout.splitlines()
    assert chosen == table.event_node("scanner")
    assert table.event_node("keyboard") in listed and listed.index(table.event_node("keyboard")) < \
        listed.index(chosen), listed  # the keyboard comes first: the scanner is found by its ids, not by luck
    # The referee, configured with the ids (the image's config): a code typed on the keyboard is no card ...
    table.wait_count("reader back on 05e0:1200", 0)
    keyboard = table.event_node("keyboard")
    table.listen(keyboard)
    inputs = len(table.inputs())
    table.scan("keyboard", "MB-CMD-OK", gap=SCANNER_GAP)
    assert table.heard(keyboard) > 0  # the keyboard typed (to the console: it is not grabbed) ...
    table.journal(wait=2.0)
    assert len(table.inputs()) == inputs  # ... and the referee read none of it
    game = table.current()
    game.play("scanner", steps=2)  # the scanner's codes are the cards
    assert len(table.accepted()) == 2 and table.count("Unknown card") == 0
    game.check_stored()


def test_the_grab_holds_while_the_referee_runs_and_is_released_on_stop(table: GameTable) -> None:
    scanner, game = table.event_node("scanner"), table.current()
    table.listen(scanner)
    game.play("scanner")  # the referee reads the step's scans ...
    assert table.heard(scanner) == 0  # ... and a second reader of the scanner hears none of their keys
    table.vm.run("systemctl", "stop", UNIT, timeout=60)
    table.listen(scanner)
    table.scan("scanner", "MB-CMD-OK", gap=SCANNER_GAP)
    assert table.heard(scanner) > 0  # released on stop
    backs = table.count("reader back on")
    table.vm.run("systemctl", "start", UNIT, timeout=90)
    table.wait_count("reader back on", backs, timeout=90)
    table.listen(scanner)
    game.play("scanner")
    assert table.heard(scanner) == 0  # grabbed again after the restart
    game.check_stored()


KEYS_LOST = "bornes: input garbled: keys were lost"  # the kernel dropped keys: scanned again, as a player would


def _scanned(table: GameTable, gadget: str, payload: str, **how: float | bool | str) -> list[str]:
    """The referee's lines for one scan, scanned again (three times at most) while it says the kernel lost
    keys, as the panel asks a player to (CI: an AZERTY scanner's layout label, its first scan, lost keys)."""
    for _ in range(3):
        said = table.tap(gadget, payload, **how)  # type: ignore[arg-type]
        if not said[0].startswith(KEYS_LOST):
            return said
    raise AssertionError(f"{payload}: keys lost three times")


def _refused(table: GameTable, payload: str, **how: float | bool) -> str:
    """The referee's line for one scan that it refuses (scanned again while the kernel drops its keys)."""
    (said,) = _scanned(table, "scanner", payload, **how)
    assert said.endswith(": refused"), said
    return said


def test_only_a_scan_at_scanner_speed_is_a_card(table: GameTable) -> None:
    game = table.current()
    card = game.next_taps()[-1]  # the next step's card
    inputs = len(table.inputs())
    assert _refused(table, card, gap=0.15).startswith("bornes: input typing: keys came ")  # a person's pace
    assert _refused(table, card, ctrl=True).startswith("bornes: input garbled: a key no label holds")  # Ctrl held
    half = len(table.inputs())
    table.scan("scanner", card[:6], enter=False, gap=SCANNER_GAP)  # half a code, then nothing for over a second
    time.sleep(1.5)
    assert len(table.inputs()) == half  # nothing yet: the referee cannot know the code is over ...
    game.play("scanner", after_half_code=True)  # ... until the next key: the half refused, the whole step played once
    refusals = [line for line in table.inputs()[inputs:]
                if line.endswith(": refused") and not line.startswith(KEYS_LOST)]
    assert len(refusals) == 3, refusals  # each refused in one line; the rest of the lines are the step's
    assert refusals[2].startswith("bornes: input garbled: 6 keys with no Enter after them"), refusals
    assert "Traceback" not in "\n".join(table.journal())
    game.check_stored()  # nothing played by the refusals, the step once


def test_the_leds_are_what_the_referee_reads_the_keys_with(table: GameTable) -> None:
    table.leds("scanner", 0.2), table.leds("keyboard", 0.2)  # what plugging in sent: forgotten
    table.usb("send", "scanner", f"0000{CAPS_LOCK:02x}0000000000", "0000000000000000")
    assert table.leds("scanner", 3) == ["02"]  # Caps Lock pressed on the scanner: its Caps Lock LED
    table.usb("send", "scanner", f"0000{NUM_LOCK:02x}0000000000", "0000000000000000")
    assert table.leds("scanner", 3) == ["03"]  # and Num Lock: both
    # Caps Lock on the person's keyboard: the console lights the keyboard, the grabbed scanner hears nothing.
    table.usb("send", "keyboard", f"0000{CAPS_LOCK:02x}0000000000", "0000000000000000")
    assert table.leds("keyboard", 3) == ["02"]
    assert table.leds("scanner", 1) == []
    game = table.current()
    game.play("scanner")  # a scan with the referee's Caps Lock on still reads (its codes are capitals either way)
    for usage in (CAPS_LOCK, NUM_LOCK):  # back as it was
        table.usb("send", "scanner", f"0000{usage:02x}0000000000", "0000000000000000")
    assert table.leds("scanner", 3)[-1:] == ["00"]
    table.usb("send", "keyboard", f"0000{CAPS_LOCK:02x}0000000000", "0000000000000000")
    game.check_stored()


def test_the_udev_rule_gives_the_referee_the_scanner_and_not_the_keyboard(table: GameTable) -> None:
    probe = "import os, sys\ntry:\n    os.close(os.open(sys.argv[1], os.O_RDONLY)); print('opened')\n" \
            "except OSError as e:\n    print(e.strerror)"
    for name, expected in (("scanner", "opened"), ("rfid", "opened"), ("keyboard", "Permission denied")):
        done = table.vm.run("setpriv", "--reuid=bornes", "--regid=bornes", "--init-groups", "python3", "-c", probe,
                            table.event_node(name))
        assert done.stdout.strip() == expected, (name, done)
    owners = table.vm.run("stat", "-c", "%G %a", table.event_node("scanner"), table.event_node("keyboard")).stdout
    assert owners.split("\n")[:2] == ["bornes 660", "input 660"], owners


def test_selection_by_input_by_id_and_an_azerty_scanner_pinned_by_the_layout_label(table: GameTable) -> None:
    table.configure_game(reader_config(SCANNER.input_by_id, layout="auto"), seed=5)
    table.wait_count(f"reader back on {SCANNER.input_by_id}", 0, timeout=90)
    said = _scanned(table, "scanner", "MB-LAYOUT-AZQWYM", layout="fr")
    assert said[0].startswith("bornes: input layout: keyboard layout French AZERTY"), said
    assert table.count('Scanner: keyboard layout French AZERTY (layout = "fr")') == 1
    game = table.current()
    game.play("scanner", steps=3, layout="fr")
    said = _scanned(table, "scanner", game.next_taps()[-1], layout="us")  # pinned: a US scanner's keys are garbage
    assert said[0].startswith("bornes: input garbled: ") and "French AZERTY" in said[0], said
    inputs = len(table.inputs())
    table.scan("keyboard", game.next_taps()[-1], layout="fr", gap=SCANNER_GAP)  # the keyboard typing a card ...
    table.journal(wait=2.0)
    assert len(table.inputs()) == inputs  # ... is no input of the referee's
    game.play("scanner", layout="fr")
    game.check_stored()


def test_unplug_and_replug_mid_game_loses_and_doubles_nothing(table: GameTable) -> None:
    game = table.current()
    inputs: set[str] = set()
    started = time.monotonic()
    for _ in range(UNPLUG_CYCLES):
        lost, back = table.count("bornes: reader lost"), table.count("bornes: reader back on")
        table.unplug("scanner")
        table.wait_count("bornes: reader lost", lost)  # what the panel shows as "Reader lost"
        table.replug("scanner", wait=False)
        table.wait_count("bornes: reader back on", back)  # the referee found it: the kernel's nodes are there
        inputs.update(table.wait_nodes("scanner", settle=False)["inputs"])  # type: ignore[arg-type]
        game.play("scanner", layout="fr")
    table.figures["unplug cycles survived"] = float(UNPLUG_CYCLES)
    table.figures["seconds per unplug cycle (with a card)"] = (time.monotonic() - started) / UNPLUG_CYCLES
    # A new input device each time; the kernel gives it the lowest free event number, the one it had.
    assert len(inputs) == UNPLUG_CYCLES, inputs
    assert table.count("bornes: reader lost") >= UNPLUG_CYCLES and "Traceback" not in "\n".join(table.journal())
    game.check_stored()  # every card once: none lost, none doubled


def test_a_cdc_acm_scanner_by_its_serial_by_id_path(table: GameTable) -> None:
    table.configure_game(reader_config(SERIAL.serial_by_id, protocol="lines"), seed=7)
    table.wait_count(f"reader back on {SERIAL.serial_by_id}", 0, timeout=90)
    game = table.current()
    game.play("serial-scanner", steps=3, serial=True)
    game.check_stored()


def test_the_uinput_test_of_tests_readers_runs_here(table: GameTable) -> None:
    """tests/readers' two tests that need /dev/uinput (skipped where the host kernel has none): a grabbed
    uinput scanner read and released, and the reader's queue left without EV_MSC (EVIOCSMASK)."""
    done = table.vm.run("/opt/bornes-tests/bin/python", "-m", "pytest", *UINPUT_TESTS, "-p", "no:cacheprovider",
                        "-o", "addopts=", "-rs", "-q", timeout=300, check=False)
    assert re.search(r"\b2 passed\b", done.stdout) and "skipped" not in done.stdout, done.stdout[-2000:]


def test_figures_scans_through_the_gadget(table: GameTable) -> None:
    """Many scans at a fast scanner's pace into ``bornes scan-test``: each one read as its card, or
    refused in one line (the kernel dropped keys, or a starved guest stamped them late: scan it again; CI16
    saw 2 of 200 stamped late besides 1 dropped); never another card, never a code
    misread as no card, never a scan gone without a word; then one unplug cycle. The figures go to the
    tier's report. They are measured and printed by ``python -m bench``'s kernel part (:func:`measure_on`,
    :func:`rows_from`, which scan 1 000 on a VM of their own): a smoke run of the bench boots no VM (a
    boot is most of a CPU-minute under TCG), so this is where CI runs that part's code. A second unit of
    the scanner is read, so the referee keeps its reader meanwhile."""
    from bench.kernel import SMOKE_PACES, measure_on, rows_from

    table.plug("scanner-2")
    found = measure_on(table, FIGURE_SCANS, 1, SMOKE_PACES, gadget="scanner-2", stop_referee=False)
    table.remove("scanner-2")
    (pace,) = SMOKE_PACES
    figures = found.runs[pace]
    table.figures.update({f"{name} ({FIGURE_SCANS} scans, 3 ms a key)": value for name, value in figures.items()})
    print(json.dumps(figures))
    assert figures["wrong card"] == 0 and figures["unknown card"] == 0, figures
    overflowed = figures["of which keys lost (the kernel's buffer overflowed)"]
    late = figures["of which keys stamped late (a starved guest)"]
    # at a scanner's pace the only refusals are keys lost and keys stamped late: never a code misread
    assert figures["garbled"] == overflowed + late, figures
    # A refusal may cover the scans around it (a reader read late finds several scans' keys dropped at once, and
    # says so once); no scan is lost where nothing was said.
    assert figures["lost without a word (no refusal between the reads around it)"] == 0, figures
    # How many are read is the starved guest's, not the reader's: CI32 read 172 of 200, its 7 refusals (the kernel's
    # buffer overflowed while the guest was not scheduled, SYN_DROPPED) covering the 21 not read. The bench's kernel
    # part judges the same two things as above (bench/kernel.py rows_from); this floor catches a reader that reads
    # next to nothing.
    assert figures["read"] >= FIGURE_SCANS // 2, figures
    rows = rows_from(found, 1)
    assert len(rows) == 3 and all(len(row) == 4 for row in rows), rows
    assert rows[1][0].startswith(f"  {FIGURE_SCANS} scans {pace}") and rows[1][3] is True, rows
    assert rows[2][1] == "1 of 1 survived", rows


KEYPAD_STEPS = 14  # seed 5's first 14 steps: the setup's OK, 13 cards, then A's coup fourré (0, then the safety)


def test_a_usb_numeric_keypad_is_the_tables_buttons(table: GameTable) -> None:
    """``[buttons] source = "hid"``: a Targus numeric keypad, found by its by-id name (no manufacturer
    string: udev names it by its vendor id) and grabbed, is the table's buttons: its Enter starts
    the game, its 0 calls the coup fourré; the scanner scans the cards."""
    keypad = str(table.plug("keypad")["events"][0])  # type: ignore[index]
    try:
        # udev makes the by-id link after the event node; on a loaded machine, after `udevadm settle` gave up
        deadline = time.monotonic() + 60
        while (linked := table.vm.run("readlink", "-f", KEYPAD.input_by_id).stdout.strip()) != keypad:
            assert time.monotonic() < deadline, f"{KEYPAD.input_by_id} -> {linked}, not {keypad}, after 60 s"
            time.sleep(0.5)
        buttons = f'[buttons]\nsource = "hid"\nport = "{KEYPAD.input_by_id}"\nkeymap = "numpad"\nmax_backoff = 0.5\n'
        game = table.configure_game(reader_config(SCANNER.vendor_product, extra=buttons), seed=5)
        table.wait_count(f"keypad back on {KEYPAD.input_by_id}", 0, timeout=90)
        table.listen(keypad)
        game.play("scanner", steps=KEYPAD_STEPS, keypad="keypad")
        assert table.heard(keypad) == 0  # grabbed: no key of it reached anyone else
        assert table.accepted()[-1] == "A coup MB-EXTRATANK-01"
        pressed = [line for line in table.inputs() if line.startswith("bornes: input button ")]
        assert pressed == ["bornes: input button OK: accepted", "bornes: input button CF: prompt"], pressed
        game.check_stored()
    finally:
        table.remove("keypad")  # its HID minor, for the four pads (whatever happened above)


PAD_TAPS = (  # tests/flow/games/three-sides-pads.feed, its first seven taps: Ann, Bob, Cid; Cid deals
    ("A", "MB-ROLL-01", "A play MB-ROLL-01"), ("B", "MB-ROLL-02", "B play MB-ROLL-02"),
    ("C", "MB-ROLL-03", "C play MB-ROLL-03"), ("A", "MB-D100-01", "A play MB-D100-01"),
    ("A", "MB-STOP-01", "B play MB-STOP-01 > A"),  # Bob's hazard on Ann's pad: on Ann, no question
    ("B", "MB-SPEEDLIMIT-01", "C play MB-SPEEDLIMIT-01 > B"),  # Cid's on Bob's pad
    ("B", "MB-RIGHTOFWAY-01", "B coup MB-RIGHTOFWAY-01"),  # Bob's coup fourré: one tap on his pad
)


def test_four_pads_a_hazard_on_a_third_side_and_a_coup_fourre_in_one_tap_each(table: GameTable) -> None:
    # The kernel's f_hid has four HID minors for all gadgets together: the other keyboard-like gadgets go first.
    for name in ("scanner", "keyboard", "rfid"):
        table.remove(name)
    for seat in "ABCD":
        table.plug(f"pad-{seat}")
    # Four of the same reader: same ids, same serial, so one by-id name; the USB socket (by-path) tells them apart.
    paths = {}
    for seat in "ABCD":  # udev names each twice (…-usb-0:1:1.0-event-kbd and …-usbv2-…): the first form
        links = json.loads(table.usb("where", f"pad-{seat}").stdout)["by-path"]
        paths[seat] = next(link for link in links if "-usb-" in link)
    assert len(set(paths.values())) == 4, paths
    tags = {card: f"{4100 + i:010d}" for i, card in enumerate(["MB-CMD-OK", *(tap for _, tap, _ in PAD_TAPS)])}
    places = {"A": "A", "B": "B", "C": "C", "D": "discard"}
    pads = "".join(f'[pads.{seat}]\nplace = "{places[seat]}"\nprotocol = "hid"\nport = "{paths[seat]}"\n'
                   f'double_read_window = 0\nmax_backoff = 0.5\n' for seat in "ABCD")
    table.configure(reader_config("", players=3, names=("Ann", "Bob", "Cid"), extra="dealer = 2\n") + pads,
                    bindings={f"{int(number):08X}": card for card, number in tags.items()})
    table.wait("the four pads", lambda: table.count("reader back on /dev/input/by-path/") >= 4, timeout=90)
    assert _scanned(table, "pad-A", tags["MB-CMD-OK"])[0].endswith(": accepted")  # the summary: one OK starts it
    for seat, card, notation in PAD_TAPS:
        said = _scanned(table, f"pad-{seat}", tags[card])  # one tap each, no prompt, no button
        assert said[0].endswith(": accepted") and table.accepted()[-1] == notation, table.journal()[-5:]
    assert table.stored() == [f"{notation} ; pad {seat}" for seat, _, notation in PAD_TAPS], table.stored()
