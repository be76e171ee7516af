"""``bornes doctor``: what is attached and what is missing, one line each, before a game goes wrong.

Every check runs even when an earlier one fails, so one session at the Pi shows every problem.
Exit status 0 when nothing FAILed, 1 otherwise; a bad config file stops with exit 78 like ``run``.

It speaks the table's language (``[table] language``, else the edition's, as ``run`` decides it;
``--lang``): a family runs it (README, step 4). What a person types or a program reads stays as it
is: the verdicts ``OK``/``WARN``/``FAIL`` (scripts and tests read the first word of a line), config
keys, file and device names, commands. A system error is said in our words where its kind is known
(``firmware/language/devices.py``); its own text only where none fits. docs/languages.md.
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
import re
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bornes.drivers.errors import UserError
from bornes.drivers.events import DeviceFailure, Failure
from bornes.drivers.files import MIB, UnreadableFile, read_text_bounded
from bornes.engine import engine_build
from bornes.firmware.appliance.config import (
    Config,
    ReaderConfig,
    add_config_argument,
    config_path,
    load_config,
    state_dir_problem,
    table_language,
)
from bornes.firmware.commands.archive import ARCHIVE_DIR
from bornes.firmware.language import i18n
from bornes.firmware.language.devices import failure_words, reason_words
from bornes.firmware.language.i18n import N_, NC_, _, ngettext, pgettext
from bornes.firmware.language.said import error_words, worded
from bornes.firmware.storage.journal import FILENAME, Journal, JournalError, headroom, writability_problem
from bornes.firmware.storage.statelock import LOCK_FILE

#: The verdicts, the same words in every language: scripts and tests read a line's first word.
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
        """The printed line: the verdict as it is (scripts read it), the rest in the table's language."""
        detail = re.sub(r"[ \t\r\n]+", " ", self.detail).strip()  # one line; French no-break spaces kept
        return f"{self.level:<4} " + _("{topic}: {detail}").format(topic=self.topic, detail=detail)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from bornes.firmware.commands import add_language_argument

    add_config_argument(parser)
    add_language_argument(parser, help="language of the lines (default: [table] language, else the edition's); "
                                       "OK, WARN and FAIL stay as they are")


def run(args: argparse.Namespace) -> int:
    config = load_config(args.config)  # a bad config is exit 78, exactly as when the referee starts
    with i18n.speaking(getattr(args, "lang", None) or table_language(config)):  # the table's, as run decides it
        return _checked(config)


#: The topics' words (context "doctor"): what a line is about, before the device or file it names.
TOPICS = (NC_("doctor", "config"), NC_("doctor", "engine"), NC_("doctor", "serial"), NC_("doctor", "reader"),
          NC_("doctor", "pad"), NC_("doctor", "camera"), NC_("doctor", "camera templates"),
          NC_("doctor", "buttons"), NC_("doctor", "display"), NC_("doctor", "tv"), NC_("doctor", "sound"),
          NC_("doctor", "gpio"), NC_("doctor", "pins"), NC_("doctor", "state"), NC_("doctor", "storage"),
          NC_("doctor", "lock"), NC_("doctor", "archive"), NC_("doctor", "journal"), NC_("doctor", "groups"))


def topic(word: str, name: object = None) -> str:
    """A line's topic in the table's language, then the device or file it names as it is: "lecteur /dev/ttyUSB0"."""
    said = pgettext("doctor", word)
    return said if name is None else f"{said} {name}"


def _checked(config: Config) -> int:
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
            broke = _("this check broke: {error}").format(error=f"{type(error).__name__}: {error}")
            findings = [Finding(FAIL, topic(check.__name__.removeprefix("check_")), broke)]
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
        path, _chosen = config_path(None)
        yield Finding(WARN, topic("config"), _("no file at {path}; using the defaults (copy "
                                               "config/bornes.sample.toml there)").format(path=path))
    else:
        yield Finding(OK, topic("config"), _("{path} parsed").format(path=config.source))
    if is_desktop(config):
        yield Finding(OK, topic("config"), _("desktop (pins.factory = mock): no reader, GPIO or I2C expected; use "
                                             "bornes run --emulate (a USB scanner too: {hint})").format(
                                                 hint=_(SCANNER_HINT).format(ids=IDS)))


