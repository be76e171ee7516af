"""USB bridges the kernel drives with its own drivers, served into the kernel tier's VM: the host's side.

:class:`I2cBridge` is an i2c-tiny-usb (0403:c631, ``drivers/i2c/busses/i2c-tiny-usb.c``) with
SSD1306 or SH1106 panel models on its bus, written in Python in the VM (``guest/i2c_bridge.py``,
``guest/i2c_tiny_usb.py``, ``guest/oled.py``) and plugged into the VM's own kernel over USB/IP
(``guest/usbip.py``, ``vhci-hcd``): the kernel binds its driver, gives ``/dev/i2c-N``, and
everything written there (luma.oled's frames through smbus2, doctor's probes) reaches the panel
models as I2C messages. It is a helper process of the agent (one Python start-up for the VM).

A test module sets it up with :func:`open_i2c_bridge` (the modules loaded, the bridge plugged,
``/dev/i2c-N`` waited for): the shape another bridge (a GPIO one) can share at a merge.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from tools.kernel.vm import VM

#: What the bridge needs of the VM's kernel: the USB/IP host controller, the bridge's driver, /dev/i2c-N.
I2C_MODULES = ("vhci-hcd", "i2c-tiny-usb", "i2c-dev")
HELPER = "i2c-bridge"
#: The bridge is hardware of its own on a real table (a microcontroller): in the VM it shares two emulated CPUs
#: with the referee, so it runs ahead of it, or a loaded host can make it answer a control transfer later than
#: i2c-tiny-usb.c's 2 s timeout.
ARGV = ["nice", "-n", "-15", "python3", "/opt/bornes-kernel/i2c_bridge.py"]
SIZE = (128, 64)


@dataclass(frozen=True)
class PanelSpec:
    """A panel on the bridge's bus: its controller, its address, and after how many bytes of a write it NAKs."""

    kind: str = "ssd1306"
    address: int = 0x3C
    nak_after: int | None = None

    def as_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "address": self.address, "nak_after": self.nak_after}


@dataclass
class PanelView:
    """What a panel model holds: the picture its glass shows and its registers."""

    picture: Image.Image
    state: dict[str, Any]
    ram: bytes = b""  # the display RAM, page by page, one byte a column (128 or 132 columns)


@dataclass
class I2cBridge:
    """The i2c-tiny-usb in the VM, driven through the agent's helper."""

    vm: VM
    panels: tuple[PanelSpec, ...] = (PanelSpec(),)
    bus: int | None = None
    seconds: dict[str, float] = field(default_factory=dict)

    def ask(self, timeout: float = 60.0, **request: Any) -> dict[str, Any]:
        answer: dict[str, Any] = json.loads(self.vm.helper(HELPER, ARGV, json.dumps(request), timeout=timeout))
        if "error" in answer and answer["error"] and request.get("do") != "bus":
            raise AssertionError(f"the I2C bridge refused {request}: {answer['error']}")
        return answer

    def plug(self, *panels: PanelSpec, wait: bool = True) -> int | None:
        """A bridge with ``panels`` (by default the ones it had) plugged in; with ``wait``, until
        its /dev/i2c-N exists and udev has given it to group i2c. Returns N."""
        if panels:
            self.panels = panels
        started = time.monotonic()
        self.ask(do="plug", panels=[p.as_json() for p in self.panels])
        if not wait:
            return None
        self.bus = self.wait_bus()
        self.seconds["plug to /dev/i2c-N"] = time.monotonic() - started
        return self.bus

    def replug(self, wait: bool = True) -> int | None:
        """Plugged back after :meth:`unplug`: the same panels, powered up afresh."""
        self.ask(do="replug")
        if wait:
            self.bus = self.wait_bus()
        return self.bus

    def unplug(self) -> None:
        self.ask(do="unplug")

    def where(self) -> dict[str, Any]:
        return self.ask(do="where")

    def wait_bus(self, timeout: float = 60.0) -> int:
        """The adapter's number once the kernel has bound the driver and i2c-dev made the node."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.where()
            if found["bus"] is not None and found["node"]:
                self.vm.udev_settle()  # the node's group (i2c-tools' rule)
                return int(found["bus"])
            if time.monotonic() > deadline:
                raise AssertionError(f"the i2c-tiny-usb gave no /dev/i2c-N in {timeout:.0f} s: {found}, "
                                     f"{self.counts()}")
            time.sleep(0.3)

    def wait_gone(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while self.where()["bus"] is not None:
            if time.monotonic() > deadline:
                raise AssertionError(f"the i2c-tiny-usb's adapter was still there {timeout:.0f} s after the unplug")
            time.sleep(0.3)

    def panel(self, address: int = 0x3C) -> PanelView:
        answer = self.ask(do="panel", address=address)
        return PanelView(Image.frombytes("1", SIZE, bytes.fromhex(answer["picture"])), answer["state"],
                         bytes.fromhex(answer.get("ram", "")))

    def counts(self, timeout: float = 60.0) -> dict[str, Any]:
        """Bytes on the wires (the address and data bytes of every message), messages, link health."""
        return self.ask(timeout, do="bus")

    def set_nak(self, address: int, after: int | None) -> None:
        self.ask(do="set", address=address, nak_after=after)


def load_modules(vm: VM, *names: str) -> None:
    """Kernel modules loaded in the VM, with what they depend on. The root has no ``modprobe`` (kmod is not
    in a minbase trixie); systemd-modules-load, built on libkmod, takes a list file and does the same."""
    listing = f"/run/bornes-modules-{'-'.join(names)}.conf"
    vm.run("sh", "-c", f"printf '%s\\n' {' '.join(names)} > {listing} && /usr/lib/systemd/systemd-modules-load "
           f"{listing}", timeout=120)


def open_i2c_bridge(vm: VM, *panels: PanelSpec) -> I2cBridge:
    """The modules loaded and an i2c-tiny-usb with ``panels`` (by default one SSD1306 at 0x3C) plugged in."""
    started = time.monotonic()
    load_modules(vm, *I2C_MODULES)
    bridge = I2cBridge(vm, panels or (PanelSpec(),))
    bridge.plug()
    bridge.seconds["modules and first plug"] = time.monotonic() - started
    return bridge


def wire_ms(wire_bytes: float, hz: int = 400_000) -> float:
    """Milliseconds those bytes take on an I2C bus at ``hz``: 9 clocks a byte (8 bits and the acknowledge)."""
    return wire_bytes * 9 / hz * 1000


__all__ = ["I2C_MODULES", "I2cBridge", "PanelSpec", "PanelView", "load_modules", "open_i2c_bridge", "wire_ms"]
