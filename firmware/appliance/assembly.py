"""Open everything the referee needs from the config file, and close it all again.

The same code runs on the Pi and on a laptop: the config (or ``--emulate``) picks the
mock pin factory and a desktop display twin instead of the real ones.
"""

from __future__ import annotations

import logging
import os
import queue
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bornes.drivers.errors import EX_CONFIG, UserError
from bornes.firmware.appliance.config import HARDWARE_PANELS, Config, control_path, ensure_state_dir, tv_file
from bornes.firmware.appliance.heap import release_freed_heap
from bornes.firmware.appliance.referee import Referee
from bornes.firmware.language.i18n import N_, Phrase, _
from bornes.firmware.storage.journal import Journal, JournalCorrupt, JournalError, headroom
from bornes.firmware.storage.store import JournalStore
from bornes.firmware.table.flow import TableFlow

if TYPE_CHECKING:
    from bornes.drivers.buttons import Buttons
    from bornes.drivers.camera.reader import CameraReader
    from bornes.drivers.display import Display
    from bornes.drivers.feedback import Feedback
    from bornes.drivers.readers import SerialReader
    from bornes.drivers.wired import WiredParts

log = logging.getLogger("bornes")


def desktop_panel() -> str:
    """The display twin for a machine without a Pi: a window, else the terminal, else nothing."""
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return "pygame"
    return "terminal" if sys.stdout.isatty() else "dummy"


def held_buttons(config: Config, pin_map: Any, events: queue.Queue[Any], pin_factory: Any,
                 keypad_port: Any = None) -> Any:
    """The table's buttons on ``events``: the pin map's GPIO buttons, or the USB keypad (``[buttons]``)."""
    if config.buttons.source == "hid":
        from bornes.drivers.keypad import holds_of, open_keypad

        b = config.buttons
        return open_keypad(b.port, events, b.key_map, holds_of(pin_map), max_backoff=b.max_backoff,
                           serial_factory=keypad_port)
    from bornes.drivers.buttons import Buttons

    return Buttons(pin_map, events, pin_factory=pin_factory)


def sound_output(config: Config, pin_map: Any) -> str:
    """Where the chirps go: ``[sound] output``, with ``auto`` made the buzzer when the pin map has one,
    else the Pi's audio when it has a sound card, else nowhere (said once in the log)."""
    output = config.sound.output
    if output != "auto":
        return output
    if pin_map.buzzer is not None:
        return "buzzer"
    from bornes.drivers.sound import sound_card_problem

    problem = sound_card_problem()
    if problem is None:
        return "audio"
    log.warning("sound: no buzzer in the pin map and %s: the table is silent", problem)
    return "none"


def open_chirps(config: Config, output: str, tv: Path) -> Any:
    """The sound output for ``audio`` (aplay on ``[sound] device``) or ``page`` (the TV page); None otherwise."""
    from bornes.drivers.feedback import Pattern
    from bornes.drivers.sound import AlsaChirps, PageSounds

    if output == "audio":
        return AlsaChirps(list(Pattern), config.sound.device)
    if output == "page":
        return PageSounds(tv.with_name("tv-sound.json"))
    return None


def open_display_from_config(config: Config, panel: str | None = None, *, tv: Path | None = None) -> Display:
    from bornes.drivers.display import open_display

    d = config.display
    chosen = panel or d.panel
    options: dict[str, Any] = {
        "i2c_port": d.i2c_port,
        "i2c_address": d.i2c_address,
        "spi_port": d.spi_port,
        "spi_device": d.spi_device,
        "spi_dc": d.spi_dc,
        "spi_reset": d.spi_reset,
        "rotate": d.rotate,
        "max_backoff": d.max_backoff,
    }
    if d.capture_dir:
        options["capture_dir"] = d.capture_dir
    if d.gif_path:
        options["gif_path"] = d.gif_path
    if tv is not None:
        options["tv_file"] = str(tv)
    if chosen not in HARDWARE_PANELS and d.panel == "ssd1322":
        options["emulated"] = "ssd1322"  # a desktop twin of the wide panel
    return open_display(chosen, d.interface, **options)


