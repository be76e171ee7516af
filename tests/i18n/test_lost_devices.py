"""A reader, a pad or the keypad that cannot be used, said in the table's language (issue 40).

A French console said "pavé perdu : cannot open 05a4:9840: No such file or directory": the reason was
the system's English. The drivers now put the cause on the queue as data (a kind of failure and the
device: ``drivers/events.py`` DeviceFailure) and ``firmware/language/devices.py`` words it, so the
panel, the console and the journal's English line each say "05a4:9840 introuvable (branché ?)" or
"05a4:9840 not found (plugged in?)". The journal stays English and keeps its first words
("keypad lost: ", "input keypad lost"), which the kernel tier reads (tools/kernel/table.py).
"""

from __future__ import annotations

import errno
import logging
import queue
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
import serial

from bornes.drivers.events import KEYPAD, DeviceFailure, Failure, ReaderLost
from bornes.drivers.keypad import KEYMAPS, open_keypad
from bornes.drivers.readers import open_reader
from bornes.drivers.readers.pn532 import Pn532Timeout
from bornes.firmware.appliance.console import SpokenLines
from bornes.firmware.appliance.referee import Referee
from bornes.firmware.language.devices import FAILURE_WORDS, failure_words
from bornes.firmware.language.i18n import speaking
from bornes.firmware.table.flow import TableFlow
from tests.emulator.test_emulator import BORNES, REPO, quiet_env
from tests.i18n import pseudo
from tools.kernel.table import INPUT, READER_NOTICES

NBSP = "\u00a0"
#: The system's own words, which a French table must never show for a kind we know.
SYSTEM_WORDS = ("No such file", "No such device", "Permission denied", "Device or resource busy",
                "Input/output error", "cannot open")


def _lost(events: queue.Queue[Any], timeout: float = 10.0) -> ReaderLost:
    while True:
        event = events.get(timeout=timeout)
        if isinstance(event, ReaderLost):
            return event


# -- the cause, as data ------------------------------------------------------------------------------


def _serial_error(path: Path) -> serial.SerialException:
    """What pyserial itself raises for a port that is not there (its errno is the open(2)'s)."""
    try:
        serial.Serial(str(path))
    except serial.SerialException as error:
        return error
    raise AssertionError("the port opened")


def test_a_failure_is_the_kind_a_person_acts_on(tmp_path: Path) -> None:
    cases: list[tuple[BaseException, bool, Failure]] = [
        (_serial_error(tmp_path / "ttyUSB9"), True, Failure.NOT_FOUND),
        (FileNotFoundError(errno.ENOENT, "No such file or directory"), True, Failure.NOT_FOUND),
        (OSError(errno.ENODEV, "No such device"), False, Failure.UNPLUGGED),  # evdev's read after an unplug
        (serial.SerialException("device reports readiness to read but returned no data (device disconnected or "
                                "multiple access on port?)"), False, Failure.UNPLUGGED),
        (PermissionError(errno.EACCES, "Permission denied"), True, Failure.PERMISSION),
        (OSError(errno.EBUSY, "05a4:9840 is held by another program (grabbed)"), True, Failure.BUSY),
        (OSError(errno.EIO, "Input/output error"), False, Failure.NO_ANSWER),
        (Pn532Timeout("the PN532 does not answer (wiring, HSU mode switches or baud rate?)"), True,
         Failure.NO_ANSWER),
        (ValueError("baud rate 7 is not supported"), True, Failure.OTHER),
    ]
    for error, opening, kind in cases:
        failure = DeviceFailure.of(error, "/dev/ttyUSB9", opening=opening)
        assert failure.kind is kind, (error, failure)
    other = DeviceFailure.of(ValueError("baud rate 7 is not supported"), "/dev/ttyUSB9")
    assert failure_words(other, "fr") == f"/dev/ttyUSB9{NBSP}: baud rate 7 is not supported"  # the last resort


@pytest.mark.parametrize("kind", [kind for kind in Failure if kind is not Failure.OTHER])
def test_every_known_kind_has_words_of_our_own_in_both_languages(kind: Failure) -> None:
    failure = DeviceFailure(kind, "05a4:9840", "No such file or directory")
    english, french = failure_words(failure, "en"), failure_words(failure, "fr")
    assert "05a4:9840" in english and "05a4:9840" in french and english != french
    assert not any(word in said for word in SYSTEM_WORDS for said in (english, french)), (english, french)
    with speaking(pseudo.install()):  # every word but the device came through the catalogue
        assert pseudo.untranslated([failure_words(failure)], {"05a4:9840"}) == []
    assert set(FAILURE_WORDS) == set(Failure)


# -- the keypad and a reader, opened for real -------------------------------------------------------


