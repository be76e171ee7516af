"""Many scans through the scanner gadget, counted: read, garbled, lost, wrong card (the tier's figures).

The referee's service is stopped and ``bornes scan-test`` (as the referee's user, through the udev
rule) reads the scanner while the gadget types ``count`` card codes (the deck's, in turn) at
``gap`` seconds a key (0: as fast as USB takes the reports). Each code scan-test prints is
matched, in order, against what was typed; a refusal (``! garbled: …``) is a scan a player would
have to make again; a scan neither read nor refused is lost; a code read that was not typed there
is a wrong card. Shared by the tier's test and ``python -m bench.kernel`` (1 000 scans).
"""

from __future__ import annotations

import time

from bornes.engine.cards import full_deck
from tests.kernel.gadgets import CATALOGUE, reports
from tests.kernel.table import KernelTable, reader_config

OUT = "/run/bornes-figures.out"
QUIET = 5.0  # seconds with no new line after the last key: scan-test has read all it will


def scan_run(table: KernelTable, count: int, *, gap: float = 0.0, layout: str = "us") -> dict[str, float]:
    deck = [card.code() for card in full_deck()]
    sent = [deck[i % len(deck)] for i in range(count)]
    config = reader_config(CATALOGUE["scanner"].input_by_id, layout=layout) + '[state]\ndir = "/var/lib/bornes"\n'
    table.vm.run("systemctl", "stop", "bornes.service", timeout=60)
    table.vm.run("sh", "-c", "cat > /run/bornes-figures.toml && chmod 644 /run/bornes-figures.toml", input=config)
    table.vm.run("systemd-run", "--unit=bornes-figures", "--uid=bornes", "--gid=bornes",
                 f"--property=StandardOutput=file:{OUT}", "/opt/bornes/venv/bin/bornes", "scan-test",
                 "--config", "/run/bornes-figures.toml", "--count", str(count), "--seconds", str(600 + count))
    table.wait("scan-test to hold the scanner",
               lambda: "reader connected" in table.vm.run("cat", OUT, check=False).stdout, timeout=120)
    started = time.monotonic()
    data = [r.hex() for code in sent for r in reports(code, layout)]
    table.usb("send", "scanner", *data, "--gap", str(gap), timeout=120 + count * (1 + 30 * gap))
    typed = time.monotonic() - started
    lines: list[str] = []
    quiet_since = time.monotonic()
    while time.monotonic() - quiet_since < QUIET:  # until scan-test has said all it will
        now = table.vm.run("cat", OUT).stdout.splitlines()
        if len(now) != len(lines):
            lines, quiet_since = now, time.monotonic()
        if table.vm.run("systemctl", "is-active", "bornes-figures", check=False).stdout.strip() != "active":
            break
        time.sleep(1.0)
    table.vm.run("systemctl", "stop", "bornes-figures", check=False, timeout=60)
    lines = table.vm.run("cat", OUT).stdout.splitlines()
    table.vm.run("systemctl", "reset-failed", "bornes-figures", check=False)
    table.vm.run("systemctl", "start", "bornes.service", timeout=90)
    read_codes = [line.split()[0] for line in lines if line.startswith("MB-")]
    refused = [line for line in lines if line.startswith("!") and "reader" not in line]
    overflowed = sum("keys were lost" in line for line in refused)
    matched, at = 0, 0
    for code in read_codes:  # in order, as a subsequence of what was typed
        while at < len(sent) and sent[at] != code:
            at += 1
        if at < len(sent):
            matched += 1
            at += 1
    return {"scans": float(count), "read": float(matched), "garbled": float(len(refused)),
            "of which keys lost (the kernel's buffer overflowed)": float(overflowed),
            "lost": float(count - matched - len(refused)), "wrong card": float(len(read_codes) - matched),
            "seconds typing": typed, "scans per second": count / typed if typed else 0.0}
