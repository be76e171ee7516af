"""A TOML settings file, read and checked: the one approach of the referee's config and the club's settings.

Every problem stops the program before it starts, as one line that names the file, the key, the
value and what is wanted (``config /etc/bornes/config.toml: display.rotate = 4 is out of range;
allowed 0 to 3``), with exit status 78 (EX_CONFIG) so systemd and a person both see why.

A settings section is a frozen dataclass whose fields say how they are checked, next to their
default (``port: int = whole(8080, 1, 65535)``); :meth:`Checker.section` builds one from a TOML
table, refusing unknown keys. Checks that span keys (a dealer within the players) stay in the
loader, written with the same :class:`Checker`, so they speak the same way.

Why not a library: pydantic would be the well-kept choice, but its compiled core is a wheel of
several megabytes that a Pi Zero 2 W imports on every start, and each of our messages (paths taken
from the file's folder, ``~user`` that does not exist, an I2C address written ``0x3C``) would still
be a hook of our own. These ~200 lines are the whole of it, standard library only.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tomllib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from bornes.drivers.errors import EX_CONFIG, UserError
from bornes.drivers.files import UnreadableFile, exists_or_dangling, read_bounded

T = TypeVar("T")
MAX_PATH_LENGTH = 4096  # PATH_MAX on Linux
FILE_LIMIT = 1024 * 1024  # a settings file is a few KiB; anything near this is not one
CHECK = "bornes.check"  # the dataclass field metadata key that holds a field's rule


class ConfigError(UserError):
    """A settings problem: one line naming the file and key, exit status 78 (EX_CONFIG)."""

    exit_code = EX_CONFIG


# -- reading the file -------------------------------------------------------------------------------


def one_line(text: str) -> str:
    return " ".join(text.split())


def read_text(path: str, label: str, *, explicit: bool = True, sample: str = "") -> str | None:
    """The file's text; None when it is absent and nobody asked for it (the defaults apply).

    ``label`` starts every message ("config", "bridge settings"); ``sample`` is the shipped file to
    copy when this one was emptied by a power cut during a save.
    """
    try:
        raw = read_bounded(path, FILE_LIMIT)
    except FileNotFoundError:
        if exists_or_dangling(path):
            raise ConfigError(f"{label} {path}: is a symlink to a file that does not exist") from None
        if explicit:
            raise ConfigError(f"{label} {path}: no such file") from None
        return None
    except UnreadableFile as error:
        raise ConfigError(f"{label} {path}: {error}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(f"{label} {path}: not UTF-8 text (byte {error.start})") from None
    if not text.strip() or "\0" in text:  # what a power cut during a save leaves: empty, or zero-filled
        what = "is empty" if not text.strip() else "holds NUL bytes (cut short while saved?)"
        fix = f"; restore it, or copy {sample} there" if sample else ""
        raise ConfigError(f"{label} {path}: {what}{fix}")
    return text


def parse_toml(text: str, where: str) -> dict[str, Any]:
    """TOML text to tables; ``where`` ("config /etc/bornes/config.toml") starts the one-line error."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{where}: TOML syntax error: {one_line(str(error))}") from None
    except RecursionError:
        raise ConfigError(f"{where}: values are nested too deeply") from None


