"""What the table calls editions and rule options: one presentation table, read by the Rules
menu of the appliance and by the sample screens alike.

The engine names every disputed rule (``bornes.engine.options.RuleOptions``) and every edition; this
module turns those names and their text values into short words a family reads on a 128-pixel
panel, and marks the edition's own value with ``*`` so a house rule stands out.
"""

from __future__ import annotations

import enum

from bornes.engine import EDITIONS, RuleOptions
from bornes.firmware.language.i18n import N_, _

#: Edition names short enough for a summary line ("Ann, Bob · Winning Moves").
EDITION_SHORT: dict[str, str] = {
    "winning-moves": N_("Winning Moves"),
    "parker-1988": N_("Parker 1988"),
    "hasbro-2016": N_("Hasbro 2016"),
    "dujardin": N_("Dujardin"),
    "1000-bornes": N_("1000 Bornes"),
}

#: One friendly label per rule option, in the order the Rules menu lists them.
OPTION_LABELS: dict[str, str] = {
    "hazard_on_hazard": N_("Hazard on hazard"),
    "speed_limit_on_limit": N_("Limit on limit"),
    "roll_after_remedy": N_("Remedy then Roll"),
    "roll_after_safety": N_("Safety then Roll"),
    "attack_needs_own_roll": N_("Roll to attack"),
    "draw_from_discard": N_("Take the discard"),
    "empty_draw_pile": N_("Empty pile"),
    "exact_trip": N_("Exact trip"),
    "short_trip_seats": N_("700 trip for"),
    "extension": N_("Extension"),
    "extension_bonus": N_("Extension bonus"),
    "extension_failure": N_("Ext. miss"),
    "coup_fourre_scoring": N_("Coup fourré"),
    "shut_out": N_("Shut-out"),
    "delayed_action_on_last_draw": N_("Delayed on last"),
    "discard_safety": N_("Discard safety"),
    "fast_play": N_("Fast play"),
    "youngest_start_rolling": N_("Start with Roll"),
    "scoring": N_("Scoring"),
    "safe_trip_bonus": N_("Safe trip bonus"),
    "game_target": N_("Game to"),
    "winner": N_("Winner"),
}

#: Words for option values that are not plain numbers (``yes``/``no`` and the enum values).
VALUE_LABELS: dict[str, str] = {
    "yes": N_("yes"),
    "no": N_("no"),
    "play-out": N_("play out"),
    "reshuffle": N_("reshuffle"),
    "end-hand": N_("ends hand"),
    "opponents-always": N_("always"),
    "opponents-if-another-finishes": N_("if another"),
    "100+300": "100+300",
    "200": "200",
    "all-opponents": N_("500 once"),
    "per-opponent": N_("500 each"),
    "classic": N_("classic"),
    "hasbro-2016": N_("Hasbro"),
    "1000-bornes": N_("1000 Bornes"),
    "distance": N_("distance"),
    "points": N_("points"),
    "none": N_("nobody"),
}

#: The Rules menu's hint line: what the mark means and what OK does (then shorter, for 128 px).
RULES_HINT = N_("*: edition's rule   OK: change")
RULES_HINT_SHORT = (N_("* edition's  OK change"), N_("* edition  OK change"), N_("OK change"))


def rules_hint() -> tuple[str, ...]:
    """The Rules menu's hint in the table's language, longest phrasing first."""
    return tuple(_(text) for text in (RULES_HINT, *RULES_HINT_SHORT))

#: Values offered for the options that are numbers or seat lists (the edition's own is added).
NUMBER_CHOICES: dict[str, tuple[str, ...]] = {
    "short_trip_seats": ("2,3,6", "none"),
    "extension_bonus": ("200", "300", "100"),
    "safe_trip_bonus": ("300", "200"),
    "game_target": ("5000", "0", "2500", "10000"),
}

assert set(OPTION_LABELS) == set(RuleOptions().as_strings()), "every rule option has one label"


def edition_short(name: str) -> str:
    return _(EDITION_SHORT[name])


def option_label(name: str) -> str:
    return _(OPTION_LABELS[name])


def value_label(name: str, value: str) -> str:
    """A value in words: ``game_target`` 0 is "one hand", seat lists read "2,3,6 seats"."""
    if name == "game_target" and value == "0":
        return _("one hand")
    if name == "short_trip_seats" and value != "none":
        return value
    return _(VALUE_LABELS[value]) if value in VALUE_LABELS else value


def option_choices(options: RuleOptions, name: str, default: RuleOptions | None = None) -> list[str]:
    """The text values an option can take, in the order OK cycles through them."""
    current = options.as_string(name)
    if current in ("yes", "no"):
        return ["yes", "no"]
    value = getattr(options, name)
    if isinstance(value, enum.Enum):
        return [str(member.value) for member in type(value)]
    choices = list(NUMBER_CHOICES.get(name, ()))
    for extra in (default.as_string(name) if default is not None else None, current):
        if extra is not None and extra not in choices:
            choices.insert(0, extra)
    return choices


def option_line(options: RuleOptions, name: str, edition: str) -> str:
    """"Hazard on hazard: no*": the label, the value in words, ``*`` when it is the edition's."""
    value = options.as_string(name)
    mark = "*" if EDITIONS[edition].options.as_string(name) == value else ""
    return f"{option_label(name)}: {value_label(name, value)}{mark}"


def option_lines(options: RuleOptions, edition: str) -> list[str]:
    """Every option as a menu line, in :data:`OPTION_LABELS` order."""
    return [option_line(options, name, edition) for name in OPTION_LABELS]
