"""``bornes demo``: a simulated table played end to end through the real referee.

Bots deal and play real hidden hands (the simulator's physical cards) and tap every card
as a line on a pseudo-terminal, so each input crosses the real reader driver, the input
queue, the referee loop, the journal and the screens, exactly like a card on a Pi. Buttons
come as control tags (``MB-CMD-OK``) through the same reader, or as the events the button
driver would queue for a long press.
"""

from __future__ import annotations

import argparse
import os
import queue
import random
import sys
import tempfile
import threading
import time
from typing import Any

from bornes.drivers.errors import EX_USAGE, UserError
from bornes.drivers.events import ButtonPressed, InputEvent
from bornes.engine import EDITIONS, GameSetup, OptionError, SetupError, Simulation
from bornes.firmware.appliance import progress
from bornes.firmware.appliance.referee import STOP, Referee
from bornes.firmware.table.bots import BotError, BotHands, play_table
from bornes.firmware.table.flow import Outcome, TableFlow
from bornes.firmware.table.present import format_sheet

NAMES = ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--edition", default="winning-moves", choices=list(EDITIONS))
    parser.add_argument("--players", type=int, default=4)
    teams = parser.add_mutually_exclusive_group()
    teams.add_argument("--teams", dest="teams", action="store_true", default=None)
    teams.add_argument("--solo", dest="teams", action="store_false")
    parser.add_argument("--hands", type=int, default=1, help="hands to play (default 1)")
    parser.add_argument("--seed", type=int, default=1, help="the shuffle; the same seed plays the same game")
    parser.add_argument("--gif", metavar="FILE", help="record the OLED as an animated GIF")
    parser.add_argument("--display", choices=("terminal", "pygame", "dummy", "capture"),
                        help="where the OLED is shown (default: the terminal if there is one)")
    parser.add_argument("--wide", action="store_true", help="emulate the 256x64 ssd1322 panel")
    parser.add_argument("--pace", type=float, help="seconds between taps (default 0.4 on a terminal, 0 otherwise)")
    parser.add_argument("--state-dir", help="journal directory (default: a temporary one)")


class PtyTaps:
    """The bots' fingers: cards and control tags written on the pty, long presses queued like the button driver."""

    def __init__(self, master: int, events: queue.Queue[Any], outcomes: queue.Queue[Any], pace: float) -> None:
        self.master = master
        self.events = events
        self.outcomes = outcomes
        self.pace = pace
        self.inputs = 0

    def tap(self, payload: str) -> Outcome:
        """A card or control tag crossing the real reader path."""
        os.write(self.master, (payload + "\r\n").encode("ascii"))
        return self._answer(payload)

    def hold(self, button: str) -> Outcome:
        """A long press, as the button driver queues it."""
        self.events.put(ButtonPressed(button, long=True))
        return self._answer(f"long {button}")

    def _answer(self, what: str) -> Outcome:
        self.inputs += 1
        try:
            _event, outcome = self.outcomes.get(timeout=15)
        except queue.Empty:
            raise BotError(f"the referee did not answer {what}") from None
        if self.pace:
            time.sleep(self.pace)
        return outcome  # type: ignore[no-any-return]


def run(args: argparse.Namespace) -> int:
    if args.hands < 1:
        raise UserError("--hands must be at least 1", EX_USAGE)
    # Names for any count asked, so the engine's refusal names the real allowed counts.
    names = [NAMES[i] if i < len(NAMES) else f"P{i + 1}" for i in range(max(0, args.players))]
    try:
        setup = GameSetup.create(args.edition, names, teams=args.teams)
    except (SetupError, OptionError) as error:
        raise UserError(str(error), EX_USAGE) from None
    tty = sys.stdout.isatty()
    pace = args.pace if args.pace is not None else (0.4 if tty else 0.0)
    with tempfile.TemporaryDirectory(prefix="bornes-demo-") as scratch:
        state_dir = args.state_dir or scratch
        return _play(args, setup, state_dir, tty, pace)


def _wait_for_reader(events: queue.Queue[Any]) -> None:
    """The reader's first event says it opened the pty; then the referee loop may start."""
    from bornes.drivers.events import ReaderBack

    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            if isinstance(events.get(timeout=0.5), ReaderBack):
                return
        except queue.Empty:
            continue
    raise BotError("the pty reader did not open")


