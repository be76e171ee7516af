"""The wired parts (buttons, buzzer, LEDs) on their GPIO chip, followed through the chip's comings and goings.

A Pi's header chip never leaves, but a USB GPIO bridge (a CP2112 on a USB cable) can be pulled out
mid-game, and a chip named by a misspelt label is never there. Either way the referee keeps
refereeing: the chip is looked for by its label (:mod:`bornes.drivers.gpiochips`) every
:attr:`WiredParts.interval` seconds; when it goes, the buttons and the buzzer's and LEDs' pins are
closed and ``ReaderLost(…, reader="buttons")`` goes on the queue (the panel says "Buttons lost"; the
control cards still stand in for the buttons); when it is there again, they are opened on it afresh
and ``ReaderBack(label, reader="buttons")`` follows, as a reader's comings and goings do.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bornes.drivers import gpiochips
from bornes.drivers.events import BUTTONS, ReaderBack, ReaderLost
from bornes.drivers.pins import ChipMissing, PinMap, close_pin_factory, make_pin_factory

if TYPE_CHECKING:
    from bornes.drivers.buttons import Buttons
    from bornes.drivers.feedback import Feedback

log = logging.getLogger("bornes")


class WiredParts:
    """The pin map's buttons (when they are the table's buttons) and the feedback's pins, on one chip.

    ``feedback`` is reopened in place, since the referee holds it. ``open_factory(labels)`` opens the pin
    factory on the chip (lgpio's, by label) and ``find_chip(labels)`` says which chip that is, or None:
    tests hand in gpiozero's MockFactory and a chip of their own, and a ``watch`` of a folder of their own.
    """

    interval = 0.5  # seconds between two looks for the chip

    def __init__(self, pin_map: PinMap, events: queue.Queue[Any], feedback: Feedback | None, *,
                 with_buttons: bool, open_factory: Callable[[tuple[str, ...]], Any] | None = None,
                 find_chip: Callable[[tuple[str, ...]], gpiochips.Chip | None] = gpiochips.find,
                 thread: bool = True, watch: gpiochips.ChipWatch | None = None) -> None:
        self.pin_map = pin_map
        self.labels = pin_map.chip_labels
        self.events = events
        self.feedback = feedback
        self.with_buttons = with_buttons
        self._open_factory = open_factory or (lambda labels: make_pin_factory("auto", labels))
        self._find_chip = find_chip
        self.buttons: Buttons | None = None
        self.factory: Any = None
        self.chip: gpiochips.Chip | None = None
        self.lost: str | None = None  # why the parts are not there, while they are not
        self._stop = threading.Event()
        self._watch = watch or gpiochips.ChipWatch()  # a chip gone is seen at once, not at the next look
        if not self._watch.watching:
            log.info("gpio: no inotify here: a chip that goes is seen at the next look (every %.1f s)", self.interval)
        self._thread: threading.Thread | None = None
        self.check()
        if thread:
            self._thread = threading.Thread(target=self._loop, name="gpio-chip", daemon=True)
            self._thread.start()

    def _loop(self) -> None:
        while not self._watch.wait(self.interval) and not self._stop.is_set():
            try:
                self.check()
            except Exception as error:  # the referee must keep refereeing whatever the chip does
                log.warning("gpio: %s", error)

    def check(self) -> None:
        """Open the parts when their chip is there and they are not; close them when it has gone."""
        if self.chip is not None:
            # The same device: a bridge unplugged and plugged back between two looks is a new one, which the
            # kernel numbers afresh while the old one's lines are still held here.
            if self._find_chip(self.labels) == self.chip:
                return
            self._close(f"{self.chip.describe()} went away")
            return
        chip = self._find_chip(self.labels)
        try:
            factory = self._open_factory(self.labels)
        except ChipMissing as error:
            self._lose(str(error))
            return
        try:
            if self.with_buttons:
                from bornes.drivers.buttons import Buttons

                self.buttons = Buttons(self.pin_map, self.events, pin_factory=factory)
            if self.feedback is not None:
                self.feedback.reopen(factory)
        except Exception as error:  # the chip went again while its lines were claimed
            self._drop(factory)
            self._lose(f"{type(error).__name__}: {error}")
            return
        # Not seen at the first look but opened: it came between the two (devtmpfs makes a new node root's and
        # udev gives it to group gpio a moment later). Named now, or the next look would take it for another
        # chip, close the parts and open them again (a lost and a back for nothing; after that churn the kernel
        # tier's CP2112 heard no press). Still not seen: it went meanwhile, and the next look closes the parts.
        if chip is None:
            chip = self._find_chip(self.labels)
        if chip is None:
            chip = gpiochips.Chip("", "", self.labels[0], 0)
        self.factory, self.chip, self.lost = factory, chip, None
        log.info("gpio: buttons, buzzer and LEDs on %s", chip.describe())
        self.events.put(ReaderBack(chip.label, BUTTONS))

    def _close(self, why: str) -> None:
        factory, self.factory, self.chip = self.factory, None, None
        self._lose(why)  # said first: letting the lines go waits on lgpio's threads
        self._drop(factory)

    def _drop(self, factory: Any) -> None:
        buttons, self.buttons = self.buttons, None
        if buttons is not None:
            with contextlib.suppress(Exception):
                buttons.close()
        if self.feedback is not None:
            with contextlib.suppress(Exception):
                self.feedback.reopen(None)
        if factory is not None:
            close_pin_factory(factory)

    def _lose(self, why: str) -> None:
        if self.lost is None:  # one notice while they are away, whatever the looks say meanwhile
            self.events.put(ReaderLost(why, BUTTONS))
        self.lost = why

    def close(self) -> None:
        self._stop.set()
        self._watch.close()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2)
        self._drop(self.factory)
        self.factory, self.chip = None, None
