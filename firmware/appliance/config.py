"""The appliance's one TOML config file, validated at start.

A bad value must stop the referee before a game begins, with one line that names the key and
what it may be, and exit status 78 (EX_CONFIG) so systemd and a person both see why. Each field
says how it is checked beside its default (:mod:`bornes.firmware.appliance.tomlcheck`, shared with
the club's settings); what spans keys (a dealer within the players, a capture panel's folder) is
checked below. Nothing here touches hardware or creates files, so every command (``doctor``,
``history``…) can load the config safely; :func:`ensure_state_dir` is the one explicit side effect.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import logging
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bornes.drivers.errors import en_
from bornes.drivers.events import DeviceFailure
from bornes.drivers.parts import (
    BUTTON_SOURCES,
    CAMERA_SOURCES,
    DEFAULT_BAUDRATE,
    EMULATORS,
    HID_LAYOUTS,
    KEYMAP_NAMES,
    PROTOCOLS,
    SCREENS,
    SOUNDS,
    SPI_CHIP_SELECTS,
    SPI_PROTOCOLS,
)
from bornes.drivers.parts import PANELS as PANEL_SIZES
from bornes.engine import EDITIONS, MAX_NAME_LENGTH, OptionError, RuleOptions, check_name, check_names
from bornes.firmware.appliance.tomlcheck import (
    Checker,
    ConfigError,
    choice,
    default_path,
    flag,
    kind,
    parse_toml,
    path,
    read_text,
    seconds,
    show,
    text,
    whole,
)
from bornes.firmware.language.i18n import edition_language, language_choices, language_code

if TYPE_CHECKING:
    from bornes.drivers.camera.wire import CameraSettings
    from bornes.drivers.keypad import KeyMap
    from bornes.drivers.pins import PinMap

log = logging.getLogger("bornes.config")

DEFAULT_CONFIG_PATH = "/etc/bornes/config.toml"
CONFIG_ENV = "BORNES_CONFIG"

READER_PROTOCOLS = PROTOCOLS
BAUDRATES = (1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600)
PANELS = (*PANEL_SIZES, *EMULATORS, *SCREENS)
HARDWARE_PANELS = tuple(PANEL_SIZES)
INTERFACES = ("i2c", "spi")
PIN_FACTORIES = ("auto", "mock")
LOG_LEVELS = ("debug", "info", "warning", "error")
DEFAULT_NAMES = ("Anne", "Bruno", "Chloe", "David", "Emma", "Felix", "Gaby", "Hugo")
SAMPLE = "config/bornes.sample.toml"


def _default_pin_map() -> str:
    """The Pi's own /etc/bornes/pins.toml (install.sh puts it there to be edited) if it exists,
    else the map shipped with the program (wiring/pins.toml, package data in a wheel)."""
    from bornes.drivers.pins import DEFAULT_PATH

    etc = Path("/etc/bornes/pins.toml")
    return str(etc if etc.exists() else DEFAULT_PATH)


@dataclass(frozen=True, slots=True)
class ReaderConfig:
    """The card reader on a serial port."""

    protocol: str = choice("lines", READER_PROTOCOLS)
    port: str = text("/dev/bornes-reader")
    #: None means the protocol's usual speed (see :attr:`baud`); else one of :data:`BAUDRATES`.
    baudrate: int | None = whole(None, min(BAUDRATES), max(BAUDRATES))
    #: For ``lines`` readers (barcode scanners): text the scanner adds before and after each code.
    prefix: str = text("")
    suffix: str = text("")
    #: The same card read again within this many seconds is one tap, not two.
    double_read_window: float = seconds(1.5, 0.0, 10.0)
    #: Silence after which an RFID tag counts as gone from the field, so its next read is a new tap.
    quiet_gap: float = seconds(0.5, 0.01, 5.0)
    #: Longest wait between attempts to reopen a reader that went away.
    max_backoff: float = seconds(1.0, 0.1, 60.0)
    #: For ``hid`` readers (keyboard mode): the layout the reader types in, or ``auto``.
    layout: str = choice("auto", HID_LAYOUTS)
    #: For ``rc522`` readers (SPI): the bus and the chip select it is wired to, SPI0 CE0 by default;
    #: the port is then ``/dev/spidevBUS.DEVICE``.
    bus: int = whole(0, 0, max(SPI_CHIP_SELECTS))
    device: int = whole(0, 0, max(max(d) for d in SPI_CHIP_SELECTS.values()))

    @property
    def baud(self) -> int:
        """The speed actually used: the configured one, else the protocol's default."""
        return self.baudrate if self.baudrate is not None else DEFAULT_BAUDRATE[self.protocol]


