"""The kernel tier's I2C bridge in the VM: an i2c-tiny-usb over USB/IP with OLED panels on its bus.

The agent runs it as a long-lived helper (``{"helper": "i2c-bridge", "argv": ["python3",
"/opt/bornes-kernel/i2c_bridge.py"], "line": …}``, tools/kernel/bridges.py on the host): one JSON
request a line on stdin, one JSON answer a line on stdout. It owns the USB/IP link (usbip.py),
the bridge (i2c_tiny_usb.py) and the panel models (oled.py) for the VM's life.

    {"do": "plug", "panels": [{"kind": "ssd1306", "address": 60, "nak_after": null}]}
        a bridge with these panels on its bus, plugged into vhci-hcd: {"port": P}
    {"do": "unplug"}                 the bridge pulled out (vhci-hcd detaches it)
    {"do": "replug"}                 plugged back with the same panels, powered up afresh (the bridge
                                      powers its bus: a panel pulled out with it loses its RAM)
    {"do": "where"}                  the adapter the kernel made of it: {"bus": N or null, "node": bool}
    {"do": "panel", "address": 60}   {"picture": hex of 128×64 1-bit rows, "state": {…}, "ram": hex}
    {"do": "bus"}                    bytes and messages on the wires, the bridge's counts, link health
    {"do": "set", "address": 60, "nak_after": N or null}   a panel that stops acknowledging (or not)

Standard library only (trixie's python3), as root: ``attach`` is root's.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

if TYPE_CHECKING or __package__:  # the checkout's tools.kernel.guest.*; in the VM, beside this file
    from tools.kernel.guest.i2c_tiny_usb import Bus, TinyUsb
    from tools.kernel.guest.oled import Controller, panel
    from tools.kernel.guest.usbip import Link, attach
else:
    from i2c_tiny_usb import Bus, TinyUsb
    from oled import Controller, panel
    from usbip import Link, attach

I2C_DEV = Path("/sys/class/i2c-dev")
NAME = "i2c-tiny-usb"


class Bridge:
    """One bridge at a time: its panels' spec, and what is plugged now."""

    def __init__(self) -> None:
        self.spec: list[dict[str, Any]] = []
        self.link: Link | None = None
        self.bus = Bus()
        self.device: TinyUsb | None = None
        self.panels: dict[int, Controller] = {}
        self.plugs = 0

    def plug(self, spec: list[dict[str, Any]]) -> dict[str, Any]:
        self.unplug()
        self.wait_gone()
        self.spec = spec
        self.bus = Bus()
        self.panels = {}
        for entry in spec:
            model = panel(str(entry.get("kind", "ssd1306")), int(entry.get("address", 0x3C)), entry.get("nak_after"))
            self.panels[model.address] = model
            self.bus.add(model)
        self.device = TinyUsb(self.bus)
        self.link = attach(self.device)
        self.plugs += 1
        return {"port": self.link.port}

    def unplug(self) -> dict[str, Any]:
        if self.link is not None:
            self.link.detach()
            self.link = None
        return {}

    def wait_gone(self, timeout: float = 60.0) -> None:
        """Until the kernel has let the last bridge's adapter go. vhci-hcd closes the link at once, but the hub's
        thread removes the device later (a loaded guest: seconds), and an adapter still listed then was taken
        for the new bridge's: the tests got its bus number and the referee opened a node about to go."""
        deadline = time.monotonic() + timeout
        while self.where()["bus"] is not None:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the last i2c-tiny-usb's adapter is still there {timeout:.0f} s after its unplug "
                                   "(does a program hold its /dev/i2c-N open?)")
            time.sleep(0.1)

    def where(self) -> dict[str, Any]:
        """The i2c-dev adapter named after the bridge (there is no /sys/class/i2c-adapter)."""
        for entry in sorted(I2C_DEV.glob("i2c-*")) if I2C_DEV.exists() else ():
            try:
                name = (entry / "name").read_text().strip()
            except OSError:
                continue
            if name.startswith(NAME):
                number = int(entry.name.split("-")[1])
                return {"bus": number, "name": name, "node": Path(f"/dev/i2c-{number}").exists()}
        return {"bus": None, "name": None, "node": False}

    def panel(self, address: int) -> dict[str, Any]:
        model = self.panels[address]
        return {"picture": model.picture().hex(), "state": model.state(), "ram": bytes(model.ram).hex()}

    def counts(self) -> dict[str, Any]:
        with self.bus.lock:
            wire, messages = self.bus.wire_bytes, len(self.bus.messages)
            last = self.bus.messages[-1].at if self.bus.messages else None
        device = self.device
        return {"wire_bytes": wire, "messages": messages, "last_message_age": None if last is None
                else time.monotonic() - last,
                "transfers": device.transfers if device else 0, "largest_write": device.largest_write if device else 0,
                "delay_us": device.delay_us if device else None,
                "plugged": self.link is not None and self.link.alive, "plugs": self.plugs,
                "urbs": self.link.submitted if self.link else 0, "error": self.link.error if self.link else None}

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        action = request.get("do")
        if action == "plug":
            return self.plug(list(request.get("panels", [])))
        if action == "unplug":
            return self.unplug()
        if action == "replug":
            return self.plug(self.spec)
        if action == "where":
            return self.where()
        if action == "panel":
            return self.panel(int(request["address"]))
        if action == "bus":
            return self.counts()
        if action == "set":
            self.panels[int(request["address"])].nak_after = request.get("nak_after")
            return {}
        return {"error": f"unknown request {action!r}"}


def main() -> None:
    bridge = Bridge()
    for line in sys.stdin:
        try:
            reply = bridge.answer(json.loads(line))
        except Exception as error:  # one line back whatever happens: the agent waits for it
            reply = {"error": f"{type(error).__name__}: {error}"}
        print(json.dumps(reply), flush=True)
    bridge.unplug()


if __name__ == "__main__":
    main()
