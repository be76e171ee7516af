"""The referee: state + action → new state + events, or a refusal with its reason.

``validate`` is the single truth for legality and ``legal_actions`` lists what it allows, for
every seat, in turn or out of turn; ``apply`` runs ``validate`` and then the effects. The table
flow, the bots and the screens all ask these functions and never re-implement a rule. Comments
cite the rulebooks in ``shared/rulebooks/`` by their number (000, 001, …).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import combinations
from typing import NamedTuple, TypeVar, cast

from bornes.engine.actions import (
    SEAT_LETTERS,
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
    seat_letter,
)
from bornes.engine.cards import CLASSIC_COUNTS, HAZARD_CURED_BY, REMEDY_FOR, Card, CardKind
from bornes.engine.options import EmptyDrawPile, RuleOptions, Scoring
from bornes.engine.reasons import Reason, Refusal
from bornes.engine.scoring import game_result, score_hand
from bornes.engine.state import (
    HAND_SIZE,
    CoupFourreWindow,
    Event,
    EventCode,
    GameSetup,
    GameState,
    HandState,
    Phase,
    SideState,
    can_move,
)

# Enum members read on every action, bound once as module globals: on Python 3.11 (Raspberry Pi
# OS bookworm) ``Phase.PLAY`` goes through the slot hook of EnumType.__getattr__, ~870 instructions a
# read, where a global is one specialised LOAD_GLOBAL (3.12 dropped the hook).
_ACTION_COUP_FOURRE = ActionKind.COUP_FOURRE
_ACTION_DISCARD = ActionKind.DISCARD
_ACTION_END_HAND = ActionKind.END_HAND
_ACTION_FAST_REMEDY = ActionKind.FAST_REMEDY
_ACTION_PLAY = ActionKind.PLAY
_ACTION_SWAP = ActionKind.SWAP
_ACTION_TAKE_DISCARD = ActionKind.TAKE_DISCARD
_DRAW_END_HAND = EmptyDrawPile.END_HAND
_DRAW_RESHUFFLE = EmptyDrawPile.RESHUFFLE
_EVENT_BLOCKED = EventCode.BLOCKED
_EVENT_COUP_FOURRE = EventCode.COUP_FOURRE
_EVENT_DISCARD = EventCode.DISCARD
_EVENT_DISTANCE = EventCode.DISTANCE
_EVENT_DRAW_PILE_EMPTY = EventCode.DRAW_PILE_EMPTY
_EVENT_EXTENSION = EventCode.EXTENSION
_EVENT_EXTENSION_ASKED = EventCode.EXTENSION_ASKED
_EVENT_FAST_REMEDY = EventCode.FAST_REMEDY
_EVENT_GAME_OVER = EventCode.GAME_OVER
_EVENT_HAND_OVER = EventCode.HAND_OVER
_EVENT_HAZARD = EventCode.HAZARD
_EVENT_NEW_HAND = EventCode.NEW_HAND
_EVENT_REMEDY = EventCode.REMEDY
_EVENT_RESHUFFLED = EventCode.RESHUFFLED
_EVENT_SAFETY = EventCode.SAFETY
_EVENT_SHOW_LEFTOVERS = EventCode.SHOW_LEFTOVERS
_EVENT_SWAP = EventCode.SWAP
_EVENT_TAKE_DISCARD = EventCode.TAKE_DISCARD
_EVENT_TRIP_COMPLETED = EventCode.TRIP_COMPLETED
_KIND_D200 = CardKind.D200
_KIND_END_OF_LIMIT = CardKind.END_OF_LIMIT
_KIND_RIGHT_OF_WAY = CardKind.RIGHT_OF_WAY
_KIND_ROLL = CardKind.ROLL
_KIND_SPEED_LIMIT = CardKind.SPEED_LIMIT
_KIND_STOP = CardKind.STOP
_PHASE_EXTENSION = Phase.EXTENSION
_PHASE_GAME_OVER = Phase.GAME_OVER
_PHASE_HAND_OVER = Phase.HAND_OVER
_PHASE_LEFTOVERS = Phase.LEFTOVERS
_PHASE_PLAY = Phase.PLAY
_PHASE_START_ROLLS = Phase.START_ROLLS
_SCORING_MILLE_BORNES_FR = Scoring.MILLE_BORNES_FR


class Accepted(NamedTuple):
    """An accepted action: the new state and what happened, in order.

    A named tuple like the states it carries: the referee makes one per action, and a frozen
    dataclass costs an ``object.__setattr__`` per field.
    """

    state: GameState
    events: tuple[Event, ...]


#: Builds a named tuple from its fields in C, without the Python ``__new__`` of each class: the
#: referee makes a hand, a side and an event or two for every action.
_make = tuple.__new__
#: A hand's fields as a plain tuple (one C copy), which unpacks in one specialised step where a
#: named tuple is iterated field by field; typed as the hand so its fields keep their types.
_as_tuple: Callable[[HandState], HandState] = tuple  # type: ignore[assignment]


Verdict = Accepted | Refusal


# -- dealing ---------------------------------------------------------------------------------


def new_game(setup: GameSetup) -> GameState:
    """A game with its first hand dealt by ``setup.dealer``."""
    return GameState(setup=setup, hand=deal(setup, 1, setup.dealer))


def deal(setup: GameSetup, number: int, dealer: int) -> HandState:
    """Six cards to each player; the player to the dealer's left starts (000 §3, §5)."""
    seats = setup.seats
    youngest = setup.options.youngest_start_rolling
    draw_pile = setup.deck_size - HAND_SIZE * seats - (seats if youngest else 0)
    options = setup.options
    return HandState(
        number=number,
        dealer=dealer,
        sides=tuple(SideState() for _ in range(setup.side_count)),
        hands=(HAND_SIZE,) * seats,
        draw_pile=draw_pile,
        turn=(dealer + 1) % seats,
        phase=_PHASE_START_ROLLS if youngest else _PHASE_PLAY,
        trip=options.trip_length(seats),
        leftovers=((),) * seats,
    )


# -- validation: the single truth --------------------------------------------------------------
#
# One small check per question ("is it this seat's turn?", "may this kind of card go on that
# side?"). ``validate`` answers one action with them, through a table keyed by the action's
# type; ``legal_actions`` asks the very same checks once per card kind and builds every action
# they allow. A check returns a ``Refusal`` whose line is written only if someone reads it.

_GAME_OVER = Refusal(Reason.GAME_OVER, "The game is over")
# Refusals whose line never changes are made once.
_HAND_IS_OVER = Refusal(Reason.WRONG_PHASE, "The hand is over: deal the next hand", {"phase": "hand-over"})
_SHOW_LEFTOVERS_FIRST = Refusal(Reason.WRONG_PHASE, "Show the cards left in hand first", {"phase": "leftovers"})
_START_ROLLS_FIRST = Refusal(Reason.WRONG_PHASE, "Everyone lays a starting Roll first", {"phase": "start-rolls"})
_NOT_NOW = Refusal(Reason.WRONG_PHASE, "Not now")
_ROLL_FIRST = Refusal(Reason.NOT_ROLLING, "Play a Roll first")
_ROLL_AGAIN = Refusal(Reason.NOT_ROLLING, "Play a Roll to go again", {"again": True})
_SPEED_LIMIT = Refusal(Reason.SPEED_LIMIT, "Speed limit: only 25 or 50")
_TOO_MANY_200 = Refusal(Reason.TOO_MANY_200, "Only two 200s per trip")
_TARGET_OWN_SIDE = Refusal(Reason.TARGET_OWN_SIDE, "Hazards go on an opponent")
_NEEDS_ROLLING_TARGET = Refusal(Reason.NEEDS_ROLLING_TARGET, "Hazard needs a rolling opponent")
_ATTACKER_NOT_STARTED = Refusal(Reason.ATTACKER_NOT_STARTED, "Start rolling before you attack")
_NO_LIMIT = Refusal(Reason.NO_LIMIT, "No speed limit to end")
_ALREADY_ROLLING = Refusal(Reason.ALREADY_ROLLING, "You are already rolling")
_SAFETY_DISCARD = Refusal(Reason.SAFETY_DISCARD, "Safeties may not be discarded in these rules")
_NO_WINDOW = Refusal(Reason.NO_WINDOW, "No hazard to answer: it must be the card just played")
_NO_TAKING = Refusal(Reason.OPTION_OFF, "These rules do not let you take from the discard pile",
                     {"option": "draw_from_discard"})
_ALREADY_DREW = Refusal(Reason.ALREADY_DREW, "You already drew this turn")
_DISCARD_EMPTY = Refusal(Reason.DISCARD_EMPTY, "The discard pile is empty")
_DISCARDS_RESHUFFLED = Refusal(Reason.DISCARD_EMPTY, "The discards are shuffled into a new draw pile",
                               {"reshuffle": True})
_SWAP_BEFORE_DRAWING = Refusal(Reason.ALREADY_DREW, "Swap instead of drawing, at the start of your turn",
                               {"action": "swap"})
_PLAY_CONTINUES = Refusal(Reason.PLAY_CONTINUES, "The hand goes on: the draw pile has cards")
_HAND_STILL_PLAYED = Refusal(Reason.WRONG_PHASE, "The hand is still being played", {"phase": "play"})
_NO_EXTENSION_TO_DECIDE = Refusal(Reason.WRONG_PHASE, "No extension to decide",
                                  {"phase": "play", "action": "extension"})
