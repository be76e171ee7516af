"""RC522 readers in the kernel tier's VM: real ``/dev/spidevB.C`` nodes made by CUSE, the chips modelled.

:class:`SpiPads` loads ``cuse.ko`` (the trixie root has no modprobe: systemd-modules-load does it with
libkmod), gives the CUSE-made nodes to group ``spi`` as install.sh's rule gives a Pi's spidev nodes, lets
the referee's device cgroup reach them, and starts ``guest/cuse_spi.py`` (one process, one CUSE device
per chip select) as a helper of the agent, then lays and lifts cards on its models by one JSON line each.

The one difference from a Pi: a real spidev node belongs to the chrdev group ``spi`` in /proc/devices,
which bornes.service allows (``DeviceAllow=char-spi``); a CUSE node is in a group of its own name
(``spidev0.0``), so the VM's referee gets a drop-in allowing ``char-spidev*`` too. Nothing else changes.
"""

from __future__ import annotations

import json
from typing import Any

from tools.kernel.vm import VM

SERVER = "/opt/bornes-kernel/cuse_spi.py"
#: The VM's stand-in for systemd/99-bornes-spi.rules: a CUSE node's subsystem is "cuse", not "spidev".
CUSE_RULE = 'SUBSYSTEM=="cuse", KERNEL=="spidev*", GROUP="spi", MODE="0660"\n'
DROP_IN = "[Service]\n# CUSE-made spidev nodes are chrdev groups of their own name (tools/kernel/spi.py)\n" \
          "DeviceAllow=char-spidev* rw\n"


class SpiPads:
    """The chips behind ``/dev/spidev{device}`` for each ``device`` ("0.0", "0.1", "1.0", "1.2")."""

    def __init__(self, vm: VM, devices: tuple[str, ...]) -> None:
        self.vm = vm
        self.devices = devices
        vm.run("sh", "-c", "echo cuse > /run/bornes-cuse.conf && /usr/lib/systemd/systemd-modules-load "
                           "/run/bornes-cuse.conf", timeout=60)
        vm.run("sh", "-c", "cat > /etc/udev/rules.d/99-bornes-test-cuse.rules && udevadm control --reload",
               input=CUSE_RULE, timeout=60)
        vm.run("sh", "-c", "mkdir -p /etc/systemd/system/bornes.service.d && cat > "
                           "/etc/systemd/system/bornes.service.d/cuse-spi.conf && systemctl daemon-reload",
               input=DROP_IN, timeout=60)
        self.ask({"op": "now"})  # starts the server: the nodes exist when it answers
        vm.udev_settle()

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        answer = json.loads(self.vm.helper("cuse-spi", ["python3", SERVER, *self.devices], json.dumps(request),
                                           timeout=120))
        if not isinstance(answer, dict) or "error" in answer:
            raise AssertionError(f"cuse_spi.py: {answer}")
        return answer

    def lay(self, device: str, kind: str, uid: str, *, text: str | None = None, at: float = 0.0,
            until: float | None = None, gaps: list[tuple[float, float]] | None = None,
            since: float | None = None) -> dict[str, Any]:
        """A card laid on the chip of ``device`` ``at`` seconds from now, or from the guest's moment ``since`` (a
        former answer's ``from``), until ``until``, out during ``gaps``."""
        card: dict[str, Any] = {"kind": kind, "uid": uid}
        if text is not None:
            card["text"] = text
        request = {"op": "lay", "reader": device, "card": card, "at": at, "until": until,
                   "gaps": [list(gap) for gap in gaps or []]}
        if since is not None:
            request["from"] = since
        return self.ask(request)

    def clear(self, device: str) -> None:
        self.ask({"op": "clear", "reader": device})

    def wiring(self, device: str, stuck: int | None) -> None:
        """MISO held at ``stuck`` (0x00: low, 0xFF: high): nothing answers on that chip select; None: wired."""
        self.ask({"op": "wiring", "reader": device, "stuck": stuck})

    def version(self, device: str, value: int) -> None:
        self.ask({"op": "version", "reader": device, "value": value})

    def stats(self) -> dict[str, Any]:
        return self.ask({"op": "stats"})
