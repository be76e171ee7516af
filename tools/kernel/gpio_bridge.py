"""The GPIO half of issue 43 in the VM: a CP2112 USB GPIO bridge, lgpio for trixie's Python, a Pi's revision.

Three things a kernel-tier module needs to drive the table's buttons, buzzer and LEDs on a real
GPIO chip, kept here so any module (and the bench) can set them up in its own VM:

* :class:`GpioBridge` plugs the CP2112 twin (``guest/cp2112.py``, a FunctionFS gadget that
  ``hid-cp2112`` drives) and works it: presses a button on a line (with contact bounce), reads back
  what the output lines did and when, unplugs and replugs it. It talks to the twin, a long-lived
  program in the guest, through the agent's ``helper`` request: one line each way, no start-up.
* :func:`install_lgpio` puts lgpio where the referee's venv finds it. On a Pi, ``install.sh`` takes
  ``python3-lgpio`` from apt (the Raspberry Pi archive) and the venv sees it through
  ``--system-site-packages``. Debian trixie has no such package, and PyPI's lgpio has no wheel for
  Python 3.13 (0.2.2.0 stops at 3.12), so :func:`cached_lgpio` builds PyPI's sdist of that version
  (its sha256 checked), as its ``setup.py`` does with ``PYPI=1`` (the C library linked in): SWIG
  on this machine writes the wrapper, trixie's gcc compiles it against trixie's Python in the
  cached root (``systemd-nspawn``, no network), once, kept beside the root. The result goes where
  Debian's ``python3-lgpio`` would put it, so the venv sees it the same way.
* :func:`fake_revision`: gpiozero's Pi factories read the board's revision (``/proc/device-tree/
  system/linux,revision``, else ``Revision`` in ``/proc/cpuinfo``) before they resolve a pin; an
  x86 VM has neither. The referee's unit gets a copy of the VM's ``/proc/cpuinfo`` with a Pi 5's
  ``Revision`` line bound over its own (``BindReadOnlyPaths=``, a drop-in): the one thing faked.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bornes.drivers.buttons import NOT_COUNTED
from tools.kernel.gadgets import CATALOGUE
from tools.kernel.table import KernelTable, reader_config
from tools.kernel.vm import VM, Image, Kernel, _locked
from tools.trixie import CACHE, PYTHON, CannotBoot

LGPIO_VERSION = "0.2.2.0"
#: PyPI's sdist of that version (pypi.org/project/lgpio/0.2.2.0/#files).
LGPIO_SHA256 = "11372e653b200f76a0b3ef8a23a0735c85ec678a9f8550b9893151ed0f863fff"
#: Where Debian's python3-lgpio puts the module: every Python 3 of the system, and a venv made with
#: --system-site-packages (install.sh's), sees it.
DIST_PACKAGES = "/usr/lib/python3/dist-packages"
#: A Raspberry Pi 5 Model B, 8 GB (new-style revision code d04170: Raspberry Pi's "Raspberry Pi revision
#: codes" table), as its /proc/cpuinfo says it. Its header has GPIO0-27, so lines 0-7 resolve as on a Pi.
PI_REVISION = "d04170"
CPUINFO = "/run/bornes-kernel/cpuinfo"
DROP_IN = "/run/systemd/system/bornes.service.d/pi-revision.conf"
TWIN = "/opt/bornes-kernel/cp2112.py"
LABEL = "cp2112_gpio"  # hid-cp2112's gpio_chip label


def cached_lgpio(root: Path, kernel: Kernel) -> Path:
    """lgpio for trixie's Python (``lgpio.py`` and ``_lgpio….so``), built once from PyPI's sdist, kept in the cache."""
    folder = CACHE / f"lgpio-{LGPIO_VERSION}-cp{PYTHON.replace('.', '')}-{root.name}"
    with _locked("lgpio"):
        if (folder / ".complete").exists():
            return folder
        if shutil.which("swig") is None:
            raise CannotBoot("swig is not installed (.ci/run installs it): it writes lgpio's Python wrapper")
        work = Path(tempfile.mkdtemp(prefix="lgpio-build-", dir=CACHE))
        try:
            return _build_lgpio(root, kernel, work, folder)
        finally:
            shutil.rmtree(work, ignore_errors=True)


def _build_lgpio(root: Path, kernel: Kernel, work: Path, folder: Path) -> Path:
    download = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                               "-d", str(work), f"lgpio=={LGPIO_VERSION}"], capture_output=True, text=True,
                              timeout=300, check=False)
    sdists = list(work.glob("lgpio-*.tar.gz"))
    if download.returncode != 0 or not sdists:
        raise CannotBoot(f"pip download of lgpio's sdist failed: {download.stderr.strip().splitlines()[-1:]}")
    if hashlib.sha256(sdists[0].read_bytes()).hexdigest() != LGPIO_SHA256:
        raise CannotBoot(f"{sdists[0].name} is not the sdist pinned in tools/kernel/gpio_bridge.py (sha256 differs)")
    with tarfile.open(sdists[0]) as archive:
        archive.extractall(work, filter="data")
    source = work / f"lgpio-{LGPIO_VERSION}"
    swig = subprocess.run(["swig", "-python", "-o", "lgpio_wrap.c", "lgpio.i"], cwd=source, capture_output=True,
                          text=True, timeout=120, check=False)
    if swig.returncode != 0:
        raise CannotBoot(f"swig on lgpio.i failed: {swig.stderr.strip().splitlines()[-1:]}")
    image = Image([root], kernel, workdir=work / "image")
    try:
        shutil.copytree(source, image.root / "opt/lgpio-build")
        # setup.py's PYPI=1 extension: every src/lg*.c and rgpiod.c with the wrapper, -O3 -pthread, rt and dl.
        image.nspawn("sh", "-c", "cd /opt/lgpio-build && gcc -O3 -pthread -fPIC -shared -Isrc $(python3-config "
                     "--includes) src/lg*.c src/rgpiod.c lgpio_wrap.c -lrt -ldl -o _lgpio$(python3-config "
                     "--extension-suffix) && python3 -c 'import sys; sys.path.insert(0, \".\"); import lgpio'",
                     what="lgpio compiled for trixie's Python")
        partial = folder.with_name(folder.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir()
        for built in (image.root / "opt/lgpio-build").glob("_lgpio*.so"):
            shutil.copy2(built, partial / built.name)
        shutil.copy2(source / "lgpio.py", partial / "lgpio.py")
    finally:
        image.close()
    (partial / ".complete").touch()
    shutil.rmtree(folder, ignore_errors=True)
    partial.rename(folder)
    return folder


def install_lgpio(vm: VM, lgpio: Path) -> None:
    """lgpio's files into the booted guest, where Debian's python3-lgpio puts them."""
    for path in sorted(lgpio.iterdir()):
        if path.name.startswith("."):
            continue
        data = base64.b64encode(path.read_bytes()).decode()
        vm.run("sh", "-c", f"base64 -d > {DIST_PACKAGES}/{path.name}", input=data)


def fake_revision(vm: VM) -> None:
    """The referee's /proc/cpuinfo with a Pi 5's ``Revision`` line (see the module's docstring).

    The emulated CPU's pace (a start of 10 minutes, a watchdog of 60 s) is every VM's, from open_table
    (tools/kernel/table.py ``PACE``): this module met it first, importing gpiozero and lgpio besides the
    referee. The same drop-in sets ``PYTHONFAULTHANDLER=1``: a referee that does not come up is sent
    SIGABRT by :meth:`KernelTable.diagnosis`, and its threads' Python stacks land in the journal. And no
    journald rate limit for the unit: pulling the GPIO bridge out makes lgpio print thousands of
    ``read error`` lines, journald then dropped the referee's own lines, and the harness, seeing no line
    for a scanned DISCARD, scanned it again and so disarmed it (CI's failures of the unplug test)."""
    vm.run("sh", "-c", f"mkdir -p {Path(CPUINFO).parent} {Path(DROP_IN).parent} && cat /proc/cpuinfo > {CPUINFO} "
           f"&& printf 'Revision\\t: {PI_REVISION}\\n' >> {CPUINFO} && printf '[Service]\\nBindReadOnlyPaths="
           f"{CPUINFO}:/proc/cpuinfo\\nEnvironment=PYTHONFAULTHANDLER=1\\n"
           "LogRateLimitIntervalSec=0\\n' "
           f"> {DROP_IN} && systemctl daemon-reload")


@dataclass
class Press:
    """What the twin did for one press: when the line first went low and when it was high for good."""

    start: float
    end: float


@dataclass
class GpioBridge:
    """The CP2112 twin in the guest: plug it, press its lines, read back its outputs."""

    vm: VM
    chip: dict[str, Any] = field(default_factory=dict)

    def ask(self, *words: str, timeout: float = 60.0) -> Any:
        said = json.loads(self.vm.helper("cp2112", ["python3", TWIN], " ".join(words), timeout=timeout))
        if "error" in said:
            raise AssertionError(f"the CP2112 twin: {' '.join(words)}: {said['error']}")
        return said["ok"]

    def plug(self) -> dict[str, Any]:
        """Build the gadget, bind it, and wait for hid-cp2112's GPIO chip (its node, label, lines)."""
        self.chip = dict(self.ask("plug"))
        if not self.chip.get("chip"):
            raise AssertionError(f"hid-cp2112 registered no GPIO chip for the CP2112 twin: {self.chip}")
        return self.chip

    def unplug(self) -> dict[str, Any]:
        return dict(self.ask("unplug"))

    def replug(self) -> dict[str, Any]:
        self.chip = dict(self.ask("replug"))
        return self.chip

    def press(self, line: int, hold: float, *, edges: int = 1, span: float = 0.0) -> Press:
        """A button on ``line`` held ``hold`` s; ``edges`` (odd) within ``span`` s of contact bounce at
        each end. Returns once it is released."""
        if edges % 2 != 1:
            raise ValueError("a bouncing contact ends where it settles: give an odd number of edges")
        said = self.ask("press", str(line), str(hold), str(edges), str(span), timeout=hold + span + 60)
        return Press(float(said["start"]), float(said["end"]))

    def outputs(self, since: int = 0) -> tuple[float, list[tuple[float, int, int]]]:
        """The guest's clock now, and each change of an output line from the ``since``-th: (time, line, level)."""
        said = self.ask("outputs", str(since))
        return float(said["now"]), [(float(t), int(line), int(level)) for t, line, level in said["changes"]]

    def reads(self) -> int:
        """How many GET_REPORT 0x03 (Get GPIO Values) the twin has answered."""
        return int(self.ask("reads"))

    def read_times(self, since: int = 0) -> list[float]:
        """When the twin answered each GET_REPORT 0x03 from the ``since``-th on (the guest's monotonic clock)."""
        return [float(t) for t in self.ask("readlog", str(since))]

    def remove(self) -> None:
        self.ask("remove")


# -- the table with the bridge: the referee on it, presses, the setting up ---------------------------

PINS = "/etc/bornes/bridge-pins.toml"
#: The wired table on the bridge's lines: 4 buttons to ground, an active buzzer, a red and a green LED;
#: line 7 is left free for the tests' own reads. An active buzzer and on/off LEDs: gpiozero's tones and
#: PWM are lgpio's software PWM, which would send a USB control transfer for every edge of the wave.
LINES = {"OK": 0, "CF": 1, "NEXT": 2, "BACK": 3}
BUZZER, RED, GREEN, FREE = 4, 5, 6, 7
#: Seconds the referee's unit may take to start here (the unit's own 60 s are a Pi's; see fake_revision).
START = 600.0
PIN_MAP = f"""\
[chip]
label = "{LABEL}"
[reader]
interface = "usb"
[buttons.OK]
pin = {LINES["OK"]}
long = "OK"
hold_time = 1.0
[buttons.CF]
pin = {LINES["CF"]}
[buttons.NEXT]
pin = {LINES["NEXT"]}
[buttons.BACK]
pin = {LINES["BACK"]}
long = "BACK"
hold_time = 1.0
[debounce]
seconds = 0.02
[buzzer]
pin = {BUZZER}
tonal = false
[leds]
kind = "pair"
red = {RED}
green = {GREEN}
"""
#: Seconds a finger holds a button: hid-cp2112 reads the lines every 40 ms, but in a VM under TCG on a loaded
#: machine its reads came up to 215 ms apart (p90), and a press between two reads is never seen.
PRESS = 0.5
BOUNCE = (5, 0.003)  # five edges within 3 ms at each end of a press (a cheap tactile switch)
#: The figure of presses made again after the referee said it had not counted one (see BridgeKernelTable.press).
PRESSED_AGAIN = "presses made again: the referee read the line after the finger let go (a starved guest)"


def bridge_config() -> str:
    """The referee's config: the scanner for the cards, the pin map on the bridge, lgpio's factory (auto)."""
    config = reader_config(CATALOGUE["scanner"].vendor_product)
    return config.replace('[pins]\nfactory = "mock"\n', f'[pins]\nfactory = "auto"\nmap = "{PINS}"\n')


class BridgeKernelTable(KernelTable):
    """The kernel tier's table with the CP2112 bridge plugged in; a press is a finger on one of its lines.
    Not a dataclass of its own: the bridge and the presses are set by :func:`set_up`."""

    bridge: GpioBridge
    presses: list[tuple[Press, float]]  # each press the twin made, with the span of its bounce

    def configure(self, config: str, bindings: dict[str, str] | None = None, start_timeout: float = START) -> None:
        super().configure(config, bindings, start_timeout)

    def restart(self) -> None:
        """The referee started again (a new process, the same game journal), waiting for its "referee up"."""
        self.start(self.count("referee up"), START)

    def press(self, name: str, key: str, *, lines: int = 1, timeout: float = 60.0, hold: float = PRESS,
              bounce: tuple[int, float] = BOUNCE, again: int = 2) -> list[str]:
        """Press the button ``key`` (a name of :data:`LINES`) on the bridge, bouncing, and wait for the referee's
        line for it.

        A press the referee says it did not count (its line read only after the finger had let go: a guest
        starved for longer than the press, drivers/buttons.py's NOT_COUNTED) is pressed again, as a player does
        when the table stays silent, up to ``again`` times, each one counted in the figures. The bench passes 0:
        there such a press is counted as lost."""
        assert name == "cp2112", name
        before = len(self.inputs())
        dropped = f"buttons: {key} reads released, not as its last edge said{NOT_COUNTED}"
        for attempt in range(again + 1):
            said = len(self.journal())
            self.presses.append((self.bridge.press(LINES[key], hold, edges=bounce[0], span=bounce[1]), bounce[1]))

            def heard(said: int = said, retry: bool = attempt < again) -> bool:
                return len(self.inputs()) >= before + lines or (
                    retry and any(dropped in line for line in self.journal()[said:]))

            self.wait(f"the referee's line for the button {key}", heard, timeout)
            if len(self.inputs()) >= before + lines:
                break
            self.figures[PRESSED_AGAIN] = self.figures.get(PRESSED_AGAIN, 0.0) + 1
        self.journal(wait=0.3)  # a second line for one press would come now
        return self.inputs()[before:]


def set_up(table: BridgeKernelTable, lgpio: Path) -> None:
    """lgpio and the revision in the booted VM, the bridge plugged in, the scanner for the cards, the pin map."""
    install_lgpio(table.vm, lgpio)
    fake_revision(table.vm)
    table.bridge, table.presses = GpioBridge(table.vm), []
    table.bridge.plug()
    table.plug("scanner")
    table.vm.run("sh", "-c", f"cat > {PINS}", input=PIN_MAP)
