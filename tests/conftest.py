"""Suite-wide fixtures."""

from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

# Bytecode as Python writes it by default, whatever the developer's environment says. Where PYTHONDONTWRITEBYTECODE
# is set (this project's development machines set it), every xdist worker compiled and assertion-rewrote all three
# hundred test modules from source at every run (8.6 s of CPU a worker against 3.4 s from the cache), and every
# child Python the tests start compiled the bench's and tools' modules again. The product is not changed by this:
# an installed referee has its bytecode from pip, and bench.driver.compile_bytecode writes the checkout's.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# The scripts under test (install.sh and its dry runs, some fifteen in the fast tier) ask PATH for python3: they get
# the interpreter the suite runs on, as in an activated venv, not whatever the developer's PATH puts first. On this
# project's machine that was pyenv's shim, a bash script that costs 0.2 s of CPU per call (two a run of install.sh).
_INTERPRETER_DIR = os.path.dirname(sys.executable)
if os.environ.get("PATH", "").split(os.pathsep)[0] != _INTERPRETER_DIR:
    os.environ["PATH"] = os.pathsep.join(filter(None, (_INTERPRETER_DIR, os.environ.get("PATH"))))

# Hypothesis runs every "hypothesis" entry point when it is imported; trio (selenium's, not ours) has one, so every
# worker imported trio and trio.testing with it: 0.78 CPU-s for `import hypothesis` against 0.33 without, here.
# No test uses a plugin's strategies.
os.environ.setdefault("HYPOTHESIS_NO_PLUGINS", "1")


@pytest.hookimpl(optionalhook=True)  # xdist's hook: the kernel tier's VM runs pytest without xdist
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """The workers of ``-n auto`` (addopts): one more than the cores (three on this 2-core machine), two more without
    the slow tests.

    Most tests start a child Python or wait a moment on a pty, a socket or a daemon, leaving a core idle: on this
    machine the fast tier's CPU was busy 134 % of the wall time on two workers and 155 % on three, 123 s against
    101 s at the same load, and a clean-clone CI of the whole suite on two workers was busy 83 % (issue 39). The
    whole suite's machines (a VM under TCG, the booted system) want the cores:
    :class:`tests.scheduling.HeavyScopesOnTwo` keeps them to two workers, one each at a time, and the spare worker
    takes the rest, at a lower priority.

    A run that leaves out the slow tests (the fast tier, ``-m "not slow"``) has no machine in it, and takes one worker
    more: the fast tier on four workers against three, in turn on this machine in a slow hour (``farm-bench -n 3``),
    took 102 s against 107 s (wall, median; each of the three pairs faster on four), the same CPU (186 against 191
    CPU-s): the fourth worker's collection is paid for by the waits it fills."""
    return len(os.sched_getaffinity(0)) + (2 if _slow_tests_left_out(config) else 1)


def _slow_tests_left_out(config: pytest.Config) -> bool:
    """The run's ``-m`` deselects a test marked only ``slow``: every machine is one (the VMs, the booted system)."""
    expression = config.getoption("markexpr")
    if not expression:
        return False
    from _pytest.mark.expression import Expression  # pytest's own parser of -m, as its deselection uses it

    def only_slow(name: str, /, **_: str | int | bool | None) -> bool:
        return name == "slow"

    return not Expression.compile(expression).evaluate(only_slow)


#: The scopes that boot a machine: a VM under TCG (its own emulated CPUs) or the booted system. Only the first
#: :data:`HEAVY_AT_ONCE` workers take them, each one at a time (:class:`tests.scheduling.HeavyScopesOnTwo`), so no
#: more machines run at once than with two workers: their waits are measured for a starved guest on two workers.
HEAVY_SCOPES = (
    "tests/kernel/test_power_cut.py", "tests/system/test_booted.py", "tests/kernel/test_usb_readers.py",
    "tests/kernel/test_webcam.py", "tests/kernel/test_wired_table.py", "tests/kernel/test_rc522.py",
)
HEAVY_AT_ONCE = 2

