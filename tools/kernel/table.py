"""The referee in the VM and the USB devices plugged into it: what the kernel tier's tests hold.

:func:`open_table` builds the image (install.sh with ``--hid`` for the keyboard-mode readers),
boots it (tools/kernel/vm.py) and returns a :class:`KernelTable`: the VM, the gadgets
(tools/kernel/gadgets.py) it can plug, unplug and type on, and the referee's journal lines.
"""

from __future__ import annotations

import json
import os
import shutil
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, TypeVar

from tools.kernel.gadgets import CATALOGUE, KEYPAD_KEYS, reports
from tools.kernel.vm import VM, Done, Image, cached_kernel, installed_layer
from tools.trixie import CannotBoot, cached_root, cached_wheels

UNIT = "bornes.service"
INPUT = "bornes: input "
READER_NOTICES = tuple(f"{INPUT}{part} {what}" for part in ("reader", "keypad", "buttons")
                       for what in ("lost", "back on"))
SCANNER_GAP = 0.003  # seconds after each key: a fast scanner (2 to 20 ms a key; docs/readers.md)
PYTHON = "/opt/bornes/venv/bin/python"
IN_CI = os.environ.get("CI") == "true"
INSTALL = ("--wheels", "/var/cache/bornes-wheels", "--no-pi", "--hid", CATALOGUE["scanner"].vendor_product,
           "--hid", CATALOGUE["rfid"].vendor_product, "--keypad", CATALOGUE["keypad"].vendor_product,
           "--spi",  # tests/kernel/test_rc522.py: group spi and its udev rule
           "--camera")  # the webcam's module (tests/kernel/test_webcam.py): numpy, OpenCV, the unit's camera drop-in
KEY_HELD = 0.08  # seconds a person's finger holds a keypad key (under any hold time of wiring/pins.toml)
TOOLS = ("qemu-system-x86_64", "systemd-nspawn", "debootstrap", "apt-get", "dpkg-deb", "depmod")


def why_not() -> str | None:
    """What this machine lacks for the tier, in one line (None: it can run)."""
    if os.geteuid() != 0:
        return "the kernel tier needs root (debootstrap, an overlay mount, systemd-nspawn, 9p as root)"
    for tool in TOOLS:
        if shutil.which(tool) is None:
            return f"{tool} is not installed (.ci/run installs it)"
    return None


def reader_config(port: str, *, protocol: str = "hid", layout: str = "auto", players: int = 2,
                  names: tuple[str, ...] = ("Anne", "Bruno"), extra: str = "", display: str = 'panel = "dummy"') -> str:
    """The referee's config: a reader on ``port``, debug logging, mock pins, the ``[display]`` keys given."""
    reader = f'[reader]\nprotocol = "{protocol}"\nport = "{port}"\n'
    if protocol == "hid":
        reader += f'layout = "{layout}"\n'
    # At level debug the referee journals every input (firmware/appliance/referee.py): a tap's own line.
    return (reader + "double_read_window = 0\nmax_backoff = 0.5\n" if port else "") + (
        f'[log]\nlevel = "debug"\n[display]\n{display}\n[pins]\nfactory = "mock"\n'
        f'[game]\nedition = "winning-moves"\nplayers = {players}\n'
        f'names = [{", ".join(json.dumps(n) for n in names)}]\n{extra}')


@dataclass(frozen=True)
class Checkpoint:
    """What a test found the table in, enough to set it up again on a new boot: the gadgets plugged (in
    their order: the kernel numbers their nodes by it), the config given last, the scripted game's seed."""

    plugged: tuple[str, ...]
    configured: tuple[str, dict[str, str] | None] | None
    seed: int | None = None


