"""``bornes doctor``: the pile pads and the keyboard-mode (HID) readers, one line each.

A keyboard-mode reader is an input device, not a serial port: it must be there (by its
``/dev/input/by-id`` name or vendor:product), readable by this user (the udev rule
``systemd/99-bornes-reader.rules`` gives the ``bornes`` group that one device), and free to
grab (no other program holding it). Serial pads get the same check as ``[reader]``.
"""

from __future__ import annotations

import dataclasses
import errno
from collections.abc import Iterable

from bornes.firmware.commands.doctor import FAIL, OK, WARN, Finding, _open_reader, is_desktop
from bornes.firmware.config import Config, ReaderConfig


def findings(config: Config) -> Iterable[Finding]:
    readers: list[tuple[str, ReaderConfig]] = []
    if config.table_reader and config.reader.protocol == "hid":
        readers.append(("reader", config.reader))
    readers += [(f"pad {pad.name}" + ("" if pad.name == pad.place else f" ({pad.place})"), pad.reader)
                for pad in config.pads]
    for topic, reader in readers:
        if reader.protocol == "hid":
            yield hid_finding(f"{topic} {reader.port}", reader, desktop=is_desktop(config))
        else:
            found = _open_reader(dataclasses.replace(config, reader=reader))
            key = f"pads.{topic.split()[1]}.port" if topic.startswith("pad ") else "reader.port"
            yield Finding(found.level, f"{topic} {reader.port}", found.detail.replace("reader.port", key))


def hid_finding(topic: str, reader: ReaderConfig, *, desktop: bool = False) -> Finding:
    from bornes.drivers.readers.hid_device import HidUnavailable, evdev_module, resolve_device

    try:
        evdev = evdev_module()
    except HidUnavailable as error:
        return Finding(FAIL, topic, str(error))
    try:
        path = resolve_device(reader.port)
    except FileNotFoundError:
        level = OK if desktop else FAIL
        return Finding(level, topic, "no such input device; plug it in, or see bornes scan-test --devices")
    try:
        device = evdev.InputDevice(path)
    except PermissionError:
        return Finding(FAIL, topic, f"{path}: permission denied; the udev rule (systemd/99-bornes-reader.rules) "
                                    "gives group bornes this one device")
    except OSError as error:
        return Finding(FAIL, topic, f"{path} cannot be opened: {error.strerror or error}")
    try:
        name, ids = device.name, f"{device.info.vendor:04x}:{device.info.product:04x}"
        try:
            device.grab()
            device.ungrab()
        except OSError as error:
            if error.errno == errno.EBUSY:
                return Finding(WARN, topic, f"{name} [{ids}] is held by another program (the referee, if it runs)")
            return Finding(FAIL, topic, f"{name} [{ids}] cannot be grabbed: {error.strerror or error}")
    finally:
        device.close()
    return Finding(OK, topic, f"{name} [{ids}] on {path}, readable and free (keyboard layout {reader.layout})")