def _open_display(args: argparse.Namespace, tty: bool, scratch: str) -> Any:
    from bornes.drivers.display import open_display
    from bornes.drivers.display.terminal import too_small

    size = (256, 64) if args.wide else (128, 64)
    small = too_small(size)  # the terminal view draws the panel 1:1 in half blocks, a log below
    panel = args.display or ("gif" if args.gif else ("terminal" if tty and small is None else "dummy"))
    if tty and small is not None and args.display is None and not args.gif:
        print(f"bornes demo: {small}. Playing unseen.")
    if args.gif and args.display not in (None, "gif"):
        raise UserError("--gif records the OLED by itself: leave out --display", EX_USAGE)
    frames = os.path.join(scratch, "frames")
    return open_display(panel, size=size, gif_path=args.gif or "bornes.gif", capture_dir=frames)


def _hands_done(flow: TableFlow) -> int:
    state = flow.state  # read from the progress thread: a reference to an immutable state
    return len(state.sheets) if state is not None else 0


def _play(args: argparse.Namespace, setup: GameSetup, state_dir: str, tty: bool, pace: float) -> int:
    from bornes.drivers.readers import open_reader
    from bornes.firmware.storage.journal import Journal
    from bornes.firmware.storage.store import JournalStore

    events: queue.Queue[Any] = queue.Queue()
    outcomes: queue.Queue[tuple[InputEvent, Outcome]] = queue.Queue()
    master, slave = os.openpty()
    journal = Journal.open(state_dir)
    if journal.current_game() is not None:
        raise UserError(f"{state_dir} holds a game in progress: use another --state-dir", EX_USAGE)
    store = JournalStore(journal)
    flow = TableFlow(edition=setup.edition, players=setup.seats, names=setup.names, dealer=0, store=store)
    flow.draft.teams = setup.teams
    display = _open_display(args, tty, state_dir)
    reader = open_reader("lines", os.ttyname(slave), events, double_read_window=0.0)
    referee = Referee(flow, events, display=display, on_outcome=lambda e, o: outcomes.put((e, o)), watchdog=False)
    stop = threading.Event()
    table = PtyTaps(master, events, outcomes, pace)
    sim = Simulation(setup, random.Random(args.seed))
    bot_hands = BotHands(flow, table.tap, table.hold)
    result: dict[str, Any] = {"hands": 0, "refused": [], "error": None}
    started = time.perf_counter()

    def bots() -> None:
        try:
            result["hands"], result["refused"] = play_table(flow, bot_hands, sim, args.hands)
        except Exception as error:  # reported below as one line
            result["error"] = f"{type(error).__name__}: {error}"
        finally:
            events.put(STOP)

    try:
        _wait_for_reader(events)
        threading.Thread(target=bots, name="bots", daemon=True).start()
        # A bar on standard error, unless the OLED itself is being drawn in this terminal.
        shown = progress.wanted() and getattr(display, "name", "") != "terminal"
        with progress.watching(args.hands, "hand", lambda: _hands_done(flow), enabled=shown):
            referee.run(stop)  # the main thread owns the journal, the display and pygame
        elapsed = time.perf_counter() - started
    finally:
        stop.set()
        reader.close()
        display.close()
        journal.close()
        os.close(master)
        os.close(slave)
    if result["error"]:
        raise BotError(result["error"])
    hands = result["hands"]
    refused = result["refused"]
    game = flow.game
    assert game is not None
    final = flow.state
    assert final is not None
    if tty and (args.display in (None, "terminal")) and not args.gif:
        print("\033[2J\033[H", end="")
    print(f"{setup.edition_info.title}: {', '.join(setup.names)}, seed {args.seed}")
    for sheet in final.sheets:
        print(format_sheet(final, sheet))
    if final.over:
        if final.winner is None:
            print("Game over: a tie")
        else:
            verb = "win" if final.setup.teams else "wins"
            print(f"Game over: {final.setup.side_name(final.winner)} {verb}")
    problems = refused + sim.report.failures
    print(f"{hands} hand(s), {len(game.log)} actions, {table.inputs} taps and presses, "
          f"{len(problems)} problems, {elapsed:.1f} s" + (f"; OLED recorded to {args.gif}" if args.gif else ""))
    for problem in problems[:10]:
        print(f"  PROBLEM {problem}")
    return 0 if not problems else 1
