"""A USB webcam for the kernel tier: a UVC 1.1 camera in user space, plugged into ``vhci-hcd`` over USB/IP.

Why USB/IP and not the kernel's own UVC gadget (configfs ``f_uvc``) on ``dummy_hcd``: f_uvc streams
only on an isochronous endpoint (6.12's f_uvc.c has no bulk option: its configfs attributes are
``streaming_interval``, ``streaming_maxpacket``, ``streaming_maxburst``), and neither of the kernel's
emulated device controllers carries isochronous transfers (``dummy_hcd.c``'s ``dummy_timer`` fails
every ISO URB, "We don't support isochronous"; ``usbip-vudc``'s ``v_timer`` answers -EXDEV, "TODO:
support"). So the gadget enumerates but never streams. ``vhci-hcd`` is a real host controller whose
far side is a socket: this program is the device at the far end, as ``usbipd`` would be for a
camera on another machine, and the host side is exactly a webcam's (hub, ``usb_id``, ``uvcvideo``,
``/dev/videoN``, udev's ``/dev/v4l/by-id`` name). The stream goes over a **bulk** endpoint, as UVC
allows and ``uvcvideo`` handles (``uvc_video_decode_bulk``): one payload a frame, a 2-byte payload
header (FID toggled each frame, EOF set) and the frame after it, cut into the URBs the host queues.

What it shows: 640x480 MJPEG frames made on the host (tools/kernel/webcam.py draws them with
tools/camera_scenes.py) in a folder shared read-only over 9p. A *scene* is a JSON file naming frames
played once and frames cycled after them (a card lying still under sensor noise), so a scene holds
until the next one is asked for, as a person's hand waits for the next prompt. Like a C270 it offers
uncompressed YUYV first (the default) and MJPEG, and several sizes: what the host negotiates is
logged, and a format or size it has no scene for is streamed as a grey picture.

USB/IP itself (the socket handed to ``attach``, the URBs, unlinks, standard requests) is the kernel
tier's one device server, ``usbip.py``, shared with the I2C bridge: this file is the camera's
descriptors, its class requests and its stream. Sources: the UVC 1.1 specification (descriptors,
probe and commit controls, payload headers) and how uvcvideo reads them (drivers/media/usb/uvc:
uvc_driver.c's parsing, uvc_video.c's probe, bulk decoding and end-of-payload rule). Written here;
no code copied.

Run by the agent as a helper (trixie's python3, standard library only), one command a line on
standard input, one line of JSON answered on standard output:

    plug            attach the camera to a free high-speed port of vhci_hcd.0 (the host enumerates it)
    unplug          detach it (the host sees it leave; the stream stops mid-frame, as a cable pulled)
    show NAME       play the scene SHARE/scenes/NAME.json from its start (frames advance one a frame sent)
    status          what the camera did: frames sent, scene and where in it, formats committed, URBs …
"""

from __future__ import annotations

import json
import os
import struct
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

if TYPE_CHECKING or __package__:  # the checkout's tools.kernel.guest.*; in the VM, beside this file
    from tools.kernel.guest.usbip import (
        CLEAR_FEATURE,
        PENDING,
        SPEED_HIGH,
        Device,
        Link,
        Setup,
        Stall,
        Urb,
        _Pending,
        attach,
    )
else:
    from usbip import CLEAR_FEATURE, PENDING, SPEED_HIGH, Device, Link, Setup, Stall, Urb, attach

SHARE = Path(sys.argv[1] if len(sys.argv) > 1 and not __package__ else "/run/bornes-webcam")

# -- the device -----------------------------------------------------------------------------------------

VENDOR, PRODUCT, BCD_DEVICE = 0x1D6B, 0x0104, 0x0100  # Linux Foundation "Multifunction Composite Gadget"
STRINGS = {1: "bornes", 2: "Kernel-tier webcam", 3: "0001"}
STREAM_EP = 0x81
BULK_PACKET = 512
HEADER_LEN = 2  # the payload header: bHeaderLength, bmHeaderInfo
FID, EOF, EOH = 0x01, 0x02, 0x80
YUYV_GUID = bytes.fromhex("5955593200001000800000aa00389b71")  # 'YUY2' in the UVC GUID form
#: What the camera offers: (format name, [(width, height), ...]); index 1 first, as in its descriptors.
FORMATS = (("YUYV", ((640, 480), (320, 240))), ("MJPG", ((1280, 720), (640, 480), (320, 240))))
INTERVALS = (333333, 666666, 1000000, 2000000)  # 30, 15, 10 and 5 frames a second, in 100 ns
DEFAULT_INTERVAL = 333333
CLOCK = 48_000_000
PROBE = struct.Struct("<HBBIHHHHHIIIBBBB")  # the UVC 1.1 video probe and commit control: 34 bytes


