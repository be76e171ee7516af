"""The phrasing layer: every sentence about the game that a person reads, written here, in the
table's language, from data.

The engine answers with data: a :class:`~bornes.engine.reasons.Refusal` (a reason and its
parameters), events, actions, cards, seats and sides. This module turns them into words for the
panel, the emulator's console, ``bornes feed``, the phone pages, the club board and the
notifications, so a French table reads French everywhere and an action is said the same way on
every screen. The engine's own English lines are for logs and records only.

Each panel function returns the phrasings of one message, longest first; a screen shows the
longest that fits, so a narrow panel gets a shorter sentence written for it, never a sentence cut
mid-word. Every text goes through the ``bornes`` gettext catalogue; ``language`` picks one (None:
the language the process chose with :func:`bornes.firmware.language.i18n.use`).

French typography is the catalogue's: a no-break space before ``: ; ! ?`` and "km" in the
msgstrs; what only the values decide, the elision of "de Anaïs" into "d'Anaïs", is done here
(:func:`fill`).
"""

from __future__ import annotations

import gettext
import string
from collections.abc import Sequence

from bornes.engine import (
    EDITIONS,
    Action,
    Card,
    CardKind,
    Category,
    CoupFourre,
    Discard,
    EndHand,
    Event,
    EventCode,
    Extension,
    FastRemedy,
    GameSetup,
    GameState,
    Leftover,
    NextHand,
    Phase,
    Play,
    Reason,
    Refusal,
    StartRoll,
    Swap,
    TakeDiscard,
    attacked_side,
    seat_letter,
)
from bornes.firmware.language.i18n import N_, NC_, catalogue, current_language, edition_card_name

Phrasings = tuple[str, ...]
#: The card a side lays to start rolling, as the screens name cards (its payload word).
ROLL = "ROLL"


#: Card titles, marked for the catalogue (context "card"), so a translation names the cards.
CARD_TITLES: tuple[str, ...] = (
    NC_("card", "25 miles"), NC_("card", "50 miles"), NC_("card", "75 miles"), NC_("card", "100 miles"),
    NC_("card", "200 miles"), NC_("card", "Accident"), NC_("card", "Out of Gas"), NC_("card", "Flat Tire"),
    NC_("card", "Speed Limit"), NC_("card", "Stop"), NC_("card", "Repairs"), NC_("card", "Gasoline"),
    NC_("card", "Spare Tire"), NC_("card", "End of Limit"), NC_("card", "Roll"), NC_("card", "Driving Ace"),
    NC_("card", "Extra Tank"), NC_("card", "Puncture-Proof"), NC_("card", "Right of Way"),
)

#: The editions' titles (context "edition"): a French table names the edition as it was printed.
EDITION_TITLES: tuple[str, ...] = (
    NC_("edition", "Winning Moves Classic (1962 rules)"),
    NC_("edition", "Parker Brothers (1962 rules, revised 1988)"),
    NC_("edition", "Modern edition (2016)"),
    NC_("edition", "Dujardin (current French edition)"),
    NC_("edition", "1000 Bornes (translated French rules)"),
)


# -- filling a template: values, and French elision -------------------------------------------------

_FORMATTER = string.Formatter()
#: Words that French shortens before a vowel or a mute h: "de Anaïs" -> "d'Anaïs".
_ELIDED = {"de": "d'", "De": "D'", "que": "qu'", "Que": "Qu'", "le": "l'", "Le": "L'", "la": "l'", "La": "L'"}
_VOWELS = frozenset("aeiouyhàâäéèêëîïôöùûüÿœæ")


def _starts_with_vowel(value: str) -> bool:
    return bool(value) and value[0].lower() in _VOWELS


def fill(template: str, language: str | None = None, **values: object) -> str:
    """``template.format(**values)``, with French elision where a value starts with a vowel.

    "{card} de {name}" with Anaïs reads "50 km d'Anaïs"; only the word right before a value is
    ever changed, so the translator's own text stays as written.
    """
    if (language or catalogue_language()) != "fr":
        return template.format(**values)
    out: list[str] = []
    for literal, field, spec, conversion in _FORMATTER.parse(template):
        if field is None:
            out.append(literal)
            continue
        value = _FORMATTER.convert_field(_FORMATTER.get_field(field, (), values)[0], conversion)
        text = _FORMATTER.format_field(value, spec or "")
        out.append((_elide(literal) if _starts_with_vowel(text) else literal) + text)
    return "".join(out)


