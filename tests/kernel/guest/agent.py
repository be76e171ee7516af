"""The kernel tier's hands inside the VM: runs the commands the host sends, one at a time.

The host (tests/kernel/vm.py) talks to it over a virtio-serial port named ``bornes.agent``: one
JSON object a line, ``{"argv": [...], "input": "…" | null, "timeout": seconds}``, answered by one
line ``{"rc": N, "stdout": "…", "stderr": "…", "id": …}`` (``rc`` is -9 when the command ran out of
time; ``id`` is the request's own, echoed).
Trixie's own python3 runs it, with nothing but the standard library: it must work before and
whatever the referee's install does. It is the test's machinery, never part of the appliance.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

PORT_NAME = "bornes.agent"
ENV = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"}


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


def answer(request: dict[str, object]) -> dict[str, object]:
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
                    reply["id"] = request.get("id")  # the host drops answers to requests it gave up on
            except ValueError as error:
                reply = {"rc": -1, "stdout": "", "stderr": f"agent: bad request: {error}"}
            data = (json.dumps(reply) + "\n").encode()
            while data:
                data = data[os.write(fd, data):]


if __name__ == "__main__":
    main()
