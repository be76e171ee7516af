"""The club pages: every table live, standings by player and team, rounds and results, CSV, organiser.

Starlette under uvicorn, like the phone companion. Everything is served by the board itself (no
CDN). Pages for everyone are read-only; the organiser's pages ask for the organiser password
(HTTP Basic over the club's LAN; put TLS in front if the LAN is not trusted).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import csv
import gettext
import hmac
import io
import json
import time
import urllib.parse
from collections.abc import AsyncIterator
from html import escape
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from bornes.engine.options import EDITIONS
from bornes.firmware.club.board import Board
from bornes.firmware.club.store import ClubStore, TournamentError
from bornes.firmware.language.i18n import LANGUAGES, translations
from bornes.firmware.web.guard import SiteGuard, csv_row, local_names

MAX_FORM = 16 * 1024
MAX_LISTENERS = 100  # browsers following the tables page at once (a projector, phones…); half uvicorn's limit
LISTENERS_PER_CLIENT = 4  # one phone's tabs: one phone never takes every live page
MAX_GAME = 10**9  # game numbers are SQLite integers: anything larger is no game
WRONG_TRIES = 5  # wrong organiser passwords from one address…
WRONG_WINDOW = 60.0  # …within this many seconds, and that address waits until the window has passed
CLUB_DOMAIN = "bornes-club"  # the board's own catalogue: firmware/language/locale/<lang>/LC_MESSAGES/bornes-club.po
_language = "en"
_catalogue = translations(_language, CLUB_DOMAIN)


def _(message: str) -> str:
    return _catalogue.gettext(message)


def _labels(catalogue: gettext.NullTranslations) -> dict[str, str]:
    """The words around a table's card on the tables page, in one language."""
    t = catalogue.gettext
    return {"offline": t("offline"), "nonews": t("no news yet"), "hand": t("hand"), "actions": t("actions"),
            "side": t("side"), "battle": t("battle"), "total": t("total"), "limit": t("limit 50"),
            "page": t("the table's page"), "cf": t("CF"),
            "unreadable": t("this table's last message cannot be shown")}


def use_language(language: str) -> None:
    """The pages' language (one board, one language: ``language`` in the club settings)."""
    global _language, _catalogue
    _catalogue = translations(language, CLUB_DOMAIN)
    _language = language

STYLE = """
body{font-family:system-ui,sans-serif;margin:0;background:#f4f4f0;color:#222}
header{background:#1d4d2b;color:#fff;padding:.6em 1em}header a{color:#fff;margin-right:1em}
main{padding:1em}h1{font-size:1.4em;margin:.2em 0}h2{font-size:1.1em;margin:1em 0 .3em}
table{border-collapse:collapse;margin:.5em 0}.card table{width:100%;font-size:.95em}.num{white-space:nowrap}
.card td,.card th{padding:.2em .35em}.card{min-width:0;overflow-x:auto}small{color:#a40}
.safe{font-size:.8em;color:#1d4d2b;font-weight:normal}
header b{margin-right:1.5em}
td,th{border-bottom:1px solid #ccc;padding:.25em .6em;text-align:left}th{background:#e6e6df}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(360px,1fr));gap:.8em}
.card{background:#fff;border-radius:8px;padding:.6em .8em;box-shadow:0 1px 3px #0002}
.card h2{font-size:1.1em;margin:0 0 .3em}.off{opacity:.55}.turn{font-weight:bold}
.words{color:#555;font-size:.85em}.bad{color:#a00}form{margin:.6em 0}input,select{margin:.2em}
"""


def page(title: str, body: str, script: str = "", brand: str = "") -> HTMLResponse:
    links = (("/", _("Tables")), ("/standings", _("Standings")), ("/rounds", _("Rounds")),
             ("/organiser", _("Organiser")))
    nav = (f"<b>{escape(brand)}</b>" if brand else "") + "".join(
        f'<a href="{href}">{escape(label)}</a>' for href, label in links)
    html = (f'<!doctype html><html lang="{_language}"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width,initial-scale=1"><title>{escape(title)}</title>'
            '<link rel="stylesheet" href="/club.css"></head>'
            f"<body><header>{nav}</header><main><h1>{escape(title)}</h1>{body}</main>{script}</body></html>")
    return HTMLResponse(html, headers=SECURITY_HEADERS)