def _elide(literal: str) -> str:
    """``literal`` (the text just before a value that starts with a vowel) with its last word elided."""
    if not literal.endswith(" "):
        return literal
    head, sep, word = literal[:-1].rpartition(" ")
    return head + sep + _ELIDED[word] if word in _ELIDED else literal


def catalogue_language() -> str:
    """The language of the table's catalogue in use (``en`` when none was chosen)."""
    return current_language()


class _Say:
    """One catalogue and its language: the translation calls, filled with elision."""

    __slots__ = ("language", "t")

    def __init__(self, language: str | None) -> None:
        self.t: gettext.NullTranslations = catalogue(language)
        self.language = language or catalogue_language()

    def __call__(self, message: str, **values: object) -> str:
        return fill(self.t.gettext(message), self.language, **values)

    def ngettext(self, singular: str, plural: str, count: int, **values: object) -> str:
        return fill(self.t.ngettext(singular, plural, count), self.language, count=count, **values)

    def pgettext(self, context: str, message: str, **values: object) -> str:
        return fill(self.t.pgettext(context, message), self.language, **values)


# -- names: cards, editions, sides ---------------------------------------------------------------


def card_name(kind: CardKind | Card | str, edition: str | None = None, language: str | None = None) -> str:
    """A card's title in the players' language, as ``edition`` printed it: "75 miles", "Right of
    Way" ("Emergency Vehicle" in the 2016 edition, "Véhicule Prioritaire" in French); the usual
    title without an edition. ``kind`` may be the payload word the screens use ("STOP")."""
    kind = kind.kind if isinstance(kind, Card) else CardKind(kind) if isinstance(kind, str) else kind
    return edition_card_name(kind.title, edition, language) or catalogue(language).pgettext("card", kind.title)


def card_copy(card: Card, edition: str | None = None, language: str | None = None) -> str:
    """One physical card: "Roll #11" ("Feu Vert n° 11")."""
    _ = _Say(language)
    return _("{card} #{copy}", card=card_name(card, edition, language), copy=card.copy)


def edition_title(edition: str, language: str | None = None) -> str:
    """The edition's title in the table's language ("1000 Bornes Dujardin" for the French edition)."""
    return catalogue(language).pgettext("edition", EDITIONS[edition].title)


def side_name(setup: GameSetup, side: int) -> str:
    """A side as players call it: the player, or partners joined with '+'."""
    return "+".join(setup.names[s] for s in setup.side_seats(side))


def _seat(setup: GameSetup, seat: int) -> str:
    return setup.names[seat]


def names_list(names: Sequence[str], language: str | None = None) -> str:
    """"Ann, Bob and Chloé" ("Ann, Bob et Chloé")."""
    if len(names) < 2:
        return "".join(names)
    _ = _Say(language)
    return _("{names} and {last}", names=", ".join(names[:-1]), last=names[-1])


# -- actions ---------------------------------------------------------------------------------------


def action_words(setup: GameSetup, action: Action, language: str | None = None) -> Phrasings:
    """What just happened, for the status line after an accepted action: with the card's name as
    the edition printed it, then (where that name is longer, "End of Speed Limit") the usual title."""
    printed = _action_words(setup, action, setup.edition, language)
    usual = _action_words(setup, action, None, language)
    return tuple(dict.fromkeys((*printed, *usual)))