def test_a_keypad_not_plugged_in_is_said_in_the_tables_words() -> None:
    """The issue's case: ``--keypad`` and no keypad. The real evdev look-up finds no 05a4:9840."""
    events: queue.Queue[Any] = queue.Queue()
    keypad = open_keypad("05a4:9840", events, KEYMAPS["numpad"], max_backoff=0.2)
    try:
        lost = _lost(events)
    finally:
        keypad.close()
    assert lost.reader == KEYPAD and isinstance(lost.detail, DeviceFailure)
    assert lost.detail.kind is Failure.NOT_FOUND and lost.detail.device == "05a4:9840"
    assert failure_words(lost.detail, "fr") == f"05a4:9840 introuvable (branché{NBSP}?)"
    assert failure_words(lost.detail, "en") == "05a4:9840 not found (plugged in?)"


def test_a_reader_that_cannot_be_opened_on_a_french_panel(tmp_path: Path) -> None:
    port = tmp_path / "ttyUSB9"
    events: queue.Queue[Any] = queue.Queue()
    reader = open_reader("lines", str(port), events, max_backoff=0.2)
    try:
        lost = _lost(events)
    finally:
        reader.close()
    with speaking("fr"):
        flow = TableFlow(edition="dujardin", players=2, names=("Anaïs", "Bruno"))
        flow.handle(lost)
    assert flow.ui.message == f"Lecteur perdu{NBSP}: {port} introuvable (branché{NBSP}?)"
    assert flow.ui.status == "Lecteur perdu"


def test_a_keypad_the_table_may_not_open_says_why_not_plug_it_in() -> None:
    """Plugging it in again would not help a keypad this user may not open: the panel says why."""
    denied = ReaderLost(DeviceFailure(Failure.PERMISSION, "/dev/input/event3", "Permission denied"), KEYPAD)
    with speaking("fr"):
        flow = TableFlow(edition="dujardin", players=2, names=("Anaïs", "Bruno"))
        flow.handle(denied)
        assert flow.ui.message == f"Pavé perdu{NBSP}: /dev/input/event3{NBSP}: accès refusé"
        flow.handle(ReaderLost(DeviceFailure(Failure.NOT_FOUND, "05a4:9840"), KEYPAD))
        assert flow.ui.message is not None and flow.ui.message.startswith(f"Pavé perdu{NBSP}: rebranchez-le")


# -- the console, the journal and the kernel tier's contract ----------------------------------------


def test_the_console_says_it_in_french_and_the_journal_in_english(caplog: pytest.LogCaptureFixture) -> None:
    """journald's lines stay English whatever the table speaks (docs/languages.md) and begin as the kernel
    tier reads them; the emulator's console says the same line in the table's language."""
    lost = ReaderLost(DeviceFailure.of(FileNotFoundError(errno.ENOENT, "No such file or directory"), "05a4:9840"),
                      KEYPAD)
    with speaking("fr"):  # as run does for a French table
        flow = TableFlow(edition="dujardin", players=2, names=("Anaïs", "Bruno"))
        referee = Referee(flow, None, watchdog=False)  # type: ignore[arg-type]
        with caplog.at_level(logging.DEBUG, logger="bornes"):
            referee.step(lost)
        records = [record for record in caplog.records if record.name == "bornes"]
        journal = [record.getMessage() for record in records]
        spoken = SpokenLines()
        console = [record.getMessage() for record in records if spoken.filter(record) and record.levelno > 10]
    assert journal == ["keypad lost: 05a4:9840 not found (plugged in?)",
                       "input keypad lost: cannot open 05a4:9840: No such file or directory: ignored"]
    assert console == [f"pavé perdu{NBSP}: 05a4:9840 introuvable (branché{NBSP}?)"]
    # As journald shows them ("bornes: " and the message): the kernel tier leaves the debug line out of a tap's
    # lines, and counts the warning as the reader's coming and going.
    assert f"bornes: {journal[1]}".startswith(INPUT) and f"bornes: {journal[1]}".startswith(READER_NOTICES)


@pytest.mark.slow
def test_the_emulator_with_a_keypad_not_plugged_in(tmp_path: Path) -> None:
    """The issue's transcript: ``bornes run --emulate --keypad`` on a French table, no keypad plugged in."""
    config = tmp_path / "keypad.toml"
    config.write_text('[display]\npanel = "ssd1306"\n[pins]\nfactory = "mock"\n'
                      f'[state]\ndir = "{tmp_path / "state"}"\n[game]\nedition = "dujardin"\nplayers = 2\n'
                      '[buttons]\nsource = "hid"\nport = "05a4:9840"\nkeymap = "numpad"\n', encoding="utf-8")
    child = subprocess.Popen([*BORNES, "run", "--emulate", "--keypad", "--config", str(config)], cwd=REPO,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             env=quiet_env())
    assert child.stdin is not None and child.stdout is not None
    lines: list[str] = []
    said = threading.Event()

    def read(stream: Any) -> None:
        for line in stream:
            lines.append(line.rstrip("\n"))
            if "perdu" in line:
                said.set()

    reader = threading.Thread(target=read, args=(child.stdout,), daemon=True)
    reader.start()
    try:
        assert said.wait(60), lines
    finally:
        child.stdin.close()
        child.wait(60)
        reader.join(10)
    lost = [line for line in lines if "perdu" in line]
    assert lost == [f"bornes: pavé perdu{NBSP}: 05a4:9840 introuvable (branché{NBSP}?)"], lines
