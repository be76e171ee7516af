"""Reading a small input file a person named: bounded, regular files only, one-line reasons.

A config path can point at a FIFO (an open blocks forever), ``/dev/zero`` (a read never ends),
a directory or a symlink loop. :func:`read_bounded` opens without blocking, checks with
``fstat`` what it opened before reading a byte, and never reads more than ``limit`` bytes.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from bornes.drivers.errors import en_
from bornes.drivers.events import DeviceFailure

KIB = 1024
MIB = 1024 * KIB


class UnreadableFile(Exception):
    """Why a file cannot be used, as words that follow its name: ``"is a directory, not a file"``."""


def describe_mode(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return en_("a directory")
    if stat.S_ISFIFO(mode):
        return en_("a FIFO (named pipe)")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return en_("a device")
    if stat.S_ISSOCK(mode):
        return en_("a socket")
    return en_("not a regular file")


def _open_checked(path: str | os.PathLike[str], limit: int) -> int:
    """A descriptor on a regular file of at most ``limit`` bytes; nothing else is ever read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except FileNotFoundError:
        raise
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise UnreadableFile(en_("is a symlink loop")) from None
        if error.errno in (errno.EACCES, errno.EPERM):
            raise UnreadableFile(en_("cannot be read: permission denied")) from None
        raise UnreadableFile(en_("cannot be read: {reason}", reason=DeviceFailure.of(error, str(path)))) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            what = describe_mode(info.st_mode)
            raise UnreadableFile(en_("is {what}, not a file", what=what) if what != "not a regular file"
                                 else en_("is not a regular file"))
        if info.st_size > limit:
            raise UnreadableFile(en_("is too large ({size} bytes; at most {limit})", size=info.st_size, limit=limit))
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_bounded(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes, or :class:`UnreadableFile`.

    ``FileNotFoundError`` passes through, so a caller can treat a missing file as its own case.
    """
    fd = _open_checked(path, limit)
    try:
        chunks: list[bytes] = []
        total = 0
        while total <= limit:
            chunk = os.read(fd, min(64 * KIB, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:
            raise UnreadableFile(en_("is too large (more than {limit} bytes)", limit=limit))
        return b"".join(chunks)
    except OSError as error:
        raise UnreadableFile(en_("cannot be read: {reason}", reason=DeviceFailure.of(error, str(path)))) from None
    finally:
        os.close(fd)


def open_text_bounded(path: str | os.PathLike[str], limit: int) -> TextIO:
    """A regular UTF-8 file of at most ``limit`` bytes, open to be read line by line (for streaming
    a long input in flat memory); pair it with :func:`bounded_lines` if it may still grow."""
    return open(_open_checked(path, limit), encoding="utf-8", closefd=True)


def bounded_lines(stream: TextIO, limit: int) -> Iterator[str]:
    """The lines of a text stream (standard input, a growing file), refusing more than ``limit`` characters."""
    total = 0
    for line in stream:
        total += len(line)
        if total > limit:
            raise UnreadableFile(en_("is too large (more than {limit} characters)", limit=limit))
        yield line


def read_text_bounded(path: str | os.PathLike[str], limit: int) -> str:
    """:func:`read_bounded`, decoded as UTF-8 (a bad byte is an :class:`UnreadableFile` naming its place)."""
    data = read_bounded(path, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UnreadableFile(en_("is not UTF-8 text (byte {byte})", byte=error.start)) from None


def read_stream_bounded(stream: TextIO, limit: int) -> str:
    """At most ``limit`` characters of a text stream (standard input), refusing more."""
    text = stream.read(limit + 1)
    if len(text) > limit:
        raise UnreadableFile(en_("is too large (more than {limit} characters)", limit=limit))
    return text


def exists_or_dangling(path: str | os.PathLike[str]) -> bool:
    """True if anything is at ``path``, even a symlink that leads nowhere or in a loop."""
    try:
        Path(path).lstat()
    except OSError:
        return False
    return True