def _action_words(setup: GameSetup, action: Action, edition: str | None, language: str | None) -> Phrasings:
    _ = _Say(language)

    def card(of: Card) -> str:
        return card_name(of, edition, language)

    if isinstance(action, Play):
        name, title = _seat(setup, action.seat), card(action.card)
        target_side = attacked_side(setup, action)  # only a hazard goes on another side
        # Who played it stays in every phrasing, the shortest too (issue 40: the header said "Feu Rouge",
        # not whose): the header cuts a long name by the names' rule before it drops it.
        if target_side is not None:
            target = side_name(setup, target_side)
            return (_("{name}: {card} on {target}", name=name, card=title, target=target),
                    _("{name}: {card}", name=name, card=title), _("{name}: Attack!", name=name))
        miles = action.card.kind.miles  # 0 for a card that is not distance
        if miles:
            return (_("{name}: {card}", name=name, card=title),
                    _("{name} +{miles}", name=name, miles=miles))
        # A last word short enough for any header beside the draw count ("Véhicule Prioritaire" is not).
        family = action.card.kind.category  # the word for the card's family, to show it, not to judge it
        last = (_("{name}: Safety!", name=name) if family is Category.SAFETY
                else _("{name}: Attack!", name=name) if family is Category.HAZARD else _("{name}: Remedy", name=name))
        return _("{name}: {card}", name=name, card=title), last
    if isinstance(action, Discard):
        name, title = _seat(setup, action.seat), card(action.card)
        return (_("{name} discards {card}", name=name, card=title), _("{name} discards", name=name),
                _("Discarded"), _("Discard"))
    if isinstance(action, CoupFourre):
        name, title = _seat(setup, action.seat), card(action.card)
        return (_("Coup fourré! {name}: {card}", name=name, card=title),
                _("Coup fourré! {name}", name=name), _("Coup fourré!"))
    if isinstance(action, FastRemedy):
        name, title = _seat(setup, action.seat), card(action.card)
        return (_("{name} answers with {card}", name=name, card=title), _("{name}: {card}", name=name, card=title),
                title, _("Remedy"))
    if isinstance(action, TakeDiscard):
        name, title = _seat(setup, action.seat), card(action.card)
        return (_("{name} takes the discard: {card}", name=name, card=title),
                _("{name} takes {card}", name=name, card=title), _("{name} takes it", name=name), _("Taken"))
    if isinstance(action, Swap):
        name, count = _seat(setup, action.seat), len(action.cards)
        return (_.ngettext("{name} swaps {count} card", "{name} swaps {count} cards", count, name=name),
                _("{name} swaps", name=name), _("Swapped"))
    if isinstance(action, StartRoll):
        name, roll = _seat(setup, action.seat), card(action.card)
        return (_("{name} lays a {roll}", name=name, roll=roll), _("{name}: {card}", name=name, card=roll), roll)
    if isinstance(action, Extension):
        name = _seat(setup, action.seat)
        if action.extend:
            return _("{name} extends the trip", name=name), _("{name} extends", name=name), _("Extended")
        return _("{name} stops the trip", name=name), _("{name}: no extension", name=name), _("No")
    if isinstance(action, Leftover):
        name, title = _seat(setup, action.seat), card(action.card)
        return (_("{name} shows {card}", name=name, card=title), _("{name}: {card}", name=name, card=title), title,
                _("Shown"))
    if isinstance(action, EndHand):
        return _("Hand ended: nobody can go on"), _("Hand ended")
    if isinstance(action, NextHand):
        return _("Next hand dealt"), _("Next hand")
    return (_("Done"),)


def describe(setup: GameSetup, action: Action, language: str | None = None) -> str:
    """One action as a whole sentence with the players' names, as a scorer would say it aloud:
    the phone pages' list of the last actions, the club board and the notifications."""
    _ = _Say(language)

    def card(of: Card) -> str:
        return card_name(of, setup.edition, language)

    name = _seat(setup, action.seat) if hasattr(action, "seat") else ""
    if isinstance(action, Play):
        target_side = attacked_side(setup, action)
        if target_side is not None:
            return _("{player} plays {card} on {target}", player=name, card=card(action.card),
                       target=side_name(setup, target_side))
        return _("{player} plays {card}", player=name, card=card(action.card))
    if isinstance(action, CoupFourre):
        return _("Coup fourré! {player} plays {card}", player=name, card=card(action.card))
    if isinstance(action, Discard):
        return _("{player} discards {card}", player=name, card=card(action.card))
    if isinstance(action, TakeDiscard):
        return _("{player} takes {card} from the discard pile", player=name, card=card(action.card))
    if isinstance(action, FastRemedy):
        return _("{player} answers at once with {card}", player=name, card=card(action.card))
    if isinstance(action, Swap):
        return _.ngettext("{player} swaps {count} card", "{player} swaps {count} cards", len(action.cards),
                          player=name)
    if isinstance(action, StartRoll):
        return _("{player} lays a starting {card}", player=name, card=card(action.card))
    if isinstance(action, Extension):
        if action.extend:
            return _("{player} extends the trip", player=name)
        return _("{player} stops at the trip's end", player=name)
    if isinstance(action, Leftover):
        return _("{player} shows {card} left in hand", player=name, card=card(action.card))
    if isinstance(action, EndHand):
        return _("The blocked hand is ended")
    if isinstance(action, NextHand):
        return _("Next hand dealt")
    return action.notation()  # pragma: no cover - every action kind is named above


