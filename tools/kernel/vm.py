"""Debian's own kernel in qemu, with the system test's trixie root: the machinery of the kernel tier.

* :func:`cached_kernel` downloads trixie's ``linux-image-amd64`` (the package it depends on, which
  holds the kernel and its modules) and ``busybox-static`` from the Debian archive with apt, its
  signatures checked, unpacks them with ``dpkg-deb`` and runs ``depmod``, once, into
  ``/var/cache/bornes-ci/kernel-VERSION/`` beside the root that ``tests/system`` builds.
* :class:`Image` is that root with the appliance installed, as an image builder makes it: an
  overlay on the cached root (which stays clean), ``systemd/install.sh --wheels … --hid …`` run in
  it by ``systemd-nspawn`` (no systemd running there: the units are enabled for the next boot),
  and the test's own files (its agent's unit, the modules to load at boot).
* :class:`VM` boots it: qemu-system-x86_64 with KVM where ``/dev/kvm`` works, TCG otherwise; a
  busybox initramfs mounts the image over 9p (read-only) under a tmpfs overlay and hands over to
  its systemd. The test talks to the agent (``guest/agent.py``) over a virtio-serial port: the only
  link between host and guest; the guest has no network at all.
"""

from __future__ import annotations

import contextlib
import fcntl
import gzip
import hashlib
import json
import lzma
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tools.checkout import REPO, copy_source, source_files
from tools.trixie import CACHE, MIRROR, SUITE, CannotBoot

GUEST = Path(__file__).resolve().parent / "guest"
#: The kernel the tier boots: trixie's metapackage names it (``linux-image-6.12.N+deb13-amd64``).
KERNEL_PACKAGE = "linux-image-amd64"
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
#: What the initramfs loads to mount a 9p root under an overlay (virtio-pci is built in).
BOOT_MODULES = ("9pnet_virtio", "9p", "overlay")
#: Loaded at boot by the guest's systemd-modules-load: the USB host side, the gadget side on
#: dummy_hcd (one emulated controller per gadget: ``num``), and uinput for tests/readers' test.
GUEST_MODULES = ("dummy_hcd", "libcomposite", "usb_f_hid", "usb_f_acm", "uinput", "evdev")
DUMMY_CONTROLLERS = 8
#: Units of the shared root the VM has no use for, masked so the boot (emulated, often) is short:
#: the system test's pty reader (the gadgets are the readers here), the broker, timers, a login prompt.
MASKED = ("bornes-test-reader.service", "mosquitto.service", "getty@tty1.service", "systemd-pstore.service",
          "apt-daily.timer", "apt-daily-upgrade.timer", "dpkg-db-backup.timer", "fstrim.timer",
          "systemd-binfmt.service", "proc-sys-fs-binfmt_misc.automount", "systemd-logind.service",
          "systemd-update-utmp.service", "systemd-update-utmp-runlevel.service", "e2scrub_reap.service",
          "serial-getty@ttyS0.service",
          # First-boot chores of a fresh root (ConditionNeedsUpdate, seeds, catalogues), done on every
          # boot here since the VM writes nothing back: none of them is under test.
          "ldconfig.service", "systemd-journal-catalog-update.service", "systemd-update-done.service",
          "systemd-hwdb-update.service", "systemd-random-seed.service", "systemd-sysusers.service",
          "systemd-journal-flush.service", "systemd-firstboot.service", "systemd-machine-id-commit.service",
          "sys-fs-fuse-connections.mount", "modprobe@fuse.service", "dev-hugepages.mount", "dev-mqueue.mount",
          "sys-kernel-debug.mount", "sys-kernel-tracing.mount", "systemd-hostnamed.socket",
          "systemd-tmpfiles-clean.timer",
          # Coldplug: udev replays the devices there at boot. The tests' devices are plugged after the
          # boot (hotplug: udev handles each as it comes); nothing there at boot is under test.
          "systemd-udev-trigger.service")
#: No Spectre mitigations in the test VM (it runs only the test's own code, offline): under TCG the
#: retpolines and the return-stack filling on each context switch are emulated instruction by
#: instruction, and they cost half of a Python start-up's time (importing the referee three times:
#: 24.5 qemu CPU seconds with them, 13.1 without; boot to running 69 s, 57 s).
MITIGATIONS = "mitigations=off"
#: Timers at the guest kernel's tick (250 a second), not in high resolution. ``dummy_hcd``, the host controller
#: every gadget of the tier (a scanner, a keypad, the CP2112) is plugged into, re-arms its transfer timer every
#: 125 µs (a USB microframe) for as long as any URB is queued, and usbhid keeps an interrupt URB queued for as long
#: as anyone has the device open, the kernel's console keyboard handler included: from the moment a scanner is
#: plugged, 8 000 guest timer interrupts a second, each emulated by TCG. An idle guest with one scanner plugged
#: took 0.69 of a host core against 0.03 with none; with ``highres=off``, 0.13 (two HID gadgets: 0.72 against
#: 0.19). The timer then fires at the next tick: one interrupt report per endpoint every 4 ms, as a full-speed
#: keyboard polled at bInterval 4 is read, well within a scanner's pace (drivers/readers/hid.py SCANNER_GAP).
TIMERS = "highres=off"
#: A TCG CPU without the VEX instructions (AVX, AVX2, FMA, F16C), for a guest that runs numpy or OpenCV.
#: qemu 7.2 (Debian bookworm's, this machine's) was the first to emulate them under TCG, and gets some
#: wrong: numpy 2.2's AVX2 argsort (x86-simd-sort) dies with SIGSEGV in the VM, and runs without it
#: (``NPY_DISABLE_CPU_FEATURES=AVX2``); code that computes silently wrong there would be worse. A Pi has
#: none of them (NEON is 128 bits): SSE4.2 is the closer stand-in anyway.
TCG_CPU_NO_AVX = "max,avx=off,avx2=off,fma=off,f16c=off"
#: Seconds ``udevadm settle`` may wait in the guest (:meth:`VM.udev_settle`): a starved guest's udevd answered no ping
#: in 30.
UDEV_SETTLE = 180
#: Drivers qemu's PC brings up that the tests never use: not loaded, a shorter boot.
BLACKLIST = ("floppy", "psmouse", "pcspkr", "kvm", "kvm_amd", "kvm_intel", "ata_piix", "ata_generic", "libata",
             "i2c_piix4", "serio_raw", "qemu_fw_cfg")