_DUPLICATE_CARD = Refusal(Reason.DUPLICATE_CARD, "The same card twice")
_NOT_A_ROLL = Refusal(Reason.NOT_A_ROLL, "Lay a Roll (Feu Vert) to start")
#: The refusals that depend only on a hazard or a remedy, one per kind.
_HAZARDS = tuple(REMEDY_FOR)
_STOPPED_BY = {
    h: Refusal(Reason.STOPPED, f"Stopped by {h.title}: play {h.remedy.title}", {"hazard": h, "remedy": h.remedy})
    for h in _HAZARDS
}
_REMEDY_FIRST = {
    h: Refusal(Reason.REMEDY_FIRST, f"Stopped by {h.title}: play {h.remedy.title} first",
               {"hazard": h, "remedy": h.remedy})
    for h in _HAZARDS
}
_NOTHING_TO_CURE = {h: Refusal(Reason.NOTHING_TO_REMEDY, f"No {h.title} to cure", {"hazard": h}) for h in _HAZARDS}
_WRONG_REMEDY = {
    h: Refusal(Reason.WRONG_REMEDY, f"Only {h.remedy.title} cures a {h.title}", {"hazard": h, "remedy": h.remedy})
    for h in _HAZARDS
}
_WRONG_SAFETY = {
    h: Refusal(Reason.WRONG_SAFETY, f"Only the {h.safety.title} answers a {h.title}", {"hazard": h, "safety": h.safety})
    for h in _HAZARDS
}


def _phase_refusal(state: GameState) -> Refusal:
    phase = state.phase
    hand = state.hand
    if phase is _PHASE_GAME_OVER:
        return _GAME_OVER
    decider = hand.decider
    if phase is _PHASE_EXTENSION and decider is not None:
        return Refusal(Reason.WRONG_PHASE, lambda: f"{state.setup.names[decider]} must decide the extension first",
                       lambda: {"phase": "extension", "seat": decider})
    if phase is _PHASE_HAND_OVER:
        return _HAND_IS_OVER
    if phase is _PHASE_LEFTOVERS:
        return _SHOW_LEFTOVERS_FIRST
    if phase is _PHASE_START_ROLLS:
        return _START_ROLLS_FIRST
    return _NOT_NOW


def _seat_refusal(state: GameState, seat: int) -> Refusal | None:
    if not 0 <= seat < state.setup.seats:
        return Refusal(Reason.NO_SUCH_SEAT, lambda: f"There is no seat {seat_letter(seat) if 0 <= seat < 8 else seat}",
                       lambda: {"seat": seat})
    return None


def _card_refusal(state: GameState, card: Card) -> Refusal | None:
    """The card must exist in this deck and must not be on the table or in the discard pile."""
    setup = state.setup
    kind, copy = card
    if copy > setup._deck.get(kind, 0):  # not setup.in_deck(card), without the call
        in_a_box = CLASSIC_COUNTS.get(card.kind, 0)
        if card.copy > in_a_box:  # no box has this copy: not a short-deck removal
            return Refusal(Reason.NOT_IN_DECK,
                           lambda: f"No such card: {card.kind.title} #{card.copy} (a deck has {in_a_box})",
                           lambda: {"card": card, "in_a_box": in_a_box})
        extra = " (taken out for 2–3 players)" if setup.short_deck else ""
        return Refusal(Reason.NOT_IN_DECK, lambda: f"{card.describe()} is not in this deck{extra}",
                       lambda: {"card": card, "short_deck": setup.short_deck})
    if card in state.hand.seen:
        return Refusal(Reason.ON_TABLE, lambda: f"That card is already on the table: {card.describe()}",
                       lambda: {"card": card})
    return None


def _can_draw(options: RuleOptions, draw_pile: int, discard: tuple[Card, ...]) -> bool:
    """A draw is possible: cards in the draw pile, or discards to shuffle into a new one (001)."""
    return draw_pile > 0 or (options.empty_draw_pile is _DRAW_RESHUFFLE and bool(discard))


def _reshuffle_pending(state: GameState) -> bool:
    hand = state.hand
    return (
        not hand.drawn
        and hand.draw_pile == 0
        and bool(hand.discard)
        and state.setup.options.empty_draw_pile is _DRAW_RESHUFFLE
    )


def _turn_refusal(state: GameState, seat: int) -> Refusal | None:
    """The seat in turn plays; it must hold a card once its draw is counted."""
    hand = state.hand
    if state.over or hand.phase is not _PHASE_PLAY:  # state.phase, without the property's call
        return _phase_refusal(state)
    if not 0 <= seat < len(state.setup.names):
        return _seat_refusal(state, seat)
    turn = hand.turn
    if seat != turn:
        return Refusal(Reason.NOT_YOUR_TURN, lambda: f"Not your turn: {state.setup.names[turn]} plays",
                       lambda: {"seat": turn})
    if hand.hands[seat] < 1 and (hand.drawn or not _can_draw(state.setup.options, hand.draw_pile, hand.discard)):
        return Refusal(Reason.HAND_EMPTY, lambda: f"{state.setup.names[seat]} has no cards left",
                       lambda: {"seat": seat})
    return None


#: Whether a side moves, its hazard and whether it is limited, per its top battle and speed cards'
#: kinds and its safeties, with the rules they were judged under (bounded; see ``_OwnSide``).
_SIDE_FACTS: dict[tuple[object, ...], tuple[RuleOptions, bool, CardKind | None, bool]] = {}
_SIDE_FACTS_LIMIT = 256
#: A side's piles as a plain tuple, which unpacks in one step (see ``_as_tuple``).
_side_fields: Callable[[SideState], SideState] = tuple  # type: ignore[assignment]


class _OwnSide:
    """What a player's own side allows, worked out once: the checks of distance and remedy cards.

    ``validate`` builds one for the card it judges; the generator builds one a turn and asks it
    for each kind of card in the hand.
    """

    __slots__ = ("battle_empty", "hazard", "index", "limited", "miles", "moving", "setup", "side", "trip")

    def __init__(self, setup: GameSetup, trip: int, index: int, side: SideState) -> None:
        self.setup = setup
        self.trip = trip
        self.index = index
        self.side = side
        battle, speed, _distance, safeties, _coups, self.miles = _side_fields(side)
        self.battle_empty = not battle
        # Rolling, stopped, limited: decided by the top battle and speed cards, the safeties and
        # the rules alone, and remembered per those (a side that drove on keeps them).
        options = setup.options
        key = (battle[-1].kind if battle else None, speed[-1].kind if speed else None, safeties)
        facts = _SIDE_FACTS.get(key)
        if facts is None or facts[0] is not options:
            if len(_SIDE_FACTS) >= _SIDE_FACTS_LIMIT:
                _SIDE_FACTS.clear()
            facts = _SIDE_FACTS[key] = (options, can_move(side, options), side.active_hazard, side.limited)
        _options, self.moving, self.hazard, self.limited = facts

    def distance(self, kind: CardKind) -> Refusal | None:
        side = self.side
        if not self.moving:
            hazard = self.hazard
            if hazard is not None:
                return _STOPPED_BY[hazard]
            return _ROLL_FIRST if not side.battle else _ROLL_AGAIN
        miles = kind.miles
        if miles > 50 and self.limited:  # 000 §6A Speed Limit
            return _SPEED_LIMIT
        if kind is _KIND_D200 and side.two_hundreds >= 2:  # 000 §6C
            return _TOO_MANY_200
        trip = self.trip
        if side.miles + miles > trip and self.setup.options.exact_trip:  # 000 §6C "Under no circumstances…"
            return Refusal(Reason.PAST_TRIP, lambda: f"Trip is exactly {trip}: {side.miles}+{miles} passes it",
                           lambda: {"trip": trip, "miles": side.miles, "card_miles": miles})
        return None

    def remedy(self, kind: CardKind) -> Refusal | None:
        if kind is _KIND_END_OF_LIMIT:
            return None if self.limited else _NO_LIMIT
        hazard = self.hazard
        if kind is _KIND_ROLL:
            if hazard is _KIND_STOP:
                return None
            if hazard is not None:
                return _REMEDY_FIRST[hazard]
            return _ALREADY_ROLLING if self.moving else None
        cured = HAZARD_CURED_BY[kind]
        if hazard is not cured:
            return _NOTHING_TO_CURE[cured]
        return None


def _own_side(state: GameState, index: int) -> _OwnSide:
    """The facts of side ``index``, remembered for one side: the generator judges the seat in turn's
    side, and the referee then checks the chosen card against the very same side."""
    hand = state.hand
    side = hand.sides[index]
    mine = _LAST_OWN[0]
    if mine.side is not side or mine.index != index or mine.setup is not state.setup or mine.trip != hand.trip:
        mine = _LAST_OWN[0] = _OwnSide(state.setup, hand.trip, index, side)
    return mine


_LAST_OWN = [_OwnSide(GameSetup.create("winning-moves", ("A", "B")), 1000, 0, SideState())]


