"""Talk to systemd (sd_notify) without a dependency: READY, STATUS, WATCHDOG and STOPPING.

The unit is ``Type=notify`` with a watchdog, so the referee says READY once it is really up and
pings from its own loop: a stuck loop stops pinging and systemd restarts it. Outside systemd
(``$NOTIFY_SOCKET`` unset) every call is a harmless no-op, and a failed send never raises,
because a referee must not stop for want of a status message.
"""

from __future__ import annotations

import logging
import os
import socket

log = logging.getLogger("bornes.notify")

NOTIFY_SOCKET = "NOTIFY_SOCKET"


def _address(name: str) -> str:
    """``@name`` is a Linux abstract socket, which starts with a NUL byte."""
    return "\0" + name[1:] if name.startswith("@") else name


def notify(*assignments: str) -> bool:
    """Send ``KEY=value`` lines as one datagram. True if it was sent, False if no socket or it failed."""
    name = os.environ.get(NOTIFY_SOCKET)
    if not name or not assignments:
        return False
    message = "\n".join(assignments).encode()
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(_address(name))
            sock.sendall(message)
    except OSError as error:
        log.warning("cannot notify systemd at %s: %s", name, error)
        return False
    return True


def _clean(text: str) -> str:
    """A STATUS is one line; a newline would start a new assignment."""
    return " ".join(text.split())


def ready(status: str | None = None) -> bool:
    """The referee is up: systemd considers the service started only now."""
    return notify("READY=1", *([f"STATUS={_clean(status)}"] if status else []))


def status(text: str) -> bool:
    """Free text shown by ``systemctl status bornes``."""
    return notify(f"STATUS={_clean(text)}")


def watchdog() -> bool:
    """Proof of life; call at least every :func:`watchdog_interval` seconds from the main loop."""
    return notify("WATCHDOG=1")


def stopping(status: str | None = None) -> bool:
    """Shutting down on purpose, so systemd does not mistake it for a hang."""
    return notify("STOPPING=1", *([f"STATUS={_clean(status)}"] if status else []))


def watchdog_interval() -> float | None:
    """Seconds between pings: half of ``$WATCHDOG_USEC``, or None when no watchdog is asked for.

    ``$WATCHDOG_PID``, when set, names the process the watchdog is meant for; any other process
    (a child, a test) must not ping on its behalf.
    """
    pid = os.environ.get("WATCHDOG_PID")
    if pid:
        try:
            if int(pid) != os.getpid():
                return None
        except ValueError:
            return None
    try:
        usec = int(os.environ.get("WATCHDOG_USEC", ""))
    except ValueError:
        return None
    if usec <= 0:
        return None
    return usec / 2 / 1_000_000