@dataclass
class KernelTable:
    """The booted VM with the referee installed; gadgets by their catalogue names."""

    vm: VM
    image: Image
    figures: dict[str, float] = field(default_factory=dict)
    plugged: dict[str, dict[str, object]] = field(default_factory=dict)
    _journal: list[str] = field(default_factory=list)
    _configured: tuple[str, dict[str, str] | None] | None = None

    #: tests/kernel/conftest.py reboots a table of this kind whose guest died of an oops in the test's own
    #: USB devices (:class:`tools.kernel.vm.GuestOops`), and runs the test again once. Only a table whose whole
    #: state :meth:`checkpoint` holds may say yes: a module's own setup in the guest is not made again.
    recoverable: ClassVar[bool] = False

    # -- a new boot -----------------------------------------------------------------------------------

    def checkpoint(self) -> Checkpoint:
        return Checkpoint(tuple(self.plugged), self._configured)

    def recover(self, checkpoint: Checkpoint) -> None:
        """Boot again and set the table up as ``checkpoint`` found it (a new referee, its journal new)."""
        self.vm.restart()
        self._journal, self.plugged, self._configured = [], {}, None
        for name in checkpoint.plugged:
            self.plug(name)
        if checkpoint.configured is not None:
            self.configure(*checkpoint.configured)
        reboots = "guest oopses in the test's USB devices, booted again"
        self.figures[reboots] = self.figures.get(reboots, 0.0) + 1

    # -- the devices --------------------------------------------------------------------------------

    def usb(self, *arguments: str, timeout: float = 60.0) -> Done:
        return self.vm.usb(*arguments, timeout=timeout)

    def plug(self, name: str) -> dict[str, object]:
        """Plug a gadget of the catalogue and wait until the kernel and udev have its nodes."""
        gadget = CATALOGUE[name]
        self.usb("plug", json.dumps(gadget.as_json()))
        return self.wait_nodes(name)

    def wait_nodes(self, name: str, timeout: float = 60.0, settle: bool = True) -> dict[str, object]:
        gadget = CATALOGUE[name]
        kind = "events" if any(f.__class__.__name__ == "Hid" for f in gadget.functions) else "ttyACM"
        deadline = time.monotonic() + timeout
        while True:
            found = json.loads(self.usb("where", name).stdout)
            if found[kind]:
                if settle:
                    self.vm.udev_settle()
                self.plugged[name] = found
                return dict(found)
            if time.monotonic() > deadline:
                raise AssertionError(f"{name} was not enumerated in {timeout:.0f} s: {found}")
            time.sleep(0.3)

    def unplug(self, name: str) -> None:
        self.usb("unplug", name)

    def remove(self, name: str) -> None:
        """Unplug a gadget for good and free its HID minor (the kernel's f_hid has four in all)."""
        self.usb("remove", name)
        self.plugged.pop(name, None)

    def listen(self, node: str) -> None:
        """Open an event device as a second program would (no grab); :meth:`heard` counts what reached it."""
        self.usb("listen", node)

    def heard(self, node: str, seconds: float = 1.0) -> int:
        """Key events the second reader of ``node`` got since :meth:`listen`."""
        return int(self.usb("heard", node, "--seconds", str(seconds), timeout=seconds + 30).stdout)

    def replug(self, name: str, wait: bool = True) -> dict[str, object]:
        """Plug it back; the kernel's nodes, without waiting for udev (the referee waits for its by-id link).
        Without ``wait``, nothing: the caller waits for the referee's line, then asks :meth:`wait_nodes`."""
        self.usb("replug", name)
        return self.wait_nodes(name, settle=False) if wait else {}

    def event_node(self, name: str) -> str:
        return str(self.plugged[name]["events"][0])  # type: ignore[index]

    def scan(self, name: str, *texts: str, layout: str = "us", gap: float = 0.0, ctrl: bool = False,
             enter: bool = True) -> None:
        """Type ``texts`` on a keyboard-like gadget: at USB speed (a scanner), or ``gap`` s a key (a person)."""
        data = [r.hex() for text in texts for r in reports(text, layout, enter=enter, ctrl=ctrl)]
        self.usb("send", name, *data, "--gap", str(gap), timeout=60 + gap * len(data))

    def tap(self, name: str, payload: str, *, layout: str = "us", gap: float = SCANNER_GAP, serial: bool = False,
            ctrl: bool = False, lines: int = 1, timeout: float = 60.0) -> list[str]:
        """Scan ``payload`` on a gadget (keys at ``gap`` s, or a line on a CDC-ACM one) and wait for the
        referee's own line for that input (``[log] level = "debug"``); returns the new input lines."""
        before = len(self.inputs())
        if serial:
            self.usb("write", name, f"{payload}\r\n")
        else:
            self.scan(name, payload, layout=layout, gap=gap, ctrl=ctrl)
        self.wait(f"the referee's line for {payload}", lambda: len(self.inputs()) >= before + lines, timeout)
        return self.inputs()[before:]

    def press(self, name: str, key: str, *, lines: int = 1, timeout: float = 60.0) -> list[str]:
        """Press and release one key of a keypad gadget, named as printed on it (``Enter``, ``0``), as
        a finger does, and wait for the referee's line for the button it is; returns the new input lines."""
        before = len(self.inputs())
        down, up = bytes([0, 0, KEYPAD_KEYS[key], 0, 0, 0, 0, 0]), bytes(8)
        self.usb("send", name, down.hex(), up.hex(), "--hold", str(KEY_HELD))
        self.wait(f"the referee's line for the key {key}", lambda: len(self.inputs()) >= before + lines, timeout)
        return self.inputs()[before:]

    def inputs(self) -> list[str]:
        """The referee's line for each input read (debug level), the reader's own comings and goings left out."""
        return [line for line in self.journal() if line.startswith(INPUT) and not line.startswith(READER_NOTICES)]

    def leds(self, name: str, seconds: float = 1.0) -> list[str]:
        """The LED output reports the host sends the gadget: up to ``seconds`` for the first, then
        until they stop (none in ``seconds``: an empty list)."""
        return self.usb("leds", name, "--seconds", str(seconds)).stdout.split()

    # -- the referee ----------------------------------------------------------------------------------

    def journal(self, wait: float = 0.0) -> list[str]:
        """The referee's journal lines (``bornes.service``, messages only), every one since the boot.
        With ``wait``, blocks up to that long for a line newer than the last call saw."""
        self._journal += self.vm.journal(UNIT, since=len(self._journal), wait=wait)
        return self._journal

    def count(self, text: str) -> int:
        return sum(text in line for line in self.journal())

    def wait(self, what: str, ready: Callable[[], bool], timeout: float = 60.0) -> None:
        """Until ``ready()``, checked again at each new line of the referee's journal (and every 2 s)."""
        deadline = time.monotonic() + timeout
        while not ready():
            left = deadline - time.monotonic()
            if left <= 0:
                tail = "\n".join(self.journal()[-24:])  # what came before the last lines too (a refusal, a restart)
                raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}; the referee said:\n{tail}")
            self.journal(wait=min(left, 2.0))

    def wait_count(self, text: str, more_than: int, timeout: float = 60.0) -> None:
        self.wait(f"{text!r} in the referee's journal", lambda: self.count(text) > more_than, timeout)

    def configure(self, config: str, bindings: dict[str, str] | None = None, start_timeout: float = 90.0) -> None:
        """A new /etc/bornes/config.toml (and binding table), a fresh game journal, the referee restarted
        (its start given ``start_timeout`` seconds)."""
        self._configured = (config, bindings)
        self.vm.run("systemctl", "stop", "bornes.service", timeout=60)
        self.vm.run("sh", "-c", "cat > /etc/bornes/config.toml", input=config)
        self.vm.run("sh", "-c", "rm -f /var/lib/bornes/bornes.sqlite3* /var/lib/bornes/bindings.json")
        if bindings is not None:
            data = json.dumps({"format": "bornes-bindings", "version": 1, "bindings": bindings})
            # The state folder as the unit's StateDirectory= makes it, for a referee never started yet (open_table's
            # referee_at_boot=False); at the start systemd applies its owner and StateDirectoryMode= again anyway.
            self.vm.run("sh", "-c", "install -d -m 0750 -o bornes -g bornes /var/lib/bornes && "
                        "cat > /var/lib/bornes/bindings.json && chown bornes:bornes /var/lib/bornes/bindings.json",
                        input=data)
        ups = self.count("referee up")
        self.start(ups, start_timeout)

    def start(self, ups: int, timeout: float) -> None:
        """The referee's unit started and waited for (its "referee up" after the ``ups`` the journal had), for
        ``timeout`` s at most: then, or if the unit fails first, an AssertionError with :meth:`diagnosis`. Not
        ``systemctl start`` waiting for READY=1: a start that hangs said nothing for the whole timeout."""
        self.vm.run("systemctl", "reset-failed", UNIT, check=False)
        self.vm.run("systemctl", "start", "--no-block", UNIT)
        deadline = time.monotonic() + timeout
        looked = time.monotonic()
        while not (self.count("referee up") > ups and self._active()):
            left = deadline - time.monotonic()
            failed = False
            if time.monotonic() - looked >= 10:  # a unit that failed (a bad config, a crash): no need to wait on
                looked = time.monotonic()
                failed = self.vm.run("systemctl", "is-failed", "--quiet", UNIT, check=False).rc == 0
            if left <= 0 or failed:
                why = "failed" if failed else f"was not up after {timeout:.0f} s"
                raise AssertionError(f"the referee ({UNIT}) {why}\n{self.diagnosis()}")
            self.journal(wait=min(left, 2.0))

    def _active(self) -> bool:
        """The unit has sent READY=1 (Type=notify: active). The journal alone is not enough: a "referee up" of the
        instance stopped before can reach the agent's journal reader after ``ups`` was counted (seen on a first
        read of the journal: ``journalctl --follow`` had not caught up), and was taken for the new one's."""
        return self.vm.run("systemctl", "is-active", "--quiet", UNIT, check=False).rc == 0

    def diagnosis(self) -> str:
        """What the guest says of a referee that is not up: its unit's status, its journal's tail, where each of its
        threads waits in the kernel (wchan and stack), every task stuck in D state, the kernel's last words, vhci-hcd's
        ports; then the Python stacks of its threads (faulthandler, on SIGABRT, when the unit's environment has
        PYTHONFAULTHANDLER=1). Subclasses add their devices' state."""
        script = DIAGNOSIS.replace("UNIT", UNIT)
        done = self.vm.run("sh", "-c", script, timeout=300, check=False)
        return done.stdout[-20000:] + (f"\n(stderr) {done.stderr[-2000:]}" if done.stderr.strip() else "")

    def accepted(self) -> list[str]:
        prefix = "bornes: accepted "
        return [line[len(prefix):] for line in self.journal() if line.startswith(prefix)]

    def stored(self) -> list[str]:
        """The current game's actions in the game journal, read as the referee's user with the
        product's Journal (opened afresh for each question, by one process kept for the VM)."""
        code = ("import json, sys\nfrom bornes.firmware.storage.journal import Journal\n"
                "for _ in sys.stdin:\n"
                "    with Journal.open('/var/lib/bornes', readonly=True) as j:\n"
                "        g = j.current_game(); print(json.dumps(g.lines if g else []), flush=True)")
        argv = ["setpriv", "--reuid=bornes", "--regid=bornes", "--init-groups", PYTHON, "-c", code]
        return list(json.loads(self.vm.helper("stored", argv, "current game")))

    def newest_game(self) -> list[str]:
        """The actions of the newest game that has any, in progress or over (a game played to its end is no
        longer the current one), read as :meth:`stored` reads."""
        code = ("import json, sys\nfrom bornes.firmware.storage.journal import Journal\n"
                "for _ in sys.stdin:\n"
                "    with Journal.open('/var/lib/bornes', readonly=True) as j:\n"
                "        played = [g for g in j.recent(3) if g.actions]\n"
                "        game = j.load(played[-1].game_id) if played else None\n"
                "        print(json.dumps(game.lines if game else []), flush=True)")
        argv = ["setpriv", "--reuid=bornes", "--regid=bornes", "--init-groups", PYTHON, "-c", code]
        return list(json.loads(self.vm.helper("newest", argv, "newest game")))

    def as_bornes(self, code: str) -> Done:
        """Python run as the referee's user (its groups, no more), not checked."""
        return self.vm.run("setpriv", "--reuid=bornes", "--regid=bornes", "--init-groups", PYTHON, "-c", code,
                           check=False)

    def close(self) -> None:
        try:
            self.vm.stop(timeout=0)  # the plug pulled: the guest wrote only to its tmpfs overlay
        finally:
            self.image.close()
        for note in self.vm.journal_notes.values():  # in pytest's warnings summary: a follower that stalled
            warnings.warn(note, stacklevel=2)