class _Target:
    """What hazards may go on one side, remembered for every side with the same hazard facts.

    Whether a hazard may go on a side depends only on the top of its battle pile, the top of its
    speed pile and its safeties (and on the rules and which side it is, for the refusal's line):
    not on its miles. A side that only drove on keeps its verdicts. They are those of
    :func:`_hazard_on_side`, asked lazily one hazard kind at a time (see :func:`_target`).
    """

    __slots__ = ("against", "index", "mask", "setup", "side")

    def __init__(self, setup: GameSetup, index: int, side: SideState) -> None:
        self.setup = setup
        self.index = index
        self.side = side
        self.against: dict[CardKind, Refusal | None] = {}
        #: Which hazard kinds the side takes, one bit per kind of ``_HAZARDS``: worked out when asked.
        self.mask = -1

    def accepted(self) -> int:
        """The bits of the hazard kinds this side takes now (``hazard_on`` says None)."""
        mask = self.mask
        if mask < 0:
            mask = self.mask = sum(1 << bit for bit, kind in enumerate(_HAZARDS) if self.hazard_on(kind) is None)
        return mask

    def hazard_on(self, kind: CardKind) -> Refusal | None:
        """A hazard of ``kind`` played on this side by an opponent."""
        against = self.against
        if kind in against:
            return against[kind]
        verdict = against[kind] = _hazard_on_side(self.setup, self.index, self.side, kind)
        return verdict


#: The hazard facts judged lately, keyed by :func:`_target_key` (and checked against the setup):
#: a few hundred is far more than any table meets at once.
_TARGETS: dict[tuple[object, ...], _Target] = {}
_TARGETS_LIMIT = 256


def _target_key(index: int, side: SideState) -> tuple[object, ...]:
    """What a hazard's verdict on side ``index`` depends on: the top battle and speed cards' kinds and
    the safeties (``can_move``, ``active_hazard``, ``limited`` and ``has`` read nothing else)."""
    battle, speed, _distance, safeties, _coups, _miles = side
    return (index, battle[-1].kind if battle else None, speed[-1].kind if speed else None, safeties)


def _target(state: GameState, index: int) -> _Target:
    """The remembered hazard verdicts of side ``index`` of ``state`` (its hazard facts and the setup)."""
    side = state.hand.sides[index]
    key = _target_key(index, side)
    target = _TARGETS.get(key)
    if target is None or target.setup is not state.setup:
        if len(_TARGETS) >= _TARGETS_LIMIT:
            _TARGETS.clear()
        target = _TARGETS[key] = _Target(state.setup, index, side)
    return target


def _hazard_on_refusal(state: GameState, attacker_side: int, target: int, kind: CardKind) -> Refusal | None:
    """Can ``kind`` go on side ``target``? (000 §2 "HAZARD CARDS", §6; 003 notes F and G)."""
    if target == attacker_side:
        return _TARGET_OWN_SIDE
    return _target(state, target).hazard_on(kind)


def _hazard_on_side(setup: GameSetup, target: int, side: SideState, kind: CardKind) -> Refusal | None:
    """Can ``kind`` go on ``side``, side number ``target``, played by an opponent?"""
    if side.has(kind.safety):
        return Refusal(Reason.PROTECTED, lambda: f"{setup.side_name(target)} has the {kind.safety.title}",
                       lambda: {"side": target, "safety": kind.safety, "hazard": kind})
    options = setup.options
    if kind is _KIND_SPEED_LIMIT:
        # A Speed Limit may go on a side that has not started (000 §5C) or is stopped (000 §12H).
        if side.limited and not options.speed_limit_on_limit:
            return Refusal(Reason.ALREADY_LIMITED, lambda: f"{setup.side_name(target)} is already under a speed limit",
                           lambda: {"side": target})
        return None
    hazard = side.active_hazard
    if hazard is not None:
        if options.hazard_on_hazard:  # 003 note G: only the top one counts
            return None
        return Refusal(
            Reason.ALREADY_STOPPED, lambda: f"{setup.side_name(target)} is already stopped by {hazard.title}",
            lambda: {"side": target, "hazard": hazard},
        )
    if not can_move(side, options):
        return _NEEDS_ROLLING_TARGET
    return None


def _target_sides(state: GameState, own: int, kind: CardKind) -> tuple[int, ...]:
    """The sides a hazard from side ``own`` may go on right now, in side order (the one place
    targets are worked out: the check, the generator and the effect all ask it)."""
    targets: list[int] = []
    sides = state.hand.sides
    setup = state.setup
    for index in range(len(sides)):
        if index != own:
            battle, speed, _distance, safeties, _coups, _miles = sides[index]  # _target_key, without the call
            target = _TARGETS.get((index, battle[-1].kind if battle else None, speed[-1].kind if speed else None,
                                   safeties))
            if target is None or target.setup is not setup:
                target = _target(state, index)
            against = target.against
            verdict = against[kind] if kind in against else target.hazard_on(kind)
            if verdict is None:
                targets.append(index)
    return tuple(targets)


def hazard_targets(state: GameState, seat: int, kind: CardKind) -> tuple[int, ...]:
    """The sides a hazard from ``seat`` may go on right now, in side order."""
    return _target_sides(state, state.setup.side_of(seat), kind)


def _attacker_refusal(options: RuleOptions, side: SideState, kind: CardKind) -> Refusal | None:
    """Where the edition says so (``attack_needs_own_roll``), a side attacks only once it has
    started rolling, except with a Speed Limit: 001 "FAQ", "Can you play Hazard/Speed Limit cards
    on other players when you can't play a Distance card yourself?": "It seems like most versions
    of Mille Bornes allow you to play Speed Limit cards against other players even when you can't
    play Distance cards yourself. This includes when you haven't played a Drive/Roll card to start
    the round, or a Hazard card is impacting you." (docs/rules.md, D29)."""
    if (
        options.attack_needs_own_roll
        and kind is not _KIND_SPEED_LIMIT
        and not side.battle
        and not side.has(_KIND_RIGHT_OF_WAY)
    ):
        return _ATTACKER_NOT_STARTED
    return None


def _hazard_refusal(state: GameState, play: Play) -> Refusal | None:
    setup = state.setup
    own = setup._sides[play.seat]  # setup.side_of(seat)
    kind = play.card.kind
    refusal = _attacker_refusal(setup.options, state.hand.sides[own], kind)
    if refusal:
        return refusal
    target = play.target
    if target is not None:
        refusal = _seat_refusal(state, target)
        if refusal:
            return refusal
        return _hazard_on_refusal(state, own, setup._sides[target], kind)
    side_count = len(setup._side_seats)
    if side_count == 2:  # one opponent: the hazard goes there or nowhere
        return _hazard_on_refusal(state, own, 1 - own, kind)
    opponents = [side for side in range(side_count) if side != own]
    targets = _target_sides(state, own, kind)
    if len(targets) == 1:
        return None
    if not targets:
        # Every opponent refuses: say why for the first one, which is what a player asks.
        reasons = [_hazard_on_refusal(state, own, side, kind) for side in opponents]
        first = reasons[0]
        assert first is not None
        if len({r.reason for r in reasons if r}) == 1:
            return first
        return Refusal(Reason.NO_TARGET, lambda: f"No opponent can take a {kind.title} now", lambda: {"hazard": kind})
    return Refusal(
        Reason.TARGET_NEEDED, lambda: "Choose a target: " + ", ".join(setup.side_name(t) for t in targets),
        lambda: {"hazard": kind, "sides": targets},
    )


def _discard_refusal(options: RuleOptions, kind: CardKind) -> Refusal | None:
    if kind.is_safety and not options.discard_safety:
        return _SAFETY_DISCARD
    return None


def _window_refusal(state: GameState, seat: int, card: Card) -> Refusal | None:
    """Out-of-turn answers to the hazard just played: coup fourré and Fast Play remedies."""
    if state.phase is not _PHASE_PLAY:
        return _phase_refusal(state)
    return _seat_refusal(state, seat) or _card_refusal(state, card) or _window_open_refusal(state, seat)


def _window_open_refusal(state: GameState, seat: int) -> Refusal | None:
    window = state.hand.window
    if window is None:
        return _NO_WINDOW
    if state.setup.side_of(seat) != window.side:
        return Refusal(
            Reason.NOT_ATTACKED, lambda: f"Only {state.setup.side_name(window.side)} can answer that hazard",
            lambda: {"side": window.side, "hazard": window.hazard.kind},
        )
    if state.hand.hands[seat] < 1:
        return Refusal(Reason.HAND_EMPTY, lambda: f"{state.setup.names[seat]} has no cards left",
                       lambda: {"seat": seat})
    return None


def _answer_refusal(hazard: CardKind, answer: CardKind, fast: bool) -> Refusal | None:
    """The one card kind that answers a hazard: its safety (coup fourré), its remedy (Fast Play)."""
    if fast:
        if answer is not hazard.remedy:
            return _WRONG_REMEDY[hazard]
    elif answer is not hazard.safety:
        return _WRONG_SAFETY[hazard]
    return None


_FAST_PLAY_OFF = Refusal(Reason.OPTION_OFF, "Fast Play is not on", {"option": "fast_play"})


