"""Regenerate the regression records: ``python -m tests.engine.make_records`` (then review the diff!).

Each record is one complete game played by the simulator's bots from a fixed seed; next to it the
JSON of every hand's score sheet as ``bornes replay --json`` prints them.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from bornes.engine.options import EDITIONS
from bornes.engine.record import write_record
from bornes.engine.simulate import Simulation
from bornes.engine.state import GameSetup
from bornes.engine.views import sheets_list

HERE = Path(__file__).parent / "records"

#: name, edition, players, teams, option overrides, seed
GAMES = [
    ("winning-moves-2p", "winning-moves", ["Ann", "Bob"], None, {}, 11),
    ("parker-1988-6p", "parker-1988", ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay"], None, {}, 12),
    ("hasbro-2016-4p-teams-fast", "hasbro-2016", ["Ann", "Bob", "Cy", "Dee"], True, {"fast_play": "yes"}, 13),
    ("dujardin-3p", "dujardin", ["Ann", "Bob", "Cy"], None, {}, 14),
    ("1000-bornes-5p", "1000-bornes", ["Ann", "Bob", "Cy", "Dee", "Eve"], None, {}, 15),
]


def play_game(edition: str, names: list[str], teams: bool | None, options: dict[str, str], seed: int):  # type: ignore[no-untyped-def]
    opts = EDITIONS[edition].options.with_strings(options)
    setup = GameSetup.create(edition, names, teams=teams, dealer=len(names) - 1, options=opts)
    sim = Simulation(setup, random.Random(seed))
    sim.run(10_000 if opts.game_target else 1)
    assert sim.report.failures == [], sim.report.failures[:3]
    game = sim.report.games_played[0]
    assert game.state.over
    return setup, game


def main() -> None:
    HERE.mkdir(exist_ok=True)
    for name, edition, names, teams, options, seed in GAMES:
        setup, game = play_game(edition, names, teams, options, seed)
        text = write_record(setup, game.log)
        comment = f"; {name}: a whole game played by the simulator's bots, seed {seed}\n"
        (HERE / f"{name}.record").write_text(text.replace("\n\n", "\n\n" + comment, 1), encoding="utf-8")
        expected = {
            "sheets": sheets_list(game.state),
            "winner": game.state.winner,
            "tie": game.state.tie,
            "actions": len(game.log),
        }
        (HERE / f"{name}.json").write_text(json.dumps(expected, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(name, len(game.log), "actions,", len(game.state.sheets), "hands")


if __name__ == "__main__":
    main()
