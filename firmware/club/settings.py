"""Settings of ``bornes bridge`` and ``bornes club``: a small TOML file, every key overridable on the command line.

Separate from the referee's config.toml on purpose: the referee never learns the broker's
address or a password, and a table without a bridge has nothing of this to configure.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from bornes.drivers.errors import EX_CONFIG, UserError
from bornes.firmware.club.topics import check_id
from bornes.firmware.language.i18n import LANGUAGES

#: The organiser password guards the whole tournament on a shared LAN, over HTTP Basic: not a short word.
MIN_ORGANISER_PASSWORD = 10


class SettingsError(UserError):
    def __init__(self, message: str) -> None:
        super().__init__(message, EX_CONFIG)


@dataclass(frozen=True)
class BrokerSettings:
    host: str = "127.0.0.1"
    port: int = 1883
    username: str = ""
    password: str = ""
    tls_ca: str = ""  # a CA file turns TLS on (port 8883 in the sample mosquitto.conf)
    keepalive: int = 30


@dataclass(frozen=True)
class BridgeSettings:
    broker: BrokerSettings
    club: str
    table: str
    journal: str = "/var/lib/bornes"  # the referee's state directory, read only
    state: str = "/var/lib/bornes-bridge"  # the bridge's own outbox position
    control: str = "/run/bornes/control.sock"  # the referee's control socket (assignments)
    language: str = "en"  # the language of the live table's words ("fr": Feu Vert, km…)
    web_url: str = ""  # this table's phone pages (bornes web), linked from the board's card: "http://t1.local:8080/"
    resend: float = 10.0  # seconds before an unconfirmed result is sent again
    all_history: bool = False  # also publish games finished before this bridge first ran


@dataclass(frozen=True)
class BoardSettings:
    broker: BrokerSettings
    club: str
    database: str = "/var/lib/bornes-club/club.sqlite3"
    listen: str = "0.0.0.0"
    port: int = 8080
    organiser_password: str = ""  # empty: organiser pages refused (read-only board); else MIN_ORGANISER_PASSWORD+
    url: str = ""  # where browsers reach the board ("http://club.local:8080/"): its name passes the Host check
    title: str = "Mille Bornes club night"
    language: str = "en"  # the pages' language: "en" or "fr"


def read_toml(path: str | None) -> dict[str, Any]:
    if not path:
        return {}
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except OSError as error:
        raise SettingsError(f"cannot read {path}: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise SettingsError(f"{path}: {error}") from None


def _secret(section: dict[str, Any], key: str, name: str) -> str:
    """A password given directly or (better, mode 0600) in a file named by ``<key>_file``."""
    file_name = section.get(f"{key}_file")
    if file_name:
        try:
            return Path(str(file_name)).read_text(encoding="utf-8").strip()
        except OSError as error:
            raise SettingsError(f"{name}: cannot read {key}_file {file_name}: {error.strerror}") from None
    return str(section.get(key, ""))


def _pick(cls: type, section: dict[str, Any], name: str, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    known = {f.name: f for f in fields(cls)}
    out: dict[str, Any] = {}
    for key, value in section.items():
        if key.endswith("_file") or key in skip:
            continue
        if key not in known:
            raise SettingsError(f"{name}: unknown key {key!r} (known: {', '.join(sorted(known))})")
        default = known[key].default
        if isinstance(default, bool) and not isinstance(value, bool):
            raise SettingsError(f"{name}: {key} must be true or false")
        number = isinstance(default, int | float) and not isinstance(default, bool)
        if number and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise SettingsError(f"{name}: {key} must be a number")
        if isinstance(default, str) and not isinstance(value, str):
            raise SettingsError(f"{name}: {key} must be text")
        out[key] = value
    return out


def broker_settings(data: dict[str, Any], name: str) -> BrokerSettings:
    section = dict(data.get("broker", {}))
    values = _pick(BrokerSettings, section, f"{name} [broker]")
    values["password"] = _secret(section, "password", f"{name} [broker]") or values.get("password", "")
    return BrokerSettings(**values)


def with_overrides(settings: Any, broker: dict[str, Any] | None, overrides: dict[str, Any]) -> Any:
    """Command-line values (None = not given) win over the file."""
    given = {key: value for key, value in overrides.items() if value is not None}
    broker_given = {key: value for key, value in (broker or {}).items() if value is not None}
    return replace(settings, broker=replace(settings.broker, **broker_given), **given)


def _check_language(name: str, language: str) -> None:
    if language not in LANGUAGES:
        raise SettingsError(f"{name}: language {language!r} is not one of {', '.join(LANGUAGES)}")


def load_bridge(path: str | None, broker: dict[str, Any] | None = None, **overrides: Any) -> BridgeSettings:
    data = read_toml(path)
    name = path or "bridge settings"
    section = dict(data.get("bridge", {}))
    values = _pick(BridgeSettings, section, f"{name} [bridge]", skip=("broker",))
    values.setdefault("club", "")
    values.setdefault("table", "")
    settings: BridgeSettings = with_overrides(BridgeSettings(broker=broker_settings(data, name), **values), broker,
                                              overrides)
    try:
        check_id("club", settings.club)
        check_id("table", settings.table)
    except ValueError as error:
        raise SettingsError(f"{name}: {error}") from None
    _check_language(name, settings.language)
    if not settings.broker.username:  # the ACL identifies a table by its user name
        settings = replace(settings, broker=replace(settings.broker, username=settings.table))
    return settings


def load_board(path: str | None, broker: dict[str, Any] | None = None, **overrides: Any) -> BoardSettings:
    data = read_toml(path)
    name = path or "club settings"
    section = dict(data.get("club", {}))
    values = _pick(BoardSettings, section, f"{name} [club]", skip=("broker",))
    values.setdefault("club", "")
    password = _secret(section, "organiser_password", f"{name} [club]")
    if password:
        values["organiser_password"] = password
    settings: BoardSettings = with_overrides(BoardSettings(broker=broker_settings(data, name), **values), broker,
                                             overrides)
    if not settings.broker.username:
        settings = replace(settings, broker=replace(settings.broker, username="board"))
    try:
        check_id("club", settings.club)
    except ValueError as error:
        raise SettingsError(f"{name}: {error}") from None
    _check_language(name, settings.language)
    if settings.organiser_password and len(settings.organiser_password) < MIN_ORGANISER_PASSWORD:
        raise SettingsError(f"{name}: the organiser password must be at least {MIN_ORGANISER_PASSWORD} characters"
                            " (or empty: no organiser pages)")
    if settings.url and not settings.url.startswith(("http://", "https://")):
        raise SettingsError(f"{name}: url {settings.url!r} must start with http:// or https://")
    return settings
