"""The pages as HTML, made on the Pi from plain data (snapshots, stored games, tallies).

No template engine: a handful of small functions, and every value that came from a person (names)
or the journal goes through :func:`html.escape`. Every text a reader sees goes through the
``bornes-web`` gettext domain.
"""

from __future__ import annotations

import gettext
from collections.abc import Iterable, Sequence
from html import escape
from typing import Any
from urllib.parse import quote

from bornes.engine.options import EDITIONS
from bornes.engine.state import GameState
from bornes.firmware.language.words import edition_title, fill
from bornes.firmware.storage.journal import GameInfo
from bornes.firmware.storage.live import LiveSnapshot
from bornes.firmware.web import charts
from bornes.firmware.web.games import StoredGame, Tally

SHEET_TOTALS = ("Total for deal", "Brought forward", "Combined total")


def h(value: object) -> str:
    return escape(str(value), quote=True)


class Words:
    """The page's language: gettext of the ``bornes-web`` catalogue, with a short name."""

    def __init__(self, language: str, catalogue: gettext.NullTranslations) -> None:
        self.language = language
        self.catalogue = catalogue

    def __call__(self, message: str, **values: object) -> str:
        text = self.catalogue.gettext(message)
        return fill(text, self.language, **values) if values else text

    def p(self, context: str, message: str) -> str:
        return self.catalogue.pgettext(context, message)

    def n(self, singular: str, plural: str, count: int, **values: object) -> str:
        return self.catalogue.ngettext(singular, plural, count).format(count=count, **values)


# -- the frame of every page --------------------------------------------------------------------------


def page(t: Words, title: str, body: str, *, active: str = "", script: str = "", paired: bool = False) -> str:
    nav = [
        ("table", "/", t("Table")),
        ("sheet", "/sheet", t("Score sheet")),
        ("history", "/history", t("History")),
        ("stats", "/stats", t("Statistics")),
        ("setup", "/setup", t("New game")),
    ]
    links = "".join(
        f'<a href="{href}"{" aria-current=page" if key == active else ""}>{h(label)}</a>' for key, href, label in nav
    )
    badge = f'<span class="paired" title="{h(t("This phone may set up games"))}">●</span>' if paired else ""
    scripts = '<script src="/static/forms.js" defer></script>'
    scripts += f'<script src="/static/{script}" defer></script>' if script else ""
    return (
        f'<!doctype html><html lang="{h(t.language)}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="color-scheme" content="light dark">'
        f"<title>{h(title)} · bornes</title>"
        '<link rel="stylesheet" href="/static/style.css"><link rel="icon" href="/static/icon.svg">'
        f"{scripts}</head><body><header><nav>{links}{badge}</nav></header>"
        f"<main>{body}</main></body></html>"
    )


def notice(text: str, kind: str = "info") -> str:
    return f'<p class="notice {h(kind)}" role="status">{h(text)}</p>'


# -- the live table ----------------------------------------------------------------------------------


