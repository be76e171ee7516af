"""Today's referee, compiled and as Python, against older commits of this project, side by side in one run.

The older trees are materialised from the project's own history at bench time (``git archive``
into a temporary folder), never copied into the repository. Today's tree is measured twice: as
the venv runs it (Python, the editable install) and as a ``BORNES_COMPILE=1`` install runs it
(the engine compiled with mypyc, built from this checkout into the same temporary folder by
bench/compiled.py; the build is timed). Each subject runs in a fresh interpreter of this venv,
by rounds that alternate which subject goes first, and every figure is CPU time of that
interpreter (``time.process_time``): on a shared machine the wall clock counts other people's
work, and a ratio measured in one interleaved run is what holds up. Today's subjects check, in
their own interpreter, that the engine they run is the one they are named for (``engine_build``).

Two figures per subject and round, each on the same 4-player Winning Moves hands (seed 1):

* ``bornes simulate --json`` run through the subject's own ``main`` (bots, the referee and every
  invariant check, as a user runs it; interpreter start and imports left out);
* the engine alone: the games that subject's simulator played, replayed from their logs
  (``Game(setup, log)``: validate + apply for every action, nothing else).
"""

from __future__ import annotations

import io
import json
import statistics
import subprocess
import sys
import tarfile
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

#: The November baseline the issue tracker measures against (issue 22).
BASELINE = "f83ad17"
REPO = Path(__file__).resolve().parents[1]

#: Runs inside the subject's interpreter: argv is (tree root or "", package prefix, players, hands,
#: the engine build it must run: "mypyc", "python" or "" for an older tree that cannot say).
_DRIVER = r"""
import contextlib, importlib, io, json, sys, time
root, prefix, players, hands, build = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
if root:
    sys.path.insert(0, root)
if build:
    running = importlib.import_module(prefix + "engine.compiled").engine_build()
    if running != build:
        where = importlib.import_module(prefix + "engine.rules").__file__
        sys.exit(f"expected the {build} engine, got the {running} one ({where})")
cli = importlib.import_module(prefix + "firmware.cli")
simulate = importlib.import_module(prefix + "engine.simulate")
game_module = importlib.import_module(prefix + "engine.game")
state_module = importlib.import_module(prefix + "engine.state")
out = io.StringIO()
argv = ["simulate", "--players", str(players), "--hands", str(hands), "--seed", "1", "--json"]
started = time.process_time()
with contextlib.redirect_stdout(out):
    code = cli.main(argv)
simulate_cpu = time.process_time() - started
summary = json.loads(out.getvalue())
if build and summary.get("engine") != build:
    sys.exit(f"expected the {build} engine, bornes simulate ran the {summary.get('engine')} one")
setup = state_module.GameSetup.create("winning-moves", [f"P{i + 1}" for i in range(players)])
report = simulate.simulate(setup, hands, 1)
logs = [game.log for game in report.games_played]
started = time.process_time()
for log in logs:
    game_module.Game(setup, log)
replay_cpu = time.process_time() - started
print(json.dumps({
    "code": code, "hands": summary["hands"], "actions": summary["actions"],
    "failures": summary["invariant_failures"], "simulate_cpu": simulate_cpu,
    "replay_hands": report.hands, "replay_actions": sum(len(log) for log in logs), "replay_cpu": replay_cpu,
}))
"""


class BaselineError(RuntimeError):
    """A subject cannot be measured: an older commit cannot be materialised (not a git checkout, or a
    shallow clone without it), or a subject's interpreter failed (the wrong engine answered, say)."""


@dataclass
class Subject:
    """One tree to measure: a label, where its packages are and how they are imported."""

    label: str
    root: str  # "" for this working tree, as installed in the venv
    prefix: str  # "bornes." or "" (before the packages moved under the import name bornes)
    build: str = ""  # the engine it must run ("mypyc", "python"); "" for an older tree that cannot say
    simulate: list[float] = field(default_factory=list)  # hands per CPU second, one per round
    replay: list[float] = field(default_factory=list)
    failures: int = 0

    @property
    def simulate_median(self) -> float:
        return statistics.median(self.simulate)

    @property
    def replay_median(self) -> float:
        return statistics.median(self.replay)


@dataclass
class SideBySide:
    """One interleaved run: today's tree compiled (when it could be built) and as Python, and older commits."""

    python: Subject
    compiled: Subject | None
    commits: list[Subject]
    build_seconds: float | None = None  # the wall time of the compiled wheel's build
    unavailable: str | None = None  # why there is no compiled subject (mypy or a C compiler missing)
    #: One legal_actions call for the seat in turn, µs, per subject label (those whose bots play today's games).
    legal: dict[str, float] = field(default_factory=dict)
    legal_calls: int = 0

    @property
    def subjects(self) -> list[Subject]:
        return [s for s in (self.compiled, self.python) if s is not None] + self.commits

    def commit(self, label: str) -> Subject:
        return next(s for s in self.commits if s.label == label)


