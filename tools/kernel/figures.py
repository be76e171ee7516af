"""Many scans through a scanner gadget, counted (the kernel tier's figures, and bench/kernel.py's).

``bornes scan-test`` (as the referee's user, through the udev rule) reads a scanner gadget while
the gadget types ``count`` card codes (the deck's, in turn) at ``gap`` seconds a key (0: as fast
as USB takes the reports); the referee's service is stopped when the gadget is its reader. Each
code scan-test prints is matched, in order, against what was typed. A refusal (``! garbled: …``)
is a scan a player makes again; an unknown code (``? unknown card``) is a scan misread as no card;
a code read that was not typed there is a wrong card; a scan nothing was said of is lost (one
refusal may cover two scans when the kernel dropped the keys between them). :func:`unplug_run`
unplugs and replugs the scanner under scan-test and scans a card after each replug.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator

from bornes.drivers.readers.hid import KEYS_LOST, NO_ENTER, TYPED_BY_HAND
from bornes.engine.cards import full_deck
from tools.kernel.gadgets import CATALOGUE, reports
from tools.kernel.table import KernelTable, reader_config

OUT = "/run/bornes-figures.out"
QUIET = 5.0  # seconds with no new line after the last key: scan-test has read all it will


@contextlib.contextmanager
def scan_test(table: KernelTable, gadget: str = "scanner", *, stop_referee: bool = True,
              layout: str = "us") -> Iterator[None]:
    """``bornes scan-test`` on a gadget (by its by-id name), its lines in OUT; with ``stop_referee``,
    instead of the referee (which would hold that reader), started again after."""
    config = reader_config(CATALOGUE[gadget].input_by_id, layout=layout) + '[state]\ndir = "/var/lib/bornes"\n'
    if stop_referee:
        table.vm.run("systemctl", "stop", "bornes.service", timeout=60)
    table.vm.run("sh", "-c", "cat > /run/bornes-figures.toml && chmod 644 /run/bornes-figures.toml", input=config)
    table.vm.run("systemd-run", "--unit=bornes-figures", "--uid=bornes", "--gid=bornes",
                 f"--property=StandardOutput=file:{OUT}", "/opt/bornes/venv/bin/bornes", "scan-test",
                 "--config", "/run/bornes-figures.toml", "--seconds", "86400")
    try:
        if not until("scan-test to hold the scanner", lambda: "reader connected" in said(table), timeout=120):
            raise AssertionError(f"scan-test never held the scanner: {said(table)[-500:]}")
        yield
    finally:
        table.vm.run("systemctl", "stop", "bornes-figures", check=False, timeout=60)
        table.vm.run("systemctl", "reset-failed", "bornes-figures", check=False)
        table.vm.run("rm", "-f", OUT)
        if stop_referee:
            table.vm.run("systemctl", "start", "bornes.service", timeout=90)


def said(table: KernelTable) -> str:
    return table.vm.run("cat", OUT, check=False).stdout


def settled(table: KernelTable, expected: int) -> list[str]:
    """scan-test's lines once it has said ``expected`` of them (a scan gives one line: its code, a
    refusal, an unknown card) and none more came for a second; or once none has come for QUIET s."""
    lines: list[str] = []
    quiet_since = time.monotonic()
    while time.monotonic() - quiet_since < (1.0 if len(lines) >= expected else QUIET):
        now = said(table).splitlines()
        if len(now) != len(lines):
            lines, quiet_since = now, time.monotonic()
        time.sleep(0.5)
    return lines


#: The reader's words for keys that came too far apart: typed by hand, or a pause mid-code.
LATE_KEYS = (TYPED_BY_HAND, NO_ENTER)


def scan_run(table: KernelTable, count: int, *, gap: float = 0.0, gadget: str = "scanner", stop_referee: bool = True,
             layout: str = "us", session: bool = True) -> dict[str, float]:
    """``count`` scans into scan-test, in a :func:`scan_test` of their own, or (``session=False``) in the
    one the caller holds open."""
    deck = [card.code() for card in full_deck()]
    sent = [deck[i % len(deck)] for i in range(count)]
    held = scan_test(table, gadget, stop_referee=stop_referee, layout=layout) if session else contextlib.nullcontext()
    with held:
        before = len(said(table).splitlines())
        started = time.monotonic()
        data = [r.hex() for code in sent for r in reports(code, layout)]
        table.usb("send", gadget, *data, "--gap", str(gap), timeout=120 + count * (1 + 30 * gap))
        typed = time.monotonic() - started
        lines = settled(table, before + count)[before:]
    read_codes = [line.split()[0] for line in lines if line.startswith("MB-")]
    unknown = sum(line.startswith("?") for line in lines)
    # "! garbled: keys were lost (the reader was read too late) …" is a refusal; "! reader lost: …" is not.
    refused = [line for line in lines if line.startswith("!") and not line[1:].lstrip().startswith("reader lost")]
    overflowed = sum(KEYS_LOST in line for line in refused)
    # A guest starved mid-scan stamps the keys late: the reader then hears a person typing, or a code left
    # half-typed. Like keys lost, the player is asked to scan again; unlike a misread, no code is guessed.
    late = sum(any(words in line for words in LATE_KEYS) for line in refused)
    matched, silent = _match(sent, lines)
    return {"scans": float(count), "read": float(matched), "garbled": float(len(refused)),
            "of which keys lost (the kernel's buffer overflowed)": float(overflowed),
            "of which keys stamped late (a starved guest)": float(late), "unknown card": float(unknown),
            "lost": float(count - matched - len(refused) - unknown), "wrong card": float(len(read_codes) - matched),
            "lost without a word (no refusal between the reads around it)": float(silent),
            "seconds typing": typed, "scans per second": count / typed if typed else 0.0}


def _match(sent: list[str], lines: list[str]) -> tuple[int, int]:
    """The codes read in order, as a subsequence of what was typed, and the scans lost silently: those missing
    from a stretch between two reads (or after the last) in which scan-test said nothing else. A refusal
    covers its stretch: a reader late on a loaded machine may find several scans' keys dropped by the kernel
    at once, and it says so once ("keys were lost: scan it again"), which a person scanning one card at a time
    hears for the card they scanned."""
    matched = silent = at = 0
    said_between = False
    for line in lines:
        code = line.split()[0] if line.startswith("MB-") else None
        if code is None:
            said_between = said_between or line.startswith(("!", "?"))
            continue
        start = at
        while at < len(sent) and sent[at] != code:
            at += 1
        if at == len(sent):  # read, but not as typed at this point: a wrong card, counted by the caller
            at = start
            continue
        silent += 0 if said_between else at - start
        matched, at, said_between = matched + 1, at + 1, False
    return matched, silent + (0 if said_between else len(sent) - at)


def until(what: str, ready: Callable[[], bool], timeout: float = 60.0) -> bool:
    """Poll ``ready`` (scan-test's output: the referee's journal says nothing meanwhile); False on timeout."""
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.3)
    return True


def unplug_run(table: KernelTable, cycles: int, *, gap: float = 0.003, gadget: str = "scanner",
               session: bool = True) -> dict[str, float]:
    """Unplug the scanner (``gadget``), wait for scan-test's "reader lost", replug, wait for "reader
    connected", scan a card and wait for it: a cycle survived when all three came. In a :func:`scan_test`
    of its own, or (``session=False``) in the one the caller holds open."""
    deck = [card.code() for card in full_deck()]
    survived = 0
    with scan_test(table, gadget) if session else contextlib.nullcontext():
        started = time.monotonic()
        for cycle in range(cycles):
            text = said(table)
            lost, back, code = text.count("reader lost"), text.count("reader connected"), deck[cycle % len(deck)]
            reads = text.count(code)
            table.unplug(gadget)
            went = until("reader lost", lambda: said(table).count("reader lost") > lost)  # noqa: B023 - waited here
            table.replug(gadget)
            came = until("reader connected", lambda: said(table).count("reader connected") > back)  # noqa: B023
            table.scan(gadget, code, gap=gap)
            scanned = until(f"{code} read", lambda: said(table).count(code) > reads)  # noqa: B023
            survived += went and came and scanned
    return {"unplug cycles": float(cycles), "survived (lost, back, the next card read)": float(survived),
            "seconds per cycle": (time.monotonic() - started) / cycles}
