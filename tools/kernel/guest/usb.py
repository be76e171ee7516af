"""USB gadgets in the VM: plug, unplug and drive the devices of tools/kernel/gadgets.py.

Run by the kernel tier through the agent, as root, with trixie's python3 (standard library only):

    usb.py plug SPEC_JSON            build the gadget in configfs, bind it to a free dummy_udc; print where it is
    usb.py unplug NAME | replug NAME  unbind (the host sees the device leave) / bind to the same controller again
    usb.py remove NAME               unplug and take the gadget out of configfs (frees its /dev/hidgN: the
                                      kernel's f_hid has four, HIDG_MINORS, for every gadget together)
    usb.py where NAME                 the host-side nodes of a plugged gadget (event devices, their input
                                      devices and by-path names, ttyACM), as JSON
    usb.py send NAME HEX... [--gap S] [--hold S]  write input reports to /dev/hidgN, gap seconds after
                                      each key's release, hold seconds after each press (a person's finger)
    usb.py leds NAME [--seconds S]    the output reports (LED bytes) the host sent, as hex, one a line (up to
                                      S seconds for the first, then until they stop)
    usb.py write NAME TEXT            write TEXT to the gadget's serial side (/dev/ttyGSN), raw
    usb.py listen EVENT_NODE          open EVENT_NODE as a second reader, without grabbing it (the agent
                                      keeps it open between requests) ...
    usb.py heard EVENT_NODE [--seconds S]  ... and print how many key events it got (waiting S s
                                      for the last ones), then close it

configfs: /sys/kernel/config/usb_gadget/NAME, one configuration, the functions of the spec.
"""

from __future__ import annotations

import json
import os
import select
import struct
import sys
import termios
import time
import tty
from pathlib import Path
from typing import Any

GADGETS = Path("/sys/kernel/config/usb_gadget")
STATE = Path("/run/bornes-kernel")  # which controller each gadget was plugged into
EVENT = struct.Struct("llHHi")  # struct input_event on x86-64
EV_KEY = 1


def write(path: Path, value: str | bytes) -> None:
    with open(path, "wb") as handle:
        handle.write(value if isinstance(value, bytes) else value.encode())


def free_controller() -> str:
    busy = {(g / "UDC").read_text().strip() for g in GADGETS.iterdir() if (g / "UDC").exists()}
    busy |= {p.read_text().strip() for p in STATE.glob("*.udc")}
    for udc in sorted(os.listdir("/sys/class/udc"), key=lambda n: int(n.rsplit(".", 1)[1])):
        if udc not in busy:
            return udc
    sys.exit("usb.py: every dummy_udc is taken (load dummy_hcd with a larger num=)")


def plug(spec: dict[str, Any]) -> dict[str, Any]:
    name = spec["name"]
    gadget = GADGETS / name
    if not gadget.exists():
        gadget.mkdir()
        write(gadget / "idVendor", f"0x{spec['vendor']:04x}")
        write(gadget / "idProduct", f"0x{spec['product']:04x}")
        write(gadget / "bcdUSB", f"0x{spec['usb']:04x}")
        write(gadget / "bcdDevice", f"0x{spec['device']:04x}")
        strings = gadget / "strings/0x409"
        strings.mkdir(parents=True)
        write(strings / "manufacturer", spec["manufacturer"])
        write(strings / "product", spec["product_name"])
        write(strings / "serialnumber", spec["serial"])
        config = gadget / "configs/c.1"
        config.mkdir(parents=True)
        write(config / "MaxPower", "100")
        for index, function in enumerate(spec["functions"]):
            if function["kind"] == "hid":
                folder = gadget / f"functions/hid.{index}"
                folder.mkdir(parents=True)
                write(folder / "protocol", str(function["protocol"]))
                write(folder / "subclass", str(function["subclass"]))
                write(folder / "report_length", str(function["report_length"]))
                write(folder / "report_desc", bytes.fromhex(function["report_desc"]))
            else:
                folder = gadget / f"functions/acm.{index}"
                folder.mkdir(parents=True)
            (config / folder.name).symlink_to(folder)
    STATE.mkdir(exist_ok=True)
    remembered = STATE / f"{name}.udc"
    udc = remembered.read_text().strip() if remembered.exists() else free_controller()
    remembered.write_text(udc)
    write(gadget / "UDC", udc)
    return where(name)


def unplug(name: str) -> None:
    write(GADGETS / name / "UDC", "\n")


def replug(name: str) -> None:
    write(GADGETS / name / "UDC", (STATE / f"{name}.udc").read_text().strip())


def _char_node(dev: str) -> str:
    for line in Path(f"/sys/dev/char/{dev.strip()}/uevent").read_text().splitlines():
        if line.startswith("DEVNAME="):
            return "/dev/" + line.split("=", 1)[1]
    raise SystemExit(f"usb.py: no device node for {dev}")


