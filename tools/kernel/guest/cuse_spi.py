"""Real ``/dev/spidevB.C`` character devices served from user space (CUSE), each an MFRC522 model.

The kernel tier's VM has no SPI controller, so the RC522's device nodes are made with CUSE (``cuse.ko``):
this program opens ``/dev/cuse`` once per device, answers the kernel's CUSE_INIT with the name
(``DEVNAME=spidev0.0``), and then every open, ioctl, read and write a program makes on ``/dev/spidev0.0``
comes here as a FUSE request. The referee's driver sees a character device and makes the very ioctls it
makes on a Pi: SPI_IOC_WR_MODE, SPI_IOC_WR_BITS_PER_WORD, SPI_IOC_WR_MAX_SPEED_HZ and SPI_IOC_MESSAGE(n).

CUSE's ioctls are "unrestricted": the kernel does not know what an ioctl's argument points to, so the
first request carries only the argument's address, and the server answers FUSE_IOCTL_RETRY with the user
memory it wants (``struct fuse_ioctl_iovec``: address, length), to read (in) and to write (out). For
SPI_IOC_MESSAGE(n) that takes two retries: first the n ``struct spi_ioc_transfer`` records at the
argument, then, once their ``tx_buf``/``rx_buf`` pointers are known, those records again with every
``tx_buf`` to read and every ``rx_buf`` to fill; the third request has all the bytes to send, and the
answer carries what came back on MISO, which the kernel copies to the ``rx_buf``s (fs/fuse/ioctl.c,
include/uapi/linux/fuse.h, include/uapi/linux/spi/spidev.h, drivers/spi/spidev.c: the result is the
message's length). A record's ``cs_change`` ends a chip-select frame, as the controller would.

Run by the agent as a helper (``vm.helper``): ``cuse_spi.py 0.0 0.1 …`` starts one device per argument
and then answers one JSON line for each line of commands on its standard input:

* ``{"op": "now"}``: the guest's monotonic and real clocks;
* ``{"op": "lay", "reader": "0.0", "card": {"kind", "uid", "text"?, "noisy"?}, "at": S, "until": S?,
  "gaps": [[start, length], …]?, "from": T?}``: a card laid ``at`` seconds from now, or from the guest's
  moment ``T`` (relative; ``until`` likewise), flickering out of the field during each gap; answers the
  absolute times, ``from`` among them (two cards laid from one moment lie down together however late the
  second request arrives);
* ``{"op": "clear", "reader"}``: every card gone (at once);
* ``{"op": "wiring", "reader", "stuck": 0 | 255 | null}``: MISO held low or high (nothing answers), or wired;
* ``{"op": "version", "reader", "value": N}``: the chip's VersionReg, from its next soft reset on (and now);
* ``{"op": "stats"}``: SPI frames, transceives and ioctls per device, and this process's CPU seconds.

Standard library only (the VM's own python3).
"""

from __future__ import annotations

import errno
import json
import os
import struct
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mfrc522_model import Card, Mfrc522Model, build

IN_HEADER = struct.Struct("<IIQQIIIHH")  # fuse_in_header: len, opcode, unique, nodeid, uid, gid, pid, extlen, pad
OUT_HEADER = struct.Struct("<IiQ")  # fuse_out_header: len, error, unique
CUSE_INIT_OUT = struct.Struct("<IIIIIIII40x")  # major, minor, unused, flags, max_read, max_write, dev maj/min
IOCTL_IN = struct.Struct("<QIIQII")  # fh, flags, cmd, arg, in_size, out_size
IOCTL_OUT = struct.Struct("<iIII")  # result, flags, in_iovs, out_iovs
IOVEC = struct.Struct("<QQ")
TRANSFER = struct.Struct("<QQIIHBBBBBB")  # struct spi_ioc_transfer
OPEN_OUT = struct.Struct("<QIi")  # fh, open_flags, backing_id

CUSE_INIT, FUSE_OPEN, FUSE_READ, FUSE_WRITE, FUSE_RELEASE, FUSE_FLUSH = 4096, 14, 15, 16, 18, 25
FUSE_INTERRUPT, FUSE_IOCTL, FUSE_POLL, FUSE_DESTROY = 36, 39, 40, 38
CUSE_UNRESTRICTED_IOCTL = 1
FUSE_IOCTL_RETRY = 1 << 2
FOPEN_DIRECT_IO, FOPEN_NONSEEKABLE = 1, 4
IOC_WRITE, IOC_READ = 1, 2
SPI_MAGIC = ord("k")


