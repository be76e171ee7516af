"""From the engine's state and the table flow to the screens' view models.

The renderers in ``bornes.firmware.screens`` know nothing of the engine; this is the one place
that reads the engine's public state to decide what a screen says.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from bornes.engine import Action, GameState, Phase, ScoreSheet, battle_status, hand_points
from bornes.firmware.language.i18n import _
from bornes.firmware.language.rule_labels import rules_hint
from bornes.firmware.language.words import ROLL, card_name, edition_title, sheet_row, side_name, taken_back
from bornes.firmware.screens.model import (
    CoupFourrePrompt,
    ExtensionPrompt,
    FeedbackView,
    GameOverView,
    LegendView,
    MenuView,
    NameEditView,
    PartnerPrompt,
    ScoreSheetView,
    ScreenView,
    SetupSummaryView,
    SideView,
    StatusView,
    TableView,
    TargetPrompt,
    UndoPrompt,
)
from bornes.firmware.table.flow import Mode, SetupStep, TableFlow


def side_label(state: GameState, side: int) -> str:
    """A side's name for a small screen: the player, or partners joined with '+'."""
    return side_name(state.setup, side)


def table_view(state: GameState, flow: TableFlow | None = None, page: int = 0) -> TableView:
    setup = state.setup
    hand = state.hand
    running = hand_points(state)
    turn_side = setup.side_of(hand.turn)
    sides = tuple(
        SideView(
            name=side_label(state, index),
            miles=side.miles,
            trip=hand.trip,
            battle=battle_status(side, setup.options),
            limited=side.limited,
            safeties=tuple((card.kind.value, card.kind in side.coups) for card in side.safeties),
            score=state.totals[index],
            hand_points=running[index],
            is_turn=index == turn_side and state.phase is Phase.PLAY,
        )
        for index, side in enumerate(hand.sides)
    )
    message = None
    status = None
    if flow is not None:
        ui = flow.ui
        if ui.message:
            message = FeedbackView(ui.message, ui.refused, ui.short, card=ui.card)
        elif ui.armed.discard:  # an armed button stays visible until it is spent
            message = FeedbackView(_("DISCARD: scan the card"), short=(_("Discard: scan it"), _("Discard")))
        elif ui.armed.cf:
            message = FeedbackView(_("Coup fourré: scan the safety"),
                                   short=(_("Coup fourré! Scan it"), _("Scan the safety")))
        elif ui.choice.seat is not None:
            name = setup.names[ui.choice.seat]
            message = FeedbackView(_("{name} chosen: scan the card").format(name=name),
                                   short=(_("{name}: scan").format(name=name),))
        status = ui.status
    turn_name = setup.names[hand.turn]
    if state.phase is Phase.START_ROLLS:
        turn_name = _("{name}: {card}").format(name=setup.names[state.to_act()[0]],
                                               card=card_name(ROLL, setup.edition))
    elif state.phase is Phase.LEFTOVERS:
        seat = state.to_act()[0]
        turn_name = _("{name}: show {count}").format(name=setup.names[seat], count=hand.hands[seat])
    return TableView(
        sides=sides,
        draw_pile=hand.draw_pile,
        play_out=hand.exhausted and hand.draw_pile == 0,
        hand_number=hand.number,
        edition_title=edition_title(setup.edition),
        turn_name=turn_name,
        message=message,
        status=status,
        page=page,
    )


def sheet_view(state: GameState, sheet: ScoreSheet, page: int) -> ScoreSheetView:
    rows = (*(label for label, _ in sheet.rows), "Total for deal", "Brought forward", "Combined total")
    columns = []
    for index in range(state.setup.side_count):
        values = [values[index] for _, values in sheet.rows]
        values += [sheet.total_for_deal[index], sheet.brought_forward[index], sheet.combined[index]]
        columns.append((side_label(state, index), tuple(values)))
    return ScoreSheetView(columns=tuple(columns), rows=rows, page=page, title=_("Hand {hand}").format(hand=sheet.hand))


