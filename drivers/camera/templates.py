"""The camera's templates: the flat faces the owner showed, kept in the state folder with a version.

Faces are stored as PNG pictures (what the camera saw, flattened), not as features: a later
OpenCV, or a better recognizer, computes what it needs from them again. ``camera/templates.json``
lists them with the check's result; it is written last, atomically, so a power cut during
enrolment leaves the old templates whole.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2

from bornes.drivers.camera.index import FORMAT, INDEX, KINDS, VERSION
from bornes.drivers.camera.vision import (
    Deck,
    Image,
    Lookalike,
    as_image,
    check_deck,
    find_card,
    flatten,
    make_template,
)

FOLDER = "camera"
_NAME = re.compile(r"([A-Z0-9]+)(?:-(\d+))?\.(png|jpe?g)", re.IGNORECASE)


class TemplateError(ValueError):
    """Templates that cannot be used: missing, damaged, of another version, a kind with no face."""


@dataclass(frozen=True)
class Taught:
    """What an enrolment made: each kind's template faces and held-back check faces, and the check."""

    faces: Mapping[str, Sequence[Image]]
    checks: Mapping[str, Sequence[Image]]
    read_back: tuple[str, ...] = ()
    lookalikes: tuple[Lookalike, ...] = ()

    def deck(self) -> Deck:
        return Deck(make_template(kind, face) for kind, faces in self.faces.items() for face in faces)

    def missing(self, kinds: Sequence[str] = KINDS) -> list[str]:
        return [kind for kind in kinds if not self.faces.get(kind)]

    def checked(self) -> Taught:
        """The same faces with the check run: every held-back face read with the templates."""
        read, alike = check_deck(self.deck(), self.checks)
        return Taught(self.faces, self.checks, tuple(read), tuple(alike))

    def merged(self, newer: Taught) -> Taught:
        """These templates with the kinds ``newer`` taught replaced by its faces (the owner showed a few
        kinds again), checked again as a whole: a kind shown again may now look like another."""
        faces = {**self.faces, **newer.faces}
        checks = {kind: shots for kind, shots in self.checks.items() if kind not in newer.faces}
        checks.update(newer.checks)
        return Taught(faces, checks).checked()

    def alike_pairs(self) -> list[tuple[str, str]]:
        """The kinds that look alike to the camera, each pair once, in kind order."""
        order = {kind: n for n, kind in enumerate(KINDS)}
        pairs = {tuple(sorted((x.first, x.second), key=lambda k: order.get(k, 99))) for x in self.lookalikes}
        return sorted(((a, b) for a, b in pairs), key=lambda p: (order.get(p[0], 99), order.get(p[1], 99)))

    def describe_check(self) -> str:
        """One line for a person: all read back, or which kinds look alike."""
        if self.lookalikes:
            pairs = ", ".join(f"{a} / {b}" for a, b in self.alike_pairs())
            return f"these kinds look alike to the camera, show them again: {pairs}"
        unchecked = [kind for kind in KINDS if kind in self.faces and kind not in self.read_back]
        if unchecked:
            return f"no check shot for: {', '.join(unchecked)}"
        return f"all {len(self.read_back)} kinds read back"


def templates_dir(state_dir: str | os.PathLike[str]) -> Path:
    """Where a state folder keeps the camera's templates unless ``[camera] templates`` says otherwise."""
    return Path(state_dir) / FOLDER