def where(name: str) -> dict[str, Any]:
    """The gadget side (/dev/hidgN, /dev/ttyGSN) and the host side (input events, ttyACM) of a gadget."""
    gadget = GADGETS / name
    udc = (STATE / f"{name}.udc").read_text().strip()
    host = "dummy_hcd." + udc.rsplit(".", 1)[1]
    found: dict[str, Any] = {"udc": udc, "bound": (gadget / "UDC").read_text().strip() == udc, "hidg": [], "ttyGS": [],
                             "events": [], "inputs": [], "by-path": [], "ttyACM": []}
    for function in sorted((gadget / "functions").iterdir()):
        if function.name.startswith("hid."):
            found["hidg"].append(_char_node((function / "dev").read_text()))
        else:
            found["ttyGS"].append(f"/dev/ttyGS{(function / 'port_num').read_text().strip()}")
    for event in sorted(Path("/sys/class/input").glob("event*")):
        if f"/{host}/" in str(event.resolve()):
            found["events"].append(f"/dev/input/{event.name}")
            found["inputs"].append(str((event / "device").resolve()))  # the input device (inputN) behind it
    by_path = Path("/dev/input/by-path")
    for link in sorted(by_path.iterdir()) if by_path.exists() else ():
        if os.path.realpath(link) in found["events"]:
            found["by-path"].append(str(link))  # udev's, once it has handled the device
    for port in sorted(Path("/sys/class/tty").glob("ttyACM*")):
        if f"/{host}/" in str(port.resolve()):
            found["ttyACM"].append(f"/dev/{port.name}")
    return found


def send(name: str, reports: list[bytes], gap: float, hold: float = 0.0) -> None:
    """Each report written whole (the host polls the endpoint; a write waits for the previous one).
    ``gap`` seconds after each all-keys-up report: a person types slower than a scanner; ``hold``
    seconds after each report with a key down: a finger on a key, not a scanner's instant."""
    node = where(name)["hidg"][0]
    fd = os.open(node, os.O_WRONLY)
    try:
        for report in reports:
            os.write(fd, report)
            if gap and not any(report[2:]):
                time.sleep(gap)
            elif hold and any(report[2:]):
                time.sleep(hold)
    finally:
        os.close(fd)


#: After an LED report, the reports that follow it come within this long (the host sends a lock
#: state's change as one report; this catches a second one sent right after).
LED_QUIET = 0.3


def leds(name: str, seconds: float) -> list[str]:
    """The output reports the host sent: up to ``seconds`` for the first, then until none came for LED_QUIET."""
    node = where(name)["hidg"][0]
    fd = os.open(node, os.O_RDONLY | os.O_NONBLOCK)
    got = []
    deadline = time.monotonic() + seconds
    try:
        while (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                got.append(os.read(fd, 64).hex())
                deadline = time.monotonic() + LED_QUIET
    finally:
        os.close(fd)
    return got


def write_serial(name: str, text: str) -> None:
    node = where(name)["ttyGS"][0]
    fd = os.open(node, os.O_RDWR | os.O_NOCTTY)
    try:
        tty.setraw(fd)
        os.write(fd, text.encode())
        termios.tcdrain(fd)
    finally:
        os.close(fd)


#: Event devices opened by ``listen``, by path: the agent runs this module in its own process, so they
#: stay open between its requests while the test types on the gadget.
LISTENING: dict[str, int] = {}


def listen(node: str) -> None:
    """Open the event device as a second reader would (no grab): what reaches it is counted by ``heard``."""
    LISTENING[node] = os.open(node, os.O_RDONLY | os.O_NONBLOCK)


def heard(node: str, seconds: float) -> int:
    """The key events the second reader got since ``listen`` (waiting ``seconds`` for late ones); closes it."""
    fd = LISTENING.pop(node)
    keys = 0
    try:
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            try:
                data = os.read(fd, EVENT.size * 64)
            except OSError:  # the device went away: what it sent before is counted
                break
            for offset in range(0, len(data) - EVENT.size + 1, EVENT.size):
                _, _, kind, _, _ = EVENT.unpack_from(data, offset)
                keys += kind == EV_KEY
    finally:
        os.close(fd)
    return keys


def remove(name: str) -> None:
    """Unplug the gadget and undo what ``plug`` built, innermost first (configfs' order)."""
    gadget = GADGETS / name
    if not gadget.exists():
        return
    if (gadget / "UDC").read_text().strip():
        unplug(name)
    for config in (gadget / "configs").iterdir():
        for link in config.iterdir():
            if link.is_symlink():
                link.unlink()
        for strings in (config / "strings").glob("*") if (config / "strings").exists() else ():
            strings.rmdir()
        config.rmdir()
    for function in (gadget / "functions").iterdir():
        function.rmdir()
    for strings in (gadget / "strings").iterdir():
        strings.rmdir()
    gadget.rmdir()
    (STATE / f"{name}.udc").unlink(missing_ok=True)


def main(argv: list[str]) -> None:
    command, rest = argv[0], argv[1:]
    options = {"--gap": 0.0, "--hold": 0.0, "--seconds": 1.0}
    for option in options:
        if option in rest:
            at = rest.index(option)
            options[option] = float(rest[at + 1])
            del rest[at:at + 2]
    if command == "plug":
        print(json.dumps(plug(json.loads(rest[0]))))
    elif command == "unplug":
        unplug(rest[0])
    elif command == "replug":
        replug(rest[0])
    elif command == "remove":
        remove(rest[0])
    elif command == "where":
        print(json.dumps(where(rest[0])))
    elif command == "send":
        send(rest[0], [bytes.fromhex(r) for r in rest[1:]], options["--gap"], options["--hold"])
    elif command == "leds":
        print("\n".join(leds(rest[0], options["--seconds"])))
    elif command == "write":
        write_serial(rest[0], rest[1])
    elif command == "listen":
        listen(rest[0])
    elif command == "heard":
        print(heard(rest[0], options["--seconds"]))
    else:
        sys.exit(f"usb.py: unknown command {command}")


if __name__ == "__main__":
    main(sys.argv[1:])
