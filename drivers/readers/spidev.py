"""Linux spidev in pure Python: the kernel's ioctls from ``include/uapi/linux/spi/spidev.h``, no C to build.

A transfer is one ``SPI_IOC_MESSAGE(n)`` ioctl: ``n`` ``struct spi_ioc_transfer`` records (32 bytes each:
``tx_buf``, ``rx_buf`` as user-space addresses, ``len``, ``speed_hz``, ``delay_usecs``, ``bits_per_word``,
``cs_change``, ``tx_nbits``, ``rx_nbits``, ``word_delay_usecs``, a pad byte), full duplex. Each frame a
caller gives is one record, and every record but the last has ``cs_change`` set, so the chip select
drops between frames, as an MFRC522 needs between two register accesses (datasheet §8.1.2.3). The
buffers are ctypes arrays kept alive for the call; a message sent again (the reader's poll sends the
same bytes every time) reuses its prepared records, so an idle poll builds nothing.

Why not the ``spidev`` package: it is a C extension with no wheel on PyPI for the Pi (a compiler on a
Pi Zero), and this is the whole of what the reader needs from it (docs/readers.md, *RC522*).
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import struct
from collections.abc import Sequence

_IOC_WRITE, _IOC_READ = 1, 2
SPI_IOC_MAGIC = ord("k")
TRANSFER = struct.Struct("<QQIIHBBBBBB")  # struct spi_ioc_transfer: 32 bytes
#: A transfer longer than this is refused by spidev's message size check (SPI_MSGSIZE), far above our needs.
MAX_FRAMES = 64


def _ioc(direction: int, number: int, size: int) -> int:
    return (direction << 30) | (size << 16) | (SPI_IOC_MAGIC << 8) | number


def spi_ioc_message(count: int) -> int:
    """``SPI_IOC_MESSAGE(count)``: ``_IOW('k', 0, char[count * 32])``."""
    return _ioc(_IOC_WRITE, 0, count * TRANSFER.size)


SPI_IOC_WR_MODE = _ioc(_IOC_WRITE, 1, 1)
SPI_IOC_RD_MODE = _ioc(_IOC_READ, 1, 1)
SPI_IOC_WR_BITS_PER_WORD = _ioc(_IOC_WRITE, 3, 1)
SPI_IOC_WR_MAX_SPEED_HZ = _ioc(_IOC_WRITE, 4, 4)
SPI_IOC_RD_MAX_SPEED_HZ = _ioc(_IOC_READ, 4, 4)


class _Prepared:
    """One message's records and buffers, ready to go to the kernel again."""

    def __init__(self, frames: Sequence[bytes], speed_hz: int) -> None:
        total = sum(len(frame) for frame in frames)
        self.tx = ctypes.create_string_buffer(b"".join(frames), max(1, total))
        self.rx = ctypes.create_string_buffer(max(1, total))
        self.cuts: list[tuple[int, int]] = []
        records = bytearray()
        offset = 0
        tx_address, rx_address = ctypes.addressof(self.tx), ctypes.addressof(self.rx)
        for number, frame in enumerate(frames):
            last = number == len(frames) - 1
            records += TRANSFER.pack(tx_address + offset, rx_address + offset, len(frame), speed_hz, 0, 8,
                                     0 if last else 1, 0, 0, 0, 0)
            self.cuts.append((offset, offset + len(frame)))
            offset += len(frame)
        self.records = records
        self.request = spi_ioc_message(len(frames))


class Spidev:
    """An open ``/dev/spidevB.C``, mode 0, 8 bits a word, at ``speed_hz``; :meth:`transfer` sends frames."""

    def __init__(self, path: str, speed_hz: int = 1_000_000) -> None:
        self.path = path
        self.speed_hz = speed_hz
        self._prepared: dict[tuple[bytes, ...], _Prepared] = {}
        self.fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
        try:
            fcntl.ioctl(self.fd, SPI_IOC_WR_MODE, struct.pack("B", 0))
            fcntl.ioctl(self.fd, SPI_IOC_WR_BITS_PER_WORD, struct.pack("B", 8))
            fcntl.ioctl(self.fd, SPI_IOC_WR_MAX_SPEED_HZ, struct.pack("<I", speed_hz))
        except BaseException:
            os.close(self.fd)
            raise

    def transfer(self, frames: Sequence[bytes]) -> list[bytes]:
        """Send each frame under its own chip select, in one ioctl; what came back on MISO, frame by frame."""
        if not frames or len(frames) > MAX_FRAMES:
            raise ValueError(f"an SPI message is 1 to {MAX_FRAMES} frames, not {len(frames)}")
        key = tuple(frames)
        prepared = self._prepared.get(key)
        if prepared is None:
            prepared = _Prepared(frames, self.speed_hz)
            if len(self._prepared) >= 64:  # the poll's few messages stay; one-off ones (FIFO data) come and go
                self._prepared.pop(next(iter(self._prepared)))
            self._prepared[key] = prepared
        fcntl.ioctl(self.fd, prepared.request, prepared.records, True)
        received = prepared.rx.raw
        return [received[start:end] for start, end in prepared.cuts]

    def mode(self) -> int:
        """The SPI mode the kernel holds for this device (0: CPOL 0, CPHA 0, what the MFRC522 wants)."""
        answer = bytearray(1)
        fcntl.ioctl(self.fd, SPI_IOC_RD_MODE, answer, True)
        return answer[0]

    def close(self) -> None:
        fd, self.fd = self.fd, -1
        if fd >= 0:
            os.close(fd)


def open_spidev(path: str, speed_hz: int, timeout: float = 0.0) -> Spidev:
    """The reader thread's factory (serial_reader.SerialFactory's shape: the timeout has no use on SPI)."""
    return Spidev(path, speed_hz)
