"""The rules engine: pure, deterministic, replayable. No I/O, no clock, no hardware.

The names below are the engine's public API: what ``drivers`` and ``firmware`` use, importable
from ``bornes.engine`` itself (``from bornes.engine import GameSetup, apply``). They load on first
use (PEP 562), so a driver that only needs :class:`Card` does not pay for the rules, and the
submodules stay importable on their own (``bornes.engine.cards``).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bornes.engine.actions import (
        Action,
        CoupFourre,
        Discard,
        EndHand,
        Extension,
        FastRemedy,
        Leftover,
        NextHand,
        Play,
        StartRoll,
        Swap,
        TakeDiscard,
        parse_action,
        seat_letter,
    )
    from bornes.engine.cards import (
        BATTLE_HAZARDS,
        HAZARD_KINDS,
        PAYLOAD_PREFIX,
        SAFETY_KINDS,
        Card,
        CardCodeError,
        CardKind,
        Category,
        deck_counts,
        full_deck,
        iter_deck,
    )
    from bornes.engine.compiled import engine_build
    from bornes.engine.game import Game, ReplayError
    from bornes.engine.options import EDITIONS, OptionError, RuleOptions, edition
    from bornes.engine.reasons import Reason, Refusal
    from bornes.engine.record import RecordError, iter_record, read_header, read_record, write_header
    from bornes.engine.rules import (
        Accepted,
        answer_action,
        apply,
        attacked_side,
        laid_action,
        new_game,
        play_action,
        target_choices,
        validate,
    )
    from bornes.engine.scoring import ROWS_CLASSIC, ROWS_TOTALS, hand_points
    from bornes.engine.simulate import PhysicalTable, Simulation
    from bornes.engine.state import (
        MAX_NAME_LENGTH,
        Event,
        EventCode,
        GameSetup,
        GameState,
        Phase,
        ScoreSheet,
        SetupError,
        battle_status,
        check_name,
        check_names,
    )
    from bornes.engine.views import sheets_list, table_dict, verdict_dict

#: public name -> the submodule that defines it.
_HOMES: dict[str, str] = {
    **dict.fromkeys(
        ("Action", "CoupFourre", "Discard", "EndHand", "Extension", "FastRemedy", "Leftover", "NextHand", "Play",
         "StartRoll", "Swap", "TakeDiscard", "parse_action", "seat_letter"), "actions"),
    **dict.fromkeys(
        ("BATTLE_HAZARDS", "HAZARD_KINDS", "PAYLOAD_PREFIX", "SAFETY_KINDS", "Card", "CardCodeError", "CardKind",
         "Category", "deck_counts", "full_deck",
         "iter_deck"), "cards"),
    **dict.fromkeys(("engine_build",), "compiled"),
    **dict.fromkeys(("Game", "ReplayError"), "game"),
    **dict.fromkeys(("EDITIONS", "OptionError", "RuleOptions", "edition"), "options"),
    **dict.fromkeys(("Reason", "Refusal"), "reasons"),
    **dict.fromkeys(("RecordError", "iter_record", "read_header", "read_record", "write_header"), "record"),
    **dict.fromkeys(
        ("Accepted", "answer_action", "apply", "attacked_side", "laid_action", "new_game", "play_action",
         "target_choices", "validate"), "rules"),
    **dict.fromkeys(("ROWS_CLASSIC", "ROWS_TOTALS", "hand_points"), "scoring"),
    **dict.fromkeys(("PhysicalTable", "Simulation"), "simulate"),
    **dict.fromkeys(
        ("MAX_NAME_LENGTH", "Event", "EventCode", "GameSetup", "GameState", "Phase", "ScoreSheet", "SetupError",
         "battle_status", "check_name", "check_names"), "state"),
    **dict.fromkeys(("sheets_list", "table_dict", "verdict_dict"), "views"),
}

__all__ = [
    "BATTLE_HAZARDS",
    "EDITIONS",
    "HAZARD_KINDS",
    "MAX_NAME_LENGTH",
    "PAYLOAD_PREFIX",
    "ROWS_CLASSIC",
    "ROWS_TOTALS",
    "SAFETY_KINDS",
    "Accepted",
    "Action",
    "Card",
    "CardCodeError",
    "CardKind",
    "Category",
    "CoupFourre",
    "Discard",
    "EndHand",
    "Event",
    "EventCode",
    "Extension",
    "FastRemedy",
    "Game",
    "GameSetup",
    "GameState",
    "Leftover",
    "NextHand",
    "OptionError",
    "Phase",
    "PhysicalTable",
    "Play",
    "Reason",
    "RecordError",
    "Refusal",
    "ReplayError",
    "RuleOptions",
    "ScoreSheet",
    "SetupError",
    "Simulation",
    "StartRoll",
    "Swap",
    "TakeDiscard",
    "answer_action",
    "apply",
    "attacked_side",
    "battle_status",
    "check_name",
    "check_names",
    "deck_counts",
    "edition",
    "engine_build",
    "full_deck",
    "hand_points",
    "iter_deck",
    "iter_record",
    "laid_action",
    "new_game",
    "parse_action",
    "play_action",
    "read_header",
    "read_record",
    "seat_letter",
    "sheets_list",
    "table_dict",
    "target_choices",
    "validate",
    "verdict_dict",
    "write_header",
]


def __getattr__(name: str) -> object:
    """Load a public name's submodule on first use (PEP 562)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value: object = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # the next lookup is a plain module attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})