def _take_refusal_before_card(state: GameState, seat: int) -> Refusal | None:
    """Everything about taking the top discard but which card is named."""
    if not state.setup.options.draw_from_discard:
        return _NO_TAKING
    refusal = _turn_refusal(state, seat)
    if refusal:
        return refusal
    hand = state.hand
    if hand.drawn:
        return _ALREADY_DREW
    if not hand.discard:
        return _DISCARD_EMPTY
    if _reshuffle_pending(state):
        # The draw pile ran out: the discards are shuffled into a new one (001 "Playing").
        return _DISCARDS_RESHUFFLED
    return None


def _swap_refusal_before_cards(state: GameState, seat: int) -> Refusal | None:
    """Everything about a Fast Play swap but which cards are named."""
    if not state.setup.options.fast_play:
        return _FAST_PLAY_OFF
    refusal = _turn_refusal(state, seat)
    if refusal:
        return refusal
    if state.hand.drawn:
        return _SWAP_BEFORE_DRAWING
    return None


def _start_refusal_before_card(state: GameState, seat: int) -> Refusal | None:
    if state.phase is not _PHASE_START_ROLLS:
        return _phase_refusal(state)
    refusal = _seat_refusal(state, seat)
    if refusal:
        return refusal
    if seat in state.hand.started:
        return Refusal(Reason.ALREADY_STARTED, lambda: f"{state.setup.names[seat]} has laid a Roll already",
                       lambda: {"seat": seat})
    return None


def _leftover_refusal_before_card(state: GameState, seat: int) -> Refusal | None:
    if state.phase is not _PHASE_LEFTOVERS:
        return _phase_refusal(state)
    refusal = _seat_refusal(state, seat)
    if refusal:
        return refusal
    if state.hand.hands[seat] < 1:
        return Refusal(Reason.HAND_EMPTY, lambda: f"{state.setup.names[seat]} has shown every card",
                       lambda: {"seat": seat, "phase": "leftovers"})
    return None


def _end_refusal(state: GameState) -> Refusal | None:
    if state.phase is not _PHASE_PLAY:
        return _phase_refusal(state)
    if not state.hand.exhausted:
        return _PLAY_CONTINUES
    return None


def _next_refusal(state: GameState) -> Refusal | None:
    if state.phase is not _PHASE_HAND_OVER:
        if state.phase is not _PHASE_PLAY:
            return _phase_refusal(state)
        return _HAND_STILL_PLAYED
    return None


def _extension_refusal(state: GameState, seat: int) -> Refusal | None:
    if state.phase is not _PHASE_EXTENSION:
        if state.phase is not _PHASE_PLAY:
            return _phase_refusal(state)
        return _NO_EXTENSION_TO_DECIDE
    decider = state.hand.decider
    if seat != decider:
        assert decider is not None
        return Refusal(Reason.NOT_YOUR_TURN, lambda: f"{state.setup.names[decider]} decides the extension",
                       lambda: {"seat": decider, "action": "extension"})
    return None


# -- one check per action type -------------------------------------------------------------------

A = TypeVar("A", Play, Discard, CoupFourre, TakeDiscard, FastRemedy, Swap, StartRoll, Extension, Leftover,
            EndHand, NextHand)
_Check = Callable[[GameState, Action], "Refusal | None"]
_CHECKS: dict[type, _Check] = {}


def _checks(kind: type[A]) -> Callable[[Callable[[GameState, A], Refusal | None]], Callable[[GameState, A], Refusal | None]]:  # noqa: E501
    """Register the check of one action type (the dispatch table ``validate`` reads)."""

    def register(check: Callable[[GameState, A], Refusal | None]) -> Callable[[GameState, A], Refusal | None]:
        _CHECKS[kind] = cast(_Check, check)
        return check

    return register


@_checks(Play)
def _check_play(state: GameState, play: Play) -> Refusal | None:
    hand = state.hand
    if not hand.drawn and hand.draw_pile == 0 and _reshuffle_pending(state):
        # The seat in turn draws from a pile just made of the old discards: judge the card
        # as it is after that draw (001 "Should the draw pile ever run out…").
        state = counted_draw(state)
    refusal = _turn_refusal(state, play.seat) or _card_refusal(state, play.card)
    if refusal:
        return refusal
    kind = play.card.kind
    if play.target is not None and not kind.is_hazard:
        # 000 §4: remedies, safeties and distance go on your own piles, never an opponent's.
        return Refusal(Reason.NOT_A_HAZARD, lambda: f"Only a hazard goes on another side: {kind.title} is yours",
                       lambda: {"card": kind})
    if kind.is_hazard:
        return _hazard_refusal(state, play)
    if kind.is_safety:
        return None  # a safety may be played at any time (000 §5B)
    mine = _own_side(state, state.setup._sides[play.seat])
    return mine.distance(kind) if kind.is_distance else mine.remedy(kind)


@_checks(Discard)
def _check_discard(state: GameState, action: Discard) -> Refusal | None:
    if _reshuffle_pending(state):
        state = counted_draw(state)
    return (
        _turn_refusal(state, action.seat)
        or _card_refusal(state, action.card)
        or _discard_refusal(state.setup.options, action.card.kind)
    )


@_checks(CoupFourre)
def _check_coup_fourre(state: GameState, action: CoupFourre) -> Refusal | None:
    refusal = _window_refusal(state, action.seat, action.card)
    if refusal:
        return refusal
    window = state.hand.window
    assert window is not None
    return _answer_refusal(window.hazard.kind, action.card.kind, fast=False)


@_checks(FastRemedy)
def _check_fast_remedy(state: GameState, action: FastRemedy) -> Refusal | None:
    if not state.setup.options.fast_play:
        return _FAST_PLAY_OFF
    refusal = _window_refusal(state, action.seat, action.card)
    if refusal:
        return refusal
    window = state.hand.window
    assert window is not None
    return _answer_refusal(window.hazard.kind, action.card.kind, fast=True)


@_checks(TakeDiscard)
def _check_take(state: GameState, action: TakeDiscard) -> Refusal | None:
    refusal = _take_refusal_before_card(state, action.seat)
    if refusal:
        return refusal
    top = state.hand.discard[-1]
    if action.card != top:
        return Refusal(Reason.NOT_TOP_DISCARD, lambda: f"Only the top discard can be taken: {top.describe()}",
                       lambda: {"card": top})
    return None


@_checks(Swap)
def _check_swap(state: GameState, action: Swap) -> Refusal | None:
    refusal = _swap_refusal_before_cards(state, action.seat)
    if refusal:
        return refusal
    held = state.hand.hands[action.seat]
    if not 1 <= len(action.cards) <= held:
        return Refusal(Reason.SWAP_SIZE, f"Swap 1 to {held} cards", {"held": held})
    if len(set(action.cards)) != len(action.cards):
        return _DUPLICATE_CARD
    for card in action.cards:
        refusal = _card_refusal(state, card) or _discard_refusal(state.setup.options, card.kind)
        if refusal:
            return refusal
    return None


@_checks(StartRoll)
def _check_start(state: GameState, action: StartRoll) -> Refusal | None:
    if state.phase is not _PHASE_START_ROLLS:
        return _phase_refusal(state)
    refusal = _seat_refusal(state, action.seat) or _card_refusal(state, action.card)
    if refusal:
        return refusal
    if action.card.kind is not _KIND_ROLL:
        return _NOT_A_ROLL
    return _start_refusal_before_card(state, action.seat)


@_checks(Extension)
def _check_extension(state: GameState, action: Extension) -> Refusal | None:
    return _extension_refusal(state, action.seat)


@_checks(Leftover)
def _check_leftover(state: GameState, action: Leftover) -> Refusal | None:
    if state.phase is not _PHASE_LEFTOVERS:
        return _phase_refusal(state)
    return (
        _seat_refusal(state, action.seat)
        or _card_refusal(state, action.card)
        or _leftover_refusal_before_card(state, action.seat)
    )


@_checks(EndHand)
def _check_end(state: GameState, action: EndHand) -> Refusal | None:
    return _end_refusal(state)


@_checks(NextHand)
def _check_next(state: GameState, action: NextHand) -> Refusal | None:
    return _next_refusal(state)


def validate(state: GameState, action: Action) -> Refusal | None:
    """Why ``action`` is illegal in ``state``, or ``None`` when it is legal."""
    check = _CHECKS.get(type(action))
    if check is None:
        raise TypeError(f"not an action: {action!r}")
    if state.over:
        return _GAME_OVER
    return check(state, action)


# -- legal actions: the same checks, asked once per card kind ----------------------------------------


#: What one card allows the seat in turn: its plays (one per target for a hazard) and its discard.
_Entry = tuple[tuple[Play, ...], tuple[Discard, ...]]


class _SeatActions:
    """The action values of one seat and card, made once and shared: actions are immutable
    values, and building a dataclass costs more than a dictionary lookup."""

    __slots__ = ("copy", "discard", "discards", "kind", "own", "play", "plays_on")

    def __init__(self, seat: int, card: Card) -> None:
        self.kind, self.copy = card  # (a slot reads faster than a named tuple's field on Python 3.11)
        self.play = Play(seat, card)
        self.own = (self.play,)
        self.discard = Discard(seat, card)
        self.discards = (self.discard,)
        self.plays_on: dict[int, Play] = {}

    def plays_for(self, seat: int, card: Card, targets: tuple[int | None, ...]) -> tuple[Play, ...]:
        """The plays ``_play_targets``' answer means for this card."""
        if targets is _OWN_SIDE:
            return self.own
        return tuple(self.play if target is None else self.play_on(seat, card, target) for target in targets)

    def play_on(self, seat: int, card: Card, target: int) -> Play:
        play = self.plays_on.get(target)
        if play is None:
            play = self.plays_on[target] = Play(seat, card, target)
        return play


