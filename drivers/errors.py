"""Errors that reach a person as one line, never as a traceback.

They live in drivers (the lowest layer that raises them), so no driver reaches up to the appliance;
the firmware's rooms import them from here.
"""

from __future__ import annotations

EX_USAGE = 64
EX_DATAERR = 65
EX_NOINPUT = 66
EX_UNAVAILABLE = 69
EX_SOFTWARE = 70
EX_CANTCREAT = 73
EX_IOERR = 74
EX_TEMPFAIL = 75
EX_CONFIG = 78


class UserError(Exception):
    """A problem a person can fix; ``str(error)`` is the one line they see."""

    exit_code = 1

    def __init__(self, message: str, exit_code: int | None = None) -> None:
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code