class IntegrityWatch:
    """The whole-file journal check that start no longer runs: in a thread, on a read-only connection.

    Opening checks only what resuming needs (O(game in progress)); this checks every page, game
    and action a while after start and then daily, without holding up a card (WAL readers never
    block the writer). Damage is logged and shown on the panel; nothing is changed.
    """

    FIRST_DELAY = 600.0  # seconds after start: let the table get going first
    INTERVAL = 24 * 3600.0

    def __init__(self, state_dir: Any, flow: TableFlow) -> None:
        self.state_dir = state_dir
        self.flow = flow
        self.checks = 0
        self.problem: str | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="integrity", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        delay = self.FIRST_DELAY
        while not self._stop.wait(delay):
            self.check()
            delay = self.INTERVAL

    def check(self) -> None:
        try:
            with Journal.open(self.state_dir, readonly=True) as journal:
                games = journal.verify()
            log.info("journal check: %d games, all sound", games)
        except JournalCorrupt as error:
            self.problem = str(error)
            log.error("journal check: %s", error)
            self.flow.ui.status = _("Journal damaged")  # doctor says where; the text fits
        except JournalError as error:  # busy, unreadable: try again next time
            log.warning("journal check skipped: %s", error)
        # Reading every page filled a page cache in this thread's own malloc arena; it is freed now, but
        # glibc would keep it for this thread, which next runs tomorrow (the soak's one step of RSS).
        release_freed_heap()
        self.checks += 1

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=1)


class StorageWatch:
    """Free space where the journal lives, checked at start and every minute: the panel warns while
    about :data:`~bornes.firmware.storage.journal.LOW_SPACE` is left, long before a card is refused."""

    INTERVAL = 60.0

    def __init__(self, state_dir: Any, flow: TableFlow) -> None:
        self.state_dir = state_dir
        self.flow = flow
        self.low = False
        self._stop = threading.Event()
        self.check()
        self._thread = threading.Thread(target=self._loop, name="storage", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(self.INTERVAL):
            self.check()

    def check(self) -> None:
        try:
            room = headroom(self.state_dir)
        except OSError as error:
            log.warning("free space not known: %s", error.strerror or error)
            return
        warning = _("Storage nearly full")
        if room.low:
            if not self.low:
                log.warning("storage nearly full at %s: %s", self.state_dir, room.describe())
            if self.flow.ui.status is None:  # shown again once a passing status (reader lost) clears
                self.flow.ui.status = warning
        elif self.low and self.flow.ui.status == warning:
            self.flow.ui.status = None
        self.low = room.low

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=1)


