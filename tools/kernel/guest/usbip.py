"""A USB device written in Python, served to this machine's own kernel over USB/IP (vhci-hcd).

Some devices cannot be configfs gadgets: the i2c-tiny-usb bridge puts the I2C address in
``wIndex`` of an interface request, which FunctionFS refuses unless it names one of its own
interfaces (and it rewrites ``wIndex``), and legacy GadgetFS refuses OUT data stages over 256
bytes (issue 43). USB/IP has no such filter: ``vhci-hcd`` (``CONFIG_USBIP_VHCI_HCD``) is a host
controller whose devices live at the other end of a socket. A program that answers the USB/IP
protocol on one end of an ``AF_UNIX`` socketpair, the other end written to
``/sys/devices/platform/vhci_hcd.0/attach`` as ``PORT FD DEVID SPEED``, is a USB device to the
kernel: the hub sees it connect, the USB core enumerates it through this program (its device,
configuration and string descriptors), and the kernel's own driver binds to it.

Written from the kernel's ``Documentation/usb/usbip_protocol.rst`` (the URB messages: a 48-byte
header, big-endian, ``USBIP_CMD_SUBMIT``/``USBIP_RET_SUBMIT`` and ``USBIP_CMD_UNLINK``/
``USBIP_RET_UNLINK``; the ``OP_REQ_IMPORT`` handshake is the user-space ``usbip`` tool's and is
not spoken here: the socket is handed to vhci-hcd after it) and ``drivers/usb/usbip/vhci_sysfs.c``
(the ``attach``/``detach`` files and the ``status`` table: ``hub port sta …``, a free port is
``sta`` 004, ``VDEV_ST_NULL``). vhci-hcd answers ``SET_ADDRESS`` itself and forwards every other
request, the standard ones included.

How to serve a device (the i2c-tiny-usb bridge, ``i2c_tiny_usb.py``, is one)::

    class MyDevice(Device):
        def control(self, setup, data): ...      # vendor and class requests on endpoint 0
        def transfer(self, urb): ...              # other endpoints (interrupt, bulk), if any

    link = attach(MyDevice(descriptor=..., configuration=..., strings=...))
    ...
    link.detach()                                 # unplugged, as a cable pulled

Standard requests (descriptors, configuration, interface, status, features) are answered here
from the descriptors. :meth:`Device.control` gets the rest and returns the IN data (or ``b""``),
or raises :class:`Stall`. :meth:`Device.transfer` may return :data:`PENDING` and complete the URB
later with :meth:`Link.complete` (an interrupt IN endpoint waiting for its next report); an
unlinked URB (the kernel gave up on it) is then never answered, as the protocol says.

Standard library only: trixie's python3 runs it in the VM, as root (``attach`` is root's).
"""

from __future__ import annotations

import contextlib
import errno
import socket
import struct
import threading
from dataclasses import dataclass, field
from pathlib import Path

VHCI = Path("/sys/devices/platform/vhci_hcd.0")
USBIP_CMD_SUBMIT, USBIP_CMD_UNLINK, USBIP_RET_SUBMIT, USBIP_RET_UNLINK = 1, 2, 3, 4
USBIP_DIR_OUT, USBIP_DIR_IN = 0, 1
#: usbip_header_basic: command, seqnum, devid, direction, ep.
BASIC = struct.Struct(">IIIII")
#: What follows the basic header in a CMD_SUBMIT: transfer_flags, transfer_buffer_length,
#: start_frame, number_of_packets, interval, setup (8 bytes).
SUBMIT = struct.Struct(">IiiiI8s")
#: RET_SUBMIT's own fields: status, actual_length, start_frame, number_of_packets, error_count, padding.
RET_SUBMIT = struct.Struct(">iiiii8x")
#: CMD_UNLINK: unlink_seqnum and padding; RET_UNLINK: status and padding.
UNLINK = struct.Struct(">I24x")
RET_UNLINK = struct.Struct(">i24x")
HEADER_SIZE = 48
ISO_DESCRIPTOR = 16
#: enum usb_device_speed (include/uapi/linux/usb/ch9.h): what ``attach`` takes.
SPEED_LOW, SPEED_FULL, SPEED_HIGH = 1, 2, 3
#: vhci-hcd's port states (drivers/usb/usbip/usbip_common.h): a port is free when VDEV_ST_NULL.
VDEV_ST_NULL = 4
# Standard requests (USB 2.0, chapter 9).
GET_STATUS, CLEAR_FEATURE, SET_FEATURE, SET_ADDRESS, GET_DESCRIPTOR = 0, 1, 3, 5, 6
GET_CONFIGURATION, SET_CONFIGURATION, GET_INTERFACE, SET_INTERFACE = 8, 9, 10, 11
DT_DEVICE, DT_CONFIG, DT_STRING = 1, 2, 3
TYPE_STANDARD = 0x00
LANGUAGE_EN_US = 0x0409


