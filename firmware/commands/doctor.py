"""``bornes doctor``: what is attached and what is missing, one line each, before a game goes wrong.

Every check runs even when an earlier one fails, so one session at the Pi shows every problem.
Exit status 0 when nothing FAILed, 1 otherwise; a bad config file stops with exit 78 like ``run``.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import errno
import glob
import grp
import os
import pwd
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bornes.drivers.errors import UserError
from bornes.drivers.files import MIB, UnreadableFile, read_text_bounded
from bornes.engine import engine_build
from bornes.firmware.appliance.config import (
    Config,
    ReaderConfig,
    add_config_argument,
    config_path,
    load_config,
    state_dir_problem,
)
from bornes.firmware.commands.archive import ARCHIVE_DIR
from bornes.firmware.storage.journal import FILENAME, Journal, JournalError, headroom, writability_problem
from bornes.firmware.storage.statelock import LOCK_FILE

OK, WARN, FAIL = "OK", "WARN", "FAIL"
GROUPS = ("gpio", "i2c", "dialout")
SERIAL_PATTERNS = (
    "/dev/serial/by-id/*",
    "/dev/serial0",
    "/dev/serial1",
    "/dev/ttyAMA*",
    "/dev/ttyUSB*",
    "/dev/ttyACM*",
)


@dataclass(frozen=True, slots=True)
class Finding:
    level: str
    topic: str
    detail: str

    def line(self) -> str:
        return f"{self.level:<4} {self.topic}: {' '.join(self.detail.split())}"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser)


def run(args: argparse.Namespace) -> int:
    config = load_config(args.config)  # a bad config is exit 78, exactly as when the referee starts
    checks: list[Callable[[Config], Iterable[Finding]]] = [
        check_config,
        check_engine,
        check_serial,
        check_readers,
        check_camera,
        check_buttons,
        check_display,
        check_screen,
        check_sound,
        check_gpio,
        check_pins,
        check_state,
        check_journal,
        check_groups,
    ]
    failed = False
    for check in checks:
        try:
            findings = list(check(config))
        except Exception as error:  # one broken probe must not hide the other checks
            findings = [Finding(FAIL, check.__name__.removeprefix("check_"), f"{type(error).__name__}: {error}")]
        for finding in findings:
            print(finding.line(), flush=True)
            failed |= finding.level == FAIL
    return 1 if failed else 0


def is_desktop(config: Config) -> bool:
    """A laptop config (config/desktop.toml): mock pins, so no Pi, so no reader or I2C bus is expected.

    ``bornes run --emulate`` takes the cards on standard input (or ``--port`` for a USB scanner)
    and draws the panel in a window or the terminal.
    """
    return config.pins.factory == "mock"


def check_config(config: Config) -> Iterable[Finding]:
    if config.source is None:
        path, _ = config_path(None)
        yield Finding(WARN, "config", f"no file at {path}; using the defaults (copy config/bornes.sample.toml there)")
    else:
        yield Finding(OK, "config", f"{config.source} parsed")
    if is_desktop(config):
        yield Finding(OK, "config", "desktop (pins.factory = mock): no reader, GPIO or I2C expected; "
                                    f"use bornes run --emulate (a USB scanner too: {SCANNER_HINT})")


#: What each build of the rules engine is, said after its name (docs/engine-speed.md).
ENGINE_BUILDS = {
    "mypyc": "the rules run compiled to C by mypyc (install.sh --compile-engine)",
    "python": "the rules run as Python (install.sh --compile-engine compiles them: faster simulate, same games)",
}


def check_engine(config: Config) -> Iterable[Finding]:
    """Which build of the engine this install runs, so a slow table or a bug report names it."""
    build = engine_build()
    yield Finding(OK, "engine", f"{build}: {ENGINE_BUILDS.get(build, 'unknown build')}")


def _describe_ports() -> dict[str, str]:
    """pyserial's description of each port it knows (USB vendor:product, product name)."""
    try:
        from serial.tools import list_ports
    except ImportError:
        return {}
    found = {}
    for port in list_ports.comports():
        detail = port.description if port.description and port.description != "n/a" else ""
        if port.vid is not None and port.pid is not None:
            detail = f"{detail} [{port.vid:04x}:{port.pid:04x}]".strip()
        found[os.path.realpath(port.device)] = detail
    return found