@dataclass(frozen=True, slots=True)
class PadConfig:
    """A pile pad (``[pads.NAME]``): one more reader, lying at a seat (``A``–``H``), on the table
    (``table``) or by the discard pile (``discard``); see docs/readers.md, Pads."""

    name: str
    place: str
    reader: ReaderConfig


#: The default device of each camera source; a folder has none (it must be named).
CAMERA_DEVICES = {"v4l2": "/dev/video0", "picamera2": "0", "folder": ""}
#: The smallest play zone worth looking at: a card in it must still be some 60 pixels tall.
MIN_ZONE = 64


@dataclass(frozen=True, slots=True)
class CameraConfig:
    """A camera that reads the cards by what is printed on them (``[camera]``; docs/camera.md)."""

    source: str = choice("v4l2", CAMERA_SOURCES)
    #: v4l2: the webcam's device (a /dev/v4l/by-id/… name stays the same on any USB port); picamera2:
    #: the camera's number; folder: a folder of pictures or a video file (relative to the config file).
    device: str = ""
    #: The picture size asked of the camera; the recognizer is tuned for 640 x 480.
    width: int = whole(640, 160, 1920)
    height: int = whole(480, 120, 1080)
    #: Frames looked at a second: the watcher's rules are in seconds, so 5 to 15 read the same plays
    #: (docs/camera.md); fewer cost a Pi less. A folder or a video may go faster to test.
    fps: int = whole(10, 1, 100)
    #: The play zone in the picture, [x, y, width, height] in pixels; empty: the whole picture.
    zone: tuple[int, ...] = ()
    #: Where the taught card faces are kept; default: camera/ in the state folder.
    templates: str | None = path(None)

    def settings(self, state_dir: str | os.PathLike[str]) -> CameraSettings:
        """What the camera's process is started with."""
        from bornes.drivers.camera.wire import CameraSettings

        return CameraSettings(self.source, self.device, self.width, self.height, self.fps, self.zone,
                              self.templates or str(Path(state_dir) / "camera"))


@dataclass(frozen=True, slots=True)
class DisplayConfig:
    """The OLED panel, or one of its desktop twins."""

    panel: str = choice("ssd1306", PANELS)
    interface: str = choice("i2c", INTERFACES)
    i2c_port: int = whole(1, 0, 255)
    #: Written 0x3C or 60 in the file.
    i2c_address: int = whole(0x3C, 0x03, 0x77)
    spi_port: int = whole(0, 0, 6)
    spi_device: int = whole(0, 0, 3)
    #: SPI only: the BCM GPIOs of the panel's D/C and RESET lines.
    spi_dc: int = whole(24, 2, 27)
    spi_reset: int = whole(25, 2, 27)
    rotate: int = whole(0, 0, 3)
    capture_dir: str | None = path(None)
    gif_path: str | None = path(None)
    #: ``panel = "tv"``: the file the referee keeps its screen in for the TV page (``bornes web``'s
    #: ``/tv``); None: ``tv.json`` beside the control socket (docs/tv.md).
    tv_file: str | None = path(None)
    #: Longest wait between attempts to reach a panel that stopped answering (pulled out, a loose wire).
    max_backoff: float = seconds(5.0, 0.5, 60.0)

    @property
    def is_hardware(self) -> bool:
        return self.panel in HARDWARE_PANELS


