"""The whole suite's hand-out of modules (tests/scheduling.py), checked on a real xdist run of a small suite.

Three workers run modules that write down who ran them and when: the "machine" modules must go only to the first
two workers and never run more than two at once, and the third worker must take the other modules meanwhile.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
MACHINES = ("test_vm_a.py", "test_vm_b.py", "test_vm_c.py", "test_vm_d.py")
OTHERS = tuple(f"test_light_{n}.py" for n in range(6))

CONFTEST = """
import time

from tests.scheduling import HeavyScopesOnTwo


def pytest_xdist_make_scheduler(config, log):
    return HeavyScopesOnTwo(config, log, heavy={machines!r}, heavy_workers={first})


def pytest_collection(session):
    # A worker started again after a crash collects as slowly as the real suite's (seconds), so that the other
    # workers finish tests while it is a node without a collection.
    if getattr(session.config, "workerinput", {{}}).get("workerid") not in (None, "gw0", "gw1", "gw2"):
        time.sleep(3)
"""

CRASH_ONCE = """
import os
from pathlib import Path


def test_crash():
    crashed = Path({log!r}).with_suffix(".crashed")
    if not crashed.exists():
        crashed.touch()
        os._exit(1)  # the worker dies mid-test, as a segfault in a C extension would end it
"""

MANY = "".join(f"\n\ndef test_{n}():\n    time.sleep(0.25)\n" for n in range(6))

MODULE = """
import json, os, time


def test_one():
    start = time.monotonic()
    time.sleep({seconds})
    with open({log!r}, "a") as log:
        log.write(json.dumps({{"module": {name!r}, "worker": os.environ["PYTEST_XDIST_WORKER"],
                              "start": start, "end": time.monotonic()}}) + "\\n")
"""


def run_suite(folder: Path, modules: tuple[str, ...], first: int = 2,
              more: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """``modules`` (each a test that sleeps) and ``more`` (name: source) run by pytest on three xdist workers, the
    first ``first`` of them taking the machines; pytest's run, and what each sleeping test wrote down: its module,
    its worker, when it started and ended."""
    log = folder / "ran.jsonl"
    (folder / "conftest.py").write_text(CONFTEST.format(machines=set(MACHINES), first=first))
    for name in modules:
        seconds = 0.6 if name in MACHINES else 0.2
        (folder / name).write_text(textwrap.dedent(MODULE.format(seconds=seconds, log=str(log), name=name)))
    for name, source in (more or {}).items():
        (folder / name).write_text(source.replace("{log}", repr(str(log))))
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    environment.pop("PYTEST_ADDOPTS", None)
    done = subprocess.run([sys.executable, "-m", "pytest", "-n", "3", "--dist", "loadscope", "--no-loadscope-reorder",
                           "-p", "no:cacheprovider", "-q", "-o", "addopts=", *modules, *(more or {})],
                          cwd=folder, env=environment, capture_output=True, text=True, timeout=120)
    return done, [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


@pytest.mark.slow  # starts a pytest with three xdist workers
def test_machines_go_to_two_workers_one_at_a_time_each_and_the_third_takes_the_rest(tmp_path: Path) -> None:
    done, ran = run_suite(tmp_path, MACHINES + OTHERS)
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(entry["module"] for entry in ran) == sorted(MACHINES + OTHERS)
    machines = [entry for entry in ran if entry["module"] in MACHINES]
    assert {entry["worker"] for entry in machines} <= {"gw0", "gw1"}
    for entry in machines:  # at each machine's start, how many were running (itself included)
        running = [other for other in machines if other["start"] <= entry["start"] < other["end"]]
        assert len(running) <= 2, running
    spare = [entry for entry in ran if entry["worker"] == "gw2"]
    assert spare and all(entry["module"] in OTHERS for entry in spare)
    assert min(entry["start"] for entry in spare) < max(entry["end"] for entry in machines)


@pytest.mark.slow  # starts a pytest with three xdist workers
def test_with_none_of_the_first_workers_left_the_others_take_the_machines(tmp_path: Path) -> None:
    """xdist shuts down the workers a run has no module for, whichever they are (``-n 3`` on one module may keep
    only ``gw2``): the machine must still run, not wait for a worker that is gone. No first workers at all here."""
    done, ran = run_suite(tmp_path, MACHINES[:1], first=0)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [entry["module"] for entry in ran] == [MACHINES[0]]


@pytest.mark.slow  # starts a pytest with three xdist workers, one of which dies
def test_a_worker_that_dies_fails_its_test_and_the_run_goes_on(tmp_path: Path) -> None:
    """A replacement worker is a node before its collection comes in; offering it work then (a KeyError in the
    scheduler) ended the whole session in an INTERNALERROR with most tests never run."""
    more = {"test_crash.py": CRASH_ONCE.replace("{log!r}", "{log}")}
    more |= {f"test_many_{n}.py": "import time\n" + MANY for n in range(6)}
    done, ran = run_suite(tmp_path, MACHINES[:1], more=more)
    assert "INTERNALERROR" not in done.stdout + done.stderr, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.returncode == 1, done.stdout[-3000:]
    # the crash is one failure; its module is run again on the new worker, and passes there; every other test once
    assert re.search(rf"\b1 failed, {1 + 1 + 6 * 6} passed\b", done.stdout), done.stdout[-3000:]
    assert [entry["module"] for entry in ran] == [MACHINES[0]]
