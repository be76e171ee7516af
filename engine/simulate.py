"""A simulated table: real hidden hands, simple bots, and the referee checked after every action.

The simulator owns the physical cards (a seeded shuffle of the real deck, real hands, a real
draw pile) and drives the same engine a real table drives, through actions only. After each
accepted action it checks that the engine's public counts match the physical piles. Bots pick
only actions the engine says are legal: they never know a rule themselves.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import cast

from bornes.engine.actions import (
    Action,
    ActionKind,
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
)
from bornes.engine.cards import CLASSIC_COUNTS, Card, CardKind, iter_deck
from bornes.engine.game import Game
from bornes.engine.options import EmptyDrawPile
from bornes.engine.record import read_record, write_record
from bornes.engine.rules import Accepted, kind_refusal, legal_actions, turn_options, validate
from bornes.engine.state import HAND_SIZE, Event, EventCode, GameSetup, GameState, Phase

# Enum members read on every action, bound once as module globals: on Python 3.11 (Raspberry Pi
# OS bookworm) ``Phase.PLAY`` goes through the slot hook of EnumType.__getattr__, ~870 instructions a
# read, where a global is one specialised LOAD_GLOBAL (3.12 dropped the hook).
_ACTION_FAST_REMEDY = ActionKind.FAST_REMEDY
_ACTION_SWAP = ActionKind.SWAP
_ACTION_TAKE_DISCARD = ActionKind.TAKE_DISCARD
_DRAW_RESHUFFLE = EmptyDrawPile.RESHUFFLE
_EVENT_COUP_FOURRE = EventCode.COUP_FOURRE
_EVENT_TRIP_COMPLETED = EventCode.TRIP_COMPLETED
_KIND_ROLL = CardKind.ROLL
_PHASE_EXTENSION = Phase.EXTENSION
_PHASE_GAME_OVER = Phase.GAME_OVER
_PHASE_HAND_OVER = Phase.HAND_OVER
_PHASE_LEFTOVERS = Phase.LEFTOVERS
_PHASE_START_ROLLS = Phase.START_ROLLS

TURN_KINDS = frozenset({ActionKind.PLAY, ActionKind.DISCARD})
COUP_KINDS = frozenset({ActionKind.COUP_FOURRE})
FAST_KINDS = frozenset({ActionKind.FAST_REMEDY})
TAKE_KINDS = frozenset({ActionKind.TAKE_DISCARD})

#: A hand that runs this many actions without end is reported as a failure.
RUNAWAY_ACTIONS = 3000


@dataclass
class SimulationReport:
    """What a simulation run did and found."""

    hands: int = 0
    games: int = 0
    actions: int = 0
    coups_fourres: int = 0
    extensions: int = 0
    trips: int = 0
    reshuffles: int = 0
    blocked: int = 0
    failures: list[str] = field(default_factory=list)
    games_played: list[Game] = field(default_factory=list)

    @property
    def invariant_failures(self) -> int:
        return len(self.failures)

    def as_dict(self) -> dict[str, object]:
        return {
            "hands": self.hands,
            "games": self.games,
            "actions": self.actions,
            "coups_fourres": self.coups_fourres,
            "extensions": self.extensions,
            "trips_completed": self.trips,
            "reshuffles": self.reshuffles,
            "blocked_hands": self.blocked,
            "invariant_failures": self.invariant_failures,
            "failure_samples": self.failures[:10],
        }


class PhysicalTable:
    """The real cards: draw pile, hands, discard pile, the cards on the table."""

    def __init__(self, setup: GameSetup, rng: random.Random) -> None:
        self.setup = setup
        self.rng = rng
        self.deck = list(iter_deck(setup.deck))
        self.deck_set = frozenset(self.deck)
        self.pile: list[Card] = []
        self.hands: list[list[Card]] = []
        self.discard: list[Card] = []
        self.table: set[Card] = set()
        self.shown: set[Card] = set()
        self.start_rolls: dict[int, Card] = {}

    def new_hand(self, dealer: int) -> None:
        seats = self.setup.seats
        cards = list(self.deck)
        self.rng.shuffle(cards)
        self.start_rolls = {}
        if self.setup.options.youngest_start_rolling:
            for seat in range(seats):
                roll = next(c for c in cards if c.kind is _KIND_ROLL)
                cards.remove(roll)
                self.start_rolls[seat] = roll
        self.hands = [[] for _ in range(seats)]
        for _ in range(HAND_SIZE):  # one at a time, starting on the dealer's left (000 §3)
            for step in range(1, seats + 1):
                self.hands[(dealer + step) % seats].append(cards.pop())
        self.pile = cards
        self.discard = []
        self.table = set()
        self.shown = set()

    def draw(self, seat: int) -> bool:
        """Draw like the rulebook says; True if the discards were reshuffled first."""
        reshuffled = False
        if not self.pile and self.setup.options.empty_draw_pile is _DRAW_RESHUFFLE and self.discard:
            self.pile = self.discard
            self.rng.shuffle(self.pile)
            self.discard = []
            reshuffled = True
        if self.pile:
            self.hands[seat].append(self.pile.pop())
        return reshuffled


class Bot:
    """A simple player: it asks the referee what is legal and prefers progress."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, state: GameState, seat: int, hand: list[Card]) -> tuple[Action | None, list[Card]]:
        """The action for ``seat``, and the cards it holds that had no legal action at all."""
        plays, discards = turn_options(state, seat, hand)
        # The engine lists at most one discard per card held: as many discards as cards means
        # every card has one, and no set needs building.
        stuck: list[Card] = []
        if len(discards) < len(hand):
            usable = {discard.card for discard in discards}
            if len(usable) < len(hand):
                usable.update(play.card for play in plays)
                stuck = [card for card in hand if card not in usable]
        rng = self.rng
        if plays and rng.random() < 0.1:
            return rng.choice(plays), stuck
        # The first play of the highest priority (max() would call the priority the same way, in order).
        best: Play | None = None
        best_priority = 0.0
        fixed = _FIXED_PRIORITY
        for play in plays:
            value = fixed.get(play.card)
            if value is None:
                value = self._priority(play)
            if best is None or value > best_priority:
                best, best_priority = play, value
        if best is not None and (fixed.get(best.card) or self._priority(best)) > 0:
            return best, stuck
        playable = {play.card for play in plays}
        # Discard what cannot be played if possible; else anything (safeties kept back).
        useless = [d for d in discards if d.card not in playable] or discards
        if useless:
            return self.rng.choice(useless), stuck
        return best, stuck

    def _priority(self, play: Play) -> float:
        """A taste, not a rule: the engine has already said the play is legal."""
        kind = play.card.kind
        if kind.is_remedy:
            return 50
        if kind.is_distance:
            return 40 + kind.miles / 100
        if kind.is_hazard:
            return 30 + self.rng.random()
        # Safeties are mostly kept for a coup fourré (000 §12C), sometimes laid down.
        return 45 if self.rng.random() < 0.2 else 0


