"""Setup: the configured table's one-line summary, and the menus that choose a new game."""

from __future__ import annotations

from collections.abc import Callable

from bornes.engine import EDITIONS, GameSetup, SetupError
from bornes.firmware.language.i18n import _
from bornes.firmware.language.names import MAX_NAME_LENGTH
from bornes.firmware.language.rule_labels import edition_short, option_choices, option_lines
from bornes.firmware.language.words import edition_title
from bornes.firmware.table.core import (
    MAIN_ITEMS,
    TEACH_ITEM,
    DeckCheckState,
    MenuState,
    Mode,
    ModeHandler,
    NameEditState,
    Outcome,
    SetupDraft,
    SetupStep,
    Sound,
    players_menu,
    sides_text,
)
from bornes.firmware.table.modes.camera import start_teaching

#: Where BACK on the first item (or a long BACK) goes: one menu up.
PREVIOUS_STEP = {
    SetupStep.MAIN: SetupStep.SUMMARY,
    SetupStep.EDITION: SetupStep.MAIN,
    SetupStep.PLAYERS: SetupStep.EDITION,
    SetupStep.NAMES: SetupStep.PLAYERS,
    SetupStep.DEALER: SetupStep.NAMES,
    SetupStep.OPTIONS: SetupStep.DEALER,
}


def summary(draft: SetupDraft) -> tuple[str, str, str]:
    """The one-press setup screen: the sides, the edition and who deals."""
    dealer = _("{name} deals").format(name=draft.names[draft.dealer])
    changed = draft.options != EDITIONS[draft.edition].options
    house = _("house rules")
    detail = f"{dealer} · {house}" if changed else dealer
    return sides_text(draft.names, draft.teams), edition_short(draft.edition), detail


def menu_items(draft: SetupDraft, step: SetupStep, *, camera: bool = False) -> tuple[str, list[str]]:
    """The title and items of one setup menu (``camera``: the table has one to teach)."""
    if step is SetupStep.SUMMARY:
        sides, edition, _detail = summary(draft)
        return edition, [sides]
    if step is SetupStep.MAIN:
        return _("Mille Bornes"), [_(item) for item in (*MAIN_ITEMS, *((TEACH_ITEM,) if camera else ()))]
    if step is SetupStep.EDITION:
        return _("Edition"), [edition_title(name) for name in EDITIONS]
    if step is SetupStep.PLAYERS:
        return _("Players"), [(_("{count} in teams") if teams else _("{count} players")).format(count=n)
                              for n, teams in players_menu(draft.edition)]
    if step is SetupStep.NAMES:
        return _("Names"), [_("Continue"), *draft.names]
    if step is SetupStep.DEALER:
        return _("Who deals?"), list(draft.names)
    return _("Rules"), [_("Start the game"), *option_lines(draft.options, draft.edition)]


