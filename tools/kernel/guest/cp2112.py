"""A Silicon Labs CP2112 (USB HID to SMBus bridge with 8 GPIOs) as a FunctionFS gadget on dummy_hcd.

The kernel drives it with its own driver, ``hid-cp2112`` (drivers/hid/hid-cp2112.c): usbhid
enumerates a HID interface with an interrupt IN and an interrupt OUT endpoint, the driver reads
the part's version and SMBus configuration as feature reports, registers an I2C adapter and a GPIO
chip labelled ``cp2112_gpio`` with 8 lines, and from then on every line read is a GET_REPORT of
feature report 0x03, every write a SET_REPORT of 0x04, every direction change a GET then SET of
0x02. The driver has no interrupt from the part for its lines: once a line is requested for edges,
it polls report 0x03 every 10 jiffies (40 ms at Debian's HZ=250) and calls the line's handler
when a bit differs from the previous poll (``cp2112_gpio_poll_callback``).

Written from the driver's source (report numbers, lengths and the order of its probe) and Silicon
Labs' AN495, "CP2112 Interface Specification" (the reports, their ids, directions and sizes;
GPIO configuration: direction, push-pull and special-function bytes; a 1 in Get GPIO Values is a
high pin). What a real part does and this one does not: the SMBus side answers every transfer
"no acknowledge" (nothing is on its bus), nothing is kept across a reset, and a line's level is
that of the board the test builds: an input reads high (the pull-up a button to ground needs)
unless the test presses it, an output reads its latch.

The USB side: FunctionFS (``functions/ffs.cp2112`` in configfs, mounted on /dev/ffs-cp2112): this
program writes the interface, HID and endpoint descriptors to ep0, answers ep0's SETUP events
(the HID report descriptor, GET_REPORT and SET_REPORT of feature reports: HID class requests
addressed to interface 0, which FunctionFS hands to its program) and the output reports on the
OUT endpoint. The gadget runs at full speed, as the part does (``max_speed``).

Run by the kernel tier through the agent as a long-lived helper (``tools/kernel/gpio_bridge.py``):
one command a line on stdin, one JSON line back. Commands: ``plug`` (build, bind; answers the chip),
``unplug``, ``replug``, ``press LINE HOLD [EDGES SPAN]`` (a button on LINE pulled to ground for HOLD
seconds, its contact bouncing EDGES edges within SPAN seconds at each end; answers when released),
``outputs SINCE`` (the output lines' changes from the SINCE-th on, with their times), ``reads``
(how many GET_REPORT 0x03 the program answered), ``readlog SINCE`` (when it answered them),
``remove``. Trixie's python3, standard library only.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import struct
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import usb

NAME = "cp2112"
GADGET = usb.GADGETS / NAME
MOUNT = Path("/dev/ffs-cp2112")
MODULES = Path("/run/modules-load.d/bornes-cp2112.conf")
LOG = Path("/run/bornes-kernel-cp2112.log")
VENDOR, PRODUCT = 0x10C4, 0xEA90  # usb.ids: 10c4 Silicon Labs, ea90 CP2112 HID I2C Bridge
#: The part's default USB strings (CP2112 data sheet, "USB configuration" defaults); its serial made up.
STRINGS = ("Silicon Laboratories", "CP2112 HID USB-to-SMBus Bridge", "0001A2B3")
LINES = 8

# AN495's reports: id -> (kind, size including the id byte). Feature reports are reached through
# GET_REPORT/SET_REPORT on ep0; the interrupt ones through the two interrupt endpoints.
RESET, GPIO_CONFIG, GPIO_GET, GPIO_SET, VERSION, SMBUS_CONFIG = 0x01, 0x02, 0x03, 0x04, 0x05, 0x06
READ_REQUEST, WRITE_READ_REQUEST, FORCE_SEND, READ_RESPONSE = 0x10, 0x11, 0x12, 0x13
WRITE_REQUEST, STATUS_REQUEST, STATUS_RESPONSE, CANCEL = 0x14, 0x15, 0x16, 0x17
LOCK_BYTE, USB_CONFIG, MANUFACTURER, PRODUCT_STRING, SERIAL = 0x20, 0x21, 0x22, 0x23, 0x24
REPORTS = {
    RESET: ("feature", 2), GPIO_CONFIG: ("feature", 5), GPIO_GET: ("feature", 2), GPIO_SET: ("feature", 3),
    VERSION: ("feature", 3), SMBUS_CONFIG: ("feature", 14),
    READ_REQUEST: ("output", 4), WRITE_READ_REQUEST: ("output", 21), FORCE_SEND: ("output", 3),
    READ_RESPONSE: ("input", 64), WRITE_REQUEST: ("output", 64), STATUS_REQUEST: ("output", 2),
    STATUS_RESPONSE: ("input", 7), CANCEL: ("output", 2),
    LOCK_BYTE: ("feature", 2), USB_CONFIG: ("feature", 10),
    MANUFACTURER: ("feature", 63), PRODUCT_STRING: ("feature", 63), SERIAL: ("feature", 63),
}


def report_descriptor() -> bytes:
    """A vendor-defined HID collection declaring each report of :data:`REPORTS` with its size (HID 1.11
    items: Usage Page 0xFF00, Report ID, Report Size 8, Report Count, Feature/Input/Output)."""
    out = bytearray.fromhex("06 00 ff 09 01 a1 01")  # Usage Page (vendor), Usage 1, Collection (Application)
    main = {"feature": 0xB1, "input": 0x81, "output": 0x91}
    for report, (kind, size) in REPORTS.items():
        out += bytes([0x85, report, 0x75, 0x08, 0x95, size - 1, 0x09, 0x01, main[kind], 0x02])
    out += b"\xc0"
    return bytes(out)


HID_REPORT = report_descriptor()
# USB 2.0 ch. 9 and HID 1.11 6.2.1: one interface (class 3, no subclass: not a boot device), its HID
# descriptor, interrupt IN 0x81 and OUT 0x01 of 64 bytes polled every frame (the part's own endpoints).
INTERFACE = bytes([9, 4, 0, 0, 2, 3, 0, 0, 0])
HID = bytes([9, 0x21, 0x11, 0x01, 0, 1, 0x22]) + struct.pack("<H", len(HID_REPORT))
EP_IN = bytes([7, 5, 0x81, 3]) + struct.pack("<H", 64) + bytes([1])
EP_OUT = bytes([7, 5, 0x01, 3]) + struct.pack("<H", 64) + bytes([1])
# include/uapi/linux/usb/functionfs.h
DESCRIPTORS_MAGIC_V2, STRINGS_MAGIC, HAS_FS_DESC = 3, 2, 1
BIND, UNBIND, ENABLE, DISABLE, SETUP, SUSPEND, RESUME = range(7)
EVENT = struct.Struct("<BBHHHB3x")  # struct usb_functionfs_event: the setup packet, its type
GET_DESCRIPTOR, GET_REPORT, SET_REPORT, SET_IDLE = 0x06, 0x01, 0x09, 0x0A


def functionfs_descriptors() -> bytes:
    body = INTERFACE + HID + EP_IN + EP_OUT
    head = struct.pack("<IIII", DESCRIPTORS_MAGIC_V2, 16 + len(body), HAS_FS_DESC, 4)
    return head + body


def functionfs_strings() -> bytes:
    return struct.pack("<IIII", STRINGS_MAGIC, 16, 0, 0)


#: GPIO_GET_CHIPINFO_IOCTL, _IOR(0xB4, 0x01, struct gpiochip_info): name[32], label[32], lines (linux/gpio.h).
CHIPINFO = 0x8044B401


def chip_info(path: str) -> dict[str, object]:
    """What the kernel says of a GPIO chip: its node, name, label and number of lines."""
    fd = os.open(path, os.O_RDONLY)
    try:
        info = fcntl.ioctl(fd, CHIPINFO, bytes(68))
    finally:
        os.close(fd)
    name, label, lines = struct.unpack("32s32sI", info)
    return {"chip": path, "name": name.rstrip(b"\0").decode(), "label": label.rstrip(b"\0").decode(), "lines": lines}


class Board:
    """The part's 8 pins and what the test wired to them: the levels as a function of time, the
    output changes kept with their times (the buzzer's and LEDs' timing, read back)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.direction = 0x00  # AN495: 1 = output; the part's reset state is all inputs
        self.push_pull = 0x00
        self.special = 0x00
        self.divider = 0x00
        self.latch = 0xFF
        #: Per line, the times the test's button changed the pin and the level from then on (0: to ground).
        self.wired: list[list[tuple[float, int]]] = [[] for _ in range(LINES)]
        self.outputs: list[tuple[float, int, int]] = []  # (monotonic time, line, level) of each output change
        self.shown = self.driven()
        self.reads = 0
        self.read_times: list[float] = []  # when each GET_REPORT 0x03 was answered (the driver's polls among them)

    def level(self, line: int, now: float) -> int:
        """An input pin's level at ``now``: what the button does to it then, else high (its pull-up)."""
        level = 1
        for at, value in self.wired[line]:
            if at > now:
                break
            level = value
        return level

    def driven(self) -> dict[int, int]:
        """The pins configured as outputs and the level each drives (its latch bit)."""
        return {line: (self.latch >> line) & 1 for line in range(LINES) if self.direction >> line & 1}

    def values(self, now: float) -> int:
        """AN495 Get GPIO Values: each pin's level, outputs as latched, inputs as wired."""
        byte = 0
        for line in range(LINES):
            if self.direction >> line & 1:
                byte |= ((self.latch >> line) & 1) << line
            else:
                byte |= self.level(line, now) << line
        return byte

    def note_outputs(self, now: float) -> None:
        """Keep each output pin whose driven level changed (a pin that became an output counts from there)."""
        driven = self.driven()
        for line, level in driven.items():
            if self.shown.get(line) != level:
                self.outputs.append((now, line, level))
        self.shown = driven

    def press(self, line: int, start: float, hold: float, edges: int, span: float) -> float:
        """A button to ground on ``line`` from ``start`` for ``hold`` s; with ``edges`` > 1 the contact
        bounces: that many edges within ``span`` s at the press and again at the release. Returns its end."""
        steps: list[tuple[float, int]] = []
        for begin, settle in ((start, 0), (start + hold, 1)):
            count = max(1, edges)
            gap = span / (count - 1) if count > 1 else 0.0
            for index in range(count):  # edges alternate and end on the settled level (an odd count)
                steps.append((begin + index * gap, settle if (count - 1 - index) % 2 == 0 else 1 - settle))
        with self.lock:
            self.wired[line] = [step for step in self.wired[line] if step[0] < start] + steps
        return steps[-1][0]

    def feature(self, report: int, now: float) -> bytes | None:
        """A GET_REPORT's answer (the report id first, as a numbered report goes on the wire)."""
        with self.lock:
            if report == GPIO_CONFIG:
                return bytes([report, self.direction, self.push_pull, self.special, self.divider])
            if report == GPIO_GET:
                self.reads += 1
                self.read_times.append(now)
                return bytes([report, self.values(now)])
            if report == VERSION:
                return bytes([report, 0x0C, 0x03])  # AN495: part number 0x0C; the device version made up
            if report == SMBUS_CONFIG:  # 100 kHz, address 0x02, no auto send, no timeouts, no retry limit
                return bytes([report]) + struct.pack(">IBBHHBH", 100_000, 0x02, 0, 0, 0, 0, 0)
            if report == LOCK_BYTE:
                return bytes([report, 0xFF])  # nothing programmed: every field still writable
            if report == USB_CONFIG:
                return bytes([report]) + struct.pack("<HHBBBBB", VENDOR, PRODUCT, 50, 0, 1, 0, 0)
            if report in (MANUFACTURER, PRODUCT_STRING, SERIAL):
                text = STRINGS[report - MANUFACTURER].encode("utf-16-le")
                return (bytes([report, len(text) + 2, 3]) + text).ljust(63, b"\0")
        return None

    def set_feature(self, data: bytes, now: float) -> None:
        """A SET_REPORT's data (the report id first)."""
        if not data:
            return
        with self.lock:
            if data[0] == GPIO_CONFIG and len(data) >= 5:
                self.direction, self.push_pull, self.special, self.divider = data[1:5]
            elif data[0] == GPIO_SET and len(data) >= 3:
                value, mask = data[1], data[2]
                self.latch = (self.latch & ~mask | value & mask) & 0xFF
            elif data[0] == RESET:
                self.direction, self.latch = 0x00, 0xFF
            self.note_outputs(now)


