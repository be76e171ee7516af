"""Pairing a phone (a PIN on the panel, a token in a cookie) and sending a new game to the table.

Only a paired phone may set up a game; the table still asks for one OK at the panel. The referee is
reached only through its control socket, whose protocol has no message to play a card.
"""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from bornes.engine import EDITIONS
from bornes.firmware.appliance import control_client as control
from bornes.firmware.appliance.control_client import ControlClient, ControlUnreachable
from bornes.firmware.web import views
from bornes.firmware.web.phones import TOKEN_DAYS
from bornes.firmware.web.site import COOKIE, Settings, client, digits, guarded, html, pages_url, read_form, site_of


def draft(settings: Settings, edition: str | None = None) -> dict[str, Any]:
    """The setup form's values: the config's game, or ``edition`` with its own seat counts."""
    defaults = settings.defaults
    name = edition if edition in EDITIONS else defaults.get("edition", "winning-moves")
    assert name is not None
    ed = EDITIONS[name]
    players = defaults.get("players", 4)
    if players not in ed.seat_counts:
        players = ed.seat_counts[0]
    teams = ed.default_teams(players)
    return {
        "edition": name,
        "players_choice": f"{players}{'t' if teams else ''}",
        "names": list(defaults.get("names", []))[:8],
        "dealer": defaults.get("dealer", 0),
        "options": dict(defaults.get("options", {})) if name == defaults.get("edition") else {},
    }


async def setup_form(request: Request) -> Response:
    site = site_of(request)
    words = site.words(request)
    if not site.paired(request):
        return html(views.pairing_page(words))
    return html(views.setup_page(words, draft(site.settings, request.query_params.get("edition"))))


async def pair_start(request: Request) -> Response:
    site = site_of(request)
    words = site.words(request)
    await read_form(request)  # a size check; the form is empty
    address = client(request)
    # Each phone has its own limit, never one all phones share: no other address can use it up.
    if not site.ask_limit.allow(address):
        return html(views.pairing_page(words, words("Too many requests: wait a minute."), "error"), 429)
    url = pages_url(site.settings).rstrip("/") + "/setup"  # never from the request: its Host is the client's word
    try:
        answer = await asyncio.to_thread(ControlClient(site.settings.control_socket).ask_pairing, url, address)
    except ControlUnreachable as error:
        return html(views.pairing_page(words, str(error), "error"), 503)
    if not answer.ok:  # the table's reason ("a hand is being played…"), worded in the page's language
        return html(views.pairing_page(words, words(answer.error), "error"), 409)
    return html(views.pairing_page(words, words("Look at the table: type the PIN shown there.")))


async def pair(request: Request) -> Response:
    site = site_of(request)
    words = site.words(request)
    form = await read_form(request)
    address = client(request)
    if not site.pin_limit.allow(address):
        message = words("Too many tries: wait {seconds} s.", seconds=site.pin_limit.retry_after(address))
        return html(views.pairing_page(words, message, "error"), 429)
    pin = form.get("pin", "").strip()
    if len(pin) != control.PIN_DIGITS or digits(pin) is None:
        return html(views.pairing_page(words, words("A PIN is 6 digits."), "error"), 400)
    try:
        answer = await asyncio.to_thread(ControlClient(site.settings.control_socket).offer_pin, pin, address)
    except ControlUnreachable as error:
        return html(views.pairing_page(words, str(error), "error"), 503)
    if not answer.ok:  # the table's reason, worded in the page's language
        return html(views.pairing_page(words, words(answer.error), "error"), 403)
    response = RedirectResponse("/setup", 303)
    response.set_cookie(COOKIE, site.pairings.new(), max_age=TOKEN_DAYS * 86400, httponly=True, samesite="strict",
                        secure=request.url.scheme == "https")
    return response


def setup_message(settings: Settings, form: dict[str, str],
                  words: views.Words) -> tuple[dict[str, Any], dict[str, Any], str]:
    """The control message a setup form asks for, the form's values to show again, and what is wrong ("")."""
    edition = form.get("edition", "")
    if edition not in EDITIONS:
        return {}, draft(settings), words("Choose an edition.")
    choice = form.get("players", "")
    count = digits(choice.rstrip("t"), 1) or 0
    if not 2 <= count <= 8:
        return {}, draft(settings, edition), words("Choose the players.")
    names = [" ".join(form.get(f"name{i}", "").split()) for i in range(count)]
    options = {key[7:]: value for key, value in form.items() if key.startswith("option.")}
    dealer = digits(form.get("dealer", "0"))
    dealer = -1 if dealer is None else dealer
    message = {"type": "setup", "edition": edition, "players": count, "teams": choice.endswith("t"), "names": names,
               "dealer": dealer, "options": options}
    back = {**draft(settings, edition), "players_choice": choice,
            "names": names + draft(settings, edition)["names"][count:], "dealer": max(0, dealer), "options": options}
    return message, back, "" if all(names) else words("Every seat needs a name.")


async def setup_send(request: Request) -> Response:
    site = site_of(request)
    words = site.words(request)
    if not site.paired(request):
        return html(views.pairing_page(
            words, words("This phone is not paired: only a paired phone may set up a game."), "error"), 403)
    message, back, problem = setup_message(site.settings, await read_form(request), words)
    if problem:
        return html(views.setup_page(words, back, problem, "error"), 400)
    try:
        answer = await asyncio.to_thread(ControlClient(site.settings.control_socket).propose_setup, message)
    except ControlUnreachable as error:
        return html(views.setup_page(words, back, str(error), "error"), 503)
    if answer.waiting:  # kept by the table: offered there when its game ends
        return html(views.setup_page(words, back, words(
            "The table is busy until this game ends: it will offer your game then."), "ok"), 202)
    if not answer.ok:
        return html(views.setup_page(words, back, answer.error, "error"), 409)
    return html(views.setup_page(words, back, words("Sent: press OK at the table to start."), "ok"))


async def unpair(request: Request) -> Response:
    site = site_of(request)
    words = site.words(request)
    await read_form(request)  # a size check; the form is empty
    site.pairings.forget(request.cookies.get(COOKIE))
    response = html(views.pairing_page(words, words("This phone is no longer paired."), "ok"))
    response.delete_cookie(COOKIE, httponly=True, samesite="strict")
    return response


ROUTES = [
    Route("/setup", guarded(setup_form), methods=["GET"]),
    Route("/setup", guarded(setup_send), methods=["POST"]),
    Route("/pair/start", guarded(pair_start), methods=["POST"]),
    Route("/pair", guarded(pair), methods=["POST"]),
    Route("/unpair", guarded(unpair), methods=["POST"]),
]
