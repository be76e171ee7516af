"""Gestures, counted: how many inputs (taps and presses) each kind of action takes at the table.

Every feed game in ``tests/flow/games`` is played through the real table flow; the inputs are
cut into gestures, each ending where the referee accepts an action (or takes one back), and
each gesture is filed under the kind of action it made. A refused card that leaves nothing
armed is a mistake the player takes back, so it starts the count again. "New game" is counted
from a fresh appliance whose config names the table, up to the first accepted deal.

``python -m bench.gestures`` prints the table; ``python -m bench --only gestures`` puts the same
rows in the bench table, each against its budget.
"""

from __future__ import annotations

import statistics
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from bornes.drivers.events import ButtonPressed
from bornes.drivers.readers.resolver import CardResolver
from bornes.engine.actions import CoupFourre, Discard, FastRemedy, Play
from bornes.firmware.commands.feed import input_event, parse_setup
from bornes.firmware.table.flow import Mode, Outcome, TableFlow

GAMES = Path(__file__).resolve().parent.parent / "tests" / "flow" / "games"

PLAIN = "plain play"  # a card on your own piles, or a hazard only one side can take
DISCARD = "discard"
COUP = "coup fourré (caller known)"
COUP_ASKED = "coup fourré (partner asked)"
HAZARD_3 = "hazard, three sides"  # the target is asked when two sides can take it
UNDO = "undo"
NEW_GAME = "new game, configured table"
# The same gestures at a table with a pile pad per seat (docs/readers.md, Pads): the pad names the pile.
PAD_PLAIN = "plain play, own pad"
PAD_DISCARD = "discard, discard pad"
PAD_COUP = "coup fourré, own pad"
PAD_HAZARD_3 = "hazard, three sides, their pad"

#: The most inputs each kind may take (issue 9: "plain play 1, discard 2, coup fourré 2 (3 only
#: when the referee cannot tell the partner), hazard in a three-side game at most 3, undo 2,
#: new game from a configured table 1").
BUDGETS: dict[str, int] = {PLAIN: 1, DISCARD: 2, COUP: 2, COUP_ASKED: 3, HAZARD_3: 3, UNDO: 2, NEW_GAME: 1,
                           # issue 18: with pads, each is one tap
                           PAD_PLAIN: 1, PAD_DISCARD: 1, PAD_COUP: 1, PAD_HAZARD_3: 1}
_ON_PADS = {PLAIN: PAD_PLAIN, DISCARD: PAD_DISCARD, COUP: PAD_COUP, COUP_ASKED: PAD_COUP, HAZARD_3: PAD_HAZARD_3}


@dataclass
class Tally:
    """Inputs per gesture, by kind, and where each was seen (game file and line)."""

    counts: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    seen_in: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))

    def add(self, kind: str, inputs: int, where: str) -> None:
        self.counts[kind].append(inputs)
        self.seen_in[kind].add(where)


def _kind(flow: TableFlow, outcome: Outcome, undo_confirmed: bool, partner_asked: bool) -> str | None:
    """The kind of an accepted gesture, or None for the ones the budgets do not cover (next hand…)."""
    if undo_confirmed:
        return UNDO
    action = outcome.action
    state = flow.state
    if isinstance(action, Discard):
        return DISCARD
    if isinstance(action, CoupFourre | FastRemedy):
        return COUP_ASKED if partner_asked else COUP
    if isinstance(action, Play) and state is not None:
        if action.card.kind.is_hazard and state.setup.side_count == 3:
            return HAZARD_3
        return PLAIN
    return None


def _on_pad(event: object) -> bool:
    """Laid on a seat's or the discard pile's pad (the table's own pad is the one-reader table)."""
    pad = getattr(event, "pad", None)
    return pad is not None and pad != "table"


