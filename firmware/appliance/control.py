"""The referee's control socket: one more input source, for the phone pages and the MQTT bridge.

The referee keeps no network listener (its unit has ``PrivateNetwork=yes``). Local programs that
may propose a setup (``bornes web``, the MQTT bridge) connect to a Unix stream socket the referee
owns, ``[control] socket`` (``/run/bornes/control.sock`` on a Pi). The listener here is a driver
like the card reader: a thread that only reads the socket, checks each message, and puts one
event on the referee's queue. The referee's one loop applies it and answers through the event.
Nothing from the socket ever plays a card. The one client (web, bridge, commands) is
:mod:`bornes.firmware.appliance.control_client`, which also holds the wire's version and line limit.

Protocol (docs/web.md): one JSON object per line, at most :data:`MAX_LINE` bytes, answered by one
line ``{"v": 1, "ok": true}`` or ``{"v": 1, "ok": false, "error": "one line"}``.

* ``{"v": 1, "type": "setup", "edition": E, "players": N, "teams": bool|null, "names": [...],
  "dealer": int, "options": {name: value}}`` — missing fields keep the table's defaults. The
  table shows the proposed game; one OK at the table starts it.
  During a game the table stays as it is and keeps the setup for the game's end: the answer is
  ``{"v": 1, "ok": false, "error": "busy until this game ends", "waiting": true}``.
* ``{"v": 1, "type": "pair", "url": "http://…/", "asker": "192.168.1.23"}`` — show a fresh PIN for
  that phone and a QR code of ``url`` on the panel for :data:`PAIRING_SECONDS`. The answer carries
  no PIN: only the panel shows it. Refused during a hand, and when nobody has touched the table
  for :data:`PRESENCE_SECONDS`.
* ``{"v": 1, "type": "pin", "pin": "123456", "asker": "192.168.1.23"}`` — is this the PIN shown for
  that phone? Only its own tries count: after :data:`PIN_TRIES` wrong ones its PIN is void.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import logging
import os
import queue
import secrets
import socket
import stat
import threading
import time
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bornes.engine import EDITIONS, GameSetup, OptionError, SetupError
from bornes.firmware.appliance.control_client import (
    BUSY,
    MAX_LINE,
    PIN_DIGITS,
    PROTOCOL_VERSION,
    ControlError,
)
from bornes.firmware.language.i18n import N_

log = logging.getLogger("bornes.control")

#: How long a connection may take to send its line, and how long the loop may take to answer.
READ_TIMEOUT = 2.0
ANSWER_TIMEOUT = 3.0
MAX_CLIENTS = 4
PAIRING_SECONDS = 120.0
PIN_TRIES = 5
#: PINs kept at once (one per phone that asked): past this, the one nearest its expiry goes.
MAX_ASKERS = 1024
#: Wrong PINs from every phone together within LAN_WINDOW s before each PIN gets a single try.
LAN_WRONG = 20
LAN_WINDOW = 600.0
#: A PIN is shown only if a person touched the table (a button, a card) within this many seconds,
#: or the referee started within it: someone must be there to read it.
PRESENCE_SECONDS = 600.0
#: The longest asker id a message may carry (an IPv6 address is at most 45 characters).
MAX_ASKER = 64
MAX_URL = 200


# -- events on the referee's queue -------------------------------------------------------------------


@dataclass(frozen=True)
class SetupProposed:
    """A whole new game proposed from a phone: shown at the table, started by one OK there."""

    edition: str
    names: tuple[str, ...]
    teams: bool
    dealer: int
    options: dict[str, str]
    answer: Future[str | None] = field(default_factory=Future, compare=False, repr=False)

    def describe(self) -> str:
        return f"setup proposed: {self.edition}, {', '.join(self.names)}"


@dataclass(frozen=True)
class PairingAsked:
    """Show a new PIN for ``asker`` (a phone's address) and the page's QR code on the panel."""

    url: str
    asker: str = ""
    answer: Future[str | None] = field(default_factory=Future, compare=False, repr=False)


@dataclass(frozen=True)
class PinOffered:
    """A phone (``asker``) typed this PIN: the loop says whether it is the one shown for that phone."""

    pin: str
    asker: str = ""
    answer: Future[str | None] = field(default_factory=Future, compare=False, repr=False)


ControlEvent = SetupProposed | PairingAsked | PinOffered


# -- checking a message ----------------------------------------------------------------------------


def _names(value: object, players: int | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        raise ControlError("names must be a list of strings")
    names = tuple(" ".join(name.split()) for name in value)
    if players is not None and len(names) != players:
        raise ControlError(f"{len(names)} names for {players} players")
    if len(set(names)) != len(names):
        raise ControlError("two players have the same name")
    return names


def parse_setup(message: dict[str, Any], defaults: dict[str, Any]) -> SetupProposed:
    """Check a setup message against the engine; missing fields come from ``defaults``.

    ``defaults`` holds ``edition``, ``names`` (at least eight), ``dealer`` and ``options`` (text).
    """
    edition_name = message.get("edition", defaults["edition"])
    if not isinstance(edition_name, str) or edition_name not in EDITIONS:
        raise ControlError(f"unknown edition; choose one of {', '.join(EDITIONS)}")
    edition = EDITIONS[edition_name]
    players = message.get("players")
    if players is not None and (isinstance(players, bool) or not isinstance(players, int)):
        raise ControlError("players must be a whole number")
    names = _names(message.get("names"), players)
    if names is None:
        count = defaults.get("players", edition.seat_counts[0]) if players is None else players
        if players is None and count not in edition.seat_counts:
            count = edition.seat_counts[0]
        if not 2 <= count <= 8:
            raise ControlError("players must be 2 to 8")
        known = tuple(defaults["names"])
        names = known[:count] + tuple(f"P{i + 1}" for i in range(len(known), count))
    teams = message.get("teams")
    if teams is not None and not isinstance(teams, bool):
        raise ControlError("teams must be true, false or null")
    dealer = message.get("dealer", 0)
    if isinstance(dealer, bool) or not isinstance(dealer, int):
        raise ControlError("dealer must be a seat number")
    raw_options = message.get("options", {})
    if not isinstance(raw_options, dict):
        raise ControlError("options must be an object of name: value")
    texts: dict[str, str] = {}
    if edition_name == defaults["edition"]:
        texts.update(defaults.get("options", {}))
    for key, value in raw_options.items():
        if isinstance(value, bool):
            texts[str(key)] = "yes" if value else "no"
        elif isinstance(value, int | str):
            texts[str(key)] = str(value)
        else:
            raise ControlError(f"option {key} must be a boolean, number or string")
    try:
        options = edition.options.with_strings(texts)
        setup = GameSetup.create(edition_name, names, teams=teams, dealer=dealer, options=options)
    except (OptionError, SetupError) as error:
        raise ControlError(" ".join(str(error).split())) from None
    return SetupProposed(setup.edition, setup.names, setup.teams, setup.dealer, options.diff(edition.options))


def _asker(message: dict[str, Any]) -> str:
    """Who asked (``"asker"``: the phone's address, as ``bornes web`` sees it); "" for a client that does not say."""
    asker = message.get("asker", "")
    if not isinstance(asker, str) or len(asker) > MAX_ASKER or not asker.isprintable():
        raise ControlError("asker must be a short text (the phone's address)")
    return asker


def parse_message(line: bytes, defaults: dict[str, Any]) -> ControlEvent:
    """One line of the socket to one event, or :class:`ControlError` with a one-line reason."""
    try:
        message = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ControlError("not a JSON object on one line") from None
    if not isinstance(message, dict):
        raise ControlError("not a JSON object on one line")
    if message.get("v") != PROTOCOL_VERSION:
        raise ControlError(f"unknown protocol version; this referee speaks v {PROTOCOL_VERSION}")
    kind = message.get("type")
    if kind == "setup":
        return parse_setup(message, defaults)
    if kind == "pair":
        url = message.get("url")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")) or len(url) > MAX_URL:
            raise ControlError("pair needs the page's url (http://…)")
        if not url.isprintable() or " " in url:
            raise ControlError("pair needs the page's url (http://…)")
        return PairingAsked(url, _asker(message))
    if kind == "pin":
        pin = message.get("pin")
        if not isinstance(pin, str) or not pin.isascii() or not pin.isdigit() or len(pin) != PIN_DIGITS:
            raise ControlError(f"a PIN is {PIN_DIGITS} digits")
        return PinOffered(pin, _asker(message))
    if kind in ("play", "scan", "press"):
        raise ControlError("cards are played with cards, not from the socket")
    raise ControlError("unknown type; this referee takes setup, pair and pin")


# -- the PIN shown on the panel --------------------------------------------------------------------


@dataclass
class _Pin:
    pin: str
    url: str
    expires: float
    wrong: int = 0


class Pairing:
    """The PINs phones asked for: one per asker (the phone's address, from ``bornes web``), each fresh
    for its request and void after expiry or :data:`PIN_TRIES` wrong tries *from that asker*.

    The panel shows the newest (``pin``, ``url``). A phone's PIN is checked only against what that
    phone typed: another address can neither use it nor void it, and a later request from another
    phone puts a new PIN on the panel without voiding the earlier one (it still works for its
    two minutes). Against guessing by many addresses at once: after :data:`LAN_WRONG` wrong PINs
    from everyone within :data:`LAN_WINDOW` s, a PIN is void at its asker's first wrong try (a
    person reading the panel types it right).
    """

    def __init__(self, seconds: float = PAIRING_SECONDS, tries: int = PIN_TRIES) -> None:
        self.seconds = seconds
        self.tries = tries
        self._pins: dict[str, _Pin] = {}
        self._shown: str | None = None  # whose PIN the panel shows
        self._wrong_times: list[float] = []

    @staticmethod
    def _now(now: float | None) -> float:
        return time.monotonic() if now is None else now

    @property
    def pin(self) -> str | None:
        """The PIN on the panel (None when none is)."""
        shown = self._pins.get(self._shown) if self._shown is not None else None
        return shown.pin if shown else None

    @property
    def url(self) -> str:
        shown = self._pins.get(self._shown) if self._shown is not None else None
        return shown.url if shown else ""

    def start(self, url: str, now: float | None = None, asker: str = "") -> str:
        """A fresh PIN for ``asker`` (replacing its own earlier one), shown on the panel from now."""
        now = self._now(now)
        self._forget_expired(now)
        if asker not in self._pins and len(self._pins) >= MAX_ASKERS:
            del self._pins[min(self._pins, key=lambda key: self._pins[key].expires)]
        pin = f"{secrets.randbelow(10**PIN_DIGITS):0{PIN_DIGITS}d}"
        self._pins.pop(asker, None)
        self._pins[asker] = _Pin(pin, url, now + self.seconds)
        self._shown = asker
        return pin

    def active(self, now: float | None = None) -> bool:
        """Is a PIN on the panel, not yet expired?"""
        shown = self._pins.get(self._shown) if self._shown is not None else None
        return shown is not None and self._now(now) < shown.expires

    def remaining(self, now: float | None = None) -> float:
        shown = self._pins.get(self._shown) if self._shown is not None else None
        return max(0.0, shown.expires - self._now(now)) if shown else 0.0

    def check(self, pin: str, now: float | None = None, asker: str = "") -> str | None:
        """None when right (the PIN is then spent), else why not, in one line (English, marked for the
        phone pages' catalogue: the page words it in its own language)."""
        now = self._now(now)
        self._forget_expired(now)
        mine = self._pins.get(asker)
        if mine is None:
            return N_("no PIN is shown: ask for a new one")  # none asked from this phone: nothing to count
        if hmac.compare_digest(pin, mine.pin):
            self._drop(asker)  # one PIN pairs one phone
            return None
        mine.wrong += 1
        self._wrong_times = [t for t in self._wrong_times if now - t < LAN_WINDOW] + [now]
        if mine.wrong >= self.tries or len(self._wrong_times) > LAN_WRONG:
            self._drop(asker)
            return N_("wrong PIN; too many tries: ask for a new one")
        return N_("wrong PIN")

    def cancel(self) -> None:
        self._pins.clear()
        self._shown = None

    def _drop(self, asker: str) -> None:
        self._pins.pop(asker, None)
        if self._shown == asker:
            self._shown = None

    def _forget_expired(self, now: float) -> None:
        for asker in [key for key, value in self._pins.items() if value.expires <= now]:
            self._drop(asker)


# -- the listener thread ---------------------------------------------------------------------------


def _answer(ok_or_error: str | None) -> bytes:
    if ok_or_error is None:
        return json.dumps({"v": PROTOCOL_VERSION, "ok": True}, allow_nan=False).encode() + b"\n"
    answer: dict[str, Any] = {"v": PROTOCOL_VERSION, "ok": False, "error": ok_or_error}
    if ok_or_error == BUSY:
        answer["waiting"] = True  # not refused: kept by the table until its game ends
    return json.dumps(answer, ensure_ascii=False, allow_nan=False).encode() + b"\n"


class ControlListener:
    """Listens on the control socket and puts checked events on ``events``; ``close()`` is idempotent."""

    def __init__(self, path: str | os.PathLike[str], events: queue.Queue[Any], defaults: dict[str, Any]) -> None:
        self.path = Path(path)
        self.events = events
        self.defaults = defaults
        self._closed = threading.Event()
        self._slots = threading.BoundedSemaphore(MAX_CLIENTS)
        self._server = self._bind()
        self._thread = threading.Thread(target=self._serve, name="control-socket", daemon=True)
        self._thread.start()

    def _bind(self) -> socket.socket:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self.path.exists() or self.path.is_symlink():
                if not stat.S_ISSOCK(self.path.lstat().st_mode):
                    raise OSError(f"{self.path} exists and is not a socket")
                self.path.unlink()  # left over from a referee that was killed
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
            old = os.umask(0o117)  # owner and group (the web process's) may connect
            try:
                server.bind(str(self.path))
            finally:
                os.umask(old)
            server.listen(8)
            server.settimeout(None)
        except OSError as error:
            from bornes.firmware.appliance.tomlcheck import ConfigError

            raise ConfigError(f"control.socket = {self.path}: {error.strerror or error}") from None
        return server

    def _serve(self) -> None:
        while not self._closed.is_set():
            try:
                connection, _ = self._server.accept()
            except OSError:
                if self._closed.is_set():
                    return
                time.sleep(0.1)  # e.g. EMFILE: do not spin
                continue
            if not self._slots.acquire(blocking=False):
                with contextlib.suppress(OSError):
                    connection.sendall(_answer("busy: try again"))
                connection.close()
                continue
            threading.Thread(target=self._client, args=(connection,), daemon=True).start()

    def _client(self, connection: socket.socket) -> None:
        with connection:
            try:
                connection.settimeout(READ_TIMEOUT)
                line = self._read_line(connection)
                answer = None if line is None else _answer(self.handle_line(line))
            except OSError as error:
                log.info("control client: %s", error)
                return
            finally:
                # Free the slot before the answer leaves: a client that reads it and asks again at once
                # must find its slot, not "busy" from its own last question's thread still closing.
                self._slots.release()
            if answer is not None:
                try:
                    connection.sendall(answer)
                except OSError as error:
                    log.info("control client: %s", error)

    @staticmethod
    def _read_line(connection: socket.socket) -> bytes | None:
        data = b""
        while b"\n" not in data:
            try:
                chunk = connection.recv(MAX_LINE + 1 - len(data))
            except TimeoutError:
                connection.sendall(_answer("timed out waiting for a line"))
                return None
            if not chunk:
                break
            data += chunk
            if len(data) > MAX_LINE:
                connection.sendall(_answer(f"message longer than {MAX_LINE} bytes"))
                return None
        return data.split(b"\n", 1)[0]

    def handle_line(self, line: bytes) -> str | None:
        """Check one line, queue its event, wait for the loop's verdict. None means accepted."""
        try:
            event = parse_message(line, self.defaults)
        except ControlError as error:
            log.info("control: refused a message: %s", error)
            return str(error)
        self.events.put(event)
        try:
            return event.answer.result(timeout=ANSWER_TIMEOUT)
        except FutureTimeout:
            return "the referee is busy; try again"

    def close(self) -> None:
        if self._closed.is_set():
            return
        self._closed.set()
        with contextlib.suppress(OSError):
            self._server.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self._server.close()
        self._thread.join(timeout=2.0)
        with contextlib.suppress(OSError):
            self.path.unlink()