def table_fragment(snap: LiveSnapshot, t: Words) -> str:
    """The live table's inside: replaced whole on every update (server-sent events)."""
    if not snap.get("sides"):
        return f'<section id="table" data-actions="0">{notice(snap.get("turn_text") or t("No game yet"))}</section>'
    unit = snap.get("unit", "miles")
    status_text = {"finished": t("finished"), "abandoned": t("abandoned")}.get(snap.get("status", ""), "")
    where = t("Game {game} · hand {hand} · {edition}", game=snap["game_id"], hand=snap["hand"],
              edition=snap["edition_title"])
    head = (
        f'<div class="head"><h1>{h(snap["turn_text"])}</h1>'
        f'<p>{h(where)}'
        f'{(" · " + h(status_text)) if status_text else ""}'
        f' · {h(t("draw pile {count}", count=snap.get("draw_pile", 0)))}</p></div>'
    )
    cards = []
    for side in snap["sides"]:
        trip = max(1, side["trip"])
        percent = min(100, round(100 * side["miles"] / trip))
        battle_class = "ok" if side["battle"] == "rolling" else "stop"
        safeties = "".join(
            f'<li class="safety{" cf" if s["coup_fourre"] else ""}">{h(s["name"])}'
            f'{" ★" if s["coup_fourre"] else ""}</li>'
            for s in side["safeties"]
        ) or f'<li class="none">{h(t("no safety"))}</li>'
        limit = f'<span class="badge limit">{h(t("limit 50"))}</span>' if side["limit"] else ""
        turn = f'<span class="badge turn">{h(t("to play"))}</span>' if side["turn"] else ""
        cards.append(
            f'<article class="side{" is-turn" if side["turn"] else ""}" data-side="{side["index"]}">'
            f'<h2>{h(side["name"])} {turn}</h2>'
            f'<p class="miles"><b>{side["miles"]}</b> / {side["trip"]} {h(unit)}</p>'
            f'<div class="bar" role="progressbar" aria-valuenow="{side["miles"]}" aria-valuemax="{trip}">'
            f'<span style="width:{percent}%"></span></div>'
            f'<p><span class="badge {battle_class}">{h(side["battle_words"])}</span> {limit}</p>'
            f'<ul class="safeties">{safeties}</ul>'
            f'<dl class="points"><div><dt>{h(t("this hand"))}</dt><dd>{side["hand_points"]}</dd></div>'
            f'<div><dt>{h(t("game total"))}</dt><dd>{side["total"]}</dd></div></dl>'
            "</article>"
        )
    actions = "".join(
        f'<li value="{a["n"]}">{h(a["text"])}</li>' for a in reversed(snap.get("last_actions", []))
    )
    last = (
        f'<section class="last"><h2>{h(t("Last actions"))}</h2><ol reversed>{actions}</ol></section>'
        if actions else ""
    )
    return (
        f'<section id="table" data-actions="{snap["action_count"]}" data-game="{snap["game_id"]}">'
        f'{head}<div class="sides">{"".join(cards)}</div>{last}</section>'
    )


def live_page(snap: LiveSnapshot, t: Words, paired: bool) -> str:
    from bornes.firmware.screens.legend import legend_html

    body = table_fragment(snap, t) + (
        f'<p class="live" id="live" data-text-on="{h(t("live"))}" data-text-off="{h(t("reconnecting…"))}">'
        f"{h(t('live'))}</p>"
    ) + legend_html(t.language)  # the panel's icons, as the panel draws them, in the table's words
    return page(t, t("Table"), body, active="table", script="live.js", paired=paired)


# -- score sheet -------------------------------------------------------------------------------------


def side_names(state: GameState) -> list[str]:
    return [state.setup.side_name(i) for i in range(state.setup.side_count)]


def sheet_tables(state: GameState, t: Words) -> str:
    names = side_names(state)
    if not state.sheets:
        return notice(t("No hand has been scored yet."))
    heads = "".join(f'<th scope="col">{h(n)}</th>' for n in names)
    parts = []
    for sheet in state.sheets:
        rows = []
        for label, values in sheet.rows:
            cells = "".join(f"<td>{v}</td>" for v in values)
            rows.append(f'<tr><th scope="row">{h(t.p("sheet", label))}</th>{cells}</tr>')
        for label, values in zip(SHEET_TOTALS, (sheet.total_for_deal, sheet.brought_forward, sheet.combined),
                                 strict=True):
            cells = "".join(f"<td>{v}</td>" for v in values)
            rows.append(f'<tr class="total"><th scope="row">{h(t.p("sheet", label))}</th>{cells}</tr>')
        parts.append(
            f'<table class="sheet"><caption>{h(t("Hand {hand}", hand=sheet.hand))}</caption>'
            f'<thead><tr><th></th>{heads}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
        )
    return "".join(parts)


def sheet_charts(state: GameState, t: Words) -> str:
    if not state.sheets:
        return ""
    names = side_names(state)
    hands = [str(sheet.hand) for sheet in state.sheets]
    per_hand = [(name, [sheet.total_for_deal[i] for sheet in state.sheets]) for i, name in enumerate(names)]
    running = [(name, [sheet.combined[i] for sheet in state.sheets]) for i, name in enumerate(names)]
    return (
        '<div class="charts">'
        f'<figure>{charts.bars(t("Points per hand"), hands, per_hand)}<figcaption>{h(t("Points per hand"))}'
        "</figcaption></figure>"
        f'<figure>{charts.lines(t("Running total"), hands, running)}<figcaption>{h(t("Running total"))}'
        "</figcaption></figure></div>"
    )


