"""The whole suite's hand-out of modules (tests/scheduling.py), checked on a real xdist run of a small suite.

Three workers run modules that write down who ran them and when: the "machine" modules must go only to the first
two workers and never run more than two at once, and the third worker must take the other modules meanwhile.
"""

from __future__ import annotations

import json
import os
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
from tests.scheduling import HeavyScopesOnTwo


def pytest_xdist_make_scheduler(config, log):
    return HeavyScopesOnTwo(config, log, heavy={machines!r}, heavy_workers={first})
"""

MODULE = """
import json, os, time


def test_one():
    start = time.monotonic()
    time.sleep({seconds})
    with open({log!r}, "a") as log:
        log.write(json.dumps({{"module": {name!r}, "worker": os.environ["PYTEST_XDIST_WORKER"],
                              "start": start, "end": time.monotonic()}}) + "\\n")
"""


def run_suite(folder: Path, modules: tuple[str, ...], first: int = 2) -> list[dict[str, Any]]:
    """``modules`` (each a test that sleeps) run by pytest on three xdist workers, the first ``first`` of them
    taking the machines; what each test wrote down: its module, its worker, when it started and ended."""
    log = folder / "ran.jsonl"
    (folder / "conftest.py").write_text(CONFTEST.format(machines=set(MACHINES), first=first))
    for name in modules:
        seconds = 0.6 if name in MACHINES else 0.2
        (folder / name).write_text(textwrap.dedent(MODULE.format(seconds=seconds, log=str(log), name=name)))
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    environment.pop("PYTEST_ADDOPTS", None)
    done = subprocess.run([sys.executable, "-m", "pytest", "-n", "3", "--dist", "loadscope", "--no-loadscope-reorder",
                           "-p", "no:cacheprovider", "-q", "-o", "addopts=", *modules],
                          cwd=folder, env=environment, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return [json.loads(line) for line in log.read_text().splitlines()]


@pytest.mark.slow  # starts a pytest with three xdist workers
def test_machines_go_to_two_workers_one_at_a_time_each_and_the_third_takes_the_rest(tmp_path: Path) -> None:
    ran = run_suite(tmp_path, MACHINES + OTHERS)
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
    ran = run_suite(tmp_path, MACHINES[:1], first=0)
    assert [entry["module"] for entry in ran] == [MACHINES[0]]
