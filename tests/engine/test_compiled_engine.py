"""The compiled engine is the same engine: a ``BORNES_COMPILE=1`` build (mypyc, setup.py) passes the
engine's and the table flow's tests, and plays the very same games as the Python engine.

The engine is compiled once for its own sources (the bench's smoke run reuses it), offline, from a copy of
the checkout (bench/compiled.py: ``pip wheel --no-build-isolation``, mypy and setuptools from the
dev venv, gcc and Python's headers from the machine), and installed with ``pip install --target``
into a folder that ``PYTHONPATH`` puts ahead of the venv's editable install. Every run against it
checks that the compiled modules answered (``engine_build()``), so a path mix-up cannot pass on the
Python engine. Without mypy or a C compiler the module is skipped with the reason, except under
``CI=true``, where it fails: CI installs both (.ci/run). Slow: the build alone takes about half a
minute on the development machine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from bench.compiled import CompileUnavailable, build, shared_cache
from bornes.engine import EDITIONS

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
THIS = Path(__file__).resolve()
IN_CI = os.environ.get("CI") == "true"

#: Fields of ``bornes simulate --json`` that measure the run rather than the games it played.
NOT_THE_GAMES = ("seconds", "hands_per_second", "cpu_seconds", "hands_per_cpu_second", "engine")

#: Runs in the subject's interpreter: argv[1] is a JSON list of ``bornes simulate`` argument lists.
#: For each, the CLI's summary and a fingerprint of the games themselves: every action of every
#: game in notation, every hand's score sheet and the winner (the summary only counts them).
_DRIVER = r"""
import contextlib, hashlib, io, json, random, sys
from bornes.engine import EDITIONS, GameSetup, engine_build
from bornes.engine.simulate import simulate
from bornes.firmware.cli import main

cases = []
for argv in json.loads(sys.argv[1]):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["simulate", "--json", *argv])
    summary = json.loads(out.getvalue())
    overrides = dict(argv[i + 1].split("=", 1) for i, word in enumerate(argv) if word == "--option")
    options = EDITIONS[summary["edition"]].options.with_strings(overrides)
    setup = GameSetup.create(summary["edition"], [f"P{i + 1}" for i in range(summary["players"])],
                             teams=summary["teams"], options=options)
    report = simulate(setup, summary["hands"], summary["seed"], "--verify-replay" in argv)
    digest = hashlib.sha256()
    for game in report.games_played:
        digest.update("\n".join(action.notation() for action in game.log).encode())
        state = game.state
        digest.update(repr([(s.hand, s.rows, s.brought_forward) for s in state.sheets]).encode())
        digest.update(repr((state.winner, state.over)).encode())
    cases.append({"argv": argv, "code": code, "summary": summary, "games": digest.hexdigest(),
                  "played": len(report.games_played)})
print(json.dumps({"engine": engine_build(), "cases": cases}))
"""


def _env(compiled: Path | None, **extra: str) -> dict[str, str]:
    """This environment without what could pick the engine or confuse a pytest started inside a test."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "BORNES_EXPECT_ENGINE", "BORNES_COMPILE") and not k.startswith("PYTEST_")}
    if compiled is not None:
        env["PYTHONPATH"] = str(compiled)
    return {**env, **extra}


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``--target`` folder of this checkout's compiled wheel."""
    try:
        made = build(tmp_path_factory.mktemp("compiled"), shared_cache())
    except CompileUnavailable as error:
        if IN_CI:
            pytest.fail(f"{error} (CI must build the compiled engine: .ci/run installs gcc, mypy is in [dev])")
        pytest.skip(str(error))
    return made.root


def test_the_engine_and_flow_tests_pass_on_the_compiled_engine(compiled: Path, tmp_path: Path) -> None:
    report = tmp_path / "junit.xml"
    # One worker: the suite around this test already keeps both cores busy.
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/engine", "tests/flow", f"--ignore={THIS}", "-p", "no:cacheprovider",
         "-n", "0", f"--junit-xml={report}"],
        cwd=REPO, env=_env(compiled, BORNES_EXPECT_ENGINE="mypyc"), capture_output=True, text=True, timeout=900,
        check=False)
    said = (result.stdout + result.stderr).strip()
    assert result.returncode == 0, said[-6000:]
    suite = ElementTree.parse(report).getroot().find("testsuite")
    assert suite is not None, said[-3000:]
    assert suite.get("failures") == suite.get("errors") == "0", said[-3000:]
    ran = {case.get("classname", "").split(".")[1] for case in suite.iter("testcase") if case.find("skipped") is None}
    assert ran == {"engine", "flow"}, said[-3000:]


def _cases() -> list[list[str]]:
    """Every edition at every table size it allows, solo and in teams where both are allowed, each
    with and without --verify-replay, on its own seed; and two rule options away from the defaults."""
    cases: list[list[str]] = []
    for name, edition in EDITIONS.items():
        for seats in edition.seat_counts:
            for teams in (False, True):
                if seats not in (edition.team_seats if teams else edition.solo_seats):
                    continue
                for verify in (False, True):
                    seed = len(cases) + 1
                    cases.append(["--edition", name, "--players", str(seats), "--teams" if teams else "--solo",
                                  "--hands", "12", "--seed", str(seed), *(["--verify-replay"] if verify else [])])
    cases.append(["--players", "3", "--hands", "20", "--seed", "99", "--option", "hazard_on_hazard=true",
                  "--option", "draw_from_discard=true", "--verify-replay"])
    cases.append(["--edition", "hasbro-2016", "--players", "5", "--hands", "20", "--seed", "7",
                  "--option", "empty_draw_pile=end-hand"])
    return cases


def _simulate(cases: list[list[str]], compiled: Path | None, cwd: Path) -> dict[str, Any]:
    result = subprocess.run([sys.executable, "-c", _DRIVER, json.dumps(cases)], cwd=cwd, env=_env(compiled),
                            capture_output=True, text=True, timeout=600, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    answer: dict[str, Any] = json.loads(result.stdout)
    return answer


def test_the_compiled_engine_plays_the_same_games_as_the_python_one(compiled: Path, tmp_path: Path) -> None:
    cases = _cases()
    as_c = _simulate(cases, compiled, tmp_path)
    as_python = _simulate(cases, None, tmp_path)
    assert (as_c["engine"], as_python["engine"]) == ("mypyc", "python")
    assert len(as_c["cases"]) == len(as_python["cases"]) == len(cases)
    for c, py in zip(as_c["cases"], as_python["cases"], strict=True):
        assert (c["summary"]["engine"], py["summary"]["engine"]) == ("mypyc", "python")
        assert py["code"] == 0 and py["summary"]["invariant_failures"] == 0, py
        assert py["summary"]["actions"] > 0 and py["played"] > 0, py
        for field in NOT_THE_GAMES:
            del c["summary"][field], py["summary"][field]
        assert c == py, f"bornes simulate {' '.join(py['argv'])}"