class SpiDevice:
    """One ``/dev/spidevB.C``: its CUSE channel, its SPI settings, the chip behind its chip select."""

    def __init__(self, name: str, model: Mfrc522Model) -> None:
        self.name = name
        self.model = model
        self.mode, self.bits, self.speed = 0, 8, 500_000
        self.ioctls = 0
        self.messages = 0
        self.ready = threading.Event()
        self.fd = os.open("/dev/cuse", os.O_RDWR | os.O_CLOEXEC)
        threading.Thread(target=self._serve, name=f"cuse-{name}", daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                request = os.read(self.fd, 1 << 17)
            except OSError as error:
                if error.errno in (errno.EINTR, errno.EAGAIN, errno.ENOENT):
                    continue  # ENOENT: a request interrupted before we read it
                if error.errno == errno.ENODEV:
                    return  # the kernel closed the channel
                raise
            length, opcode, unique, *_ = IN_HEADER.unpack_from(request)
            body = request[IN_HEADER.size:length]
            if opcode == FUSE_INTERRUPT:
                continue  # no reply to an interrupt; every request here is answered at once anyway
            try:
                status, payload = self._answer(opcode, body)
            except Exception as failure:  # a bug here must not hang the referee's ioctl: say EIO
                print(f"cuse_spi {self.name}: {type(failure).__name__}: {failure}", file=sys.stderr, flush=True)
                status, payload = -errno.EIO, b""
            reply = OUT_HEADER.pack(OUT_HEADER.size + len(payload), status, unique) + payload
            try:
                os.write(self.fd, reply)
            except OSError as failure:
                if failure.errno != errno.ENOENT:  # ENOENT: the request was interrupted meanwhile
                    raise

    def _answer(self, opcode: int, body: bytes) -> tuple[int, bytes]:
        if opcode == CUSE_INIT:
            major, minor, _unused, _flags = struct.unpack_from("<IIII", body)
            info = f"DEVNAME={self.name}\0".encode()
            self.ready.set()
            return 0, CUSE_INIT_OUT.pack(major, min(minor, 31), 0, CUSE_UNRESTRICTED_IOCTL, 1 << 16, 1 << 16, 0, 0) \
                + info
        if opcode == FUSE_OPEN:
            return 0, OPEN_OUT.pack(0, FOPEN_DIRECT_IO | FOPEN_NONSEEKABLE, 0)
        if opcode in (FUSE_RELEASE, FUSE_FLUSH, FUSE_DESTROY):
            return 0, b""
        if opcode == FUSE_IOCTL:
            return self._ioctl(body)
        if opcode == FUSE_WRITE:  # spidev's write(): one frame, half duplex (what came back is dropped)
            size = struct.unpack_from("<QQI", body)[2]
            data = body[40:40 + size]
            self.model.spi_frame(bytes(data))
            return 0, struct.pack("<II", len(data), 0)
        if opcode == FUSE_READ:  # spidev's read(): one frame of zeros out, what came back in
            size = struct.unpack_from("<QQI", body)[2]
            return 0, self.model.spi_frame(bytes(min(size, 4096)))
        return -errno.ENOSYS, b""

    def _ioctl(self, body: bytes) -> tuple[int, bytes]:
        _fh, _flags, cmd, arg, in_size, out_size = IOCTL_IN.unpack_from(body)
        data = body[IOCTL_IN.size:IOCTL_IN.size + in_size]
        direction, size, kind, number = cmd >> 30, (cmd >> 16) & 0x3FFF, (cmd >> 8) & 0xFF, cmd & 0xFF
        self.ioctls += 1
        if kind != SPI_MAGIC:
            return -errno.ENOTTY, b""
        if number == 0 and direction == IOC_WRITE:
            return self._message(arg, size, data, in_size, out_size)
        fields = {1: ("mode", 1), 3: ("bits", 1), 4: ("speed", 4), 5: ("mode", 4)}  # MODE, BITS, SPEED, MODE32
        if number not in fields or fields[number][1] != size:
            return -errno.ENOTTY, b""
        name, width = fields[number]
        layout = "<B" if width == 1 else "<I"
        if direction == IOC_WRITE:
            if in_size < width:
                return 0, _retry([(arg, width)], [])
            setattr(self, name, struct.unpack(layout, data[:width])[0])
            return 0, IOCTL_OUT.pack(0, 0, 0, 0)
        if direction == IOC_READ:
            if out_size < width:
                return 0, _retry([], [(arg, width)])
            return 0, IOCTL_OUT.pack(0, 0, 0, 0) + struct.pack(layout, getattr(self, name) & (0xFF if width == 1
                                                                                            else 0xFFFFFFFF))
        return -errno.ENOTTY, b""

    def _message(self, arg: int, size: int, data: bytes, in_size: int, out_size: int) -> tuple[int, bytes]:
        """SPI_IOC_MESSAGE(n), in the three rounds of an unrestricted ioctl (see the module's docstring)."""
        if size == 0 or size % TRANSFER.size:
            return -errno.EINVAL, b""
        if in_size < size:
            return 0, _retry([(arg, size)], [])
        records = [TRANSFER.unpack_from(data, i) for i in range(0, size, TRANSFER.size)]
        wanted_in = [(arg, size)] + [(r[0], r[2]) for r in records if r[0] and r[2]]
        wanted_out = [(r[1], r[2]) for r in records if r[1] and r[2]]
        if in_size != sum(n for _, n in wanted_in) or out_size != sum(n for _, n in wanted_out):
            return 0, _retry(wanted_in, wanted_out)
        offset, frame, pieces, received = size, bytearray(), [], []
        for index, (tx, rx, length, _speed, _delay, _bits, cs_change, *_) in enumerate(records):
            sent = data[offset:offset + length] if tx else bytes(length)
            offset += length if tx else 0
            pieces.append((len(frame), length, bool(rx)))
            frame += sent
            if cs_change or index == len(records) - 1:
                miso = self.model.spi_frame(bytes(frame))
                received += [miso[start:start + n] for start, n, wants in pieces if wants]
                frame, pieces = bytearray(), []
        self.messages += 1
        total = sum(r[2] for r in records)
        return 0, IOCTL_OUT.pack(total, 0, 0, 0) + b"".join(received)


def _seconds(value: object, default: float) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else default


def _retry(inward: list[tuple[int, int]], outward: list[tuple[int, int]]) -> bytes:
    return IOCTL_OUT.pack(0, FUSE_IOCTL_RETRY, len(inward), len(outward)) + \
        b"".join(IOVEC.pack(address, length) for address, length in inward + outward)


class Server:
    """The devices named on the command line and the commands on standard input."""

    def __init__(self, names: list[str]) -> None:
        self.devices: dict[str, SpiDevice] = {}
        self.cards: dict[str, Card] = {}
        for number, name in enumerate(names):
            self.devices[name] = SpiDevice(f"spidev{name}", Mfrc522Model(seed=number))
        for name, device in self.devices.items():
            if not device.ready.wait(30):
                raise SystemExit(f"cuse_spi: the kernel never sent CUSE_INIT for spidev{name}")
            path = Path(f"/dev/spidev{name}")
            for _ in range(300):
                if path.exists():
                    break
                time.sleep(0.05)

    def answer(self, request: dict[str, object]) -> dict[str, object]:
        op = request.get("op")
        now = time.monotonic()
        if op == "now":
            return {"now": now, "real": time.time()}
        if op == "stats":
            return {"cpu": time.process_time(), "devices": {
                name: {"frames": d.model.frames, "transceives": d.model.transceives, "ioctls": d.ioctls,
                       "messages": d.messages, "mode": d.mode, "bits": d.bits, "speed": d.speed}
                for name, d in self.devices.items()}}
        device = self.devices[str(request["reader"])]
        model = device.model
        if op == "lay":
            spec = request["card"]
            assert isinstance(spec, dict)
            key = f"{request['reader']}/{spec['uid']}"
            card = self.cards.get(key) or build(spec)
            self.cards[key] = card
            start = _seconds(request.get("from"), now)
            at = start + _seconds(request.get("at"), 0.0)
            until = start + _seconds(request.get("until"), float("inf"))
            spans = request.get("gaps") or []
            gaps = [(start + _seconds(span[0], 0.0), _seconds(span[1], 0.0)) for span in spans] \
                if isinstance(spans, list) else []
            if gaps:
                model.field.flicker(card, at, gaps, until)
            else:
                model.field.lay(card, at, until)
            return {"at": at, "real": time.time() + (at - now), "until": until if until != float("inf") else None,
                    "from": start}
        if op == "clear":
            model.field.clear()
            return {"cleared": True}
        if op == "wiring":
            stuck = request.get("stuck")
            model.miso_stuck = stuck if isinstance(stuck, int) else None
            return {"stuck": model.miso_stuck}
        if op == "version":
            value = request.get("value")
            model.version = value if isinstance(value, int) else 0x92
            model.regs[0x37] = model.version
            return {"version": model.version}
        return {"error": f"unknown op {op!r}"}


def main(argv: list[str]) -> None:
    server = Server(argv or ["0.0"])
    for line in sys.stdin:
        try:
            reply = server.answer(json.loads(line))
        except (ValueError, KeyError, TypeError, AssertionError) as error:
            reply = {"error": f"{type(error).__name__}: {error}"}
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
