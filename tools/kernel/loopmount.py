"""An image mounted for one look and gone without a trace: what the power-cut sweep needs at each of its points.

The sweep (tools/kernel/powercut.py) mounts hundreds of images one after the other on the host. Its
first versions reused the same image file (rewritten in place) and let ``losetup`` or ``mount -o
loop`` pick loop devices, and twice a handful of points read as games shorter than the state they
stood for. The cause, reproduced by hand: another process on the host made a mount namespace (the
kernel tier's own ``systemd-nspawn`` does, installing the referee in an image) while a point was
mounted. A new mount namespace starts as a copy of its parent's mounts, so that copy held the
point's filesystem alive after the sweep's ``umount`` (the loop device stayed attached, its
``losetup --detach`` only deferred), and the live filesystem later wrote back its dirty blocks
(the readers' ``-shm``, the inode table) through that loop device into the image file, which by then
held a later point. So here:

* the sweep process moves into a mount namespace of its own (``unshare(CLONE_NEWNS)`` and every
  mount made private, as ``unshare --mount`` does): a namespace another process makes is a copy of
  the host's, which no longer holds the sweep's mounts; and when the sweep dies its mounts go too;
* each image is a file of its own, never reused (:func:`mounted` is given a fresh path each time):
  a filesystem that outlived its point, if one ever did, could only write to its own file;
* the loop device is attached by the sweep itself (``LOOP_CONFIGURE`` with ``LO_FLAGS_AUTOCLEAR``,
  drivers/block/loop.c), held by one file descriptor: it detaches when the last holder closes it,
  and :func:`mounted` checks in sysfs that it did (:attr:`Mounted.released`);
* before the mount, every byte the image holds (its data extents, found with ``SEEK_DATA``) is read
  back through the loop device and compared: the device serves the image, not any other bytes.

The mount itself is ``mount(2)`` with what ``mount -o defaults,noatime`` passes (``MS_NOATIME``, no
data): a Pi's fstab line for its root. Root only; standard library only.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import os
import struct
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

_CLONE_NEWNS = 0x00020000  # <sched.h>
_LOOP_CTL_GET_FREE = 0x4C82  # <linux/loop.h>
_LOOP_CONFIGURE = 0x4C0A
_LO_FLAGS_AUTOCLEAR = 4
_MS_NOATIME = 1024  # <sys/mount.h>
#: struct loop_config: fd, block_size, then struct loop_info64 (5 u64, 4 u32, file name 64, crypt name 64, key 32,
#: 2 u64 init) and 8 reserved u64.
_LOOP_INFO64 = struct.Struct("=5Q4I64s64s32s2Q")
_LOOP_CONFIG = struct.Struct(f"=II{_LOOP_INFO64.size}s8Q")

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = (ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p)
_libc.umount2.argtypes = (ctypes.c_char_p, ctypes.c_int)
_libc.unshare.argtypes = (ctypes.c_int,)


def _check(result: int, what: str) -> None:
    if result != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{what}: {os.strerror(error)}")


_isolated = False


def isolate_mounts() -> None:
    """Put this process in a mount namespace of its own whose mounts propagate nowhere (``unshare --mount``).

    Call it first thing in a process of its own: the kernel refuses ``CLONE_NEWNS`` to a process with
    more than one thread."""
    global _isolated
    if _isolated:
        return
    if threading.active_count() > 1:
        raise RuntimeError("isolate_mounts() needs a process with one thread (run the sweep in its own process)")
    _check(_libc.unshare(_CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    subprocess.run(["mount", "--make-rprivate", "/"], check=True, capture_output=True, timeout=60)
    _isolated = True


def data_extents(fd: int) -> Iterator[tuple[int, int]]:
    """(offset, length) of every stretch of a sparse file that holds data (the rest reads as zeros)."""
    size = os.fstat(fd).st_size
    offset = 0
    while offset < size:
        try:
            start = os.lseek(fd, offset, os.SEEK_DATA)
        except OSError as error:  # ENXIO: only a hole is left
            if error.errno == errno.ENXIO:
                return
            raise
        end = os.lseek(fd, start, os.SEEK_HOLE)
        yield start, end - start
        offset = end


def _attach(image_fd: int, image: Path) -> tuple[int, str]:
    """A free loop device configured on ``image_fd`` with autoclear; its open descriptor and name."""
    info = _LOOP_INFO64.pack(0, 0, 0, 0, 0, 0, 0, 0, _LO_FLAGS_AUTOCLEAR, str(image).encode()[:63], b"", b"", 0, 0)
    config = _LOOP_CONFIG.pack(image_fd, 0, info, *([0] * 8))
    control = os.open("/dev/loop-control", os.O_RDWR | os.O_CLOEXEC)
    try:
        for _ in range(20):  # another process may take the device between the two calls: ask again
            number = fcntl.ioctl(control, _LOOP_CTL_GET_FREE)
            name = f"/dev/loop{number}"
            loop = os.open(name, os.O_RDWR | os.O_CLOEXEC)
            try:
                fcntl.ioctl(loop, _LOOP_CONFIGURE, config)
            except OSError as error:
                os.close(loop)
                if error.errno == errno.EBUSY:
                    continue
                raise
            return loop, name
    finally:
        os.close(control)
    raise OSError(errno.EBUSY, "no free loop device after 20 tries")


def _bound(name: str) -> bool:
    return Path(f"/sys/block/{Path(name).name}/loop/backing_file").exists()


@dataclass
class Mounted:
    """One mount: where its files are (None: the kernel would not mount it), and how it went."""

    root: Path | None
    device: str
    reason: str = ""  # why it did not mount
    released: bool = False  # the loop device was detached once the mount was gone (set on leaving)


def _read_back(image_fd: int, loop_fd: int) -> None:
    """Every byte of the image's data, read again through the loop device: the same, or AssertionError."""
    for offset, length in data_extents(image_fd):
        done = 0
        while done < length:
            size = min(1 << 20, length - done)
            want = os.pread(image_fd, size, offset + done)
            got = os.pread(loop_fd, size, offset + done)
            if got != want:
                raise AssertionError(f"the loop device does not serve the image at byte {offset + done}")
            done += size


@contextlib.contextmanager
def mounted(image: Path, mountpoint: Path, fstype: str = "ext4") -> Iterator[Mounted]:
    """``image`` on a loop device of its own, read back, mounted ``noatime`` on ``mountpoint``; unmounted and the
    device released on leaving (:attr:`Mounted.released` says it was)."""
    image_fd = os.open(image, os.O_RDWR | os.O_CLOEXEC)
    try:
        loop_fd, name = _attach(image_fd, image)
    finally:
        os.close(image_fd)  # the loop device holds the file now
    point = Mounted(None, name)
    try:
        with open(image, "rb") as file:
            _read_back(file.fileno(), loop_fd)
        if _libc.mount(name.encode(), str(mountpoint).encode(), fstype.encode(), _MS_NOATIME, None) != 0:
            point.reason = os.strerror(ctypes.get_errno())
            yield point
            return
        try:
            point.root = mountpoint
            yield point
        finally:
            _check(_libc.umount2(str(mountpoint).encode(), 0), f"umount {mountpoint}")
    finally:
        os.close(loop_fd)  # the last holder: autoclear detaches it
        for _ in range(50):  # the detach runs as the device's last opener goes; give a loaded host a moment
            if not _bound(name):
                point.released = True
                break
            time.sleep(0.01)