#: What each build of the rules engine is, said after its name (docs/engine-speed.md).
ENGINE_BUILDS = {
    "mypyc": N_("the rules run compiled to C by mypyc (install.sh --compile-engine)"),
    "python": N_("the rules run as Python (install.sh --compile-engine compiles them: faster simulate, same games)"),
}
UNKNOWN_BUILD = N_("unknown build")


def check_engine(config: Config) -> Iterable[Finding]:
    """Which build of the engine this install runs, so a slow table or a bug report names it."""
    build = engine_build()
    what = _(ENGINE_BUILDS.get(build, UNKNOWN_BUILD))
    yield Finding(OK, topic("engine"), _("{build}: {what}").format(build=build, what=what))


def _describe_ports(usb_only: bool = False) -> dict[str, str]:
    """pyserial's description of each port it knows (USB vendor:product, product name); with
    ``usb_only``, the USB ones alone (a laptop's built-in ttyS0 is no reader)."""
    try:
        from serial.tools import list_ports
    except ImportError:
        return {}
    found = {}
    for port in list_ports.comports():
        if usb_only and (port.vid is None or port.pid is None):
            continue
        detail = port.description if port.description and port.description != "n/a" else ""
        if port.vid is not None and port.pid is not None:
            detail = f"{detail} [{port.vid:04x}:{port.pid:04x}]".strip()
        found[os.path.realpath(port.device)] = detail
    return found


def check_serial(config: Config) -> Iterable[Finding]:
    """The serial ports a reader could be on. On a desktop only USB ones: a laptop's built-in ttyS0 is
    never a card reader, and "OK serial: found /dev/ttyS0" read as if one were there (issue 40)."""
    desktop = is_desktop(config)
    described = _describe_ports(usb_only=desktop)
    found: dict[str, str] = {}  # name -> the device it resolves to
    for pattern in SERIAL_PATTERNS if not desktop else ("/dev/serial/by-id/*", "/dev/ttyUSB*", "/dev/ttyACM*"):
        for name in sorted(glob.glob(pattern)):
            found.setdefault(name, os.path.realpath(name))
    for real in sorted(described):
        if real not in found.values():
            found[real] = real
    for name, real in found.items():
        arrow = f" -> {real}" if real != name else ""
        said = _("found {port}").format(port=f"{name}{arrow} {described.get(real, '')}".strip())
        if desktop:
            said += " " + _("(bornes run --emulate --port {port} reads it)").format(port=name)
        yield Finding(OK, topic("serial"), said)
    if not found and not desktop:
        yield Finding(WARN, topic("serial"), _("no serial ports found (is the reader plugged in?)"))
    if not config.table_reader:  # pads only: each is checked by check_readers
        return
    if desktop and not config.reader_given and not os.path.exists(config.reader.port):
        yield Finding(OK, topic("reader", config.reader.port), _("not expected on a desktop: run --emulate takes "
                                                                 "typed cards, or a USB scanner ({hint})").format(
                                                                     hint=_(SCANNER_HINT).format(ids=IDS)))
        return
    if config.reader.protocol == "rc522":
        yield rc522_finding("reader", config.reader, desktop=desktop)
    elif config.reader.protocol != "hid":  # keyboard mode and pads: check_readers
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
    about = topic("camera", camera.device)
    missing = [name for name in ("numpy", "cv2") if importlib.util.find_spec(name) is None]
    if missing:
        yield Finding(FAIL, about, _("{modules} not installed: install.sh --camera (or pip install "
                                     "'bornes[camera]')").format(modules=", ".join(missing)))
    if camera.source == "picamera2" and importlib.util.find_spec("picamera2") is None:
        yield Finding(FAIL, about, _("picamera2 not installed: sudo apt install python3-picamera2, then install.sh "
                                     "--camera (the venv must see the system's packages)"))
    elif camera.source == "v4l2" and not camera.device.isdigit():
        yield _camera_device(about, camera.device)
    elif camera.source == "folder" and not os.path.exists(camera.device):
        yield Finding(FAIL, about, _("no such folder or video (camera.device)"))
    else:
        yield Finding(OK, about, _("{source}, {width}x{height} at {fps} frames a second").format(
            source=camera.source, width=camera.width, height=camera.height, fps=camera.fps))
    templates = camera.settings(config.state.dir).templates
    summary = read_index(templates)
    if isinstance(summary, str):
        yield Finding(FAIL, topic("camera templates"), worded(summary))
        return
    level = OK if not summary.missing and not summary.alike else WARN
    said = _("{taught} kinds taught, {read_back} read back by the check").format(
        taught=len(summary.taught), read_back=len(summary.read_back))
    if summary.missing:
        said += _("; not taught: {kinds} (bornes enroll --camera --kind …)").format(kinds=", ".join(summary.missing))
    if summary.alike:
        pairs = ", ".join(f"{a} / {b}" for a, b in summary.alike)
        said += _("; look alike: {pairs} (show them again: bornes enroll --camera --kind …)").format(pairs=pairs)
    yield Finding(level, topic("camera templates"), said)