def check_serial(config: Config) -> Iterable[Finding]:
    described = _describe_ports()
    found: dict[str, str] = {}  # name -> the device it resolves to
    for pattern in SERIAL_PATTERNS:
        for name in sorted(glob.glob(pattern)):
            found.setdefault(name, os.path.realpath(name))
    for real in sorted(described):
        if real not in found.values():
            found[real] = real
    for name, real in found.items():
        arrow = f" -> {real}" if real != name else ""
        yield Finding(OK, "serial", f"found {name}{arrow} {described.get(real, '')}")
    desktop = is_desktop(config)
    if not found and not desktop:
        yield Finding(WARN, "serial", "no serial ports found (is the reader plugged in?)")
    if not config.table_reader:  # pads only: each is checked by check_readers
        return
    if desktop and not config.reader_given and not os.path.exists(config.reader.port):
        yield Finding(OK, f"reader {config.reader.port}", "not expected on a desktop: run --emulate takes typed "
                                                          f"cards, or a USB scanner ({SCANNER_HINT})")
        return
    if config.reader.protocol != "hid":  # keyboard mode and pads: check_readers
        yield _open_reader(config, desktop=desktop)


def check_readers(config: Config) -> Iterable[Finding]:
    """Pile pads and keyboard-mode readers."""
    return _reader_findings(config)


def check_camera(config: Config) -> Iterable[Finding]:
    """``[camera]``: its libraries, its device, its templates; without opening it (the referee may hold it)."""
    import importlib.util

    from bornes.drivers.camera.index import read_index

    camera = config.camera
    if camera is None:
        return
    topic = f"camera {camera.device}"
    missing = [name for name in ("numpy", "cv2") if importlib.util.find_spec(name) is None]
    if missing:
        yield Finding(FAIL, topic, f"{' and '.join(missing)} not installed: install.sh --camera "
                                   "(or pip install 'bornes[camera]')")
    if camera.source == "picamera2" and importlib.util.find_spec("picamera2") is None:
        yield Finding(FAIL, topic, "picamera2 not installed: sudo apt install python3-picamera2, then install.sh "
                                   "--camera (the venv must see the system's packages)")
    elif camera.source == "v4l2" and not camera.device.isdigit():
        yield _camera_device(topic, camera.device)
    elif camera.source == "folder" and not os.path.exists(camera.device):
        yield Finding(FAIL, topic, "no such folder or video (camera.device)")
    else:
        yield Finding(OK, topic, f"{camera.source}, {camera.width}x{camera.height} at {camera.fps} frames a second")
    templates = camera.settings(config.state.dir).templates
    summary = read_index(templates)
    if isinstance(summary, str):
        yield Finding(FAIL, "camera templates", summary)
        return
    level = OK if not summary.missing and not summary.alike else WARN
    said = f"{len(summary.taught)} kinds taught, {len(summary.read_back)} read back by the check"
    if summary.missing:
        said += f"; not taught: {', '.join(summary.missing)} (bornes enroll --camera --kind …)"
    if summary.alike:
        pairs = ", ".join(f"{a} / {b}" for a, b in summary.alike)
        said += f"; look alike: {pairs} (show them again: bornes enroll --camera --kind …)"
    yield Finding(level, "camera templates", said)


