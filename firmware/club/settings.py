"""Settings of ``bornes bridge`` and ``bornes club``: a small TOML file, every key overridable on the command line.

Separate from the referee's config.toml on purpose: the referee never learns the broker's
address or a password, and a table without a bridge has nothing of this to configure. Checked the
same way as the referee's config (:mod:`bornes.firmware.appliance.tomlcheck`): each field says how
beside its default, and every problem is one line naming the file, the key and what is wanted.
Command-line values are checked like the file's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from bornes.firmware.appliance.tomlcheck import (
    Checker,
    ConfigError,
    custom,
    flag,
    parse_toml,
    read_text,
    seconds,
    secret,
    text,
    whole,
)
from bornes.firmware.club.topics import check_id
from bornes.firmware.language.i18n import language_choices, language_code

#: The organiser password guards the whole tournament on a shared LAN, over HTTP Basic: not a short word.
MIN_ORGANISER_PASSWORD = 10

#: The same one-line error as the referee's config (exit status 78).
SettingsError = ConfigError


def _identifier(check: Checker, table: Mapping[str, Any], section: str, key: str, default: str) -> str:
    """A club or table id: a topic level and a broker user name (``club id 'a/b' must be …``)."""
    value = check.string(table, section, key, default)
    try:
        return check_id(key, value)
    except ValueError as error:
        raise check.fail(str(error)) from None


def _language(check: Checker, table: Mapping[str, Any], section: str, key: str, default: str) -> str:
    """A language as the referee's config takes it (firmware/appliance/config.py): a code in any case, a
    locale or a name ("fr", "FR", "fr_FR", "French"), kept as its code."""
    value = check.string(table, section, key, default)
    code = language_code(value)
    if code is None:
        raise check.bad(f"{section}.{key}", value, f"is not a language the club speaks; choose {language_choices()}")
    return code


def _web_address(check: Checker, table: Mapping[str, Any], section: str, key: str, default: str) -> str:
    value = check.string(table, section, key, default)
    if value and not value.startswith(("http://", "https://")):
        raise check.bad(f"{section}.{key}", value, "must start with http:// or https://")
    return value


@dataclass(frozen=True)
class BrokerSettings:
    host: str = text("127.0.0.1")
    port: int = whole(1883, 1, 65535)
    username: str = text("")
    password: str = secret()
    tls_ca: str = text("")  # a CA file turns TLS on (port 8883 in the sample mosquitto.conf)
    keepalive: int = whole(30, 5, 3600)


@dataclass(frozen=True)
class BridgeSettings:
    broker: BrokerSettings
    club: str = custom("", _identifier)
    table: str = custom("", _identifier)
    journal: str = text("/var/lib/bornes")  # the referee's state directory, read only
    state: str = text("/var/lib/bornes-bridge")  # the bridge's own outbox position
    control: str = text("/run/bornes/control.sock")  # the referee's control socket (assignments)
    language: str = custom("en", _language)  # the language of the live table's words ("fr": Feu Vert, km…)
    web_url: str = text("")  # this table's phone pages (bornes web), linked from the board's card: "http://t1.local:8080/"
    resend: float = seconds(10.0, 0.1, 3600.0)  # before an unconfirmed result is sent again
    all_history: bool = flag(False)  # also publish games finished before this bridge first ran


@dataclass(frozen=True)
class BoardSettings:
    broker: BrokerSettings
    club: str = custom("", _identifier)
    database: str = text("/var/lib/bornes-club/club.sqlite3")
    listen: str = text("0.0.0.0")
    port: int = whole(8080, 1, 65535)
    organiser_password: str = secret()  # empty: organiser pages refused (read-only board); else MIN_ORGANISER_PASSWORD+
    #: Where browsers reach the board ("http://club.local:8080/"): its name passes the Host check.
    url: str = custom("", _web_address)
    title: str = text("Mille Bornes club night")
    language: str = custom("en", _language)  # the pages' language: "en" or "fr" (or "French", "FR"...)


def _read(path: str | None, label: str, section: str, given: dict[str, Any],
          broker: dict[str, Any] | None) -> tuple[Checker, dict[str, Any], BrokerSettings]:
    """The file's ``[section]`` with the command line's values (None: not given) laid over it, and its broker."""
    where = f"{label} {path}" if path else label
    contents = read_text(path, label, sample=f"config/{label.split()[0]}.sample.toml") if path else None
    data = parse_toml(contents, where) if contents else {}
    check = Checker(where, Path(path).resolve().parent if path else None)
    check.check_sections(data, [section, "broker"])
    return (check, _over(data.get(section, {}), given),
            check.section(BrokerSettings, _over(data.get("broker", {}), broker or {}), "broker"))


def _over(table: dict[str, Any], given: dict[str, Any]) -> dict[str, Any]:
    """A command-line value wins over the file's, and over the file's ``<key>_file`` too."""
    given = {key: value for key, value in given.items() if value is not None}
    kept = {key: value for key, value in table.items() if key not in given and key.removesuffix("_file") not in given}
    return {**kept, **given}


def load_bridge(path: str | None, broker: dict[str, Any] | None = None, **overrides: Any) -> BridgeSettings:
    check, section, broker_settings = _read(path, "bridge settings", "bridge", overrides, broker)
    settings = check.section(BridgeSettings, section, "bridge", broker=broker_settings)
    if not settings.broker.username:  # the ACL identifies a table by its user name
        settings = replace(settings, broker=replace(settings.broker, username=settings.table))
    return settings


def load_board(path: str | None, broker: dict[str, Any] | None = None, **overrides: Any) -> BoardSettings:
    check, section, broker_settings = _read(path, "club settings", "club", overrides, broker)
    settings = check.section(BoardSettings, section, "club", broker=broker_settings)
    if not settings.broker.username:
        settings = replace(settings, broker=replace(settings.broker, username="board"))
    if 0 < len(settings.organiser_password) < MIN_ORGANISER_PASSWORD:  # never shown: one line says what is wanted
        raise check.fail(f"club.organiser_password must be at least {MIN_ORGANISER_PASSWORD} characters"
                         " (or empty: no organiser pages)")
    return settings
