"""Teaching the camera the deck's faces from a terminal (``bornes enroll --camera``; docs/camera.md).

The owner lays each kind in the play zone when asked and takes the hand away; the camera takes three
still shots (nudge the card a little between them), then asks for the next kind. At the end it reads
every kind back with the shot it held back, keeps the faces in the state folder with a version, and
names the kinds that look alike to it: show those again with ``--kind``. The same camera process
code runs the panel's teaching (``drivers/camera/service.py``), so both teach alike.

Photos work too (``--pictures``: ``KIND.jpg`` or ``KIND-N.jpg``), and ``--snapshot`` saves one picture
with the play zone drawn, to aim the camera and choose the zone. Every line goes through ``_()``:
a French table is taught in French.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bornes.drivers.camera.wire import Back, CameraSettings, Lost, Message, Teaching, Unusable
from bornes.drivers.errors import EX_DATAERR, EX_UNAVAILABLE, UserError
from bornes.engine import CardKind
from bornes.firmware.language.i18n import _
from bornes.firmware.language.words import card_name

#: Where the lines go (print, or a test's list).
Say = Callable[[str], None]
#: The kind codes, in the order an owner is asked for them (the labels' KIND field).
KIND_CODES: tuple[str, ...] = tuple(kind.value for kind in CardKind)


def _import_camera() -> None:
    try:
        import cv2  # noqa: F401
    except ImportError as error:
        raise UserError(_("The camera needs numpy and OpenCV ({name} is missing): install.sh --camera, or "
                          "pip install 'bornes[camera]'").format(name=error.name), EX_UNAVAILABLE) from None


def check_kinds(kinds: Sequence[str]) -> list[str]:
    """``--kind`` codes, upper-cased and checked: one line naming the first that is no kind."""
    chosen = [kind.strip().upper() for kind in kinds]
    for kind in chosen:
        if kind not in KIND_CODES:
            raise UserError(_("{kind} is not a kind code; the kinds are {kinds}").format(
                kind=kind, kinds=", ".join(KIND_CODES)), EX_DATAERR)
    return list(dict.fromkeys(chosen))


def alike_line(pairs: Sequence[tuple[str, str]], edition: str) -> str:
    """The kinds that look alike, by name, and the command that shows them again."""
    named = ", ".join(f"{card_name(a, edition)} / {card_name(b, edition)}" for a, b in pairs)
    kinds = " ".join(f"--kind {k}" for k in dict.fromkeys(k for pair in pairs for k in pair))
    return _("These kinds look alike to the camera: {pairs}. Show them again, in an even light: "
             "bornes enroll --camera {kinds}").format(pairs=named, kinds=kinds)


def _taught_lines(news: Teaching, edition: str) -> list[str]:
    lines = [_("Taught: {read} of {total} kinds read back with the shots held back.").format(
        read=news.index, total=news.total)]
    if news.alike:
        lines.append(alike_line(news.alike, edition))
    elif news.index == news.total:
        lines.append(_("The camera is ready: every kind it was taught reads back."))
    return lines


def teaching_line(news: Teaching, edition: str) -> list[str]:
    """What a person reads for one piece of teaching news."""
    if news.step == "show":
        return [_("Show {card} ({code}), {index} of {total}: lay it in the zone and take your hand away.").format(
            card=card_name(news.kind or "", edition), code=news.kind, index=news.index, total=news.total)]
    if news.step == "shot":
        if news.index < news.total:
            return [_("  shot {index} of {total} (nudge the card a little)").format(index=news.index,
                                                                                  total=news.total)]
        return [_("  shot {index} of {total}: take it away").format(index=news.index, total=news.total)]
    if news.step == "no-card":
        return [_("  No card found in that picture: one card, flat, nothing over it.")]
    if news.step == "taught":
        return _taught_lines(news, edition)
    return [_("Not taught: {detail}").format(detail=news.detail)]


def teach_live(settings: CameraSettings, kinds: Sequence[str], edition: str, say: Say,
               seconds: float | None = None) -> int:
    """Teach from the live camera (or its folder twin) until every kind is shown; 0 when taught."""
    _import_camera()
    from bornes.drivers.camera.service import CameraService

    outcome: list[Teaching | Unusable] = []

    def report(message: Message) -> None:
        if isinstance(message, Teaching):
            for line in teaching_line(message, edition):
                say(line)
            if message.step in ("taught", "failed"):
                outcome.append(message)
                service.stop()
        elif isinstance(message, Lost):
            say(_("Camera: {detail}").format(detail=message.detail))
        elif isinstance(message, Back) and not outcome:
            say(_("Camera: {source}").format(source=message.source))
        elif isinstance(message, Unusable):
            outcome.append(message)
            say(_("Camera: {detail}").format(detail=message.detail))

    service = CameraService(settings, report, teach=kinds)
    if seconds is not None:
        timer = threading.Timer(seconds, service.stop)
        timer.daemon = True
        timer.start()
    try:
        service.run()
    except KeyboardInterrupt:
        say(_("Stopped: the camera keeps what it was taught before."))
        return 130
    if not outcome:
        say(_("Stopped before every kind was shown: the camera keeps what it was taught before."))
        return 1
    last = outcome[-1]
    if isinstance(last, Unusable):
        return EX_UNAVAILABLE
    return 0 if last.step == "taught" else 1


def teach_pictures(settings: CameraSettings, folder: str, kinds: Sequence[str], edition: str, say: Say) -> int:
    """Teach from photos: ``KIND.jpg`` / ``KIND-N.jpg`` (PNG too), the last of each kind held back for the check."""
    _import_camera()
    from bornes.drivers.camera.templates import TemplateError, from_folder, load, save

    try:
        taught, problems = from_folder(folder, kinds=kinds or None)
    except TemplateError as error:
        raise UserError(str(error), EX_DATAERR) from None
    for problem in problems:
        say(_("  not used: {problem}").format(problem=problem))
    try:
        earlier = load(settings.templates, complete=False)
    except TemplateError:
        earlier = None
    whole = earlier.merged(taught) if earlier is not None else taught
    save(settings.templates, whole)
    say(_("Kept in {folder}.").format(folder=settings.templates))
    for line in _taught_lines(Teaching("taught", index=len(whole.read_back), total=len(whole.faces),
                                       alike=tuple(whole.alike_pairs())), edition):
        say(line)
    missing = whole.missing()
    if missing:
        say(_("Still to teach: {kinds}").format(kinds=", ".join(missing)))
        return 1
    return 0


def describe(settings: CameraSettings, edition: str) -> list[str]:
    """``--list``: what the camera was taught, kind by kind, and when."""
    _import_camera()
    from bornes.drivers.camera.index import KINDS
    from bornes.drivers.camera.templates import TemplateError, load

    try:
        taught = load(settings.templates, complete=False)
    except TemplateError as error:
        return [str(error)]
    index = Path(settings.templates) / "templates.json"
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(index.stat().st_mtime))
    lines = [_("Taught {when}, kept in {folder}:").format(when=when, folder=settings.templates)]
    for kind in KINDS:
        shots = len(taught.faces.get(kind, ())) + len(taught.checks.get(kind, ()))
        state = _("read back") if kind in taught.read_back else _("not read back") if shots else _("not taught")
        lines.append(f"  {kind:<14} {card_name(kind, edition):<22} {shots}  {state}")
    if taught.alike_pairs():
        lines.append(alike_line(taught.alike_pairs(), edition))
    return lines


def snapshot(settings: CameraSettings, out: str) -> str:
    """One picture from the camera with the play zone drawn on it; returns what was saved."""
    _import_camera()
    import cv2

    from bornes.drivers.camera.sources import SourceError, open_source

    source = open_source(settings.source, settings.device, settings.width, settings.height, settings.fps)
    try:
        described = source.open()
        deadline = time.monotonic() + 5.0
        got = None
        while got is None or got[1] is None:
            if time.monotonic() > deadline:
                raise UserError(_("Camera: no picture within 5 seconds from {source}").format(source=described),
                                EX_UNAVAILABLE)
            got = source.frame()
    except SourceError as error:
        raise UserError(_("Camera: {detail}").format(detail=error), EX_UNAVAILABLE) from None
    finally:
        source.close()
    image = got[1]
    height, width = image.shape[:2]
    if settings.zone:
        x, y, w, h = settings.zone
        cv2.rectangle(image, (x, y), (x + w - 1, y + h - 1), (0, 0, 255), 2)
    if not cv2.imwrite(out, image):
        raise UserError(_("Cannot write {file} (a .jpg or .png name?)").format(file=out), EX_DATAERR)
    return _("{file}: {width}x{height} from {source}").format(file=out, width=width, height=height, source=described)