_SHARED: tuple[dict[Card, _SeatActions], ...] = tuple({} for _ in SEAT_LETTERS)  # bounded: 8 seats x the deck


def _play_targets(state: GameState, own: int, mine: _OwnSide, kind: CardKind) -> tuple[int | None, ...]:
    """The ways a card of ``kind`` may be played now: ``(None,)`` on the own side, a seat per
    target side for a hazard (its first seat), ``()`` when it may not be played at all."""
    if kind.is_hazard:
        setup = mine.setup
        if _attacker_refusal(setup.options, mine.side, kind) is not None:
            return ()
        first_seats = setup._side_seats
        seats: list[int | None] = []
        for target in _target_sides(state, own, kind):
            seats.append(first_seats[target][0])
        return tuple(seats)
    if kind.is_safety:
        return _OWN_SIDE  # a safety may be played at any time (000 §5B)
    return _OWN_SIDE if (mine.distance(kind) if kind.is_distance else mine.remedy(kind)) is None else _NOWHERE


_OWN_SIDE: tuple[int | None, ...] = (None,)
_NOWHERE: tuple[int | None, ...] = ()


def _turn_cards(
    state: GameState, seat: int, cards: Iterable[Card], plays: list[Action], discards: list[Action]
) -> None:
    """Plays and discards of the seat in turn, added to ``plays`` and ``discards`` (one list for
    both keeps ``legal_actions``' order: each card's plays, then its discard).

    The turn is judged once. Past the card's own check (in this deck, not on the table), a card's
    verdict depends on its kind and on a few facts of the side, so what each card allows is
    remembered per seat and facts (see ``_VERDICTS``); a hazard's per the facts of the other
    sides (:func:`_hazard_verdicts`); a 200, which depends on the 200s laid, is judged each call.
    """
    hand = state.hand
    if not hand.drawn and hand.draw_pile == 0 and _reshuffle_pending(state):
        state = counted_draw(state)
        hand = state.hand
    if _turn_refusal(state, seat) is not None:
        return
    setup = state.setup
    own = setup._sides[seat]
    mine = _own_side(state, own)
    options = setup.options
    room = mine.trip - mine.miles
    # A distance card's or a remedy's verdict depends only on these facts (no card but a 200, judged
    # per call, goes past 100 miles); a discard on discard_safety; a card's existence on the deck.
    facts = (seat, mine.moving, mine.hazard, mine.limited, mine.battle_empty,
             room if room < 100 and options.exact_trip else 100, options.discard_safety, setup._short_deck)
    verdicts = _VERDICTS.get(facts)
    if verdicts is None:
        if len(_VERDICTS) >= _VERDICTS_LIMIT:
            _VERDICTS.clear()
        verdicts = _VERDICTS[facts] = {}
    seen = hand.seen
    hazards: dict[Card, _Entry] | None = None  # fetched when a card is not in verdicts
    for card in cards:
        if card in seen:
            continue
        entry = verdicts.get(card)
        if entry is None:
            # A hazard (remembered apart), a 200, or the first time for these facts.
            if hazards is None:
                hazards = _hazard_verdicts(state, seat, own, mine)
            entry = hazards.get(card)
            if entry is None:  # judged by the checks validate runs
                entry = _card_verdict(state, seat, own, mine, card, verdicts, hazards)
        can_play, can_discard = entry
        plays += can_play
        discards += can_discard


def _card_verdict(
    state: GameState, seat: int, own: int, mine: _OwnSide, card: Card, verdicts: dict[Card, _Entry],
    hazards: dict[Card, _Entry],
) -> _Entry:
    """What ``card`` allows the seat in turn (its plays, its discard), remembered in ``verdicts``
    (per the side's facts) or ``hazards`` (per the other sides') where those decide it."""
    setup = state.setup
    shared = _SHARED[seat]
    actions = shared.get(card)
    if actions is None:
        actions = shared[card] = _SeatActions(seat, card)
    kind = actions.kind
    if actions.copy > setup._deck.get(kind, 0):
        verdicts[card] = _NO_ACTIONS
        return _NO_ACTIONS
    discard: tuple[Discard, ...] = actions.discards if _DISCARDABLE_IF[setup.options.discard_safety][kind] else ()
    entry = (actions.plays_for(seat, card, _play_targets(state, own, mine, kind)), discard)
    if kind in _SETTLED_KINDS:
        verdicts[card] = entry
    elif kind.is_hazard:
        hazards[card] = entry
    return entry


_NO_ACTIONS: _Entry = ((), ())

#: What each card allows a seat, per the facts of its side that decide it (see ``_turn_cards``):
#: few distinct facts recur all game long, so each card is judged once per facts (bounded).
_VERDICTS: dict[tuple[object, ...], dict[Card, _Entry]] = {}
_VERDICTS_LIMIT = 512


#: What each hazard allows a seat, per the facts that decide it (see ``_hazard_verdicts``), with
#: the setup they were judged under (bounded).
_HAZARD_VERDICTS: dict[tuple[object, ...], tuple[GameSetup, dict[Card, _Entry]]] = {}


def _hazard_verdicts(
    state: GameState, seat: int, own: int, mine: _OwnSide
) -> dict[Card, _Entry]:
    """The remembered plays and discard of each hazard for ``seat``, per the facts a hazard's
    verdict depends on: whether the seat's side may attack (``_attacker_refusal``: the same for
    every hazard but a Speed Limit, which it never refuses) and which hazard kinds each other
    side takes (``_Target.accepted``), under one setup."""
    setup = state.setup
    key: list[object] = [seat, _attacker_refusal(setup.options, mine.side, _KIND_STOP) is None]
    for index, (battle, speed, _distance, safeties, _coups, _miles) in enumerate(state.hand.sides):
        if index != own:
            target = _TARGETS.get((index, battle[-1].kind if battle else None, speed[-1].kind if speed else None,
                                   safeties))  # _target_key, without the call
            if target is None or target.setup is not setup:
                target = _target(state, index)
            mask = target.mask
            key.append(mask if mask >= 0 else target.accepted())
    facts = tuple(key)
    remembered = _HAZARD_VERDICTS.get(facts)
    if remembered is None or remembered[0] is not setup:
        if len(_HAZARD_VERDICTS) >= _VERDICTS_LIMIT:
            _HAZARD_VERDICTS.clear()
        remembered = _HAZARD_VERDICTS[facts] = (setup, {})
    return remembered[1]


#: Which kinds ``_discard_refusal`` lets go, with and without ``discard_safety``: worked out once.
_DISCARDABLE = {kind: _discard_refusal(RuleOptions(discard_safety=True), kind) is None for kind in CardKind}
_DISCARDABLE_BUT_SAFETIES = {kind: _discard_refusal(RuleOptions(discard_safety=False), kind) is None
                             for kind in CardKind}
_DISCARDABLE_IF = {True: _DISCARDABLE, False: _DISCARDABLE_BUT_SAFETIES}
#: The kinds whose verdict the side facts of ``_turn_cards`` settle: not a hazard (the other sides decide
#: it), not a 200 (the 200s laid decide it).
_SETTLED_KINDS = frozenset(kind for kind in CardKind if not kind.is_hazard and kind is not CardKind.D200)


def _answers(state: GameState, seat: int, cards: Iterable[Card], found: list[Action], fast: bool) -> None:
    """Coup fourré (safeties) or Fast Play (remedies) answers of ``seat`` to the hazard just played."""
    window = state.hand.window
    if window is None or (_kind_refusal_fast if fast else _kind_refusal_window)(state, seat) is not None:
        return
    hazard = window.hazard.kind
    for card in cards:
        if _answer_refusal(hazard, card.kind, fast) is None and _card_refusal(state, card) is None:
            found.append(FastRemedy(seat, card) if fast else CoupFourre(seat, card))


def _gen_coup_fourre(state: GameState, seat: int, cards: Sequence[Card], found: list[Action]) -> None:
    _answers(state, seat, cards, found, fast=False)


def _gen_fast_remedy(state: GameState, seat: int, cards: Sequence[Card], found: list[Action]) -> None:
    _answers(state, seat, cards, found, fast=True)


def _gen_take(state: GameState, seat: int, cards: Sequence[Card], found: list[Action]) -> None:
    """The top discard, whatever the seat holds (it is taken, not held)."""
    if _take_refusal_before_card(state, seat) is None:
        found.append(TakeDiscard(seat, state.hand.discard[-1]))


def _gen_swap(state: GameState, seat: int, cards: Sequence[Card], found: list[Action]) -> None:
    """Every set of 1 to hand-size discardable cards, in the order the cards were given."""
    if _swap_refusal_before_cards(state, seat) is not None:
        return
    usable = [
        card for card in dict.fromkeys(cards)
        if _card_refusal(state, card) is None and _discard_refusal(state.setup.options, card.kind) is None
    ]
    for size in range(1, min(len(usable), state.hand.hands[seat]) + 1):
        found.extend(Swap(seat, chosen) for chosen in combinations(usable, size))


