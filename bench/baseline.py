"""Today's referee against an older commit of this project, side by side in one run.

The older tree is materialised from the project's own history at bench time (``git archive``
into a temporary folder), never copied into the repository. Each subject runs in a fresh
interpreter of this venv, by rounds that alternate which subject goes first, and every figure
is CPU time of that interpreter (``time.process_time``): on a shared machine the wall clock
counts other people's work, and a ratio measured in one interleaved run is what holds up.

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

#: Runs inside the subject's interpreter: argv is (tree root or "", package prefix, players, hands).
_DRIVER = r"""
import contextlib, importlib, io, json, sys, time
root, prefix, players, hands = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
if root:
    sys.path.insert(0, root)
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
    """The older commit cannot be materialised (not a git checkout, or a shallow clone without it)."""


@dataclass
class Subject:
    """One tree to measure: a label, where its packages are and how they are imported."""

    label: str
    root: str  # "" for this working tree, as installed in the venv
    prefix: str  # "bornes." or "" (before the packages moved under the import name bornes)
    simulate: list[float] = field(default_factory=list)  # hands per CPU second, one per round
    replay: list[float] = field(default_factory=list)
    failures: int = 0

    @property
    def simulate_median(self) -> float:
        return statistics.median(self.simulate)

    @property
    def replay_median(self) -> float:
        return statistics.median(self.replay)


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
    out = subprocess.run([sys.executable, "-I", "-c", _DRIVER, subject.root, subject.prefix, str(players), str(hands)],
                         capture_output=True, text=True, check=True, cwd=tempfile.gettempdir())
    result = json.loads(out.stdout.strip().splitlines()[-1])
    subject.simulate.append(result["hands"] / result["simulate_cpu"])
    subject.replay.append(result["replay_hands"] / result["replay_cpu"])
    subject.failures += result["failures"] + (result["code"] != 0)


def side_by_side(commits: list[str], players: int = 4, hands: int = 400, rounds: int = 7) -> list[Subject]:
    """Measure this tree and each of ``commits`` in interleaved rounds; this tree comes first in the list."""
    with tempfile.TemporaryDirectory(prefix="bornes-baseline-") as scratch:
        subjects = [Subject("today", "", "bornes.")]
        for commit in commits:
            folder = Path(scratch) / commit
            folder.mkdir()
            subjects.append(materialise(commit, folder))
        for round_number in range(rounds):
            order = subjects if round_number % 2 == 0 else subjects[::-1]
            for subject in order:
                _measure(subject, players, hands)
    return subjects


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m bench.baseline", description=__doc__.splitlines()[0])
    parser.add_argument("commits", nargs="*", default=[BASELINE], help=f"commits to compare (default {BASELINE})")
    parser.add_argument("--hands", type=int, default=400)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    subjects = side_by_side(args.commits, args.players, args.hands, args.rounds)
    today = subjects[0]
    print(f"{args.players} players, Winning Moves, {args.hands} hands, {args.rounds} interleaved rounds, "
          "hands per CPU second (median)")
    print(f"| {'subject':<10} | {'simulate':>9} | {'today ÷ it':>10} | {'engine alone':>12} | {'today ÷ it':>10} |")
    for subject in subjects:
        print(f"| {subject.label:<10} | {subject.simulate_median:>9.0f} | "
              f"{today.simulate_median / subject.simulate_median:>10.2f} | {subject.replay_median:>12.0f} | "
              f"{today.replay_median / subject.replay_median:>10.2f} |")
    failed = [s.label for s in subjects if s.failures]
    if failed:
        print(f"invariant failures in: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
