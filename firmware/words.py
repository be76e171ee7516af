"""Actions said in players' words, in phrasings from long to short, for any panel width.

The table never shows record notation ("B play MB-D75-3") to players. Each function returns
the phrasings of one message, longest first; a screen shows the longest that fits, so a
narrow panel gets a shorter sentence written for it, never a sentence cut mid-word. Every
phrasing goes through the ``bornes`` gettext catalogue.
"""

from __future__ import annotations

from bornes.engine.actions import (
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
)
from bornes.engine.cards import Card, CardKind
from bornes.engine.state import GameSetup
from bornes.firmware.i18n import _, edition_card_name, ngettext, pgettext

Phrasings = tuple[str, ...]

def NC_(context: str, message: str) -> str:
    """Mark a text with a context for the catalogue without translating it yet."""
    return message


#: Card titles, marked for the catalogue (context "card"), so a translation names the cards.
CARD_TITLES: tuple[str, ...] = (
    NC_("card", "25 miles"), NC_("card", "50 miles"), NC_("card", "75 miles"), NC_("card", "100 miles"),
    NC_("card", "200 miles"), NC_("card", "Accident"), NC_("card", "Out of Gas"), NC_("card", "Flat Tire"),
    NC_("card", "Speed Limit"), NC_("card", "Stop"), NC_("card", "Repairs"), NC_("card", "Gasoline"),
    NC_("card", "Spare Tire"), NC_("card", "End of Limit"), NC_("card", "Roll"), NC_("card", "Driving Ace"),
    NC_("card", "Extra Tank"), NC_("card", "Puncture-Proof"), NC_("card", "Right of Way"),
)


def card_name(kind: CardKind | Card, edition: str | None = None) -> str:
    """A card's title in the players' language, as ``edition`` printed it: "75 miles", "Right of
    Way" ("Emergency Vehicle" in the 2016 edition); the usual title without an edition."""
    kind = kind.kind if isinstance(kind, Card) else kind
    return edition_card_name(kind.title, edition) or pgettext("card", kind.title)


def _seat(setup: GameSetup, seat: int) -> str:
    return setup.names[seat]


def _side(setup: GameSetup, seat: int) -> str:
    return "+".join(setup.names[s] for s in setup.side_seats(setup.side_of(seat)))


def action_words(setup: GameSetup, action: Action) -> Phrasings:
    """What just happened, for the status line after an accepted action: with the card's name as
    the edition printed it, then (where that name is longer, "End of Speed Limit") the usual title."""
    printed = _action_words(setup, action, setup.edition)
    usual = _action_words(setup, action, None)
    return tuple(dict.fromkeys((*printed, *usual)))


def _action_words(setup: GameSetup, action: Action, edition: str | None) -> Phrasings:
    if isinstance(action, Play):
        name, card = _seat(setup, action.seat), card_name(action.card, edition)
        if action.target is not None:  # only a hazard names a target
            target = _side(setup, action.target)
            return (_("{name}: {card} on {target}").format(name=name, card=card, target=target),
                    _("{card} on {target}").format(card=card, target=target), card)
        miles = action.card.kind.miles  # 0 for a card that is not distance
        if miles:
            return (_("{name}: {card}").format(name=name, card=card),
                    _("{name} +{miles}").format(name=name, miles=miles), f"+{miles}")
        return _("{name}: {card}").format(name=name, card=card), card
    if isinstance(action, Discard):
        name, card = _seat(setup, action.seat), card_name(action.card, edition)
        return (_("{name} discards {card}").format(name=name, card=card),
                _("{name} discards").format(name=name), _("Discarded"))
    if isinstance(action, CoupFourre):
        name, card = _seat(setup, action.seat), card_name(action.card, edition)
        return (_("Coup fourré! {name}: {card}").format(name=name, card=card),
                _("Coup fourré! {name}").format(name=name), _("Coup fourré!"))
    if isinstance(action, FastRemedy):
        name, card = _seat(setup, action.seat), card_name(action.card, edition)
        return (_("{name} answers with {card}").format(name=name, card=card),
                _("{name}: {card}").format(name=name, card=card), card)
    if isinstance(action, TakeDiscard):
        name, card = _seat(setup, action.seat), card_name(action.card, edition)
        return (_("{name} takes the discard: {card}").format(name=name, card=card),
                _("{name} takes {card}").format(name=name, card=card), _("{name} takes it").format(name=name))
    if isinstance(action, Swap):
        name, count = _seat(setup, action.seat), len(action.cards)
        return (ngettext("{name} swaps {count} card", "{name} swaps {count} cards", count).format(name=name,
                                                                                              count=count),
                _("{name} swaps").format(name=name), _("Swapped"))
    if isinstance(action, StartRoll):
        name = _seat(setup, action.seat)
        return _("{name} lays a Roll").format(name=name), _("{name}: Roll").format(name=name), _("Roll")
    if isinstance(action, Extension):
        name = _seat(setup, action.seat)
        if action.extend:
            return _("{name} extends the trip").format(name=name), _("{name} extends").format(name=name), _("Extended")
        return _("{name} stops the trip").format(name=name), _("{name}: no extension").format(name=name), _("No")
    if isinstance(action, Leftover):
        name, card = _seat(setup, action.seat), card_name(action.card, edition)
        return (_("{name} shows {card}").format(name=name, card=card), _("{name}: {card}").format(name=name, card=card),
                card)
    if isinstance(action, EndHand):
        return _("Hand ended: nobody can go on"), _("Hand ended")
    if isinstance(action, NextHand):
        return _("Next hand dealt"), _("Next hand")
    return (_("Done"),)


def taken_back(setup: GameSetup, action: Action) -> Phrasings:
    """An action as a thing that can be taken back: "100 miles by Ann", then "100 miles"."""
    card = getattr(action, "card", None)
    seat = getattr(action, "seat", None)
    if isinstance(card, Card) and isinstance(seat, int):
        name = card_name(card)
        if isinstance(action, CoupFourre):
            name = _("coup fourré {card}").format(card=name)
        elif isinstance(action, Discard):
            name = _("discard of {card}").format(card=name)
        return _("{card} by {name}").format(card=name, name=setup.names[seat]), name
    if isinstance(action, Extension):
        what = _("the extension") if action.extend else _("no extension")
        return _("{card} by {name}").format(card=what, name=setup.names[action.seat]), what
    said = action_words(setup, action)
    return said[0], said[-1]


def undone_words(setup: GameSetup, action: Action) -> Phrasings:
    """After an undo: what was taken back."""
    long, short = taken_back(setup, action)
    return (_("Undone: {what}").format(what=long), _("Undone: {what}").format(what=short), _("Undone"))


def undo_question(setup: GameSetup, action: Action) -> Phrasings:
    """The undo prompt's question, for logs and the emulator's line."""
    long, short = taken_back(setup, action)
    return (_("Undo {what}? OK / BACK").format(what=long), _("Undo {what}?").format(what=short),
            _("Undo? OK / BACK"))


def new_game_words(setup: GameSetup, starter: int) -> Phrasings:
    dealer, first = setup.names[setup.dealer], setup.names[starter]
    return (_("New game: {dealer} deals, {starter} starts").format(dealer=dealer, starter=first),
            _("{dealer} deals, {starter} starts").format(dealer=dealer, starter=first),
            _("{starter} starts").format(starter=first))