def _camera_device(topic: str, device: str) -> Finding:
    import stat as modes

    try:
        found = os.stat(device)
    except FileNotFoundError:
        return Finding(FAIL, topic, "does not exist; plug the webcam in, or set camera.device (ls /dev/v4l/by-id/)")
    except OSError as error:
        return Finding(FAIL, topic, error.strerror or str(error))
    if not modes.S_ISCHR(found.st_mode):
        return Finding(FAIL, topic, "is not a video device")
    if not os.access(device, os.R_OK | os.W_OK):
        return Finding(FAIL, topic, "permission denied: the service's user needs the video group (install.sh --camera)")
    return Finding(OK, topic, f"a video device, readable and writable ({os.path.realpath(device)})")


#: How a person names a USB scanner to ``bornes run --port``: a serial one by its tty, a keyboard-mode
#: one (most scanners as bought) by what it has, its input device name or its USB ids.
SCANNER_HINT = ("--port /dev/ttyUSB0 for a serial one; a keyboard-mode one by its /dev/input/by-id name or "
                "VVVV:PPPP, listed by bornes scan-test --devices")


def _unplugged(desktop: bool) -> str:
    """An unplugged reader or pad, the same for every kind: it fails a Pi; a desktop runs without it."""
    return WARN if desktop else FAIL


def _open_reader(config: Config, desktop: bool = False) -> Finding:
    port = config.reader.port
    topic = f"reader {port}"
    if not os.path.exists(port):
        hint = " (the udev rule in systemd/99-bornes-reader.rules makes it)" if port == "/dev/bornes-reader" else ""
        return Finding(_unplugged(desktop), topic, f"does not exist; plug in the reader or set reader.port{hint}")
    try:
        import serial
    except ImportError:
        return Finding(WARN, topic, "exists, but pyserial is not installed so it cannot be opened")
    try:
        with serial.Serial(port, baudrate=config.reader.baud, timeout=0):
            pass
    except (OSError, serial.SerialException) as error:
        if isinstance(error, PermissionError) or "ermission" in str(error):
            return Finding(FAIL, topic, "permission denied: add the user to group dialout")
        return Finding(FAIL, topic, f"cannot be opened: {error}")
    return Finding(OK, topic, f"opens at {config.reader.baud} baud ({config.reader.protocol} protocol)")


def check_display(config: Config) -> Iterable[Finding]:
    display = config.display
    if not display.is_hardware:
        yield Finding(OK, "display", f"panel {display.panel} needs no bus")
        return
    if is_desktop(config):
        yield Finding(OK, "display", f"desktop: run --emulate shows the {display.panel} in a window or the terminal")
        return
    if display.interface == "spi":
        device = f"/dev/spidev{display.spi_port}.{display.spi_device}"
        if os.path.exists(device):
            yield Finding(OK, "display", f"{device} exists for the {display.panel}")
        else:
            yield Finding(WARN, "display", f"no {device}; enable SPI: sudo raspi-config nonint do_spi 0")
        return
    yield _probe_i2c(display.i2c_port, display.i2c_address, display.panel, config.source)


#: The two addresses an SSD1306 or SH1106 module answers at (SA0 low or high): a panel at the other one is
#: the commonest wrong setting after I2C itself (0x3D where the software says 0x3C).
PANEL_ADDRESSES = (0x3C, 0x3D)
#: Errors a bus gives for a byte nobody acknowledged: ENXIO (i2c-tiny-usb, SMBus controllers), EREMOTEIO (a
#: Pi's i2c-bcm2835), EIO, ETIMEDOUT (a bus held low).
NO_ANSWER = (errno.ENXIO, errno.EREMOTEIO, errno.EIO, errno.ETIMEDOUT)
#: Controllers whose command E3h is NOP (SSD1306 and SSD1309 command tables, SH1106's): a frame's length of
#: them exercises the bus as a frame does and leaves the picture and the registers as they were.
NOP_PANELS = {"ssd1306": 0xE3, "sh1106": 0xE3, "ssd1309": 0xE3}
FRAME_BYTES = 1024