def _descriptor(kind: int, body: bytes) -> bytes:
    return bytes([len(body) + 2, kind]) + body


def _cs(subtype: int, body: bytes, kind: int = 0x24) -> bytes:
    """A class-specific (CS_INTERFACE) descriptor."""
    return bytes([len(body) + 3, kind, subtype]) + body


def device_descriptor() -> bytes:
    # bcdUSB 2.0; class 0xEF/2/1: the functions are told by an interface association (UVC asks for it)
    return _descriptor(1, struct.pack("<HBBBBHHHBBBB", 0x0200, 0xEF, 0x02, 0x01, 64, VENDOR, PRODUCT, BCD_DEVICE,
                                      1, 2, 3, 1))


def _frame_size(format_index: int, frame_index: int) -> tuple[int, int]:
    return FORMATS[format_index - 1][1][frame_index - 1]


def max_frame_bytes(format_index: int, frame_index: int) -> int:
    width, height = _frame_size(format_index, frame_index)
    return width * height * 2  # YUYV's exact size; an MJPEG frame's bound


def config_descriptor() -> bytes:
    """One configuration: the interface association, VideoControl (a camera terminal straight to the
    streaming output terminal), VideoStreaming (YUYV and MJPEG, three sizes, four rates) on a bulk IN endpoint."""
    control = _cs(0x02, struct.pack("<BHBBHHHB3s", 1, 0x0201, 0, 0, 0, 0, 0, 3, bytes(3)))  # input: camera
    control += _cs(0x03, struct.pack("<BHBBB", 2, 0x0101, 0, 1, 0))  # output terminal 2: USB streaming, from 1
    header = _cs(0x01, struct.pack("<HHIBB", 0x0110, 13 + len(control), CLOCK, 1, 1))
    video_control = _descriptor(4, bytes([0, 0, 0, 0x0E, 0x01, 0x00, 0])) + header + control
    formats = b""
    for index, (name, sizes) in enumerate(FORMATS, 1):
        if name == "YUYV":
            formats += _cs(0x04, struct.pack("<BB16sBBBBBB", index, len(sizes), YUYV_GUID, 16, 1, 0, 0, 0, 0))
        else:
            formats += _cs(0x06, struct.pack("<BBBBBBBB", index, len(sizes), 0, 1, 0, 0, 0, 0))
        for frame, (width, height) in enumerate(sizes, 1):
            size = width * height * 2
            formats += _cs(0x05 if name == "YUYV" else 0x07, struct.pack(
                f"<BBHHIIIIB{len(INTERVALS)}I", frame, 0, width, height, size * 8 * 5, size * 8 * 30, size,
                DEFAULT_INTERVAL, len(INTERVALS), *INTERVALS))
    formats += _cs(0x0D, bytes([1, 1, 4]))  # colour matching: BT.709 primaries, its transfer, SMPTE 170M matrix
    input_header = _cs(0x01, struct.pack("<BHBBBBBBB", len(FORMATS), 0, STREAM_EP, 0, 2, 0, 0, 0, 1)
                       + bytes(len(FORMATS)))
    input_header = input_header[:4] + struct.pack("<H", len(input_header) + len(formats)) + input_header[6:]
    endpoint = _descriptor(5, struct.pack("<BBHB", STREAM_EP, 0x02, BULK_PACKET, 0))
    streaming = _descriptor(4, bytes([1, 0, 1, 0x0E, 0x02, 0x00, 0])) + input_header + formats + endpoint
    association = _descriptor(11, bytes([0, 2, 0x0E, 0x03, 0x00, 2]))
    body = association + video_control + streaming
    return _descriptor(2, struct.pack("<HBBBBB", 9 + len(body), 2, 1, 0, 0x80, 250)) + body