#: The scopes that take minutes of a worker each (a VM booted under TCG, a booted system, a mypyc build, the bench's
#: smoke runs, sweeps of thousands of journals), as measured in the whole suite (issue 39). They are handed out
#: before everything else, so the two workers end together instead of one booting a VM while the other idles:
#: xdist's own order (``--loadscope-reorder``: most tests first) put these few-test modules last. The booted
#: system comes second: in a CI run of a new commit the first VM module installs the image's layer for this source
#: (tools/kernel/vm.py ``installed_layer``, a minute or more at CI's load) while every other VM module would wait
#: for it, and the booted system needs no layer.
LONG_SCOPES_FIRST = (
    *HEAVY_SCOPES, "tests/engine/test_compiled_engine.py", "tests/bench/test_every_part_runs.py",
    "tests/faults/test_crash.py", "tests/faults/test_wal_flips.py",
)


@pytest.hookimpl(optionalhook=True)  # xdist's hook, called only where xdist runs the session
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """:class:`tests.scheduling.HeavyScopesOnTwo` for ``--dist loadscope`` (addopts); xdist's own for another."""
    if config.getoption("dist") != "loadscope":
        return None
    from tests.scheduling import HeavyScopesOnTwo  # imports xdist, which the kernel tier's VM has not installed

    return HeavyScopesOnTwo(config, log, heavy=HEAVY_SCOPES, heavy_workers=HEAVY_AT_ONCE)


#: The niceness of a worker beyond :data:`HEAVY_AT_ONCE` in a run with machines in it: it fills the cores the others
#: leave idle (a test waiting on its child) rather than taking a third of them from a guest in the middle of a boot.
SPARE_NICE = 2


@pytest.hookimpl(trylast=True)  # after -m and -k have deselected: what is left is what runs
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The order xdist hands modules out in (``--no-loadscope-reorder``, addopts): the long scopes first
    (:data:`LONG_SCOPES_FIRST`), then the others with the most tests first, as xdist's own reorder would;
    every module's own tests keep their order."""
    module = {id(item): item.nodeid.split("::", 1)[0] for item in items}
    worker = getattr(config, "workerinput", {}).get("workerid")  # this session's own, never a parent's (environment)
    if worker is not None and config.getoption("dist") == "loadscope" and set(HEAVY_SCOPES) & set(module.values()):
        from tests.scheduling import worker_number  # imports xdist: only where xdist runs the session

        if worker_number(worker) >= HEAVY_AT_ONCE:
            os.nice(SPARE_NICE)  # every worker collects the whole run: this one is a spare beside the machines
    tests = Counter(module.values())
    rank = {path: n for n, path in enumerate(LONG_SCOPES_FIRST)}
    first_seen = {path: n for n, path in enumerate(dict.fromkeys(module.values()))}
    items.sort(key=lambda item: (rank.get(module[id(item)], len(rank)), -tests[module[id(item)]],
                                 first_seen[module[id(item)]]))


def pytest_configure(config: pytest.Config) -> None:
    """``BORNES_EXPECT_ENGINE=mypyc`` (or ``python``): the session stops before any test unless the
    engine it imports is that build, so a run meant for the compiled engine cannot pass on the
    Python one by a path mix-up (tests/engine/test_compiled_engine.py)."""
    expected = os.environ.get("BORNES_EXPECT_ENGINE")
    if not expected:
        return
    from bornes.engine import engine_build, rules

    running = engine_build()
    if running != expected:
        raise pytest.UsageError(f"BORNES_EXPECT_ENGINE={expected}, but the {running} engine answered "
                                f"({rules.__file__})")


@pytest.fixture(autouse=True)
def no_daemon_outlives_its_test() -> Iterator[None]:
    """A test that failed half-way left its ``bornes run`` (bench.driver.Daemon) running, holding a pty
    and a state folder; the tests after it met that daemon instead of their own."""
    yield
    driver = sys.modules.get("bench.driver")
    if driver is not None:
        driver.kill_leftovers()


@pytest.fixture
def files_nobody_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    """For the bit-flip sweeps: a reader that finds a WAL damaged reads it again after
    ``wal.CONFIRM_PAUSE`` (20 ms), in case a writer was mid-append. A sweep's copies are written before
    they are read and never while, so the wait cannot change a verdict; it was 90 % of the WAL sweep's
    time. The second read and its comparison still run."""
    from bornes.firmware.storage import wal

    monkeypatch.setattr(wal, "CONFIRM_PAUSE", 0.0)