class Appliance:
    """Journal, table flow, buttons, buzzer/LEDs, display and reader, wired to one queue."""

    def __init__(
        self,
        config: Config,
        *,
        emulate: bool = False,
        panel: str | None = None,
        with_reader: bool = True,
        journal: Journal | None = None,
        control: bool = False,
        with_camera: bool | None = None,
        keypad_port: Any = None,
        with_keypad: bool = True,
    ) -> None:
        self.config = config
        #: Open the USB keypad ``[buttons]`` names; False (``run --emulate`` without ``--keypad``): its keys
        #: are typed on the console instead, and the table still names its buttons by those keys.
        self.with_keypad = with_keypad
        #: Opens the keypad's device (tests hand recorded events in); None: the grabbed evdev device.
        self.keypad_port = keypad_port
        self.events: queue.Queue[Any] = queue.Queue()
        self._closers: list[Any] = []
        self.reader: SerialReader | None = None
        self.readers: list[SerialReader] = []
        self.camera: CameraReader | None = None
        self.buttons: Buttons | None = None
        self.keypad: SerialReader | None = None
        self.feedback: Feedback | None = None
        self.display: Display | None = None
        self.wired: WiredParts | None = None
        if with_camera is None:
            with_camera = with_reader
        try:
            self._open(emulate, panel, with_reader, journal, control, with_camera)
        except BaseException:
            self.close()
            raise

    def _open(
        self, emulate: bool, panel: str | None, with_reader: bool, journal: Journal | None, control: bool,
        with_camera: bool,
    ) -> None:
        from bornes.drivers.pins import lgpio_drives_the_pins, make_pin_factory

        config = self.config
        state_dir = ensure_state_dir(config)
        self.journal = journal or Journal.open(state_dir)
        self._closers.append(self.journal)
        self.store = JournalStore(self.journal)
        game = self.store.resume()
        if game is not None:
            log.info("resumed game in progress: hand %d, %d actions", game.state.hand.number, len(game.log),
                     extra={"said": Phrase(N_("resumed game in progress: hand {hand}, {count} actions"),
                                           hand=game.state.hand.number, count=len(game.log))})
        g = config.game
        self.flow = TableFlow(
            edition=g.edition,
            players=g.players,
            names=tuple(g.names),
            dealer=g.dealer,
            options=g.rule_options(),
            store=self.store,
            game=game,
            configured=config.table_named,
        )
        if game is not None:
            log.info("%s", self.flow.announce_resume().message)
        pin_map = config.load_pin_map()
        tv = tv_file(config, self._control_path(emulate, state_dir))  # the TV page's screen and sounds
        factory_name = "mock" if emulate or config.pins.factory == "mock" else None
        factory: Any = None
        if factory_name is None and lgpio_drives_the_pins():
            self._open_wired(pin_map, tv)
            # The pin map's chip, found by its label; None while it is not there.
            factory = self.wired.factory if self.wired is not None else None
        else:
            factory = make_pin_factory(factory_name)
            self._open_pins(pin_map, tv, factory)
        if config.buttons.source == "hid":
            self._open_keypad(pin_map)
        if emulate and config.display.is_hardware and panel is None:
            panel = desktop_panel()
        self.display = open_display_from_config(config, panel, tv=tv)
        self._closers.append(self.display)
        # Without the chip (never on a Pi's header) the RC522s start unreset: each reader sets its chip up anyway.
        if with_reader and pin_map.rc522 and pin_map.reader.reset is not None and factory is not None:
            from bornes.drivers.readers.rc522 import ResetLine

            self._closers.append(ResetLine(pin_map.reader.reset, factory))  # every RC522 from its reset state
        if with_reader:
            from bornes.drivers.readers import BindingTable, bindings_path
            from bornes.firmware.appliance.reader_options import open_table_readers

            bindings = self._bindings(BindingTable, bindings_path(state_dir))
            self.readers = open_table_readers(config, self.events, bindings)  # [reader] and the pads
            self._closers.extend(self.readers)
            self.reader = self.readers[0] if self.readers else None
        if with_camera and config.camera is not None:
            self._open_camera(state_dir)
        self.referee = Referee(self.flow, self.events, display=self.display, feedback=self.feedback,
                               upkeep=self.journal.upkeep)
        self.integrity = IntegrityWatch(state_dir, self.flow)
        self._closers.append(self.integrity)
        self.storage = StorageWatch(state_dir, self.flow)
        self._closers.append(self.storage)
        if control:
            self._open_control(emulate, state_dir)

    def _open_pins(self, pin_map: Any, tv: Path, factory: Any) -> None:
        """Buttons, buzzer and LEDs on a factory opened once: gpiozero's mock, or its own pick where lgpio is not."""
        from bornes.drivers.buttons import Buttons
        from bornes.drivers.feedback import Feedback

        config = self.config
        try:
            if config.buttons.source == "gpio":
                self.buttons = Buttons(pin_map, self.events, pin_factory=factory)
                self._closers.append(self.buttons)
            output = sound_output(config, pin_map)
            self.feedback = Feedback(pin_map, muted=config.sound.muted, pin_factory=factory, buzzer=output == "buzzer",
                                     chirps=open_chirps(config, output, tv))
            self._closers.append(self.feedback)
        except UserError:
            raise
        except Exception as error:  # gpiozero finds no GPIO on this machine
            raise UserError(
                f"no GPIO here ({type(error).__name__}): set pins.factory = \"mock\" or use bornes run --emulate",
                EX_CONFIG,
            ) from None

    def _open_wired(self, pin_map: Any, tv: Path) -> None:
        """Buttons, buzzer and LEDs through lgpio on the chip the pin map names by its label, followed while
        the referee runs: a chip that is not there (a USB bridge unplugged) is "Buttons lost", never a stop."""
        from bornes.drivers.feedback import Feedback
        from bornes.drivers.wired import WiredParts

        config = self.config
        output = sound_output(config, pin_map)
        self.feedback = Feedback(pin_map, muted=config.sound.muted, buzzer=output == "buzzer",
                                 chirps=open_chirps(config, output, tv), pins=False)
        self._closers.append(self.feedback)
        self.wired = WiredParts(pin_map, self.events, self.feedback, with_buttons=config.buttons.source == "gpio")
        self._closers.append(self.wired)
        self.buttons = self.wired.buttons

    def _open_camera(self, state_dir: Path) -> None:
        """The camera (``[camera]``): its own process, started by a thread of ours; its reads come on the queue."""
        from bornes.drivers.camera.reader import CameraReader

        assert self.config.camera is not None
        settings = self.config.camera.settings(state_dir)
        self.camera = CameraReader(settings, self.events).start()
        self._closers.append(self.camera)
        self.flow.camera = self.camera  # the main menu offers to teach it
        log.info("camera: %s, templates in %s", settings.describe(), settings.templates)

    def _open_keypad(self, pin_map: Any) -> None:
        """The USB keypad as the table's buttons: grabbed, followed through unplugs like a reader
        (a keypad not there yet is "Keypad lost" on the panel, never a stop). Opened or typed, its keys
        name the table's buttons: the legend lists them, hints and messages say them ("+ more")."""
        b = self.config.buttons
        self.flow.key_legend = b.key_map.legend()
        self.flow.keys = b.key_map.labels()
        if not self.with_keypad:
            return
        self.keypad = held_buttons(self.config, pin_map, self.events, None, self.keypad_port)
        self._closers.append(self.keypad)
        log.info("buttons: keypad %s (%s)", b.port, b.key_map.described(),
                 extra={"said": Phrase(N_("buttons: keypad {port} ({keys})"), port=b.port,
                                       keys=_KeysSaid(b.key_map.legend()))})

    def _bindings(self, table_class: Any, path: Any) -> Any:
        """The tag bindings; a damaged file is reported, kept aside, and the referee runs on."""
        table, problem = table_class.load_or_set_aside(path)
        if problem is not None:
            log.error("tag bindings unusable: %s", problem)
            self.flow.ui.status = _("Tags need re-enrolling")
            self.flow.ui.message = _("Tag list damaged, kept aside: barcodes work, re-enrol RFID tags")
            self.flow.ui.refused = True
        return table

    def _control_path(self, emulate: bool, state_dir: os.PathLike[str] | str) -> str:
        return control_path(self.config, emulate, state_dir)

    def _open_control(self, emulate: bool, state_dir: os.PathLike[str] | str) -> None:
        """The control socket (firmware/appliance/control.py). Without it the table still referees: say so, go on."""
        from bornes.firmware.appliance.control import ControlListener
        from bornes.firmware.appliance.control_client import PHONES_FORGOTTEN

        g = self.config.game
        path = self._control_path(emulate, state_dir)
        defaults = {"edition": g.edition, "players": g.players, "names": list(g.names), "dealer": g.dealer,
                    "options": dict(g.options)}
        try:
            self._closers.append(ControlListener(path, self.events, defaults))
            self.referee.phones_file = Path(state_dir) / PHONES_FORGOTTEN
            log.info("control socket at %s", path, extra={"said": Phrase(N_("control socket at {path}"), path=path)})
        except UserError as error:
            log.error("%s; setups from phones are off", error)

    def close(self) -> None:
        """Close every device, newest first. Safe to call twice."""
        while self._closers:
            closer = self._closers.pop()
            try:
                closer.close()
            except Exception as error:  # closing must never hide the reason we are closing
                log.warning("closing %s: %s", type(closer).__name__, error)


class _KeysSaid:
    """A keypad's keys as a log line says them, worded when the line is printed: ``Entrée=OK  +=SUIVANT…``."""

    def __init__(self, legend: tuple[tuple[str, str], ...]) -> None:
        self.legend = legend

    def __str__(self) -> str:
        from bornes.firmware.language.buttons import legend_words

        return "  ".join(f"{label}={button}" for label, button in legend_words(self.legend))