#: The guest's side of :meth:`KernelTable.diagnosis` (sh; the root has no procps).
DIAGNOSIS = r"""
echo "== systemctl status"; systemctl status UNIT --no-pager --lines=0 -l 2>&1 | head -20
echo "== its journal's tail"; journalctl -u UNIT -n 40 --no-pager -o short-monotonic 2>&1
pid=$(systemctl show -p MainPID --value UNIT)
echo "== the referee's threads (main PID $pid): state, wchan, kernel stack"
if [ -n "$pid" ] && [ "$pid" != 0 ]; then
  for task in /proc/$pid/task/*; do
    echo "-- $(cat $task/comm 2>/dev/null) $(basename $task): $(grep ^State: $task/status 2>/dev/null)" \
      "wchan=$(cat $task/wchan 2>/dev/null)"
    cat $task/stack 2>/dev/null | head -25
  done
fi
echo "== tasks in D state"
for stat in /proc/[0-9]*/task/[0-9]*/stat; do
  task=${stat%/stat}
  if [ "$(cut -d')' -f2 $stat 2>/dev/null | cut -d' ' -f2)" = D ]; then
    echo "-- $(cat $task/comm 2>/dev/null) $task wchan=$(cat $task/wchan 2>/dev/null)"
    cat $task/stack 2>/dev/null | head -25
  fi
done
echo "== dmesg's tail"; dmesg 2>&1 | tail -40
echo "== vhci-hcd ports"; cat /sys/devices/platform/vhci_hcd.0/status 2>/dev/null | grep -v ' 004 '
echo "== i2c-dev adapters"; for a in /sys/class/i2c-dev/*; do [ -e "$a" ] && echo "$a: $(cat $a/name)"; done
if [ -n "$pid" ] && [ "$pid" != 0 ] && tr '\0' '\n' < /proc/$pid/environ 2>/dev/null \
    | grep -q '^PYTHONFAULTHANDLER='; then
  echo "== Python stacks (faulthandler on SIGABRT)"; kill -ABRT $pid
  for second in $(seq 20); do  # the journal takes its time under TCG; _PID= is an indexed field: a quick look
    sleep 2; journalctl _PID=$pid --no-pager -o cat 2>/dev/null | grep -q 'Fatal Python error' && break
  done
  journalctl _PID=$pid --no-pager -o cat 2>&1 | sed -n '/Fatal Python error/,$p' | head -150
fi
"""

