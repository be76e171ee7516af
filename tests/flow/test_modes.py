"""The table flow split by mode (issue 21): every mode has its handler, a seat button reaches the
in-game modes only, and each handler stays small enough to read on one screen."""

from __future__ import annotations

from pathlib import Path

import pytest

from bornes.firmware.table.core import Mode, ModeHandler
from bornes.firmware.table.flow import TableFlow, Verdict
from bornes.firmware.table.modes.choice import InGameMode
from tests.flow.helpers import accept, drive
from tools.function_sizes import functions

ROOT = Path(__file__).resolve().parents[2]
#: issue 21's bar: no method of the flow or of a mode longer than this.
MOST_LINES = 40


def test_every_mode_has_its_handler() -> None:
    flow = TableFlow()
    assert set(flow.modes) == set(Mode)
    assert all(isinstance(handler, ModeHandler) for handler in flow.modes.values())


@pytest.mark.parametrize("mode", list(Mode))
def test_seat_buttons_name_a_seat_only_in_a_game(mode: Mode) -> None:
    """In the menus a seat button is just a button (ignored); in a game it names a seat or answers."""
    in_game = {Mode.PLAY, Mode.TARGET, Mode.PARTNER, Mode.UNDO_CONFIRM, Mode.END_CONFIRM, Mode.SWAP}
    assert isinstance(TableFlow().modes[mode], InGameMode) is (mode in in_game)


def test_a_seat_button_in_the_menus_is_ignored_and_in_a_game_chooses() -> None:
    flow = TableFlow(edition="winning-moves", players=2, names=("Ann", "Bob"))
    outcome = drive(flow, "press SEAT2")[-1]
    assert outcome.verdict is Verdict.IGNORED and flow.ui.mode is Mode.SETUP
    flow = TableFlow(edition="winning-moves", players=2, names=("Ann", "Bob"), configured=True)
    accept(flow, "press OK")
    outcome = drive(flow, "press SEAT2")[-1]
    assert outcome.verdict is Verdict.PROMPT and flow.ui.choice.seat == 1


def test_no_method_of_the_flow_or_a_mode_is_longer_than_a_screen() -> None:
    table = ROOT / "firmware" / "table"
    files = [table / "flow.py", table / "core.py", *sorted((table / "modes").glob("*.py"))]
    long = [(lines, name) for path in files for lines, name in functions(path) if lines >= MOST_LINES]
    assert not long, long
