"""The kernel tier's webcam, host side: the scenes it shows, and the table that plugs it, teaches and plays.

``guest/webcam.py`` is a UVC camera in the VM's user space, plugged into ``vhci-hcd`` over USB/IP
(its docstring says why not the kernel's f_uvc gadget): to the VM's kernel and to the referee it is
a USB webcam, ``/dev/video0`` through ``uvcvideo``, ``/dev/v4l/by-id/…`` through udev. What it films
is drawn here, on the host, with the generator of the camera's bench (``tools/camera_scenes.py``:
a felt table under its lamp, sensor noise, cards slid in and laid down): 640x480 JPEG frames and
*scenes* (JSON: frames played once, then frames cycled while the scene holds) written into a
folder the VM mounts read-only over 9p (tag ``webcam``, mounted without a cache: a scene written
after the boot is read as it is).

A scene holds until the next is asked for, as a person's hand waits: the table lays a card and
waits for the referee's line (or the enroller's "shot 1 of 3"), nudges it, takes it away. So the
run keeps pace with whatever the emulated CPU gives, and a card the camera never reads is a test
that times out, never a play silently skipped.
"""

from __future__ import annotations

import contextlib
import functools
import json
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from tools.camera_cards import KINDS
from tools.camera_scenes import FRAME_H, FRAME_W, Pose, Table, face_bgr, make_table, render
from tools.kernel.table import PYTHON, UNIT, KernelTable
from tools.kernel.vm import Image

Picture = NDArray[np.uint8]
SHARE_TAG = "webcam"
GUEST_SHARE = "/run/bornes-webcam"
GUEST_PROGRAM = "/opt/bornes-kernel/webcam.py"
#: udev's name for the camera (60-persistent-v4l.rules: usb-MANUFACTURER_PRODUCT_SERIAL-video-index0).
BY_ID = "/dev/v4l/by-id/usb-bornes_Kernel-tier_webcam_0001-video-index0"
#: JPEG quality of the frames: what a webcam's MJPEG encoder gives (20–30 kB a frame here).
QUALITY = 85
EDITION = "road"
STILL_FRAMES = 4  # renders of a still scene (sensor noise differs), cycled while it holds
ENROL_UNIT = "bornes-webcam-enroll.service"


# -- what the camera films ------------------------------------------------------------------------------