# -- probe and commit ---------------------------------------------------------------------------------------


def nearest_interval(asked: int) -> int:
    return DEFAULT_INTERVAL if asked == 0 else min(INTERVALS, key=lambda i: abs(i - asked))


def negotiated(asked: bytes) -> bytes:
    """The device's answer to a probe (or commit) it was sent: a format and size it has, a rate it keeps."""
    fields = list(PROBE.unpack(asked.ljust(PROBE.size, b"\0")[:PROBE.size]))
    format_index = fields[1] if 1 <= fields[1] <= len(FORMATS) else 1
    frame_index = fields[2] if 1 <= fields[2] <= len(FORMATS[format_index - 1][1]) else 1
    size = max_frame_bytes(format_index, frame_index)
    fields[1], fields[2], fields[3] = format_index, frame_index, nearest_interval(fields[3])
    fields[9], fields[10], fields[11] = size, size + HEADER_LEN, CLOCK  # a frame is one payload
    fields[12], fields[13], fields[14], fields[15] = 0x03, 1, 1, 1  # FID and EOF used; payload version 1
    return PROBE.pack(*fields)


DEFAULT_PROBE = negotiated(PROBE.pack(0, 1, 1, DEFAULT_INTERVAL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))


def describe(control: bytes) -> dict[str, Any]:
    fields = PROBE.unpack(control)
    width, height = _frame_size(fields[1], fields[2])
    return {"format": FORMATS[fields[1] - 1][0], "width": width, "height": height, "fps": round(1e7 / fields[3], 2)}


# -- the scenes -------------------------------------------------------------------------------------------


class Scene:
    """Frames played once, then frames cycled (a still scene's sensor noise) until the next scene."""

    def __init__(self, name: str, once: list[str], loop: list[str]) -> None:
        self.name, self.once, self.loop = name, once, loop or once[-1:]
        self.sent = 0

    @classmethod
    def load(cls, name: str) -> Scene:
        data = json.loads((SHARE / "scenes" / f"{name}.json").read_text())
        return cls(name, list(data.get("once", [])), list(data.get("loop", [])))

    def next_name(self) -> str:
        at = self.sent
        self.sent += 1
        if at < len(self.once):
            return self.once[at]
        return self.loop[(at - len(self.once)) % len(self.loop)]


class Frames:
    """The frame files, read once each from the share (a few hundred kilobytes in all)."""

    def __init__(self) -> None:
        self._cache: dict[str, bytes] = {}

    def get(self, name: str) -> bytes:
        data = self._cache.get(name)
        if data is None:
            data = self._cache[name] = (SHARE / "frames" / name).read_bytes()
        return data

    def grey(self, control: dict[str, Any]) -> bytes:
        """What the camera streams for a format or size no scene is drawn in: a grey picture."""
        if control["format"] == "YUYV":
            return b"\x80" * (int(control["width"]) * int(control["height"]) * 2)
        return self.get(f"grey-{control['width']}x{control['height']}.jpg")


# -- the camera ---------------------------------------------------------------------------------------------


class Webcam(Device):
    """The camera as a USB device (usbip.py serves it): its descriptors, its control requests, and its bulk
    stream, each IN URB the host queues kept PENDING until a frame's bytes answer it."""

    def __init__(self, camera: Camera) -> None:
        super().__init__(descriptor=device_descriptor(), configuration=config_descriptor(), strings=STRINGS,
                         speed=SPEED_HIGH)
        self.camera = camera

    def standard(self, setup: Setup) -> bytes:
        if setup.request == CLEAR_FEATURE and setup.request_type == 0x02 and setup.index == STREAM_EP:
            self.camera.stream_stopped()  # CLEAR_FEATURE(ENDPOINT_HALT): how uvcvideo stops a bulk stream
        return super().standard(setup)

    def control(self, setup: Setup, data: bytes) -> bytes:
        return self.camera.control(setup, data)

    def transfer(self, urb: Urb) -> bytes | _Pending:
        if urb.endpoint == STREAM_EP & 0x0F and urb.direction_in:
            self.camera.queued(urb.seqnum, urb.length)
            return PENDING
        raise Stall(f"endpoint {urb.endpoint} not handled")

    def detached(self) -> None:
        self.camera.gone(self)


