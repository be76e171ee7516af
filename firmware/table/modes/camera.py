"""Teaching the camera from the panel: the owner shows each kind when asked; BACK stops, OK leaves at the end.

The camera's own process does the teaching (drivers/camera/service.py, the same code as ``bornes
enroll --camera``) and sends its news as ``CameraTeaching`` events; this mode keeps what the panel
shows. A chirp for each shot taken and a call for each new kind, so the owner, eyes on the cards,
need not read the panel. Stopping keeps the camera's old templates.
"""

from __future__ import annotations

from bornes.drivers.events import CameraTeaching
from bornes.engine import CardKind
from bornes.firmware.language.i18n import _
from bornes.firmware.table.core import MenuState, Mode, ModeHandler, Outcome, SetupStep, Sound, TableCore, TeachState

#: Every kind, in the order an owner is asked for them (the labels' KIND codes).
KIND_CODES: tuple[str, ...] = tuple(kind.value for kind in CardKind)


def start_teaching(table: TableCore) -> Outcome:
    """The main menu's "Teach the camera": ask the camera, and show what it asks for."""
    camera = table.camera
    if camera is None or not camera.teach(KIND_CODES):
        return table.refuse(_("The camera is not running: see the reader status"), "camera-off",
                            short=(_("Camera not running"),))
    table.ui.mode = Mode.CAMERA_TEACH
    table.ui.teach = TeachState(total=len(KIND_CODES))
    return table.prompt(_("Teaching the camera: show each card when asked"), Sound.ATTENTION,
                        short=(_("Teaching the camera"),))


def teaching_news(table: TableCore, event: CameraTeaching) -> Outcome:
    """One piece of news from the camera's teaching (stale news after BACK changes nothing)."""
    ui = table.ui
    if ui.mode is not Mode.CAMERA_TEACH or ui.teach.done:
        return table.ignored()
    teach = ui.teach
    if event.step == "show":
        ui.teach = TeachState(kind=event.kind, index=event.index, total=event.total, shots=teach.shots)
        return table.prompt(sound=Sound.ATTENTION)
    if event.step == "shot":
        teach.shot, teach.shots, teach.no_card = event.index, event.total, False
        return table.prompt(sound=Sound.ACCEPT)
    if event.step == "no-card":
        teach.no_card = True
        return table.prompt(sound=Sound.REFUSE)
    teach.done = True
    if event.step == "taught":
        teach.read, teach.taught, teach.alike = event.index, event.total, event.alike
        return table.prompt(sound=Sound.HAND_END)
    teach.failed = event.detail or _("the camera could not keep it")
    return table.prompt(sound=Sound.REFUSE)


class TeachMode(ModeHandler):
    """BACK stops the teaching (the camera keeps what it knew); OK, once taught, goes back to the menu."""

    def button(self, name: str, long: bool) -> Outcome:
        teach = self.ui.teach
        if name == "BACK" and not teach.done:
            if self.table.camera is not None:
                self.table.camera.watch()
            self._leave()
            return self.table.prompt(_("Teaching stopped: the camera keeps what it knew"),
                                     short=(_("Teaching stopped"),))
        if name in ("OK", "BACK") and teach.done:
            self._leave()
            return self.table.prompt()
        return self.table.ignored()

    def _leave(self) -> None:
        ui = self.ui
        ui.mode = Mode.SETUP
        ui.menu = MenuState(SetupStep.MAIN, 3)