#: Everything the pages use comes from the board itself: no inline script or style runs.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}

TABLES_JS = """
// Each card draws the live message of one table: firmware/storage/live.py's snapshot, as the phone pages show it.
const data = JSON.parse(document.getElementById('tables-data').textContent);
// The words around a table follow that table's language (a French table reads French on any board).
const LL = JSON.parse(document.getElementById('labels').textContent);
const ENT={'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;',"'":'&#39;'};
function esc(s){return String(s??'').replace(/[&<>"']/g,c=>ENT[c]);}
function list(v){return Array.isArray(v)?v:[];}
function card(t){
  const s=t.live||{}, st=t.status||{};
  const L=typeof s.language==='string'&&/^[a-z]{2}$/.test(s.language)&&Object.hasOwn(LL,s.language)
    ?LL[s.language]:LL[LL.board];
  const web=/^https?:[/][/]/.test(st.web||'')?' <a href="'+esc(st.web)+'">'+esc(L.page)+'</a>':'';
  let h='<h2>'+esc(t.table)+(st.online===false?' ('+esc(L.offline)+')':'')+web+'</h2>';
  if(!s.sides||!s.sides.length){return h+'<p>'+esc(s.turn_text||L.nonews)+'</p>';}
  h+='<p>'+esc(s.edition_title||s.edition)+' · '+esc(L.hand)+' '+esc(s.hand)+' · '+esc(s.action_count)+' '
    +esc(L.actions)+'</p>'
    +'<p class="turn">'+esc(s.turn_text||'')+'</p><table><tr><th>'+esc(L.side)+'</th><th>'+esc(s.unit||'miles')
    +'</th><th>'+esc(L.battle)+'</th><th>'+esc(L.hand)+'</th><th>'+esc(L.total)+'</th></tr>';
  list(s.sides).forEach(x=>{x=x||{};const safe=list(x.safeties);
    h+='<tr'+(x.turn?' class="turn"':'')+'><td>'+esc(x.name)
    +(safe.length?'<br><span class="safe">'
      +safe.map(f=>esc((f||{}).name)+((f||{}).coup_fourre?' ('+esc(L.cf)+')':'')).join(', ')+'</span>':'')
    +'</td><td>'+esc(x.miles)
    +(x.limit?'<br><small>'+esc(L.limit)+'</small>':'')+'</td><td>'+esc(x.battle_words||x.battle)
    +'</td><td class="num">'
    +esc(x.hand_points)+'</td><td class="num">'+esc(x.total)+'</td></tr>';});
  h+='</table><div class="words">'+list(s.last_actions).slice(-3).map(a=>esc((a||{}).text)).join('<br>')+'</div>';
  return h;
}
// One table's card, or a line saying it cannot be shown: one bad table never blanks the board.
function safeCard(t){
  try{return card(t);}catch(e){return '<h2>'+esc(t.table)+'</h2><p class="bad">'+esc(LL[LL.board].unreadable)+'</p>';}
}
function draw(){
  const grid=document.getElementById('tables');
  grid.innerHTML=Object.keys(data).sort().map(k=>'<div class="card'+((data[k].status||{}).online===false?' off':'')
    +'" id="t-'+esc(k)+'" data-actions="'+esc((data[k].live||{}).action_count)+'">'+safeCard(data[k])+'</div>')
    .join('');
}
draw();
const es=new EventSource('/events');
es.onopen=()=>{document.body.dataset.live='yes';};  // following the tables (what a test waits for)
es.onmessage=e=>{const m=JSON.parse(e.data);const t=data[m.table]||(data[m.table]={table:m.table});
  if('live' in m)t.live=m.live; if(m.status)t.status=m.status; draw();};
"""


def _json_script(value: Any, name: str = "tables-data") -> str:
    text = json.dumps(value, ensure_ascii=False).replace("<", "\\u003c")
    return f'<script type="application/json" id="{name}">{text}</script>'


