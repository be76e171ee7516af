"""A device's failure in words: the one place that says why a reader, a pad, the keypad or the camera
cannot be used, in the table's language.

The drivers put the cause on the queue as data (``drivers/events.py``: :class:`DeviceFailure`, a
:class:`Failure` kind and the device); the panel, the emulator's console, the journal's English line
and ``bornes doctor`` all word it here, so a French table says "05a4:9840 introuvable (branché ?)"
where the system says "No such file or directory". The system's own text is the words only for
:attr:`Failure.OTHER`, the kind nothing else fits.
"""

from __future__ import annotations

from bornes.drivers.events import DeviceFailure, Failure
from bornes.firmware.language.i18n import N_, Phrase, catalogue

#: Each kind's words, the device in ``{device}`` (a path, a vendor:product, a camera's name: kept as is).
FAILURE_WORDS: dict[Failure, str] = {
    Failure.NOT_FOUND: N_("{device} not found (plugged in?)"),
    Failure.UNPLUGGED: N_("{device} unplugged"),
    Failure.PERMISSION: N_("{device}: permission denied"),
    Failure.BUSY: N_("{device} is held by another program"),
    Failure.NO_ANSWER: N_("{device} does not answer (cable?)"),
    Failure.OTHER: N_("{device}: {reason}"),
}

#: Each kind's words where the sentence already names the file or folder ("not writable: permission denied").
REASON_WORDS: dict[Failure, str] = {
    Failure.NOT_FOUND: N_("not found"),
    Failure.UNPLUGGED: N_("unplugged"),
    Failure.PERMISSION: N_("permission denied"),
    Failure.BUSY: N_("held by another program"),
    Failure.NO_ANSWER: N_("no answer"),
}

#: Kinds a person fixes by plugging the device (back) in.
PLUG_IT_IN = frozenset({Failure.NOT_FOUND, Failure.UNPLUGGED})


def failure_words(cause: DeviceFailure | str, language: str | None = None) -> str:
    """Why a device cannot be used, in ``language`` (None: the table's, as chosen by ``i18n.use``).

    A text (a driver with no kind for it) is said as it is."""
    if isinstance(cause, str):
        return cause
    return catalogue(language).gettext(FAILURE_WORDS[cause.kind]).format(
        device=cause.device, reason=cause.system or cause.kind.value)


def reason_words(cause: DeviceFailure, language: str | None = None) -> str:
    """Why, without the device: for a sentence that names the file or folder already. The system's own
    text for a kind of none of ours."""
    if cause.kind not in REASON_WORDS:
        return cause.system or cause.kind.value
    return catalogue(language).gettext(REASON_WORDS[cause.kind])


def failure_phrase(cause: DeviceFailure | str) -> Phrase | str:
    """:func:`failure_words` worded when printed (a log line's ``said``: the console's language then)."""
    if isinstance(cause, str):
        return cause
    return Phrase(FAILURE_WORDS[cause.kind], device=cause.device, reason=cause.system or cause.kind.value)
