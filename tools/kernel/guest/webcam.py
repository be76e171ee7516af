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

Sources: the USB/IP protocol (the kernel's Documentation/usb/usbip_protocol.rst; vhci_rx.c, vhci_sysfs.c
for ``attach``/``detach`` and the status table), the UVC 1.1 specification (descriptors, probe and commit
controls, payload headers) and how uvcvideo reads them (drivers/media/usb/uvc: uvc_driver.c's parsing,
uvc_video.c's probe, bulk decoding and end-of-payload rule). Written here; no code copied.

Run by the agent as a helper (trixie's python3, standard library only), one command a line on
standard input, one line of JSON answered on standard output:

    plug            attach the camera to a free high-speed port of vhci_hcd.0 (the host enumerates it)
    unplug          detach it (the host sees it leave; the stream stops mid-frame, as a cable pulled)
    show NAME       play the scene SHARE/scenes/NAME.json from its start (frames advance one a frame sent)
    status          what the camera did: frames sent, scene and where in it, formats committed, URBs …
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import struct
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

SHARE = Path(sys.argv[1] if len(sys.argv) > 1 else "/run/bornes-webcam")
VHCI = Path("/sys/devices/platform/vhci_hcd.0")
SPEED_HIGH = 3  # enum usb_device_speed
DEVID = (3 << 16) | 2  # busnum << 16 | devnum, as usbipd reports a remote device: any value will do

# -- USB/IP ---------------------------------------------------------------------------------------------

CMD_SUBMIT, CMD_UNLINK, RET_SUBMIT, RET_UNLINK = 1, 2, 3, 4
HEADER = struct.Struct(">IIIII")  # command, seqnum, devid, direction, ep
SUBMIT = struct.Struct(">IiiiI8s")  # transfer_flags, transfer_buffer_length, start_frame, packets, interval, setup
RET = struct.Struct(">iiiii8x")  # status, actual_length, start_frame, number_of_packets, error_count
PDU = 48
EPIPE, ECONNRESET = 32, 104
DIR_IN = 1

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


def string_descriptor(index: int) -> bytes | None:
    if index == 0:
        return _descriptor(3, struct.pack("<H", 0x0409))
    text = STRINGS.get(index)
    return None if text is None else _descriptor(3, text.encode("utf-16-le"))


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


class Camera:
    """The device end of one USB/IP connection, and what it streams."""

    def __init__(self) -> None:
        self.lock = threading.Condition()
        self.sock: socket.socket | None = None
        self.port: int | None = None
        self.pending: deque[tuple[int, int]] = deque()  # the host's bulk IN URBs: (seqnum, length)
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
        if self.sock is not None:
            return {"port": self.port, "already": True}
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        port = free_port()
        try:
            (VHCI / "attach").write_text(f"{port} {theirs.fileno()} {DEVID} {SPEED_HIGH}")
        finally:
            theirs.close()  # vhci holds its own reference to that end now
        with self.lock:
            self.sock, self.port = ours, port
            self.pending.clear()
            self.stats["plugs"] += 1
        threading.Thread(target=self._receive, args=(ours,), name="usbip", daemon=True).start()
        return {"port": port}

    def unplug(self) -> dict[str, Any]:
        port = self.port
        if port is None:
            return {"port": None}
        with contextlib.suppress(OSError):
            (VHCI / "detach").write_text(str(port))
        self._gone()
        return {"port": port}

    def _gone(self) -> None:
        with self.lock:
            sock, self.sock, self.port = self.sock, None, None
            self.pending.clear()
            self.lock.notify_all()
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.close()

    # -- USB/IP: the host's requests ------------------------------------------------------------------------

    def _receive(self, sock: socket.socket) -> None:
        try:
            while True:
                pdu = _read(sock, PDU)
                if pdu is None:
                    break
                command, seqnum, _devid, direction, ep = HEADER.unpack_from(pdu)
                if command == CMD_SUBMIT:
                    _flags, length, _start, _packets, _interval, setup = SUBMIT.unpack_from(pdu, HEADER.size)
                    data = b""
                    if direction != DIR_IN and length > 0:
                        data = _read(sock, length) or b""
                    self._submit(sock, seqnum, ep, direction, length, setup, data)
                elif command == CMD_UNLINK:
                    (victim,) = struct.unpack_from(">I", pdu, HEADER.size)
                    self._unlink(sock, seqnum, victim)
                else:
                    self.errors.append(f"unknown USB/IP command {command}")
                    break
        except OSError as error:
            self.errors.append(f"usbip: {error}")
        finally:
            if self.sock is sock:
                self._gone()

    def _reply(self, sock: socket.socket, seqnum: int, status: int, data: bytes = b"", done: int | None = None) -> None:
        """RET_SUBMIT: ``data`` for an IN transfer; ``done`` bytes taken of an OUT one (the caller holds the
        lock: a reply and an unlink never cross)."""
        actual = len(data) if done is None else done
        sock.sendall(HEADER.pack(RET_SUBMIT, seqnum, 0, 0, 0) + RET.pack(status, actual, 0, 0, 0) + data)

    def _submit(self, sock: socket.socket, seqnum: int, ep: int, direction: int, length: int, setup: bytes,
                data: bytes) -> None:
        with self.lock:
            if ep == 0:
                self.stats["control requests"] += 1
                status, answer = self._control(setup, data)
                if status:
                    self.stats["stalled"] += 1
                if direction == DIR_IN:
                    self._reply(sock, seqnum, status, answer[:length])
                else:
                    self._reply(sock, seqnum, status, done=0 if status else len(data))
            elif ep == STREAM_EP & 0x0F and direction == DIR_IN:
                self.pending.append((seqnum, length))
                self.stats["urbs"] += 1
                self.lock.notify_all()
            else:
                self._reply(sock, seqnum, -EPIPE)

    def _unlink(self, sock: socket.socket, seqnum: int, victim: int) -> None:
        with self.lock:
            found = [entry for entry in self.pending if entry[0] == victim]
            for entry in found:
                self.pending.remove(entry)
            self.stats["unlinked"] += len(found)
            status = -ECONNRESET if found else 0  # 0: it was answered already
            sock.sendall(HEADER.pack(RET_UNLINK, seqnum, 0, 0, 0) + struct.pack(">i24x", status))

    # -- control requests ---------------------------------------------------------------------------------------

    def _control(self, setup: bytes, data: bytes) -> tuple[int, bytes]:
        """(status, data) for one control request: 0 and its answer, or -EPIPE (a stall) for what it does not do."""
        request_type, request, value, index, _length = struct.unpack("<BBHHH", setup)
        if request_type & 0x60 == 0:  # standard
            return self._standard(request_type, request, value, index)
        if request_type & 0x60 == 0x20 and index & 0xFF == 1:  # class, the streaming interface
            return self._streaming(request_type, request, value >> 8, data)
        if request_type & 0x60 == 0x20 and index & 0xFF == 0 and request == 0x81 and value >> 8 == 0x02:
            return 0, b"\0"  # GET_CUR of the request error code: no error
        return -EPIPE, b""

    def _standard(self, request_type: int, request: int, value: int, index: int) -> tuple[int, bytes]:
        if request == 6:  # GET_DESCRIPTOR
            kind, number = value >> 8, value & 0xFF
            found = device_descriptor() if kind == 1 else config_descriptor() if kind == 2 else \
                string_descriptor(number) if kind == 3 else None
            return (0, found) if found is not None else (-EPIPE, b"")
        if request == 0:  # GET_STATUS
            return 0, b"\0\0"
        if request == 8:  # GET_CONFIGURATION
            return 0, b"\x01"
        if request == 10:  # GET_INTERFACE
            return 0, b"\0"
        if request == 1 and request_type == 0x02 and index == STREAM_EP:  # CLEAR_FEATURE(ENDPOINT_HALT)
            self.stats["stream stops"] += 1  # how uvcvideo stops a bulk stream (uvc_video_stop_streaming)
            self.generation += 1  # a frame half sent is dropped: the next stream starts with a whole one
            return 0, b""
        if request in (1, 3, 9, 11):  # CLEAR_FEATURE, SET_FEATURE, SET_CONFIGURATION, SET_INTERFACE
            return 0, b""
        return -EPIPE, b""

    def _streaming(self, request_type: int, request: int, selector: int, data: bytes) -> tuple[int, bytes]:
        if selector not in (1, 2):  # VS_PROBE_CONTROL, VS_COMMIT_CONTROL
            return -EPIPE, b""
        if request == 0x01 and not request_type & 0x80:  # SET_CUR
            answer = negotiated(data)
            if selector == 1:
                self.probe = answer
            else:
                self.commit = answer
                self.commits.append(describe(answer))
                self.generation += 1
            return 0, b""
        if request == 0x85:  # GET_LEN
            return 0, struct.pack("<H", PROBE.size)
        if request == 0x86:  # GET_INFO: GET and SET supported
            return 0, b"\x03"
        if request in (0x81, 0x82, 0x83, 0x84, 0x87):  # GET_CUR, MIN, MAX, RES, DEF
            current = self.probe if selector == 1 else self.commit
            return 0, DEFAULT_PROBE if request == 0x87 else current
        return -EPIPE, b""

    # -- streaming ------------------------------------------------------------------------------------------------

    def _stream(self) -> None:
        """A frame every committed interval (or slower, when the host queues its URBs late), one payload each."""
        due = time.monotonic()
        while True:
            with self.lock:
                while not self.pending:
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

    def _send_frame(self) -> None:
        generation = self.generation
        payload = bytes([HEADER_LEN, EOH | EOF | self.fid]) + self._frame_bytes()
        self.fid ^= FID
        sent = 0
        while True:
            with self.lock:
                while not self.pending and self.sock is not None and generation == self.generation:
                    self.lock.wait(timeout=1.0)
                sock = self.sock
                if sock is None or not self.pending or generation != self.generation:
                    return  # unplugged or stopped mid-frame: the rest of it is lost, as on a pulled cable
                seqnum, length = self.pending.popleft()
                chunk = payload[sent:sent + length]
                self._reply(sock, seqnum, 0, chunk)
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
            scene = self.scene
            return {"pid": os.getpid(), "plugged": self.sock is not None, "port": self.port, "scene": scene.name,
                    "sent in scene": scene.sent, "scene frames": len(scene.once), "pending urbs": len(self.pending),
                    "commits": self.commits[-5:], "commit count": len(self.commits), **self.stats,
                    "errors": self.errors[-5:]}


def _read(sock: socket.socket, size: int) -> bytes | None:
    """Exactly ``size`` bytes, or None at the end of the connection (vhci shut it down: detached)."""
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def free_port() -> int:
    """The first free high-speed port of vhci_hcd.0 (its status table: ``hs PORT STA …``, STA 4 is free)."""
    for line in (VHCI / "status").read_text().splitlines()[1:]:
        words = line.split()
        if len(words) >= 3 and words[0] == "hs" and int(words[2]) == 4:
            return int(words[1])
    raise OSError("every high-speed port of vhci_hcd.0 is in use")


def main() -> None:
    camera = Camera()
    commands: dict[str, Callable[[str], dict[str, Any]]] = {
        "plug": lambda _: camera.plug(), "unplug": lambda _: camera.unplug(), "show": camera.show,
        "status": lambda _: camera.status()}
    for line in sys.stdin:
        word, _, rest = line.strip().partition(" ")
        try:
            answer = commands[word](rest.strip()) if word in commands else {"error": f"unknown command {word!r}"}
        except (OSError, ValueError, KeyError) as error:
            answer = {"error": f"{word}: {type(error).__name__}: {error}"}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    if os.geteuid() == 0:
        os.nice(-5)  # a camera keeps its pace whatever the host runs
    main()