def downloads(game_id: int, t: Words) -> str:
    return (
        f'<p class="downloads">{h(t("Download:"))} '
        f'<a href="/games/{game_id}/record" download>{h(t("game record"))}</a> · '
        f'<a href="/games/{game_id}/json" download>JSON</a> · '
        f'<a href="/games/{game_id}/sheet.pdf" download>{h(t("score sheet (PDF)"))}</a></p>'
    )


def sheet_page(stored: StoredGame | None, t: Words, paired: bool) -> str:
    if stored is None:
        return page(t, t("Score sheet"), notice(t("No game yet: start one at the table")), active="sheet",
                    paired=paired)
    state = stored.state
    game_id = stored.info.game_id
    title = t("Score sheet of game {game}", game=game_id)
    body = (
        f"<h1>{h(title)}</h1><p>{h(edition_title(state.setup.edition, t.language))} · "
        f"{h(', '.join(state.setup.names))}</p>"
        f"{sheet_charts(state, t)}{sheet_tables(state, t)}{downloads(game_id, t)}"
        f'<p><a href="/games/{game_id}/view">{h(t("Step through this game"))}</a></p>'
    )
    return page(t, title, body, active="sheet", paired=paired)


# -- history -----------------------------------------------------------------------------------------


def history_page(rows: Sequence[tuple[GameInfo, list[str], dict[str, Any]]], players: Sequence[str],
                 chosen: str, t: Words, paired: bool) -> str:
    options = [f'<option value="">{h(t("everyone"))}</option>'] + [
        f'<option value="{h(name)}"{" selected" if name == chosen else ""}>{h(name)}</option>' for name in players
    ]
    form = (
        f'<form class="filter" method="get" action="/history"><label>{h(t("Player"))} '
        f'<select name="player" data-autosubmit>{"".join(options)}</select></label>'
        f'<noscript><button>{h(t("Show"))}</button></noscript></form>'
    )
    status_words = {"finished": t("finished"), "abandoned": t("abandoned"), "in-progress": t("in progress")}
    items = []
    for info, names, summary in rows:
        winner = summary.get("winner") or ("—" if info.status != "finished" else t("tie"))
        found = summary.get("totals")
        totals: dict[str, Any] = found if isinstance(found, dict) else {}
        total_text = " · ".join(f"{h(k)} {h(v)}" for k, v in totals.items())
        items.append(
            f'<tr><td><a href="/games/{info.game_id}/view">{info.game_id}</a></td>'
            f"<td class=\"wide\">{h(info.created[:16].replace('T', ' '))}</td><td>{h(', '.join(names))}</td>"
            f"<td>{h(status_words.get(info.status, info.status))}</td><td>{h(winner)}</td>"
            f'<td class="wide">{total_text}</td>'
            f'<td><a href="/games/{info.game_id}/sheet">{h(t("sheet"))}</a></td></tr>'
        )
    table = (
        f'<table class="history"><thead><tr><th>#</th><th class="wide">{h(t("Started (UTC)"))}</th>'
        f'<th>{h(t("Players"))}</th><th>{h(t("Status"))}</th><th>{h(t("Winner"))}</th>'
        f'<th class="wide">{h(t("Totals"))}</th><th></th></tr></thead>'
        f'<tbody>{"".join(items)}</tbody></table>'
        if items else notice(t("No games."))
    )
    body = (
        f'<h1>{h(t("History"))}</h1>{form}<div class="scroll">{table}</div>'
        f'<p class="downloads"><a href="/history.csv" download>{h(t("History as CSV"))}</a></p>'
    )
    return page(t, t("History"), body, active="history", paired=paired)


# -- statistics --------------------------------------------------------------------------------------