def pad_words(setup: GameSetup, text: str, pad: str | None, language: str | None = None) -> str:
    """An action's words with the pad its card was laid on, where a pad said something (a seat's or
    the discard pile's: firmware/storage/padnotes.py); the words alone otherwise."""
    _ = _Say(language)
    if pad == "discard":
        return _("{action}, on the discard pad", action=text)
    seat = "ABCDEFGH".find(pad) if pad is not None and len(pad) == 1 else -1
    if 0 <= seat < setup.seats:
        return _("{action}, on {player}'s pad", action=text, player=setup.names[seat])
    return text


def taken_back(setup: GameSetup, action: Action, language: str | None = None) -> Phrasings:
    """An action as a thing that can be taken back: "100 miles by Ann", then "100 miles"."""
    _ = _Say(language)
    card = getattr(action, "card", None)
    seat = getattr(action, "seat", None)
    if isinstance(card, Card) and isinstance(seat, int):
        name = card_name(card, setup.edition, language)
        if isinstance(action, CoupFourre):
            name = _("coup fourré {card}", card=name)
        elif isinstance(action, Discard):
            name = _("discard of {card}", card=name)
        return _("{card} by {name}", card=name, name=setup.names[seat]), name
    if isinstance(action, Extension):
        what = _("the extension") if action.extend else _("no extension")
        return _("{card} by {name}", card=what, name=setup.names[action.seat]), what
    said = action_words(setup, action, language)
    return said[0], said[-1]


def undone_words(setup: GameSetup, action: Action, language: str | None = None) -> Phrasings:
    """After an undo: what was taken back."""
    _ = _Say(language)
    long, short = taken_back(setup, action, language)
    return _("Undone: {what}", what=long), _("Undone: {what}", what=short), _("Undone")


def undo_question(setup: GameSetup, action: Action, language: str | None = None) -> Phrasings:
    """The undo prompt's question, for logs and the emulator's line."""
    _ = _Say(language)
    long, short = taken_back(setup, action, language)
    return _("Undo {what}? OK / BACK", what=long), _("Undo {what}?", what=short), _("Undo? OK / BACK")


def new_game_words(setup: GameSetup, starter: int, language: str | None = None) -> Phrasings:
    _ = _Say(language)
    dealer, first = setup.names[setup.dealer], setup.names[starter]
    return (_("New game: {dealer} deals, {starter} starts", dealer=dealer, starter=first),
            _("{dealer} deals, {starter} starts", dealer=dealer, starter=first),
            _("{starter} starts", starter=first))


# -- what the engine said after an accepted action -----------------------------------------------------

#: Events that only repeat the action: the action's own words say them better.
_ECHOES = frozenset({EventCode.DISTANCE, EventCode.REMEDY, EventCode.DISCARD,
                     EventCode.TAKE_DISCARD, EventCode.SWAP, EventCode.FAST_REMEDY})