AGENT_UNIT = """\
[Unit]
Description=The kernel tier's agent (tools/kernel/guest/agent.py): runs the host's commands
DefaultDependencies=no
After=local-fs.target

[Service]
ExecStart=/usr/bin/python3 /opt/bornes-kernel/agent.py

[Install]
WantedBy=sysinit.target
"""


# -- the kernel, from the Debian archive ---------------------------------------------------------


@dataclass(frozen=True)
class Kernel:
    """An unpacked Debian kernel: ``vmlinuz``, ``lib/modules/RELEASE`` (depmod run), busybox."""

    folder: Path

    @property
    def release(self) -> str:
        return self.folder.name.removeprefix("kernel-")

    @property
    def vmlinuz(self) -> Path:
        return self.folder / f"boot/vmlinuz-{self.release}"

    @property
    def modules(self) -> Path:
        return self.folder / "lib/modules" / self.release

    @property
    def busybox(self) -> Path:
        return self.folder / "busybox/usr/bin/busybox"

    @property
    def package(self) -> str:
        return (self.folder / "package").read_text().strip()

    def config(self, name: str) -> str | None:
        """``CONFIG_NAME``'s value in the kernel's own config (``y``, ``m``), None when not set."""
        match = re.search(rf"^CONFIG_{name}=(.*)$", (self.folder / f"boot/config-{self.release}").read_text(),
                          re.MULTILINE)
        return match.group(1) if match else None


@contextlib.contextmanager
def _locked(name: str) -> Iterator[None]:
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _run(command: list[str], what: str, timeout: float = 600) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise CannotBoot(f"{what} took more than {timeout:.0f} s") from None
    except FileNotFoundError:
        raise CannotBoot(f"{what}: {command[0]} is not installed") from None
    if done.returncode != 0:
        last = (done.stderr.strip() or done.stdout.strip() or "no output").splitlines()[-1]
        raise CannotBoot(f"{what} failed: {last}")
    return done.stdout


def cached_kernel() -> Kernel:
    """Trixie's kernel, from the cache beside the root, or downloaded there first (about a minute)."""
    with _locked("kernel"):
        for done in sorted(CACHE.glob("kernel-*/.complete"), reverse=True):
            return Kernel(done.parent)
        work = Path(tempfile.mkdtemp(prefix="kernel-download-", dir=CACHE))
        try:
            return _download_kernel(work)
        finally:
            shutil.rmtree(work, ignore_errors=True)


def _download_kernel(work: Path) -> Kernel:
    """apt with a private state: trixie's index (signed, checked against Debian's keyring), then the packages."""
    for sub in ("lists/partial", "cache/archives/partial", "etc"):
        (work / sub).mkdir(parents=True)
    (work / "etc/sources.list").write_text(f"deb [signed-by={KEYRING}] {MIRROR} {SUITE} main\n")
    (work / "status").touch()
    apt = [f"-oDir::Etc::SourceList={work}/etc/sources.list", f"-oDir::Etc::SourceParts={work}/etc",
           f"-oDir::State::Lists={work}/lists", f"-oDir::Cache={work}/cache", f"-oDir::State::status={work}/status",
           f"-oDir::Etc::Preferences={work}/etc/none", f"-oDir::Etc::PreferencesParts={work}/etc",
           "-oAPT::Architecture=amd64", "-oAPT::Sandbox::User=root", "-oDebug::NoLocking=1"]
    _run(["apt-get", *apt, "-qq", "update"], f"apt-get update for {SUITE}")
    shown = _run(["apt-cache", *apt, "show", KERNEL_PACKAGE], f"apt-cache show {KERNEL_PACKAGE}")
    match = re.search(r"^Depends:.*?\b(linux-image-(\S+?)-amd64)\b", shown, re.MULTILINE)
    if match is None:
        raise CannotBoot(f"{KERNEL_PACKAGE} in {SUITE} names no linux-image package")
    package, release = match.group(1), f"{match.group(2)}-amd64"
    folder = CACHE / f"kernel-{release}"
    _run(["bash", "-c", f'cd "{work}" && apt-get "$@" -qq download {package} busybox-static', "apt", *apt],
         f"apt-get download {package}")
    partial = work / "unpacked"
    for deb in work.glob("*.deb"):
        target = partial / ("busybox" if deb.name.startswith("busybox") else "")
        _run(["dpkg-deb", "-x", str(deb), str(target)], f"dpkg-deb -x {deb.name}")
    (partial / "lib/modules").mkdir(parents=True)
    (partial / "usr/lib/modules" / release).rename(partial / "lib/modules" / release)
    _run(["depmod", "-b", str(partial), release], "depmod")
    (partial / "package").write_text(f"{package} {_deb_version(work, package)}\n")
    (partial / ".complete").touch()
    shutil.rmtree(folder, ignore_errors=True)
    partial.rename(folder)
    for stale in CACHE.glob("kernel-*"):  # an older kernel: keep the cache small
        if stale != folder and stale.is_dir() and not stale.name.startswith("kernel-download-"):
            shutil.rmtree(stale, ignore_errors=True)
    return Kernel(folder)


