"""The kernel tier's hands inside the VM: runs the host's requests, one at a time.

The host (tools/kernel/vm.py) talks to it over a virtio-serial port named ``bornes.agent``: one
JSON object a line, answered by one line ``{"rc": N, "stdout": "…", "stderr": "…", "id": …}``
(``id`` is the request's own, echoed, so the host drops a late answer to a request it gave up on).
A request is one of:

* ``{"argv": [...], "input": "…" | null, "timeout": S}``: a command (``rc`` -9 when it ran out of time);
* ``{"usb": [...]}``: ``usb.py``'s command line, run in this process (no Python start-up per key
  press: under TCG that start-up is most of a second);
* ``{"journal": UNIT, "since": N, "wait": S}``: the unit's journal lines from the N-th on (``stdout``
  holds them as a JSON list), waiting up to S seconds for one when there is none yet. One
  ``journalctl --follow`` per unit feeds them, so polling the referee's journal spawns nothing but a
  check, after 10 s of quiet and at most every 10 s, that the follower has not stopped short
  (:class:`Journal`).
* ``{"helper": NAME, "argv": [...], "line": "…", "timeout": S}``: one line to a long-lived program
  (started with ``argv`` on NAME's first request, started again if it died), and the one line it
  answers. Under TCG a Python start-up is seconds: a check the tests make after every step (the
  game journal read as the referee's user) runs in one process for the whole VM.

Trixie's own python3 runs it, with nothing but the standard library: it must work before and
whatever the referee's install does. It is the test's machinery, never part of the appliance.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

PORT_NAME = "bornes.agent"
ENV = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"}
sys.path.insert(0, str(Path(__file__).resolve().parent))
import usb  # noqa: E402 - beside this file, in the guest's /opt/bornes-kernel


def port_path() -> str:
    """The port's /dev node, found by its name (udev's /dev/virtio-ports link may not exist yet)."""
    for _ in range(600):
        for entry in Path("/sys/class/virtio-ports").glob("*"):
            try:
                if (entry / "name").read_text().strip() == PORT_NAME:
                    return f"/dev/{entry.name}"
            except OSError:
                continue
        time.sleep(0.1)
    sys.exit(f"agent: no virtio port named {PORT_NAME}")


#: Seconds between two catch-up reads of one unit's journal (Journal.since), and the seconds its follower must have
#: been quiet first: a catch-up is a journalctl start, and one made while a tap's keys were arriving starved the
#: referee's read of them under TCG (CI: "keys were lost (the reader was read too late)"); a tap's line comes
#: within a few seconds, and a stall is still found long before any test's 60 s.
CATCH_UP_EVERY = 10.0


class Journal:
    """One unit's journal lines (messages only, a line each as ``journalctl --output=cat`` prints them), fed by
    ``journalctl --follow``. A follower once stopped short in CI (the referee's line in the journal, read by
    ``journalctl --unit`` afterwards, never reached the test: a power-cut module lost its recording), so a
    wait that ends with nothing new asks the journal itself once after the last entry seen: entries the
    follower missed are taken from that answer, and a new follower starts after them."""

    def __init__(self, unit: str) -> None:
        self.unit = unit
        self.lines: list[str] = []
        self.cursor: str | None = None  # the last entry's, to go on after it
        self.missed = 0  # entries the follower had not passed on after a quiet wait, read by a catch-up
        self.asked = 0.0  # when a catch-up last asked the journal (time.monotonic)
        self.heard = time.monotonic()  # when the follower last passed an entry on
        self.changed = threading.Condition()
        self.process: subprocess.Popen[str] | None = None
        with self.changed:
            self._start()

    def _argv(self, cursor: str | None, follow: bool) -> list[str]:
        # --all: without it JSON gives a field of 4 096 bytes or more as null (--output=cat has no such limit)
        return ["journalctl", *(["--follow"] if follow else []), "--output=json", "--output-fields=MESSAGE", "--all",
                "--no-pager", "--quiet", "--unit", self.unit,
                f"--after-cursor={cursor}" if cursor else "--lines=all"]

    def _start(self) -> None:
        """A new follower after :attr:`cursor` (held: ``changed``)."""
        process = subprocess.Popen(self._argv(self.cursor, True), stdout=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, env=ENV, text=True, errors="replace")
        self.process = process
        threading.Thread(target=self._follow, args=(process,), daemon=True).start()

    def _follow(self, process: subprocess.Popen[str]) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            with self.changed:
                if process is not self.process:  # replaced after a catch-up: its entries are read already
                    return
                self.heard = time.monotonic()
                self._add(line)
                self.changed.notify_all()

    def _add(self, line: str) -> None:
        try:
            entry = json.loads(line)
        except ValueError:
            return
        self.cursor = entry.get("__CURSOR", self.cursor)
        message = entry.get("MESSAGE")
        if message is None:  # no message: --output=cat printed nothing for it
            return
        # A field journalctl cannot print as text (not UTF-8, control characters) comes as its bytes; a field the
        # entry has twice, as a list of its values.
        values = message if isinstance(message, list) and message and not isinstance(message[0], int) else [message]
        for value in values:
            text = bytes(value).decode(errors="replace") if isinstance(value, list) else str(value)
            self.lines.extend(text.split("\n"))

    def since(self, first: int, wait: float) -> list[str]:
        with self.changed:
            quiet = not self.changed.wait_for(lambda: len(self.lines) > first, timeout=wait)
            now = time.monotonic()
            if not quiet or wait < 1.0 or min(now - self.asked, now - self.heard) < CATCH_UP_EVERY:
                return self.lines[first:]
            self.asked, cursor = time.monotonic(), self.cursor
        self._catch_up(cursor)
        with self.changed:
            return self.lines[first:]

    def _catch_up(self, cursor: str | None) -> None:
        try:
            # Well inside the host's margin over the wait (tools/kernel/vm.py gives a journal request 10 s more).
            done = subprocess.run(self._argv(cursor, False), capture_output=True, text=True, errors="replace",
                                  env=ENV, timeout=5, check=False)
        except subprocess.TimeoutExpired:
            return
        entries = [line for line in done.stdout.splitlines() if line.strip()]
        if not entries:
            return
        with self.changed:
            if self.cursor != cursor:  # the follower went on meanwhile: it is alive, and has them
                return
            stuck = self.process
            for line in entries:
                self._add(line)
            self.missed += len(entries)
            self._start()
            self.changed.notify_all()
        if stuck is not None:
            stuck.kill()
            stuck.wait()


JOURNALS: dict[str, Journal] = {}


def run_command(request: dict[str, object]) -> dict[str, object]:
    argv = request.get("argv")
    if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
        return {"rc": -1, "stdout": "", "stderr": f"agent: argv must be a list of strings, not {argv!r}"}
    given = request.get("input")
    timeout = float(request.get("timeout") or 60)  # type: ignore[arg-type]
    try:
        done = subprocess.run(argv, input=given if isinstance(given, str) else None, capture_output=True, text=True,
                              errors="replace", timeout=timeout, env=ENV, check=False, cwd="/")
    except subprocess.TimeoutExpired as expired:
        def text(value: object) -> str:
            return value.decode(errors="replace") if isinstance(value, bytes) else str(value or "")
        return {"rc": -9, "stdout": text(expired.stdout),
                "stderr": text(expired.stderr) + f"\nagent: timed out after {timeout} s"}
    except OSError as error:
        return {"rc": -1, "stdout": "", "stderr": f"agent: {argv[0]}: {error.strerror}"}
    return {"rc": done.returncode, "stdout": done.stdout, "stderr": done.stderr}


def run_usb(arguments: list[str]) -> dict[str, object]:
    out, err = io.StringIO(), io.StringIO()
    rc = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            usb.main([str(a) for a in arguments])
        except SystemExit as stop:
            if isinstance(stop.code, str):
                print(stop.code, file=sys.stderr)
            rc = stop.code if isinstance(stop.code, int) else 1
        except Exception as error:
            print(f"usb.py {arguments[:1]}: {type(error).__name__}: {error}", file=sys.stderr)
            rc = 1
    return {"rc": rc, "stdout": out.getvalue(), "stderr": err.getvalue()}


def read_journal(request: dict[str, object]) -> dict[str, object]:
    unit = str(request["journal"])
    if unit not in JOURNALS:
        JOURNALS[unit] = Journal(unit)
    since, wait = request.get("since"), request.get("wait")
    journal = JOURNALS[unit]
    lines = journal.since(since if isinstance(since, int) else 0, float(wait) if isinstance(wait, int | float) else 0.0)
    missed = (f"agent: journalctl --follow had not passed on {journal.missed} entries of {unit} after a quiet wait "
              "(read from the journal itself)") if journal.missed else ""
    return {"rc": 0, "stdout": json.dumps(lines), "stderr": missed}


HELPERS: dict[str, subprocess.Popen[str]] = {}


def ask_helper(request: dict[str, object]) -> dict[str, object]:
    name, argv, line = str(request["helper"]), request.get("argv"), str(request.get("line", ""))
    helper = HELPERS.get(name)
    if helper is None or helper.poll() is not None:
        if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
            return {"rc": -1, "stdout": "", "stderr": f"agent: helper {name} needs argv"}
        helper = HELPERS[name] = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                                  stderr=subprocess.PIPE, text=True, errors="replace", env=ENV,
                                                  cwd="/", bufsize=1)
    assert helper.stdin is not None and helper.stdout is not None and helper.stderr is not None
    try:
        helper.stdin.write(line.replace("\n", " ") + "\n")
        helper.stdin.flush()
    except OSError:
        pass
    said = helper.stdout.readline()  # the helper's own loop answers every line with one line
    if not said:
        helper.wait()
        return {"rc": helper.returncode or -1, "stdout": "", "stderr": f"agent: helper {name} ended: "
                f"{helper.stderr.read()[-3000:]}"}
    return {"rc": 0, "stdout": said, "stderr": ""}


def answer(request: dict[str, object]) -> dict[str, object]:
    if "helper" in request:
        return ask_helper(request)
    if "usb" in request:
        return run_usb(list(request["usb"]))  # type: ignore[call-overload]
    if "journal" in request:
        return read_journal(request)
    return run_command(request)


def main() -> None:
    fd = os.open(port_path(), os.O_RDWR)
    pending = b""
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:  # the host is not connected (yet): a virtio port reads 0 bytes then
            time.sleep(0.05)
            continue
        pending += chunk
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            try:
                request = json.loads(line)
                reply = answer(request) if isinstance(request, dict) else {"rc": -1, "stdout": "",
                                                                           "stderr": "agent: not an object"}
                if isinstance(request, dict):
                    reply["id"] = request.get("id")
            except (ValueError, KeyError, TypeError) as error:
                reply = {"rc": -1, "stdout": "", "stderr": f"agent: bad request: {error}"}
            data = (json.dumps(reply) + "\n").encode()
            while data:
                data = data[os.write(fd, data):]


if __name__ == "__main__":
    main()