def _camera_device(about: str, device: str) -> Finding:
    import stat as modes

    try:
        found = os.stat(device)
    except FileNotFoundError:
        return Finding(FAIL, about, _("does not exist; plug the webcam in, or set camera.device (ls "
                                      "/dev/v4l/by-id/)"))
    except OSError as error:
        return Finding(FAIL, about, failure_words(DeviceFailure.of(error, device)))
    if not modes.S_ISCHR(found.st_mode):
        return Finding(FAIL, about, _("is not a video device"))
    if not os.access(device, os.R_OK | os.W_OK):
        return Finding(FAIL, about, _("permission denied: the service's user needs the video group (install.sh "
                                      "--camera)"))
    return Finding(OK, about, _("a video device, readable and writable ({path})").format(
        path=os.path.realpath(device)))


#: How a person names a USB scanner to ``bornes run --port``: a serial one by its tty, a keyboard-mode
#: one (most scanners as bought) by what it has, its input device name or its USB ids.
SCANNER_HINT = N_("--port /dev/ttyUSB0 for a serial one; a keyboard-mode one by its /dev/input/by-id name or "
                  "{ids}, listed by bornes scan-test --devices")
#: How a USB device's ids are written, in a hint: the same in every language.
IDS = "VVVV:PPPP"


def _unplugged(desktop: bool) -> str:
    """An unplugged reader or pad, the same for every kind: it fails a Pi; a desktop runs without it."""
    return WARN if desktop else FAIL


def _open_reader(config: Config, desktop: bool = False, about: str | None = None, key: str = "reader.port") -> Finding:
    """A serial reader or pad: there, and opens. ``about`` is the line's topic, ``key`` the config key of its port."""
    port = config.reader.port
    about = about or topic("reader", port)
    if not os.path.exists(port):
        if port == "/dev/bornes-reader":
            said = _("does not exist; plug in the reader or set {key} (the udev rule in "
                     "systemd/99-bornes-reader.rules makes it)")
        else:
            said = _("does not exist; plug in the reader or set {key}")
        return Finding(_unplugged(desktop), about, said.format(key=key))
    try:
        import serial
    except ImportError:
        return Finding(WARN, about, _("exists, but pyserial is not installed so it cannot be opened"))
    try:
        with serial.Serial(port, baudrate=config.reader.baud, timeout=0):
            pass
    except (OSError, serial.SerialException) as error:
        failure = DeviceFailure.of(error, port)
        if isinstance(error, PermissionError) or failure.kind is Failure.PERMISSION or "ermission" in str(error):
            return Finding(FAIL, about, _("permission denied: add the user to group dialout"))
        return Finding(FAIL, about, _("cannot be opened: {reason}").format(reason=failure_words(failure)))
    return Finding(OK, about, _("opens at {baud} baud ({protocol} protocol)").format(
        baud=config.reader.baud, protocol=config.reader.protocol))