def screen(flow: TableFlow, page: int = 0) -> ScreenView:
    """What the OLED shows right now. A refusal shows until the next input, over any screen.

    ``page`` picks which sides a table too big for one panel shows (the side to play is on all).
    """
    view = _screen(flow)
    if page and isinstance(view, TableView):
        view = replace(view, page=page)
    # The table shows refusals itself; the deck report is its own explanation.
    if flow.ui.refused and flow.ui.message and not isinstance(view, TableView) and flow.ui.mode is not Mode.DECK_REPORT:
        return StatusView(_("Refused"), flow.ui.message)
    return view


def _screen(flow: TableFlow) -> ScreenView:
    """The mode's own screen, or (in a game with no question open) the game's."""
    shown = _MODE_SCREENS.get(flow.ui.mode)
    view = shown(flow) if shown is not None else None
    return view if view is not None else _game_screen(flow)


def _setup_screen(flow: TableFlow) -> ScreenView:
    ui = flow.ui
    if ui.menu.step is SetupStep.SUMMARY:
        sides, edition, detail = flow.summary()
        return SetupSummaryView(sides=sides, edition=edition, detail=detail)
    title, items = flow.menu_items()
    if ui.menu.step is SetupStep.OPTIONS:
        return MenuView(title=title, items=tuple(items), selected=ui.menu.cursor, hint=rules_hint())
    return MenuView(title=title, items=tuple(items), selected=ui.menu.cursor)


def _name_screen(flow: TableFlow) -> ScreenView:
    ui = flow.ui
    return NameEditView(title=_("Name of seat {letter}").format(letter=chr(65 + ui.names.index)),
                        text=ui.names.text, cursor=ui.names.cursor)


def _deck_check_screen(flow: TableFlow) -> ScreenView:
    return StatusView(_("Deck check"), _("{count}/106 scanned. OK when done").format(count=len(flow.ui.deck.seen)))


def _teach_screen(flow: TableFlow) -> ScreenView:
    """Teaching the camera: the kind to show and its shots; at the end, what the check found."""
    teach, edition = flow.ui.teach, flow.draft.edition
    if teach.failed:
        return StatusView(_("Not taught"), _("{why}. OK: back").format(why=teach.failed))
    if teach.done:
        if teach.alike:
            pairs = ", ".join(f"{card_name(a, edition)} / {card_name(b, edition)}" for a, b in teach.alike)
            return StatusView(_("Camera taught"), _("These look alike: {pairs}. Teach again in an even light. "
                                                    "OK: back").format(pairs=pairs))
        return StatusView(_("Camera taught"), _("{read} of {taught} kinds read back. OK: back").format(
            read=teach.read, taught=teach.taught))
    if teach.kind is None:
        return StatusView(_("Teach the camera"), _("Starting the camera…"))
    title = _("Show: {card}").format(card=card_name(teach.kind, edition))
    if teach.no_card:
        detail = _("Card {index} of {total}: no card seen. One card, flat, hand away.")
    elif teach.shot == 0:
        detail = _("Card {index} of {total}: lay it flat in the zone, hand away.")
    elif teach.shot < teach.shots:
        detail = _("Card {index} of {total}, shot {shot} of {shots}: nudge it a little.")
    else:
        detail = _("Card {index} of {total}, shot {shot} of {shots}: take it away.")
    return StatusView(title, detail.format(index=teach.index, total=teach.total, shot=teach.shot, shots=teach.shots))


def _deck_report_screen(flow: TableFlow) -> ScreenView:
    return MenuView(title=_("Deck check"), items=tuple(flow.report_lines()), selected=flow.ui.menu.cursor,
                    hint=_("OK: back"))


def _target_screen(flow: TableFlow) -> ScreenView | None:
    state, pending = flow.state, flow.ui.choice.pending
    assert state is not None
    if pending is None:
        return None
    return TargetPrompt(
        card_title=card_name(pending.card, state.setup.edition),
        options=tuple(side_label(state, side) for side in pending.choices),
        selected=pending.selected,
        hazard=pending.card.kind.value,
    )