def _probe_i2c(port: int, address: int, panel: str, source: str | Path | None = None) -> Finding:
    """Ask the bus whether anything answers at the address, the way ``i2cdetect`` does, then whether it
    takes a whole frame.

    An SSD1306 on I2C is write-only, so the probe is an SMBus quick write (what i2cdetect uses
    for 0x3C), falling back to a one-byte read where the adapter cannot do quick commands. When
    nothing answers, the panel's other address is asked too. A panel that answers is then sent a
    frame's length of NOP commands in one write, as luma sends a frame: a loose ground or a
    marginal bus acknowledges the address and fails there (luma.oled #373).
    """
    device = f"/dev/i2c-{port}"
    topic = f"display {device}"
    if not os.path.exists(device):
        return Finding(WARN, topic, "does not exist; enable I2C: sudo raspi-config nonint do_i2c 0")
    try:
        from smbus2 import SMBus
    except ImportError:
        return Finding(WARN, topic, f"exists, but smbus2 is not installed so 0x{address:02X} was not probed")
    try:
        with SMBus(port) as bus:
            if not _answers(bus, address):
                other = next((a for a in PANEL_ADDRESSES if a != address and address in PANEL_ADDRESSES), None)
                if other is not None and _answers(bus, other):
                    line = f'i2c_address = "0x{other:02X}"'
                    where = f" of {source}" if source else ""
                    return Finding(FAIL, topic, f"nothing answers at 0x{address:02X}, but a device answers at "
                                                f"0x{other:02X}: set {line} in [display]{where}")
                return Finding(FAIL, topic, f"nothing answers at 0x{address:02X}; check the wiring and "
                                            "display.i2c_address")
            broken = _takes_a_frame(bus, address, panel)
    except PermissionError:
        return Finding(FAIL, topic, "permission denied: add the user to group i2c")
    except OSError as error:
        return Finding(FAIL, topic, f"cannot probe 0x{address:02X}: {error.strerror or error}")
    if broken is not None:
        return Finding(FAIL, topic, f"a device answers at 0x{address:02X} but stopped acknowledging within a "
                                    f"{FRAME_BYTES + 1}-byte write ({broken}): check GND, SDA and SCL (a loose "
                                    "ground does this) and keep the wires short")
    return Finding(OK, topic, f"a device answers at 0x{address:02X} and takes a whole frame (configured as {panel})")


def _answers(bus: Any, address: int) -> bool:
    """A quick write (or a one-byte read where the adapter has no quick command) acknowledged at ``address``."""
    try:
        try:
            bus.write_quick(address)
        except OSError as error:
            if error.errno not in (errno.EOPNOTSUPP, errno.ENOTSUP, errno.EINVAL):
                raise
            bus.read_byte(address)
    except OSError as error:
        if error.errno in NO_ANSWER:
            return False
        raise
    return True


def _takes_a_frame(bus: Any, address: int, panel: str) -> str | None:
    """Why a frame-sized write of NOP commands failed at ``address``, None when it went through (or the
    panel has no NOP we know, or the adapter cannot send one long message)."""
    nop = NOP_PANELS.get(panel)
    if nop is None:
        return None
    from smbus2 import i2c_msg

    try:
        bus.i2c_rdwr(i2c_msg.write(address, [0x00] + [nop] * FRAME_BYTES))  # control byte: commands follow
    except OSError as error:
        if error.errno in NO_ANSWER:
            return error.strerror or str(error)
        if error.errno in (errno.EOPNOTSUPP, errno.ENOTSUP, errno.EINVAL):
            return None
        raise
    return None


