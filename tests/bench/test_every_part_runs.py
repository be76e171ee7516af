"""Every part of ``python -m bench`` runs to its end (issue 28).

The bench rotted unseen: a range check in the engine made its ``flat`` part stop with a traceback,
and nothing ran it. Here each part runs at its smallest (``--smoke``) in a process of its own, as a
person runs it. The test judges no figure (a smoke run's numbers mean nothing); it fails on a
traceback, on a non-zero exit, or on a part that printed no row.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bench.__main__ import PARTS
from tests.tiers import tiered

ROOT = Path(__file__).resolve().parents[2]
#: What a part needs from the machine; under CI=true .ci/run installs it, elsewhere the part is skipped.
NEEDS = {"web": ("chromium", "chromedriver"), "club": ("mosquitto",), "sdcard": ("gcc",),
         "kernel": ("qemu-system-x86_64",), "wired": ("qemu-system-x86_64", "swig"),
         "powercut": ("qemu-system-x86_64",)}


def _missing(part: str) -> list[str]:
    return [tool for tool in NEEDS.get(part, ()) if not (shutil.which(tool) or Path("/usr/sbin", tool).exists())]


#: The fast tier's check of the family: the referee's own path (a daemon on a pty, the driver, the table). Every
#: other part starts servers, browsers, a VM, a compiler or whole games, minutes in all: the whole suite runs them.
FAST_PARTS = {"tap"}


@pytest.mark.parametrize("part", tiered(PARTS, FAST_PARTS))
def test_the_part_runs_to_its_end(part: str) -> None:
    missing = _missing(part)
    if missing and os.environ.get("CI") != "true":
        pytest.skip(f"the {part} part needs {', '.join(missing)} (.ci/run installs it)")
    done = subprocess.run([sys.executable, "-m", "bench", "--smoke", "--only", part], cwd=ROOT,
                          capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL)
    said = f"exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert "Traceback" not in done.stderr, said
    assert done.returncode == 0, said
    table = [line for line in done.stdout.splitlines() if line.startswith("| ") and not line.startswith("| figure")]
    assert table, f"the {part} part printed no row\n{said}"


def test_an_unknown_part_is_one_line_and_exit_64() -> None:
    done = subprocess.run([sys.executable, "-m", "bench", "--smoke", "--only", "tap,nope"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 64 and done.stdout == ""
    assert done.stderr.strip() == f"bench: no part named nope; the parts are {', '.join(PARTS)}"