def event_words(state: GameState, event: Event, language: str | None = None) -> Phrasings:
    """One engine event in words (``state``: the table right after it), longest first."""
    _ = _Say(language)
    setup = state.setup
    code = event.code
    name = setup.names[event.seat] if event.seat is not None else ""
    side = side_name(setup, event.side) if event.side is not None else ""
    card = card_name(event.card, setup.edition, language) if event.card is not None else ""
    if code is EventCode.DISTANCE or code is EventCode.REMEDY:
        return _("{name}: {card}", name=name, card=card), card
    if code is EventCode.HAZARD:  # who played it stays in every phrasing (issue 40: "Feu Rouge" alone)
        return (_("{name}: {card} on {target}", name=name, card=card, target=side),
                _("{name}: {card}", name=name, card=card), _("{name}: Attack!", name=name))
    if code is EventCode.SAFETY:
        return (_("{name}: {card}, play again", name=name, card=card), _("{name}: {card}", name=name, card=card),
                card)
    if code is EventCode.COUP_FOURRE:
        lost = [setup.names[s] for s in event.seats]
        long = _("Coup fourré! {name}: {card}", name=name, card=card)
        if lost:
            long = _.ngettext("Coup fourré! {name}: {card}; {lost} loses the turn",
                              "Coup fourré! {name}: {card}; {lost} lose their turn", len(lost),
                              name=name, card=card, lost=names_list(lost, language))
        return long, _("Coup fourré! {name}: {card}", name=name, card=card), _("Coup fourré! {name}", name=name)
    if code is EventCode.FAST_REMEDY:
        return _("{name}: {card} at once", name=name, card=card), _("{name}: {card}", name=name, card=card)
    if code is EventCode.DISCARD:
        return _("{name} discards {card}", name=name, card=card), _("{name} discards", name=name)
    if code is EventCode.TAKE_DISCARD:
        return _("{name} takes {card}", name=name, card=card), _("{name} takes it", name=name)
    if code is EventCode.SWAP:
        return (_("{name} swaps", name=name),)
    if code is EventCode.RESHUFFLED:
        return (_.ngettext("Discards shuffled into a new draw pile of {count}",
                           "Discards shuffled into a new draw pile of {count}", state.hand.draw_pile),
                _("Discards reshuffled"))
    if code is EventCode.DRAW_PILE_EMPTY:
        return _("Draw pile empty: play out your hands"), _("Draw pile empty")
    if code is EventCode.EXTENSION_ASKED:
        trip = state.hand.trip
        return (_("{name} reached {trip}: extend to 1000?", name=name, trip=trip),
                _("{name}: extend to 1000?", name=name), _("Extend?"))
    if code is EventCode.EXTENSION:
        return _("{name} extends the trip to 1000", name=name), _("{name} extends", name=name)
    if code is EventCode.TRIP_COMPLETED:
        miles = state.hand.sides[event.side if event.side is not None else 0].miles
        return (_("{side} completed the trip: {miles}", side=side, miles=distance(miles, language)),
                _("{side}: trip completed", side=side))
    if code is EventCode.BLOCKED:
        return _("The table ends the blocked hand"), _("Hand ended")
    if code is EventCode.SHOW_LEFTOVERS:
        return _("Show the cards left in your hands"), _("Show your cards")
    if code is EventCode.HAND_OVER:
        sheet = state.sheets[-1] if state.sheets else None
        number = sheet.hand if sheet else state.hand.number
        if sheet is None:
            return (_("Hand {hand} over", hand=number),)
        totals = ", ".join(f"{side_name(setup, i)} {t}" for i, t in enumerate(sheet.total_for_deal))
        return _("Hand {hand} over: {totals}", hand=number, totals=totals), _("Hand {hand} over", hand=number)
    if code is EventCode.GAME_OVER:
        return game_over_words(state, language)
    if code is EventCode.NEW_HAND:
        return _("Hand {hand}: {name} deals", hand=state.hand.number, name=name), _("Next hand")
    return (_("Done"),)  # pragma: no cover - every event code is named above


def game_over_words(state: GameState, language: str | None = None) -> Phrasings:
    _ = _Say(language)
    if state.winner is None:
        return _("The game ends in a tie"), _("A tie")
    winner = side_name(state.setup, state.winner)
    if len(state.setup.side_seats(state.winner)) > 1:
        return _("{side} win the game", side=winner), _("{side} win", side=winner)
    return _("{side} wins the game", side=winner), _("{side} wins", side=winner)


def outcome_words(state: GameState, action: Action, events: Sequence[Event], language: str | None = None) -> Phrasings:
    """What the table says after an accepted action (``state``: the table after it): the last
    event when it adds to the action (the trip completed, the hand or the game over, a coup
    fourré's lost turns), then the action's own words."""
    said = action_words(state.setup, action, language)
    if not events or events[-1].code in _ECHOES:
        return said
    told = event_words(state, events[-1], language)
    if events[-1].code is EventCode.HAZARD:  # the event knows the side the engine chose
        return tuple(dict.fromkeys((*told, *said)))
    return tuple(dict.fromkeys((told[0], *said)))


