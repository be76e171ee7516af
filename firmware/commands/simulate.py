"""``bornes simulate``: bots play real hidden hands through the engine, invariants checked."""

from __future__ import annotations

import argparse
import json
import random
import time

from bornes.drivers.errors import EX_USAGE, UserError
from bornes.engine import EDITIONS, GameSetup, OptionError, SetupError, Simulation, engine_build
from bornes.firmware.appliance import progress


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--edition", default="winning-moves", choices=list(EDITIONS))
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--hands", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    teams = parser.add_mutually_exclusive_group()
    teams.add_argument("--teams", dest="teams", action="store_true", default=None, help="play in partnerships")
    teams.add_argument("--solo", dest="teams", action="store_false", help="everyone on their own")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="override a rule option")
    parser.add_argument("--verify-replay", action="store_true", help="also write, read and replay every game record")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")


def run(args: argparse.Namespace) -> int:
    if args.hands < 1:
        raise UserError("--hands must be at least 1", EX_USAGE)
    names = [f"P{i + 1}" for i in range(max(0, args.players))]
    try:
        overrides = dict(_split_option(o) for o in args.option)
        options = EDITIONS[args.edition].options.with_strings(overrides)
        setup = GameSetup.create(args.edition, names, teams=args.teams, options=options)
    except (SetupError, OptionError) as error:
        raise UserError(str(error), EX_USAGE) from None
    started, cpu_started = time.perf_counter(), time.process_time()
    # As bornes.engine.simulate.simulate, keeping no finished game: memory stays flat over any number of hands.
    sim = Simulation(setup, random.Random(args.seed), args.verify_replay, keep_games=False)
    with progress.watching(args.hands, "hand", lambda: sim.report.hands):
        report = sim.run(args.hands)
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    summary = {
        "edition": setup.edition,
        "players": setup.seats,
        "teams": setup.teams,
        "seed": args.seed,
        **report.as_dict(),
        "seconds": round(elapsed, 3),
        "hands_per_second": round(report.hands / elapsed, 1) if elapsed else None,
        # On a shared machine the wall clock counts time other processes took; the CPU time does not.
        "cpu_seconds": round(cpu, 3),
        "hands_per_cpu_second": round(report.hands / cpu, 1) if cpu else None,
        # The rules as mypyc-compiled C (a BORNES_COMPILE=1 install) or as Python: the same games, not the same speed.
        "engine": engine_build(),
    }
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(
            f"{setup.edition}, {setup.seats} players{' in teams' if setup.teams else ''}, seed {args.seed}: "
            f"{report.hands} hands in {report.games} games, {report.actions} actions, "
            f"{report.coups_fourres} coups fourrés, {report.extensions} extensions, "
            f"{report.invariant_failures} invariant failures, {summary['hands_per_second']} hands/s "
            f"({summary['engine']} engine)"
        )
        for failure in report.failures[:10]:
            print(f"  FAIL {failure}")
    return 0 if report.invariant_failures == 0 else 1


def _split_option(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep:
        raise OptionError(f"--option needs NAME=VALUE, not {text!r}")
    return name, value