def _partner_screen(flow: TableFlow) -> ScreenView | None:
    state, pending = flow.state, flow.ui.choice.pending
    assert state is not None
    if pending is None:
        return None
    names = tuple(state.setup.names[s] for s in pending.choices)
    if len(names) == 2:  # one press answers: OK the first partner, NEXT the second
        said = {"first": names[0], "second": names[1]}
        return PartnerPrompt(names=names, selected=pending.selected,
                             hint=(_("OK {first}   NEXT {second}").format(**said),
                                   _("OK {first} NEXT {second}").format(**said), _("OK top   NEXT bottom")))
    return PartnerPrompt(names=names, selected=pending.selected)


def _undo_screen(flow: TableFlow) -> ScreenView | None:
    state = flow.state
    assert state is not None
    if flow.game is None or not flow.game.log:
        return None
    return UndoPrompt(last_action_text=describe_action(state, flow.game.log[-1]))


def _end_hand_screen(flow: TableFlow) -> ScreenView:
    return StatusView(_("End the hand?"), _("Nobody can go on. OK ends, BACK plays on"))


def _swap_screen(flow: TableFlow) -> ScreenView:
    count = len(flow.ui.swap.cards)
    return StatusView(_("Swap cards"), _("{count} scanned. OK swaps, BACK cancels").format(count=count))


#: Each mode's own screen; None from one (a question with nothing to ask) shows the game's.
_MODE_SCREENS: dict[Mode, Callable[[TableFlow], ScreenView | None]] = {
    Mode.SETUP: _setup_screen,
    Mode.NAME_EDIT: _name_screen,
    Mode.LEGEND: lambda flow: LegendView(page=flow.ui.legend.page, keys=flow.key_legend),
    Mode.DECK_CHECK: _deck_check_screen,
    Mode.DECK_REPORT: _deck_report_screen,
    Mode.TARGET: _target_screen,
    Mode.PARTNER: _partner_screen,
    Mode.UNDO_CONFIRM: _undo_screen,
    Mode.END_CONFIRM: _end_hand_screen,
    Mode.SWAP: _swap_screen,
    Mode.CAMERA_TEACH: _teach_screen,
}


def _game_screen(flow: TableFlow) -> ScreenView:
    """The game's phase: the final scores, a hand's sheet, the extension question, CF's prompt, or the table."""
    state, ui = flow.state, flow.ui
    assert state is not None
    setup = state.setup
    phase = state.phase
    if phase is Phase.GAME_OVER:
        winner = "Tie" if state.winner is None else side_label(state, state.winner)  # "Tie": the renderer's cue
        totals = tuple((side_label(state, i), t) for i, t in enumerate(state.totals))
        return GameOverView(winner=winner, totals=totals, partners=setup.teams and state.winner is not None)
    if phase is Phase.HAND_OVER and state.sheets:
        return sheet_view(state, state.sheets[-1], ui.hand_end.sheet_page)
    if phase is Phase.EXTENSION and state.hand.decider is not None:
        return ExtensionPrompt(
            player_name=setup.names[state.hand.decider],
            selected_yes=ui.hand_end.extension_yes,
            trip_from=state.hand.trip,
        )
    window = state.hand.window
    if ui.armed.cf and window is not None:
        return CoupFourrePrompt(side_name=side_label(state, window.side), hazard=window.hazard.kind.value)
    return table_view(state, flow)


def describe_action(state: GameState, action: Action) -> str:
    """An action in words ("100 miles by Ann"), for the undo prompt."""
    return taken_back(state.setup, action)[0]


def format_sheet(state: GameState, sheet: ScoreSheet) -> str:
    """A score sheet as a text table, for terminals and logs."""
    names = [side_label(state, i) for i in range(state.setup.side_count)]
    view = sheet_view(state, sheet, 0)
    labels = [sheet_row(row) for row in view.rows]
    width = max(len(row) for row in labels) + 2
    columns = [max(len(name), 6) for name in names]
    lines = [view.title.ljust(width) + "  ".join(n.rjust(w) for n, w in zip(names, columns, strict=True))]
    for index, row in enumerate(labels):
        values = [column[1][index] for column in view.columns]
        lines.append(row.ljust(width) + "  ".join(str(v).rjust(w) for v, w in zip(values, columns, strict=True)))
    return "\n".join(lines)
