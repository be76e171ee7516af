"""The phone pages as HTML, made on the Pi from plain data (snapshots, stored games, tallies).

Each page is a Jinja2 template in ``templates/`` (autoescaped: see :mod:`.templating`); the functions
here turn the data into what a template shows. Every text a reader sees goes through the
``bornes-web`` gettext domain (``t(...)`` in the templates, the same catalogue).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from markupsafe import Markup

from bornes.engine import EDITIONS, GameState
from bornes.firmware.language.words import edition_title
from bornes.firmware.storage.journal import GameInfo
from bornes.firmware.storage.live import LiveSnapshot
from bornes.firmware.web import charts
from bornes.firmware.web.games import StoredGame, Tally
from bornes.firmware.web.templating import Words, environment

__all__ = ["SHEET_TOTALS", "Words", "downloads", "error_page", "history_page", "live_page", "pairing_page",
           "setup_page", "sheet_page", "side_names", "stats_page", "table_fragment", "viewer_page"]

SHEET_TOTALS = ("Total for deal", "Brought forward", "Combined total")
TEMPLATES = environment("bornes.firmware.web")


def render(name: str, t: Words, **context: Any) -> str:
    return TEMPLATES.get_template(name).render(t=t, **context)


def seat(index: int) -> str:
    return chr(65 + index)


# -- the live table ----------------------------------------------------------------------------------


def table_fragment(snap: LiveSnapshot, t: Words) -> str:
    """The live table's inside: replaced whole on every update (server-sent events)."""
    return render("table.html", t, snap=snap, unit=snap.get("unit", "miles"),
                  percent=lambda miles, trip: min(100, round(100 * miles / trip)))


def live_page(snap: LiveSnapshot, t: Words, paired: bool, keys: tuple[tuple[str, str], ...] = ()) -> str:
    from bornes.firmware.screens.legend import keys_html, legend_html

    return render("live.html", t, title=t("Table"), active="table", script="live.js", paired=paired,
                  table=Markup(table_fragment(snap, t)),
                  keys=Markup(keys_html(keys, t.language)),  # which key of the keypad is which button
                  legend=Markup(legend_html(t.language)))  # the panel's icons, as the panel draws them


def tv_page(screen: dict[str, Any] | None, t: Words, keys: tuple[tuple[str, str], ...], sound: bool) -> str:
    """The panel full screen (docs/tv.md): its current frame, and the keypad's keys along the foot."""
    from bornes.firmware.language.buttons import legend_words

    return render("tv.html", t, screen=screen, keys=legend_words(keys, t.language), sound=sound)  # "Entrée", "DÉFAUSSE"


# -- score sheet -------------------------------------------------------------------------------------


def side_names(state: GameState) -> list[str]:
    return [state.setup.side_name(i) for i in range(state.setup.side_count)]


def sheet_page(stored: StoredGame | None, t: Words, paired: bool) -> str:
    if stored is None:
        return render("sheet.html", t, title=t("Score sheet"), active="sheet", paired=paired, stored=None)
    state = stored.state
    names = side_names(state)
    hands = [str(sheet.hand) for sheet in state.sheets]
    per_hand = [(name, [sheet.total_for_deal[i] for sheet in state.sheets]) for i, name in enumerate(names)]
    running = [(name, [sheet.combined[i] for sheet in state.sheets]) for i, name in enumerate(names)]
    return render(
        "sheet.html", t, title=t("Score sheet of game {game}", game=stored.info.game_id), active="sheet",
        paired=paired, stored=stored, game_id=stored.info.game_id, sheets=state.sheets, sides=names,
        edition=edition_title(state.setup.edition, t.language), names=state.setup.names,
        per_hand_chart=Markup(charts.bars(t("Points per hand"), hands, per_hand)) if state.sheets else "",
        running_chart=Markup(charts.lines(t("Running total"), hands, running)) if state.sheets else "",
        totals=lambda sheet: zip(SHEET_TOTALS, (sheet.total_for_deal, sheet.brought_forward, sheet.combined),
                                 strict=True))


def downloads(game_id: int, t: Words) -> str:
    """The download links under a game (the template's ``downloads`` macro, for code that wants only them)."""
    return str(TEMPLATES.get_template("macros.html").module.downloads(game_id, t))  # type: ignore[attr-defined]


# -- history and statistics --------------------------------------------------------------------------


def history_page(rows: Sequence[tuple[GameInfo, list[str], dict[str, Any]]], players: Sequence[str],
                 chosen: str, t: Words, paired: bool) -> str:
    return render("history.html", t, title=t("History"), active="history", paired=paired, rows=rows,
                  players=players, chosen=chosen)


def stats_page(players: list[Tally], teams: list[Tally], chosen: Tally | None, t: Words, paired: bool) -> str:
    context: dict[str, Any] = {}
    if players:
        averages = [(t("average points"), [round(p.average) for p in players])]
        context["averages_chart"] = Markup(charts.bars(t("Average points per game"), [p.name for p in players],
                                                       averages))
    if players and chosen is not None:
        labels = [f"#{game}" for game, _date, _points, _won in chosen.results]
        values = [points for _game, _date, points, _won in chosen.results]
        won = [won for _game, _date, _points, won in chosen.results]
        title = t("{player}: points per game over time (filled dot: won)", player=chosen.name)
        context["player_chart"] = Markup(charts.lines(title, labels, [(chosen.name, values)], [won]))
    return render("stats.html", t, title=t("Statistics"), active="stats", paired=paired, players=players,
                  teams=teams, chosen=chosen, **context)


# -- the game viewer ---------------------------------------------------------------------------------


def viewer_page(stored: StoredGame, step: int, snap: LiveSnapshot, t: Words, paired: bool) -> str:
    game_id = stored.info.game_id
    return render("viewer.html", t, title=t("Game {game}, action by action", game=game_id), active="history",
                  script="viewer.js", paired=paired, game_id=game_id, step=step, last=len(stored.actions),
                  snap=snap, table=Markup(table_fragment(snap, t)))


# -- pairing and setup -------------------------------------------------------------------------------


def pairing_page(t: Words, message: str = "", kind: str = "info") -> str:
    return render("pairing.html", t, title=t("Pair this phone"), active="setup", message=message, kind=kind)


def setup_page(t: Words, draft: dict[str, Any], message: str = "", kind: str = "info") -> str:
    from bornes.firmware.language.rule_labels import option_choices, option_label, value_label

    edition_name = draft["edition"]
    edition = EDITIONS[edition_name]
    counts = []
    for seats in edition.seat_counts:
        if seats in edition.solo_seats:
            counts.append((f"{seats}", t("{count} players", count=seats)))
        if seats in edition.team_seats:
            counts.append((f"{seats}t", t("{count} players in teams", count=seats)))
    chosen = edition.options.with_strings(draft.get("options", {}))
    presets = edition.options.as_strings()
    options = []
    for name, value in chosen.as_strings().items():
        choices = option_choices(chosen, name, edition.options)
        options.append({"name": name, "value": value, "label": option_label(name), "choices": [
            (c, value_label(name, c), c == presets[name]) for c in choices] if len(choices) > 1 else []})
    return render(
        "setup.html", t, title=t("New game"), active="setup", paired=True, message=message, kind=kind,
        edition=edition_name, editions=[(name, edition_title(name, t.language)) for name in EDITIONS],
        counts=counts, chosen_count=draft.get("players_choice", ""), names=draft["names"][:8],
        dealer=draft["dealer"], options=options, seat=seat)


def error_page(t: Words, status: int, message: str) -> str:
    return render("error.html", t, title=str(status), status=status, message=message)
