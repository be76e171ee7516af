"""A scripted game tapped into the referee in the VM, its panel read back from the I2C bridge after each tap.

The referee in the kernel tier's VM draws on a real I2C adapter (the i2c-tiny-usb of
tools/kernel/bridges.py) through luma.oled and smbus2, as on a Pi. After each tap, the picture the
panel model shows must equal the golden picture of that screen: the product's own renderer
(``firmware/screens``, whose sample screens are the approved PNGs of tests/golden) drawing the
screen the table flow is on, in a twin of the table replayed here on the host from the same config
and the same taps (:class:`ScreenTwin`). Pixel for pixel; a mismatch writes both pictures beside the
report. The bytes that crossed the bus from the tap to its frame are counted (the address and data
bytes of every I2C message, the panel model's own count): tap to light at 400 kHz is those bytes at
9 clocks each.

Shared by tests/kernel/test_wired_table.py and bench/kernel_i2c.py.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image, ImageChops

from bench.driver import SETUP_TAPS, Script, script_games
from bornes.drivers.readers.hid import NO_ENTER
from tools.kernel.bridges import SIZE, I2cBridge, wire_ms
from tools.kernel.table import INPUT, SCANNER_GAP, KernelTable

#: A scan the referee refused because the VM delivered its keys late or lost some (a loaded host): scanned
#: again, as the panel asks a player to, and counted.
SCAN_AGAIN = ("bornes: input garbled", "bornes: input typing")
#: The display's line when a frame failed: on a loaded host the bridge in the VM can answer a control transfer
#: later than i2c-tiny-usb.c's 2 s timeout, the driver fails the I2C write, and the referee sends the whole
#: picture again once the panel answers (its own recovery, as after a loose wire): that tap is not counted.
PANEL_LOST = "bornes: panel lost: "
#: Where a picture that did not match goes, with the expected one, for a person to look at.
MISMATCHES = Path("/var/tmp/bornes-kernel-i2c")


class ScreenTwin:
    """The referee's table flow replayed on the host: the same config, the same taps, the same renderer."""

    def __init__(self, config_text: str) -> None:
        from bornes.drivers.readers.resolver import CardResolver
        from bornes.firmware.appliance.config import parse_config
        from bornes.firmware.table.flow import TableFlow

        config = parse_config(config_text, "the referee's config (the host's twin)")
        game = config.game
        self.flow = TableFlow(edition=game.edition, players=game.players, names=tuple(game.names), dealer=game.dealer,
                              options=game.rule_options(), configured=config.table_named)
        self.resolver = CardResolver()

    def tap(self, payload: str) -> tuple[str, Image.Image]:
        """The verdict of ``payload`` and the picture the panel must then show."""
        from bornes.firmware.screens import render
        from bornes.firmware.table.present import screen

        outcome = self.flow.handle(self.resolver.resolve(payload))
        return outcome.verdict.value, render(screen(self.flow), SIZE, "1").convert("1")


def same(a: Image.Image, b: Image.Image) -> bool:
    return a.size == b.size and ImageChops.difference(a.convert("1"), b.convert("1")).getbbox() is None


@dataclass
class PanelRun:
    """What a game on the panel measured: frames compared, bytes per tap on the bus."""

    compared: int = 0
    mismatched: list[str] = field(default_factory=list)
    #: Wire bytes from an accepted tap (the one that completes an action) to its frame on the panel.
    accepted: list[int] = field(default_factory=list)
    #: The same for every other tap (a button, a prompt's answer): each has a frame of its own.
    other: list[int] = field(default_factory=list)
    #: Per action: every tap of it added up (what bench/panel.py counted before, as one "tap").
    per_action: list[int] = field(default_factory=list)
    rescanned: int = 0  # scans refused because the VM's keys came late or were lost: scanned again
    #: Taps during which a frame failed on the bus (the bridge slower than the driver's timeout): not counted.
    bus_errors: int = 0
    seconds_to_match: list[float] = field(default_factory=list)

    def figures(self, label: str = "") -> dict[str, float]:
        taps = self.accepted + self.other
        out = {"frames compared pixel for pixel": float(self.compared), "frames that differed": float(
            len(self.mismatched)), "taps scanned again (keys lost or late)": float(self.rescanned),
               "taps whose frame failed on the bus and was sent again (not counted)": float(self.bus_errors)}
        for name, values in (("accepted tap", self.accepted), ("any tap", taps), ("action (all its taps)",
                                                                                   self.per_action)):
            if values:
                out[f"bytes per {name}, median"] = statistics.median(values)
                out[f"bytes per {name}, p99"] = quantile(values, 0.99)
                out[f"bytes per {name}, most"] = float(max(values))
                out[f"ms at 400 kHz per {name}, p99"] = wire_ms(quantile(values, 0.99))
        return {f"{label}{k}": v for k, v in out.items()}