def check_gpio(config: Config) -> Iterable[Finding]:
    """The chip the pin map's parts are on, found by its label as the referee finds it, and each of
    their lines free (a line another program holds cannot be the referee's)."""
    if config.pins.factory == "mock":
        yield Finding(OK, "gpio", "pins.factory = mock: no GPIO needed")
        return
    from bornes.drivers import gpiochips

    chips = sorted(glob.glob("/dev/gpiochip*"))
    try:
        pin_map = config.load_pin_map()
    except UserError:
        yield Finding(OK, "gpio", f"found {', '.join(chips) or 'no chip'} (the pin map's own check says what is "
                                  "wrong with it)")
        return
    if not chips and pin_map.chip is None:
        yield Finding(WARN, "gpio", "no /dev/gpiochip*: not a Raspberry Pi? (pins.factory = mock runs without)")
        return
    labels = pin_map.chip_labels
    chip = gpiochips.find(labels)
    if chip is None:
        fix = ("plug the bridge in, or correct [chip] label in the pin map" if pin_map.chip is not None
               else "is this a Raspberry Pi?")
        yield Finding(FAIL, "gpio", f"{gpiochips.missing(labels)}; {fix}")
        return
    held = []
    for line, part, _signal in pin_map.uses():
        if line >= chip.lines:
            yield Finding(FAIL, "gpio", f"{part} is on line {line}, but {chip.describe()} has lines 0-{chip.lines - 1}")
            return
        consumer = gpiochips.holder(chip, line)
        if consumer is not None:
            held.append(f"line {line} ({part}) by {consumer or 'an unnamed program'}")
    if held:
        yield Finding(WARN, "gpio", f"{chip.describe()}: held by another program (the referee, if it runs): "
                                    f"{', '.join(held)}")
        return
    yield Finding(OK, "gpio", f"{chip.describe()}: the pin map's {len(pin_map.uses())} lines are free")


def check_pins(config: Config) -> Iterable[Finding]:
    path = Path(config.pins.map)
    topic = f"pins {path}"
    try:
        data = tomllib.loads(read_text_bounded(path, MIB))
    except FileNotFoundError:
        yield Finding(FAIL, topic, "not found; set pins.map or copy wiring/pins.toml to /etc/bornes/pins.toml")
        return
    except (OSError, UnreadableFile, RecursionError) as error:
        yield Finding(FAIL, topic, f"cannot read: {error or 'nested too deeply'}")
        return
    except tomllib.TOMLDecodeError as error:
        yield Finding(FAIL, topic, f"TOML syntax error: {error}")
        return
    sections = ", ".join(data) or "none"
    try:
        config.load_pin_map()  # the referee's own check, against the display in use
    except Exception as error:  # the pin map validator's own errors are one-line UserErrors; others too
        yield Finding(FAIL, topic, str(error) if isinstance(error, UserError) else f"{type(error).__name__}: {error}")
        return
    yield Finding(OK, topic, f"valid; sections: {sections}")


def check_state(config: Config) -> Iterable[Finding]:
    where = Path(config.state.dir)
    topic = f"state {where}"
    problem = state_dir_problem(where)  # the very probe ``run`` makes, so the two always agree
    if problem is not None:
        yield Finding(FAIL, topic, f"{problem}; set state.dir to a folder the service can write")
        return
    yield Finding(OK, topic, "exists and is writable" if where.is_dir() else "can be created on start")
    yield from _check_room(where)
    yield from _check_side_files(config, where)


def _check_room(where: Path) -> Iterable[Finding]:
    try:
        room = headroom(where)
    except OSError as error:
        yield Finding(WARN, "storage", f"free space not known: {error.strerror or error}")
        return
    level = FAIL if room.full else WARN if room.low else OK
    yield Finding(level, "storage", room.describe())


def _check_side_files(config: Config, where: Path) -> Iterable[Finding]:
    """Files beside the journal that are not what they should be: what ``run`` does about each."""
    lock = where / LOCK_FILE
    if os.path.lexists(lock) and (lock.is_symlink() or not lock.is_file()):
        kind = "a dangling symlink" if lock.is_symlink() and not lock.exists() else \
            "a symlink" if lock.is_symlink() else "a folder" if lock.is_dir() else "not a file"
        yield Finding(WARN, f"lock {lock}", f"is {kind}; the referee moves it aside and makes a new one")
    archive = where / ARCHIVE_DIR
    if config.state.keep_games and os.path.lexists(archive) and not archive.is_dir():
        yield Finding(WARN, f"archive {archive}", f"is not a folder: state.keep_games = {config.state.keep_games} "
                      "archives nothing (the journal keeps every game) until it is moved away")


