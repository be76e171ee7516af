"""Display faults: 10 % of the writes to the panel fail with OSError (an I2C "Remote I/O error").

A whole scripted game goes through the referee with a luma dummy device that fails a seeded
tenth of its frames. Every play must still be accepted, and once the game is over the panel
must show exactly the final frame: the display's retry and backoff bring it back.
"""

from __future__ import annotations

import errno
import random
from typing import Any

from luma.core.device import dummy

from bench.driver import script_games
from bornes.drivers.display import Display
from bornes.drivers.readers.resolver import CardResolver
from bornes.firmware.appliance.referee import Referee
from bornes.firmware.screens.render import render
from bornes.firmware.table.flow import TableFlow
from bornes.firmware.table.present import screen


class FlakyPanel(dummy):  # type: ignore[misc]
    """luma's dummy device, failing a seeded share of its writes like a loose I2C wire."""

    def __init__(self, rng: random.Random, rate: float, tally: dict[str, int]) -> None:
        super().__init__(width=128, height=64, mode="1")
        self.rng = rng
        self.rate = rate
        self.tally = tally

    def display(self, image: Any) -> None:
        self.tally["writes"] += 1
        if self.rng.random() < self.rate:
            self.tally["failed"] += 1
            raise OSError(errno.EREMOTEIO, "Remote I/O error")
        super().display(image)


class Clock:
    """The display's backoff clock, moved by the test instead of by sleeping."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_ten_percent_failed_writes_keep_the_game_and_the_panel_recovers() -> None:
    rng = random.Random(10)
    tally = {"writes": 0, "failed": 0}
    clock = Clock()
    display = Display(lambda: FlakyPanel(rng, 0.10, tally), (128, 64), clock=clock)
    flow = TableFlow(players=2, names=("Anne", "Bruno"))
    referee = Referee(flow, None, display=display, watchdog=False)  # type: ignore[arg-type]
    resolver = CardResolver()
    script = script_games(players=2, seed=21, games=1)
    accepted = 0
    degraded_seen = 0
    for step in script.steps:
        outcome = None
        for payload in step.taps:
            outcome = referee.step(resolver.resolve(payload))
            clock.now += 0.3  # a person taps every few tenths of a second
            display.tick()  # what the referee's loop does between inputs
            degraded_seen += display.degraded
        assert outcome is not None and outcome.verdict == "accepted", f"{step.notation}: {outcome}"
        accepted += 1
    assert flow.state is not None and flow.state.over
    for _ in range(200):  # idle: the loop keeps ticking while the panel is degraded
        if not display.degraded:
            break
        clock.now += 0.5
        display.tick()
    final = render(screen(flow), (128, 64), "1")
    print(f"\ndisplay faults: {accepted} actions accepted, {tally['failed']} of {tally['writes']} writes failed, "
          f"degraded after {degraded_seen} taps, recovered: {not display.degraded}")
    assert accepted == len(script.steps)
    assert tally["failed"] >= tally["writes"] * 0.05, "the faults were injected"
    assert not display.degraded
    assert display.device is not None
    assert display.device.image.convert("1").tobytes() == final.convert("1").tobytes()