def _deb_version(work: Path, package: str) -> str:
    debs = list(work.glob(f"{package}_*.deb"))
    return debs[0].name.split("_")[1].replace("%3a", ":") if debs else "?"


# -- the initramfs ---------------------------------------------------------------------------------


def _with_dependencies(kernel: Kernel, names: Iterable[str]) -> list[str]:
    """Module files (relative, ``.ko.xz``), each after what it needs, from depmod's modules.dep."""
    needs: dict[str, list[str]] = {}
    for line in (kernel.modules / "modules.dep").read_text().splitlines():
        module, _, deps = line.partition(":")
        needs[module] = deps.split()
    by_name = {Path(path).name.split(".")[0].replace("-", "_"): path for path in needs}
    ordered: list[str] = []

    def add(path: str) -> None:
        for dep in reversed(needs[path]):  # modules.dep lists the deepest dependency last
            add(dep)
        if path not in ordered:
            ordered.append(path)

    for name in names:
        add(by_name[name])
    return ordered


def _cpio_entry(name: str, mode: int, data: bytes = b"") -> bytes:
    """One member of a ``newc`` cpio archive (the initramfs format)."""
    fields = [0, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name) + 1, 0]
    header = b"070701" + b"".join(f"{value:08X}".encode() for value in fields) + name.encode() + b"\0"
    header += b"\0" * (-len(header) % 4)
    return header + data + b"\0" * (-len(data) % 4)


def build_initramfs(kernel: Kernel, target: Path) -> Path:
    """busybox, the 9p and overlay modules (uncompressed: busybox's insmod reads them as they are), /init."""
    modules = _with_dependencies(kernel, BOOT_MODULES)
    parts = [_cpio_entry(folder, 0o40755) for folder in ("bin", "lib", "lib/modules")]
    parts.append(_cpio_entry("bin/busybox", 0o100755, kernel.busybox.read_bytes()))
    parts.append(_cpio_entry("init", 0o100755, (GUEST / "init").read_bytes()))
    names = []
    for path in modules:
        name = Path(path).name.split(".")[0]
        data = (kernel.modules / path).read_bytes()
        parts.append(_cpio_entry(f"lib/modules/{name}.ko", 0o100644, lzma.decompress(data) if path.endswith(".xz")
                                 else data))
        names.append(name)
    parts.append(_cpio_entry("insmod.list", 0o100644, "\n".join(names).encode() + b"\n"))
    parts.append(_cpio_entry("TRAILER!!!", 0))
    target.write_bytes(gzip.compress(b"".join(parts), compresslevel=1))
    return target


# -- the image: the cached root with the appliance installed ------------------------------------


