"""The one client of the referee's control socket: ``bornes web``, the club's bridge and the tests.

The listener (:mod:`bornes.firmware.appliance.control`) and this client speak the same wire: one
JSON object per line, each way, at most :data:`MAX_LINE` bytes, versioned by
:data:`PROTOCOL_VERSION`. What both sides share lives here (the wire's constants, the PIN's length,
the unpair-every-phone file), so a client pulls in nothing but the standard library: the bridge and
the web process load neither the listener nor the table's flow.

Every answer is an :class:`Answer`; a referee that cannot be reached, or that answers garbage, is a
:class:`ControlUnreachable` with one line that names the socket.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

PROTOCOL_VERSION = 1
MAX_LINE = 4096
#: The error of a setup sent during a game, answered with ``waiting``: the table keeps the setup and
#: offers it when its game ends.
BUSY = "busy until this game ends"
#: Seconds to connect, send and read the answer (the listener itself gives up after 3 s).
TIMEOUT = 5.0
#: Digits of the PIN the panel shows to pair a phone.
PIN_DIGITS = 6
#: In the referee's state directory: its time is when every phone was unpaired at the panel
#: (a long BACK while the PIN is shown). ``bornes web`` drops every pairing older than it.
PHONES_FORGOTTEN = "phones-forgotten"


def forget_phones(path: str | os.PathLike[str]) -> None:
    """Unpair every phone: the file's time moves to now (the referee writes it, the web reads it)."""
    target = Path(path)
    temporary = target.with_name(target.name + ".new")
    temporary.write_text(f"{time.time():.3f}\n")
    os.replace(temporary, target)


def phones_forgotten_at(path: str | os.PathLike[str]) -> float:
    """When every phone was last unpaired at the panel (0 when never)."""
    try:
        return os.stat(path).st_mtime
    except OSError:
        return 0.0


class ControlError(ValueError):
    """A message the referee will not take: the one line sent back as ``error``."""


class ControlUnreachable(ControlError):
    """No answer from the referee (not running, no socket, a garbled line): one line naming the socket."""


@dataclass(frozen=True, slots=True)
class Answer:
    """The referee's one-line answer."""

    ok: bool
    #: Why not, in one line (English, marked for the pages' catalogue); empty when ``ok``.
    error: str = ""
    #: Not refused: the table keeps the setup and offers it when its game ends.
    waiting: bool = False

    @property
    def refusal(self) -> str | None:
        """None when accepted, else the referee's one-line reason."""
        return None if self.ok else self.error


def send(path: str | os.PathLike[str], message: Mapping[str, object], timeout: float = TIMEOUT) -> Answer:
    """Send one message (``type`` and its fields; the version is added) and read the one-line answer."""
    payload = json.dumps({"v": PROTOCOL_VERSION, **message}, ensure_ascii=False, allow_nan=False).encode() + b"\n"
    data = b""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC) as client:
            client.settimeout(timeout)
            client.connect(os.fspath(path))
            client.sendall(payload)
            while b"\n" not in data and len(data) <= MAX_LINE:
                chunk = client.recv(4096)
                if not chunk:
                    break
                data += chunk
    except OSError as error:  # TimeoutError included
        reason = error.strerror or str(error) or type(error).__name__
        raise ControlUnreachable(f"the referee is not reachable at {os.fspath(path)}: {reason}") from None
    try:
        answer = json.loads(data.split(b"\n", 1)[0].decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ControlUnreachable(f"the referee's answer at {os.fspath(path)} is not JSON") from None
    if not isinstance(answer, dict):
        raise ControlUnreachable(f"the referee's answer at {os.fspath(path)} is not a JSON object")
    if answer.get("ok") is True:
        return Answer(ok=True)
    return Answer(ok=False, error=" ".join(str(answer.get("error") or "refused").split()),
                  waiting=answer.get("waiting") is True)


@dataclass(frozen=True, slots=True)
class ControlClient:
    """The referee's control socket at ``path``: one method per message the protocol has."""

    path: str | os.PathLike[str]
    timeout: float = TIMEOUT

    def send(self, message: Mapping[str, object]) -> Answer:
        return send(self.path, message, self.timeout)

    def propose_setup(self, setup: Mapping[str, object]) -> Answer:
        """A new game (``edition``, ``players``, ``teams``, ``names``, ``dealer``, ``options``; missing
        fields keep the table's defaults): shown at the table, started by one OK there."""
        return self.send({**setup, "type": "setup"})

    def ask_pairing(self, url: str, asker: str = "") -> Answer:
        """Show a fresh PIN for ``asker`` (the phone's address) and a QR code of ``url`` on the panel
        (the answer never carries the PIN)."""
        return self.send({"type": "pair", "url": url, **({"asker": asker} if asker else {})})

    def offer_pin(self, pin: str, asker: str = "") -> Answer:
        """Is this the PIN shown for ``asker``? (Only that phone's tries count against its PIN.)"""
        return self.send({"type": "pin", "pin": pin, **({"asker": asker} if asker else {})})
