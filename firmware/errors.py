"""Errors that reach a person as one line: defined in :mod:`bornes.drivers.errors`, the lowest layer
that raises them, so drivers never import upwards; firmware code keeps importing them from here."""

from __future__ import annotations

from bornes.drivers.errors import (
    EX_CANTCREAT,
    EX_CONFIG,
    EX_DATAERR,
    EX_IOERR,
    EX_NOINPUT,
    EX_SOFTWARE,
    EX_TEMPFAIL,
    EX_UNAVAILABLE,
    EX_USAGE,
    UserError,
)

__all__ = [
    "EX_CANTCREAT",
    "EX_CONFIG",
    "EX_DATAERR",
    "EX_IOERR",
    "EX_NOINPUT",
    "EX_SOFTWARE",
    "EX_TEMPFAIL",
    "EX_UNAVAILABLE",
    "EX_USAGE",
    "UserError",
]
