"""Open everything the referee needs from the config file, and close it all again.

The same code runs on the Pi and on a laptop: the config (or ``--emulate``) picks the
mock pin factory and a desktop display twin instead of the real ones.
"""

from __future__ import annotations

import logging
import os
import queue
import sys
from typing import Any

from firmware.config import HARDWARE_PANELS, Config, ensure_state_dir
from firmware.errors import EX_CONFIG, UserError
from firmware.flow import TableFlow
from firmware.journal import Journal
from firmware.referee import Referee
from firmware.store import JournalStore

log = logging.getLogger("bornes")


def desktop_panel() -> str:
    """The display twin for a machine without a Pi: a window, else the terminal, else nothing."""
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return "pygame"
    return "terminal" if sys.stdout.isatty() else "dummy"


def open_display_from_config(config: Config, panel: str | None = None) -> Any:
    from drivers.display import open_display

    d = config.display
    chosen = panel or d.panel
    options: dict[str, Any] = {
        "i2c_port": d.i2c_port,
        "i2c_address": d.i2c_address,
        "spi_port": d.spi_port,
        "spi_device": d.spi_device,
        "rotate": d.rotate,
    }
    if d.capture_dir:
        options["capture_dir"] = d.capture_dir
    if d.gif_path:
        options["gif_path"] = d.gif_path
    if chosen not in HARDWARE_PANELS and d.panel == "ssd1322":
        options["emulated"] = "ssd1322"  # a desktop twin of the wide panel
    return open_display(chosen, d.interface, **options)


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
    ) -> None:
        self.config = config
        self.events: queue.Queue[Any] = queue.Queue()
        self._closers: list[Any] = []
        self.reader: Any = None
        self.buttons: Any = None
        self.feedback: Any = None
        self.display: Any = None
        try:
            self._open(emulate, panel, with_reader, journal, control)
        except BaseException:
            self.close()
            raise

    def _open(
        self, emulate: bool, panel: str | None, with_reader: bool, journal: Journal | None, control: bool
    ) -> None:
        from drivers.buttons import Buttons
        from drivers.feedback import Feedback
        from drivers.pins import load, make_pin_factory

        config = self.config
        state_dir = ensure_state_dir(config)
        self.journal = journal or Journal.open(state_dir)
        self._closers.append(self.journal)
        self.store = JournalStore(self.journal)
        game = self.store.resume()
        if game is not None:
            log.info("resumed game in progress: hand %d, %d actions", game.state.hand.number, len(game.log))
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
        pin_map = load(config.pins.map)
        factory_name = "mock" if emulate or config.pins.factory == "mock" else None
        factory = make_pin_factory(factory_name)
        try:
            self.buttons = Buttons(pin_map, self.events, pin_factory=factory)
            self._closers.append(self.buttons)
            self.feedback = Feedback(pin_map, muted=config.sound.muted, pin_factory=factory)
            self._closers.append(self.feedback)
        except UserError:
            raise
        except Exception as error:  # gpiozero finds no GPIO on this machine
            raise UserError(
                f"no GPIO here ({type(error).__name__}): set pins.factory = \"mock\" or use bornes run --emulate",
                EX_CONFIG,
            ) from None
        if emulate and config.display.is_hardware and panel is None:
            panel = desktop_panel()
        self.display = open_display_from_config(config, panel)
        self._closers.append(self.display)
        if with_reader:
            from drivers.readers import BindingTable, bindings_path, open_reader

            r = config.reader
            self.reader = open_reader(
                r.protocol,
                r.port,
                self.events,
                baudrate=r.baudrate,
                prefix=r.prefix,
                suffix=r.suffix,
                double_read_window=r.double_read_window,
                quiet_gap=r.quiet_gap,
                max_backoff=r.max_backoff,
                bindings=BindingTable.load(bindings_path(state_dir)),
            )
            self._closers.append(self.reader)
        self.referee = Referee(self.flow, self.events, display=self.display, feedback=self.feedback)
        if control:
            self._open_control(emulate, state_dir)

    def _open_control(self, emulate: bool, state_dir: os.PathLike[str] | str) -> None:
        """The control socket (firmware/control.py). Without it the table still referees: say so, go on."""
        from firmware.config import ControlConfig
        from firmware.control import ControlListener

        g = self.config.game
        path = self.config.control.socket
        if emulate and path == ControlConfig().socket:
            path = os.path.join(state_dir, "control.sock")  # a laptop has no /run/bornes of ours
        defaults = {"edition": g.edition, "players": g.players, "names": list(g.names), "dealer": g.dealer,
                    "options": dict(g.options)}
        try:
            self._closers.append(ControlListener(path, self.events, defaults))
            log.info("control socket at %s", path)
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
