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


class Said(str):
    """An English line that keeps its template and values, so a program that speaks the table's language
    can say it again in that language (``firmware/language/said.py``: ``worded``; ``bornes doctor`` does).

    Everywhere else it is the English text it always was: a log line, ``run``'s one-line error, a test's
    assert. Make one with :func:`en_`; the template is a msgid of the table's catalogue (the extraction
    command in ``firmware/language/locale/README.md`` takes ``en_`` as a keyword).
    """

    template: str
    values: dict[str, object]

    def __new__(cls, template: str, values: dict[str, object]) -> Said:
        from bornes.drivers.events import DeviceFailure

        # A device's failure reads in English as the system says it ("Permission denied"), as it always did.
        english = {key: value.system or value.kind.value if isinstance(value, DeviceFailure) else value
                   for key, value in values.items()}
        made = super().__new__(cls, template.format(**english))
        made.template, made.values = template, values
        return made

    def __reduce__(self) -> tuple[object, ...]:  # a pickled Said (an exception's argument) stays one
        return Said, (self.template, self.values)


def en_(template: str, **values: object) -> Said:
    """``template`` filled with ``values`` in English, able to be said again in another language."""
    return Said(template, values)