class Scenes:
    """Frames and scenes written into ``folder`` (the VM's ``webcam`` share): one table, one lamp, one seed."""

    def __init__(self, folder: Path, seed: int, edition: str = EDITION) -> None:
        self.folder = folder
        self.edition = edition
        self.rng = np.random.default_rng(seed)
        self.table: Table = make_table(self.rng, "felt")
        self.count = 0
        (folder / "frames").mkdir(parents=True, exist_ok=True)
        (folder / "scenes").mkdir(exist_ok=True)
        for width, height in ((1280, 720), (640, 480), (320, 240)):  # a size or format no scene is drawn in
            cv2.imwrite(str(folder / f"frames/grey-{width}x{height}.jpg"), np.full((height, width, 3), 128, np.uint8))
        self.empty = self.still([])
        self.scene("empty", [], self.empty)

    def _write(self, image: Picture) -> str:
        self.count += 1
        name = f"{self.count:05d}.jpg"
        if not cv2.imwrite(str(self.folder / "frames" / name), image, [cv2.IMWRITE_JPEG_QUALITY, QUALITY]):
            raise OSError(f"cannot write {self.folder / 'frames' / name}")
        return name

    def frames(self, images: Sequence[Picture]) -> list[str]:
        return [self._write(image) for image in images]

    def scene(self, name: str, once: Sequence[str], loop: Sequence[str]) -> str:
        data = json.dumps({"once": list(once), "loop": list(loop)})
        hidden = self.folder / "scenes" / f".{name}.json"
        hidden.write_text(data)
        hidden.replace(self.folder / "scenes" / f"{name}.json")  # the camera never reads half a scene
        return name

    def still(self, cards: Sequence[tuple[str, Pose]]) -> list[str]:
        """The table with these cards lying still, as several frames (the sensor's noise differs in each)."""
        laid = [(kind, self.edition, pose) for kind, pose in cards]
        return self.frames([render(self.table, self.rng, cards=laid) for _ in range(STILL_FRAMES)])

    def slide(self, kind: str, pose: Pose, steps: Sequence[float], dx: float) -> list[str]:
        """The card moving (blurred) through ``pose`` shifted by ``dx`` times each step."""
        card = (kind, self.edition)
        return self.frames([render(self.table, self.rng, cards=[(*card, pose.moved(dx * s, 0))], motion=(dx, 0),
                                   moving_cards=[0]) for s in steps])

    def pose(self) -> Pose:
        rng = self.rng
        return Pose(FRAME_W / 2 + rng.uniform(-50, 50), FRAME_H / 2 + rng.uniform(-30, 30), rng.uniform(0, 360), 220,
                    tuple(rng.uniform(-0.02, 0.02, 8)))

    def faces(self, folder: Path) -> None:
        """Each kind's printed face, flat (as a scan, or a phone held straight, gives it): ``folder/KIND.png``."""
        folder.mkdir(parents=True, exist_ok=True)
        for kind in KINDS:
            cv2.imwrite(str(folder / f"{kind}.png"), face_bgr(kind, self.edition))

    def teaching(self, kind: str, shots: int = 3) -> list[str]:
        """An owner teaching ``kind``: laid in the zone; nudged after each shot; taken away. One scene a step."""
        pose = self.pose()
        names = [self.scene(f"teach-{kind}-in", self.slide(kind, pose, (2, 1), 80), self.still([(kind, pose)]))]
        for shot in range(1, shots):
            moved = pose.moved(self.rng.uniform(-20, 20), self.rng.uniform(-15, 15), self.rng.uniform(-15, 15))
            nudge = self.frames([render(self.table, self.rng, cards=[(kind, self.edition, moved)], motion=(10, 0),
                                        moving_cards=[0])])
            pose = moved
            names.append(self.scene(f"teach-{kind}-nudge-{shot}", nudge, self.still([(kind, pose)])))
        names.append(self.scene(f"teach-{kind}-out", self.slide(kind, pose, (1, 2, 3), -90), self.empty))
        return names

    def play(self, number: int, kind: str) -> Play:
        """A card played: slid in and laid down (``in``), or found lying there (``still``: laid while the camera
        was away), then slid out (``out``)."""
        pose = self.pose()
        lying = self.still([(kind, pose)])
        return Play(kind, self.scene(f"play-{number}-in", self.slide(kind, pose, (3, 2, 1), 70), lying),
                    self.scene(f"play-{number}-still", [], lying),
                    self.scene(f"play-{number}-out", self.slide(kind, pose, (1, 2, 3), -90), self.empty))


@dataclass(frozen=True)
class Play:
    kind: str
    laid: str
    lying: str
    taken: str


@contextlib.contextmanager
def share() -> Iterator[Path]:
    """A folder for the VM's ``webcam`` share, deleted afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="bornes-webcam-", dir="/var/tmp"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# -- the table with the webcam ----------------------------------------------------------------------------


def camera_config(device: str | None = BY_ID) -> str:
    """``[camera]`` for the webcam: by its by-id name, as docs/camera.md advises, or (None) the default device,
    ``/dev/video0``; the templates in the state folder (the default)."""
    return '[camera]\nsource = "v4l2"\n' + (f'device = "{device}"\n' if device else "")


def taught_from_pictures(scenes: Scenes, config: str) -> Callable[[Image], None]:
    """``open_table``'s ``prepare``: ``bornes enroll --camera --pictures`` run in the image before it boots (at the
    host's speed, as the referee's user), with every kind's flat face: the deck the live teaching adds to."""

    def prepare(image: Image) -> None:
        scenes.faces(image.root / "var/cache/bornes-webcam-faces")
        (image.root / "etc/bornes/webcam-pictures.toml").write_text(config)
        # The state folder is made by systemd as the service first starts (StateDirectory=): here, before any boot.
        image.nspawn("sh", "-c", "install -d -o bornes -g bornes -m 0750 /var/lib/bornes && exec setpriv "
                     f"--reuid=bornes --regid=bornes --init-groups {PYTHON} -m bornes.firmware.cli enroll --camera "
                     "--config /etc/bornes/webcam-pictures.toml --pictures /var/cache/bornes-webcam-faces",
                     what="bornes enroll --camera --pictures in the image")

    return prepare


