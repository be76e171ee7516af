"""The referee: state + action → new state + events, or a refusal with its reason.

``validate`` is the single truth for legality; ``apply`` runs it and then the effects. The
table flow, the bots and the screens all ask these two functions and never re-implement a
rule. Comments cite the rulebooks in ``shared/rulebooks/`` by their number (000, 001, …).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from engine.actions import (
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
    seat_letter,
)
from engine.cards import CLASSIC_COUNTS, Card, CardKind
from engine.options import EmptyDrawPile, Scoring
from engine.reasons import Reason, Refusal
from engine.scoring import game_result, score_hand
from engine.state import (
    HAND_SIZE,
    CoupFourreWindow,
    Event,
    GameSetup,
    GameState,
    HandState,
    Phase,
    SideState,
    can_move,
)


@dataclass(frozen=True, slots=True)
class Accepted:
    """An accepted action: the new state and what happened, in order."""

    state: GameState
    events: tuple[Event, ...]


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
        phase=Phase.START_ROLLS if youngest else Phase.PLAY,
        trip=options.trip_length(seats),
        leftovers=((),) * seats,
    )


# -- validation: the single truth --------------------------------------------------------------


def _refuse(reason: Reason, message: str) -> Refusal:
    return Refusal(reason, message)


def _phase_refusal(state: GameState) -> Refusal:
    phase = state.phase
    hand = state.hand
    if phase is Phase.GAME_OVER:
        return _refuse(Reason.GAME_OVER, "The game is over")
    if phase is Phase.EXTENSION and hand.decider is not None:
        return _refuse(Reason.WRONG_PHASE, f"{state.setup.names[hand.decider]} must decide the extension first")
    if phase is Phase.HAND_OVER:
        return _refuse(Reason.WRONG_PHASE, "The hand is over: deal the next hand")
    if phase is Phase.LEFTOVERS:
        return _refuse(Reason.WRONG_PHASE, "Show the cards left in hand first")
    if phase is Phase.START_ROLLS:
        return _refuse(Reason.WRONG_PHASE, "Everyone lays a starting Roll first")
    return _refuse(Reason.WRONG_PHASE, "Not now")


def _check_seat(state: GameState, seat: int) -> Refusal | None:
    if not 0 <= seat < state.setup.seats:
        return _refuse(Reason.NO_SUCH_SEAT, f"There is no seat {seat_letter(seat) if 0 <= seat < 8 else seat}")
    return None


def _check_card(state: GameState, card: Card) -> Refusal | None:
    """The card must exist in this deck and must not be on the table or in the discard pile."""
    if not state.setup.in_deck(card):
        in_a_box = CLASSIC_COUNTS.get(card.kind, 0)
        if card.copy > in_a_box:  # no box has this copy: not a short-deck removal
            return _refuse(Reason.NOT_IN_DECK, f"No such card: {card.kind.title} #{card.copy} (a deck has {in_a_box})")
        extra = " (taken out for 2–3 players)" if state.setup.short_deck else ""
        return _refuse(Reason.NOT_IN_DECK, f"{card.describe()} is not in this deck{extra}")
    if card in state.hand.seen:
        return _refuse(Reason.ON_TABLE, f"That card is already on the table: {card.describe()}")
    return None


def _can_draw(state: GameState, hand: HandState) -> bool:
    if hand.draw_pile > 0:
        return True
    return state.options.empty_draw_pile is EmptyDrawPile.RESHUFFLE and bool(hand.discard)


def _reshuffle_pending(state: GameState) -> bool:
    hand = state.hand
    return (
        not hand.drawn
        and hand.draw_pile == 0
        and bool(hand.discard)
        and state.options.empty_draw_pile is EmptyDrawPile.RESHUFFLE
    )


def _check_turn(state: GameState, seat: int) -> Refusal | None:
    """The seat in turn plays; it must hold a card once its draw is counted."""
    hand = state.hand
    if state.phase is not Phase.PLAY:
        return _phase_refusal(state)
    refusal = _check_seat(state, seat)
    if refusal:
        return refusal
    if seat != hand.turn:
        return _refuse(Reason.NOT_YOUR_TURN, f"Not your turn: {state.setup.names[hand.turn]} plays")
    held = hand.hands[seat] + (0 if hand.drawn or not _can_draw(state, hand) else 1)
    if held < 1:
        return _refuse(Reason.HAND_EMPTY, f"{state.setup.names[seat]} has no cards left")
    return None


def _check_distance(state: GameState, side: SideState, card: Card) -> Refusal | None:
    options = state.options
    if not can_move(side, options):
        hazard = side.active_hazard
        if hazard is not None:
            return _refuse(Reason.STOPPED, f"Stopped by {hazard.title}: play {hazard.remedy.title}")
        if not side.battle:
            return _refuse(Reason.NOT_ROLLING, "Play a Roll first")
        return _refuse(Reason.NOT_ROLLING, "Play a Roll to go again")
    miles = card.kind.miles
    if side.limited and miles > 50:  # 000 §6A Speed Limit
        return _refuse(Reason.SPEED_LIMIT, "Speed limit: only 25 or 50")
    if card.kind is CardKind.D200 and side.two_hundreds >= 2:  # 000 §6C
        return _refuse(Reason.TOO_MANY_200, "Only two 200s per trip")
    trip = state.hand.trip
    if options.exact_trip and side.miles + miles > trip:  # 000 §6C "Under no circumstances…"
        return _refuse(Reason.PAST_TRIP, f"Trip is exactly {trip}: {side.miles}+{miles} passes it")
    return None


def _check_hazard_on(state: GameState, attacker_side: int, target: int, kind: CardKind) -> Refusal | None:
    """Can ``kind`` go on side ``target``? (000 §2 "HAZARD CARDS", §6; 003 notes F and G)."""
    setup = state.setup
    if target == attacker_side:
        return _refuse(Reason.TARGET_OWN_SIDE, "Hazards go on an opponent")
    side = state.hand.sides[target]
    if side.has(kind.safety):
        return _refuse(Reason.PROTECTED, f"{setup.side_name(target)} has the {kind.safety.title}")
    options = state.options
    if kind is CardKind.SPEED_LIMIT:
        # A Speed Limit may go on a side that has not started (000 §5C) or is stopped (000 §12H).
        if side.limited and not options.speed_limit_on_limit:
            return _refuse(Reason.ALREADY_LIMITED, f"{setup.side_name(target)} is already under a speed limit")
        return None
    hazard = side.active_hazard
    if hazard is not None:
        if options.hazard_on_hazard:  # 003 note G: only the top one counts
            return None
        return _refuse(Reason.ALREADY_STOPPED, f"{setup.side_name(target)} is already stopped by {hazard.title}")
    if not can_move(side, options):
        return _refuse(Reason.NEEDS_ROLLING_TARGET, "Hazard needs a rolling opponent")
    return None


def hazard_targets(state: GameState, seat: int, kind: CardKind) -> tuple[int, ...]:
    """The sides a hazard from ``seat`` may go on right now, in side order."""
    own = state.setup.side_of(seat)
    return tuple(
        side
        for side in range(state.setup.side_count)
        if side != own and _check_hazard_on(state, own, side, kind) is None
    )


def _check_attacker(state: GameState, side: SideState) -> Refusal | None:
    """Where the edition says so, a side attacks only once it has started rolling."""
    if state.options.attack_needs_own_roll and not side.battle and not side.has(CardKind.RIGHT_OF_WAY):
        return _refuse(Reason.ATTACKER_NOT_STARTED, "Start rolling before you attack")
    return None


def _check_hazard(state: GameState, play: Play) -> Refusal | None:
    setup = state.setup
    own = setup.side_of(play.seat)
    kind = play.card.kind
    refusal = _check_attacker(state, state.hand.sides[own])
    if refusal:
        return refusal
    if play.target is not None:
        refusal = _check_seat(state, play.target)
        if refusal:
            return refusal
        return _check_hazard_on(state, own, setup.side_of(play.target), kind)
    opponents = [side for side in range(setup.side_count) if side != own]
    if len(opponents) == 1:
        return _check_hazard_on(state, own, opponents[0], kind)
    targets = hazard_targets(state, play.seat, kind)
    if len(targets) == 1:
        return None
    if not targets:
        # Every opponent refuses: say why for the first one, which is what a player asks.
        first = _check_hazard_on(state, own, opponents[0], kind)
        assert first is not None
        reasons = {_check_hazard_on(state, own, side, kind) for side in opponents}
        if len({r.reason for r in reasons if r}) == 1:
            return first
        return _refuse(Reason.NO_TARGET, f"No opponent can take a {kind.title} now")
    return _refuse(Reason.TARGET_NEEDED, "Choose a target: " + ", ".join(setup.side_name(t) for t in targets))


def _check_remedy(state: GameState, side: SideState, kind: CardKind) -> Refusal | None:
    options = state.options
    if kind is CardKind.END_OF_LIMIT:
        if not side.limited:
            return _refuse(Reason.NO_LIMIT, "No speed limit to end")
        return None
    hazard = side.active_hazard
    if kind is CardKind.ROLL:
        if hazard is CardKind.STOP:
            return None
        if hazard is not None:
            return _refuse(Reason.REMEDY_FIRST, f"Stopped by {hazard.title}: play {hazard.remedy.title} first")
        if can_move(side, options):
            return _refuse(Reason.ALREADY_ROLLING, "You are already rolling")
        return None
    cured = _HAZARD_CURED_BY[kind]
    if hazard is not cured:
        return _refuse(Reason.NOTHING_TO_REMEDY, f"No {cured.title} to cure")
    return None


_HAZARD_CURED_BY = {
    CardKind.REPAIRS: CardKind.ACCIDENT,
    CardKind.GASOLINE: CardKind.OUT_OF_GAS,
    CardKind.SPARE_TIRE: CardKind.FLAT_TIRE,
}


def _check_play(state: GameState, play: Play) -> Refusal | None:
    refusal = _check_turn(state, play.seat) or _check_card(state, play.card)
    if refusal:
        return refusal
    kind = play.card.kind
    side = state.side_of(play.seat)
    if play.target is not None and not kind.is_hazard:
        # 000 §4: remedies, safeties and distance go on your own piles, never an opponent's.
        return _refuse(Reason.NOT_A_HAZARD, f"Only a hazard goes on another side: {kind.title} is yours")
    if kind.is_distance:
        return _check_distance(state, side, play.card)
    if kind.is_hazard:
        return _check_hazard(state, play)
    if kind.is_remedy:
        return _check_remedy(state, side, kind)
    return None  # a safety may be played at any time (000 §5B)


def _check_window(state: GameState, seat: int, card: Card) -> Refusal | None:
    """Out-of-turn answers to the hazard just played: coup fourré and Fast Play remedies."""
    if state.phase is not Phase.PLAY:
        return _phase_refusal(state)
    refusal = _check_seat(state, seat) or _check_card(state, card)
    if refusal:
        return refusal
    window = state.hand.window
    if window is None:
        return _refuse(Reason.NO_WINDOW, "No hazard to answer: it must be the card just played")
    if state.setup.side_of(seat) != window.side:
        return _refuse(Reason.NOT_ATTACKED, f"Only {state.setup.side_name(window.side)} can answer that hazard")
    if state.hand.hands[seat] < 1:
        return _refuse(Reason.HAND_EMPTY, f"{state.setup.names[seat]} has no cards left")
    return None


def validate(state: GameState, action: Action) -> Refusal | None:
    """Why ``action`` is illegal in ``state``, or ``None`` when it is legal."""
    if state.over:
        return _refuse(Reason.GAME_OVER, "The game is over")
    hand = state.hand
    options = state.options
    if isinstance(action, Play | Discard) and _reshuffle_pending(state):
        # The seat in turn draws from a pile just made of the old discards: judge the card
        # as it is after that draw (001 "Should the draw pile ever run out…").
        state = counted_draw(state)
        hand = state.hand
    if isinstance(action, Play):
        return _check_play(state, action)
    if isinstance(action, Discard):
        refusal = _check_turn(state, action.seat) or _check_card(state, action.card)
        if refusal:
            return refusal
        if action.card.kind.is_safety and not options.discard_safety:
            return _refuse(Reason.SAFETY_DISCARD, "Safeties may not be discarded in these rules")
        return None
    if isinstance(action, CoupFourre):
        refusal = _check_window(state, action.seat, action.card)
        if refusal:
            return refusal
        assert hand.window is not None
        hazard = hand.window.hazard.kind
        if action.card.kind is not hazard.safety:
            return _refuse(Reason.WRONG_SAFETY, f"Only the {hazard.safety.title} answers a {hazard.title}")
        return None
    if isinstance(action, FastRemedy):
        if not options.fast_play:
            return _refuse(Reason.OPTION_OFF, "Fast Play is not on")
        refusal = _check_window(state, action.seat, action.card)
        if refusal:
            return refusal
        assert hand.window is not None
        hazard = hand.window.hazard.kind
        if action.card.kind is not hazard.remedy:
            return _refuse(Reason.WRONG_REMEDY, f"Only {hazard.remedy.title} cures a {hazard.title}")
        return None
    if isinstance(action, TakeDiscard):
        if not options.draw_from_discard:
            return _refuse(Reason.OPTION_OFF, "These rules do not let you take from the discard pile")
        refusal = _check_turn(state, action.seat)
        if refusal:
            return refusal
        if hand.drawn:
            return _refuse(Reason.ALREADY_DREW, "You already drew this turn")
        if not hand.discard:
            return _refuse(Reason.DISCARD_EMPTY, "The discard pile is empty")
        if _reshuffle_pending(state):
            # The draw pile ran out: the discards are shuffled into a new one (001 "Playing").
            return _refuse(Reason.DISCARD_EMPTY, "The discards are shuffled into a new draw pile")
        if action.card != hand.discard[-1]:
            return _refuse(Reason.NOT_TOP_DISCARD, f"Only the top discard can be taken: {hand.discard[-1].describe()}")
        return None
    if isinstance(action, Swap):
        if not options.fast_play:
            return _refuse(Reason.OPTION_OFF, "Fast Play is not on")
        refusal = _check_turn(state, action.seat)
        if refusal:
            return refusal
        if hand.drawn:
            return _refuse(Reason.ALREADY_DREW, "Swap instead of drawing, at the start of your turn")
        if not 1 <= len(action.cards) <= hand.hands[action.seat]:
            return _refuse(Reason.SWAP_SIZE, f"Swap 1 to {hand.hands[action.seat]} cards")
        if len(set(action.cards)) != len(action.cards):
            return _refuse(Reason.DUPLICATE_CARD, "The same card twice")
        for card in action.cards:
            refusal = _check_card(state, card)
            if refusal:
                return refusal
            if card.kind.is_safety and not options.discard_safety:
                return _refuse(Reason.SAFETY_DISCARD, "Safeties may not be discarded in these rules")
        return None
    if isinstance(action, StartRoll):
        if state.phase is not Phase.START_ROLLS:
            return _phase_refusal(state)
        refusal = _check_seat(state, action.seat) or _check_card(state, action.card)
        if refusal:
            return refusal
        if action.card.kind is not CardKind.ROLL:
            return _refuse(Reason.NOT_A_ROLL, "Lay a Roll (Feu Vert) to start")
        if action.seat in hand.started:
            return _refuse(Reason.ALREADY_STARTED, f"{state.setup.names[action.seat]} has laid a Roll already")
        return None
    if isinstance(action, Extension):
        if state.phase is not Phase.EXTENSION:
            return _phase_refusal(state) if state.phase is not Phase.PLAY else _refuse(
                Reason.WRONG_PHASE, "No extension to decide"
            )
        if action.seat != hand.decider:
            assert hand.decider is not None
            return _refuse(Reason.NOT_YOUR_TURN, f"{state.setup.names[hand.decider]} decides the extension")
        return None
    if isinstance(action, Leftover):
        if state.phase is not Phase.LEFTOVERS:
            return _phase_refusal(state)
        refusal = _check_seat(state, action.seat) or _check_card(state, action.card)
        if refusal:
            return refusal
        if hand.hands[action.seat] < 1:
            return _refuse(Reason.HAND_EMPTY, f"{state.setup.names[action.seat]} has shown every card")
        return None
    if isinstance(action, EndHand):
        if state.phase is not Phase.PLAY:
            return _phase_refusal(state)
        if not hand.exhausted:
            return _refuse(Reason.PLAY_CONTINUES, "The hand goes on: the draw pile has cards")
        return None
    if isinstance(action, NextHand):
        if state.phase is not Phase.HAND_OVER:
            return _phase_refusal(state) if state.phase is not Phase.PLAY else _refuse(
                Reason.WRONG_PHASE, "The hand is still being played"
            )
        return None
    raise TypeError(f"not an action: {action!r}")


def legal_actions(state: GameState, seat: int, cards: Iterable[Card]) -> list[Play | Discard]:
    """Every play and discard ``seat`` could make with ``cards`` now, like python-chess's legal moves.

    Built from the same checks as :func:`validate` (the turn once, then each card), so a
    generated action is always accepted and a missing one is always refused. Past the card's own
    identity check every verdict depends only on its kind, so each kind is judged once.
    """
    if _reshuffle_pending(state):
        state = counted_draw(state)
    if _check_turn(state, seat) is not None:
        return []
    setup = state.setup
    own = setup.side_of(seat)
    side = state.hand.sides[own]
    discard_safety = state.options.discard_safety
    targets_by_kind: dict[CardKind, tuple[int | None, ...]] = {}
    found: list[Play | Discard] = []
    for card in cards:
        if _check_card(state, card) is not None:
            continue
        kind = card.kind
        targets = targets_by_kind.get(kind)
        if targets is None:
            targets = targets_by_kind[kind] = _play_targets(state, own, side, card)
        for target in targets:
            found.append(Play(seat, card, target))
        if discard_safety or not kind.is_safety:
            found.append(Discard(seat, card))
    return found


def _play_targets(state: GameState, own: int, side: SideState, card: Card) -> tuple[int | None, ...]:
    """The ways ``card`` may be played: ``(None,)`` on the own side, a seat per target side for a
    hazard, ``()`` when it may not be played at all."""
    kind = card.kind
    if kind.is_distance:
        return (None,) if _check_distance(state, side, card) is None else ()
    if kind.is_hazard:
        setup = state.setup
        if _check_attacker(state, side) is not None:
            return ()
        return tuple(
            setup.side_seats(target)[0]
            for target in range(setup.side_count)
            if target != own and _check_hazard_on(state, own, target, kind) is None
        )
    if kind.is_remedy:
        return (None,) if _check_remedy(state, side, kind) is None else ()
    return (None,)  # a safety may be played at any time (000 §5B)


# -- effects ----------------------------------------------------------------------------------


class _Work:
    """A mutable scratch copy of a hand, frozen back into a new HandState at the end."""

    __slots__ = ("events", "fields", "hands", "setup", "sides", "state")

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.setup = state.setup
        hand = state.hand
        self.sides = list(hand.sides)
        self.hands = list(hand.hands)
        self.fields = hand._asdict()  # every field of the hand, changed in place
        self.events: list[Event] = []

    def get(self, name: str) -> Any:
        return self.fields[name]

    def set(self, **changes: object) -> None:
        self.fields.update(changes)

    @property
    def draw_pile(self) -> int:
        return int(self.get("draw_pile"))

    @property
    def discard(self) -> tuple[Card, ...]:
        discard: tuple[Card, ...] = self.get("discard")
        return discard

    @property
    def seen(self) -> frozenset[Card]:
        seen: frozenset[Card] = self.get("seen")
        return seen

    def see(self, *cards: Card) -> None:
        self.set(seen=self.seen.union(cards))

    def event(self, code: str, message: str, **data: object) -> None:
        self.events.append(Event(code, message, **data))  # type: ignore[arg-type]

    def name(self, seat: int) -> str:
        return self.setup.names[seat]

    def draw(self, seat: int) -> bool:
        """Count one draw for ``seat``; reshuffle first where the edition says so. True if it emptied the pile."""
        if self.draw_pile == 0 and self.setup.options.empty_draw_pile is EmptyDrawPile.RESHUFFLE and self.discard:
            cards = self.discard
            self.set(draw_pile=len(cards), discard=(), seen=self.seen.difference(cards))
            self.event("reshuffled", f"Discards shuffled into a new draw pile of {len(cards)}")
        if self.draw_pile == 0:
            return False
        self.hands[seat] += 1
        left = self.draw_pile - 1
        self.set(draw_pile=left)
        if left == 0:
            self.set(exhausted=True)
            self.event("draw-pile-empty", "Draw pile empty: play out your hands")
            return True
        return False

    def can_draw(self) -> bool:
        if self.draw_pile > 0:
            return True
        return self.setup.options.empty_draw_pile is EmptyDrawPile.RESHUFFLE and bool(self.discard)

    def advance(self, after: int) -> None:
        """Pass the turn to the left, skipping empty hands, or end the hand when nobody can play."""
        options = self.setup.options
        if options.empty_draw_pile is EmptyDrawPile.END_HAND and self.draw_pile == 0:
            self.end_hand(None)  # 002 "until … the deck is exhausted"; 004 "dès qu'il n'y a plus de carte"
            return
        seats = self.setup.seats
        drawable = self.can_draw()
        for step in range(1, seats + 1):
            seat = (after + step) % seats
            if self.hands[seat] > 0 or drawable:
                self.set(turn=seat, drawn=False)
                return
        self.end_hand(None)  # 000 §5: "until all of the cards in the draw pile and in the hands have been played"

    def extra_turn(self, seat: int) -> None:
        """Another turn for ``seat`` (after a safety), unless it has no card left to play."""
        if self.hands[seat] > 0 or self.can_draw():
            self.set(turn=seat, drawn=False)
        else:
            self.advance(seat)

    def end_hand(self, finisher: int | None, delayed: bool = False) -> None:
        self.set(finisher=finisher, delayed=delayed, window=None, decider=None)
        scoring = self.setup.options.scoring
        if scoring is Scoring.MILLE_BORNES_FR and any(self.hands):
            self.set(phase=Phase.LEFTOVERS)
            self.event("show-leftovers", "Show the cards left in your hands")
        else:
            self.set(phase=Phase.HAND_OVER)

    def freeze(self) -> HandState:
        self.fields.update(sides=tuple(self.sides), hands=tuple(self.hands))
        return HandState(**self.fields)


def _finish(work: _Work) -> Accepted:
    hand = work.freeze()
    state = work.state._replace(hand=hand)
    events = work.events
    if hand.phase is Phase.HAND_OVER and work.state.hand.phase is not Phase.HAND_OVER:
        setup = state.setup
        sheet = score_hand(setup, hand, state.totals)
        sheets = (*state.sheets, sheet)
        over, winner, tie = game_result(setup, sheets, hand)
        state = state._replace(sheets=sheets, over=over, winner=winner, tie=tie)
        totals = ", ".join(f"{setup.side_name(i)} {t}" for i, t in enumerate(sheet.total_for_deal))
        events.append(Event("hand-over", f"Hand {hand.number} over: {totals}"))
        if over:
            if winner is not None:
                verb = "win" if setup.teams else "wins"
                events.append(Event("game-over", f"{setup.side_name(winner)} {verb} the game", side=winner))
            else:
                events.append(Event("game-over", "The game ends in a tie"))
    return Accepted(state, tuple(events))


def _complete_distance(work: _Work, seat: int, side_index: int, drew_last: bool) -> None:
    """After a distance card: the trip, the extension question, or the next turn."""
    options = work.setup.options
    side = work.sides[side_index]
    trip = int(work.get("trip"))
    done = side.miles == trip if options.exact_trip else side.miles >= trip
    if not done:
        work.advance(seat)
        return
    # Delayed action: the trip is completed once the draw pile is exhausted (000 §6C, §8).
    delayed = work.draw_pile == 0 and (options.delayed_action_on_last_draw or not drew_last)
    if trip < 1000 and options.extension and work.get("extension_by") is None:
        # 000 §10C: "he must call 'Extension' exactly at the time he reaches 700".
        work.set(phase=Phase.EXTENSION, decider=seat, pending_delayed=delayed, turn=seat)
        work.event("extension-asked", f"{work.name(seat)} reached {trip}: extend to 1000?", seat=seat)
        return
    work.event("trip-completed", f"{work.setup.side_name(side_index)} completed {side.miles} miles", side=side_index)
    work.end_hand(side_index, delayed)


def _apply_play(work: _Work, play: Play) -> None:
    setup = work.setup
    seat, card = play.seat, play.card
    kind = card.kind
    own = setup.side_of(seat)
    work.set(window=None)
    drew_last = False if work.get("drawn") else work.draw(seat)
    work.hands[seat] -= 1
    work.see(card)
    side = work.sides[own]
    if kind.is_distance:
        work.sides[own] = side._replace(distance=(*side.distance, card), miles=side.miles + kind.miles)
        work.event("distance", f"{work.name(seat)}: {kind.title}", seat=seat, side=own, card=card)
        _complete_distance(work, seat, own, drew_last)
        return
    if kind.is_hazard:
        if play.target is not None:
            target = setup.side_of(play.target)
        else:
            targets = hazard_targets(work.state, seat, kind)
            target = targets[0]
        victim = work.sides[target]
        if kind is CardKind.SPEED_LIMIT:
            work.sides[target] = victim._replace(speed=(*victim.speed, card))
        else:
            work.sides[target] = victim._replace(battle=(*victim.battle, card))
        work.set(window=CoupFourreWindow(card, target, seat))
        work.event(
            "hazard", f"{kind.title} on {setup.side_name(target)}", seat=seat, side=target, card=card
        )
        work.advance(seat)
        return
    if kind.is_remedy:
        if kind is CardKind.END_OF_LIMIT:
            work.sides[own] = side._replace(speed=(*side.speed, card))
        else:
            work.sides[own] = side._replace(battle=(*side.battle, card))
        work.event("remedy", f"{work.name(seat)}: {kind.title}", seat=seat, side=own, card=card)
        work.advance(seat)
        return
    # A safety: protection for the rest of the hand, the attack in progress cancelled, and
    # another turn (000 §5B, §6B).
    work.sides[own] = side._replace(safeties=(*side.safeties, card))
    work.event("safety", f"{work.name(seat)}: {kind.title}, play again", seat=seat, side=own, card=card)
    work.extra_turn(seat)


def _apply_coup_fourre(work: _Work, action: CoupFourre) -> None:
    """000 §7: the hazard goes to the discard pile, the situation before it is restored, the caller
    draws a replacement and takes another turn; the players in between lose their turns."""
    setup = work.setup
    window = work.state.hand.window
    assert window is not None
    seat, card = action.seat, action.card
    side = work.sides[window.side]
    if window.hazard.kind is CardKind.SPEED_LIMIT:
        assert side.speed and side.speed[-1] == window.hazard
        side = side._replace(speed=side.speed[:-1])
    else:
        assert side.battle and side.battle[-1] == window.hazard
        side = side._replace(battle=side.battle[:-1])
    work.sides[window.side] = side._replace(safeties=(*side.safeties, card), coups=(*side.coups, card.kind))
    work.hands[seat] -= 1
    work.see(card)
    work.set(discard=(*work.discard, window.hazard), window=None)
    skipped = tuple(
        (window.attacker + step) % setup.seats
        for step in range(1, (seat - window.attacker) % setup.seats)
    )
    work.draw(seat)  # the replacement for the safety
    work.extra_turn(seat)  # then the extra turn: draw and play again
    lost = f"; {', '.join(work.name(s) for s in skipped)} lose their turn" if skipped else ""
    work.event(
        "coup-fourre",
        f"Coup fourré! {work.name(seat)}: {card.kind.title}{lost}",
        seat=seat,
        side=window.side,
        card=card,
        seats=skipped,
    )


def apply(state: GameState, action: Action) -> Verdict:
    """Referee one action. The input state is never changed."""
    refusal = validate(state, action)
    if refusal is not None:
        return refusal
    if isinstance(action, NextHand):
        hand = state.hand
        setup = state.setup
        dealer = (hand.dealer + 1) % setup.seats  # the deal passes to the left
        new_hand = deal(setup, hand.number + 1, dealer)
        event = Event("new-hand", f"Hand {new_hand.number}: {setup.names[dealer]} deals", seat=dealer)
        return Accepted(state._replace(hand=new_hand), (event,))
    work = _Work(state)
    if isinstance(action, Play):
        _apply_play(work, action)
    elif isinstance(action, Discard):
        work.set(window=None)
        if not work.get("drawn"):
            work.draw(action.seat)
        work.hands[action.seat] -= 1
        work.see(action.card)
        work.set(discard=(*work.discard, action.card))
        work.event("discard", f"{work.name(action.seat)} discards {action.card.kind.title}", seat=action.seat,
                   card=action.card)
        work.advance(action.seat)
    elif isinstance(action, CoupFourre):
        _apply_coup_fourre(work, action)
    elif isinstance(action, FastRemedy):
        window = state.hand.window
        assert window is not None
        side = work.sides[window.side]
        if action.card.kind is CardKind.END_OF_LIMIT:
            work.sides[window.side] = side._replace(speed=(*side.speed, action.card))
        else:
            work.sides[window.side] = side._replace(battle=(*side.battle, action.card))
        work.hands[action.seat] -= 1
        work.see(action.card)
        work.set(window=None)
        work.draw(action.seat)  # 001 "Fast Play": draw a new card to replace it; play goes on as before
        turn = int(work.get("turn"))
        if work.hands[turn] == 0 and not work.get("drawn") and not work.can_draw():
            work.advance(turn)  # the seat in turn just played its last card out of turn: skip it
        work.event("fast-remedy", f"{work.name(action.seat)}: {action.card.kind.title} at once", seat=action.seat,
                   card=action.card)
    elif isinstance(action, TakeDiscard):
        work.set(discard=work.discard[:-1], seen=work.seen - {action.card}, drawn=True, window=None)
        work.hands[action.seat] += 1
        work.event("take-discard", f"{work.name(action.seat)} takes the {action.card.kind.title}", seat=action.seat,
                   card=action.card)
    elif isinstance(action, Swap):
        work.set(window=None)
        work.hands[action.seat] -= len(action.cards)
        work.see(*action.cards)
        work.set(discard=work.discard + action.cards)
        for _ in action.cards:
            work.draw(action.seat)
        work.event("swap", f"{work.name(action.seat)} swaps {len(action.cards)} cards", seat=action.seat)
        work.advance(action.seat)
    elif isinstance(action, StartRoll):
        own = state.setup.side_of(action.seat)
        side = work.sides[own]
        work.sides[own] = side._replace(battle=(*side.battle, action.card))
        work.see(action.card)
        started = state.hand.started | {action.seat}
        work.set(started=started)
        if len(started) == state.setup.seats:
            work.set(phase=Phase.PLAY)
    elif isinstance(action, Extension):
        if action.extend:
            work.set(trip=1000, extension_by=action.seat, decider=None, phase=Phase.PLAY)
            work.event("extension", f"{work.name(action.seat)} extends the trip to 1000", seat=action.seat)
            work.advance(action.seat)
        else:
            own = state.setup.side_of(action.seat)
            work.event("trip-completed", f"{state.setup.side_name(own)} stops at {state.hand.trip}", side=own)
            work.end_hand(own, bool(state.hand.pending_delayed))
    elif isinstance(action, Leftover):
        work.hands[action.seat] -= 1
        work.see(action.card)
        leftovers = list(state.hand.leftovers)
        leftovers[action.seat] = (*leftovers[action.seat], action.card)
        work.set(leftovers=tuple(leftovers))
        if not any(work.hands):
            work.set(phase=Phase.HAND_OVER)
    elif isinstance(action, EndHand):
        work.set(blocked=True)
        work.event("blocked", "The table ends the blocked hand")
        work.end_hand(None)
    return _finish(work)


def counted_draw(state: GameState) -> GameState:
    """The state once the seat in turn has drawn (the referee counts that draw when the seat plays).

    Bots and hint screens validate against this, so a card that just came back from a
    reshuffled discard pile is judged as the referee will judge it.
    """
    hand = state.hand
    if state.phase is not Phase.PLAY or hand.drawn:
        return state
    work = _Work(state)
    work.draw(hand.turn)
    work.set(drawn=True)
    return state._replace(hand=work.freeze())