def _standings_table(lines: list[dict[str, Any]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in (
        "#", _("name"), _("played"), _("wins"), _("ties"), _("losses"), _("byes"), _("match points"), _("points")))
    rows = "".join(
        f"<tr><td>{i}</td><td>{escape(x['name'])}</td><td>{x['played']}</td><td>{x['wins']}</td><td>{x['ties']}</td>"
        f"<td>{x['losses']}</td><td>{x['byes']}</td><td>{x['match_points']}</td><td>{x['points']}</td></tr>"
        for i, x in enumerate(lines, start=1))
    return f"<table><tr>{head}</tr>{rows}</table>"


def _result_line(result: dict[str, Any]) -> str:
    sides = result["sides"]
    parts = []
    for index, side in enumerate(sides):
        name = escape(" & ".join(side["players"]))
        if not result["tie"] and result["winner"] == index:
            name = f"<b>{name}</b>"
        parts.append(f"{name} {side['total']}")
    return " – ".join(parts)


def _record_link(result: dict[str, Any]) -> str:
    query = urllib.parse.urlencode({"table": result["table"], "game": result["game"], "created": result["created"]})
    return f' <a href="/record?{escape(query)}">{escape(_("record"))}</a>'


def _csv(rows: list[list[Any]]) -> Response:
    out = io.StringIO()
    csv.writer(out).writerows(csv_row(row) for row in rows)  # no cell a spreadsheet would run as a formula
    return Response(out.getvalue(), media_type="text/csv; charset=utf-8")


def create_app(board: Board, store: ClubStore, organiser_password: str, language: str = "en",
               url: str = "") -> Starlette:
    """The pages; ``url`` is where browsers reach the board ("http://club.local:8080/"): its name is allowed."""
    use_language(language)
    streams: dict[str, int] = {}  # client address -> its open live pages
    wrong: dict[str, list[float]] = {}  # client address -> times of its recent wrong passwords

    def show(title: str, body: str, script: str = "") -> HTMLResponse:
        return page(title, body, script, brand=board.settings.title)

    def allowed(request: Request) -> bool:
        if not organiser_password or throttled(request):
            return False
        header = request.headers.get("authorization", "")
        if not header.lower().startswith("basic "):
            return False
        try:
            _user, _, given = base64.b64decode(header[6:]).decode().partition(":")
        except (binascii.Error, UnicodeDecodeError):
            given = ""
        if hmac.compare_digest(given.encode(), organiser_password.encode()):
            return True
        wrong.setdefault(client(request), []).append(time.monotonic())
        return False

    def client(request: Request) -> str:
        return request.client.host if request.client else "?"

    def throttled(request: Request) -> bool:
        now = time.monotonic()
        recent = [t for t in wrong.get(client(request), []) if now - t < WRONG_WINDOW]
        wrong[client(request)] = recent
        return len(recent) >= WRONG_TRIES

    def refuse(request: Request) -> Response:
        if throttled(request):
            return Response(_("Too many wrong passwords: wait a minute.\n"), status_code=429,
                            media_type="text/plain", headers={"Retry-After": str(int(WRONG_WINDOW))})
        if not organiser_password:
            return Response(_("The organiser pages are off: set organiser_password in the club settings.\n"),
                            status_code=403, media_type="text/plain")
        return Response(_("The organiser password is needed.\n"), status_code=401,
                        headers={"WWW-Authenticate": 'Basic realm="bornes club organiser"'}, media_type="text/plain")

    async def tables_page(request: Request) -> Response:
        data = {t["table"]: t for t in store.tables()}
        labels: dict[str, Any] = {language: _labels(translations(language, CLUB_DOMAIN)) for language in LANGUAGES}
        labels["board"] = _language
        body = '<div class="grid" id="tables"></div>' + _json_script(data) + _json_script(labels, "labels")
        return show(_("Every table, live"), body, '<script src="/club.js"></script>')

    async def style(request: Request) -> Response:
        return Response(STYLE, media_type="text/css; charset=utf-8", headers={"Cache-Control": "max-age=3600"})

    async def script(request: Request) -> Response:
        return Response(TABLES_JS, media_type="text/javascript; charset=utf-8",
                        headers={"Cache-Control": "max-age=3600"})

    async def api_tables(request: Request) -> Response:
        return JSONResponse(store.tables())

    async def events(request: Request) -> Response:
        address = client(request)
        if len(board.listeners) >= MAX_LISTENERS or streams.get(address, 0) >= LISTENERS_PER_CLIENT:
            return Response(_("Too many pages open: try again later.\n"), status_code=503, media_type="text/plain",
                            headers={"Retry-After": "10"})
        async def stream() -> AsyncIterator[str]:
            # Counted from the stream's first step: a browser gone before it starts leaves no count behind.
            listener: asyncio.Queue[str] = asyncio.Queue()
            board.listeners.add(listener)
            streams[address] = streams.get(address, 0) + 1
            try:
                yield ": connected\n\n"
                while True:
                    try:
                        text = await asyncio.wait_for(listener.get(), timeout=15)
                    except TimeoutError:
                        yield ": keep-alive\n\n"
                        continue
                    yield f"data: {text}\n\n"
            finally:
                board.listeners.discard(listener)
                left = streams.get(address, 1) - 1
                if left > 0:
                    streams[address] = left
                else:
                    streams.pop(address, None)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    async def standings_page(request: Request) -> Response:
        standings = store.standings()
        body = f"<h2>{_('Players')}</h2>" + _standings_table([x.as_dict() for x in standings["players"]])
        if standings["teams"]:
            body += f"<h2>{_('Teams')}</h2>" + _standings_table([x.as_dict() for x in standings["teams"]])
        body += f'<p><a href="/standings.csv">{_("standings as CSV")}</a></p>'
        return show(_("Standings"), body)

    async def standings_json(request: Request) -> Response:
        standings = store.standings()
        return JSONResponse({kind: [x.as_dict() for x in lines] for kind, lines in standings.items()})

    async def standings_csv(request: Request) -> Response:
        rows: list[list[Any]] = [["kind", "rank", "name", "played", "wins", "ties", "losses", "byes",
                                  "match_points", "points"]]
        for kind, lines in store.standings().items():
            for rank, x in enumerate(lines, start=1):
                d = x.as_dict()
                rows.append([kind, rank, d["name"], d["played"], d["wins"], d["ties"], d["losses"], d["byes"],
                             d["match_points"], d["points"]])
        return _csv(rows)

    async def rounds_page(request: Request) -> Response:
        results = store.results()
        by_assignment = {r["assignment"]: r for r in results if r["assignment"]}
        handed = {t["table"]: (t["status"] or {}).get("assignment") or {} for t in store.tables()}
        body = ""
        for round_ in store.rounds():
            state = _("closed") if round_["closed"] else _("open")
            body += f"<h2>{_('Round')} {round_['number']} ({escape(round_['pairing'])}, {state})</h2><table>"
            body += f"<tr><th>{_('table')}</th><th>{_('players')}</th><th>{_('result')}</th></tr>"
            for a in round_["assignments"]:
                result = by_assignment.get(a["id"])
                who = " vs ".join(escape(e) for e in a["entrants"]) if a["table"] else escape(a["entrants"][0])
                at_table = handed.get(a["table"]) or {}
                if result:
                    outcome = _result_line(result) + _record_link(result)
                elif not a["table"]:
                    outcome = _("bye")
                elif not a["published"]:
                    outcome = _("not published")
                elif at_table.get("id") == a["id"] and at_table.get("waiting"):
                    outcome = escape(_("waiting: the table is busy until its game ends, then offers this one"))
                else:
                    outcome = _("playing")
                body += f"<tr><td>{escape(a['table'] or '—')}</td><td>{who}</td><td>{outcome}</td></tr>"
            body += "</table>"
        others = [r for r in results if not r["assignment"]]
        if others:
            body += f"<h2>{_('Games outside the schedule (not counted)')}</h2><table>"
            body += "".join(f"<tr><td>{escape(r['table'])}</td><td>{_result_line(r)}</td></tr>" for r in others)
            body += "</table>"
        if not body:
            body = f"<p>{escape(_('No round yet.'))}</p>"
        body += f'<p><a href="/results.csv">{_("results as CSV")}</a></p>'
        return show(_("Rounds and results"), body)

    async def record(request: Request) -> Response:
        """A counted game's record, as the table's journal holds it (docs/record.md): replays anywhere."""
        params = request.query_params
        raw = params.get("game", "").strip()
        if not (raw.isascii() and raw.isdigit() and int(raw) < MAX_GAME):
            return Response(_("game must be a number\n"), status_code=400, media_type="text/plain")
        game = int(raw)
        text = store.record(params.get("table", ""), game, params.get("created", ""))
        if text is None:
            return Response(_("no such game\n"), status_code=404, media_type="text/plain")
        name = f"{params.get('table')}-game-{game}.txt"
        return Response(text, media_type="text/plain; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def results_csv(request: Request) -> Response:
        rows: list[list[Any]] = [["round", "table", "game", "finished", "edition", "side", "players", "total",
                                  "won", "tie", "counted"]]
        for r in store.results():
            for index, side in enumerate(r["sides"]):
                rows.append([r["round"] or "", r["table"], r["game"], r["finished"] or "", r["edition"], index + 1,
                             " & ".join(side["players"]), side["total"],
                             int(not r["tie"] and r["winner"] == index), int(r["tie"]), int(bool(r["assignment"]))])
        return _csv(rows)

    async def results_json(request: Request) -> Response:
        return JSONResponse(store.results())

    async def rounds_json(request: Request) -> Response:
        return JSONResponse(store.rounds())

    # -- the organiser ----------------------------------------------------------------------------

    async def organiser_page(request: Request) -> Response:
        if not allowed(request):
            return refuse(request)
        entrants = "".join(f"<li>{escape(n)}{' (' + escape(', '.join(m)) + ')' if len(m) > 1 else ''}</li>"
                           for n, m in store.entrants())
        rejects = "".join(f"<li class='bad'>{escape(r['topic'])}: {escape(r['problem'])}</li>"
                          for r in store.rejects()[:10])
        known = ", ".join(t["table"] for t in store.tables())
        editions = "".join(f'<option{" selected" if name == store.edition() else ""}>{escape(name)}</option>'
                           for name in EDITIONS)
        options = " ".join(f"{k}={v}" for k, v in store.options().items())
        open_rounds = [r["number"] for r in store.rounds() if not r["closed"]]
        state = (_("Round {number} is open.").format(number=open_rounds[-1]) if open_rounds
                 else _("No round is open."))
        body = (
            f"<h2>{_('Rules for every table')}</h2>"
            f'<form method="post" action="/organiser/settings"><select name="edition">{editions}</select>'
            f'<input name="options" value="{escape(options)}" placeholder="game_target=1000" size="30">'
            f'<button>{_("Save")}</button></form>'
            f"<p>{escape(state)}</p>"
            f"<h2>{_('Entrants')}</h2><ul>{entrants}</ul>"
            f'<form method="post" action="/organiser/entrants"><input name="name" placeholder="{_("name")}" required>'
            f'<input name="members" placeholder="{_("partners: A, B (teams)")}">'
            f'<button>{_("Add")}</button></form>'
            f"<h2>{_('Next round')}</h2>"
            f'<form method="post" action="/organiser/rounds"><select name="pairing">'
            f'<option value="swiss">Swiss</option><option value="round-robin">round-robin</option>'
            f'<option value="manual">{_("by hand")}</option></select>'
            f'<input name="tables" placeholder="{_("tables")}: {escape(known)}" size="30">'
            f'<input name="manual" placeholder="{_("by hand: A vs B; C vs D")}" size="30">'
            f'<button>{_("Pair")}</button></form>'
            f'<form method="post" action="/organiser/publish"><button>{_("Publish the open round to the tables")}'
            f"</button></form>"
            f'<form method="post" action="/organiser/close"><button>{_("Close the open round")}</button></form>'
            f"<h2>{_('Messages refused')}</h2><ul>{rejects}</ul>"
        )
        return show(_("Organiser"), body)

    async def rejects_json(request: Request) -> Response:
        if not allowed(request):
            return refuse(request)
        return JSONResponse({"rejects": store.rejects(), "counts": board.counts})

    async def read_body(request: Request) -> dict[str, Any]:
        declared = request.headers.get("content-length")
        if declared is not None and (not declared.isascii() or not declared.isdigit() or int(declared) > MAX_FORM):
            raise TooLarge(_("request too large"))  # refused before a byte of it is read
        raw = b""
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > MAX_FORM:
                raise TooLarge(_("request too large"))
        if request.headers.get("content-type", "").startswith("application/json"):
            try:
                data = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):  # 16 KiB of "[" nests too deep
                raise TournamentError(_("the request is not JSON")) from None
            if not isinstance(data, dict):
                raise TournamentError(_("the request is not a JSON object"))
            return data
        # The organiser's forms are urlencoded: parsed here, so the board needs no multipart library.
        try:
            fields = urllib.parse.parse_qs(raw.decode(), keep_blank_values=True, max_num_fields=50)
        except (UnicodeDecodeError, ValueError):
            raise TournamentError(_("the form cannot be read")) from None
        return {key: values[-1] for key, values in fields.items()}

    def organiser(action: Any) -> Any:
        async def endpoint(request: Request) -> Response:
            if not allowed(request):
                return refuse(request)
            try:
                data = await read_body(request)
                answer = action(data)
            except (TournamentError, ValueError, TypeError, KeyError) as error:
                message = f"missing {error}" if isinstance(error, KeyError) else (str(error) or type(error).__name__)
                status = 413 if isinstance(error, TooLarge) else 400
                if request.headers.get("content-type", "").startswith("application/json"):
                    return JSONResponse({"ok": False, "error": message}, status_code=status,
                                        headers={"Connection": "close"} if status == 413 else None)
                answer = show(_("Organiser"), f'<p class="bad">{escape(message)}</p><a href="/organiser">back</a>')
                answer.status_code = status
                if status == 413:
                    answer.headers["Connection"] = "close"  # the rest of the body is never read
                return answer
            if request.headers.get("content-type", "").startswith("application/json"):
                return JSONResponse({"ok": True, **(answer or {})})
            return RedirectResponse("/organiser", status_code=303)
        return endpoint

    def _names(value: Any) -> list[str]:
        if isinstance(value, list):
            return [str(v) for v in value]
        return [v.strip() for v in str(value or "").split(",") if v.strip()]

    def add_entrant(data: dict[str, Any]) -> dict[str, Any]:
        store.add_entrant(str(data.get("name", "")), _names(data.get("members")) or None)
        return {}

    def settings(data: dict[str, Any]) -> dict[str, Any]:
        options = data.get("options")
        if isinstance(options, str):
            options = dict(part.split("=", 1) for part in options.split() if "=" in part)
        store.configure(edition=data.get("edition") or None, options=options,
                        name=data.get("name") or None)
        return {}

    def new_round(data: dict[str, Any]) -> dict[str, Any]:
        tables = _names(data.get("tables")) or [t["table"] for t in store.tables()]
        manual = data.get("manual")
        if isinstance(manual, str):
            manual = [[n.strip() for n in part.split(" vs ")] for part in manual.split(";") if part.strip()]
        number = store.new_round(str(data.get("pairing", "swiss")), tables, manual)
        return {"round": number}

    def open_round() -> int:
        open_rounds = [r["number"] for r in store.rounds() if not r["closed"]]
        if not open_rounds:
            raise TournamentError(_("there is no open round"))
        return int(open_rounds[-1])

    def publish(data: dict[str, Any]) -> dict[str, Any]:
        number = int(data.get("round") or open_round())
        assignments = store.publish_round(number)
        board.publish_assignments([dict(a) for a in assignments])
        return {"round": number, "assignments": [a["id"] for a in assignments]}

    def close(data: dict[str, Any]) -> dict[str, Any]:
        number = int(data.get("round") or open_round())
        store.close_round(number)
        return {"round": number}

    routes = [
        Route("/", tables_page),
        Route("/events", events),
        Route("/club.css", style),
        Route("/club.js", script),
        Route("/api/tables", api_tables),
        Route("/standings", standings_page),
        Route("/standings.json", standings_json),
        Route("/standings.csv", standings_csv),
        Route("/rounds", rounds_page),
        Route("/rounds.json", rounds_json),
        Route("/results.json", results_json),
        Route("/results.csv", results_csv),
        Route("/record", record),
        Route("/organiser", organiser_page),
        Route("/organiser/rejects.json", rejects_json),
        Route("/organiser/entrants", organiser(add_entrant), methods=["POST"]),
        Route("/organiser/settings", organiser(settings), methods=["POST"]),
        Route("/organiser/rounds", organiser(new_round), methods=["POST"]),
        Route("/organiser/publish", organiser(publish), methods=["POST"]),
        Route("/organiser/close", organiser(close), methods=["POST"]),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        board.loop = asyncio.get_running_loop()  # where the MQTT thread hands live updates over
        yield
        board.loop = None

    app = Starlette(routes=routes, lifespan=lifespan)
    app.add_middleware(SiteGuard, names=local_names(url))
    return app


class TooLarge(TournamentError):
    """A request body past :data:`MAX_FORM`: answered 413 without reading the rest."""