def _gen_start(state: GameState, seat: int, cards: Sequence[Card], found: list[Action]) -> None:
    if _start_refusal_before_card(state, seat) is not None:
        return
    found.extend(
        StartRoll(seat, card) for card in cards if card.kind is _KIND_ROLL and _card_refusal(state, card) is None
    )


def _gen_extension(state: GameState, seat: int, cards: Sequence[Card], found: list[Action]) -> None:
    if _extension_refusal(state, seat) is None:
        found += (Extension(seat, True), Extension(seat, False))


def _gen_leftover(state: GameState, seat: int, cards: Sequence[Card], found: list[Action]) -> None:
    if _leftover_refusal_before_card(state, seat) is None:
        found.extend(Leftover(seat, card) for card in dict.fromkeys(cards) if _card_refusal(state, card) is None)


def _gen_end(state: GameState, seat: int, cards: Sequence[Card], found: list[Action]) -> None:
    if _end_refusal(state) is None:
        found.append(EndHand())


def _gen_next(state: GameState, seat: int, cards: Sequence[Card], found: list[Action]) -> None:
    if _next_refusal(state) is None:
        found.append(NextHand())


_Generator = Callable[[GameState, int, Sequence[Card], list[Action]], None]
_GENERATORS: dict[ActionKind, _Generator] = {
    ActionKind.COUP_FOURRE: _gen_coup_fourre,
    ActionKind.FAST_REMEDY: _gen_fast_remedy,
    ActionKind.TAKE_DISCARD: _gen_take,
    ActionKind.SWAP: _gen_swap,
    ActionKind.START_ROLL: _gen_start,
    ActionKind.EXTENSION: _gen_extension,
    ActionKind.LEFTOVER: _gen_leftover,
    ActionKind.END_HAND: _gen_end,
    ActionKind.NEXT_HAND: _gen_next,
}

#: The kinds of action each phase can allow at all (play and discard are made in one pass).
_PHASE_KINDS: dict[Phase, tuple[ActionKind, ...]] = {
    Phase.PLAY: (ActionKind.COUP_FOURRE, ActionKind.FAST_REMEDY, ActionKind.TAKE_DISCARD, ActionKind.SWAP,
                 ActionKind.END_HAND),
    Phase.START_ROLLS: (ActionKind.START_ROLL,),
    Phase.EXTENSION: (ActionKind.EXTENSION,),
    Phase.LEFTOVERS: (ActionKind.LEFTOVER,),
    Phase.HAND_OVER: (ActionKind.NEXT_HAND,),
    Phase.GAME_OVER: (),
}

ALL_KINDS: frozenset[ActionKind] = frozenset(ActionKind)


def legal_actions(
    state: GameState, seat: int, cards: Iterable[Card] = (), kinds: Iterable[ActionKind] | None = None
) -> list[Action]:
    """Every action ``seat`` may take now, in turn or out of turn, with the ``cards`` it holds
    (the referee never sees a hand), like OpenSpiel's ``LegalActions(player)``.

    Built from the same checks as :func:`validate`, so a generated action is always accepted and
    an action that is accepted is always generated (a hazard's target named by the first seat of
    its side). ``end`` and ``next`` are the whole table's: they are listed for every seat.
    ``kinds`` narrows the answer to some kinds of action (a bot asking only for its answers to a
    hazard). Play and discard come first, per card in the order given, then the other kinds.
    """
    setup = state.setup
    if not 0 <= seat < len(setup.names):
        return []
    wanted = ALL_KINDS if kinds is None else kinds if type(kinds) is frozenset else frozenset(kinds)
    hand = state.hand
    phase = _PHASE_GAME_OVER if state.over else hand.phase  # state.phase, without the property's call
    found: list[Action] = []
    if type(cards) is not list and type(cards) is not tuple:
        cards = tuple(cards)
    if phase is _PHASE_PLAY:
        plays, discards = _ACTION_PLAY in wanted, _ACTION_DISCARD in wanted
        if plays or discards:
            # (an unwanted kind is collected into a list nobody reads: the bots ask for both)
            _turn_cards(state, seat, cards, found if plays else [], found if discards else [])
        options = setup.options
        # The other kinds of the play phase, skipped without a call when their first check fails.
        if hand.window is not None:
            if _ACTION_COUP_FOURRE in wanted:
                _answers(state, seat, cards, found, fast=False)
            if options.fast_play and _ACTION_FAST_REMEDY in wanted:
                _answers(state, seat, cards, found, fast=True)
        if options.draw_from_discard and _ACTION_TAKE_DISCARD in wanted:
            _gen_take(state, seat, cards, found)
        if options.fast_play and _ACTION_SWAP in wanted:
            _gen_swap(state, seat, cards, found)
        if hand.exhausted and _ACTION_END_HAND in wanted:
            _gen_end(state, seat, cards, found)
        return found
    for kind in _PHASE_KINDS[phase]:
        if kind in wanted:
            _GENERATORS[kind](state, seat, cards, found)
    return found


def turn_options(state: GameState, seat: int, cards: Iterable[Card]) -> tuple[list[Play], list[Discard]]:
    """The plays and the discards ``seat`` may make with ``cards`` now, as two lists: what
    ``legal_actions(state, seat, cards, {PLAY, DISCARD})`` lists, split by kind in the same order
    (a bot's turn, without sorting the one list back into two)."""
    plays: list[Play] = []
    discards: list[Discard] = []
    if not state.over and state.hand.phase is _PHASE_PLAY and 0 <= seat < len(state.setup.names):
        # (the lists only ever receive plays and discards respectively)
        _turn_cards(state, seat, cards if type(cards) is list or type(cards) is tuple else tuple(cards),
                    cast("list[Action]", plays), cast("list[Action]", discards))
    return plays, discards


def _kind_refusal_turn(state: GameState, seat: int) -> Refusal | None:
    if _reshuffle_pending(state):
        state = counted_draw(state)
    return _turn_refusal(state, seat)


def _kind_refusal_window(state: GameState, seat: int) -> Refusal | None:
    if state.phase is not _PHASE_PLAY:
        return _phase_refusal(state)
    return _seat_refusal(state, seat) or _window_open_refusal(state, seat)


def _kind_refusal_fast(state: GameState, seat: int) -> Refusal | None:
    return _FAST_PLAY_OFF if not state.setup.options.fast_play else _kind_refusal_window(state, seat)


_KIND_REFUSALS: dict[ActionKind, Callable[[GameState, int], Refusal | None]] = {
    ActionKind.PLAY: _kind_refusal_turn,
    ActionKind.DISCARD: _kind_refusal_turn,
    ActionKind.COUP_FOURRE: _kind_refusal_window,
    ActionKind.FAST_REMEDY: _kind_refusal_fast,
    ActionKind.TAKE_DISCARD: _take_refusal_before_card,
    ActionKind.SWAP: _swap_refusal_before_cards,
    ActionKind.START_ROLL: _start_refusal_before_card,
    ActionKind.EXTENSION: _extension_refusal,
    ActionKind.LEFTOVER: _leftover_refusal_before_card,
    ActionKind.END_HAND: lambda state, seat: _end_refusal(state),
    ActionKind.NEXT_HAND: lambda state, seat: _next_refusal(state),
}


def kind_refusal(state: GameState, seat: int, kind: ActionKind) -> Refusal | None:
    """Why ``seat`` may take no action of ``kind`` now whatever cards it holds, or ``None`` when
    some card (or none, for take, extension, end and next) may do it: "Fast Play is not on", "Not
    your turn", "No hazard to answer". The same checks as ``validate``, without the card's own."""
    if state.over:
        return _GAME_OVER
    return _KIND_REFUSALS[kind](state, seat)


def target_choices(state: GameState, seat: int, card: Card) -> tuple[int, ...]:
    """The sides ``card`` played by ``seat`` may go on: the opponents a hazard may attack now,
    ``()`` for a card that is played on one's own side. The table asks this to know whether to
    ask "on whom?"."""
    kind = card.kind
    if not kind.is_hazard:
        return ()
    return hazard_targets(state, seat, kind)


def attacked_side(setup: GameSetup, play: Play) -> int | None:
    """The side a play goes on when it is not the player's own: the named target, or, with two
    sides, the one opponent of a hazard (a record leaves that target implicit); None otherwise."""
    if play.target is not None:
        return setup.side_of(play.target)
    if play.card.kind.is_hazard and setup.side_count == 2:
        return 1 - setup.side_of(play.seat)
    return None


def play_action(state: GameState, seat: int, card: Card, chosen: int | None = None) -> Play:
    """The play a scan means: on the ``chosen`` seat's side if a seat was chosen and the card
    attacks, on the player's own side otherwise (the engine then says if a target is missing)."""
    if chosen is not None and card.kind.is_hazard:
        return Play(seat, card, chosen)
    return Play(seat, card)


def answer_action(state: GameState, seat: int, card: Card) -> CoupFourre | FastRemedy:
    """What a card scanned after "Coup fourré!" means: with Fast Play on, a remedy is a Fast
    Play remedy (001 "Fast Play"); anything else is a coup fourré (000 §7), which the engine
    then accepts or refuses with its reason."""
    if state.setup.options.fast_play and card.kind.is_remedy:
        return FastRemedy(seat, card)
    return CoupFourre(seat, card)


