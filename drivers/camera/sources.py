"""Where a camera's frames come from: a USB webcam, the Pi's camera module, or a folder (the twin).

Every source gives BGR pictures (numpy, uint8) with a name, one :meth:`FrameSource.frame` at a time,
at about ``fps`` a second; ``None`` means no frame yet (a folder waiting for more). A live camera's frame
was taken when it came (the camera process reads the clock); a recording says when each of its frames
was taken (``moment()``, in seconds from its start), however fast it is played. A source that
stops giving frames raises :class:`SourceLost` (the camera process says so and opens it again); one
that cannot work until a person acts raises :class:`SourceUnusable`.

* ``v4l2``: a UVC webcam through OpenCV's own V4L2 backend (``cv2.CAP_V4L2``). OpenCV is in this
  process already for the recognizer; its backend negotiates the format, decodes MJPEG and sizes the
  buffers, which a V4L2 library of its own would leave to us (and to a second dependency).
* ``picamera2``: the Pi's camera module through libcamera. Raspberry Pi OS ships it as
  ``python3-picamera2`` (install.sh lets the venv see it); it is imported only when this source is
  chosen, so nothing else ever needs it.
* ``folder``: the twin the tests and the emulator use. A folder of pictures, read in file-name order,
  and then any picture written into it later (write ``.name`` and rename it, so no half-written
  picture is read); or a video file. The pictures come at ``fps`` a second, as a camera's would. They
  are a recording at :data:`RECORDED_FPS` frames a second (a video, at its own rate): their moments are
  the recording's, so a test may play them faster than they were taken.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

#: A frame as OpenCV gives it: BGR, height x width x 3, 8 bits.
Image = NDArray[np.uint8]
PICTURES = (".png", ".jpg", ".jpeg")
#: The rate a folder of pictures was recorded at (``ffmpeg -r 10``, ``tools/camera_scenes.py``'s frames).
RECORDED_FPS = 10.0
VIDEOS = (".mp4", ".avi", ".mkv", ".mov", ".webm", ".mjpeg", ".mjpg")


class SourceError(Exception):
    """A source problem, in one line."""


class SourceLost(SourceError):
    """The source stopped giving frames (a webcam unplugged, a folder gone): open it again later."""


class SourceUnusable(SourceError):
    """The source cannot work as configured (picamera2 not installed, not a folder or video)."""


class FrameSource(Protocol):
    """One camera, opened by :meth:`open` and given back by :meth:`close` (safe to call twice)."""

    def open(self) -> str:
        """Open it; return what it is, for the log ("webcam /dev/video0, 640x480")."""
        ...

    def frame(self) -> tuple[str, Image | None] | None:
        """The next frame and its name (the picture None when it could not be decoded), or None for
        no frame yet. Waits for it at most about one frame's time."""
        ...

    def close(self) -> None: ...