@dataclass(frozen=True, slots=True)
class PinsConfig:
    """Where the button/LED/buzzer pin map lives and which gpiozero pin factory drives it."""

    map: str = default_path(_default_pin_map)
    factory: str = choice("auto", PIN_FACTORIES)


@dataclass(frozen=True, slots=True)
class SoundConfig:
    muted: bool = flag(False)
    #: Where the chirps go: ``buzzer`` (the pin map's), ``audio`` (the Pi's sound output, through
    #: ALSA's aplay), ``page`` (the TV page's browser), ``none``; ``auto``: the buzzer if the pin map
    #: has one, else the Pi's audio if it has a sound card.
    output: str = choice("auto", ("auto", *SOUNDS))
    #: ``audio``: the ALSA device aplay plays on (``aplay -L`` lists them; the TV's speakers on a Pi:
    #: ``hdmi:CARD=vc4hdmi0,DEV=0``).
    device: str = text("default")


@dataclass(frozen=True, slots=True)
class ButtonsConfig:
    """Where the table's buttons come from: the pin map's GPIO buttons, or a USB keypad (docs/keypad.md)."""

    #: ``gpio``: the buttons of the pin map; ``hid``: a USB keypad, macro pad or keyboard.
    source: str = choice("gpio", BUTTON_SOURCES)
    #: ``hid``: the keypad, as ``/dev/input/by-id/…-event-kbd`` or ``vvvv:pppp`` (bornes scan-test --devices).
    port: str = text("")
    #: ``hid``: the key map to start from: ``numpad`` (a numeric keypad) or ``pad6`` (a 6-key pad typing 1-6).
    keymap: str = choice("numpad", KEYMAP_NAMES)
    #: ``[buttons.keys]``: key name -> button (or "none"), changing the key map; checked at load.
    keys: Mapping[str, str] = field(default_factory=dict)
    #: Longest wait between attempts to reopen a keypad that went away.
    max_backoff: float = seconds(1.0, 0.1, 60.0)

    @property
    def key_map(self) -> KeyMap:
        """The keys of this table's buttons (the config loader has checked that they make one)."""
        from bornes.drivers.keypad import keymap_from

        return keymap_from(self.keymap, self.keys)


@dataclass(frozen=True, slots=True)
class GameConfig:
    """What a new game starts with unless the table chooses otherwise."""

    edition: str = "winning-moves"
    players: int = 4
    names: tuple[str, ...] = DEFAULT_NAMES
    dealer: int = 0
    #: Rule-option overrides as text, already validated against the edition.
    options: Mapping[str, str] = field(default_factory=dict)

    def rule_options(self) -> RuleOptions:
        """The edition's preset with this table's overrides applied."""
        return EDITIONS[self.edition].options.with_strings(self.options)


@dataclass(frozen=True, slots=True)
class StateConfig:
    #: Where the game journal lives (systemd's StateDirectory).
    dir: str = path("/var/lib/bornes")
    #: Keep only the newest N games in the journal, archiving older ones as records (0: keep all).
    keep_games: int = whole(0, 0, 1_000_000)


@dataclass(frozen=True, slots=True)
class LogConfig:
    level: str = choice("info", LOG_LEVELS)


@dataclass(frozen=True, slots=True)
class TableConfig:
    #: The language of the panel and the web pages (``en`` or ``fr``); None means the edition's:
    #: French for the French editions (``dujardin``, ``1000-bornes``), English for the others.
    language: str | None = None


@dataclass(frozen=True, slots=True)
class ControlConfig:
    #: The referee's Unix socket for setups proposed from a phone (docs/web.md).
    socket: str = path("/run/bornes/control.sock")


@dataclass(frozen=True, slots=True)
class WebConfig:
    """``bornes web``: the phone pages (a separate process; docs/web.md)."""

    host: str = text("0.0.0.0")
    port: int = whole(8080, 1, 65535)
    #: Where phones reach the pages, for the panel's QR code ("http://table1.local:8080/"); empty:
    #: this machine's address on its network. Never taken from a request (docs/web.md).
    url: str = text("")