class Bridge:
    """The gadget in configfs, its FunctionFS instance, and the threads that answer the host."""

    def __init__(self) -> None:
        self.board = Board()
        self.ep0 = -1
        self.ep_in = -1
        self.ep_out = -1
        self.enabled = threading.Event()
        self.stopping = False

    def build(self) -> None:
        # The root has no modprobe (kmod's tools): systemd-modules-load loads them, with their dependencies.
        MODULES.parent.mkdir(parents=True, exist_ok=True)
        MODULES.write_text("usb_f_fs\nusbhid\nhid_cp2112\n")
        subprocess.run(["/usr/lib/systemd/systemd-modules-load", str(MODULES)], check=True)
        if not GADGET.exists():
            GADGET.mkdir()
            usb.write(GADGET / "idVendor", f"0x{VENDOR:04x}")
            usb.write(GADGET / "idProduct", f"0x{PRODUCT:04x}")
            usb.write(GADGET / "bcdUSB", "0x0200")
            usb.write(GADGET / "bcdDevice", "0x0100")
            usb.write(GADGET / "max_speed", "full-speed")
            strings = GADGET / "strings/0x409"
            strings.mkdir(parents=True)
            for name, text in zip(("manufacturer", "product", "serialnumber"), STRINGS, strict=True):
                usb.write(strings / name, text)
            config = GADGET / "configs/c.1"
            config.mkdir(parents=True)
            usb.write(config / "MaxPower", "100")
            function = GADGET / f"functions/ffs.{NAME}"
            function.mkdir(parents=True)
            (config / function.name).symlink_to(function)
        MOUNT.mkdir(exist_ok=True)
        if not os.path.ismount(MOUNT):
            subprocess.run(["mount", "-t", "functionfs", NAME, str(MOUNT)], check=True)
        self.ep0 = os.open(MOUNT / "ep0", os.O_RDWR)
        os.write(self.ep0, functionfs_descriptors())
        os.write(self.ep0, functionfs_strings())
        self.ep_in = os.open(MOUNT / "ep1", os.O_RDWR)
        self.ep_out = os.open(MOUNT / "ep2", os.O_RDWR)
        threading.Thread(target=self.control, name="ep0", daemon=True).start()
        threading.Thread(target=self.interrupts, name="ep-out", daemon=True).start()

    # -- ep0: the control requests ----------------------------------------------------------------

    def control(self) -> None:
        while not self.stopping:
            try:
                data = os.read(self.ep0, EVENT.size * 4)
            except OSError:
                time.sleep(0.01)
                continue
            try:
                for offset in range(0, len(data) - EVENT.size + 1, EVENT.size):
                    request_type, request, value, index, length, kind = EVENT.unpack_from(data, offset)
                    if kind == ENABLE:
                        self.enabled.set()
                    elif kind in (DISABLE, UNBIND, SUSPEND):
                        self.enabled.clear()
                    elif kind == SETUP:
                        self.setup(request_type, request, value, index, length)
            except Exception:  # ep0 must keep answering: a dead thread here would leave the host's requests hanging
                log(traceback.format_exc())

    def setup(self, request_type: int, request: int, value: int, index: int, length: int) -> None:
        now = time.monotonic()
        answer: bytes | None = None
        if request_type == 0x81 and request == GET_DESCRIPTOR and value >> 8 == 0x22:
            answer = HID_REPORT
        elif request_type == 0x81 and request == GET_DESCRIPTOR and value >> 8 == 0x21:
            answer = HID
        elif request_type == 0xA1 and request == GET_REPORT and value >> 8 == 3:
            answer = self.board.feature(value & 0xFF, now)
        if request_type & 0x80:  # IN: the data stage, or a stall (FunctionFS: a read on ep0 stalls it)
            try:
                if answer is None:
                    os.read(self.ep0, 0)
                else:
                    os.write(self.ep0, answer[:length])
            except OSError:
                pass
            return
        if request_type == 0x21 and request in (SET_REPORT, SET_IDLE):  # OUT: read the data stage, which acks it
            try:
                data = os.read(self.ep0, length)
            except OSError:
                return
            if request == SET_REPORT and value >> 8 == 3:
                self.board.set_feature(data, time.monotonic())
            return
        with contextlib.suppress(OSError):
            os.write(self.ep0, b"")  # FunctionFS: a write on ep0 stalls an OUT request

    # -- the interrupt endpoints: SMBus requests, answered "no acknowledge" ------------------------

    def interrupts(self) -> None:
        while not self.stopping:
            try:
                data = os.read(self.ep_out, 64)
            except OSError:
                time.sleep(0.05)
                continue
            if not data:
                continue
            if data[0] == STATUS_REQUEST:  # AN495: status 0 = 3 (error), status 1 = 0 (timeout, address NACKed)
                reply = bytes([STATUS_RESPONSE, 3, 0, 0, 0, 0, 0])
            elif data[0] == FORCE_SEND:
                reply = bytes([READ_RESPONSE, 3, 0]).ljust(64, b"\0")
            else:
                continue
            with contextlib.suppress(OSError):
                os.write(self.ep_in, reply)

    # -- plugging ---------------------------------------------------------------------------------

    def plug(self) -> dict[str, object]:
        self.build()
        usb.STATE.mkdir(exist_ok=True)
        remembered = usb.STATE / f"{NAME}.udc"
        udc = remembered.read_text().strip() if remembered.exists() else usb.free_controller()
        remembered.write_text(udc)
        usb.write(GADGET / "UDC", udc)
        return self.chip(wait=20.0)

    def unplug(self) -> dict[str, object]:
        if not (GADGET / "UDC").read_text().strip():  # FunctionFS unbinds the gadget itself when its ep0 closes
            return self.chip(wait=0.0)
        usb.write(GADGET / "UDC", "\n")
        deadline = time.monotonic() + 20
        while self.chip(wait=0.0)["chip"] and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.chip(wait=0.0)

    def replug(self) -> dict[str, object]:
        if self.ep0 < 0:  # a twin started again (the agent restarts a helper that ended): FunctionFS first
            self.build()
        if not (GADGET / "UDC").read_text().strip():
            usb.write(GADGET / "UDC", (usb.STATE / f"{NAME}.udc").read_text().strip())
        return self.chip(wait=20.0)

    def chip(self, wait: float) -> dict[str, object]:
        """The host's side: the gpiochip hid-cp2112 registered for this gadget (its /dev node, label, lines)."""
        udc = (usb.STATE / f"{NAME}.udc").read_text().strip()
        host = "dummy_hcd." + udc.rsplit(".", 1)[1]
        deadline = time.monotonic() + wait
        while True:
            for chip in sorted(Path("/sys/bus/gpio/devices").glob("gpiochip*")):
                if f"/{host}/" in str(chip.resolve()) and Path(f"/dev/{chip.name}").exists():
                    with contextlib.suppress(OSError):
                        return {**chip_info(f"/dev/{chip.name}"), "udc": udc}
            if time.monotonic() >= deadline:
                return {"chip": "", "udc": udc}
            time.sleep(0.1)

    def remove(self) -> None:
        self.stopping = True
        if GADGET.exists() and (GADGET / "UDC").read_text().strip():
            usb.write(GADGET / "UDC", "\n")
        for fd in (self.ep_in, self.ep_out, self.ep0):
            if fd >= 0:
                os.close(fd)
        if os.path.ismount(MOUNT):
            subprocess.run(["umount", str(MOUNT)], check=False)
        if GADGET.exists():
            (GADGET / f"configs/c.1/ffs.{NAME}").unlink()
            (GADGET / "configs/c.1").rmdir()
            (GADGET / f"functions/ffs.{NAME}").rmdir()
            (GADGET / "strings/0x409").rmdir()
            GADGET.rmdir()
        (usb.STATE / f"{NAME}.udc").unlink(missing_ok=True)

    # -- the test's commands ------------------------------------------------------------------------

    def command(self, words: list[str]) -> object:
        verb = words[0]
        if verb == "plug":
            return self.plug()
        if verb == "unplug":
            return self.unplug()
        if verb == "replug":
            return self.replug()
        if verb == "chip":
            return self.chip(wait=0.0)
        if verb == "press":
            line, hold = int(words[1]), float(words[2])
            edges = int(words[3]) if len(words) > 3 else 1
            span = float(words[4]) if len(words) > 4 else 0.0
            start = time.monotonic() + 0.01
            end = self.board.press(line, start, hold, edges, span)
            time.sleep(max(0.0, end - time.monotonic()))
            return {"start": start, "end": end}
        if verb == "outputs":
            since = int(words[1]) if len(words) > 1 else 0
            with self.board.lock:
                return {"now": time.monotonic(), "changes": self.board.outputs[since:]}
        if verb == "reads":
            return self.board.reads
        if verb == "readlog":
            with self.board.lock:
                return self.board.read_times[int(words[1]) if len(words) > 1 else 0:]
        if verb == "remove":
            self.remove()
            return "removed"
        raise ValueError(f"unknown command {verb}")


def log(text: str) -> None:
    """What went wrong in the twin, kept in the guest (its stderr is the agent's, read only when it ends)."""
    with open(LOG, "a") as out:
        out.write(f"{time.monotonic():.3f} {text}\n")


def main() -> None:
    bridge = Bridge()
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        try:
            print(json.dumps({"ok": bridge.command(words)}), flush=True)
        except Exception as error:  # the test reads it and says what failed
            log(traceback.format_exc())
            print(json.dumps({"error": f"{type(error).__name__}: {error}"}), flush=True)
        if words[0] == "remove":
            return


if __name__ == "__main__":
    main()