def materialise(commit: str, into: Path) -> Subject:
    """Unpack ``commit`` of this repository into ``into`` and say how to import it."""
    try:
        archive = subprocess.run(["git", "-C", str(REPO), "archive", "--format=tar", commit],
                                 capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        stderr = getattr(error, "stderr", b"") or b""
        raise BaselineError(f"cannot read commit {commit} from {REPO}: {stderr.decode().strip() or error}") from None
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        if hasattr(tarfile, "data_filter"):  # Python 3.11.4 and later
            tar.extractall(into, filter="data")
        else:  # pragma: no cover - our own repository's archive
            tar.extractall(into)
    script = tomllib.loads((into / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]["bornes"]
    if script.startswith("bornes."):
        # The folders stayed at the top and were installed as bornes.*: a package that points at them.
        shim = into / "_shim" / "bornes"
        shim.mkdir(parents=True)
        (shim / "__init__.py").write_text("", encoding="utf-8")
        for name in ("engine", "drivers", "firmware", "wiring"):
            if (into / name).is_dir():
                (shim / name).symlink_to(into / name, target_is_directory=True)
        return Subject(commit, str(into / "_shim"), "bornes.")
    return Subject(commit, str(into), "")


def _measure(subject: Subject, players: int, hands: int) -> None:
    out = subprocess.run([sys.executable, "-I", "-c", _DRIVER, subject.root, subject.prefix, str(players), str(hands),
                          subject.build], capture_output=True, text=True, check=False, cwd=tempfile.gettempdir())
    if out.returncode != 0:
        said = out.stderr.strip().splitlines()[-1:] or [f"exit status {out.returncode}"]
        raise BaselineError(f"{subject.label}: {said[0]}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    subject.simulate.append(result["hands"] / result["simulate_cpu"])
    subject.replay.append(result["replay_hands"] / result["replay_cpu"])
    subject.failures += result["failures"] + (result["code"] != 0)


def side_by_side(commits: list[str], players: int = 4, hands: int = 400, rounds: int = 7,
                 compiled: bool = True, reuse_build: bool = False) -> SideBySide:
    """Measure this tree (compiled, when ``compiled`` and this machine can build it, and as Python) and
    each of ``commits`` in interleaved rounds. A missing compiler or mypy leaves the compiled subject out
    and says why (``unavailable``); a build that fails with the tools present raises. ``reuse_build`` takes
    the compiled build of the same engine from the machine's shared cache (a smoke run; its build time is
    then that of whoever built it)."""
    from bench.compiled import CompileUnavailable, build, shared_cache

    with tempfile.TemporaryDirectory(prefix="bornes-baseline-") as scratch:
        run = SideBySide(Subject("today, Python", "", "bornes.", "python"), None, [])
        for commit in commits:
            folder = Path(scratch) / commit
            folder.mkdir()
            run.commits.append(materialise(commit, folder))
        if compiled:
            try:
                made = build(Path(scratch) / "compiled", shared_cache() if reuse_build else None)
            except CompileUnavailable as error:
                run.unavailable = str(error)
            else:
                run.compiled = Subject("today, mypyc", str(made.root), "bornes.", "mypyc")
                run.build_seconds = made.seconds
        subjects = run.subjects
        for round_number in range(rounds):
            order = subjects if round_number % 2 == 0 else subjects[::-1]
            for subject in order:
                _measure(subject, players, hands)
        _measure_legal_actions(run, players)
    return run


def _measure_legal_actions(run: SideBySide, players: int) -> None:
    """Time legal_actions on the same bot turns in every subject whose bots play today's games."""
    from bench.figures import bot_turns, legal_actions_cost

    turns = bot_turns(players)
    for subject in run.subjects:
        measured = legal_actions_cost(subject.root, subject.prefix, players, turns=turns)
        if measured is not None:
            run.legal_calls, run.legal[subject.label], _ = measured


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m bench.baseline", description=__doc__.splitlines()[0])
    parser.add_argument("commits", nargs="*", default=[BASELINE], help=f"commits to compare (default {BASELINE})")
    parser.add_argument("--hands", type=int, default=400)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--python-only", action="store_true",
                        help="measure today's tree as Python only (no compiled build, no compiler needed)")
    args = parser.parse_args(argv)
    try:
        run = side_by_side(args.commits, args.players, args.hands, args.rounds, compiled=not args.python_only)
    except BaselineError as error:
        print(f"bench.baseline: {error}", file=sys.stderr)
        return 2
    if run.unavailable:
        print(f"{run.unavailable}; measuring today's tree as Python only", file=sys.stderr)
    print(f"{args.players} players, Winning Moves, {args.hands} hands, {args.rounds} interleaved rounds, "
          "hands per CPU second (median)")
    if run.build_seconds is not None:
        print(f"compiled engine (BORNES_COMPILE=1 pip wheel --no-build-isolation) built in {run.build_seconds:.0f} s")
    todays = [s for s in (run.compiled, run.python) if s is not None]
    ratios = [f"{today.label.removeprefix('today, ')} ÷ it" for today in todays]
    width = max(len(s.label) for s in run.subjects)
    print(f"| {'subject':<{width}} | {'simulate':>9} | " + " | ".join(f"{r:>13}" for r in ratios)
          + f" | {'engine alone':>12} | " + " | ".join(f"{r:>13}" for r in ratios) + " |")
    for subject in run.subjects:
        simulate = " | ".join(f"{t.simulate_median / subject.simulate_median:>13.2f}" for t in todays)
        replay = " | ".join(f"{t.replay_median / subject.replay_median:>13.2f}" for t in todays)
        print(f"| {subject.label:<{width}} | {subject.simulate_median:>9.0f} | {simulate} | "
              f"{subject.replay_median:>12.0f} | {replay} |")
    if run.legal:
        print(f"one legal_actions call for the seat in turn holding 6–7 cards ({run.legal_calls} turns replayed, "
              "best of 5): " + "; ".join(f"{label} {micros:.2f} µs" for label, micros in run.legal.items()))
    failed = [s.label for s in run.subjects if s.failures]
    if failed:
        print(f"invariant failures in: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