def distance(miles: int, language: str | None = None) -> str:
    """A distance with its unit: "700 miles", "700 km" (French tables count in km)."""
    _ = _Say(language)
    return _.ngettext("{count} mile", "{count} miles", miles)


# -- refusals ----------------------------------------------------------------------------------------


class _Refused:
    """What a refusal's words are made of: its parameters, the table's names, the edition's card
    titles and the language. The words are grouped by what the refusal is about (below)."""

    def __init__(self, setup: GameSetup | None, refusal: Refusal, language: str | None) -> None:
        self.say = _Say(language)
        self.params = refusal.params
        self.setup = setup
        self.edition = setup.edition if setup is not None else None
        self.language = language
        self.roll = card_name(ROLL, self.edition, language)

    def card(self, value: object) -> str:
        assert isinstance(value, Card | CardKind)
        return card_name(value, self.edition, self.language)

    def seat(self, key: str = "seat") -> str:
        index = self.params[key]
        assert isinstance(index, int)
        if self.setup is not None and 0 <= index < len(self.setup.names):
            return self.setup.names[index]
        return seat_letter(index) if 0 <= index < 8 else str(index)

    def side(self, key: str = "side") -> str:
        index = self.params[key]
        assert isinstance(index, int) and self.setup is not None
        return side_name(self.setup, index)

    def copy(self) -> str:
        """The refused card with its copy number ("Roll #14"), so a player can find it on the table."""
        value = self.params["card"]
        assert isinstance(value, Card)
        return card_copy(value, self.edition, self.language)


def refusal_words(setup: GameSetup | None, refusal: Refusal, language: str | None = None) -> Phrasings:
    """Why the engine refused, in the table's language, longest first: written from the refusal's
    reason and parameters (never from the engine's English line)."""
    words = _Refused(setup, refusal, language)
    for group in (_deck_and_turn_words, _driving_words, _attack_words, _pile_and_answer_words,
                  _start_and_names_words):
        phrasings = group(words, refusal.reason)
        if phrasings is not None:
            return phrasings
    return (refusal.message,)  # pragma: no cover - every reason is worded in a group


def _deck_and_turn_words(w: _Refused, reason: Reason) -> Phrasings | None:
    """The card is not one to play now: not in the deck, on the table already, not this phase or seat."""
    _ = w.say
    if reason is Reason.NOT_IN_DECK:
        if "in_a_box" in w.params:
            return (_("No such card: {card} (a deck has {count})", card=w.copy(), count=w.params["in_a_box"]),
                    _("No such card"))
        if w.params.get("short_deck"):
            return _("{card} is not in this deck (taken out for 2–3 players)", card=w.copy()), _("Not in this deck")
        return _("{card} is not in this deck", card=w.copy()), _("Not in this deck")
    if reason is Reason.ON_TABLE:
        return _("That card is already on the table: {card}", card=w.copy()), _("Already on the table")
    if reason is Reason.DUPLICATE_CARD:
        return (_("The same card twice"),)
    if reason is Reason.GAME_OVER:
        return _("The game is over"), _("Game over")
    if reason is Reason.WRONG_PHASE:
        phase = w.params.get("phase")
        if phase == "hand-over":
            return _("The hand is over: deal the next hand"), _("The hand is over")
        if phase == "leftovers":
            return _("Show the cards left in hand first"), _("Show your cards first")
        if phase == "start-rolls":
            return _("Everyone lays a starting {roll} first", roll=w.roll), _("{roll} first", roll=w.roll)
        if phase == "extension":
            return _("{name} must decide the extension first", name=w.seat()), _("{name} decides first", name=w.seat())
        if phase == "play" and w.params.get("action") == "extension":
            return (_("No extension to decide"),)
        if phase == "play":
            return _("The hand is still being played"), _("The hand goes on")
        return (_("Not now"),)
    if reason is Reason.NOT_YOUR_TURN:
        if w.params.get("action") == "extension":
            return _("{name} decides the extension", name=w.seat()), _("{name} decides", name=w.seat())
        return _("Not your turn: {name} plays", name=w.seat()), _("{name} plays", name=w.seat()), _("Not your turn")
    if reason is Reason.NO_SUCH_SEAT:
        index = w.params["seat"]
        assert isinstance(index, int)
        return (_("There is no seat {seat}", seat=seat_letter(index) if 0 <= index < 8 else index),)
    if reason is Reason.HAND_EMPTY:
        if w.params.get("phase") == "leftovers":
            return _("{name} has shown every card", name=w.seat()), _("All shown")
        return _("{name} has no cards left", name=w.seat()), _("No cards left")
    return None