def check_display(config: Config) -> Iterable[Finding]:
    display = config.display
    if not display.is_hardware:
        yield Finding(OK, topic("display"), _("panel {panel} needs no bus").format(panel=display.panel))
        return
    if is_desktop(config):
        yield Finding(OK, topic("display"), _("desktop: run --emulate shows the {panel} in a window or the "
                                              "terminal").format(panel=display.panel))
        return
    if display.interface == "spi":
        device = f"/dev/spidev{display.spi_port}.{display.spi_device}"
        if os.path.exists(device):
            yield Finding(OK, topic("display"), _("{device} exists for the {panel}").format(device=device,
                                                                                          panel=display.panel))
        else:
            yield Finding(WARN, topic("display"), _("no {device}; enable SPI: sudo raspi-config nonint "
                                                    "do_spi 0").format(device=device))
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
    about, at = topic("display", device), f"0x{address:02X}"
    if not os.path.exists(device):
        return Finding(WARN, about, _("does not exist; enable I2C: sudo raspi-config nonint do_i2c 0"))
    try:
        from smbus2 import SMBus
    except ImportError:
        return Finding(WARN, about, _("exists, but smbus2 is not installed so {address} was not probed").format(
            address=at))
    try:
        with SMBus(port) as bus:
            if not _answers(bus, address):
                other = next((a for a in PANEL_ADDRESSES if a != address and address in PANEL_ADDRESSES), None)
                if other is not None and _answers(bus, other):
                    line, there = f'i2c_address = "0x{other:02X}"', f"0x{other:02X}"
                    if source:
                        return Finding(FAIL, about, _("nothing answers at {address}, but a device answers at {other}: "
                                                      "set {line} in [display] of {config}").format(
                            address=at, other=there, line=line, config=source))
                    return Finding(FAIL, about, _("nothing answers at {address}, but a device answers at {other}: set "
                                                  "{line} in [display]").format(address=at, other=there, line=line))
                return Finding(FAIL, about, _("nothing answers at {address}; check the wiring and "
                                              "display.i2c_address").format(address=at))
            broken = _takes_a_frame(bus, address, panel)
    except PermissionError:
        return Finding(FAIL, about, _("permission denied: add the user to group i2c"))
    except OSError as error:
        return Finding(FAIL, about, _("cannot probe {address}: {reason}").format(
            address=at, reason=failure_words(DeviceFailure.of(error, device))))
    if broken is not None:
        return Finding(FAIL, about, _("a device answers at {address} but stopped acknowledging within a {size}-byte "
                                      "write ({reason}): check GND, SDA and SCL (a loose ground does this) and keep "
                                      "the wires short").format(address=at, size=FRAME_BYTES + 1, reason=broken))
    return Finding(OK, about, _("a device answers at {address} and takes a whole frame (configured as {panel})").format(
        address=at, panel=panel))


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
        yield Finding(OK, topic("gpio"), _("pins.factory = mock: no GPIO needed"))
        return
    from bornes.drivers import gpiochips

    chips = sorted(glob.glob("/dev/gpiochip*"))
    try:
        pin_map = config.load_pin_map()
    except UserError:
        yield Finding(OK, topic("gpio"), _("found {port} (the pin map's own check says what is wrong with it)").format(
            port=", ".join(chips) or _("no chip")))
        return
    if not chips and pin_map.chip is None:
        yield Finding(WARN, topic("gpio"), _("no /dev/gpiochip*: not a Raspberry Pi? (pins.factory = mock runs "
                                             "without)"))
        return
    labels = pin_map.chip_labels
    chip = gpiochips.find(labels)
    if chip is None:
        fix = (_("plug the bridge in, or correct [chip] label in the pin map") if pin_map.chip is not None
               else _("is this a Raspberry Pi?"))
        yield Finding(FAIL, topic("gpio"), f"{gpiochips.missing(labels)}; {fix}")
        return
    held = []
    for line, part, _signal in pin_map.uses():
        if line >= chip.lines:
            yield Finding(FAIL, topic("gpio"), _("{part} is on line {line}, but {chip} has lines 0-{last}").format(
                part=part, line=line, chip=chip.describe(), last=chip.lines - 1))
            return
        consumer = gpiochips.holder(chip, line)
        if consumer is not None:
            held.append(_("line {line} ({part}) by {holder}").format(line=line, part=part,
                                                                    holder=consumer or _("an unnamed program")))
    if held:
        yield Finding(WARN, topic("gpio"), _("{chip}: held by another program (the referee, if it runs): "
                                             "{lines}").format(chip=chip.describe(), lines=", ".join(held)))
        return
    yield Finding(OK, topic("gpio"), _("{chip}: the pin map's {count} lines are free").format(
        chip=chip.describe(), count=len(pin_map.uses())))


