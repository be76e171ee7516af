"""An English line of a lower layer, said again in the table's language.

A driver or the storage words its problems in English for logs and ``run``'s one-line errors; where
they can reach a person in the table's language (``bornes doctor``), they are a
:class:`~bornes.drivers.errors.Said` (the template and its values), worded here through the catalogue.
A :class:`~bornes.drivers.events.DeviceFailure` among the values is its reason in our words
(``firmware/language/devices.py``: "permission denied", never the system's "Permission denied"): the
sentence names the file already. Any other text is said as it is.
"""

from __future__ import annotations

from bornes.drivers.errors import Said
from bornes.drivers.events import DeviceFailure
from bornes.firmware.language.devices import failure_words, reason_words
from bornes.firmware.language.i18n import catalogue


def worded(text: object, language: str | None = None) -> str:
    """``text`` in ``language`` (None: the one chosen by ``i18n.use``): a Said through the catalogue, its
    values worded too; a device's failure in our words; anything else as ``str`` gives it."""
    if isinstance(text, DeviceFailure):
        return failure_words(text, language)
    if isinstance(text, Said):
        values = {key: reason_words(value, language) if isinstance(value, DeviceFailure)
                  else worded(value, language) if isinstance(value, Said) else value
                  for key, value in text.values.items()}
        return catalogue(language).gettext(text.template).format(**values)
    return str(text)


def error_words(error: BaseException, language: str | None = None) -> str:
    """An exception's one line in ``language``: its Said argument worded, else its English text."""
    first = error.args[0] if len(error.args) == 1 else None
    return worded(first, language) if isinstance(first, Said | DeviceFailure) else str(error)