class SetupMode(ModeHandler):
    """The summary (OK starts, NEXT changes it) and the menus: NEXT and BACK move, OK chooses."""

    def button(self, name: str, long: bool) -> Outcome:
        ui = self.ui
        if ui.menu.step is SetupStep.SUMMARY:
            return self._summary_button(name)
        _title, items = menu_items(self.table.draft, ui.menu.step, camera=self.table.camera is not None)
        if name == "NEXT":
            ui.menu.cursor = (ui.menu.cursor + 1) % len(items)
            return self.table.prompt()
        if name == "BACK":
            self._back(long, len(items))
            return self.table.prompt()
        if name != "OK":
            return self.table.ignored()
        chosen: dict[SetupStep, Callable[[], Outcome | None]] = {
            SetupStep.MAIN: self._main_ok,
            SetupStep.EDITION: self._edition_ok,
            SetupStep.PLAYERS: self._players_ok,
            SetupStep.NAMES: self._names_ok,
            SetupStep.DEALER: self._dealer_ok,
            SetupStep.OPTIONS: self._options_ok,
        }
        outcome = chosen[ui.menu.step]()
        return outcome if outcome is not None else self.table.prompt()

    def _back(self, long: bool, count: int) -> None:
        """One menu up from the first item (or with a long BACK), else the item above."""
        ui = self.ui
        first = long or ui.menu.cursor == 0
        if ui.menu.step in PREVIOUS_STEP and first and (ui.menu.step is not SetupStep.MAIN or self.table.configured):
            ui.menu.step = PREVIOUS_STEP[ui.menu.step]
            ui.menu.cursor = 0
        else:
            ui.menu.cursor = (ui.menu.cursor - 1) % count

    def _summary_button(self, name: str) -> Outcome:
        """The configured table: OK starts it at once, NEXT opens the menus to change it."""
        if name == "OK":
            return self._start()
        if name == "NEXT":
            self.ui.menu = MenuState(SetupStep.MAIN, 0)
            return self.table.prompt()
        return self.table.ignored()

    def _start(self) -> Outcome:
        """The draft becomes a game, if the engine accepts the setup."""
        draft = self.table.draft
        try:
            setup = GameSetup.create(
                draft.edition, draft.names, teams=draft.teams, dealer=draft.dealer, options=draft.options
            )
        except SetupError as error:
            return self.table.refuse(str(error), "bad-setup")
        return self.table.start_game(setup)

    def _main_ok(self) -> Outcome | None:
        ui = self.ui
        if ui.menu.cursor == len(MAIN_ITEMS):
            return start_teaching(self.table)
        if ui.menu.cursor == 2:
            return self.table.open_legend()
        if ui.menu.cursor == 1:
            ui.mode = Mode.DECK_CHECK
            ui.deck = DeckCheckState()
            return self.table.prompt(_("Deck check: scan every card, then OK"), Sound.ATTENTION)
        ui.menu = MenuState(SetupStep.EDITION, list(EDITIONS).index(self.table.draft.edition))
        return None

    def _edition_ok(self) -> None:
        draft, ui = self.table.draft, self.ui
        edition = list(EDITIONS)[ui.menu.cursor]
        if edition != draft.edition:
            draft.edition = edition
            draft.options = EDITIONS[edition].options
        counts = players_menu(edition)
        wanted = (draft.players, draft.teams)
        ui.menu = MenuState(SetupStep.PLAYERS, counts.index(wanted) if wanted in counts else 0)

    def _players_ok(self) -> None:
        draft, ui = self.table.draft, self.ui
        draft.players, draft.teams = players_menu(draft.edition)[ui.menu.cursor]
        defaults = list(self.table.defaults[2])
        draft.names = (draft.names + defaults[len(draft.names):])[: draft.players]
        draft.names += [f"P{i + 1}" for i in range(len(draft.names), draft.players)]
        ui.menu = MenuState(SetupStep.NAMES, 0)

    def _names_ok(self) -> None:
        draft, ui = self.table.draft, self.ui
        if ui.menu.cursor == 0:
            ui.menu = MenuState(SetupStep.DEALER, min(draft.dealer, draft.players - 1))
            return
        ui.mode = Mode.NAME_EDIT
        seat = ui.menu.cursor - 1
        ui.names = NameEditState(seat, draft.names[seat][:MAX_NAME_LENGTH])  # as configured: "Chloé" stays Chloé

    def _dealer_ok(self) -> None:
        self.table.draft.dealer = self.ui.menu.cursor
        self.ui.menu = MenuState(SetupStep.OPTIONS, 0)

    def _options_ok(self) -> Outcome | None:
        """The first item starts the game; any other turns its rule option to the next choice."""
        draft, ui = self.table.draft, self.ui
        if ui.menu.cursor == 0:
            return self._start()
        option = list(draft.options.as_strings())[ui.menu.cursor - 1]
        choices = option_choices(draft.options, option, EDITIONS[draft.edition].options)
        current = draft.options.as_string(option)
        following = choices[(choices.index(current) + 1) % len(choices)]
        draft.options = draft.options.with_strings({option: following})
        return None