def check_pins(config: Config) -> Iterable[Finding]:
    path = Path(config.pins.map)
    about = topic("pins", path)
    try:
        data = tomllib.loads(read_text_bounded(path, MIB))
    except FileNotFoundError:
        yield Finding(FAIL, about, _("not found; set pins.map or copy wiring/pins.toml to /etc/bornes/pins.toml"))
        return
    except OSError as error:
        yield Finding(FAIL, about, _("cannot read: {reason}").format(
            reason=reason_words(DeviceFailure.of(error, str(path)))))
        return
    except UnreadableFile as error:  # "is a symlink loop", "is a directory, not a file"
        yield Finding(FAIL, about, error_words(error))
        return
    except RecursionError:
        yield Finding(FAIL, about, _("nested too deeply"))
        return
    except tomllib.TOMLDecodeError as error:  # the parser's own words and place: the last resort
        yield Finding(FAIL, about, _("TOML syntax error: {error}").format(error=error))
        return
    sections = ", ".join(data) or _("none")
    try:
        config.load_pin_map()  # the referee's own check, against the display in use
    except Exception as error:  # the pin map validator's own errors are one-line UserErrors; others too
        yield Finding(FAIL, about, error_words(error) if isinstance(error, UserError)
                      else f"{type(error).__name__}: {error}")
        return
    yield Finding(OK, about, _("valid; sections: {sections}").format(sections=sections))


def check_state(config: Config) -> Iterable[Finding]:
    where = Path(config.state.dir)
    about = topic("state", where)
    problem = state_dir_problem(where)  # the very probe ``run`` makes, so the two always agree
    if problem is not None:
        yield Finding(FAIL, about, _("{problem}; set state.dir to a folder the service can write").format(
            problem=worded(problem)))
        return
    yield Finding(OK, about, _("exists and is writable") if where.is_dir() else _("can be created on start"))
    yield from _check_room(where)
    yield from _check_side_files(config, where)


def _check_room(where: Path) -> Iterable[Finding]:
    try:
        room = headroom(where)
    except OSError as error:
        yield Finding(WARN, topic("storage"), _("free space not known: {reason}").format(
            reason=reason_words(DeviceFailure.of(error, str(where)))))
        return
    level = FAIL if room.full else WARN if room.low else OK
    yield Finding(level, topic("storage"), worded(room.describe()))


def _check_side_files(config: Config, where: Path) -> Iterable[Finding]:
    """Files beside the journal that are not what they should be: what ``run`` does about each."""
    lock = where / LOCK_FILE
    if os.path.lexists(lock) and (lock.is_symlink() or not lock.is_file()):
        said = _("is a dangling symlink; the referee moves it aside and makes a new one") \
            if lock.is_symlink() and not lock.exists() else \
            _("is a symlink; the referee moves it aside and makes a new one") if lock.is_symlink() else \
            _("is a folder; the referee moves it aside and makes a new one") if lock.is_dir() else \
            _("is not a file; the referee moves it aside and makes a new one")
        yield Finding(WARN, topic("lock", lock), said)
    archive = where / ARCHIVE_DIR
    if config.state.keep_games and os.path.lexists(archive) and not archive.is_dir():
        yield Finding(WARN, topic("archive", archive), _("is not a folder: state.keep_games = {count} archives "
                                                         "nothing (the journal keeps every game) until it is moved "
                                                         "away").format(count=config.state.keep_games))


def check_journal(config: Config) -> Iterable[Finding]:
    path = Path(config.state.dir) / FILENAME
    about = topic("journal", path)
    try:
        if not Journal.exists(config.state.dir):  # a main file lost beside its WAL or note is damage
            yield Finding(OK, about, _("none yet; it is created with the first game"))
            return
        with Journal.open(config.state.dir, readonly=True) as journal:
            games = journal.verify()
            current = journal.current_game()
            warnings = journal.warnings
    except JournalError as error:
        yield Finding(FAIL, topic("journal"), error_words(error))
        return
    for warning in warnings:  # odd but nothing lost: the referee repairs it when it starts
        yield Finding(WARN, about, worded(warning))
    problem = writability_problem(path)  # the referee must write the file itself, not only its folder
    if problem:
        yield Finding(FAIL, about, worded(problem))
        return
    played = ngettext("{count} game", "{count} games", games).format(count=games)
    if current is None:
        yield Finding(OK, about, _("{games}, none in progress").format(games=played))
    else:
        actions = len(current.lines)
        yield Finding(OK, about, _("{games}; game {game} in progress ({actions})").format(
            games=played, game=current.game_id,
            actions=ngettext("{count} action", "{count} actions", actions).format(count=actions)))