@dataclass
class WebcamTable(KernelTable):
    """The kernel tier's table with the webcam program running in the VM (``webcam`` share mounted)."""

    scenes: Scenes | None = None
    program: str = GUEST_PROGRAM
    game: WebcamGame | None = None
    booted: float = 0.0  # time.monotonic() when the VM was up

    def start_webcam(self, scenes: Scenes) -> None:
        """Load vhci-hcd and uvcvideo (the root has no modprobe: systemd-modules-load, with libkmod, does it),
        mount the share, start the camera's program; nothing plugged yet."""
        self.scenes = scenes
        self.vm.run("sh", "-c", "printf 'vhci-hcd\\nuvcvideo\\n' > /run/bornes-webcam-modules.conf && "
                    "/usr/lib/systemd/systemd-modules-load /run/bornes-webcam-modules.conf && "
                    f"mkdir -p {GUEST_SHARE} && mount -t 9p -o trans=virtio,version=9p2000.L,ro {SHARE_TAG} "
                    f"{GUEST_SHARE}", timeout=120)
        self.camera("show empty")

    def camera(self, command: str) -> dict[str, Any]:
        """One command to the camera's program (``plug``, ``unplug``, ``show SCENE``, ``status``), its answer."""
        answer = json.loads(self.vm.helper("webcam", ["python3", self.program, GUEST_SHARE], command))
        if "error" in answer:
            raise AssertionError(f"the webcam: {answer['error']}")
        return dict(answer)

    def status(self) -> dict[str, Any]:
        return self.camera("status")

    def show(self, scene: str) -> None:
        self.camera(f"show {scene}")

    def sent_in_scene(self) -> int:
        return int(self.status()["sent in scene"])

    def hold(self, frames: int, timeout: float = 60.0) -> None:
        """Until the camera has streamed ``frames`` frames of the current scene (the host reading them)."""
        deadline = time.monotonic() + timeout
        while (sent := self.sent_in_scene()) < frames:
            if time.monotonic() > deadline:
                raise AssertionError(f"the webcam streamed {sent} of {frames} frames in {timeout:.0f} s: "
                                     f"{self.status()}")
            time.sleep(0.5)

    def plug_webcam(self, timeout: float = 60.0) -> str:
        """Plug the camera in; wait for udev's by-id link to its capture node; return the node."""
        self.camera("plug")
        deadline = time.monotonic() + timeout
        while True:
            done = self.vm.run("readlink", "-e", BY_ID, check=False)
            if done.rc == 0:
                return done.stdout.strip()
            if time.monotonic() > deadline:
                raise AssertionError(f"{BY_ID} did not appear in {timeout:.0f} s: {self.status()}")
            time.sleep(0.5)

    def unplug_webcam(self) -> None:
        self.camera("unplug")

    # -- teaching ---------------------------------------------------------------------------------------------

    def enrol(self, kinds: Sequence[str], *, timeout: float = 120.0) -> list[str]:
        """``bornes enroll --camera --kind …`` as a person runs it (the referee's user, the service stopped),
        with the cards shown as it asks: laid, nudged after each shot, taken away. Returns its lines."""
        assert self.scenes is not None
        steps = {kind: self.scenes.teaching(kind) for kind in kinds}
        self.show("empty")
        self.vm.run("systemctl", "stop", UNIT, timeout=60)
        reader = Follower(self, ENROL_UNIT)
        self.vm.run("systemd-run", f"--unit={ENROL_UNIT}", "--collect", "--quiet", "--setenv=LANG=C.UTF-8", "setpriv",
                    "--reuid=bornes", "--regid=bornes", "--init-groups", PYTHON, "-m", "bornes.firmware.cli", "enroll",
                    "--camera", "--config", "/etc/bornes/config.toml", *(f"--kind={kind}" for kind in kinds))
        marks = [(time.monotonic(), self.vm.cpu_seconds())]
        # Its camera process opens the webcam (numpy and OpenCV imported: seconds under TCG) and learns the empty
        # zone from its first still frames; only then does it ask for the first card, and a person lays it at once.
        reader.expect(f"of {len(kinds)}: lay it in the zone", timeout)
        marks.append((time.monotonic(), self.vm.cpu_seconds()))
        for number, kind in enumerate(kinds, 1):
            scene_in, *nudges, scene_out = steps[kind]
            if number > 1:
                reader.expect(f"({kind}), {number} of {len(kinds)}", timeout)
            self.show(scene_in)
            for shot, nudge in enumerate(nudges, 1):
                reader.expect(f"shot {shot} of {len(nudges) + 1} (nudge", timeout)
                self.show(nudge)
            reader.expect(f"shot {len(nudges) + 1} of {len(nudges) + 1}: take it away", timeout)
            self.show(scene_out)
        marks.append((time.monotonic(), self.vm.cpu_seconds()))
        # The check reads the held-back shots with the whole deck, built twice more as it is saved and loaded
        # again: the longest wait of the teaching under TCG.
        reader.expect("Taught:", 3 * timeout)
        self.wait("bornes enroll to end", lambda: self.vm.run("systemctl", "is-active", ENROL_UNIT,
                                                              check=False).stdout.strip() != "active", timeout)
        marks.append((time.monotonic(), self.vm.cpu_seconds()))
        for (begun, cpu), (ended, cpu_after), step in zip(marks[:-1], marks[1:], ("its camera open", "the shots",
                                                                                 "the check, saved"), strict=True):
            self.figures[f"enrol, {step}: seconds"] = ended - begun
            self.figures[f"enrol, {step}: qemu CPU s"] = cpu_after - cpu
        return reader.lines

    def frames_sent(self) -> int:
        return int(self.status()["frames sent"])


