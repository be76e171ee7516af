"""Refresh ``systemd/pi-constraints.txt``, the versions a Raspberry Pi installs.

``python -m tools.lock`` resolves the project with the extras a Pi may install (``web``, ``club``),
the test tools the arm64 check runs (pytest, hypothesis) and what a compiling build asks for
(``install.sh --compile-engine``: mypy, whose mypyc builds the engine), *wheels only*, for the Pi's
platform (``manylinux_2_17_aarch64``) under each Python a Raspberry Pi OS ships: 3.11 (bookworm)
and 3.13 (trixie). It writes the pins only when both resolutions agree, so every line of the file
has a wheel for both; otherwise it names the packages that differ and exits 1.

``python -m tools.lock --check`` re-resolves and downloads (``pip download --only-binary :all:``)
every pinned wheel for both Pythons, without writing; exit 1 if one is missing. Needs PyPI.

Add a dependency to pyproject.toml, run ``python -m tools.lock``, commit the new file.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONSTRAINTS = ROOT / "systemd" / "pi-constraints.txt"
#: What a Pi may install: the program with its optional phone pages, club bridge and camera reader.
EXTRAS = "web,club,camera"
#: Not installed by install.sh, but pinned so the arm64 check tests with known versions.
TEST_TOOLS = ("pytest", "hypothesis")
#: Not installed in the venv either: what ``BORNES_COMPILE=1`` adds to the build's own requirements
#: (build_support/bornes_build.py), which install.sh --compile-engine pins with this file.
BUILD_TOOLS = ("mypy",)
PYTHONS = ("3.11", "3.13")
PLATFORM = "manylinux_2_17_aarch64"

HEADER = f"""\
# The versions a Raspberry Pi installs (pip constraints; install.sh passes -c this file).
# Every line has a wheel for Python 3.11 (bookworm) and 3.13 (trixie) on aarch64
# ({PLATFORM}), so a Pi never compiles. Regenerate with:  python -m tools.lock
# Check (downloads each wheel for both Pythons):          python -m tools.lock --check
"""


def _pip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", *args],
                          check=False, capture_output=True, text=True)


def _project_wheel(folder: Path) -> Path:
    done = _pip("wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(folder), str(ROOT))
    if done.returncode != 0:
        raise SystemExit(f"lock: could not build the project's wheel:\n{done.stderr}")
    return next(folder.glob("bornes-*.whl"))


def _platform_args(python: str) -> list[str]:
    return ["--only-binary", ":all:", "--platform", PLATFORM, "--python-version", python,
            "--implementation", "cp"]


def resolve(wheel: Path, python: str, work: Path) -> dict[str, str]:
    """Name -> version pip picks for ``wheel[EXTRAS]`` on an aarch64 Pi with ``python``."""
    report = work / f"report-{python}.json"
    done = _pip("install", "-q", "--dry-run", "--ignore-installed", "--report", str(report),
                *_platform_args(python), "--target", str(work / "target"),
                f"{wheel}[{EXTRAS}]", *TEST_TOOLS, *BUILD_TOOLS)
    if done.returncode != 0:
        raise SystemExit(f"lock: no wheels-only resolution for Python {python}:\n{done.stderr}")
    found = json.loads(report.read_text())["install"]
    return {item["metadata"]["name"].lower(): item["metadata"]["version"]
            for item in found if item["metadata"]["name"].lower() != "bornes"}


def render(pins: dict[str, str]) -> str:
    return HEADER + "".join(f"{name}=={pins[name]}\n" for name in sorted(pins))


def check(work: Path) -> int:
    """Download every pinned wheel (and nothing else) for each Python; 0 if all exist."""
    status = 0
    for python in PYTHONS:
        done = _pip("download", "-q", "--no-deps", *_platform_args(python), "-d", str(work / python),
                    "-r", str(CONSTRAINTS))
        count = len(list((work / python).glob("*.whl")))
        if done.returncode != 0:
            print(f"Python {python}: missing wheels\n{done.stderr.strip()}")
            status = 1
        else:
            print(f"Python {python} {PLATFORM}: {count} wheels, all present")
    return status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.lock", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="download each pinned wheel; write nothing")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bornes-lock-") as tmp:
        work = Path(tmp)
        if args.check:
            return check(work)
        wheel = _project_wheel(work / "project")
        found = {python: resolve(wheel, python, work) for python in PYTHONS}
        first, *others = found.values()
        differ = sorted(name for other in others for name in first.keys() | other.keys()
                        if first.get(name) != other.get(name))
        if differ:
            for name in differ:
                print(f"lock: {name}: " + ", ".join(f"{py} {found[py].get(name, '-')}" for py in PYTHONS))
            print("lock: the Pythons resolve differently; pin the package in pyproject.toml and retry")
            return 1
        CONSTRAINTS.write_text(render(first))
        print(f"wrote {CONSTRAINTS.relative_to(ROOT)}: {len(first)} pins, wheels for Python "
              f"{' and '.join(PYTHONS)} on {PLATFORM}")
        return 0


if __name__ == "__main__":
    sys.exit(main())