class Stall(Exception):
    """The device refuses the request: the URB ends with -EPIPE, as a STALL handshake ends it."""


class _Pending:
    def __repr__(self) -> str:
        return "PENDING"


#: Returned by :meth:`Device.transfer`: the URB is answered later, with :meth:`Link.complete`.
PENDING = _Pending()


@dataclass(frozen=True)
class Setup:
    """A control request's 8 setup bytes (USB 2.0, 9.3), little-endian fields."""

    request_type: int
    request: int
    value: int
    index: int
    length: int

    @classmethod
    def parse(cls, raw: bytes) -> Setup:
        return cls(*struct.unpack("<BBHHH", raw))

    @property
    def device_to_host(self) -> bool:
        return bool(self.request_type & 0x80)

    @property
    def kind(self) -> int:
        """0 standard, 0x20 class, 0x40 vendor."""
        return self.request_type & 0x60


@dataclass
class Urb:
    """One USB request block as vhci-hcd sent it."""

    seqnum: int
    endpoint: int
    direction_in: bool
    length: int  # transfer_buffer_length: what an IN URB may take, what an OUT URB carries
    setup: Setup | None
    data: bytes  # an OUT URB's payload


def device_descriptor(vendor: int, product: int, *, device: int = 0x0100, usb: int = 0x0110, device_class: int = 0,
                      max_packet0: int = 8, manufacturer: int = 0, product_string: int = 0, serial: int = 0,
                      configurations: int = 1) -> bytes:
    """The 18-byte device descriptor (USB 2.0, table 9-8)."""
    return struct.pack("<BBHBBBBHHHBBBB", 18, DT_DEVICE, usb, device_class, 0, 0, max_packet0, vendor, product,
                       device, manufacturer, product_string, serial, configurations)