@dataclass(frozen=True, slots=True)
class Config:
    reader: ReaderConfig = field(default_factory=ReaderConfig)
    display: DisplayConfig = field(default_factory=DisplayConfig)
    pins: PinsConfig = field(default_factory=PinsConfig)
    sound: SoundConfig = field(default_factory=SoundConfig)
    buttons: ButtonsConfig = field(default_factory=ButtonsConfig)
    game: GameConfig = field(default_factory=GameConfig)
    state: StateConfig = field(default_factory=StateConfig)
    log: LogConfig = field(default_factory=LogConfig)
    table: TableConfig = field(default_factory=TableConfig)
    control: ControlConfig = field(default_factory=ControlConfig)
    web: WebConfig = field(default_factory=WebConfig)
    #: The pile pads, in the file's order (none: the table's one reader is the whole story).
    pads: tuple[PadConfig, ...] = ()
    #: The camera that reads unmarked cards (``[camera]``), or None: no camera.
    camera: CameraConfig | None = None
    #: Whether ``[reader]`` is a reader to open: yes unless the file has pads and no [reader].
    table_reader: bool = field(default=True, compare=False)
    #: Whether the file has a ``[reader]`` section (a reader someone set up, not the defaults).
    reader_given: bool = field(default=False, compare=False)
    #: The file this came from; None when no file was found and defaults are in use.
    source: str | None = field(default=None, compare=False)
    #: The file's [game] names the table (edition and players): setup opens on its one-press summary.
    table_named: bool = field(default=False, compare=False)

    def load_pin_map(self) -> PinMap:
        """The pin map of ``pins.map``, checked against the display this config drives: the one
        loader the referee, ``bornes doctor`` and the wiring documents use."""
        from bornes.drivers.pins import load

        readers = ([self.reader] if self.table_reader else []) + [pad.reader for pad in self.pads]
        rc522 = tuple((r.bus, r.device) for r in readers if r.protocol in SPI_PROTOCOLS)
        return load(self.pins.map, display=self.display if self.display.is_hardware else None, rc522=rc522)


SECTIONS: dict[str, type[Any]] = {
    "reader": ReaderConfig,
    "display": DisplayConfig,
    "pins": PinsConfig,
    "sound": SoundConfig,
    "buttons": ButtonsConfig,
    "game": GameConfig,
    "state": StateConfig,
    "log": LogConfig,
    "table": TableConfig,
    "control": ControlConfig,
    "web": WebConfig,
}

def control_path(config: Config, emulate: bool, state_dir: os.PathLike[str] | str) -> str:
    """The control socket's path; under ``--emulate``, the state folder's (a laptop has no /run/bornes of ours)."""
    if emulate and config.control.socket == ControlConfig().socket:
        return os.path.join(state_dir, "control.sock")
    return config.control.socket


def tv_file(config: Config, control_socket: str | os.PathLike[str]) -> Path:
    """Where the referee keeps its screen for the TV page (``[display] panel = "tv"``): ``[display]
    tv_file``, else ``tv.json`` beside the control socket in use (the referee's runtime folder, which
    ``bornes web`` reads too). The chirps for the page (``[sound] output = "page"``) go beside it."""
    if config.display.tv_file:
        return Path(config.display.tv_file)
    return Path(control_socket).parent / "tv.json"


def table_language(config: Config) -> str:
    """The language of the panel and pages: ``[table] language``, else the edition's own."""
    if config.table.language:
        return config.table.language
    return edition_language(config.game.edition)


# -- loading ------------------------------------------------------------------------------------


def config_path(path: str | None) -> tuple[str, bool]:
    """The file to read and whether a person chose it (so its absence is an error)."""
    if path:
        return path, True
    env = os.environ.get(CONFIG_ENV)
    if env:
        return env, True
    return DEFAULT_CONFIG_PATH, False