class Pacer:
    """Lets a frame through at most ``fps`` times a second; sleeps the rest (the folder twin, a video)."""

    def __init__(self, fps: float, monotonic: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.interval = 1.0 / fps
        self.monotonic = monotonic
        self.sleep = sleep
        self._next: float | None = None

    def wait(self) -> None:
        """Sleep until the next frame is due (a slow frame is not made up for by a burst after it)."""
        now = self.monotonic()
        if self._next is not None and now < self._next:
            self.sleep(self._next - now)
            now = self._next
        self._next = now + self.interval

    def due(self) -> bool:
        """Whether a frame may go now (a live camera drops the others instead of sleeping)."""
        now = self.monotonic()
        if self._next is not None and now < self._next - self.interval * 0.1:
            return False
        self._next = now + self.interval
        return True


# -- a USB webcam --------------------------------------------------------------------------------------


class V4l2Source:
    """A UVC webcam: ``device`` is a node (``/dev/video0``, better a ``/dev/v4l/by-id/…`` name, which
    stays the same when it is plugged into another port)."""

    def __init__(self, device: str, width: int = 640, height: int = 480, fps: int = 10) -> None:
        self.device = device
        self.width, self.height = width, height
        self.fps = fps
        self.pacer = Pacer(fps)
        self._capture: Any = None
        self._checked = 0.0
        self.count = 0

    def open(self) -> str:
        path = self.device
        if not path.isdigit():
            try:
                mode = os.stat(path).st_mode
            except FileNotFoundError:
                raise SourceLost(f"no camera at {path} (unplugged?)") from None
            except OSError as error:
                raise SourceLost(f"{path}: {error.strerror}") from None
            if not stat.S_ISCHR(mode):
                raise SourceUnusable(f"{path} is not a video device")
            if not os.access(path, os.R_OK | os.W_OK):
                # Lost, not unusable: a webcam plugged in is root's alone until udev hands its node to the video
                # group, seconds later on a loaded machine (the kernel tier measured 2 to 9 s); given up on, it
                # would wait a minute and a restart. A user not in the group sees the same line until fixed.
                raise SourceLost(f"{path}: permission denied (is the user in the video group?)")
        capture = cv2.VideoCapture(int(path) if path.isdigit() else path, cv2.CAP_V4L2)
        if not capture.isOpened():
            capture.release()
            raise SourceLost(f"{path} does not open as a V4L2 camera")
        capture.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter.fourcc(*"MJPG"))  # 640x480 at 10+ fps on USB 2 everywhere
        capture.set(cv2.CAP_PROP_FRAME_WIDTH, self.width)
        capture.set(cv2.CAP_PROP_FRAME_HEIGHT, self.height)
        capture.set(cv2.CAP_PROP_FPS, self.fps)
        capture.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # the newest frame, not one queued a second ago
        self._capture = capture
        got = (int(capture.get(cv2.CAP_PROP_FRAME_WIDTH)), int(capture.get(cv2.CAP_PROP_FRAME_HEIGHT)))
        return f"webcam {path}, {got[0]}x{got[1]}"

    def frame(self) -> tuple[str, Image | None] | None:
        capture = self._capture
        if capture is None:
            raise SourceLost(f"{self.device} is closed")
        if not capture.grab():  # waits for the camera's next frame
            raise SourceLost(f"{self.device} gives no more frames (unplugged?)")
        now = time.monotonic()
        if now - self._checked >= 1.0:  # OpenCV may go on "grabbing" from a node that is gone
            self._checked = now
            if not self.device.isdigit() and not os.path.exists(self.device):
                raise SourceLost(f"{self.device} is gone (unplugged?)")
        if not self.pacer.due():
            return None  # the camera runs faster than the recognizer wants: drop this one, undecoded
        ok, image = capture.retrieve()
        self.count += 1
        return f"{self.count:06d}", image if ok else None

    def close(self) -> None:
        capture, self._capture = self._capture, None
        if capture is not None:
            capture.release()


# -- the Pi's camera module --------------------------------------------------------------------------


class PiCameraSource:
    """The Pi's camera module (CSI) through picamera2; ``device`` is the camera's number (``0``)."""

    def __init__(self, device: str = "0", width: int = 640, height: int = 480, fps: int = 10) -> None:
        self.device = device
        self.width, self.height = width, height
        self.fps = fps
        self._camera: Any = None
        self.count = 0

    def open(self) -> str:
        try:
            from picamera2 import Picamera2
        except ImportError as error:
            if error.name in ("picamera2", "libcamera"):
                raise SourceUnusable("picamera2 is not installed: sudo apt install python3-picamera2, then "
                                     "install.sh --camera (the venv sees the system's packages)") from None
            raise SourceUnusable(f"picamera2 does not load: {_one_line(error)}") from None
        except Exception as error:  # Debian's python3-simplejpeg built for numpy 1 (bookworm), beside numpy 2 here
            raise SourceUnusable(f"picamera2 does not load beside numpy {np.__version__} ({_one_line(error)}): on "
                                 "bookworm use a USB webcam, or Raspberry Pi OS trixie (docs/camera.md)") from None
        if not self.device.isdigit():
            raise SourceUnusable(f"camera.device = {self.device!r}: a Pi camera is a number (0, 1)")
        try:
            camera = Picamera2(int(self.device))
            frame_us = int(1_000_000 / self.fps)
            # libcamera's "RGB888" is B, G, R in memory: OpenCV's own order, no conversion.
            config = camera.create_video_configuration(main={"size": (self.width, self.height), "format": "RGB888"},
                                                       controls={"FrameDurationLimits": (frame_us, frame_us)},
                                                       buffer_count=2)
            camera.configure(config)
            camera.start()
        except Exception as error:  # libcamera's errors are RuntimeError, IndexError (no camera), OSError
            raise SourceLost(f"Pi camera {self.device}: {_one_line(error)}") from None
        self._camera = camera
        return f"Pi camera {self.device}, {self.width}x{self.height}"

    def frame(self) -> tuple[str, Image | None] | None:
        if self._camera is None:
            raise SourceLost(f"Pi camera {self.device} is closed")
        try:
            image = self._camera.capture_array("main")
        except Exception as error:
            raise SourceLost(f"Pi camera {self.device}: {_one_line(error)}") from None
        self.count += 1
        return f"{self.count:06d}", np.ascontiguousarray(image[:, :, :3])

    def close(self) -> None:
        camera, self._camera = self._camera, None
        if camera is not None:
            try:
                camera.stop()
            finally:
                camera.close()


