"""The deck check: every card of a box scanned once, then a report of what is missing or foreign."""

from __future__ import annotations

from bornes.engine import Card
from bornes.firmware.language.i18n import _
from bornes.firmware.language.words import card_copy
from bornes.firmware.table.core import (
    FULL_DECK,
    FULL_DECK_SET,
    DeckCheckState,
    MenuState,
    Mode,
    ModeHandler,
    Outcome,
    Sound,
    Verdict,
)


def deck_missing(deck: DeckCheckState) -> list[Card]:
    """The classic deck's cards not scanned yet, in the deck's order."""
    return [card for card in FULL_DECK if card not in deck.seen]


def report_lines(deck: DeckCheckState) -> list[str]:
    """The report's lines: each missing card, then each code that is no card of the deck."""
    lines = [_("Missing {code}").format(code=card.code()) for card in deck_missing(deck)]
    lines += [_("Unknown {code}").format(code=raw[:16]) for raw in deck.unknown]
    return lines or [_("Deck complete")]


class DeckCheckMode(ModeHandler):
    """Scanning the box: each card counts once; OK ends the check with its report, BACK leaves it."""

    def card(self, card: Card, pad: str | None) -> Outcome:
        ui = self.ui
        if card not in FULL_DECK_SET:
            ui.deck.unknown.append(card.code())
            return self.table.refuse(_("Not in a deck: {code}").format(code=card.code()), "not-in-deck")
        if card in ui.deck.seen:
            ui.deck.duplicates += 1
            return self.table.refuse(_("Scanned already: {card}").format(card=card_copy(card)), "duplicate-card")
        ui.deck.seen.add(card)
        return self.table.say(Verdict.ACCEPTED, f"{len(ui.deck.seen)}/{len(FULL_DECK)}: {card_copy(card)}",
                              Sound.ACCEPT)

    def button(self, name: str, long: bool) -> Outcome:
        ui = self.ui
        if name == "BACK":
            return leave_deck_check(self)
        if name != "OK":
            return self.table.ignored()
        ui.mode = Mode.DECK_REPORT
        ui.menu.cursor = 0
        missing = deck_missing(ui.deck)
        if not missing and not ui.deck.unknown:
            return self.table.say(Verdict.ACCEPTED, _("Deck complete: {count} cards").format(count=len(FULL_DECK)),
                                  Sound.HAND_END)
        return self.table.refuse(_("{missing} missing, {unknown} unknown").format(
            missing=len(missing), unknown=len(ui.deck.unknown)), "deck-incomplete")


class DeckReportMode(ModeHandler):
    """The report: NEXT and BACK scroll a long one; OK (or BACK on a short one) goes back to the menu."""

    def button(self, name: str, long: bool) -> Outcome:
        ui = self.ui
        lines = len(report_lines(ui.deck))
        if name in ("NEXT", "BACK") and lines > 1:
            ui.menu.cursor = (ui.menu.cursor + (1 if name == "NEXT" else -1)) % lines
            return self.table.prompt()
        if name in ("OK", "BACK"):
            return leave_deck_check(self)
        return self.table.ignored()


def leave_deck_check(mode: ModeHandler) -> Outcome:
    """Back to the main menu, on its first item."""
    ui = mode.ui
    ui.mode = Mode.SETUP
    ui.menu = MenuState()
    return mode.table.prompt()
