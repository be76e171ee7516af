"""Jinja2 for both web apps (``bornes web``, ``bornes club``): autoescaped templates and a page's words.

Every value reaches the HTML through Jinja's autoescape (names typed by players, the journal, a
table's MQTT message); text that is already HTML (a chart's SVG, the panel's legend) is passed as
:class:`markupsafe.Markup` by the code that made it, never marked safe in a template.

The templates are written with line breaks and indentation for the reader, and sent without them
(:class:`Compact`): the pages go over a Pi's Wi-Fi, and a space between two inline elements is one
the template writes inside a line, where it shows.
"""

from __future__ import annotations

import gettext
import re
from urllib.parse import quote

from jinja2 import Environment, PackageLoader
from jinja2.ext import Extension

from bornes.firmware.language.words import fill

_BREAK = re.compile(r"\n[ \t]*")


class Compact(Extension):
    """Drops every line break and the indentation after it from a template's source, before Jinja parses it."""

    def preprocess(self, source: str, name: str | None, filename: str | None = None) -> str:
        return _BREAK.sub("", source)


def environment(package: str) -> Environment:
    """The templates of ``package`` (its ``templates/`` folder), autoescaped, compiled once per process."""
    env = Environment(loader=PackageLoader(package, "templates"), autoescape=True, extensions=[Compact],
                      auto_reload=False)
    env.filters["urlquote"] = quote
    # Strict JSON in every page: a NaN is an error here, not a token the browser's JSON.parse refuses.
    env.policies["json.dumps_kwargs"] = {"ensure_ascii": False, "allow_nan": False}
    return env


class Words:
    """A page's language: gettext of one catalogue (``bornes-web``, ``bornes-club``), with a short name."""

    def __init__(self, language: str, catalogue: gettext.NullTranslations) -> None:
        self.language = language
        self.catalogue = catalogue

    def __call__(self, message: str, **values: object) -> str:
        text = self.catalogue.gettext(message)
        return fill(text, self.language, **values) if values else text

    def p(self, context: str, message: str) -> str:
        return self.catalogue.pgettext(context, message)

    def n(self, singular: str, plural: str, count: int, **values: object) -> str:
        return self.catalogue.ngettext(singular, plural, count).format(count=count, **values)
