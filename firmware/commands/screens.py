"""``bornes screens --out DIR``: every screen for a sample game, as PNGs a person can look over at once."""

from __future__ import annotations

import argparse
from pathlib import Path

from bornes.drivers.errors import EX_IOERR, UserError
from bornes.engine import Action, Play
from bornes.firmware.commands import add_language_argument
from bornes.firmware.language.i18n import edition_language, speaking
from bornes.firmware.screens.model import MenuView, ScreenView, TableView
from bornes.firmware.table.flow import Outcome


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, metavar="DIR", help="folder for the PNG files (created if needed)")
    parser.add_argument("--scale", type=int, default=1, metavar="N",
                        help="also enlarge each pixel N times, for a desktop screen (default 1: panel pixels)")
    parser.add_argument("--size", choices=("128x64", "256x64", "both"), default="both", help="panel size(s)")
    parser.add_argument("--game", type=int, metavar="SEED",
                        help="instead of the samples: play a seeded game through the table flow and save "
                             "the first screen of each kind the table meets")
    parser.add_argument("--edition", default="winning-moves", help="edition of the --game (default winning-moves)")
    parser.add_argument("--players", type=int, default=6, metavar="N", help="players in the --game (default 6)")
    parser.add_argument("--teams", action=argparse.BooleanOptionalAction, default=None,
                        help="partnerships or not in the --game (default: the edition's usual way for N players)")
    add_language_argument(parser, help="language of the screens (default: the --game edition's, French for the French "
                             "editions; English for the samples)")


def run(args: argparse.Namespace) -> int:
    language = args.lang or (edition_language(args.edition) if args.game is not None else "en")
    with speaking(language):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from PIL import Image

    from bornes.firmware.screens import SMALL, WIDE, render
    from bornes.firmware.screens.samples import sample_screens

    if not 1 <= args.scale <= 16:
        raise UserError("--scale must be between 1 and 16")
    sizes = {"128x64": [SMALL], "256x64": [WIDE], "both": [SMALL, WIDE]}[args.size]
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UserError(f"cannot create {out}: {error.strerror}", EX_IOERR) from None
    if args.game is not None:
        from bornes.engine import EDITIONS, SetupError

        if args.edition not in EDITIONS:
            raise UserError(f"unknown edition {args.edition!r}; choose one of {', '.join(EDITIONS)}")
        try:
            views = game_screens(args.game, args.edition, args.players, args.teams)
        except SetupError as error:
            raise UserError(str(error)) from None
    else:
        views = sample_screens()
    count = 0
    for name, view in views.items():
        for size in sizes:
            image = render(view, size)
            if args.scale > 1:
                image = image.resize((size[0] * args.scale, size[1] * args.scale), Image.Resampling.NEAREST)
            path = out / f"{name}-{size[0]}x{size[1]}.png"
            try:
                image.save(path)
            except OSError as error:
                raise UserError(f"cannot write {path}: {error.strerror}", EX_IOERR) from None
            count += 1
    print(f"wrote {count} screens to {out}")
    return 0


#: The players of a sample game, seat A first.
SAMPLE_NAMES = ("Ann", "Bob", "Chloé", "Dmitri", "Eve", "Fay", "Gus", "Hélène")


def game_screens(seed: int, edition: str = "winning-moves", players: int = 6, teams: bool | None = None,
                 every: bool = False, hands: int = 100, names: tuple[str, ...] = SAMPLE_NAMES) -> dict[str, ScreenView]:
    """Play a real game with bots, straight into the table flow, and keep each kind of screen once.

    With ``every``, keep every distinct screen the table showed (the layout check reads them all).
    ``names`` are the players' (the first ``players`` of them).
    """
    import random

    from bornes.drivers.events import ButtonPressed
    from bornes.drivers.readers.resolver import CardResolver
    from bornes.engine import GameSetup, Phase, PhysicalTable, Simulation
    from bornes.firmware.table.bots import BotError, BotHands, same_play
    from bornes.firmware.table.flow import TableFlow
    from bornes.firmware.table.present import screen

    names = names[:players]
    setup = GameSetup.create(edition, names, teams=teams)
    flow = TableFlow(edition=edition, players=players, names=names)
    resolver = CardResolver()
    seen: dict[str, ScreenView] = {}
    distinct: set[ScreenView] = set()
    count = 0

    def keep() -> None:
        nonlocal count
        view = screen(flow)
        key = type(view).__name__
        if isinstance(view, TableView) and view.message is not None:
            key += "-refused" if view.message.refused else "-message"
        if every and view not in distinct:
            distinct.add(view)
            count += 1
            key = f"{key}-{count}"
        seen.setdefault(key, view)

    def tap(payload: str) -> Outcome:
        outcome = flow.handle(resolver.resolve(payload))
        keep()
        return outcome

    def hold(button: str) -> Outcome:
        outcome = flow.handle(ButtonPressed(button, long=True))
        keep()
        return outcome

    def provoke(action: Action) -> None:
        """Once, mid-game, the inputs that change nothing: a card scanned twice, UNDO then BACK, an idle NEXT."""
        state = flow.state
        if ("TableView-refused" not in seen and isinstance(action, Play) and state is not None
                and state.phase is Phase.PLAY):
            tap(action.card.code())
            tap("MB-CMD-UNDO")
            tap("MB-CMD-BACK")
            tap("MB-CMD-NEXT")

    keep()
    from bornes.firmware.table.flow import Mode, SetupStep

    for step in SetupStep:  # every setup screen, each menu item under the cursor once
        flow.ui.mode, flow.ui.menu.step, flow.ui.menu.cursor = Mode.SETUP, step, 0
        shown = screen(flow)
        for cursor in range(len(shown.items) if isinstance(shown, MenuView) else 1):
            flow.ui.menu.cursor = cursor
            keep()
    # the name editor on each name, first and last letter
    flow.ui.mode, flow.ui.menu.step = Mode.NAME_EDIT, SetupStep.NAMES
    for index, name in enumerate(flow.draft.names):
        flow.ui.names.index, flow.ui.names.text = index, name
        for cursor in (0, len(name)):
            flow.ui.names.cursor = cursor
            keep()
    flow.ui.mode, flow.ui.menu.step, flow.ui.menu.cursor = Mode.SETUP, SetupStep.MAIN, 0
    flow.start_game(setup)
    keep()
    sim = Simulation(setup, random.Random(seed))
    game = flow.game
    assert game is not None
    physical = PhysicalTable(setup, sim.rng)
    physical.new_hand(game.state.hand.dealer)
    bots = BotHands(flow, tap, hold)
    played = 0
    while not game.state.over and played < hands:
        state = game.state
        if state.phase is Phase.HAND_OVER:
            played += 1
        action = sim.next_action(state, physical)
        if action is None:
            raise BotError("a bot found nothing to do")
        outcome = bots.perform(state, action)
        if outcome.verdict != "accepted" or not same_play(outcome.action, action):
            raise BotError(f"{action.notation()}: {outcome.verdict} {outcome.message}")
        sim.record(state, game.state, physical, action, ())
        provoke(action)
    return {f"game-{key}": view for key, view in seen.items()}
