"""Paired phones: the tokens a PIN bought (in memory only), and their end at the panel's word."""

from __future__ import annotations

import secrets
import time
from pathlib import Path

from bornes.firmware.appliance import control_client as control

#: A pairing lasts at most this long (the cookie's own lifetime)…
TOKEN_DAYS = 180
#: …and lapses sooner when the phone has not used it for this long (a guest's phone, a phone lost).
IDLE_DAYS = 30


class Pairings:
    """Tokens of paired phones, kept in memory: restarting ``bornes web`` asks phones to pair again,
    and the web process never needs a writable file.

    A phone unpairs itself (its button on the setup page); the panel unpairs them all (a long BACK
    while a PIN is shown moves ``control.PHONES_FORGOTTEN``'s time, which this reads, never writes).
    A token is a bearer token (whoever holds the cookie is that phone: docs/web.md "The pairing
    cookie"), so it lapses after :data:`IDLE_DAYS` without use, whatever the cookie says.
    """

    def __init__(self, forgotten: Path | None = None) -> None:
        self._tokens: dict[str, list[float]] = {}  # token -> [paired at, last used]
        self.forgotten = forgotten

    def new(self, now: float | None = None) -> str:
        token = secrets.token_urlsafe(32)
        now = time.time() if now is None else now
        self._tokens[token] = [now, now]
        return token

    def valid(self, token: str | None, now: float | None = None) -> bool:
        if not token or len(token) > 100:
            return False
        times = self._tokens.get(token)
        now = time.time() if now is None else now
        if times is None:
            return False
        paired_at, used_at = times
        if now - paired_at >= TOKEN_DAYS * 86400 or now - used_at >= IDLE_DAYS * 86400:
            del self._tokens[token]
            return False
        if self.forgotten is not None and control.phones_forgotten_at(self.forgotten) >= paired_at:
            del self._tokens[token]  # unpaired at the panel since
            return False
        times[1] = now
        return True

    def forget(self, token: str | None) -> None:
        """Unpair one phone (its own button on the setup page)."""
        if token:
            self._tokens.pop(token, None)