class Camera:
    """What the webcam streams and how: the scene, the committed format, the host's queued URBs."""

    def __init__(self) -> None:
        self.lock = threading.Condition()
        self.link: Link | None = None
        #: The host's bulk IN URBs not answered yet, seqnum: length (usbip.py's Link holds the URBs themselves).
        self.queue: dict[int, int] = {}
        self.probe = DEFAULT_PROBE
        self.commit = DEFAULT_PROBE
        self.commits: list[dict[str, Any]] = []
        self.scene = Scene("none", [], [])
        self.frames = Frames()
        self.fid = 0
        self.generation = 0  # a new stream (a commit, a stop) abandons the frame being sent
        self.stats = {"frames sent": 0, "bytes sent": 0, "urbs": 0, "unlinked": 0, "plugs": 0, "stream stops": 0,
                      "grey frames": 0, "control requests": 0, "stalled": 0}
        self.errors: list[str] = []
        threading.Thread(target=self._stream, name="stream", daemon=True).start()

    # -- plugging ---------------------------------------------------------------------------------------------

    def plug(self) -> dict[str, Any]:
        if self.link is not None and self.link.alive:
            return {"port": self.link.port, "already": True}
        with self.lock:
            self.queue.clear()
            self.generation += 1
        link = attach(Webcam(self))
        with self.lock:
            self.link = link
            self.stats["plugs"] += 1
            self.lock.notify_all()
        return {"port": link.port}

    def unplug(self) -> dict[str, Any]:
        link = self.link
        if link is None:
            return {"port": None}
        link.detach()  # the host sees it leave; the stream stops mid-frame, as a cable pulled
        if link.error:
            self.errors.append(f"usbip: {link.error}")
        self.gone(link.device)
        return {"port": link.port}

    def gone(self, device: Device) -> None:
        """``device``'s link ended (unplugged here, or dropped by vhci-hcd); a link plugged since is kept."""
        with self.lock:
            if self.link is None or self.link.device is not device:
                return
            self.link = None
            self.queue.clear()
            self.generation += 1
            self.lock.notify_all()

    # -- the host's requests (usbip.py's thread) -----------------------------------------------------------------

    def queued(self, seqnum: int, length: int) -> None:
        with self.lock:
            self.queue[seqnum] = length
            self.stats["urbs"] += 1
            self.lock.notify_all()

    def stream_stopped(self) -> None:
        """uvcvideo killed every URB of the stream (each unlinked, or answered) before it clears the halt."""
        with self.lock:
            self.stats["stream stops"] += 1
            self.stats["unlinked"] += len(self.queue)
            self.queue.clear()
            self.generation += 1  # a frame half sent is dropped: the next stream starts with a whole one
            self.lock.notify_all()

    def control(self, setup: Setup, data: bytes) -> bytes:
        """A class request: the streaming interface's probe and commit, the control interface's error code."""
        with self.lock:
            self.stats["control requests"] += 1
            try:
                if setup.kind == 0x20 and setup.index & 0xFF == 1:  # the streaming interface
                    return self._streaming(setup, data)
                if setup.kind == 0x20 and setup.index & 0xFF == 0 and setup.request == 0x81 and \
                        setup.value >> 8 == 0x02:
                    return b"\0"  # GET_CUR of the request error code: no error
                raise Stall(f"request {setup.request_type:#04x} {setup.request:#04x}")
            except Stall:
                self.stats["stalled"] += 1
                raise

    def _streaming(self, setup: Setup, data: bytes) -> bytes:
        selector = setup.value >> 8
        if selector not in (1, 2):  # VS_PROBE_CONTROL, VS_COMMIT_CONTROL
            raise Stall(f"selector {selector}")
        if setup.request == 0x01 and not setup.device_to_host:  # SET_CUR
            answer = negotiated(data)
            if selector == 1:
                self.probe = answer
            else:
                self.commit = answer
                self.commits.append(describe(answer))
                self.generation += 1
            return b""
        if setup.request == 0x85:  # GET_LEN
            return struct.pack("<H", PROBE.size)
        if setup.request == 0x86:  # GET_INFO: GET and SET supported
            return b"\x03"
        if setup.request in (0x81, 0x82, 0x83, 0x84, 0x87):  # GET_CUR, MIN, MAX, RES, DEF
            current = self.probe if selector == 1 else self.commit
            return DEFAULT_PROBE if setup.request == 0x87 else current
        raise Stall(f"request {setup.request:#04x}")

    # -- streaming ------------------------------------------------------------------------------------------------

    def _stream(self) -> None:
        """A frame every committed interval (or slower, when the host queues its URBs late), one payload each."""
        due = time.monotonic()
        while True:
            with self.lock:
                while not self.queue:
                    self.lock.wait()
                interval = PROBE.unpack(self.commit)[3] / 1e7
            now = time.monotonic()
            if now < due:
                time.sleep(due - now)
            due = max(time.monotonic(), due + interval)
            try:
                self._send_frame()
            except OSError as error:
                self.errors.append(f"stream: {error}")

    def _frame_bytes(self) -> bytes:
        control = describe(self.commit)
        if control["format"] == "MJPG" and (control["width"], control["height"]) == (640, 480):
            with self.lock:
                name = self.scene.next_name() if self.scene.once or self.scene.loop else None
            if name is not None:
                return self.frames.get(name)
        self.stats["grey frames"] += 1
        return self.frames.grey(control)

    def _next_urb(self, generation: int) -> tuple[Link, int, int] | None:
        """The oldest URB the host queued on the stream (in order: a bulk endpoint answers in order), or None when
        the stream stopped or the camera was unplugged meanwhile.

        A URB is queued here as usbip.py's thread hands it over, and registered as PENDING by that thread just
        after: this waits for both (a few milliseconds at most)."""
        with self.lock:
            while True:
                link = self.link
                if link is None or generation != self.generation:
                    return None
                if self.queue:
                    registered = set(link.pending(STREAM_EP & 0x0F))
                    ready = sorted(seqnum for seqnum in self.queue if seqnum in registered)
                    if ready:
                        return link, ready[0], self.queue[ready[0]]
                    self.lock.wait(timeout=0.002)
                else:
                    self.lock.wait(timeout=1.0)

    def _send_frame(self) -> None:
        generation = self.generation
        payload = bytes([HEADER_LEN, EOH | EOF | self.fid]) + self._frame_bytes()
        self.fid ^= FID
        sent = 0
        while True:
            found = self._next_urb(generation)
            if found is None:
                return  # unplugged or stopped mid-frame: the rest of it is lost, as on a pulled cable
            link, seqnum, length = found
            chunk = payload[sent:sent + length]
            answered = link.complete(seqnum, chunk)
            with self.lock:
                self.queue.pop(seqnum, None)
                if not answered:  # unlinked meanwhile: the stream is stopping
                    self.stats["unlinked"] += 1
                    continue
            sent += len(chunk)
            if len(chunk) < length:  # a short transfer ends the payload (and a zero-length one, after a full one)
                break
        self.stats["frames sent"] += 1
        self.stats["bytes sent"] += len(payload)

    # -- commands ----------------------------------------------------------------------------------------------

    def show(self, name: str) -> dict[str, Any]:
        scene = Scene.load(name)
        with self.lock:
            self.scene = scene
        return {"scene": name, "frames": len(scene.once), "loop": len(scene.loop)}

    def status(self) -> dict[str, Any]:
        with self.lock:
            scene, link = self.scene, self.link
            return {"pid": os.getpid(), "plugged": link is not None, "port": link.port if link else None,
                    "scene": scene.name, "sent in scene": scene.sent, "scene frames": len(scene.once),
                    "pending urbs": len(self.queue), "commits": self.commits[-5:], "commit count": len(self.commits),
                    **self.stats, "errors": self.errors[-5:]}


def main() -> None:
    camera = Camera()
    commands: dict[str, Callable[[str], dict[str, Any]]] = {
        "plug": lambda _: camera.plug(), "unplug": lambda _: camera.unplug(), "show": camera.show,
        "status": lambda _: camera.status()}
    for line in sys.stdin:
        word, _, rest = line.strip().partition(" ")
        try:
            answer = commands[word](rest.strip()) if word in commands else {"error": f"unknown command {word!r}"}
        except (OSError, RuntimeError, ValueError, KeyError) as error:
            answer = {"error": f"{word}: {type(error).__name__}: {error}"}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    if os.geteuid() == 0:
        os.nice(-5)  # a camera keeps its pace whatever the host runs
    main()