def show(value: object) -> str:
    """A value as it would be written in TOML, on one line."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {show(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(show(v) for v in value) + "]"
    return one_line(str(value))


def kind(value: object) -> str:
    names = {bool: "a boolean", int: "a whole number", float: "a decimal number", str: "a string", list: "a list"}
    return names.get(type(value), "a table" if isinstance(value, dict) else type(value).__name__)


# -- the checker --------------------------------------------------------------------------------------


class Checker:
    """Reads checked values out of TOML tables; every failure is a :class:`ConfigError` in one line.

    Each reader returns the validated value, or ``default`` when the key is absent.
    """

    def __init__(self, where: str, base_dir: Path | None = None) -> None:
        self.where = where  # "config /etc/bornes/config.toml": the start of every message
        self.base_dir = base_dir or Path.cwd()  # relative paths in the file are taken from its folder

    def fail(self, message: str) -> ConfigError:
        return ConfigError(f"{self.where}: {one_line(message)}")

    def bad(self, key: str, value: object, why: str) -> ConfigError:
        return self.fail(f"{key} = {show(value)} {why}")

    def check_sections(self, data: Mapping[str, Any], known: Sequence[str]) -> None:
        for key, value in data.items():
            if key not in known:
                raise self.fail(f"unknown section [{key}]; known sections: {', '.join(known)}")
            if not isinstance(value, dict):
                raise self.bad(key, value, f"should be a table [{key}], not {kind(value)}")

    def check_keys(self, section: str, table: Mapping[str, Any], known: Sequence[str]) -> None:
        for key in table:
            if key not in known:
                raise self.fail(f"unknown key {section}.{key}; known keys in [{section}]: {', '.join(known)}")

    def string(self, table: Mapping[str, Any], section: str, key: str, default: T) -> str | T:
        if key not in table:
            return default
        value = table[key]
        if not isinstance(value, str):
            raise self.bad(f"{section}.{key}", value, f"is {kind(value)}, not a string")
        return value

    def choice(self, table: Mapping[str, Any], section: str, key: str, default: str, allowed: Sequence[str]) -> str:
        value = self.string(table, section, key, default)
        if value not in allowed:
            raise self.bad(f"{section}.{key}", value, f"is not one of {', '.join(allowed)}")
        return value

    def path(self, table: Mapping[str, Any], section: str, key: str, default: T) -> str | T:
        value = self.string(table, section, key, None)
        if value is None:
            return default
        if not value.strip():
            raise self.bad(f"{section}.{key}", value, "is empty; give a path")
        if "\0" in value:
            raise self.bad(f"{section}.{key}", value, "contains a NUL character")
        if len(value) > MAX_PATH_LENGTH:
            raise self.bad(f"{section}.{key}", value[:40] + "…", f"is longer than {MAX_PATH_LENGTH} characters")
        expanded = os.path.expanduser(value)
        if value.startswith("~") and expanded == value:
            user = value[1:].split("/", 1)[0]
            raise self.bad(f"{section}.{key}", value, f"names the home of user {user!r}, who does not exist here")
        return str(self.base_dir / Path(expanded))

    def integer(self, table: Mapping[str, Any], section: str, key: str, default: T, low: int, high: int) -> int | T:
        if key not in table:
            return default
        value = table[key]
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.bad(f"{section}.{key}", value, f"is {kind(value)}, not a whole number")
        if not low <= value <= high:
            raise self.bad(f"{section}.{key}", value, f"is out of range; allowed {low} to {high}")
        return value

    def number(self, table: Mapping[str, Any], section: str, key: str, default: float, low: float,
               high: float) -> float:
        if key not in table:
            return default
        value = table[key]
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.bad(f"{section}.{key}", value, f"is {kind(value)}, not a number of seconds")
        if not low <= value <= high:  # also rejects nan
            raise self.bad(f"{section}.{key}", value, f"is out of range; allowed {low:g} to {high:g} seconds")
        return float(value)

    def boolean(self, table: Mapping[str, Any], section: str, key: str, default: bool) -> bool:
        if key not in table:
            return default
        value = table[key]
        if not isinstance(value, bool):
            raise self.bad(f"{section}.{key}", value, "is not true or false")
        return value

    def secret(self, table: Mapping[str, Any], section: str, key: str, default: str) -> str:
        """A password given directly or (better: mode 0600, or a systemd credential) in ``<key>_file``.
        The file wins; a message never shows the secret itself."""
        name = self.path(table, section, f"{key}_file", None)
        if name is None:
            return self.string(table, section, key, default)
        try:
            return Path(name).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as error:
            reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
            raise self.bad(f"{section}.{key}_file", table[f"{key}_file"], f"cannot be read: {reason}") from None

    def known_keys(self, cls: type) -> list[str]:
        """The keys a section of ``cls`` may hold: its checked fields, and ``<key>_file`` for a secret."""
        keys: list[str] = []
        for f in dataclasses.fields(cls):
            rule = f.metadata.get(CHECK)
            if rule is not None:
                keys += [f.name, f"{f.name}_file"] if isinstance(rule, _Secret) else [f.name]
        return keys

    def section(self, cls: type[T], table: Mapping[str, Any], name: str, **given: Any) -> T:
        """A ``cls`` (a dataclass) from a TOML table: each field read by its rule, ``given`` ones as they are."""
        self.check_keys(name, table, self.known_keys(cls))
        values = dict(given)
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]
            rule = f.metadata.get(CHECK)
            if rule is not None and f.name not in values:
                made = f.default_factory
                default = f.default if made is dataclasses.MISSING else made()
                values[f.name] = rule(self, table, name, f.name, default)
        return cls(**values)


# -- the rules a field declares, beside its default ------------------------------------------------------


#: ``rule(checker, table, section, key, default)``: the key's checked value, or the default when absent.
Rule = Callable[[Checker, Mapping[str, Any], str, str, Any], Any]


class _Secret:
    def __call__(self, check: Checker, table: Mapping[str, Any], section: str, key: str, default: Any) -> Any:
        return check.secret(table, section, key, default)


def _field(default: T, rule: Rule, factory: Callable[[], T] | None = None) -> T:
    if factory is not None:
        return dataclasses.field(default_factory=factory, metadata={CHECK: rule})
    return dataclasses.field(default=default, metadata={CHECK: rule})


def text(default: T) -> T:
    """Any string."""
    return _field(default, lambda c, t, s, k, d: c.string(t, s, k, d))


def choice(default: str, allowed: Sequence[str]) -> str:
    """One of ``allowed``."""
    return _field(default, lambda c, t, s, k, d: c.choice(t, s, k, d, allowed))


def whole(default: T, low: int, high: int) -> T:
    """A whole number from ``low`` to ``high``."""
    return _field(default, lambda c, t, s, k, d: c.integer(t, s, k, d, low, high))


def seconds(default: float, low: float, high: float) -> float:
    """A number of seconds from ``low`` to ``high``."""
    return _field(default, lambda c, t, s, k, d: c.number(t, s, k, d, low, high))


def flag(default: bool) -> bool:
    """True or false."""
    return _field(default, lambda c, t, s, k, d: c.boolean(t, s, k, d))


def _path(c: Checker, t: Mapping[str, Any], s: str, k: str, d: Any) -> Any:
    return c.path(t, s, k, d)


def path(default: T) -> T:
    """A file or folder; relative to the settings file's folder, ``~`` expanded."""
    return _field(default, _path)


def default_path(factory: Callable[[], str]) -> str:
    """A :func:`path` whose default is found when a section is made without it."""
    return _field("", _path, factory)


def secret(default: str = "") -> str:
    """A password, or ``<key>_file`` naming the file that holds it (:meth:`Checker.secret`)."""
    return _field(default, _Secret())


def custom(default: T, rule: Rule) -> T:
    """A field checked by a rule of its own: ``rule(checker, table, section, key, default)``."""
    return _field(default, rule)
