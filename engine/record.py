"""The game record: a plain-text game, like PGN for chess (docs/record.md).

A header of tag pairs (edition, players, partnerships, first dealer, rule options that
differ from the edition preset), a blank line, then one action per line in the notation of
``bornes.engine.actions``. ``write_record(read_record(text))`` gives back the same text for any
record the engine wrote.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from bornes.engine.actions import Action, NotationError, parse_action, seat_letter
from bornes.engine.options import OptionError, edition
from bornes.engine.state import GameSetup, SetupError
from bornes.engine.values import FrozenValue

FORMAT = "bornes-record 1"
_TAG = re.compile(r'\[(\w+) "([^"]*)"\]')


class RecordError(ValueError):
    """A record whose header cannot be read."""


@dataclass(frozen=True, slots=True)
class RecordLine(FrozenValue):
    """One action line of a record: its line number, its text and what it parses to."""

    number: int
    text: str
    action: Action | None
    error: str | None = None


def write_header(setup: GameSetup) -> str:
    preset = edition(setup.edition).options
    lines = [
        f'[Format "{FORMAT}"]',
        f'[Edition "{setup.edition}"]',
        f'[Players "{"; ".join(setup.names)}"]',
        f'[Teams "{"yes" if setup.teams else "no"}"]',
        f'[Dealer "{seat_letter(setup.dealer)}"]',
    ]
    lines += [f'[Option "{name}={value}"]' for name, value in setup.options.diff(preset).items()]
    return "\n".join(lines) + "\n"


def write_record(setup: GameSetup, actions: Iterable[Action]) -> str:
    body = "".join(action.notation() + "\n" for action in actions)
    return write_header(setup) + "\n" + body


def read_header(lines: Iterable[str]) -> GameSetup:
    tags: dict[str, str] = {}
    overrides: dict[str, str] = {}
    for raw in lines:
        match = _TAG.fullmatch(raw.strip())
        if match is None:
            raise RecordError(f"not a header tag: {raw.strip()!r}")
        key, value = match.groups()
        if key == "Option":
            name, sep, option_value = value.partition("=")
            if not sep:
                raise RecordError(f"option tag needs name=value: {value!r}")
            overrides[name.strip()] = option_value.strip()
        else:
            tags[key] = value
    for required in ("Edition", "Players"):
        if required not in tags:
            raise RecordError(f"header has no {required} tag")
    if tags.get("Format", FORMAT) != FORMAT:
        raise RecordError(f"unknown record format {tags['Format']!r}")
    try:
        preset = edition(tags["Edition"])
        options = preset.options.with_strings(overrides)
        names = [name.strip() for name in tags["Players"].split(";")]
        teams_tag = tags.get("Teams")
        if teams_tag not in (None, "yes", "no"):
            raise RecordError(f"Teams must be yes or no, not {teams_tag!r}")
        teams = None if teams_tag is None else teams_tag == "yes"
        dealer_tag = tags.get("Dealer", "A")
        if len(dealer_tag) != 1 or not "A" <= dealer_tag <= "H":
            raise RecordError(f"dealer must be a seat letter, not {dealer_tag!r}")
        return GameSetup.create(
            preset.name, names, teams=teams, dealer=ord(dealer_tag) - ord("A"), options=options
        )
    except (OptionError, SetupError) as error:
        raise RecordError(str(error)) from None


def _parse_line(number: int, raw: str) -> RecordLine | None:
    line = raw.split(";", 1)[0].strip()
    if not line:
        return None
    try:
        return RecordLine(number, line, parse_action(line))
    except NotationError as error:
        return RecordLine(number, line, None, str(error))


def iter_record(lines: Iterable[str]) -> tuple[GameSetup, Iterator[RecordLine]]:
    """The setup, and the action lines one at a time as they are read (``;`` starts a comment).

    Reads a file object line by line, so a long record is never held whole: ``bornes replay``
    streams with it. Bad lines are kept with their error.
    """
    numbered = enumerate(lines, start=1)
    header: list[str] = []
    first: tuple[int, str] | None = None
    for number, raw in numbered:
        if number == 1:
            raw = raw.removeprefix("\ufeff")  # a byte order mark, as Windows Notepad saves UTF-8
        stripped = raw.strip()
        if stripped.startswith("["):
            header.append(raw)
        elif stripped:
            first = (number, raw)  # no blank line after the header: the body starts here
            break
        elif header:
            break
    setup = read_header(header)

    def body() -> Iterator[RecordLine]:
        if first is not None:
            parsed = _parse_line(*first)
            if parsed is not None:
                yield parsed
        for number, raw in numbered:
            parsed = _parse_line(number, raw)
            if parsed is not None:
                yield parsed

    return setup, body()


def read_record(text: str) -> tuple[GameSetup, list[RecordLine]]:
    """The setup and every action line (``;`` starts a comment). Bad lines are kept with their error."""
    setup, lines = iter_record(text.splitlines())
    return setup, list(lines)