def check_journal(config: Config) -> Iterable[Finding]:
    path = Path(config.state.dir) / FILENAME
    topic = f"journal {path}"
    try:
        if not Journal.exists(config.state.dir):  # a main file lost beside its WAL or note is damage
            yield Finding(OK, topic, "none yet; it is created with the first game")
            return
        with Journal.open(config.state.dir, readonly=True) as journal:
            games = journal.verify()
            current = journal.current_game()
            warnings = journal.warnings
    except JournalError as error:
        yield Finding(FAIL, "journal", str(error))
        return
    for warning in warnings:  # odd but nothing lost: the referee repairs it when it starts
        yield Finding(WARN, topic, warning)
    problem = writability_problem(path)  # the referee must write the file itself, not only its folder
    if problem:
        yield Finding(FAIL, topic, problem)
        return
    if current is None:
        yield Finding(OK, topic, f"{games} games, none in progress")
    else:
        yield Finding(OK, topic, f"{games} games; game {current.game_id} in progress ({len(current.lines)} actions)")


def check_groups(config: Config) -> Iterable[Finding]:
    if os.geteuid() == 0:
        yield Finding(OK, "groups", "running as root (the service runs as user bornes)")
        return
    user = pwd.getpwuid(os.geteuid()).pw_name
    mine = set(os.getgroups()) | {os.getegid()}
    for name in GROUPS:
        try:
            gid = grp.getgrnam(name).gr_gid
        except KeyError:
            yield Finding(WARN, "groups", f"group {name} does not exist here (Raspberry Pi OS has it)")
            continue
        if gid in mine:
            yield Finding(OK, "groups", f"{user} is in {name}")
        else:
            yield Finding(WARN, "groups", f"{user} is not in {name}: sudo adduser {user} {name}, then log in again")


# -- pile pads and keyboard-mode (HID) readers --------------------------------------------------
# A keyboard-mode reader is an input device, not a serial port: it must be there (by its
# /dev/input/by-id name or vendor:product), readable by this user (the udev rule
# systemd/99-bornes-reader.rules gives the bornes group that one device), and free to grab (no
# other program holding it). Serial pads get the same check as [reader].


def _reader_findings(config: Config) -> Iterable[Finding]:
    readers: list[tuple[str, ReaderConfig]] = []
    if config.table_reader and config.reader.protocol == "hid":
        readers.append(("reader", config.reader))
    readers += [(f"pad {pad.name}" + ("" if pad.name == pad.place else f" ({pad.place})"), pad.reader)
                for pad in config.pads]
    for topic, reader in readers:
        if reader.protocol == "hid":
            yield hid_finding(f"{topic} {reader.port}", reader, desktop=is_desktop(config))
        else:
            found = _open_reader(dataclasses.replace(config, reader=reader), desktop=is_desktop(config))
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
        return Finding(_unplugged(desktop), topic, "no such input device; plug it in, or find its /dev/input/by-id "
                                                   "name or VVVV:PPPP with bornes scan-test --devices")
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


# -- a table without a soldering iron: the USB keypad, the TV page, the chirps through the Pi's audio ---


