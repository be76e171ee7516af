"""Paired phones: the tokens a PIN bought (in memory only), and their end at the panel's word."""

from __future__ import annotations

import secrets
import time
from pathlib import Path

from bornes.firmware.appliance import control_client as control

TOKEN_DAYS = 180


class Pairings:
    """Tokens of paired phones, kept in memory: restarting ``bornes web`` asks phones to pair again,
    and the web process never needs a writable file.

    A phone unpairs itself (its button on the setup page); the panel unpairs them all (a long BACK
    while a PIN is shown moves ``control.PHONES_FORGOTTEN``'s time, which this reads, never writes).
    """

    def __init__(self, forgotten: Path | None = None) -> None:
        self._tokens: dict[str, tuple[float, float]] = {}  # token -> (paired at, expires at)
        self.forgotten = forgotten

    def new(self) -> str:
        token = secrets.token_urlsafe(32)
        now = time.time()
        self._tokens[token] = (now, now + TOKEN_DAYS * 86400)
        return token

    def valid(self, token: str | None) -> bool:
        if not token or len(token) > 100:
            return False
        times = self._tokens.get(token)
        if times is None or times[1] <= time.time():
            return False
        if self.forgotten is not None and control.phones_forgotten_at(self.forgotten) >= times[0]:
            del self._tokens[token]  # unpaired at the panel since
            return False
        return True

    def forget(self, token: str | None) -> None:
        """Unpair one phone (its own button on the setup page)."""
        if token:
            self._tokens.pop(token, None)