def check_groups(config: Config) -> Iterable[Finding]:
    if os.geteuid() == 0:
        yield Finding(OK, topic("groups"), _("running as root (the service runs as user bornes)"))
        return
    user = pwd.getpwuid(os.geteuid()).pw_name
    mine = set(os.getgroups()) | {os.getegid()}
    for name in (*GROUPS, *(("spi",) if _rc522_readers(config) else ())):
        try:
            gid = grp.getgrnam(name).gr_gid
        except KeyError:
            yield Finding(WARN, topic("groups"), _("group {group} does not exist here (Raspberry Pi OS has it)").format(
                group=name))
            continue
        if gid in mine:
            yield Finding(OK, topic("groups"), _("{user} is in {group}").format(user=user, group=name))
        else:
            yield Finding(WARN, topic("groups"), _("{user} is not in {group}: sudo adduser {user} {group}, then log "
                                                   "in again").format(user=user, group=name))


# -- pile pads and keyboard-mode (HID) readers --------------------------------------------------
# A keyboard-mode reader is an input device, not a serial port: it must be there (by its
# /dev/input/by-id name or vendor:product), readable by this user (the udev rule
# systemd/99-bornes-reader.rules gives the bornes group that one device), and free to grab (no
# other program holding it). Serial pads get the same check as [reader].


def _reader_findings(config: Config) -> Iterable[Finding]:
    readers: list[tuple[str, str, ReaderConfig]] = []  # the topic, the config key of its port, the reader
    if config.table_reader and config.reader.protocol == "hid":
        readers.append((topic("reader"), "reader.port", config.reader))
    readers += [(topic("pad", pad.name + ("" if pad.name == pad.place else f" ({pad.place})")),
                 f"pads.{pad.name}.port", pad.reader) for pad in config.pads]
    for about, key, reader in readers:
        if reader.protocol == "hid":
            yield hid_finding(f"{about} {reader.port}", reader, desktop=is_desktop(config))
        elif reader.protocol == "rc522":
            yield rc522_finding(about, reader, desktop=is_desktop(config))
        else:
            yield _open_reader(dataclasses.replace(config, reader=reader), desktop=is_desktop(config),
                               about=f"{about} {reader.port}", key=key)


#: python-evdev missing, said by doctor itself (drivers/readers/hid_device.py's HidUnavailable says it in English).
NO_EVDEV = N_("python-evdev is not installed: apt install python3-evdev (or pip install 'bornes[hid]')")


def _grab_problem(about: str, device: Any, path: str) -> Finding | None:
    """Grab the input device (an evdev ``InputDevice``) a moment, as the referee will: None when it is free."""
    name, ids = device.name, f"{device.info.vendor:04x}:{device.info.product:04x}"
    try:
        device.grab()
        device.ungrab()
    except OSError as error:
        if error.errno == errno.EBUSY:
            return Finding(WARN, about, _("{name} [{ids}] is held by another program (the referee, if it runs)").format(
                name=name, ids=ids))
        return Finding(FAIL, about, _("{name} [{ids}] cannot be grabbed: {reason}").format(
            name=name, ids=ids, reason=failure_words(DeviceFailure.of(error, path))))
    return None


def hid_finding(about: str, reader: ReaderConfig, *, desktop: bool = False) -> Finding:
    from bornes.drivers.readers.hid_device import HidUnavailable, evdev_module, resolve_device

    try:
        evdev = evdev_module()
    except HidUnavailable:
        return Finding(FAIL, about, _(NO_EVDEV))
    try:
        path = resolve_device(reader.port)
    except FileNotFoundError:
        return Finding(_unplugged(desktop), about, _("no such input device; plug it in, or find its /dev/input/by-id "
                                                     "name or {ids} with bornes scan-test --devices").format(ids=IDS))
    try:
        device = evdev.InputDevice(path)
    except PermissionError:
        return Finding(FAIL, about, _("{path}: permission denied; the udev rule (systemd/99-bornes-reader.rules) "
                                      "gives group bornes this one device").format(path=path))
    except OSError as error:
        return Finding(FAIL, about, _("cannot be opened: {reason}").format(
            reason=failure_words(DeviceFailure.of(error, path))))
    try:
        name, ids = device.name, f"{device.info.vendor:04x}:{device.info.product:04x}"
        problem = _grab_problem(about, device, path)
    finally:
        device.close()
    if problem is not None:
        return problem
    return Finding(OK, about, _("{name} [{ids}] on {path}, readable and free (keyboard layout {layout})").format(
        name=name, ids=ids, path=path, layout=reader.layout))


