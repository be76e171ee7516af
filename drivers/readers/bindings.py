"""The binding table: which RFID/NFC UID stands for which card or control tag.

A UID means nothing by itself, so ``bornes enroll`` records ``UID -> payload`` here.
The file lives in the state directory as small sorted JSON a person can read and
diff; it is written atomically (temp file, fsync, rename) so a power cut during
enrolment never leaves half a file. Export and import use the same format.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

from bornes.drivers.events import CONTROL_NAMES
from bornes.engine.cards import Card, CardCodeError

BINDINGS_FILE = "bindings.json"
FORMAT = "bornes-bindings"
VERSION = 1

_HEX_UID = re.compile(r"[0-9A-F]{8,20}")
MAX_FILE_BYTES = 1024 * 1024  # a full deck with controls is about 8 KB


class BindingError(ValueError):
    """A bad UID or payload, a conflicting binding, or an unreadable bindings file."""


def bindings_path(state_dir: str | os.PathLike[str]) -> Path:
    """Where the binding table lives inside a state directory."""
    return Path(state_dir) / BINDINGS_FILE


def normalise_uid(text: str) -> str | None:
    """``04:a1:b2…`` / ``04 A1 B2…`` -> ``04A1B2…``; None if it is not a plausible UID."""
    compact = re.sub(r"[\s:\-]", "", text).upper()
    if _HEX_UID.fullmatch(compact) and len(compact) % 2 == 0:
        return compact
    return None


def check_payload(payload: str) -> str:
    """A payload a tag may stand for: a card code or ``MB-CMD-<NAME>``. Returns it normalised."""
    text = payload.strip().upper()
    if text.startswith("MB-CMD-"):
        if text[len("MB-CMD-") :] not in CONTROL_NAMES:
            raise BindingError(f"unknown control tag {payload!r}; known: {', '.join(CONTROL_NAMES)}")
        return text
    try:
        return Card.from_code(text).code()
    except CardCodeError as error:
        raise BindingError(str(error)) from None


class BindingTable:
    """UID -> payload, thread-safe; reloads its file when another process rewrote it."""

    def __init__(self, entries: Mapping[str, str] | None = None, path: Path | None = None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._by_uid: dict[str, str] = {}
        self._mtime: float | None = None
        for uid, payload in (entries or {}).items():
            self.bind(uid, payload)

    # -- file ---------------------------------------------------------------------------

    @classmethod
    def load_or_set_aside(cls, path: str | os.PathLike[str]) -> tuple[BindingTable, str | None]:
        """For the referee: a damaged file must not stop a table that may not even use tags.

        Returns the table and, if the file was unusable, why, after moving it aside as
        ``bindings.json.damaged-<time>`` (never deleted); the table then starts empty.
        """
        try:
            return cls.load(path), None
        except BindingError as error:
            problem = str(error)
        source = Path(path)
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        target = source.with_name(f"{source.name}.damaged-{stamp}")
        try:
            os.rename(source, target)
            problem = f"{problem}; moved aside to {target.name}"
        except OSError as error:
            problem = f"{problem}; could not move it aside: {error.strerror or error}"
        return cls(path=source), problem

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> BindingTable:
        """Read a bindings file; a missing file is an empty table."""
        table = cls(path=Path(path))
        table.reload()
        return table

    def reload(self) -> None:
        if self.path is None:
            return
        try:
            mtime = self.path.stat().st_mtime
        except FileNotFoundError:
            with self._lock:
                self._by_uid, self._mtime = {}, None
            return
        except OSError as error:
            raise BindingError(f"cannot read {self.path}: {error.strerror}") from None
        entries = read_bindings_file(self.path)
        with self._lock:
            self._by_uid, self._mtime = entries, mtime

    def refresh(self) -> None:
        """Reload if the file changed on disk (cheap: one stat). Errors keep the old table."""
        if self.path is None:
            return
        try:
            mtime: float | None = self.path.stat().st_mtime
        except OSError:
            mtime = None
        if mtime != self._mtime:
            with contextlib.suppress(BindingError):
                self.reload()

    def save(self, path: str | os.PathLike[str] | None = None) -> Path:
        """Write atomically to ``path`` (default: where it was loaded from)."""
        target = Path(path) if path is not None else self.path
        if target is None:
            raise BindingError("no file to save the bindings to")
        with self._lock:
            entries = dict(self._by_uid)
        write_bindings_file(target, entries)
        if path is None or Path(path) == self.path:
            with contextlib.suppress(OSError):
                self._mtime = target.stat().st_mtime
        return target

    # -- table --------------------------------------------------------------------------

    def lookup(self, uid: str) -> str | None:
        key = normalise_uid(uid)
        if key is None:
            return None
        with self._lock:
            found = self._by_uid.get(key)
            return found if found is not None else self._em4100_alias(key)

    def _em4100_alias(self, key: str) -> str | None:
        """An EM4100 tag is 10 hex digits on a serial reader (version byte + 32-bit number) and the
        32-bit number alone on a USB keyboard-mode one (8 hex digits once decoded): either
        enrolment serves the other reader. Caller holds the lock."""
        if len(key) == 10:
            return self._by_uid.get(key[2:])
        if len(key) == 8:
            matches = [p for u, p in self._by_uid.items() if len(u) == 10 and u.endswith(key)]
            return matches[0] if len(matches) == 1 else None
        return None

    def bind(self, uid: str, payload: str, *, replace: bool = False) -> str:
        """Bind ``uid`` to ``payload``; refuses a UID bound to something else unless ``replace``.

        A payload has at most one tag: binding it again moves it to the new UID.
        Returns the normalised UID.
        """
        key = normalise_uid(uid)
        if key is None:
            raise BindingError(f"{uid!r} is not a tag UID (8 to 20 hex digits)")
        value = check_payload(payload)
        with self._lock:
            current = self._by_uid.get(key)
            if current is not None and current != value and not replace:
                raise BindingError(f"tag {key} is already bound to {describe_payload(current)}")
            for other in [u for u, p in self._by_uid.items() if p == value and u != key]:
                del self._by_uid[other]
            self._by_uid[key] = value
        return key

    def unbind(self, uid_or_payload: str) -> list[str]:
        """Remove a binding by UID or by payload; returns the UIDs removed."""
        key = normalise_uid(uid_or_payload)
        text = uid_or_payload.strip().upper()
        with self._lock:
            gone = [u for u, p in self._by_uid.items() if u == key or p == text]
            for uid in gone:
                del self._by_uid[uid]
        return gone

    def as_dict(self) -> dict[str, str]:
        with self._lock:
            return dict(sorted(self._by_uid.items()))

    def payloads(self) -> set[str]:
        with self._lock:
            return set(self._by_uid.values())

    def __len__(self) -> int:
        with self._lock:
            return len(self._by_uid)

    def __contains__(self, uid: object) -> bool:
        return isinstance(uid, str) and self.lookup(uid) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self.as_dict())


def describe_payload(payload: str) -> str:
    """``100 miles (#7)`` or ``control OK`` for messages."""
    if payload.startswith("MB-CMD-"):
        return f"control {payload[len('MB-CMD-') :]}"
    try:
        return Card.from_code(payload).describe()
    except CardCodeError:
        return payload


def read_bindings_file(path: Path) -> dict[str, str]:
    """Parse and check a bindings file (the state file or an export): bounded, regular files only."""
    from bornes.drivers.files import UnreadableFile, read_text_bounded

    try:
        document = json.loads(read_text_bounded(path, MAX_FILE_BYTES))
    except FileNotFoundError:
        raise BindingError(f"{path} does not exist") from None
    except UnreadableFile as error:
        raise BindingError(f"{path} {error}") from None
    except json.JSONDecodeError as error:
        raise BindingError(f"{path} is not a bindings file: {error}") from None
    except RecursionError:
        raise BindingError(f"{path} is not a bindings file: nested too deeply") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise BindingError(f"{path} is not a bornes bindings file")
    if document.get("version") != VERSION:
        raise BindingError(f"{path} has bindings version {document.get('version')!r}; this bornes reads {VERSION}")
    raw = document.get("bindings")
    if not isinstance(raw, dict):
        raise BindingError(f"{path}: 'bindings' must be an object of UID: payload")
    entries: dict[str, str] = {}
    seen: dict[str, str] = {}
    for uid, payload in raw.items():
        key = normalise_uid(str(uid))
        if key is None or not isinstance(payload, str):
            raise BindingError(f"{path}: bad entry {uid!r}: {payload!r}")
        value = check_payload(payload)
        if key in entries:
            raise BindingError(f"{path}: tag {key} is listed twice ({entries[key]}, {value}): letter case differs")
        if value in seen:
            raise BindingError(f"{path}: {value} is bound to two tags, {seen[value]} and {key}")
        seen[value] = key
        entries[key] = value
    return entries


def write_bindings_file(path: Path, entries: Mapping[str, str]) -> None:
    """Atomic write: a reader sees the old file or the new one, never half of one."""
    document = {"format": FORMAT, "version": VERSION, "bindings": dict(sorted(entries.items()))}
    text = json.dumps(document, indent=2) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    with contextlib.suppress(OSError):  # make the rename itself durable
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
