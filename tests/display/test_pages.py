"""Five or six sides on a 128×64 panel: two pages that alternate while nobody taps, the side to play on both."""

from __future__ import annotations

import queue
import threading
import time

import pytest

from bornes.drivers.display import open_display
from bornes.engine.state import GameSetup
from bornes.firmware.appliance import referee as referee_module
from bornes.firmware.appliance.referee import STOP, Referee
from bornes.firmware.screens.model import TableView
from bornes.firmware.screens.table import table_pages
from bornes.firmware.table.flow import TableFlow
from bornes.firmware.table.present import screen


def _flow(players: int) -> TableFlow:
    names = ("Ann", "Bob", "Chloé", "Dmitri", "Eve", "Fay")[:players]
    flow = TableFlow(edition="hasbro-2016", players=players, names=names)
    flow.start_game(GameSetup.create("hasbro-2016", names, teams=False))
    return flow


@pytest.mark.parametrize("players", [5, 6])
def test_every_page_shows_the_side_to_play_and_all_sides_are_shown(players: int) -> None:
    view = screen(_flow(players))
    assert isinstance(view, TableView)
    pages = table_pages(view, 128)
    turn = next(i for i, side in enumerate(view.sides) if side.is_turn)
    assert len(pages) == 2 and all(turn in page for page in pages)
    assert set().union(*pages) == set(range(players))
    assert table_pages(view, 256) == [tuple(range(players))]  # the wide panel shows them all at once


def test_the_referee_turns_the_pages_while_idle(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(referee_module, "PAGE_SECONDS", 0.05)
    display = open_display("dummy")
    events: queue.Queue[object] = queue.Queue()
    ref = Referee(_flow(5), events, display=display, watchdog=False)
    seen: set[bytes] = set()
    thread = threading.Thread(target=ref.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 2.0
        while len(seen) < 2 and time.monotonic() < deadline:
            device = display.device
            if device is not None and getattr(device, "image", None) is not None:
                seen.add(device.image.tobytes())
            time.sleep(0.01)
    finally:
        events.put(STOP)
        thread.join(2)
    assert len(seen) >= 2, "the pages did not alternate"