class Image:
    """An overlay of ``layers`` (the first on top) with a fresh upper folder, and the test's own files.

    The VM boots it; what the VM writes stays in the VM's memory, and what the test writes here
    (the agent's unit, the masks) in this image's upper folder, deleted on :meth:`close`. With
    ``keep`` the upper folder is kept on close: that is how :func:`installed_layer` makes a layer."""

    def __init__(self, layers: list[Path], kernel: Kernel, *, workdir: Path | None = None, keep: bool = False) -> None:
        self.kernel = kernel
        self.keep = keep
        self.workdir = workdir or Path(tempfile.mkdtemp(prefix="bornes-kernel-", dir="/var/tmp"))
        self.root = self.workdir / "root"
        self.upper = self.workdir / "upper"
        self.install_log = ""
        try:
            for folder in ("upper", "work", "root"):
                (self.workdir / folder).mkdir(parents=True)
            _run(["mount", "-t", "overlay", "overlay", "-o", f"lowerdir={':'.join(map(str, layers))},"
                  f"upperdir={self.upper},workdir={self.workdir}/work", str(self.root)],
                 "the overlay on the cached root")
        except BaseException:
            self.close()
            raise

    def guest_files(self) -> None:
        """The agent's unit, the modules to load, the units the VM has no use for masked (see MASKED)."""
        etc = self.root / "etc"
        (etc / "hostname").write_text("bornes-kernel\n")
        (etc / "systemd/system/bornes-agent.service").write_text(AGENT_UNIT)
        wants = etc / "systemd/system/sysinit.target.wants"
        wants.mkdir(parents=True, exist_ok=True)
        (wants / "bornes-agent.service").unlink(missing_ok=True)
        (wants / "bornes-agent.service").symlink_to("/etc/systemd/system/bornes-agent.service")
        (etc / "modules-load.d").mkdir(exist_ok=True)
        (etc / "modules-load.d/bornes-kernel.conf").write_text("\n".join(GUEST_MODULES) + "\n")
        (etc / "modprobe.d").mkdir(exist_ok=True)
        (etc / "modprobe.d/bornes-kernel.conf").write_text(f"options dummy_hcd num={DUMMY_CONTROLLERS}\n")
        # The journal in memory (the root is a tmpfs overlay anyway), nothing on the console but the kernel's; in
        # one file for the whole boot: by default a 1 GiB guest's runtime journal is rotated every 2.5 MB (an
        # eighth of a tenth of /run), a boot and a power-cut module's set-up fill that, and a rotation is when
        # ``journalctl --follow`` (the agent's journal reader) has been seen to stop (guest/agent.py, Journal).
        (etc / "systemd/journald.conf.d").mkdir(parents=True, exist_ok=True)
        (etc / "systemd/journald.conf.d/bornes-kernel.conf").write_text(
            "[Journal]\nStorage=volatile\nRuntimeMaxUse=128M\nRuntimeMaxFileSize=64M\n")  # journald: use >= 2 files
        for unit in MASKED:
            masked = etc / "systemd/system" / unit
            if masked.is_symlink() or masked.exists():
                masked.unlink()
            masked.symlink_to("/dev/null")
        # udev's FIDO probe (60-fido-id.rules: fido_id run on every hidraw node): the gadgets and bridges make one
        # each time they are plugged, and no security key is under test. 27 runs, 6 CPU-s of the readers' module
        # under TCG. A rule file of the same name in /etc masks it (udev(7)).
        (etc / "udev/rules.d").mkdir(parents=True, exist_ok=True)
        (etc / "udev/rules.d/60-fido-id.rules").unlink(missing_ok=True)
        (etc / "udev/rules.d/60-fido-id.rules").symlink_to("/dev/null")
        # Every generator too (fstab, getty, gpt-auto, sysv …: the VM has no fstab, disk, console login
        # nor init script): each is a program run before any unit, slow under TCG.
        masked_generators = etc / "systemd/system-generators"
        masked_generators.mkdir(parents=True, exist_ok=True)
        for generator in (self.root / "usr/lib/systemd/system-generators").iterdir():
            (masked_generators / generator.name).unlink(missing_ok=True)
            (masked_generators / generator.name).symlink_to("/dev/null")

    def nspawn(self, *command: str, what: str, timeout: float = 600) -> str:
        """A command in the image (not booted: an image builder's chroot, with a private network)."""
        return _run(["systemd-nspawn", "--quiet", "--register=no", "--keep-unit", "--private-network",
                     "--directory", str(self.root), "--setenv=LANG=C.UTF-8", *command], what, timeout=timeout)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            subprocess.run(["umount", "--lazy", str(self.root)], capture_output=True, timeout=60, check=False)
        if _mounted(self.workdir):
            return
        if self.keep:
            for folder in ("work", "root"):
                shutil.rmtree(self.workdir / folder, ignore_errors=True)
        else:
            shutil.rmtree(self.workdir, ignore_errors=True)


#: Bump when the way the installed layer is made changes (what install_layer runs), so cached layers are rebuilt.
LAYER_RECIPE = "2"
#: The tests of tests/readers that need /dev/uinput, run in the VM (tests/kernel) with pytest beside the referee.
UINPUT_TESTS = ("/opt/bornes/src/tests/readers/test_hid.py", "-k", "uinput or queues_only_keys")
#: Installed layers kept in the cache (a few branches tested one after the other on one machine).
LAYERS_KEPT = 3


#: The tier's own machinery and tests are not installed in the image (the VM gets guest/ over 9p): left out of
#: the layer and its key, so changing them reuses the cached install.
NOT_INSTALLED = (Path("tools/kernel"), Path("tests/kernel"))