def _tally_table(caption: str, tallies: Iterable[Tally], t: Words, link: bool) -> str:
    rows = []
    for tally in tallies:
        name = (f'<a href="/stats?player={quote(tally.name)}">{h(tally.name)}</a>' if link else h(tally.name))
        rows.append(
            f'<tr><th scope="row">{name}</th><td>{tally.games}</td><td>{tally.wins}</td>'
            f"<td>{tally.average:.0f}</td><td>{tally.coups_fourres}</td><td>{tally.safe_trips}</td>"
            f"<td>{tally.shut_outs}</td><td>{tally.trips}</td></tr>"
        )
    if not rows:
        return ""
    heads = "".join(
        f'<th scope="col">{h(x)}</th>'
        for x in (t("games"), t("wins"), t("average points"), t("coups fourrés"), t("safe trips"),
                  t("shut-outs"), t("trips completed"))
    )
    return (
        f'<div class="scroll"><table class="stats"><caption>{h(caption)}</caption><thead><tr><th></th>{heads}'
        f'</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'
    )


def stats_page(players: list[Tally], teams: list[Tally], chosen: Tally | None, t: Words, paired: bool) -> str:
    if not players:
        body = f'<h1>{h(t("Statistics"))}</h1>{notice(t("No finished game yet."))}'
        return page(t, t("Statistics"), body, active="stats", paired=paired)
    parts = [f'<h1>{h(t("Statistics"))}</h1>', _tally_table(t("Players"), players, t, True),
             _tally_table(t("Teams"), teams, t, False)]
    averages = [(t("average points"), [round(p.average) for p in players])]
    parts.append(f'<figure>{charts.bars(t("Average points per game"), [p.name for p in players], averages)}'
                 f'<figcaption>{h(t("Average points per game"))}</figcaption></figure>')
    if chosen is not None:
        labels = [f"#{game}" for game, _date, _points, _won in chosen.results]
        values = [points for _game, _date, points, _won in chosen.results]
        won = [won for _game, _date, _points, won in chosen.results]
        title = t("{player}: points per game over time (filled dot: won)", player=chosen.name)
        parts.append(f'<figure id="player">{charts.lines(title, labels, [(chosen.name, values)], [won])}'
                     f"<figcaption>{h(title)}</figcaption></figure>")
    else:
        parts.append(f'<p>{h(t("Choose a player to see their results over time."))}</p>')
    return page(t, t("Statistics"), "".join(parts), active="stats", paired=paired)


# -- the game viewer ---------------------------------------------------------------------------------


def viewer_page(stored: StoredGame, step: int, snap: LiveSnapshot, t: Words, paired: bool) -> str:
    game_id = stored.info.game_id
    last = len(stored.actions)

    def link(to: int, label: str, key: str) -> str:
        if to == step or not 0 <= to <= last:
            return f'<span class="step disabled">{h(label)}</span>'
        return f'<a class="step" data-key="{key}" href="/games/{game_id}/view?step={to}">{h(label)}</a>'

    controls = (
        '<nav class="stepper">'
        f'{link(0, "«", "Home")}{link(step - 1, "◀ " + t("back"), "ArrowLeft")}'
        f'<span class="where">{h(t("action {step} of {last}", step=step, last=last))}</span>'
        f'{link(step + 1, t("next") + " ▶", "ArrowRight")}{link(last, "»", "End")}</nav>'
    )
    current = ""
    if step > 0:
        current = f'<p class="now">{h(snap["last_actions"][-1]["text"] if snap["last_actions"] else "")}</p>'
    title = t("Game {game}, action by action", game=game_id)
    body = (
        f"<h1>{h(title)}</h1>{controls}{current}{table_fragment(snap, t)}{downloads(game_id, t)}"
    )
    return page(t, title, body, active="history", script="viewer.js", paired=paired)


# -- pairing and setup -------------------------------------------------------------------------------