T = TypeVar("T", bound="KernelTable")


#: Where ``systemctl enable`` (install.sh) links the referee's unit: the boot starts it through this link.
STARTED_AT_BOOT = f"etc/systemd/system/multi-user.target.wants/{UNIT}"
#: The emulated CPU's pace, in every VM of the tier: the installed unit gives a start 60 s and the loop's watchdog
#: 10 s, which a Pi meets with room to spare, but a TCG guest on a shared 2-core host can be starved for longer.
#: A clean-clone CI of 6d126aa lost the RC522 module's timeline test to it: "bornes.service: Scheduled restart job"
#: in the middle of the test, the four pads' referee started again. The wired table had met it first; the power cut
#: gives its referee a longer watchdog still (tools/kernel/powercut.py). Nothing else of the unit changes, and the
#: watchdog itself is tested on the booted system (tests/system).
PACE_DROP_IN = f"etc/systemd/system/{UNIT}.d/kernel-tier-pace.conf"
PACE = "[Service]\nTimeoutStartSec=600\nWatchdogSec=60\n"


def open_table(kind: type[T], boot_timeout: float = 240.0, shares: tuple[tuple[str, Path], ...] = (),
               tcg_cpu: str = "max", prepare: Callable[[Image], None] | None = None,
               referee_at_boot: bool = True) -> T:
    """Image, install (or its cached layer), boot: a ``kind`` (KernelTable or a test's own), with the figures of each
    step kept for the tier's report. ``boot_timeout``: the seconds the boot may take (TCG on a loaded host).
    ``shares`` and ``tcg_cpu``: the VM's (more host folders the guest may mount; qemu's CPU under TCG);
    ``prepare(image)``: the module's own setup in the image before it boots (``image.nspawn`` runs at the host's
    speed). ``referee_at_boot=False``: for a module whose first step gives the referee its own config
    (:meth:`KernelTable.configure` starts the unit): the image's link is removed, as ``systemctl disable`` would,
    so the boot does not start a referee only to stop it. Its start under TCG was 17 s of a 48 s userspace boot.
    """
    started = time.monotonic()
    kernel = cached_kernel()
    root, wheels = cached_root(), cached_wheels()
    cached = time.monotonic()
    layer = installed_layer(root, wheels, kernel, INSTALL, reader_config(CATALOGUE["scanner"].vendor_product))
    installed = time.monotonic()
    image = Image([layer, root], kernel)
    vm: VM | None = None
    try:
        image.guest_files()
        pace = image.root / PACE_DROP_IN
        pace.parent.mkdir(parents=True, exist_ok=True)
        pace.write_text(PACE)
        if not referee_at_boot:
            (image.root / STARTED_AT_BOOT).unlink()
        if prepare is not None:
            prepare(image)
        vm = VM(image, shares=shares, tcg_cpu=tcg_cpu)
        vm.start(boot_timeout)
    except BaseException:
        if vm is not None:  # a boot given up on leaves no qemu behind (it went on running, the image unmounted)
            vm.stop(timeout=5)
        image.close()
        raise
    table = kind(vm, image)
    table.figures.update({"cache (root, kernel, wheels)": cached - started,
                          "install.sh in the image (0: cached)": installed - cached,
                          "boot to the agent": vm.agent_seconds, "boot to running": vm.boot_seconds})
    return table


__all__ = ["IN_CI", "CannotBoot", "Checkpoint", "KernelTable", "open_table", "reader_config", "why_not"]