# -- the twin: a folder of pictures, or a video file ---------------------------------------------------------


class FolderSource:
    """Pictures in file-name order, then any written later; or a video file. At ``fps`` a second."""

    def __init__(self, device: str, fps: int = 10, *, pace: bool = True, recorded: float = RECORDED_FPS) -> None:
        self.path = Path(device)
        self.fps = fps
        self.recorded = recorded
        self.pacer = Pacer(fps) if pace else None
        self._done: set[str] = set()
        self._queue: list[str] = []
        self._video: Any = None
        self._count = 0
        self._moment = 0.0

    def moment(self) -> float:
        """When the frame just given was taken, in seconds from the recording's start."""
        return self._moment

    def open(self) -> str:
        path = self.path
        if path.is_file() and path.suffix.lower() in VIDEOS:
            video = cv2.VideoCapture(str(path))
            if not video.isOpened():
                video.release()
                raise SourceUnusable(f"{path}: not a video OpenCV can read")
            self._video = video
            return f"video {path}"
        if not path.exists():
            raise SourceLost(f"no folder {path} (unplugged?)")
        if not path.is_dir():
            raise SourceUnusable(f"{path} is neither a folder of pictures nor a video ({', '.join(VIDEOS)})")
        return f"frames from {path}"

    def frame(self) -> tuple[str, Image | None] | None:
        if self.pacer is not None:
            self.pacer.wait()
        if self._video is not None:
            ok, image = self._video.read()
            if not ok:
                return None  # the end of the film: the camera looks at nothing more
            self._count += 1
            rate = float(self._video.get(cv2.CAP_PROP_FPS)) or self.recorded
            self._moment = (self._count - 1) / rate
            return f"{self._count:06d}", image
        if not self._queue:
            self._queue = self._new_pictures()
            if not self._queue:
                return None
        name = self._queue.pop(0)
        self._done.add(name)
        self._moment = self._count / self.recorded
        self._count += 1
        image = cv2.imread(str(self.path / name), cv2.IMREAD_COLOR)
        if image is None and not self.path.is_dir():
            raise SourceLost(f"the folder {self.path} is gone")
        return name, None if image is None else np.asarray(image, np.uint8)

    def _new_pictures(self) -> list[str]:
        try:
            names = os.listdir(self.path)
        except FileNotFoundError:
            raise SourceLost(f"the folder {self.path} is gone") from None
        except OSError as error:
            raise SourceLost(f"{self.path}: {error.strerror}") from None
        return sorted(n for n in names if not n.startswith(".") and n not in self._done
                      and os.path.splitext(n)[1].lower() in PICTURES)

    def close(self) -> None:
        video, self._video = self._video, None
        if video is not None:
            video.release()


def open_source(source: str, device: str, width: int = 640, height: int = 480, fps: int = 10) -> FrameSource:
    """The source a ``[camera]`` section names (not opened yet)."""
    if source == "v4l2":
        return V4l2Source(device, width, height, fps)
    if source == "picamera2":
        return PiCameraSource(device, width, height, fps)
    if source == "folder":
        return FolderSource(device, fps)
    raise SourceUnusable(f"unknown camera source {source!r}")


def _one_line(error: BaseException) -> str:
    text = str(error) or type(error).__name__
    return text.splitlines()[0][:160]
