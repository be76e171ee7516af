"""Many scans through the scanner gadget, counted: read, lost, garbled (the kernel tier's figures).

The referee's service is stopped and ``bornes scan-test`` (as the referee's user, through the udev
rule) reads the scanner while the gadget types ``count`` different card codes at USB speed; each
code scan-test prints is matched, in order, against what was typed. Shared by the tier's last
test and ``python -m bench.kernel`` (1 000 scans).
"""

from __future__ import annotations

import time

from bornes.engine.cards import full_deck
from tests.kernel.gadgets import CATALOGUE, reports
from tests.kernel.table import KernelTable

OUT = "/run/bornes-figures.out"


def scan_run(table: KernelTable, count: int, layout: str = "us") -> dict[str, float]:
    deck = [card.code() for card in full_deck()]
    sent = [deck[i % len(deck)] for i in range(count)]
    scanner = CATALOGUE["scanner"]
    config = (f'[reader]\nprotocol = "hid"\nport = "{scanner.input_by_id}"\nlayout = "{layout}"\n'
              'double_read_window = 0\n[state]\ndir = "/var/lib/bornes"\n')
    table.vm.run("systemctl", "stop", "bornes.service", timeout=60)
    table.vm.run("sh", "-c", "cat > /run/bornes-figures.toml && chmod 644 /run/bornes-figures.toml", input=config)
    table.vm.run("systemd-run", "--unit=bornes-figures", "--uid=bornes", "--gid=bornes",
                 f"--property=StandardOutput=file:{OUT}", "/opt/bornes/venv/bin/bornes", "scan-test",
                 "--config", "/run/bornes-figures.toml", "--count", str(count), "--seconds", str(60 + count))
    table.wait("scan-test to hold the scanner",
               lambda: "reader connected" in table.vm.run("cat", OUT, check=False).stdout, timeout=90)
    started = time.monotonic()
    data = [r.hex() for code in sent for r in reports(code, layout)]
    table.usb("send", "scanner", *data, timeout=60 + count)
    typed = time.monotonic() - started
    table.wait("scan-test to finish", lambda: table.vm.run("systemctl", "is-active", "bornes-figures",
                                                           check=False).stdout.strip() != "active", timeout=60)
    lines = table.vm.run("cat", OUT).stdout.splitlines()
    read_codes = [line.split()[0] for line in lines if line.startswith("MB-")]
    garbled = sum(line.startswith("!") and "reader" not in line for line in lines)
    matched, at = 0, 0
    for code in read_codes:  # in order, as a subsequence of what was typed
        while at < len(sent) and sent[at] != code:
            at += 1
        if at < len(sent):
            matched += 1
            at += 1
    table.vm.run("systemctl", "start", "bornes.service", timeout=90)
    return {"scans": float(count), "read": float(matched), "garbled": float(garbled),
            "lost": float(count - matched - garbled), "wrong card": float(len(read_codes) - matched),
            "scans per second": count / typed if typed else 0.0}