def laid_action(state: GameState, seat: int, card: Card) -> Action | None:
    """What a card laid at ``seat``'s place means, at a table with a pile pad per seat.

    The place names the pile, as it does at a real table: a hazard laid at an opponent's place
    goes on that side (no target to ask); the card that answers the hazard just played on the
    seat is that answer, even out of turn: its safety is the coup fourré (000 §7), and with Fast
    Play a remedy laid out of turn is the fast remedy (001 "Fast Play"); anything else laid at a
    place is that seat's own play. None when the place says no more than one reader would (a
    hazard, or a card that answers nothing, laid at the place of the side in turn): the scan
    means what :func:`play_action` makes of it. Whatever is returned is judged by
    :func:`validate` like any other action, so a seat that may not act is refused with why.
    """
    setup, hand = state.setup, state.hand
    if state.phase is Phase.START_ROLLS:
        return StartRoll(seat, card)
    if state.phase is Phase.LEFTOVERS:
        return Leftover(seat, card)
    if state.phase is not Phase.PLAY:
        return Play(seat, card)
    in_turn_side = setup.side_of(seat) == setup.side_of(hand.turn)
    if card.kind.is_hazard:
        return None if in_turn_side else Play(hand.turn, card, seat)
    if seat in state.window_callers():
        answer = answer_action(state, seat, card)
        # In turn, a remedy is an ordinary play (the CF button still makes it the fast remedy), and
        # a safety that answers nothing is played as a safety.
        meant = card.kind.is_safety or (isinstance(answer, FastRemedy) and not in_turn_side)
        if meant and (not in_turn_side or validate(state, answer) is None):
            return answer
    return None if in_turn_side else Play(seat, card)


# -- effects ----------------------------------------------------------------------------------


class _Work:
    """A mutable scratch copy of a hand, one typed attribute per field of ``HandState``, frozen
    back into a new HandState at the end."""

    __slots__ = (
        "blocked", "dealer", "decider", "delayed", "discard", "draw_pile", "drawn", "events", "exhausted",
        "extension_by", "finisher", "hands", "leftovers", "names", "number", "options", "pending_delayed", "phase",
        "seen", "setup", "sides", "started", "state", "trip", "turn", "window",
    )

    number: int
    dealer: int
    sides: list[SideState]
    hands: list[int]
    draw_pile: int
    discard: tuple[Card, ...]
    seen: frozenset[Card]
    turn: int
    drawn: bool
    phase: Phase
    window: CoupFourreWindow | None
    trip: int
    extension_by: int | None
    decider: int | None
    exhausted: bool
    finisher: int | None
    delayed: bool
    pending_delayed: bool
    started: frozenset[int]
    leftovers: tuple[tuple[Card, ...], ...]
    blocked: bool

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.setup = setup = state.setup
        self.options = setup.options
        self.names = setup.names
        (
            self.number, self.dealer, sides, hands, self.draw_pile, self.discard, self.seen, self.turn,
            self.drawn, self.phase, self.window, self.trip, self.extension_by, self.decider, self.exhausted,
            self.finisher, self.delayed, self.pending_delayed, self.started, self.leftovers, self.blocked,
        ) = _as_tuple(state.hand)  # a plain tuple unpacks in one step; a named tuple is iterated
        self.sides = list(sides)
        self.hands = list(hands)
        self.events: list[Event] = []

    def freeze(self) -> HandState:
        return _make(HandState, (
            self.number, self.dealer, tuple(self.sides), tuple(self.hands), self.draw_pile, self.discard, self.seen,
            self.turn, self.drawn, self.phase, self.window, self.trip, self.extension_by, self.decider,
            self.exhausted, self.finisher, self.delayed, self.pending_delayed, self.started, self.leftovers,
            self.blocked,
        ))

    def see(self, card: Card) -> None:
        self.seen = self.seen | {card}

    def event(
        self,
        code: EventCode,
        message: str,
        seat: int | None = None,
        side: int | None = None,
        card: Card | None = None,
        seats: tuple[int, ...] = (),
    ) -> None:
        self.events.append(_make(Event, (code, message, seat, side, card, seats)))

    def can_draw(self) -> bool:
        return _can_draw(self.options, self.draw_pile, self.discard)

    def draw(self, seat: int) -> bool:
        """Count one draw for ``seat``; reshuffle first where the edition says so. True if it emptied the pile."""
        if self.draw_pile == 0 and self.options.empty_draw_pile is _DRAW_RESHUFFLE and self.discard:
            cards = self.discard
            self.draw_pile, self.discard, self.seen = len(cards), (), self.seen.difference(cards)
            self.event(_EVENT_RESHUFFLED, f"Discards shuffled into a new draw pile of {len(cards)}")
        if self.draw_pile == 0:
            return False
        self.hands[seat] += 1
        self.draw_pile -= 1
        if self.draw_pile == 0:
            self.exhausted = True
            self.event(_EVENT_DRAW_PILE_EMPTY, "Draw pile empty: play out your hands")
            return True
        return False

    def advance(self, after: int) -> None:
        """Pass the turn to the left, skipping empty hands, or end the hand when nobody can play."""
        if self.options.empty_draw_pile is _DRAW_END_HAND and self.draw_pile == 0:
            self.end_hand(None)  # 002 "until … the deck is exhausted"; 004 "dès qu'il n'y a plus de carte"
            return
        seats = len(self.names)  # setup.seats, without the property's call
        if self.draw_pile > 0:  # the next seat plays, whatever it holds: it draws first
            self.turn, self.drawn = (after + 1) % seats, False
            return
        drawable = self.can_draw()
        for step in range(1, seats + 1):
            seat = (after + step) % seats
            if self.hands[seat] > 0 or drawable:
                self.turn, self.drawn = seat, False
                return
        self.end_hand(None)  # 000 §5: "until all of the cards in the draw pile and in the hands have been played"

    def extra_turn(self, seat: int) -> None:
        """Another turn for ``seat`` (after a safety), unless it has no card left to play."""
        if self.hands[seat] > 0 or self.can_draw():
            self.turn, self.drawn = seat, False
        else:
            self.advance(seat)

    def end_hand(self, finisher: int | None, delayed: bool = False) -> None:
        self.finisher, self.delayed, self.window, self.decider = finisher, delayed, None, None
        if self.options.scoring is _SCORING_MILLE_BORNES_FR and any(self.hands):
            self.phase = _PHASE_LEFTOVERS
            self.event(_EVENT_SHOW_LEFTOVERS, "Show the cards left in your hands")
        else:
            self.phase = _PHASE_HAND_OVER

    def lay(self, side_index: int, card: Card) -> None:
        """Put ``card`` on its pile of a side: speed cards on the speed pile, the rest on the battle pile."""
        side = self.sides[side_index]
        battle, speed, distance, safeties, coups, miles = side
        if card.kind is _KIND_SPEED_LIMIT or card.kind is _KIND_END_OF_LIMIT:
            speed = (*speed, card)
        else:
            battle = (*battle, card)
        self.sides[side_index] = _make(SideState, (battle, speed, distance, safeties, coups, miles))


# _Work copies a hand field by field, in order: a field added to HandState must be added there too.
if HandState._fields != (
    "number", "dealer", "sides", "hands", "draw_pile", "discard", "seen", "turn", "drawn", "phase", "window",
    "trip", "extension_by", "decider", "exhausted", "finisher", "delayed", "pending_delayed", "started",
    "leftovers", "blocked",
):  # pragma: no cover - a guard for whoever changes HandState
    raise ImportError("bornes.engine.rules._Work does not match HandState's fields")


def _finish(work: _Work) -> Accepted:
    hand = work.freeze()
    setup, before, sheets, winner, over, tie = work.state
    state = _make(GameState, (setup, hand, sheets, winner, over, tie))
    events = work.events
    if work.phase is _PHASE_HAND_OVER and before.phase is not _PHASE_HAND_OVER:
        setup = state.setup
        sheet = score_hand(setup, hand, state.totals)
        sheets = (*state.sheets, sheet)
        over, winner, tie = game_result(setup, sheets, hand)
        state = state._replace(sheets=sheets, over=over, winner=winner, tie=tie)
        totals = ", ".join(f"{setup.side_name(i)} {t}" for i, t in enumerate(sheet.total_for_deal))
        events.append(Event(_EVENT_HAND_OVER, f"Hand {hand.number} over: {totals}"))
        if over:
            if winner is not None:
                verb = "win" if setup.teams else "wins"
                events.append(Event(_EVENT_GAME_OVER, f"{setup.side_name(winner)} {verb} the game", side=winner))
            else:
                events.append(Event(_EVENT_GAME_OVER, "The game ends in a tie"))
    return _make(Accepted, (state, tuple(events)))


