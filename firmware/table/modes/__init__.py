"""The table's modes: one small object per moment of the table, each answering its own inputs.

``TableFlow`` (``firmware.table.flow``) keeps one handler per ``Mode`` and sends every button and
card to the handler of the current mode; a handler answers with an ``Outcome`` (a typed
``Verdict``) and may move the table to another mode. The modes:

- ``setup``: the configured table's summary and the setup menus (edition, players, names, dealer, rules);
- ``names``: the letter-by-letter name editor;
- ``deck``: the deck check and its report;
- ``legend``: what the icons mean;
- ``game``: a game under way (the engine's phase says which buttons mean what); seat buttons;
- ``choice``: the open questions of a card (which target, which partner called coup fourré);
- ``confirm``: the yes/no questions (undo the last action, end a blocked hand);
- ``swap``: Fast Play's swap of cards;
- ``camera``: teaching the camera the cards, from the main menu.

May import: ``firmware.table.core`` and each other (no cycle), the engine, the drivers' events,
``firmware.language``. The engine judges every action: a mode asks it, never decides a rule.
"""

from __future__ import annotations

from bornes.firmware.table.core import Mode, ModeHandler, TableCore
from bornes.firmware.table.modes.camera import TeachMode
from bornes.firmware.table.modes.choice import ChoiceMode
from bornes.firmware.table.modes.confirm import EndHandMode, UndoMode
from bornes.firmware.table.modes.deck import DeckCheckMode, DeckReportMode
from bornes.firmware.table.modes.game import GameMode
from bornes.firmware.table.modes.legend import LegendMode
from bornes.firmware.table.modes.names import NameEditMode
from bornes.firmware.table.modes.setup import SetupMode
from bornes.firmware.table.modes.swap import SwapMode


def handlers(table: TableCore) -> dict[Mode, ModeHandler]:
    """One handler for every mode of this table."""
    choice = ChoiceMode(table)
    return {
        Mode.SETUP: SetupMode(table),
        Mode.NAME_EDIT: NameEditMode(table),
        Mode.DECK_CHECK: DeckCheckMode(table),
        Mode.DECK_REPORT: DeckReportMode(table),
        Mode.PLAY: GameMode(table),
        Mode.TARGET: choice,
        Mode.PARTNER: choice,
        Mode.UNDO_CONFIRM: UndoMode(table),
        Mode.END_CONFIRM: EndHandMode(table),
        Mode.SWAP: SwapMode(table),
        Mode.LEGEND: LegendMode(table),
        Mode.CAMERA_TEACH: TeachMode(table),
    }