def _driving_words(w: _Refused, reason: Reason) -> Phrasings | None:
    """The battle and the miles: rolling, stopped, limited, the trip."""
    _ = w.say
    if reason is Reason.NOT_ROLLING:
        if w.params.get("again"):
            return _("Play a {roll} to go again", roll=w.roll), _("{roll} first", roll=w.roll)
        return _("Play a {roll} first", roll=w.roll), _("{roll} first", roll=w.roll)
    if reason is Reason.STOPPED or reason is Reason.REMEDY_FIRST:
        names = {"hazard": w.card(w.params["hazard"]), "remedy": w.card(w.params["remedy"])}
        if reason is Reason.STOPPED:
            return (_("Stopped by {hazard}: play {remedy}", **names), _("{hazard}: play {remedy}", **names),
                    _("Play {remedy}", **names))
        return (_("Stopped by {hazard}: play {remedy} first", **names),
                _("{hazard}: {remedy} first", **names), _("{remedy} first", **names))
    if reason is Reason.SPEED_LIMIT:
        return _("Speed limit: only 25 or 50"), _("Limit: 25 or 50")
    if reason is Reason.TOO_MANY_200:
        return _("Only two 200s per trip"), _("Two 200s at most")
    if reason is Reason.PAST_TRIP:
        return (_("Trip is exactly {trip}: {miles}+{more} passes it", trip=w.params["trip"], miles=w.params["miles"],
                    more=w.params["card_miles"]), _("Past {trip}", trip=w.params["trip"]))
    return None


def _attack_words(w: _Refused, reason: Reason) -> Phrasings | None:
    """A hazard and its target, or a remedy with nothing to cure."""
    _ = w.say
    if reason is Reason.TARGET_NEEDED:
        sides = w.params["sides"]
        assert isinstance(sides, tuple) and w.setup is not None
        return (_("Choose a target: {sides}", sides=", ".join(side_name(w.setup, s) for s in sides)),
                _("Choose a target"))
    if reason is Reason.TARGET_OWN_SIDE:
        return _("Hazards go on an opponent"), _("On an opponent")
    if reason is Reason.NOT_A_HAZARD:
        return (_("Only a hazard goes on another side: {card} is yours", card=w.card(w.params["card"])),
                _("{card} is yours", card=w.card(w.params["card"])))
    if reason is Reason.NO_TARGET:
        return (_("No opponent can take a {card} now", card=w.card(w.params["hazard"])), _("No target"))
    if reason is Reason.PROTECTED:
        return (_("{side} has the {safety}", side=w.side(), safety=w.card(w.params["safety"])),
                _("Protected: {safety}", safety=w.card(w.params["safety"])), _("Protected"))
    if reason is Reason.NEEDS_ROLLING_TARGET:
        return _("Hazard needs a rolling opponent"), _("Opponent not rolling")
    if reason is Reason.ALREADY_STOPPED:
        return (_("{side} is already stopped by {hazard}", side=w.side(), hazard=w.card(w.params["hazard"])),
                _("Already stopped"))
    if reason is Reason.ALREADY_LIMITED:
        return _("{side} is already under a speed limit", side=w.side()), _("Already limited")
    if reason is Reason.ATTACKER_NOT_STARTED:
        return _("Start rolling before you attack"), _("Roll before attacking")
    if reason is Reason.NOTHING_TO_REMEDY:
        return _("No {hazard} to cure", hazard=w.card(w.params["hazard"])), _("Nothing to cure")
    if reason is Reason.ALREADY_ROLLING:
        return _("You are already rolling"), _("Already rolling")
    if reason is Reason.NO_LIMIT:
        return _("No speed limit to end"), _("No limit")
    return None