#: The priorities that draw no random number (remedies, distance), per card: read without a call.
_FIXED_PRIORITY: dict[Card, float] = {
    card: (50 if card.kind.is_remedy else 40 + card.kind.miles / 100)
    for card in iter_deck(CLASSIC_COUNTS) if card.kind.is_remedy or card.kind.is_distance
}


_OneCard = Play | Discard | CoupFourre | TakeDiscard | FastRemedy | StartRoll | Leftover
_ONE_CARD = frozenset({Play, Discard, CoupFourre, TakeDiscard, FastRemedy, StartRoll, Leftover})


def _in_list(card: Card, cards: list[Card]) -> bool:
    """``card in cards``, looking at the top first: a discarded card is there, and ``in`` compares
    every card below it first."""
    return bool(cards) and (cards[-1] == card or card in cards)


class Simulation:
    """Plays hands of one table setup, checking the referee against the physical cards."""

    def __init__(
        self, setup: GameSetup, rng: random.Random, verify_replay: bool = False, keep_games: bool = True
    ) -> None:
        self.setup = setup
        self.rng = rng
        self.bot = Bot(rng)
        self.verify_replay = verify_replay
        #: Keep every finished Game in the report (tests and the bench replay them); ``bornes
        #: simulate`` does not, so its memory stays flat however many hands it plays.
        self.keep_games = keep_games
        self.report = SimulationReport()
        self.steps_in_hand = 0
        self.stale = 0
        #: The physical cards of the game played last, for a look at the end (tests).
        self.last_table: PhysicalTable | None = None

    def run(self, hands: int) -> SimulationReport:
        while self.report.hands < hands:
            self._play_game(hands)
        return self.report

    # -- one game -----------------------------------------------------------------------------

    def _play_game(self, hands_wanted: int) -> None:
        game = Game(self.setup)
        table = self.last_table = PhysicalTable(self.setup, self.rng)
        table.new_hand(game.state.hand.dealer)
        self.report.games += 1
        self.reset_hand()
        report = self.report
        next_action, push, record = self.next_action, game.push, self.record
        while True:
            state = game.state
            if state.over or state.hand.phase is _PHASE_HAND_OVER:  # state.phase, without the property's call
                report.hands += 1
                if state.over or report.hands >= hands_wanted:
                    break
            action = next_action(state, table)
            if action is None:
                break
            verdict = push(action)
            if type(verdict) is Accepted:
                record(state, verdict.state, table, action, verdict.events)
            else:
                self._fail(game, f"bot action {action.notation()} refused: {verdict}")
        if self.verify_replay:
            self._verify_replay(game)
        if self.keep_games:
            self.report.games_played.append(game)

    def reset_hand(self) -> None:
        self.steps_in_hand = 0
        self.stale = 0

    def next_action(self, state: GameState, table: PhysicalTable) -> Action | None:
        """What the table does next. For a turn this also makes the seat's real draw."""
        phase = _PHASE_GAME_OVER if state.over else state.hand.phase  # state.phase, without the property's call
        if phase is _PHASE_GAME_OVER:
            return None
        if phase is _PHASE_HAND_OVER:
            return NextHand()
        self.steps_in_hand += 1
        if self.steps_in_hand > RUNAWAY_ACTIONS:
            self.failures_add(state, f"hand {state.hand.number} ran {RUNAWAY_ACTIONS} actions without ending")
            return EndHand() if validate(state, EndHand()) is None else None
        if phase is _PHASE_START_ROLLS:
            seat = state.to_act()[0]
            return legal_actions(state, seat, (table.start_rolls[seat],))[0]
        if phase is _PHASE_EXTENSION:
            seat = state.to_act()[0]
            yes, no = legal_actions(state, seat)
            return yes if self.rng.random() < 0.5 else no
        if phase is _PHASE_LEFTOVERS:
            seat = state.to_act()[0]
            return legal_actions(state, seat, table.hands[seat][:1])[0]
        if state.hand.exhausted and self.stale > 6 * self.setup.seats and validate(state, EndHand()) is None:
            return EndHand()  # nobody can move any more: the table agrees to stop
        return self._turn_action(state, table)

    def _turn_action(self, state: GameState, table: PhysicalTable) -> Action | None:
        hand = state.hand
        window = hand.window
        if window is not None:
            # Answers to the hazard just played, from the attacker's left (000 §7): the engine says
            # who may answer and with which card.
            seats = self.setup.seats
            callers = sorted(state.window_callers(), key=lambda s: (s - window.attacker) % seats)
            for seat in callers:
                cards = table.hands[seat]
                coups = legal_actions(state, seat, cards, COUP_KINDS)
                if coups:
                    return coups[0]
                if kind_refusal(state, seat, _ACTION_FAST_REMEDY) is None and self.rng.random() < 0.7:
                    fast = legal_actions(state, seat, cards, FAST_KINDS)
                    if fast:
                        return fast[0]
        seat = hand.turn
        if not hand.drawn:
            if kind_refusal(state, seat, _ACTION_SWAP) is None and self.rng.random() < 0.05 and table.hands[seat]:
                count = self.rng.randint(1, len(table.hands[seat]))
                swap = Swap(seat, tuple(self.rng.sample(table.hands[seat], count)))
                if validate(state, swap) is None:
                    return swap
            if kind_refusal(state, seat, _ACTION_TAKE_DISCARD) is None and self.rng.random() < 0.15:
                return legal_actions(state, seat, (), TAKE_KINDS)[0]
            if table.draw(seat):
                self.report.reshuffles += 1
        # validate() judges a turn's cards after its draw (a reshuffle included), so the bot
        # asks about the state as it stands.
        action, stuck = self.bot.choose(state, seat, table.hands[seat])
        if stuck:
            self.failures_add(state, f"{self.setup.names[seat]} holds unplayable, undiscardable cards: {stuck}")
        if action is None:
            self.failures_add(state, f"{self.setup.names[seat]} has no legal action with {table.hands[seat]}")
        return action

    # -- applying and mirroring ---------------------------------------------------------------

    def record(
        self, before: GameState, after: GameState, table: PhysicalTable, action: Action, events: tuple[Event, ...]
    ) -> list[str]:
        """Mirror an accepted action on the real cards and check the referee against them."""
        report = self.report
        report.actions += 1
        kind = type(action)
        if kind is Play:  # (most actions: _mirror's first case, without the call)
            card = cast(Play, action).card
            table.hands[cast(Play, action).seat].remove(card)
            table.table.add(card)
        else:
            self._mirror(before, table, action)
        for event in events:
            code = event.code
            if code is _EVENT_TRIP_COMPLETED:
                report.trips += 1
            elif code is _EVENT_COUP_FOURRE:
                report.coups_fourres += 1
        if kind is Extension:
            report.extensions += cast(Extension, action).extend
        elif kind is NextHand:
            self.reset_hand()
        after_hand = after.hand
        before_sides = before.hand.sides
        for index, now in enumerate(after_hand.sides):  # did a side drive? (only a new side can have)
            then = before_sides[index]
            if now is not then and now.miles != then.miles:
                self.stale = 0
                break
        else:
            self.stale += 1
        # A cheap check of what one action can change, and the full sweep of every card whenever a
        # hand ends or starts.
        phase = _PHASE_GAME_OVER if after.over else after_hand.phase  # after.phase, without the call
        if phase is _PHASE_HAND_OVER or phase is _PHASE_GAME_OVER or kind is NextHand:
            problems = self.check(after, table)
        else:
            problems = self.check_step(after, table, action)
        for problem in problems:
            self.failures_add(after, f"after {action.notation()}: {problem}")
        return problems

    def _mirror(self, before: GameState, table: PhysicalTable, action: Action) -> None:
        """Move the real cards the way the accepted action says."""
        if type(action) is Play:
            table.hands[action.seat].remove(action.card)
            table.table.add(action.card)
        elif isinstance(action, Discard):
            table.hands[action.seat].remove(action.card)
            table.discard.append(action.card)
        elif isinstance(action, CoupFourre):
            window = before.hand.window
            assert window is not None
            table.hands[action.seat].remove(action.card)
            table.table.add(action.card)
            table.table.discard(window.hazard)
            table.discard.append(window.hazard)
            table.draw(action.seat)
        elif isinstance(action, FastRemedy):
            table.hands[action.seat].remove(action.card)
            table.table.add(action.card)
            table.draw(action.seat)
        elif isinstance(action, TakeDiscard):
            table.hands[action.seat].append(table.discard.pop())
        elif isinstance(action, Swap):
            for card in action.cards:
                table.hands[action.seat].remove(card)
                table.discard.append(card)
            for _ in action.cards:
                table.draw(action.seat)
        elif isinstance(action, StartRoll):
            table.table.add(action.card)
        elif isinstance(action, Leftover):
            table.hands[action.seat].remove(action.card)
            table.shown.add(action.card)
        elif isinstance(action, NextHand):
            table.new_hand((before.hand.dealer + 1) % self.setup.seats)
        # Extension and EndHand move no cards.

    def check_step(self, state: GameState, table: PhysicalTable, action: Action) -> list[str]:
        """What one action can have put out of step: the counts of every pile, the top discard, and
        where the action's own cards are. The full :meth:`check` runs at each hand's end."""
        hand = state.hand
        problems: list[str] = []
        pile, held, on_table, discarded, shown = table.pile, table.hands, table.table, table.discard, table.shown
        draw_pile = hand.draw_pile
        if draw_pile != len(pile):
            problems.append(f"draw pile {draw_pile} != {len(pile)}")
        discard = hand.discard
        if len(discard) != len(discarded) or (discard and discard[-1] != discarded[-1]):
            problems.append("discard pile differs")
        hands = hand.hands
        if tuple(map(len, held)) != hands:
            problems.append(f"hand sizes {list(hands)} != {[len(h) for h in held]}")
        laid = 0
        for battle, speed, distance, safeties, _coups, _miles in hand.sides:
            laid += len(battle) + len(speed) + len(distance) + len(safeties)
        if laid != len(on_table):
            problems.append("table cards differ")
        seen = hand.seen
        if len(seen) != len(on_table) + len(discarded) + len(shown):
            problems.append("the referee's seen cards differ from the table and discards")
        kind = type(action)
        if kind in _ONE_CARD:
            card = cast(_OneCard, action).card
            if (card in seen) != (card in on_table or card in shown or _in_list(card, discarded)):
                problems.append(f"the referee and the table disagree about {card.code()}")
        elif kind is Swap:
            for card in cast(Swap, action).cards:
                if (card in seen) != (card in on_table or card in shown or _in_list(card, discarded)):
                    problems.append(f"the referee and the table disagree about {card.code()}")
        return problems

    def check(self, state: GameState, table: PhysicalTable) -> list[str]:
        """The engine's public view must match the physical cards exactly: what differs."""
        hand = state.hand
        problems: list[str] = []
        engine_table: set[Card] = set()
        count = 0
        for side in hand.sides:
            cards = side.table_cards()
            engine_table.update(cards)
            count += len(cards)
        if count != len(engine_table) or engine_table != table.table:
            problems.append("table cards differ")
        if list(hand.discard) != table.discard:
            problems.append("discard pile differs")
        if hand.draw_pile != len(table.pile):
            problems.append(f"draw pile {hand.draw_pile} != {len(table.pile)}")
        sizes = [len(h) for h in table.hands]
        if list(hand.hands) != sizes:
            problems.append(f"hand sizes {list(hand.hands)} != {sizes}")
        waiting = [roll for roll in table.start_rolls.values() if roll not in table.table]  # not laid yet
        everywhere = set(table.pile).union(*table.hands, table.table, table.discard, table.shown, waiting)
        placed = len(table.pile) + sum(sizes) + len(table.table) + len(table.discard) + len(table.shown)
        placed += len(waiting)
        if placed != len(table.deck) or len(everywhere) != placed or not everywhere.issubset(table.deck_set):
            problems.append("a physical card is in two places or none")
        if hand.seen != engine_table.union(table.discard, table.shown):
            problems.append("the referee's seen cards differ from the table and discards")
        return problems

    def _verify_replay(self, game: Game) -> None:
        text = write_record(self.setup, game.log)
        setup, lines = read_record(text)
        if write_record(setup, [line.action for line in lines if line.action]) != text:
            self._fail(game, "the record does not round-trip")
            return
        replayed = Game(setup, [line.action for line in lines if line.action])
        if replayed.state != game.state:
            self._fail(game, "replaying the record gives another state")

    def _fail(self, game: Game, message: str) -> None:
        self.failures_add(game.state, message)

    def failures_add(self, state: GameState, message: str) -> None:
        self.report.failures.append(f"game {self.report.games} hand {state.hand.number}: {message}")


def simulate(
    setup: GameSetup, hands: int, seed: int, verify_replay: bool = False, keep_games: bool = True
) -> SimulationReport:
    """Play ``hands`` hands of ``setup`` with bots from a seeded shuffle."""
    return Simulation(setup, random.Random(seed), verify_replay, keep_games).run(hands)