def load_config(path: str | None = None) -> Config:
    """Read and validate the config; raise :class:`ConfigError` (one line, exit 78) on any problem."""
    chosen, explicit = config_path(path)
    text = read_text(chosen, "config", explicit=explicit, sample=SAMPLE)
    if text is None:
        log.warning("no config file at %s; using the defaults", chosen)
        return Config()
    return parse_config(text, chosen, base_dir=Path(chosen).resolve().parent)


def parse_config(text: str, name: str = "<config>", base_dir: Path | None = None) -> Config:
    """Validate TOML text. Relative paths in it are taken relative to ``base_dir`` (the file's folder)."""
    where = f"config {name}"
    return _Validator(where, base_dir, name).config(parse_toml(text, where))


def add_config_argument(parser: argparse.ArgumentParser) -> None:
    """The ``--config PATH`` option every appliance command shares."""
    parser.add_argument(
        "--config",
        metavar="PATH",
        help=f"config file (default: ${CONFIG_ENV} or {DEFAULT_CONFIG_PATH})",
    )


def ensure_state_dir(config: Config) -> Path:
    """Create the state directory if needed and prove it is writable, before any game starts."""
    where = Path(config.state.dir)
    if os.path.lexists(where) and not where.is_dir():
        raise ConfigError(f"config {config.source or DEFAULT_CONFIG_PATH}: state.dir = {where}: is not a folder")
    try:
        where.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=where, prefix=".write-test-"):
            pass
    except OSError as error:
        reason = error.strerror or str(error)
        raise ConfigError(f"config {config.source or DEFAULT_CONFIG_PATH}: state.dir = {where}: {reason}") from None
    return where


def state_dir_problem(where: Path) -> str | None:
    """Why ``run`` could not create or write ``where`` (None if it could); whatever this creates, it removes.
    English, and a :class:`~bornes.drivers.errors.Said` ``bornes doctor`` says in the table's language."""
    made: list[Path] = []
    missing = where
    while not missing.exists() and missing != missing.parent:
        made.insert(0, missing)
        missing = missing.parent
    if missing == where and not where.is_dir():
        return en_("is not a folder")
    try:
        if not missing.is_dir():
            return en_("does not exist and cannot be created: {folder} is not a folder", folder=missing)
        for folder in made:
            folder.mkdir()
        with tempfile.NamedTemporaryFile(dir=where, prefix=".doctor-"):
            pass
    except OSError as error:
        reason = DeviceFailure.of(error, str(error.filename or where))  # "… permission denied", in the table's words
        return en_("does not exist and cannot be created: {reason}", reason=reason) if made else \
            en_("not writable: {reason}", reason=reason)
    finally:
        for folder in reversed(made):
            with contextlib.suppress(OSError):
                folder.rmdir()
    return None


def readable_state_dir(config: Config) -> Path | None:
    """The state folder a reader (history, export) reads games from; None when it does not exist yet
    (no game was ever played). A ``state.dir`` the referee could not use is the config's fault (78),
    said as ``run`` says it, so the two never disagree."""
    where = Path(config.state.dir)
    if where.is_dir():
        return where
    problem = state_dir_problem(where)
    if problem is not None:
        raise ConfigError(f"config {config.source or DEFAULT_CONFIG_PATH}: state.dir = {where}: {problem}")
    return None


# -- validation: what spans keys; each key's own check is on its field ------------------------------

#: The sections made by their fields' rules alone.
PLAIN_SECTIONS = ("pins", "sound", "state", "log", "control", "web")