def pairing_page(t: Words, message: str = "", kind: str = "info") -> str:
    body = (
        f'<h1>{h(t("Pair this phone"))}</h1>'
        f'<p>{h(t("Only a paired phone may set up a game. Ask the table for a PIN: it shows on the panel, with a QR code of this page."))}</p>'  # noqa: E501
        f"{notice(message, kind) if message else ''}"
        '<form method="post" action="/pair/start" class="inline">'
        f'<button type="submit">{h(t("Show a PIN on the table"))}</button></form>'
        '<form method="post" action="/pair" class="pin">'
        f'<label>{h(t("PIN shown on the table"))} <input name="pin" inputmode="numeric" autocomplete="one-time-code" '
        'pattern="[0-9]{6}" maxlength="6" required></label>'
        f'<button type="submit">{h(t("Pair"))}</button></form>'
    )
    return page(t, t("Pair this phone"), body, active="setup")


def setup_page(t: Words, draft: dict[str, Any], message: str = "", kind: str = "info") -> str:
    edition_name = draft["edition"]
    edition = EDITIONS[edition_name]
    editions = "".join(
        f'<option value="{h(name)}"{" selected" if name == edition_name else ""}>{h(edition_title(name, t.language))}'
        '</option>' for name in EDITIONS
    )
    counts = []
    for seats in edition.seat_counts:
        if seats in edition.solo_seats:
            counts.append((f"{seats}", t("{count} players", count=seats)))
        if seats in edition.team_seats:
            counts.append((f"{seats}t", t("{count} players in teams", count=seats)))
    chosen_count = draft.get("players_choice", "")
    players = "".join(
        f'<option value="{value}"{" selected" if value == chosen_count else ""}>{h(label)}</option>'
        for value, label in counts
    )
    names = "".join(
        f'<label data-seat="{i}">{h(t("Seat {seat}", seat=chr(65 + i)))} '
        f'<input name="name{i}" value="{h(name)}" maxlength="12" autocomplete="off"></label>'
        for i, name in enumerate(draft["names"][:8])
    )
    dealer = "".join(
        f'<option value="{i}"{" selected" if i == draft["dealer"] else ""}>{h(chr(65 + i))}</option>'
        for i in range(8)
    )
    option_rows = []
    chosen = edition.options.with_strings(draft.get("options", {}))
    current = chosen.as_strings()
    from bornes.firmware.language.rule_labels import option_choices, option_label, value_label

    for name, value in current.items():
        choices = option_choices(chosen, name, edition.options)
        preset = edition.options.as_strings()[name]
        if len(choices) > 1:
            field = "".join(
                f'<option value="{h(c)}"{" selected" if c == value else ""}>{h(value_label(name, c))}'
                f'{" *" if c == preset else ""}</option>'
                for c in choices
            )
            control = f'<select name="option.{h(name)}">{field}</select>'
        else:
            control = f'<input name="option.{h(name)}" value="{h(value)}" size="8">'
        option_rows.append(f'<label class="option" title="{h(name)}">{h(option_label(name))} {control}</label>')
    body = (
        f'<h1>{h(t("New game"))}</h1>{notice(message, kind) if message else ""}'
        f'<form method="get" action="/setup" class="edition"><label>{h(t("Edition"))} '
        f'<select name="edition" data-autosubmit>{editions}</select></label>'
        f'<noscript><button>{h(t("Change"))}</button></noscript></form>'
        '<form method="post" action="/setup" class="setup">'
        f'<input type="hidden" name="edition" value="{h(edition_name)}">'
        f'<label>{h(t("Players"))} <select name="players">{players}</select></label>'
        f'<fieldset><legend>{h(t("Names, in seat order"))}</legend>{names}</fieldset>'
        f'<label>{h(t("Dealer (seat)"))} <select name="dealer">{dealer}</select></label>'
        f'<details><summary>{h(t("Rule options"))}</summary>'
        f'{"".join(option_rows)}</details>'
        f'<button type="submit">{h(t("Send to the table"))}</button>'
        f'<p class="hint">{h(t("The table shows the game; one OK there starts it. Cards are played with cards."))}</p>'
        "</form>"
        '<form method="post" action="/unpair" class="inline">'
        f'<button type="submit">{h(t("Unpair this phone"))}</button></form>'
    )
    return page(t, t("New game"), body, active="setup", paired=True)


def error_page(t: Words, status: int, message: str) -> str:
    return page(t, str(status), f"<h1>{status}</h1>{notice(message, 'error')}")
