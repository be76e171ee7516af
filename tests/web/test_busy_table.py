"""A table in the middle of a game and the remote requests it cannot take now (issue 20, findings 6 and 7).

A real referee loop behind a real control socket. A setup sent from a phone (or the club's bridge)
during a game never reaches the players' screen: the table stays as it is, the sender hears "busy
until this game ends", and the table offers that game when its own game is over, one OK away. A
pairing PIN never covers a hand being played either.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bornes.drivers.events import ButtonPressed, InputEvent
from bornes.firmware.appliance.control import BUSY, ControlListener
from bornes.firmware.appliance.control_client import ControlClient
from bornes.firmware.appliance.referee import STOP, Referee
from bornes.firmware.table.flow import Mode, TableFlow
from tests.web.server import DEFAULTS, first_hand


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[Path, Referee, queue.Queue[Any]]]:
    events: queue.Queue[Any] = queue.Queue()
    referee = Referee(TableFlow(), events, watchdog=False)
    listener = ControlListener(tmp_path / "control.sock", events, DEFAULTS)
    loop = threading.Thread(target=referee.run, args=(threading.Event(),), daemon=True)
    loop.start()
    try:
        yield tmp_path / "control.sock", referee, events
    finally:
        events.put(STOP)
        loop.join(5)
        listener.close()


def _step(referee: Referee, events: queue.Queue[Any], event: InputEvent) -> Any:
    done = threading.Event()
    seen: list[Any] = []

    def note(_event: Any, outcome: Any) -> None:
        seen.append(outcome)
        done.set()

    referee.on_outcome = note
    events.put(event)
    assert done.wait(5)
    return seen[0]


def test_a_setup_sent_during_a_game_waits_for_its_end_without_a_word_on_the_panel(
        table: tuple[Path, Referee, queue.Queue[Any]]) -> None:
    path, referee, events = table
    flow = referee.flow
    single_hand = {"type": "setup", "edition": "winning-moves", "players": 2, "names": ["Ann", "Bob"], "dealer": 1,
                   "options": {"game_target": "0"}}
    assert ControlClient(path).send(single_hand).ok
    _step(referee, events, ButtonPressed("OK"))
    hand = first_hand()
    for event in hand[:6]:
        _step(referee, events, event)
    assert flow.state is not None and not flow.state.over
    view, message, refused = referee._last_view, flow.ui.message, flow.ui.refused

    next_game = {"edition": "dujardin", "players": 3, "names": ["Zoé", "Jérôme", "Anaïs"]}
    # A phone (or the club's bridge) proposes the next game: the answer says why and that it is kept.
    answer = ControlClient(path).propose_setup(next_game)
    assert (answer.ok, answer.error, answer.waiting) == (False, BUSY, True)
    assert (referee._last_view, flow.ui.message, flow.ui.refused) == (view, message, refused)
    assert flow.state.setup.names == ("Ann", "Bob")
    # A second try while the game goes on (the web page sent twice): still nothing on the panel.
    answer = ControlClient(path).propose_setup(next_game)
    assert (answer.ok, answer.error, answer.waiting) == (False, BUSY, True)
    assert (referee._last_view, flow.ui.message, flow.ui.refused) == (view, message, refused)

    for event in hand[6:]:
        _step(referee, events, event)
    assert flow.state.over, "one hand is the whole game here"
    # On the final score sheet a setup is taken, and still waits: the players read their scores first.
    view = referee._last_view
    assert ControlClient(path).propose_setup(next_game).ok
    assert referee._last_view == view and flow.state is not None and flow.state.over
    _step(referee, events, ButtonPressed("OK"))  # off the final score sheet: the proposed game is offered
    assert flow.state is None and flow.ui.mode is Mode.SETUP and flow.draft.names == ["Zoé", "Jérôme", "Anaïs"]
    _step(referee, events, ButtonPressed("OK"))  # one OK starts it
    assert flow.state is not None and flow.state.setup.names == ("Zoé", "Jérôme", "Anaïs")
    assert flow.state.setup.edition == "dujardin"


def test_a_pin_never_covers_a_hand_being_played(table: tuple[Path, Referee, queue.Queue[Any]]) -> None:
    path, referee, events = table
    assert ControlClient(path).propose_setup({"edition": "winning-moves", "players": 2, "names": ["Ann", "Bob"],
                                              "dealer": 1}).ok
    _step(referee, events, ButtonPressed("OK"))
    _step(referee, events, first_hand()[0])  # Ann rolls: the hand is being played
    view = referee._last_view
    answer = ControlClient(path).ask_pairing("http://table.local:8080/setup").refusal
    assert answer == "a hand is being played: ask for a PIN between hands"
    assert not referee.pairing_shown and referee.pairing.pin is None and referee._last_view == view