def save(folder: str | os.PathLike[str], taught: Taught) -> Path:
    """Write the faces into ``folder``, then the index atomically (the old index stays valid until the
    rename, and the old faces until then too: they are removed last)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    generation = _next_generation(folder)
    entries: dict[str, dict[str, list[str]]] = {}
    for role, source in (("faces", taught.faces), ("checks", taught.checks)):
        for kind, faces in source.items():
            for n, face in enumerate(faces, 1):
                name = f"{generation}-{kind}-{role[0]}{n}.png"
                if not cv2.imwrite(str(folder / name), face):
                    raise TemplateError(f"cannot write {folder / name}")
                entries.setdefault(kind, {}).setdefault(role, []).append(name)
    document = {"format": FORMAT, "version": VERSION, "generation": generation, "kinds": entries,
                "read_back": list(taught.read_back),
                "lookalikes": [[x.first, x.second, round(x.margin, 3)] for x in taught.lookalikes]}
    index = folder / INDEX
    fd, temp = tempfile.mkstemp(prefix=".templates.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(document, handle, indent=1)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, index)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    for old in folder.glob("*.png"):  # faces of earlier enrolments, now unused
        if not old.name.startswith(f"{generation}-"):
            with contextlib.suppress(OSError):
                old.unlink()
    return index


def _next_generation(folder: Path) -> int:
    try:
        return int(json.loads((folder / INDEX).read_text(encoding="utf-8")).get("generation", 0)) + 1
    except (OSError, ValueError, AttributeError):
        return 1


def load(folder: str | os.PathLike[str], *, complete: bool = True, kinds: Sequence[str] = KINDS) -> Taught:
    """The templates kept in ``folder``; :class:`TemplateError` with one line when they cannot be used
    (damaged, of another version; with ``complete``, also when one of ``kinds`` was never taught)."""
    folder = Path(folder)
    index = folder / INDEX
    try:
        document = json.loads(index.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TemplateError(f"the camera has not been taught the cards yet (no {index}): bornes enroll --camera") \
            from None
    except (OSError, ValueError) as error:
        raise TemplateError(f"{index} is unreadable: {error}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise TemplateError(f"{index} is not a bornes camera templates file")
    if document.get("version") != VERSION:
        raise TemplateError(f"{index} has version {document.get('version')!r}; this bornes reads {VERSION}: "
                            "teach the camera again (bornes enroll --camera)")
    faces: dict[str, list[Image]] = {}
    checks: dict[str, list[Image]] = {}
    entries = document.get("kinds")
    if not isinstance(entries, dict):
        raise TemplateError(f"{index}: 'kinds' must be an object")
    for kind, roles in entries.items():
        if kind not in KINDS or not isinstance(roles, dict):
            raise TemplateError(f"{index}: unknown kind {kind!r}")
        for role, target in (("faces", faces), ("checks", checks)):
            for name in roles.get(role, []):
                image = cv2.imread(str(folder / str(name)), cv2.IMREAD_COLOR)
                if image is None:
                    raise TemplateError(f"{folder / str(name)} is missing or damaged: teach the camera again")
                target.setdefault(kind, []).append(as_image(image))
    alike = tuple(Lookalike(str(a), str(b), float(m)) for a, b, m in document.get("lookalikes", []))
    taught = Taught(faces, checks, tuple(document.get("read_back", [])), alike)
    if complete and taught.missing(kinds):
        raise TemplateError(f"the camera was not taught: {', '.join(taught.missing(kinds))} (bornes enroll --camera)")
    return taught


def from_folder(folder: str | os.PathLike[str], kinds: Sequence[str] | None = None) -> tuple[Taught, list[str]]:
    """``KIND.png`` / ``KIND-N.png`` (or JPEG) pictures of each kind (of ``kinds`` only, if given: every
    one of them must be there): the card is found in each (or the picture is taken whole when it is all
    card). With two or more pictures of a kind, the last is held back for the check. Returns the faces
    and one line per picture that could not be used."""
    wanted = tuple(kinds) if kinds else KINDS
    source = Path(folder)
    if not source.is_dir():
        raise TemplateError(f"{source} is not a folder")
    found: dict[str, list[tuple[int, Path]]] = {}
    problems: list[str] = []
    for path in sorted(source.iterdir()):
        match = _NAME.fullmatch(path.name)
        if match is None:
            continue
        kind = match.group(1).upper()
        if kind not in KINDS:
            problems.append(f"{path.name}: {kind} is not a kind code")
            continue
        if kind not in wanted:
            continue
        found.setdefault(kind, []).append((int(match.group(2) or 0), path))
    faces: dict[str, list[Image]] = {}
    checks: dict[str, list[Image]] = {}
    for kind in wanted:
        flat: list[Image] = []
        for _, path in sorted(found.get(kind, [])):
            read = cv2.imread(str(path), cv2.IMREAD_COLOR)
            image = None if read is None else as_image(read)
            corners = find_card(image) if image is not None else None
            if image is None or corners is None:
                problems.append(f"{path.name}: {'not a picture' if image is None else 'no card found in it'}")
                continue
            flat.append(flatten(image, corners))
        if len(flat) >= 2:
            faces[kind], checks[kind] = flat[:-1], flat[-1:]
        elif flat:
            faces[kind] = flat
    taught = Taught(faces, checks)
    missing = [kind for kind in wanted if not faces.get(kind)]
    if missing:
        raise TemplateError(f"{source}: no usable picture of {', '.join(missing)}"
                            + (f" ({'; '.join(problems)})" if problems else ""))
    return taught.checked(), problems
