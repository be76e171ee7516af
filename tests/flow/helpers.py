"""Drive a TableFlow with the words of a feed script: ``"scan MB-ROLL-01"``, ``"press OK"``, ``"press BACK long"``."""

from __future__ import annotations

from bornes.drivers.readers.resolver import CardResolver
from bornes.engine.game import Game
from bornes.engine.options import EDITIONS
from bornes.engine.state import GameSetup
from bornes.firmware.commands.feed import input_event
from bornes.firmware.storage.store import MemoryStore, Store
from bornes.firmware.table.flow import Outcome, TableFlow

RESOLVER = CardResolver()


def event(line: str) -> object:
    return input_event(line.split(), RESOLVER)


def drive(flow: TableFlow, *lines: str) -> list[Outcome]:
    return [flow.handle(event(line)) for line in lines]  # type: ignore[arg-type]


def accept(flow: TableFlow, *lines: str) -> list[Outcome]:
    """Every line must be accepted or open a prompt."""
    outcomes = drive(flow, *lines)
    for line, outcome in zip(lines, outcomes, strict=True):
        assert outcome.verdict in ("accepted", "prompt"), f"{line!r}: {outcome}"
    return outcomes


def setup(edition: str, names: str, dealer: int, teams: bool | None = None, **options: str) -> GameSetup:
    opts = EDITIONS[edition].options.with_strings(options) if options else None
    return GameSetup.create(edition, names.split(","), teams=teams, dealer=dealer, options=opts)


def table(
    edition: str = "winning-moves",
    names: str = "Ann,Bob",
    dealer: int | None = None,
    *,
    teams: bool | None = None,
    store: Store | None = None,
    **options: str,
) -> TableFlow:
    """A flow with a game started as a feed ``setup`` line would; the last seat deals so A starts."""
    count = len(names.split(","))
    flow = TableFlow(store=store or MemoryStore())
    flow.start_game(setup(edition, names, count - 1 if dealer is None else dealer, teams, **options))
    return flow


def game_flow(game: Game, store: Store | None = None) -> TableFlow:
    return TableFlow(store=store or MemoryStore(), game=game)
