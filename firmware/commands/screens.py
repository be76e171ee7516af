"""``bornes screens --out DIR``: every screen for a sample game, as PNGs a person can look over at once."""

from __future__ import annotations

import argparse
from pathlib import Path

from engine.actions import Action, Play
from firmware.errors import EX_IOERR, UserError
from firmware.flow import Outcome
from firmware.screens.model import ScreenView, TableView


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, metavar="DIR", help="folder for the PNG files (created if needed)")
    parser.add_argument("--scale", type=int, default=1, metavar="N",
                        help="also enlarge each pixel N times, for a desktop screen (default 1: panel pixels)")
    parser.add_argument("--size", choices=("128x64", "256x64", "both"), default="both", help="panel size(s)")
    parser.add_argument("--game", type=int, metavar="SEED",
                        help="instead of the samples: play a seeded 6-player game through the table flow and save "
                             "the first screen of each kind the table meets")


def run(args: argparse.Namespace) -> int:
    from PIL import Image

    from firmware.screens import SMALL, WIDE, render
    from firmware.screens.samples import sample_screens

    if not 1 <= args.scale <= 16:
        raise UserError("--scale must be between 1 and 16")
    sizes = {"128x64": [SMALL], "256x64": [WIDE], "both": [SMALL, WIDE]}[args.size]
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UserError(f"cannot create {out}: {error.strerror}", EX_IOERR) from None
    views = game_screens(args.game) if args.game is not None else sample_screens()
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


def game_screens(seed: int) -> dict[str, ScreenView]:
    """Play a real game with bots, straight into the table flow, and keep each kind of screen once."""
    import random

    from drivers.events import ButtonPressed
    from drivers.readers.resolver import CardResolver
    from engine.simulate import Simulation
    from engine.state import GameSetup
    from firmware.bots import BotHands, play_table
    from firmware.flow import TableFlow
    from firmware.present import screen

    names = ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay")
    setup = GameSetup.create("winning-moves", names)
    flow = TableFlow(edition=setup.edition, players=setup.seats, names=names)
    resolver = CardResolver()
    seen: dict[str, ScreenView] = {}

    def keep() -> None:
        view = screen(flow)
        key = type(view).__name__
        if isinstance(view, TableView) and view.message is not None:
            key += "-refused" if view.message.refused else "-message"
        seen.setdefault(key, view)

    def tap(payload: str) -> Outcome:
        outcome = flow.handle(resolver.resolve(payload))
        keep()
        return outcome

    def hold(button: str) -> Outcome:
        outcome = flow.handle(ButtonPressed(button, long=True))
        keep()
        return outcome

    def provoke(action: Action, outcome: Outcome) -> None:
        """Once, mid-game, the inputs that change nothing: a card scanned twice, UNDO then BACK, an idle NEXT."""
        if "TableView-refused" not in seen and isinstance(action, Play):
            tap(action.card.code())
            tap("MB-CMD-UNDO")
            tap("MB-CMD-BACK")
            tap("MB-CMD-NEXT")

    keep()
    play_table(flow, BotHands(flow, tap, hold), Simulation(setup, random.Random(seed)), wanted=100, after_step=provoke)
    return {f"game-{key}": view for key, view in seen.items()}
