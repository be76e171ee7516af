"""Bytes to the panel per accepted tap, counted on the bus, against a whole frame.

Whole games are replayed tap by tap through the table flow; after each tap the screen is
rendered and handed to :class:`bornes.drivers.display.Display` over the real driver classes the Pi
uses (our partial ssd1306, luma's ssd1322 with ``diff_to_previous``) talking to luma's real
``i2c`` serial interface, whose bus is a counter. A whole frame is measured the same way with
luma's stock drivers, which always send everything. Bytes "on the wire" include each I2C
transaction's address and control bytes (luma writes at most 32 data bytes per transaction on
an smbus-style bus); the time is those bytes at 9 bits each on a 400 kHz bus.

``python -m bench.panel`` prints the table; ``python -m bench --only panel`` puts it in the bench.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

I2C_HZ = 400_000
BUDGET = 0.35  # median bytes per tap, as a share of a whole frame


class CountingBus:
    """An smbus-style bus for luma's ``i2c`` interface that counts what would cross the wire."""

    def __init__(self) -> None:
        self.wire = 0  # address + control + payload bytes
        self.payload = 0
        self.transactions = 0

    def write_i2c_block_data(self, address: int, register: int, data: list[int]) -> None:
        self.transactions += 1
        self.payload += len(data)
        self.wire += 2 + len(data)

    def take(self) -> int:
        wire, self.wire = self.wire, 0
        self.payload = self.transactions = 0
        return wire


def i2c_ms(wire_bytes: float) -> float:
    return wire_bytes * 9 / I2C_HZ * 1000


@dataclass(frozen=True)
class PanelFigures:
    panel: str
    size: tuple[int, int]
    taps: int
    full_frame: int  # wire bytes of one whole frame (stock luma driver)
    per_tap: list[int]  # wire bytes sent for each accepted tap
    shape: str = ""  # the table, in words

    def quantile(self, q: float) -> float:
        ordered = sorted(self.per_tap)
        return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]

    @property
    def median(self) -> float:
        return statistics.median(self.per_tap)


def _devices(panel: str, bus: CountingBus) -> tuple[Callable[[], Any], Any]:
    """(the partial device factory, a stock full-frame device) over luma's i2c on ``bus``."""
    from luma.core.framebuffer import diff_to_previous, full_frame
    from luma.core.interface.serial import i2c
    from luma.oled import device as oled

    from bornes.drivers.display import SSD1322_SEGMENTS
    from bornes.drivers.display.partial import PARTIAL

    if panel == "ssd1322":
        def make() -> Any:
            return oled.ssd1322(i2c(bus=bus), width=256, height=64, mode="RGB",
                                framebuffer=diff_to_previous(num_segments=SSD1322_SEGMENTS))
        stock = oled.ssd1322(i2c(bus=bus), width=256, height=64, mode="RGB", framebuffer=full_frame())
        return make, stock

    def make_partial() -> Any:
        return PARTIAL[panel](i2c(bus=bus), width=128, height=64)
    return make_partial, getattr(oled, panel)(i2c(bus=bus), width=128, height=64)


def measure(panel: str = "ssd1306", players: int = 4, games: int = 3, seed: int = 1) -> PanelFigures:
    from bench.driver import NAMES, script_games
    from bornes.drivers.display import Display
    from bornes.drivers.parts import PANELS
    from bornes.drivers.readers.resolver import CardResolver
    from bornes.firmware.screens import render
    from bornes.firmware.table.flow import TableFlow
    from bornes.firmware.table.present import screen

    size = PANELS[panel]
    bus = CountingBus()
    make, stock = _devices(panel, bus)
    bus.take()  # the init sequences
    mode = "1" if size[0] <= 128 else "RGB"
    from PIL import Image

    stock.display(Image.new(mode, size))
    full = bus.take()
    per_tap: list[int] = []
    taps = 0
    for number in range(games):
        script = script_games(players=players, seed=seed + number * 7, games=1)
        flow = TableFlow(edition=script.setup.edition, players=players, names=NAMES[:players])
        flow.start_game(script.setup)
        resolver = CardResolver()
        display = Display(make, size, name=panel)
        display.show(render(screen(flow), size))  # the first frame goes whole
        bus.take()
        for step in script.steps:
            for tap in step.taps:
                flow.handle(resolver.resolve(tap))
                display.show(render(screen(flow), size))
                taps += 1
            per_tap.append(bus.take())
        display.close()
    setup = script.setup
    shape = (f"{players} players in {setup.side_count} partnerships" if setup.teams
             else f"{players} players")
    return PanelFigures(panel, size, taps, full, per_tap, shape)


def rows(players: int = 4, games: int = 3, whole_frame: bool = True) -> list[tuple[str, str, str, bool | None]]:
    """(figure, measured, budget, met) rows for the bench table."""
    out: list[tuple[str, str, str, bool | None]] = []
    for panel in ("ssd1306", "ssd1322"):
        f = measure(panel, players, games)
        w, h = f.size
        median, p99 = f.median, f.quantile(0.99)
        if whole_frame:
            out.append((f"panel {panel} {w}×{h}: one whole frame (stock luma driver)",
                        f"{f.full_frame} B = {i2c_ms(f.full_frame):.1f} ms I2C @400k", "—", None))
        budgeted = panel == "ssd1306"
        out.append((f"  {panel}: bytes per accepted tap, {len(f.per_tap)} actions, {games} games of "
                    f"{f.shape} (median / p99)",
                    f"{median:.0f} B = {median / f.full_frame:.0%} ({i2c_ms(median):.1f} ms) / "
                    f"{p99:.0f} B = {p99 / f.full_frame:.0%} ({i2c_ms(p99):.1f} ms)",
                    f"median ≤ {BUDGET:.0%} of a frame" if budgeted else "—",
                    median <= BUDGET * f.full_frame if budgeted else None))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.panel", description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=3)
    args = parser.parse_args(argv)
    table = rows(args.players, args.games)
    width = max(len(r[0]) for r in table)
    for figure, measured, budget, met in table:
        flag = "" if met is None else ("yes" if met else "NO")
        print(f"{figure:<{width}}  {measured}  {budget}  {flag}")
    return 1 if any(r[3] is False for r in table) else 0


if __name__ == "__main__":
    sys.exit(main())