class Follower:
    """A unit's journal lines from now on, read in order: :meth:`expect` waits for the next line holding a text."""

    def __init__(self, table: KernelTable, unit: str) -> None:
        self.table, self.unit = table, unit
        self.first = len(table.vm.journal(unit))
        self.lines: list[str] = []
        self.cursor = 0

    def expect(self, text: str, timeout: float = 60.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            for index in range(self.cursor, len(self.lines)):
                if text in self.lines[index]:
                    self.cursor = index + 1
                    return self.lines[index]
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {text!r} from {self.unit} in {timeout:.0f} s; it said:\n" +
                                     "\n".join(self.lines[-12:]))
            self.lines += self.table.vm.journal(self.unit, since=self.first + len(self.lines), wait=min(2.0, left))


#: The referee's line for a card the camera could not make out ("Not clear: show it again").
CAMERA_REFUSED = "bornes: input camera-unsure"
#: A card shown this many times at most: the referee asks again after each "not clear", as a player would.
SHOWN_AT_MOST = 3


class WebcamGame:
    """A game played with the webcam: cards shown to it, the table's OK scanned (``MB-CMD-OK``) on a scanner."""

    def __init__(self, table: WebcamTable, plays: Sequence[str], *, scanner: str = "scanner") -> None:
        assert table.scenes is not None
        self.table = table
        self.scanner = scanner
        self.plays = [table.scenes.play(number, kind) for number, kind in enumerate(plays, 1)]
        self.done = 0
        self.latencies: list[float] = []  # seconds from the card laid to the referee's line

    def start(self) -> None:
        """The configured table's summary: OK until the referee says the game is on."""
        for _ in range(4):
            said = self.table.tap(self.scanner, "MB-CMD-OK")[-1]
            if said.endswith(": accepted"):
                return
        raise AssertionError(f"OK did not start the game: {self.table.journal()[-6:]}")

    def lay(self, *, while_away: bool = False, timeout: float = 120.0) -> str:
        """Lay the next card (slid in, or found lying there: laid while the camera was unplugged) and wait for the
        referee's play; returns the play's notation. The card stays until :meth:`take`."""
        play = self.plays[self.done]
        accepted = len(self.table.accepted())
        started = time.monotonic()
        scene = play.lying if while_away else play.laid
        for _ in range(SHOWN_AT_MOST):
            refused = self.table.count(CAMERA_REFUSED)
            self.table.show(scene)
            self.table.wait(f"the referee's play of the card {play.kind} (play {self.done + 1})",
                            functools.partial(self._played_or_refused, accepted, refused), timeout)
            if len(self.table.accepted()) > accepted:
                break
            # "Not clear: show it again": as a player does, the card taken away and laid again.
            self.table.figures["cards shown again"] = self.table.figures.get("cards shown again", 0.0) + 1
            self.table.show(play.taken)
            self.table.hold(20)
            scene = play.laid
        else:
            raise AssertionError(f"{play.kind} refused {SHOWN_AT_MOST} times: {self.table.journal()[-8:]}")
        self.latencies.append(time.monotonic() - started)
        self.done += 1
        return self.table.accepted()[-1]

    def _played_or_refused(self, accepted: int, refused: int) -> bool:
        return len(self.table.accepted()) > accepted or self.table.count(CAMERA_REFUSED) > refused

    def take(self, empty_frames: int = 20) -> None:
        """Take the card away, and leave the zone empty for ``empty_frames`` frames (the camera sees it empty)."""
        self.table.show(self.plays[self.done - 1].taken)
        self.table.hold(empty_frames)