def quantile(values: list[int], q: float) -> float:
    ordered = sorted(values)
    return float(ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))])


class PanelGame:
    """A 2-player scripted game (bench/driver.py's bots) tapped on a scanner, the panel checked after each tap;
    with ``buttons``, each control tag it names is pressed on the ``buttons`` device instead (the key given)."""

    def __init__(self, table: KernelTable, bridge: I2cBridge, config_text: str, seed: int, *, address: int = 0x3C,
                 scanner: str = "scanner", buttons: str | None = None, keys: dict[str, str] | None = None) -> None:
        self.table, self.bridge, self.address, self.scanner = table, bridge, address, scanner
        self.buttons, self.keys = buttons, keys or {}
        self.script: Script = script_games(players=2, seed=seed, games=1)
        self.twin = ScreenTwin(config_text)
        self.done = 0
        self.run = PanelRun()
        self.last_picture: Image.Image | None = None

    def play(self, steps: int = 1, *, check: bool = True) -> None:
        """The next ``steps`` actions, each tap waiting for the referee's line; with ``check``, the panel's
        picture waited for after each tap (and its bytes counted); without, the picture is not asked for
        (the panel is unplugged) and the twin follows alone."""
        for _ in range(steps):
            step = self.script.steps[self.done]
            taps: list[str] = []
            if self.done == 0:
                taps = [SETUP_TAPS[0]]  # the table named in the config: its summary, one OK starts the game
            taps += list(step.taps[len(SETUP_TAPS):] if self.done == 0 else step.taps)
            action: int | None = 0
            for number, payload in enumerate(taps):
                said, wire = self._tap(payload, check)
                last = number == len(taps) - 1
                assert said.endswith(": accepted" if last or (self.done == 0 and number == 0) else ": prompt"), \
                    (payload, said, self.table.journal()[-6:])
                action = None if action is None or wire is None else action + wire
                if wire is not None and not (self.done == 0 and number == 0):
                    (self.run.accepted if last else self.run.other).append(wire)
            if action is not None and check:
                self.run.per_action.append(action)
            assert self.table.accepted()[-1] == step.notation, self.table.journal()[-6:]
            self.done += 1

    def _tap(self, payload: str, check: bool) -> tuple[str, int | None]:
        """The referee's line for ``payload`` and the bytes its frame took on the bus (None: not counted,
        another frame, a refusal of keys the VM lost, went with it)."""
        lost = self.table.count(PANEL_LOST)
        for _ in range(3):
            before = self.bridge.counts()["wire_bytes"] if check else 0
            rescanned = self.run.rescanned
            said = self._press(payload) if payload in self.keys else self._scan(payload)
            if not said.startswith(SCAN_AGAIN):
                break
            self.run.rescanned += 1
            if check:
                self.quiet()  # the refusal's frame: over before the next scan's bytes are counted
        else:
            raise AssertionError(f"{payload}: keys lost three times")
        verdict, expected = self.twin.tap(payload)
        # The referee and the twin disagree: the journal says why (a refusal's reason) and what came before.
        assert said.endswith(f": {verdict}"), (payload, said, verdict, self.said_lately())
        if not check:
            return said, None
        started = time.monotonic()
        self.wait_picture(expected, f"the panel after {payload}")
        self.run.seconds_to_match.append(time.monotonic() - started)
        if self.table.count(PANEL_LOST) != lost:
            self.run.bus_errors += 1
            return said, None
        if self.run.rescanned != rescanned:
            return said, None
        return said, int(self.bridge.counts()["wire_bytes"]) - int(before)

    def said_lately(self, lines: int = 40) -> list[str]:
        """The referee's own last lines (its inputs, verdicts and notices), without what its libraries print."""
        return [line for line in self.table.journal() if line.startswith("bornes: ")][-lines:]

    def _press(self, payload: str) -> str:
        """The referee's line for the button that stands for ``payload``: one press, one line."""
        assert self.buttons is not None
        said = self.table.press(self.buttons, self.keys[payload])
        assert len(said) == 1 and said[0].startswith(f"{INPUT}button "), said  # one line a press: no bounce heard
        return said[0]

    def _scan(self, payload: str) -> str:
        """The referee's line for one scan of ``payload``. The half of an earlier scan whose Enter the VM
        lost is refused when this one starts (``… with no Enter after them``): this scan's own line is
        the one after it. A scan that brought no line at all within a minute is scanned again."""
        first = len(self.table.inputs())
        try:
            said = self.table.tap(self.scanner, payload, gap=SCANNER_GAP)
        except AssertionError:  # its Enter lost: nothing said yet; the next scan ends it
            self.run.rescanned += 1
            said = self.table.tap(self.scanner, payload, gap=SCANNER_GAP)
            first = len(self.table.inputs()) - len(said)
        if NO_ENTER in said[0]:
            self.run.rescanned += 1
            self.table.wait(f"the referee's line for {payload}", lambda: len(self.table.inputs()) >= first + 2)
            said = self.table.inputs()[first + 1:]
        assert len(said) == 1, said
        return said[0]

    def wait_picture(self, expected: Image.Image, what: str, timeout: float = 30.0) -> None:
        """Until the panel model shows ``expected`` (a frame crosses the bus after the referee's line)."""
        deadline = time.monotonic() + timeout
        while True:
            shown = self.bridge.panel(self.address).picture
            if same(shown, expected):
                self.run.compared += 1
                self.last_picture = shown
                return
            if time.monotonic() > deadline:
                MISMATCHES.mkdir(parents=True, exist_ok=True)
                stem = tempfile.mktemp(prefix="mismatch-", dir=MISMATCHES)
                shown.save(f"{stem}-panel.png")
                expected.save(f"{stem}-expected.png")
                self.run.mismatched.append(what)
                raise AssertionError(f"{what}: the panel shows another picture than the golden one after "
                                     f"{timeout:.0f} s (both in {stem}-*.png); the referee said "
                                     f"{self.table.journal()[-4:]}")
            time.sleep(0.2)

    def expected_now(self) -> Image.Image:
        """The picture of the screen the table is on now, as the twin renders it."""
        from bornes.firmware.screens import render
        from bornes.firmware.table.present import screen

        return render(screen(self.twin.flow), SIZE, "1").convert("1")

    def quiet(self, seconds: float = 0.5, timeout: float = 30.0) -> None:
        """Until no I2C message has crossed the bus for ``seconds``."""
        deadline = time.monotonic() + timeout
        while True:
            age = self.bridge.counts()["last_message_age"]
            if age is None or age >= seconds:
                return
            assert time.monotonic() < deadline, "the bus never went quiet"
            time.sleep(0.2)

    def check_stored(self) -> None:
        """The referee's game journal holds exactly the steps played, in order: none lost, none doubled (a whole
        game played is over, no longer the current game: the newest game with actions is the one played)."""
        stored, played = self.table.newest_game(), self.script.notations()[:self.done]
        if stored != played:
            first = next((n for n, (a, b) in enumerate(zip(stored, played, strict=False)) if a != b),
                         min(len(stored), len(played)))
            raise AssertionError(f"the game journal differs from the {len(played)} steps played, from step {first}: "
                                 f"stored {stored[first:first + 4]}, played {played[first:first + 4]} "
                                 f"({len(stored)} stored)")


__all__ = ["PanelGame", "PanelRun", "ScreenTwin", "quantile", "same"]