def check_buttons(config: Config) -> Iterable[Finding]:
    """The USB keypad of ``[buttons] source = "hid"``: there, readable, free to grab, not the reader."""
    b = config.buttons
    if b.source != "hid":
        return
    topic = f"buttons {b.port}"
    from bornes.drivers.readers.hid_device import HidUnavailable, evdev_module, resolve_device

    try:
        evdev = evdev_module()
    except HidUnavailable as error:
        yield Finding(FAIL, topic, str(error))
        return
    keymap = b.key_map
    try:
        path = resolve_device(b.port, keymap.accepts)
    except FileNotFoundError:
        level = OK if is_desktop(config) else FAIL
        yield Finding(level, topic, "no such keypad; plug it in, or see bornes scan-test --devices "
                                    "(control cards work meanwhile)")
        return
    readers = [config.reader.port] if config.table_reader and config.reader.protocol == "hid" else []
    readers += [pad.reader.port for pad in config.pads if pad.reader.protocol == "hid"]
    for port in readers:
        with contextlib.suppress(OSError, HidUnavailable):
            if os.path.realpath(resolve_device(port)) == os.path.realpath(path):
                yield Finding(FAIL, topic, f"{path} is also the reader {port}: the keypad and the scanner are two "
                                           "devices (bornes scan-test --identify tells them apart)")
                return
    try:
        device = evdev.InputDevice(path)
    except PermissionError:
        yield Finding(FAIL, topic, f"{path}: permission denied; sudo systemd/install.sh --keypad VVVV:PPPP gives "
                                   "group bornes this one device")
        return
    except OSError as error:
        yield Finding(FAIL, topic, f"{path} cannot be opened: {error.strerror or error}")
        return
    try:
        name, ids = device.name, f"{device.info.vendor:04x}:{device.info.product:04x}"
        has = set(device.capabilities().get(1, ()))
        try:
            device.grab()
            device.ungrab()
        except OSError as error:
            if error.errno == errno.EBUSY:
                yield Finding(WARN, topic, f"{name} [{ids}] is held by another program (the referee, if it runs)")
                return
            yield Finding(FAIL, topic, f"{name} [{ids}] cannot be grabbed: {error.strerror or error}")
            return
    finally:
        device.close()
    from bornes.drivers.keys import key_name

    missing = [f"{button} ({key_name(code)})" for code, button in keymap.pairs if code not in has]
    if missing:
        yield Finding(WARN, topic, f"{name} [{ids}] has no key for {', '.join(missing)}: change them in "
                                   "[buttons.keys] (bornes scan-test --buttons names the keys it has)")
        return
    yield Finding(OK, topic, f"{name} [{ids}] on {path}, readable and free; keys {keymap.described()}")


def check_screen(config: Config) -> Iterable[Finding]:
    """``[display] panel = "tv"``: where the screen goes, and what shows it."""
    if config.display.panel != "tv":
        return
    from bornes.firmware.appliance.config import tv_file

    where = tv_file(config, config.control.socket)
    try:
        import starlette  # noqa: F401  the web extra: bornes web serves the TV page
    except ImportError:
        yield Finding(FAIL, "tv", "the TV page needs bornes web: sudo systemd/install.sh --tv (or pip install "
                                  "'bornes[web]')")
        return
    host = "<this Pi>" if config.web.host in ("0.0.0.0", "::", "") else config.web.host
    yield Finding(OK, "tv", f"the panel's screens go to {where}; the TV page is http://{host}:{config.web.port}/tv "
                            "(bornes-kiosk.service shows it on the HDMI screen)")


def check_sound(config: Config) -> Iterable[Finding]:
    """Where the chirps go, and whether the Pi's audio can play them."""
    from bornes.drivers.sound import sound_card_problem

    output = config.sound.output
    if config.sound.muted or output in ("buzzer", "none", "page"):
        return
    if output == "auto":
        try:
            if config.load_pin_map().buzzer is not None:
                return  # the buzzer chirps (check_pins says if the map is wrong)
        except UserError:
            return
    problem = sound_card_problem()
    if problem is not None:
        said = "auto (no buzzer in the pin map: the Pi's audio)" if output == "auto" else output
        yield Finding(WARN, "sound", f"output {said}, but {problem}: the table will be silent")
        return
    yield Finding(OK, "sound", f"output audio through aplay on {config.sound.device} (aplay -L lists the outputs)")