def _pile_and_answer_words(w: _Refused, reason: Reason) -> Phrasings | None:
    """The draw and discard piles, and answers to a hazard (coups fourrés, fast remedies)."""
    _ = w.say
    if reason is Reason.SAFETY_DISCARD:
        return _("Safeties may not be discarded in these rules"), _("Keep safeties")
    if reason is Reason.DISCARD_EMPTY:
        if w.params.get("reshuffle"):
            return _("The discards are shuffled into a new draw pile"), _("Discards reshuffled")
        return _("The discard pile is empty"), _("No discards")
    if reason is Reason.NOT_TOP_DISCARD:
        return _("Only the top discard can be taken: {card}", card=w.copy()), _("Only the top discard")
    if reason is Reason.ALREADY_DREW:
        if w.params.get("action") == "swap":
            return _("Swap instead of drawing, at the start of your turn"), _("Swap before drawing")
        return _("You already drew this turn"), _("Already drawn")
    if reason is Reason.OPTION_OFF:
        if w.params.get("option") == "fast_play":
            return _("Fast Play is not on"), _("No Fast Play")
        return _("These rules do not let you take from the discard pile"), _("No taking discards")
    if reason is Reason.NO_WINDOW:
        return _("No hazard to answer: it must be the card just played"), _("No hazard to answer")
    if reason is Reason.WRONG_SAFETY or reason is Reason.WRONG_REMEDY:
        hazard = w.card(w.params["hazard"])
        if reason is Reason.WRONG_SAFETY:
            answer = w.card(w.params["safety"])
            return (_("Only the {safety} answers a {hazard}", safety=answer, hazard=hazard),
                    _("Only the {safety}", safety=answer))
        answer = w.card(w.params["remedy"])
        return (_("Only {remedy} cures a {hazard}", remedy=answer, hazard=hazard), _("Only {remedy}", remedy=answer))
    if reason is Reason.NOT_ATTACKED:
        return _("Only {side} can answer that hazard", side=w.side()), _("Not attacked")
    return None


def _start_and_names_words(w: _Refused, reason: Reason) -> Phrasings | None:
    """Starting rolls, swaps, the end of a hand, and players' names."""
    _ = w.say
    if reason is Reason.NOT_A_ROLL:
        return _("Lay a {roll} to start", roll=w.roll), _("{roll} first", roll=w.roll)
    if reason is Reason.ALREADY_STARTED:
        return _("{name} has laid a {roll} already", name=w.seat(), roll=w.roll), _("Already started")
    if reason is Reason.PLAY_CONTINUES:
        return _("The hand goes on: the draw pile has cards"), _("The hand goes on")
    if reason is Reason.SWAP_SIZE:
        return (_("Swap 1 to {count} cards", count=w.params["held"]),)
    if reason is Reason.BAD_NAME:
        return (_("A name has 1 to {count} letters, without ; or \"", count=w.params.get("longest", 12)),
                _("Not a name"))
    if reason is Reason.DUPLICATE_NAME:
        return _("Two players are called {name}", name=w.params.get("name", "")), _("Same name twice")
    return None


def turn_text(state: GameState, language: str | None = None) -> str:
    """Whose move it is, as a sentence (the phone pages' and the club board's line)."""
    _ = _Say(language)
    setup = state.setup
    if state.over:
        return game_over_words(state, language)[0]
    if state.phase is Phase.HAND_OVER:
        return _("Hand over: score sheet on the table")
    if state.phase is Phase.EXTENSION and state.hand.decider is not None:
        return _("{player} decides on the extension", player=setup.names[state.hand.decider])
    to_act = state.to_act()
    if to_act:
        return _("{player} to play", player=setup.names[to_act[0]])
    return ""


#: The score sheet's rows (003 "Score Sheet"), as the engine names them, for the catalogue.
SHEET_ROWS: tuple[str, ...] = (
    N_("Milestones"), N_("Safeties"), N_("Coups fourrés"), N_("Trip completed"), N_("Delayed action"),
    N_("Safe trip"), N_("Shut-out"), N_("Extension"), N_("Miles in hand"), N_("Total for deal"),
    N_("Brought forward"), N_("Combined total"),
)


def sheet_row(label: str, language: str | None = None) -> str:
    """A score-sheet row's label in the table's language."""
    return catalogue(language).gettext(label)