# -- RC522 readers on SPI -------------------------------------------------------------------------
# The device node must be there (SPI turned on), open for this user (group spi), and a chip must answer
# on it: VersionReg tells a genuine MFRC522 (0x91, 0x92) or a known clone (0x88, 0xB2) from nothing at all
# (0x00: MISO held low; 0xFF: floating). Reads only: the referee may be polling the same chip.


def _rc522_readers(config: Config) -> list[ReaderConfig]:
    found = [config.reader] if config.table_reader and config.reader.protocol == "rc522" else []
    return found + [pad.reader for pad in config.pads if pad.reader.protocol == "rc522"]


#: How SPI bus N is turned on, in the words of install.sh and of /boot/firmware/config.txt.
SPI_FIX = {0: "sudo systemd/install.sh --spi (dtparam=spi=on)",
           1: "sudo systemd/install.sh --spi1 (dtoverlay=spi1-3cs)"}


def rc522_finding(about: str, reader: ReaderConfig, *, desktop: bool = False) -> Finding:
    from bornes.drivers.readers.mfrc522 import CHIPS, CLONES, GAINS, NOTHING, RF_CFG, TX_CONTROL, VERSION, read_frame
    from bornes.drivers.readers.spidev import Spidev

    path = reader.port
    about = f"{about} {path}"
    if not os.path.exists(path):
        if not glob.glob(f"/dev/spidev{reader.bus}.*"):
            fix = SPI_FIX.get(reader.bus)
            said = (_("SPI{bus} is off: {fix}, then reboot").format(bus=reader.bus, fix=fix) if fix
                    else _("SPI{bus} is off: turn it on").format(bus=reader.bus))
            return Finding(_unplugged(desktop), about, said)
        return Finding(_unplugged(desktop), about, _("SPI{bus} has no chip select {device}: set the reader's device "
                                                     "(ls /dev/spidev{bus}.*)").format(bus=reader.bus,
                                                                                      device=reader.device))
    try:
        spi = Spidev(path)
    except PermissionError:
        return Finding(FAIL, about, _("permission denied: the service's user needs group spi "
                                      "(sudo systemd/install.sh --spi)"))
    except OSError as error:
        return Finding(FAIL, about, _("cannot be opened: {reason}").format(
            reason=failure_words(DeviceFailure.of(error, path))))
    try:
        version, gain, antenna = spi.transfer([read_frame(VERSION, RF_CFG, TX_CONTROL)])[0][1:]
    except OSError as error:
        return Finding(FAIL, about, _("SPI transfer failed: {reason}").format(
            reason=failure_words(DeviceFailure.of(error, path))))
    finally:
        spi.close()
    if version in NOTHING:
        return Finding(FAIL, about, _("nothing answers (VersionReg 0x{version:02X}): check the wiring (SDA to the chip "
                                      "select, SCK, MOSI, MISO, 3.3 V, GND) and the bus and device").format(
                                          version=version))
    said = (_("antenna gain {gain} dB, antenna on: the referee is polling it") if antenna & 0x03 == 0x03
            else _("antenna gain {gain} dB, antenna off: nothing polls it now")).format(gain=GAINS[(gain >> 4) & 0x07])
    if version not in CHIPS:
        return Finding(WARN, about, _("answers VersionReg 0x{version:02X}: no MFRC522 bornes knows (0x91, 0x92) nor a "
                                      "known clone (0x88, 0xB2); it may still read; {said}").format(version=version,
                                                                                                   said=said))
    chip = (_("{chip} (VersionReg 0x{version:02X}, a known clone); {said}") if version in CLONES
            else _("{chip} (VersionReg 0x{version:02X}, a genuine chip); {said}"))
    return Finding(OK, about, chip.format(chip=CHIPS[version], version=version, said=said))


# -- a table without a soldering iron: the USB keypad, the TV page, the chirps through the Pi's audio ---


