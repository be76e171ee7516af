"""The camera templates' index (``templates.json``), read without OpenCV: for ``bornes doctor`` and the referee.

:mod:`bornes.drivers.camera.templates` writes and loads the templates themselves (the faces are PNG
pictures, which need OpenCV); what was taught, when, and what the check found is in the index alone,
so a command that only reports on it stays light.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from bornes.drivers.errors import en_
from bornes.drivers.events import DeviceFailure

INDEX = "templates.json"
FORMAT = "bornes-camera-templates"
VERSION = 1
#: The kind codes of the labels, in the order an owner is asked for them.
KINDS: tuple[str, ...] = ("D25", "D50", "D75", "D100", "D200", "ACCIDENT", "OUTOFGAS", "FLATTIRE", "SPEEDLIMIT",
                          "STOP", "REPAIRS", "GASOLINE", "SPARETIRE", "ENDOFLIMIT", "ROLL", "DRIVINGACE", "EXTRATANK",
                          "PUNCTUREPROOF", "RIGHTOFWAY")


@dataclass(frozen=True, slots=True)
class IndexSummary:
    """What an index says: the kinds taught, the check's result, and its generation (one per teaching)."""

    generation: int
    taught: tuple[str, ...]
    read_back: tuple[str, ...]
    alike: tuple[tuple[str, str], ...]

    @property
    def missing(self) -> tuple[str, ...]:
        return tuple(kind for kind in KINDS if kind not in self.taught)


def read_index(folder: str | os.PathLike[str]) -> IndexSummary | str:
    """The summary of ``folder``'s index, or one line saying why there is none to use."""
    index = Path(folder) / INDEX
    try:
        document = json.loads(index.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return en_("not taught yet (no {index}): bornes enroll --camera, or Teach the camera in the panel's menu",
                    index=index)
    except OSError as error:
        return en_("{index} is unreadable: {reason}", index=index, reason=DeviceFailure.of(error, str(index)))
    except ValueError as error:  # the JSON parser's own words and place
        return en_("{index} is unreadable: {reason}", index=index, reason=str(error))
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        return en_("{index} is not a bornes camera templates file", index=index)
    if document.get("version") != VERSION:
        return en_("{index} has version {version}; this bornes reads {reads}: teach the camera again", index=index,
                    version=repr(document.get("version")), reads=VERSION)
    kinds = document.get("kinds")
    if not isinstance(kinds, dict):
        return en_("{index}: 'kinds' must be an object", index=index)
    alike = tuple((str(pair[0]), str(pair[1])) for pair in document.get("lookalikes", [])
                  if isinstance(pair, list) and len(pair) >= 2)
    return IndexSummary(int(document.get("generation", 0)), tuple(k for k in KINDS if k in kinds),
                        tuple(str(k) for k in document.get("read_back", [])), alike)