def configuration_descriptor(interfaces: list[bytes], *, max_power_ma: int = 100, self_powered: bool = False,
                             value: int = 1) -> bytes:
    """A configuration descriptor (table 9-10) followed by its interfaces' descriptors, as one blob."""
    body = b"".join(interfaces)
    attributes = 0x80 | (0x40 if self_powered else 0)
    return struct.pack("<BBHBBBBB", 9, DT_CONFIG, 9 + len(body), len(interfaces), value, 0, attributes,
                       max_power_ma // 2) + body


def interface_descriptor(number: int, *, endpoints: list[bytes] | None = None, interface_class: int = 0xFF,
                         subclass: int = 0, protocol: int = 0, extra: bytes = b"") -> bytes:
    """An interface descriptor (table 9-12), then ``extra`` (a class descriptor), then its endpoints."""
    endpoints = endpoints or []
    return struct.pack("<BBBBBBBBB", 9, 4, number, 0, len(endpoints), interface_class, subclass, protocol, 0) \
        + extra + b"".join(endpoints)


def endpoint_descriptor(address: int, attributes: int, max_packet: int, interval: int) -> bytes:
    """An endpoint descriptor (table 9-13): ``address`` with 0x80 for IN; attributes 2 bulk, 3 interrupt."""
    return struct.pack("<BBBBHB", 7, 5, address, attributes, max_packet, interval)


def string_descriptor(text: str) -> bytes:
    encoded = text.encode("utf-16-le")
    return bytes([2 + len(encoded), DT_STRING]) + encoded


@dataclass
class Device:
    """A USB device: its descriptors, and what it does with the requests it owns.

    ``strings`` maps each string index the descriptors name to its text (English, 0x0409)."""

    descriptor: bytes
    configuration: bytes
    strings: dict[int, str] = field(default_factory=dict)
    speed: int = SPEED_FULL
    configured: int = 0

    def control(self, setup: Setup, data: bytes) -> bytes:
        """A request on endpoint 0 the standard ones leave over (class, vendor): the IN data, or b""."""
        raise Stall(f"request {setup.request_type:#04x} {setup.request:#04x} not handled")

    def transfer(self, urb: Urb) -> bytes | _Pending:
        """A transfer on another endpoint: the IN data, b"" for an OUT one taken, or PENDING."""
        raise Stall(f"endpoint {urb.endpoint} not handled")

    def detached(self) -> None:
        """The link is gone (unplugged): pending work ends here."""

    def standard(self, setup: Setup) -> bytes:
        """USB 2.0's standard requests, from the descriptors (chapter 9.4)."""
        if setup.request == GET_DESCRIPTOR:
            kind, index = setup.value >> 8, setup.value & 0xFF
            if kind == DT_DEVICE:
                return self.descriptor
            if kind == DT_CONFIG and index == 0:
                return self.configuration
            if kind == DT_STRING:
                if index == 0:
                    return struct.pack("<BBH", 4, DT_STRING, LANGUAGE_EN_US)
                if index in self.strings:
                    return string_descriptor(self.strings[index])
            raise Stall(f"no descriptor {kind}:{index}")  # a device qualifier from a full-speed device, say
        if setup.request == SET_CONFIGURATION:
            self.configured = setup.value & 0xFF
            return b""
        if setup.request == GET_CONFIGURATION:
            return bytes([self.configured])
        if setup.request == GET_STATUS:
            return b"\0\0"
        if setup.request == GET_INTERFACE:
            return b"\0"
        if setup.request in (SET_INTERFACE, CLEAR_FEATURE, SET_FEATURE, SET_ADDRESS):
            return b""
        raise Stall(f"standard request {setup.request} not handled")


class Link:
    """One device attached to a vhci-hcd port: the socket, the thread serving it, the port."""

    def __init__(self, device: Device, port: int, sock: socket.socket) -> None:
        self.device = device
        self.port = port
        self.sock = sock
        self._send_lock = threading.Lock()
        self._pending: dict[int, Urb] = {}
        self._pending_lock = threading.Lock()
        self.submitted = 0
        self.error: str | None = None
        self.thread = threading.Thread(target=self._serve, name=f"usbip-port-{port}", daemon=True)

    # -- the protocol ---------------------------------------------------------------------------------

    def _receive(self, size: int) -> bytes:
        data = bytearray()
        while len(data) < size:
            chunk = self.sock.recv(size - len(data))
            if not chunk:
                raise EOFError
            data += chunk
        return bytes(data)

    def _serve(self) -> None:
        try:
            while True:
                header = self._receive(HEADER_SIZE)
                command, seqnum, _devid, direction, endpoint = BASIC.unpack_from(header)
                if command == USBIP_CMD_SUBMIT:
                    _flags, length, _frame, packets, _interval, setup = SUBMIT.unpack_from(header, BASIC.size)
                    data = self._receive(length) if direction == USBIP_DIR_OUT and length > 0 else b""
                    if packets not in (0, -1):
                        self._receive(packets * ISO_DESCRIPTOR)
                        self._reply(seqnum, -errno.EPIPE, 0, b"")  # isochronous: not served here
                        continue
                    urb = Urb(seqnum, endpoint, direction == USBIP_DIR_IN, length,
                              Setup.parse(setup) if endpoint == 0 else None, data)
                    self.submitted += 1
                    self._submit(urb)
                elif command == USBIP_CMD_UNLINK:
                    (victim,) = UNLINK.unpack_from(header, BASIC.size)
                    with self._pending_lock:
                        found = self._pending.pop(victim, None)
                    # Still pending: it is cancelled and never answered; already answered: status 0.
                    self._send(BASIC.pack(USBIP_RET_UNLINK, seqnum, 0, 0, 0)
                               + RET_UNLINK.pack(-errno.ECONNRESET if found else 0))
                else:
                    raise ValueError(f"unknown USB/IP command {command}")
        except (EOFError, OSError):
            pass  # detached: vhci-hcd shut its end down (or the socket was closed here)
        except Exception as error:  # a bug here must say so, not hang the kernel's URBs silently
            self.error = f"{type(error).__name__}: {error}"
        finally:
            with contextlib.suppress(OSError):
                self.sock.close()
            self.device.detached()

    def _submit(self, urb: Urb) -> None:
        try:
            if urb.setup is not None:
                answer: bytes | _Pending = (self.device.standard(urb.setup) if urb.setup.kind == TYPE_STANDARD
                                            else self.device.control(urb.setup, urb.data))
            else:
                answer = self.device.transfer(urb)
        except Stall:
            self._reply(urb.seqnum, -errno.EPIPE, 0, b"")
            return
        if answer is PENDING:
            with self._pending_lock:
                self._pending[urb.seqnum] = urb
            return
        assert isinstance(answer, bytes)
        self._answer(urb, answer)

    def _answer(self, urb: Urb, answer: bytes) -> None:
        if urb.direction_in:
            data = answer[:urb.length]  # never more than the URB's buffer: vhci-hcd drops the link for that
            self._reply(urb.seqnum, 0, len(data), data)
        else:
            # An OUT transfer's actual_length is what was sent: the driver checks it (a short write otherwise).
            self._reply(urb.seqnum, 0, len(urb.data), b"")

    def complete(self, seqnum: int, answer: bytes) -> bool:
        """Answer a URB the device kept PENDING; False when the kernel unlinked it meanwhile.

        Answered under the lock an unlink takes: an unlink that finds the URB gone says "answered" (status 0)
        only after the answer is on the socket. The other order makes vhci-hcd give the URB back on the
        RET_UNLINK, then find no URB for the RET_SUBMIT, and drop the device (vhci_rx.c: "cannot find a urb
        of seqnum", VDEV_EVENT_ERROR_TCP): a device completing URBs from its own thread (a webcam's stream,
        stopped by uvcvideo killing its URBs) would be unplugged at random."""
        with self._pending_lock:
            urb = self._pending.pop(seqnum, None)
            if urb is None:
                return False
            self._answer(urb, answer)
        return True

    def pending(self, endpoint: int) -> list[int]:
        """The seqnums of the URBs waiting on ``endpoint``, oldest first."""
        with self._pending_lock:
            return sorted(s for s, u in self._pending.items() if u.endpoint == endpoint)

    def _reply(self, seqnum: int, status: int, actual: int, data: bytes) -> None:
        self._send(BASIC.pack(USBIP_RET_SUBMIT, seqnum, 0, 0, 0) + RET_SUBMIT.pack(status, actual, 0, 0, 0) + data)

    def _send(self, message: bytes) -> None:
        with self._send_lock:
            self.sock.sendall(message)

    # -- plugging -------------------------------------------------------------------------------------

    @property
    def alive(self) -> bool:
        return self.thread.is_alive()

    def detach(self, timeout: float = 10.0) -> None:
        """Unplug: vhci-hcd disconnects the port (the kernel sees the device leave) and closes the socket."""
        if self.alive:
            with contextlib.suppress(OSError):
                (VHCI / "detach").write_text(str(self.port))
        self.thread.join(timeout)
        if self.thread.is_alive():  # vhci-hcd did not let go: close this end, which it takes as an unplug
            with contextlib.suppress(OSError):
                self.sock.shutdown(socket.SHUT_RDWR)
            self.thread.join(timeout)


def ports() -> list[tuple[str, int, int]]:
    """vhci-hcd's ports as (hub, port, state): ``hs`` ports take low, full and high speed devices."""
    found = []
    for path in sorted(VHCI.parent.glob("vhci_hcd.*")):
        for name in sorted(p.name for p in path.glob("status*")):
            for line in (path / name).read_text().splitlines()[1:]:
                fields = line.split()
                if len(fields) >= 3 and fields[0] in ("hs", "ss"):
                    found.append((fields[0], int(fields[1]), int(fields[2])))
    return found


def free_port() -> int:
    for hub, port, state in ports():
        if hub == "hs" and state == VDEV_ST_NULL:
            return port
    raise RuntimeError("usbip: every vhci-hcd high-speed port is taken (modprobe vhci-hcd first)")


def attach(device: Device, port: int | None = None) -> Link:
    """Plug ``device`` into a free vhci-hcd port (or ``port``) and serve it until :meth:`Link.detach`."""
    if not VHCI.exists():
        raise RuntimeError(f"usbip: no {VHCI} (modprobe vhci-hcd)")
    chosen = free_port() if port is None else port
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    link = Link(device, chosen, ours)
    devid = (1 << 16) | (chosen + 2)  # busnum << 16 | devnum on the exporting side: only echoed back to us
    try:
        with open(VHCI / "attach", "w") as handle:
            handle.write(f"{chosen} {theirs.fileno()} {devid} {device.speed}")
    except OSError:
        ours.close()
        raise
    finally:
        theirs.close()  # vhci-hcd holds its own reference to that end now
    link.thread.start()
    return link


def detach_all() -> None:
    """Every port this kernel's vhci-hcd has in use, unplugged (a test's clean start)."""
    for _hub, port, state in ports():
        if state != VDEV_ST_NULL:
            with contextlib.suppress(OSError):
                (VHCI / "detach").write_text(str(port))


__all__ = ["PENDING", "SPEED_FULL", "SPEED_HIGH", "SPEED_LOW", "Device", "Link", "Setup", "Stall", "Urb", "attach",
           "configuration_descriptor", "detach_all", "device_descriptor", "endpoint_descriptor",
           "interface_descriptor", "ports"]