class _Validator(Checker):
    """Turns the parsed TOML tables into the dataclasses, failing on the first bad key."""

    def __init__(self, where: str, base_dir: Path | None, name: str) -> None:
        super().__init__(where, base_dir)
        self.name = name

    def config(self, data: Mapping[str, Any]) -> Config:
        self.check_sections(data, [*SECTIONS, "pads", "camera"])
        for section, cls in SECTIONS.items():
            self.check_keys(section, data.get(section, {}), [f.name for f in dataclasses.fields(cls)])
        pads = self.pads(data.get("pads", {}))
        plain = {name: self.section(SECTIONS[name], data.get(name, {}), name) for name in PLAIN_SECTIONS}
        reader = self.reader(data.get("reader", {}))
        camera = self.camera(data["camera"]) if "camera" in data else None
        table_reader = "reader" in data or not (pads or camera)
        readers = ([("reader.port", reader.port)] if table_reader else []) + \
            [(f"pads.{pad.name}.port", pad.reader.port) for pad in pads]
        return Config(
            pads=pads,
            camera=camera,
            table_reader=table_reader,
            reader_given="reader" in data,
            reader=reader,
            buttons=self.buttons(data.get("buttons", {}), readers),
            display=self.display(data.get("display", {})),
            game=self.game(data.get("game", {})),
            table=TableConfig(language=self.language(data.get("table", {}))),
            source=self.name,
            table_named={"edition", "players"} <= set(data.get("game", {})),
            **plain,
        )

    def language(self, t: Mapping[str, Any]) -> str | None:
        """``[table] language``: a code, a locale or a name ("fr", "FR", "fr_FR", "French"), kept as its code."""
        written = self.string(t, "table", "language", None)
        if written is None:
            return None
        code = language_code(written)
        if code is None:
            raise self.bad("table.language", written, f"is not a language the table speaks; choose "
                                                      f"{language_choices()}, or leave it out for the edition's")
        return code

    def reader(self, t: Mapping[str, Any], s: str = "reader") -> ReaderConfig:
        if t.get("protocol") in SPI_PROTOCOLS:
            return self.spi_reader(t, s)
        for key in ("bus", "device"):
            if key in t:
                raise self.fail(f"{s}.{key} is for a reader on SPI (protocol = \"rc522\"); this one is "
                                f"{t.get('protocol', 'lines')}: name its port")
        baud = t.get("baudrate")
        if baud is not None and not isinstance(baud, bool) and isinstance(baud, int) and baud not in BAUDRATES:
            raise self.bad(f"{s}.baudrate", baud, f"is not one of {', '.join(map(str, BAUDRATES))}")
        config = self.section(ReaderConfig, t, s)
        if not config.port.strip():
            raise self.bad(f"{s}.port", config.port, "is empty; give a device like /dev/ttyUSB0 or /dev/bornes-reader")
        return config

    def spi_reader(self, t: Mapping[str, Any], s: str) -> ReaderConfig:
        """An RC522 (``protocol = "rc522"``): named by ``bus`` and ``device``, its port made from them."""
        for key, why in (("port", "is named by bus and device (SPI0 CE0: bus = 0, device = 0)"),
                         ("baudrate", "runs its SPI clock at 1 MHz; leave baudrate out")):
            if key in t:
                raise self.fail(f"{s}.{key}: an RC522 {why}")
        config = self.section(ReaderConfig, t, s)
        selects = SPI_CHIP_SELECTS.get(config.bus)
        if selects is None:
            raise self.bad(f"{s}.bus", config.bus, f"is not an SPI bus of the header; choose "
                                                   f"{' or '.join(map(str, SPI_CHIP_SELECTS))}")
        if config.device not in selects:
            raise self.bad(f"{s}.device", config.device, f"is not a chip select of SPI{config.bus}; choose "
                                                         f"{', '.join(map(str, selects))}")
        return dataclasses.replace(config, port=f"/dev/spidev{config.bus}.{config.device}")

    def pads(self, value: object) -> tuple[PadConfig, ...]:
        """``[pads.NAME]`` tables: a reader's keys plus ``place`` (default: NAME, if it is a place)."""
        from bornes.drivers.events import PAD_PLACES, pad_place

        if not isinstance(value, dict):
            raise self.bad("pads", value, "should be tables like [pads.A], not " + kind(value))
        known = [*(f.name for f in dataclasses.fields(ReaderConfig)), "place"]
        found: list[PadConfig] = []
        for name, table in value.items():
            section = f"pads.{name}"
            if not isinstance(table, dict):
                raise self.bad(section, table, f"should be a table [{section}], not {kind(table)}")
            self.check_keys(section, table, known)
            place_text = self.string(table, section, "place", name)
            place = pad_place(place_text)
            if place is None:
                raise self.bad(f"{section}.place", place_text, f"is not one of {', '.join(PAD_PLACES)}")
            reader = self.reader({k: v for k, v in table.items() if k != "place"}, section)
            found.append(PadConfig(str(name), place, reader))
        ports: dict[str, str] = {}
        for pad in found:
            other = ports.setdefault(pad.reader.port, pad.name)
            if other != pad.name and pad.reader.protocol in SPI_PROTOCOLS:
                raise self.fail(f"pads.{pad.name}: bus {pad.reader.bus}, device {pad.reader.device} is also "
                                f"pads.{other}'s RC522; each needs its own chip select")
            if other != pad.name:
                raise self.bad(f"pads.{pad.name}.port", pad.reader.port, f"is also the port of pads.{other}")
        return tuple(found)

    def camera(self, t: Mapping[str, Any]) -> CameraConfig:
        """``[camera]``: the keys' own checks, then what spans them (the device a source needs, the zone
        inside the picture)."""
        s = "camera"
        self.check_keys(s, t, [f.name for f in dataclasses.fields(CameraConfig)])
        zone = t.get("zone", [])
        config = self.section(CameraConfig, {k: v for k, v in t.items() if k not in ("device", "zone")}, s,
                              device="", zone=())
        device = self.string(t, s, "device", CAMERA_DEVICES[config.source])
        if not device.strip():
            what = "a folder of pictures or a video file" if config.source == "folder" else "a device"
            raise self.fail(f'camera.device is needed with source = "{config.source}": {what}')
        if config.source == "folder":
            device = self.path(t, s, "device", device)
        elif config.source == "picamera2" and not device.isdigit():
            raise self.bad("camera.device", device, "is not a Pi camera's number (0, or 1 on a Pi 5 with two)")
        if not isinstance(zone, list) or not all(isinstance(n, int) and not isinstance(n, bool) for n in zone) \
                or len(zone) not in (0, 4):
            raise self.bad("camera.zone", zone, "is not [x, y, width, height] in pixels (or [] for the whole picture)")
        if zone:
            x, y, w, h = zone
            if min(zone) < 0 or w < MIN_ZONE or h < MIN_ZONE:
                raise self.bad("camera.zone", zone, f"is too small or negative; width and height {MIN_ZONE} or more")
            if x + w > config.width or y + h > config.height:
                raise self.bad("camera.zone", zone, f"reaches past the {config.width}x{config.height} picture "
                                                    "(camera.width, camera.height)")
        return dataclasses.replace(config, device=device, zone=tuple(zone))

    def buttons(self, t: object, readers: list[tuple[str, str]]) -> ButtonsConfig:
        """``[buttons]``, its ``[buttons.keys]`` made into a key map, and a keypad that is none of ``readers``
        (their config keys and ports)."""
        if not isinstance(t, dict):
            raise self.bad("buttons", t, "should be a table [buttons], not " + kind(t))
        changes = t.get("keys", {})
        if not isinstance(changes, dict):
            raise self.bad("buttons.keys", changes, 'should be a table [buttons.keys] of key = "BUTTON", not '
                           + kind(changes))
        for key, value in changes.items():
            if not isinstance(value, str):
                raise self.bad(f"buttons.keys.{key}", value, 'should be a button name like "OK", or "none"')
        config = self.section(ButtonsConfig, {k: v for k, v in t.items() if k != "keys"}, "buttons",
                              keys=dict(changes))
        if config.keys or config.source == "hid":  # a table with wired buttons loads no key map
            from bornes.drivers.keypad import KeyMapError, keymap_from

            try:
                keymap_from(config.keymap, config.keys)
            except KeyMapError as error:
                raise self.fail(f"buttons.keys{'.' + error.key if error.key else ''} {error}") from None
        if config.source == "hid":
            if not config.port.strip():
                raise self.fail('buttons.source = "hid" needs buttons.port: the keypad\'s /dev/input/by-id/… '
                                "name or vendor:product (bornes scan-test --devices lists them)")
            for key, port in readers:
                if port.strip().lower() == config.port.strip().lower():
                    raise self.bad("buttons.port", config.port, f"is also {key}: the keypad and the reader must be "
                                   "two devices")
        return config

    def display(self, t: Mapping[str, Any]) -> DisplayConfig:
        address: Any = t.get("i2c_address")
        if isinstance(address, str):
            try:
                t = {**t, "i2c_address": int(address, 0)}
            except ValueError:
                raise self.bad("display.i2c_address", address, "is not an address like 0x3C or 60") from None
        config = self.section(DisplayConfig, t, "display")
        for key, value, want_dir in (("capture_dir", config.capture_dir, True), ("gif_path", config.gif_path, False)):
            if value is not None and os.path.exists(value) and os.path.isdir(value) != want_dir:
                what = "a file, not a folder" if want_dir else "a folder, not a file"
                raise self.bad(f"display.{key}", value, f"is {what}")
        if config.panel == "capture" and config.capture_dir is None:
            raise self.fail('display.panel = "capture" needs display.capture_dir (a folder for the PNG frames)')
        if config.panel == "gif" and config.gif_path is None:
            raise self.fail('display.panel = "gif" needs display.gif_path (the animated GIF to write)')
        return config

    def game(self, t: Mapping[str, Any]) -> GameConfig:
        s, d = "game", GameConfig()
        edition_name = self.choice(t, s, "edition", d.edition, list(EDITIONS))
        edition = EDITIONS[edition_name]
        players = self.integer(t, s, "players", d.players, 2, 8)
        if players not in edition.seat_counts:
            counts = ", ".join(map(str, edition.seat_counts))
            raise self.bad("game.players", players, f"is not one of {counts} (the seat counts of {edition_name})")
        names = self.names(t, players)
        dealer = self.integer(t, s, "dealer", d.dealer, 0, 7)
        if dealer >= players:
            raise self.bad("game.dealer", dealer, f"is out of range; allowed 0 to {players - 1} (a seat number)")
        return GameConfig(
            edition=edition_name,
            players=players,
            names=names,
            dealer=dealer,
            options=self.options(t.get("options", {}), edition_name),
        )

    def names(self, t: Mapping[str, Any], players: int) -> tuple[str, ...]:
        if "names" not in t:
            return DEFAULT_NAMES
        value = t["names"]
        if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
            raise self.bad("game.names", value, 'is not a list of names like ["Anne", "Bruno"]')
        for name in value:
            if check_name(name) is not None:  # the engine's rule for names, the one the table applies
                raise self.bad(
                    "game.names",
                    value,
                    f"has the name {show(name)}; names are 1 to {MAX_NAME_LENGTH} printable characters"
                    ' without ; or "',
                )
        if check_names(value) is not None:
            raise self.bad("game.names", value, "has the same name twice")
        if len(value) < players:
            raise self.bad(
                "game.names",
                value,
                f"has {len(value)} name{'s' if len(value) != 1 else ''} but game.players = {players}",
            )
        return tuple(value)

    def options(self, value: object, edition_name: str) -> dict[str, str]:
        if not isinstance(value, dict):
            raise self.bad("game.options", value, f"should be a table [game.options], not {kind(value)}")
        texts: dict[str, str] = {}
        for key, item in value.items():
            if isinstance(item, bool):
                texts[key] = "yes" if item else "no"
            elif isinstance(item, int | str):
                texts[key] = str(item)
            elif isinstance(item, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in item):
                texts[key] = ",".join(map(str, item)) or "none"
            else:
                raise self.bad(f"game.options.{key}", item, f"is {kind(item)}; give a boolean, number or string")
            try:
                EDITIONS[edition_name].options.with_strings({key: texts[key]})
            except OptionError as error:
                raise self.bad(f"game.options.{key}", item, f"is not valid: {error}") from None
        return texts