def count_script(text: str, name: str, tally: Tally) -> None:
    """Play one feed script and file each of its gestures."""
    resolver = CardResolver()
    flow = TableFlow()
    inputs = 0
    partner_asked = False
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        if words[0].lower() == "setup":
            flow.start_game(parse_setup(words[1:]))
            inputs, partner_asked = 0, False
            continue
        event = input_event(words, resolver)
        undo_confirmed = (flow.ui.mode is Mode.UNDO_CONFIRM and isinstance(event, ButtonPressed)
                          and event.name == "OK")
        outcome = flow.handle(event)
        inputs += 1
        partner_asked |= flow.ui.mode is Mode.PARTNER
        if outcome.verdict == "accepted":
            kind = _kind(flow, outcome, undo_confirmed, partner_asked)
            if kind is not None and _on_pad(event):
                kind = _ON_PADS.get(kind, kind)
            if kind is not None:
                tally.add(kind, inputs, f"{name}:{number}")
            inputs, partner_asked = 0, False
        elif outcome.verdict == "refused" and not (flow.ui.armed.discard or flow.ui.armed.cf or flow.ui.choice.pending):
            inputs, partner_asked = 0, False  # the card goes back to the hand: the gesture starts again
        elif outcome.verdict == "ignored" or (outcome.verdict == "prompt" and flow.ui.mode is Mode.PLAY
                                              and not (flow.ui.armed.discard or flow.ui.armed.cf)):
            inputs, partner_asked = 0, False  # a cancel or an idle press: nothing under way


def count_new_game(names: tuple[str, ...], tally: Tally) -> None:
    """A fresh appliance whose config names the table: inputs until the first deal is accepted."""
    flow = TableFlow(edition="winning-moves", players=len(names), names=names, configured=True)
    for inputs in range(1, 20):
        outcome = flow.handle(ButtonPressed("OK"))
        if flow.game is not None:
            tally.add(NEW_GAME, inputs, f"configured {len(names)}-player table")
            return
        if outcome.refused:
            break
    tally.add(NEW_GAME, 99, "configured table: OK never started a game")


def count_all(games: Path = GAMES) -> Tally:
    tally = Tally()
    for script in sorted(games.glob("*.feed")):
        count_script(script.read_text(encoding="utf-8"), script.stem, tally)
    for names in (("Ann", "Bob"), ("Ann", "Bob", "Chloé"), ("Ann", "Bob", "Chloé", "Dmitri")):
        count_new_game(names, tally)
    return tally


@dataclass(frozen=True)
class GestureRow:
    kind: str
    seen: int
    most: int
    median: float
    budget: int

    @property
    def met(self) -> bool:
        return self.seen > 0 and self.most <= self.budget


def rows(tally: Tally | None = None) -> list[GestureRow]:
    """One row per kind with a budget; a kind the games never show is a row with 0 seen (not met)."""
    tally = tally or count_all()
    found = []
    for kind, budget in BUDGETS.items():
        values = tally.counts.get(kind, [])
        found.append(GestureRow(kind, len(values), max(values, default=0),
                                statistics.median(values) if values else 0.0, budget))
    return found


def main() -> int:
    tally = count_all()
    table = rows(tally)
    width = max(len(r.kind) for r in table)
    print(f"inputs per gesture, from {len(list(GAMES.glob('*.feed')))} feed games in {GAMES.relative_to(Path.cwd())}"
          if GAMES.is_relative_to(Path.cwd()) else f"inputs per gesture, from the feed games in {GAMES}")
    print(f"| {'action':<{width}} | seen | inputs (most / median) | budget | met? |")
    print(f"|{'-' * (width + 2)}|------|------------------------|--------|------|")
    for r in table:
        print(f"| {r.kind:<{width}} | {r.seen:>4} | {r.most:>4} / {r.median:<15g} | {r.budget:>6} | "
              f"{'yes' if r.met else 'NO':<4} |")
    return 0 if all(r.met for r in table) else 1


if __name__ == "__main__":
    sys.exit(main())