def _source_digest() -> str:
    """A hash of the checkout's source as the image gets it (copy_source, less NOT_INSTALLED): names and contents."""
    digest = hashlib.sha256()
    for relative in source_files():
        if any(relative.is_relative_to(folder) for folder in NOT_INSTALLED):
            continue
        digest.update(str(relative).encode() + b"\0")
        path = REPO / relative
        digest.update(os.readlink(path).encode() if path.is_symlink() else path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def installed_layer(pristine: Path, wheels: Path, kernel: Kernel, install: tuple[str, ...], config: str) -> Path:
    """The root with bornes installed by ``install.sh INSTALL`` (and pytest beside it for tests/readers'
    uinput test), as an overlay layer: its upper folder, cached beside the root under a hash of
    everything that makes it (the checkout's source, the root, the wheels, the arguments, the
    config), so a second run of the same tree boots at once and any change installs afresh."""
    key = hashlib.sha256("\n".join([LAYER_RECIPE, _source_digest(), pristine.name, wheels.name, *install,
                                     config]).encode()).hexdigest()[:16]
    layer = CACHE / f"installed-image-{key}"  # not kernel-*: those are the kernels
    with _locked("installed-image"):
        if (layer / ".complete").exists():
            os.utime(layer)  # recently used: kept by the pruning below
            return layer / "upper"
        partial = layer.with_name(layer.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        image = Image([pristine], kernel, workdir=partial, keep=True)
        try:
            copy_source(image.root / "opt/bornes/src")
            for folder in NOT_INSTALLED:
                shutil.rmtree(image.root / "opt/bornes/src" / folder)
            shutil.copytree(wheels, image.root / "var/cache/bornes-wheels")
            (image.root / "etc/bornes").mkdir(parents=True, exist_ok=True)
            (image.root / "etc/bornes/config.toml").write_text(config)
            log = image.nspawn("bash", "/opt/bornes/src/systemd/install.sh", *install, what="install.sh in the image")
            (image.root / "var/log/bornes-kernel-install.log").write_text(log)
            # pytest beside the installed referee (/opt/bornes-tests), for tests/readers' uinput test: from the
            # pinned wheels, offline, seeing the appliance's own packages, never changing them.
            image.nspawn("python3", "-m", "venv", "--system-site-packages", "/opt/bornes-tests", what="the test venv")
            image.nspawn("/opt/bornes-tests/bin/pip", "install", "-q", "--no-index", "--find-links",
                         "/var/cache/bornes-wheels", "pytest", "hypothesis", what="pytest in the test venv")
            site = "lib/python3.13/site-packages"
            (image.root / "opt/bornes-tests" / site / "bornes-appliance.pth").write_text(f"/opt/bornes/venv/{site}\n")
            # pytest's rewritten bytecode of the tests it runs in the VM, made here at the host's speed
            # (under TCG, compiling them took most of that test's time at every boot).
            image.nspawn("/opt/bornes-tests/bin/python", "-m", "pytest", "--collect-only", "-q", "-p",
                         "no:cacheprovider", "-o", "addopts=", *UINPUT_TESTS, what="the VM's tests compiled")
        finally:
            image.close()
        if _mounted(partial):
            raise CannotBoot(f"the overlay on {partial} would not unmount")
        (partial / ".complete").touch()
        partial.rename(layer)
        others = sorted((p for p in CACHE.glob("installed-image-*") if p != layer), key=lambda p: p.stat().st_mtime)
        in_use = Path("/proc/self/mountinfo").read_text()
        for stale in others[:max(0, len(others) - (LAYERS_KEPT - 1))]:
            if str(stale) not in in_use:  # another run's VM may be booted on it
                shutil.rmtree(stale, ignore_errors=True)
        return layer / "upper"


def _mounted(under: Path) -> list[str]:
    found = []
    with open("/proc/self/mountinfo") as table:
        for line in table:
            point = line.split()[4].encode().decode("unicode_escape")
            if point == str(under) or point.startswith(f"{under}/"):
                found.append(point)
    return found


# -- the virtual machine -------------------------------------------------------------------------------


#: The host's /dev/kvm is PVM (Ant Group's pagetable-based KVM for hosts without VT-x, as in some cloud VMs):
#: it runs only kernels built as PVM guests. Debian's is not one: it dies in its decompressor there
#: ("KVM internal error", and the host's log says "kvm-pvm: INTERNAL_ERROR in batch emul").
PVM = Path("/sys/module/kvm_pvm")


def kvm_problem() -> str | None:
    """Why KVM cannot boot Debian's kernel here (None: use it). ``/dev/kvm`` must open and make a VM
    (KVM_CREATE_VM): present is not enough (no permission, nested); and it must not be PVM."""
    try:
        fd = os.open("/dev/kvm", os.O_RDWR | os.O_CLOEXEC)
    except OSError as error:
        return f"/dev/kvm does not open: {error.strerror}"
    try:
        vm = fcntl.ioctl(fd, 0xAE01, 0)  # KVM_CREATE_VM
        os.close(vm)
    except OSError as error:
        return f"/dev/kvm makes no VM: {error.strerror}"
    finally:
        os.close(fd)
    if PVM.exists():
        return ("/dev/kvm is kvm_pvm (PVM: no VT-x on this host), which runs only kernels built as PVM guests; "
                "Debian's dies in its decompressor there")
    return None


def _die_with_the_test() -> None:
    """In qemu's child before exec: SIGKILL when the process that started it dies. qemu runs in a session of its
    own (a Ctrl-C meant for pytest must not reach it half-way through a power-off), so a test process killed
    outright (a CI job's timeout, SIGKILL) would otherwise leave its VM running, a CPU busy, for good: seen here,
    ten such VMs on one 2-core machine. Linux's PR_SET_PDEATHSIG (prctl(2))."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(1, signal.SIGKILL, 0, 0, 0) != 0:  # PR_SET_PDEATHSIG = 1
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG)")


@dataclass
class Done:
    """What a command in the guest did."""

    rc: int
    stdout: str
    stderr: str


#: How an oops begins on the console, and the lines of its head worth quoting (those, where, and which task).
OOPS_START = r"BUG: |Oops: |general protection fault|WARNING: |Kernel panic - "
OOPS_HEAD = re.compile(rf"\] ((?:{OOPS_START}|RIP: |Code: |RSP: .*EFLAGS: |CPU: \d+ .*Comm: ).*)$")
TRACE_FRAME = re.compile(r"\]  (\?? ?[\w.]+\+0x[0-9a-f]+/0x[0-9a-f]+(?: \[\w+\])?)$")


def oops_summary(console: str, frames: int = 12) -> str:
    """The first oops in a guest's console log in one line: what it was, where (RIP, the task) and the
    first ``frames`` of its call trace (reliable ones: the ``?`` guesses left out); "" if none."""
    lines = console.splitlines()
    start = next((i for i, line in enumerate(lines) if re.search(rf"\] (?:{OOPS_START})", line)), None)
    if start is None:
        return ""
    said: list[str] = []
    trace: list[str] = []
    for line in lines[start:start + 120]:
        if (head := OOPS_HEAD.search(line)) and head.group(1) not in said and len(said) < 7:
            said.append(head.group(1).strip())
        elif (frame := TRACE_FRAME.search(line)) and not frame.group(1).startswith("?") and len(trace) < frames:
            trace.append(frame.group(1))
    return "; ".join(said) + (f"; call trace: {' < '.join(trace)}" if trace else "")


#: The kernel modules that play the test's USB devices, the gadget side of ``dummy_hcd``: a Pi at a table
#: is the USB host of a real reader and runs none of them. The host side (usbhid, hid, evdev, cdc_acm,
#: the input core) is the path the referee's readers take on a Pi, and an oops there is no apparatus's.
APPARATUS_MODULES = frozenset({"dummy_hcd", "udc_core", "libcomposite", "usb_f_hid", "usb_f_acm", "u_serial"})


def oops_module(summary: str) -> str | None:
    """The innermost kernel module an oops summary names: its RIP's, or else its call trace's first."""
    named = re.findall(r"(?:RIP: \S+|[\w.]+\+0x[0-9a-f]+/0x[0-9a-f]+) \[(\w+)\]", summary)
    return named[0] if named else None


#: The RFLAGS bits an x86-64 CPU defines (CF, the fixed 1, PF, AF, ZF, SF, TF, IF, DF, OF, IOPL, NT, RF, VM, AC,
#: VIF, VIP, ID: Intel SDM vol. 1, 3.4.3); the others read as 0 on every CPU.
DEFINED_FLAGS = 0x3F7FD7


def impossible_flags(summary: str) -> bool:
    """The oops's saved EFLAGS has a bit set that no x86 CPU sets, or its always-1 bit clear: the state the
    fault was taken in is the emulator's corruption (qemu's TCG), not a state the guest's code can reach."""
    found = re.search(r"EFLAGS: ([0-9a-f]+)", summary)
    if found is None:
        return False
    flags = int(found.group(1), 16)
    return bool(flags & ~DEFINED_FLAGS) or not flags & 0x2


def stale_breakpoint(summary: str) -> bool:
    """An int3 trap whose byte the kernel's text no longer holds: the CPU ran a breakpoint the kernel had already
    patched away. Live patching (static keys, alternatives) writes an int3 over the first byte of a site, the
    rest, then the site's own first byte, and makes every CPU serialise after each write (``text_poke_bp``), so
    on a CPU no core can run that int3 once it is gone; qemu's multi-threaded TCG ran one from a translation it
    had not yet thrown away (CI: ``sched_clock_cpu``'s static key flipped while booting, the site read ``66 90``)."""
    if not re.search(r"Oops: int3\b", summary):
        return False
    found = re.search(r"Code: (?:[0-9a-f]{2} )*([0-9a-f]{2}) <[0-9a-f]{2}>", summary)
    return found is not None and found.group(1) != "cc"  # the trap's address is just past the int3's byte


def emulators_fault(summary: str) -> bool:
    """The oops is one the emulator made, not the guest's code: a state or a trap no x86 CPU could give."""
    return impossible_flags(summary) or stale_breakpoint(summary)


class GuestOops(ConnectionError):
    """The guest's kernel oopsed and the VM is gone. ``apparatus``: the oops is in the test's own USB
    devices' modules (:data:`APPARATUS_MODULES`), not in anything the referee's path on a Pi runs.
    ``emulator``: the oops is one no CPU could give (:func:`emulators_fault`; seen in CI: a double fault in PID
    1's kmalloc, at a cmpxchg16b, EFLAGS d07b4242; an int3 at a static key's site already patched back)."""

    def __init__(self, message: str, summary: str) -> None:
        super().__init__(message)
        self.summary = summary
        self.module = oops_module(summary)
        self.apparatus = self.module in APPARATUS_MODULES
        self.emulator = emulators_fault(summary)


class EmulatorOopsWarning(UserWarning):
    """A boot that the emulator's fault ended was made again (:meth:`VM.start`)."""


class VM:
    """The image booted by Debian's kernel in qemu; ``run()`` runs a command inside through the agent."""

    def __init__(self, image: Image, *, memory_mb: int = 1024, cpus: int = 2,
                 shares: tuple[tuple[str, Path], ...] = (), tcg_cpu: str = "max") -> None:
        """``shares``: more host folders, (tag, path), read-only 9p for the guest to mount by its tag
        (``mount -t 9p -o trans=virtio,ro TAG DIR``; without ``cache=``, every read sees the host's file).
        ``tcg_cpu``: qemu's ``-cpu`` under TCG (KVM uses the host's); see :data:`TCG_CPU_NO_AVX`."""
        self.image = image
        self.shares = shares
        self.tcg_cpu = tcg_cpu
        self.kvm_problem = kvm_problem()  # why TCG, if it is
        self.accel = "tcg" if self.kvm_problem else "kvm"
        self.console = image.workdir / "console.log"
        self.socket_path = image.workdir / "agent.sock"
        self.initrd = build_initramfs(image.kernel, image.workdir / "initrd.gz")
        self.memory_mb, self.cpus = memory_mb, cpus
        self.process: subprocess.Popen[bytes] | None = None
        self.agent: socket.socket | None = None
        self._pending = b""
        self._requests = 0
        self.boot_seconds = 0.0
        self.agent_seconds = 0.0
        self.journal_notes: dict[str, str] = {}  # what the guest's journal reader of each unit said of itself
        self._kept: Path | None = None  # the console log of a boot that oopsed, kept past the image

    def command(self) -> list[str]:
        kernel = self.image.kernel
        shares = [("root", self.image.root), ("modules", kernel.modules), ("guest", GUEST), *self.shares]
        command = ["qemu-system-x86_64", "-name", "bornes-kernel",
                   "-accel", "kvm" if self.accel == "kvm" else "tcg,thread=multi,tb-size=256",
                   "-cpu", "host" if self.accel == "kvm" else self.tcg_cpu, "-m", str(self.memory_mb),
                   "-smp", str(self.cpus),
                   "-nodefaults", "-no-user-config", "-display", "none", "-no-reboot",
                   "-serial", f"file:{self.console}",
                   "-kernel", str(kernel.vmlinuz), "-initrd", str(self.initrd),
                   "-append", "console=ttyS0 panic=-1 loglevel=4 systemd.show_status=false "
                   f"systemd.unit=multi-user.target modprobe.blacklist={','.join(BLACKLIST)} {MITIGATIONS} {TIMERS}"]
        for tag, path in shares:
            command += ["-fsdev", f"local,id={tag},path={path},security_model=passthrough,readonly=on",
                        "-device", f"virtio-9p-pci,fsdev={tag},mount_tag={tag}"]
        command += ["-device", "virtio-serial-pci",
                    "-chardev", f"socket,id=agent,path={self.socket_path},server=on,wait=off",
                    "-device", "virtserialport,chardev=agent,name=bornes.agent",
                    "-device", "virtio-rng-pci"]
        return command

    def start(self, timeout: float = 240.0) -> None:
        """Boot; return once the guest's systemd says the boot is over (running or degraded).

        With KVM first where /dev/kvm makes VMs; if the kernel dies under it (seen on nested
        hosts: "KVM internal error" in the kernel's decompressor), again under TCG, and
        :attr:`kvm_problem` says why. A boot whose kernel oopsed in a way only the emulator can cause
        (:func:`emulators_fault`) is booted once more, with an :class:`EmulatorOopsWarning` that says so."""
        if self.accel == "kvm":
            try:
                return self._start(timeout)
            except CannotBoot as error:
                self.kvm_problem = str(error)
                self.stop(timeout=5)
                self.accel = "tcg"
        try:
            self._start(timeout)
        except CannotBoot as error:
            if not emulators_fault(self._why()[1]):
                raise
            warnings.warn(EmulatorOopsWarning(f"the guest's kernel oopsed while booting in a way no CPU could, "
                                              f"so it was booted once more: {error}"), stacklevel=2)
            self._end_boot(timeout=0)
            self._start(timeout)

    def _start(self, timeout: float) -> None:
        started = time.monotonic()
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()
        log = open(self.image.workdir / "qemu.log", "wb")  # noqa: SIM115 - kept for qemu's life
        self.process = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                        start_new_session=True, preexec_fn=_die_with_the_test)
        log.close()
        deadline = started + timeout
        while self.agent is None:
            if self.process.poll() is not None or time.monotonic() > deadline or self._kvm_failed():
                raise CannotBoot(f"qemu ({self.accel}) did not boot Debian's kernel: {self.why()}")
            agent = socket.socket(socket.AF_UNIX)
            try:
                agent.connect(str(self.socket_path))
                self.agent = agent
            except OSError:  # qemu has not made its socket yet
                agent.close()
            time.sleep(0.05)
        while True:  # the agent answers once the guest's systemd has started it
            if deadline < time.monotonic() or self.process.poll() is not None or self._kvm_failed():
                raise CannotBoot(f"the guest's agent never answered: {self.why()}")
            try:
                if self.run("true", timeout=2.0, check=False).rc == 0:
                    break
                continue  # the agent's own 2 s ran out (a guest slowed by a loaded host): ask again
            except TimeoutError:
                continue
            except OSError as error:  # qemu closed the port: it is gone (a panic ends it: -no-reboot)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.process.wait(timeout=5)
                raise CannotBoot(f"the guest went away before its agent answered ({error.strerror}): "
                                 f"{self.why()}") from None
        self.agent_seconds = time.monotonic() - started
        state = self.run("systemctl", "is-system-running", "--wait", timeout=max(5.0, deadline - time.monotonic()),
                         check=False)
        if state.stdout.strip() not in ("running", "degraded"):
            raise CannotBoot(f"the guest's systemd did not finish booting: {state.stdout.strip()} "
                             f"{state.stderr.strip()}")
        self.boot_seconds = time.monotonic() - started

    def _kvm_failed(self) -> bool:
        with contextlib.suppress(OSError):
            return "KVM internal error" in (self.image.workdir / "qemu.log").read_text(errors="replace")
        return False

    def why(self) -> str:
        return self._why()[0]

    def _why(self) -> tuple[str, str]:
        """The last lines qemu and the console printed; after a guest oops, its head and call trace too
        (the panic's last lines name no cause), and where the whole console log was kept. Second: the oops's
        summary ("" if none)."""
        lines, oops = [], ""
        for name in ("qemu.log", "console.log"):
            with contextlib.suppress(OSError):
                text = (self.image.workdir / name).read_text(errors="replace")
                lines += [f"{name}: {line}" for line in text.splitlines() if line.strip()][-3:]
                if name == "console.log" and (oops := oops_summary(text)):
                    if self._kept is None:  # once a boot: the test's later requests meet the same dead guest
                        self._kept = Path(tempfile.mkstemp(prefix="bornes-kernel-oops-", suffix=".log",
                                                           dir="/var/tmp")[1])
                        self._kept.write_text(text)
                    lines += [f"the guest's oops: {oops}", f"its console log: {self._kept}"]
        return " | ".join(lines) or "no output", oops

    def run(self, *argv: str, input: str | None = None, timeout: float = 60.0, check: bool = True) -> Done:
        """A command in the guest (as root, clean environment); raises AssertionError when ``check`` fails."""
        return self._ask({"argv": list(argv), "input": input, "timeout": timeout}, timeout, check, " ".join(argv))

    def usb(self, *arguments: str, timeout: float = 60.0) -> Done:
        """``guest/usb.py ARGUMENTS``, run inside the agent (no process started in the guest)."""
        return self._ask({"usb": list(arguments)}, timeout, True, f"usb.py {' '.join(arguments[:2])}")

    def helper(self, name: str, argv: list[str], line: str, timeout: float = 60.0) -> str:
        """One line to a long-lived program in the guest (``argv``, started on first use) and its
        one-line answer: for a check made often, where a program's start-up under TCG is seconds."""
        return self._ask({"helper": name, "argv": argv, "line": line}, timeout, True, f"the helper {name}").stdout

    def udev_settle(self) -> None:
        """Until udev has handled every device event queued so far (``udevadm settle``). udevadm first waits for
        udevd to answer a ping, for ``--timeout`` (at least 5 s), and fails if it has not: in a clean-clone CI
        run a starved guest's udevd took more than 30 s to answer ("Failed to wait for daemon to reply:
        Connection timed out", the wired table's module lost at its set-up). The bound is reached only then."""
        self.run("udevadm", "settle", f"--timeout={UDEV_SETTLE}", timeout=UDEV_SETTLE + 30)

    def journal(self, unit: str, since: int = 0, wait: float = 0.0) -> list[str]:
        """``unit``'s journal lines from the ``since``-th on, waiting up to ``wait`` s for one if there is none."""
        done = self._ask({"journal": unit, "since": since, "wait": wait}, wait, True, f"the journal of {unit}")
        if done.stderr:  # entries the guest's follower missed, read again (guest/agent.py, Journal): the latest count
            self.journal_notes[unit] = done.stderr.strip()
        return list(json.loads(done.stdout))

    def _gone(self, what: str) -> ConnectionError:
        """Why the guest is gone, as the error to raise: a :class:`GuestOops` if its kernel oopsed."""
        said, summary = self._why()
        message = f"the guest went away during {what}: {said}"
        return GuestOops(message, summary) if summary else ConnectionError(message)

    def _ask(self, request: dict[str, object], timeout: float, check: bool, what: str) -> Done:
        assert self.agent is not None, "the VM is not running"
        self._requests += 1
        request["id"] = self._requests
        try:
            self.agent.sendall((json.dumps(request) + "\n").encode())
        except OSError:  # gone before this request (an earlier one saw it go): say why again
            raise self._gone(what) from None
        self.agent.settimeout(timeout + 10)
        while True:
            while b"\n" not in self._pending:
                try:
                    chunk = self.agent.recv(65536)
                except TimeoutError:
                    raise TimeoutError(f"no answer from the guest for {what}") from None
                if not chunk:
                    raise self._gone(what)
                self._pending += chunk
            line, self._pending = self._pending.split(b"\n", 1)
            reply = json.loads(line)
            if reply.get("id") == self._requests:
                break  # else: the late answer to a request given up on
        done = Done(int(reply["rc"]), str(reply["stdout"]), str(reply["stderr"]))
        if check and done.rc != 0:
            raise AssertionError(f"{what} exited {done.rc} in the VM:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        return done

    def cpu_seconds(self) -> float:
        """The CPU time qemu has used so far (every vCPU thread and its I/O): what the tier would take
        of a machine nothing else loads, where the wall clock depends on everyone's load."""
        if self.process is None:
            return 0.0
        try:
            fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime

    def restart(self, timeout: float = 240.0) -> None:
        """Boot the same image again (the guest's root is a tmpfs over it: the boot before left nothing)."""
        self._end_boot(timeout=5)
        self.start(timeout)

    def _end_boot(self, timeout: float) -> None:
        """Stop this boot and forget what came from it (a half-read answer, the console log kept of its oops)."""
        self.stop(timeout=timeout)
        self._pending, self._kept = b"", None

    def stop(self, timeout: float = 30.0) -> None:
        """Power off (systemd's own shutdown), then make sure qemu is gone. ``timeout=0``: the plug pulled at
        once, no shutdown asked for: for a guest whose every write went to its tmpfs overlay and whose journal
        was read through the agent, a clean shutdown keeps nothing, and under TCG it cost both of its CPUs
        5 to 45 s (CI's teardowns of the tier's modules)."""
        process, self.process = self.process, None
        if process is None:
            return
        if timeout > 0 and self.agent is not None and process.poll() is None:
            with contextlib.suppress(OSError, ConnectionError, TimeoutError, ValueError):
                self.agent.sendall(b'{"argv": ["systemctl", "--no-block", "poweroff"], "timeout": 10}\n')
        try:
            process.wait(timeout=timeout if self.agent is not None else 0.1)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
        if self.agent is not None:
            self.agent.close()
            self.agent = None