def _complete_distance(work: _Work, seat: int, side_index: int, drew_last: bool) -> None:
    """After a distance card: the trip, the extension question, or the next turn."""
    options = work.options
    side = work.sides[side_index]
    trip = work.trip
    done = side.miles == trip if options.exact_trip else side.miles >= trip
    if not done:
        work.advance(seat)
        return
    # Delayed action: the trip is completed once the draw pile is exhausted (000 §6C, §8).
    delayed = work.draw_pile == 0 and (options.delayed_action_on_last_draw or not drew_last)
    if trip < 1000 and options.extension and work.extension_by is None:
        # 000 §10C: "he must call 'Extension' exactly at the time he reaches 700".
        work.phase, work.decider, work.pending_delayed, work.turn = _PHASE_EXTENSION, seat, delayed, seat
        work.event(_EVENT_EXTENSION_ASKED, f"{work.names[seat]} reached {trip}: extend to 1000?", seat=seat)
        return
    work.event(
        _EVENT_TRIP_COMPLETED, f"{work.setup.side_name(side_index)} completed {side.miles} miles", side=side_index
    )
    work.end_hand(side_index, delayed)


_Effect = Callable[[_Work, Action], None]
_EFFECTS: dict[type, _Effect] = {}


def _effect(kind: type[A]) -> Callable[[Callable[[_Work, A], None]], Callable[[_Work, A], None]]:
    """Register the effect of one action type (the dispatch table ``apply`` reads)."""

    def register(effect: Callable[[_Work, A], None]) -> Callable[[_Work, A], None]:
        _EFFECTS[kind] = cast(_Effect, effect)
        return effect

    return register


@_effect(Play)
def _apply_play(work: _Work, play: Play) -> None:
    setup = work.setup
    seat, card = play.seat, play.card
    kind = card.kind
    own = setup._sides[seat]  # setup.side_of(seat)
    work.window = None
    drew_last = False if work.drawn else work.draw(seat)
    work.hands[seat] -= 1
    work.see(card)
    side = work.sides[own]
    if kind.is_distance:
        battle, speed, distance, safeties, coups, miles = side
        work.sides[own] = _make(SideState, (battle, speed, (*distance, card), safeties, coups, miles + kind.miles))
        work.event(_EVENT_DISTANCE, f"{work.names[seat]}: {kind.title}", seat, own, card)
        _complete_distance(work, seat, own, drew_last)
        return
    if kind.is_hazard:
        # Without a named target the check found exactly one side that can take the hazard.
        target = setup.side_of(play.target) if play.target is not None else _target_sides(work.state, own, kind)[0]
        work.lay(target, card)
        work.window = CoupFourreWindow(card, target, seat)
        work.event(_EVENT_HAZARD, f"{kind.title} on {setup.side_name(target)}", seat, target, card)
        work.advance(seat)
        return
    if kind.is_remedy:
        work.lay(own, card)
        work.event(_EVENT_REMEDY, f"{work.names[seat]}: {kind.title}", seat, own, card)
        work.advance(seat)
        return
    # A safety: protection for the rest of the hand, the attack in progress cancelled, and
    # another turn (000 §5B, §6B).
    battle, speed, distance, safeties, coups, miles = side
    work.sides[own] = _make(SideState, (battle, speed, distance, (*safeties, card), coups, miles))
    work.event(_EVENT_SAFETY, f"{work.names[seat]}: {kind.title}, play again", seat, own, card)
    work.extra_turn(seat)


@_effect(Discard)
def _apply_discard(work: _Work, action: Discard) -> None:
    work.window = None
    if not work.drawn:
        work.draw(action.seat)
    work.hands[action.seat] -= 1
    work.see(action.card)
    work.discard = (*work.discard, action.card)
    work.event(
        _EVENT_DISCARD, f"{work.names[action.seat]} discards {action.card.kind.title}", action.seat, card=action.card
    )
    work.advance(action.seat)


@_effect(CoupFourre)
def _apply_coup_fourre(work: _Work, action: CoupFourre) -> None:
    """000 §7: the hazard goes to the discard pile, the situation before it is restored, the caller
    draws a replacement and takes another turn; the players in between lose their turns."""
    setup = work.setup
    window = work.state.hand.window
    assert window is not None
    seat, card = action.seat, action.card
    side = work.sides[window.side]
    if window.hazard.kind is _KIND_SPEED_LIMIT:
        assert side.speed and side.speed[-1] == window.hazard
        side = side._replace(speed=side.speed[:-1])
    else:
        assert side.battle and side.battle[-1] == window.hazard
        side = side._replace(battle=side.battle[:-1])
    work.sides[window.side] = side._replace(safeties=(*side.safeties, card), coups=(*side.coups, card.kind))
    work.hands[seat] -= 1
    work.see(card)
    work.discard = (*work.discard, window.hazard)
    work.window = None
    skipped = tuple(
        (window.attacker + step) % setup.seats
        for step in range(1, (seat - window.attacker) % setup.seats)
    )
    work.draw(seat)  # the replacement for the safety
    work.extra_turn(seat)  # then the extra turn: draw and play again
    lost = f"; {', '.join(work.names[s] for s in skipped)} lose their turn" if skipped else ""
    work.event(
        _EVENT_COUP_FOURRE,
        f"Coup fourré! {work.names[seat]}: {card.kind.title}{lost}",
        seat,
        window.side,
        card,
        skipped,
    )


@_effect(FastRemedy)
def _apply_fast_remedy(work: _Work, action: FastRemedy) -> None:
    window = work.state.hand.window
    assert window is not None
    work.lay(window.side, action.card)
    work.hands[action.seat] -= 1
    work.see(action.card)
    work.window = None
    work.draw(action.seat)  # 001 "Fast Play": draw a new card to replace it; play goes on as before
    turn = work.turn
    if work.hands[turn] == 0 and not work.drawn and not work.can_draw():
        work.advance(turn)  # the seat in turn just played its last card out of turn: skip it
    work.event(
        _EVENT_FAST_REMEDY, f"{work.names[action.seat]}: {action.card.kind.title} at once", action.seat,
        card=action.card,
    )


@_effect(TakeDiscard)
def _apply_take(work: _Work, action: TakeDiscard) -> None:
    work.discard = work.discard[:-1]
    work.seen = work.seen - {action.card}
    work.drawn, work.window = True, None
    work.hands[action.seat] += 1
    work.event(
        _EVENT_TAKE_DISCARD, f"{work.names[action.seat]} takes the {action.card.kind.title}", action.seat,
        card=action.card,
    )


@_effect(Swap)
def _apply_swap(work: _Work, action: Swap) -> None:
    work.window = None
    work.hands[action.seat] -= len(action.cards)
    work.seen = work.seen.union(action.cards)
    work.discard = work.discard + action.cards
    for _ in action.cards:
        work.draw(action.seat)
    work.event(_EVENT_SWAP, f"{work.names[action.seat]} swaps {len(action.cards)} cards", action.seat)
    work.advance(action.seat)


@_effect(StartRoll)
def _apply_start(work: _Work, action: StartRoll) -> None:
    work.lay(work.setup.side_of(action.seat), action.card)
    work.see(action.card)
    work.started = work.started | {action.seat}
    if len(work.started) == work.setup.seats:
        work.phase = _PHASE_PLAY


@_effect(Extension)
def _apply_extension(work: _Work, action: Extension) -> None:
    if action.extend:
        work.trip, work.extension_by, work.decider, work.phase = 1000, action.seat, None, _PHASE_PLAY
        work.event(_EVENT_EXTENSION, f"{work.names[action.seat]} extends the trip to 1000", action.seat)
        work.advance(action.seat)
    else:
        own = work.setup.side_of(action.seat)
        work.event(_EVENT_TRIP_COMPLETED, f"{work.setup.side_name(own)} stops at {work.trip}", side=own)
        work.end_hand(own, work.pending_delayed)


@_effect(Leftover)
def _apply_leftover(work: _Work, action: Leftover) -> None:
    work.hands[action.seat] -= 1
    work.see(action.card)
    leftovers = list(work.leftovers)
    leftovers[action.seat] = (*leftovers[action.seat], action.card)
    work.leftovers = tuple(leftovers)
    if not any(work.hands):
        work.phase = _PHASE_HAND_OVER


@_effect(EndHand)
def _apply_end(work: _Work, action: EndHand) -> None:
    work.blocked = True
    work.event(_EVENT_BLOCKED, "The table ends the blocked hand")
    work.end_hand(None)


def apply(state: GameState, action: Action) -> Verdict:
    """Referee one action. The input state is never changed."""
    check = _CHECKS.get(type(action))  # validate(state, action), without the call
    if check is None:
        raise TypeError(f"not an action: {action!r}")
    if state.over:
        return _GAME_OVER
    refusal = check(state, action)
    if refusal is not None:
        return refusal
    if type(action) is NextHand:
        hand = state.hand
        setup = state.setup
        dealer = (hand.dealer + 1) % setup.seats  # the deal passes to the left
        new_hand = deal(setup, hand.number + 1, dealer)
        event = Event(_EVENT_NEW_HAND, f"Hand {new_hand.number}: {setup.names[dealer]} deals", seat=dealer)
        return Accepted(state._replace(hand=new_hand), (event,))
    work = _Work(state)
    _EFFECTS[type(action)](work, action)
    return _finish(work)


def counted_draw(state: GameState) -> GameState:
    """The state once the seat in turn has drawn (the referee counts that draw when the seat plays).

    Bots and hint screens validate against this, so a card that just came back from a
    reshuffled discard pile is judged as the referee will judge it.
    """
    hand = state.hand
    if state.phase is not _PHASE_PLAY or hand.drawn:
        return state
    work = _Work(state)
    work.draw(hand.turn)
    work.drawn = True
    return state._replace(hand=work.freeze())