def check_buttons(config: Config) -> Iterable[Finding]:
    """The USB keypad of ``[buttons] source = "hid"``: there, readable, free to grab, not the reader."""
    b = config.buttons
    if b.source != "hid":
        return
    about = topic("buttons", b.port)
    from bornes.drivers.readers.hid_device import HidUnavailable, evdev_module, resolve_device

    try:
        evdev = evdev_module()
    except HidUnavailable:
        yield Finding(FAIL, about, _(NO_EVDEV))
        return
    keymap = b.key_map
    try:
        path = resolve_device(b.port, keymap.accepts)
    except FileNotFoundError:  # missing is never OK; a laptop trying a key map types its keys instead
        desktop = is_desktop(config)
        said = (_("no such keypad; plug it in, or see bornes scan-test --devices; bornes run --emulate types its "
                  "keys meanwhile (docs/keypad.md)") if desktop
                else _("no such keypad; plug it in, or see bornes scan-test --devices (control cards work meanwhile)"))
        yield Finding(_unplugged(desktop), about, said)
        return
    readers = [config.reader.port] if config.table_reader and config.reader.protocol == "hid" else []
    readers += [pad.reader.port for pad in config.pads if pad.reader.protocol == "hid"]
    for port in readers:
        with contextlib.suppress(OSError, HidUnavailable):
            if os.path.realpath(resolve_device(port)) == os.path.realpath(path):
                yield Finding(FAIL, about, _("{path} is also the reader {port}: the keypad and the scanner are two "
                                             "devices (bornes scan-test --identify tells them apart)").format(
                                                 path=path, port=port))
                return
    try:
        device = evdev.InputDevice(path)
    except PermissionError:
        yield Finding(FAIL, about, _("{path}: permission denied; {command} gives group bornes this one "
                                     "device").format(path=path, command=f"sudo systemd/install.sh --keypad {IDS}"))
        return
    except OSError as error:
        yield Finding(FAIL, about, _("cannot be opened: {reason}").format(
            reason=failure_words(DeviceFailure.of(error, path))))
        return
    try:
        name, ids = device.name, f"{device.info.vendor:04x}:{device.info.product:04x}"
        has = set(device.capabilities().get(1, ()))
        problem = _grab_problem(about, device, path)
    finally:
        device.close()
    if problem is not None:
        yield problem
        return
    from bornes.drivers.keys import key_name
    from bornes.firmware.language.buttons import button_word, legend_words

    missing = [f"{button_word(button)} ({key_name(code)})" for code, button in keymap.pairs if code not in has]
    if missing:
        yield Finding(WARN, about, _("{name} [{ids}] has no key for {missing}: change them in [buttons.keys] "
                                     "(bornes scan-test --buttons names the keys it has)").format(
                                         name=name, ids=ids, missing=", ".join(missing)))
        return
    keys = "  ".join(f"{key}={button}" for key, button in legend_words(keymap.legend()))
    yield Finding(OK, about, _("{name} [{ids}] on {path}, readable and free; keys {keys}").format(
        name=name, ids=ids, path=path, keys=keys))


def check_screen(config: Config) -> Iterable[Finding]:
    """``[display] panel = "tv"``: where the screen goes, and what shows it."""
    if config.display.panel != "tv":
        return
    from bornes.firmware.appliance.config import control_path, tv_file

    # Where the referee keeps it: on a desktop, run --emulate's state folder (and bornes web looks there).
    where = tv_file(config, control_path(config, is_desktop(config), config.state.dir))
    try:
        import starlette  # noqa: F401  the web extra: bornes web serves the TV page
    except ImportError:
        yield Finding(FAIL, topic("tv"), _("the TV page needs bornes web: sudo systemd/install.sh --tv (or pip "
                                           "install 'bornes[web]')"))
        return
    if is_desktop(config):  # the very file bornes run --emulate writes and bornes web beside it reads
        yield Finding(OK, topic("tv"), _("bornes run --emulate keeps the panel's screens in {file}; bornes web "
                                         "beside it shows them at {url}").format(
                                             file=where, url=f"http://localhost:{config.web.port}/tv"))
        return
    host = _("<this Pi>") if config.web.host in ("0.0.0.0", "::", "") else config.web.host
    yield Finding(OK, topic("tv"), _("the panel's screens go to {file}; the TV page is {url} (bornes-kiosk.service "
                                     "shows it on the HDMI screen)").format(
                                         file=where, url=f"http://{host}:{config.web.port}/tv"))


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
        said = _("auto (no buzzer in the pin map: the Pi's audio)") if output == "auto" else output
        yield Finding(WARN, topic("sound"), _("output {output}, but {problem}: the table will be silent").format(
            output=said, problem=worded(problem)))
        return
    yield Finding(OK, topic("sound"), _("output audio through aplay on {device} (aplay -L lists the outputs)").format(
        device=config.sound.device))
