"""The project's two locks: what a Raspberry Pi installs, and what a developer's machine installs.

- ``systemd/pi-constraints.txt``: the program with the extras a Pi may install (``web``, ``club``),
  the test tools the arm64 check runs (pytest, hypothesis) and what a compiling build asks for
  (``install.sh --compile-engine``: mypy), *wheels only*, for the Pi's platform
  (``manylinux_2_17_aarch64``) under each Python a Raspberry Pi OS ships: 3.11 (bookworm) and 3.13
  (trixie). Both Pythons must resolve to the same versions, so every line has a wheel for both.
- ``constraints.txt``: everything the README's two commands install (the ``dev`` and ``desktop``
  extras with their dependencies, and the build backend), for CPython 3.11 to 3.13 on x86-64 and
  aarch64 Linux (glibc 2.36, Debian bookworm, or newer). It is resolved *under* the Pi's pins, so a
  library both lists hold is tested at the version a Pi runs. Where the Pythons or machines need
  different versions, the line carries an environment marker. A package PyPI has as source only
  (evdev) is pinned by the version pip picks natively; it must have no dependencies of its own.

``python -m tools.lock`` moves every pin forward: it resolves both files afresh, writes them, pins
the build backend in pyproject.toml's ``[build-system]`` to the same setuptools, installs the new
set into this venv, recompiles the catalogues (a new Babel) and runs ruff, mypy and the whole
suite. ``--no-suite`` stops after the install. Commit what it wrote when the suite is green.

``python -m tools.lock --keep`` does the same but keeps every pin the files hold, so a dependency just added
to pyproject.toml gets its pins without moving anything else (it fails, and says so, when a kept pin
cannot serve the new package: then move everything).

``python -m tools.lock --check`` writes nothing: it resolves the project again *under* each lock,
for every Python and machine the lock covers, and fails if pip would install a package that has no
pin or whose wheel is missing. Needs PyPI.

The README's commands install through ``constraints.txt`` (``pip install -c constraints.txt``),
``.ci/run`` too, so a release upstream cannot change what the tests run against.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "pyproject.toml"
CONSTRAINTS = ROOT / "systemd" / "pi-constraints.txt"
DESKTOP_CONSTRAINTS = ROOT / "constraints.txt"
#: What a Pi may install: the program with its optional phone pages and club bridge.
EXTRAS = "web,club"
#: Not installed by install.sh, but pinned so the arm64 check tests with known versions.
TEST_TOOLS = ("pytest", "hypothesis")
#: Not installed in the venv either: what ``BORNES_COMPILE=1`` adds to the build's own requirements
#: (build_support/bornes_build.py), which install.sh --compile-engine pins with this file.
BUILD_TOOLS = ("mypy",)
PYTHONS = ("3.11", "3.13")
PLATFORM = "manylinux_2_17_aarch64"

#: What the README's two commands install: ``.[desktop]`` (run the emulated table) and ``.[dev]`` (the tests).
DESKTOP_EXTRAS = ("dev", "desktop")
DESKTOP_PYTHONS = ("3.11", "3.12", "3.13")
DESKTOP_MACHINES = ("x86_64", "aarch64")
#: The oldest C library a developer's machine may have: Debian 12 (bookworm), as Raspberry Pi OS bookworm.
GLIBC_MINOR = 36

HEADER = f"""\
# The versions a Raspberry Pi installs (pip constraints; install.sh passes -c this file).
# Every line has a wheel for Python 3.11 (bookworm) and 3.13 (trixie) on aarch64
# ({PLATFORM}), so a Pi never compiles. Regenerate with:  python -m tools.lock
# Check (downloads each wheel for both Pythons):          python -m tools.lock --check
"""

DESKTOP_HEADER = f"""\
# The versions the README's two commands install (pip install -c constraints.txt -e '.[dev]' or
# '.[desktop]'), and .ci/run with them: every package, for CPython {DESKTOP_PYTHONS[0]} to {DESKTOP_PYTHONS[-1]} on
# {' and '.join(DESKTOP_MACHINES)} Linux (glibc 2.{GLIBC_MINOR} or newer), resolved under systemd/pi-constraints.txt so
# a library both hold is tested at the version a Pi runs. Move every pin forward (rewrites both
# files, installs them here, recompiles the catalogues, runs the suite):  python -m tools.lock
# Check that the lock still covers the project:                           python -m tools.lock --check
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


def _report(report: Path) -> dict[str, str]:
    found = json.loads(report.read_text())["install"]
    return {canonicalize_name(item["metadata"]["name"]): item["metadata"]["version"]
            for item in found if canonicalize_name(item["metadata"]["name"]) != "bornes"}


def resolve(wheel: Path, python: str, work: Path, keep: bool = False) -> dict[str, str]:
    """Name -> version pip picks for ``wheel[EXTRAS]`` on an aarch64 Pi with ``python`` (``keep``: within the
    pins the file holds now, so only what is new gets a version of its own)."""
    report = work / f"report-{python}.json"
    kept = ["-c", str(CONSTRAINTS)] if keep else []
    done = _pip("install", "-q", "--dry-run", "--ignore-installed", "--report", str(report),
                *_platform_args(python), "--target", str(work / "target"), *kept,
                f"{wheel}[{EXTRAS}]", *TEST_TOOLS, *BUILD_TOOLS)
    if done.returncode != 0:
        raise SystemExit(f"lock: no wheels-only resolution for Python {python}:\n{done.stderr}")
    return _report(report)


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


def lock_pi(work: Path, keep: bool = False) -> dict[str, str] | None:
    """Resolve the Pi's pins for both Pythons; None (and the differences printed) if they disagree."""
    wheel = _project_wheel(work / "project")
    found = {python: resolve(wheel, python, work, keep) for python in PYTHONS}
    first, *others = found.values()
    differ = sorted(name for other in others for name in first.keys() | other.keys()
                    if first.get(name) != other.get(name))
    if differ:
        for name in differ:
            print(f"lock: {name}: " + ", ".join(f"{py} {found[py].get(name, '-')}" for py in PYTHONS))
        print("lock: the Pythons resolve differently; pin the package in pyproject.toml and retry")
        return None
    return first


# -- the developer's lock ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """One interpreter and machine the developer's lock covers."""

    python: str
    machine: str

    def pip_args(self) -> list[str]:
        """pip's options for this target, wheels only: manylinux tags up to glibc 2.GLIBC_MINOR."""
        tags = [f"manylinux_2_{minor}_{self.machine}" for minor in range(GLIBC_MINOR, 4, -1)]
        tags += [f"manylinux2014_{self.machine}"]
        if self.machine == "x86_64":
            tags += ["manylinux2010_x86_64", "manylinux1_x86_64"]
        platforms = [arg for tag in tags for arg in ("--platform", tag)]
        return ["--only-binary", ":all:", *platforms, "--python-version", self.python, "--implementation", "cp"]

    def marker(self) -> str:
        return f'python_version == "{self.python}" and platform_machine == "{self.machine}"'


TARGETS = tuple(Target(python, machine) for python in DESKTOP_PYTHONS for machine in DESKTOP_MACHINES)


def desktop_requirements() -> list[str]:
    """The requirement lines the README's two commands ask for, read from pyproject.toml: the program's
    dependencies, the ``dev`` and ``desktop`` extras, and the build backend (pip builds the editable
    install with it)."""
    pyproject = tomllib.loads(PYPROJECT.read_text())
    project = pyproject["project"]
    wanted = list(project["dependencies"])
    for extra in DESKTOP_EXTRAS:
        wanted += project["optional-dependencies"][extra]
    wanted += [_loosened(text) for text in pyproject["build-system"]["requires"]]
    return list(dict.fromkeys(wanted))


def _loosened(text: str) -> str:
    """A requirement without its exact pin: the lock decides the version it moves to."""
    requirement = Requirement(text)
    return requirement.name if str(requirement.specifier).startswith("==") else text


def _native(requirements: Sequence[str], work: Path, constraints: Sequence[Path]) -> list[dict[str, object]]:
    """What pip installs here, sources allowed (the report's items)."""
    report = work / "report-native.json"
    done = _pip("install", "-q", "--dry-run", "--ignore-installed", "--report", str(report),
                *(arg for path in constraints for arg in ("-c", str(path))), *requirements)
    if done.returncode != 0:
        raise SystemExit(f"lock: pip cannot resolve the developer's set here:\n{done.stderr}")
    items: list[dict[str, object]] = json.loads(report.read_text())["install"]
    return items


def _source_only(items: Iterable[dict[str, object]]) -> dict[str, str]:
    """The packages pip takes as source here (no wheel on PyPI for this interpreter): name -> version.

    A source package cannot be resolved for another interpreter without building it, so the lock
    pins it by version and insists it has no dependencies of its own (its dependencies would go
    unpinned on the other targets)."""
    found: dict[str, str] = {}
    for item in items:
        metadata = item["metadata"]
        info = item["download_info"]
        assert isinstance(metadata, dict) and isinstance(info, dict)
        name = canonicalize_name(str(metadata["name"]))
        if name == "bornes" or str(info["url"]).endswith(".whl"):
            continue
        needs = [text for text in metadata.get("requires_dist", []) or []
                 if "extra ==" not in text]
        if needs:
            raise SystemExit(f"lock: {name} comes as source only and needs {needs}: the lock cannot pin those "
                             "for other machines; ask for a package with wheels")
        found[name] = str(metadata["version"])
    return found


def resolve_target(target: Target, requirements: Sequence[str], work: Path,
                   constraints: Sequence[Path]) -> dict[str, str]:
    """Name -> version pip picks for ``requirements`` on ``target``, wheels only."""
    report = work / f"report-{target.python}-{target.machine}.json"
    done = _pip("install", "-q", "--dry-run", "--ignore-installed", "--report", str(report),
                *target.pip_args(), "--target", str(work / "target"),
                *(arg for path in constraints for arg in ("-c", str(path))), *requirements)
    if done.returncode != 0:
        raise SystemExit(f"lock: no wheels-only resolution for Python {target.python} on {target.machine}:\n"
                         f"{done.stderr.strip()}")
    return _report(report)


def _without(requirements: Iterable[str], names: Iterable[str]) -> list[str]:
    skip = {canonicalize_name(name) for name in names}
    return [text for text in requirements if canonicalize_name(Requirement(text).name) not in skip]


def render_desktop(found: dict[Target, dict[str, str]], sources: dict[str, str]) -> str:
    """One line a package when every target agrees; otherwise a line per version, with the marker of the
    targets that take it (targets that do not need the package at all are left out of its markers)."""
    names = sorted({name for pins in found.values() for name in pins} | set(sources))
    lines: list[str] = []
    for name in names:
        if name in sources:
            lines.append(f"{name}=={sources[name]}")
            continue
        versions: dict[str, list[Target]] = {}
        for target, pins in found.items():
            if name in pins:
                versions.setdefault(pins[name], []).append(target)
        if len(versions) == 1:
            lines.append(f"{name}=={next(iter(versions))}")
            continue
        for version, targets in sorted(versions.items()):
            lines.append(f"{name}=={version} ; " + _markers(targets))
    return DESKTOP_HEADER + "".join(f"{line}\n" for line in lines)


def _markers(targets: Sequence[Target]) -> str:
    """The shortest marker the lock writes for a set of targets: by Python when a Python's every machine
    is in it, by machine when a machine's every Python is."""
    chosen = set(targets)
    pythons = [p for p in DESKTOP_PYTHONS if all(Target(p, m) in chosen for m in DESKTOP_MACHINES)]
    machines = [m for m in DESKTOP_MACHINES if all(Target(p, m) in chosen for p in DESKTOP_PYTHONS)]
    if machines and len(machines) * len(DESKTOP_PYTHONS) == len(chosen):
        return " or ".join(f'platform_machine == "{m}"' for m in machines)
    parts = [f'python_version == "{p}"' for p in pythons]
    parts += [f"({t.marker()})" for t in targets if t.python not in pythons]
    return " or ".join(parts)


def parse_desktop(text: str) -> list[Requirement]:
    """The lock's lines as requirements (markers kept)."""
    return [Requirement(line) for line in text.splitlines() if line.strip() and not line.startswith("#")]


def pins_for(requirements: Iterable[Requirement], environment: dict[str, str] | None = None) -> dict[str, str]:
    """Name -> pinned version for one environment (this interpreter's when None)."""
    pins: dict[str, str] = {}
    for requirement in requirements:
        if requirement.marker is not None and not requirement.marker.evaluate(environment or {}):
            continue
        pins[canonicalize_name(requirement.name)] = str(requirement.specifier).removeprefix("==")
    return pins


def lock_desktop(work: Path, keep: bool = False) -> str:
    """Resolve the developer's set for every target under the Pi's pins and render ``constraints.txt``
    (``keep``: within its own pins too)."""
    requirements = desktop_requirements()
    constraints = [CONSTRAINTS, DESKTOP_CONSTRAINTS] if keep else [CONSTRAINTS]
    sources = _source_only(_native(requirements, work, constraints))
    wheeled = _without(requirements, sources)
    found = {target: resolve_target(target, wheeled, work, constraints) for target in TARGETS}
    return render_desktop(found, sources)


def check_desktop(work: Path) -> int:
    """Resolve the developer's set under the lock itself for every target: 0 when every package pip
    would install is pinned (at that version) and has its wheel."""
    requirements = desktop_requirements()
    locked = parse_desktop(DESKTOP_CONSTRAINTS.read_text())
    status = 0
    source_names = set(_source_only(_native(requirements, work, [DESKTOP_CONSTRAINTS])))
    wheeled = _without(requirements, source_names)
    for target in TARGETS:
        environment = {"python_version": target.python, "platform_machine": target.machine}
        pins = pins_for(locked, environment)
        try:
            found = resolve_target(target, wheeled, work, [DESKTOP_CONSTRAINTS])
        except SystemExit as refused:
            print(f"{target.python} {target.machine}: {refused}")
            status = 1
            continue
        loose = sorted(f"{name} {version}" for name, version in found.items() if pins.get(name) != version)
        if loose:
            print(f"{target.python} {target.machine}: not pinned by {DESKTOP_CONSTRAINTS.name}: {', '.join(loose)}")
            status = 1
        else:
            print(f"Python {target.python} {target.machine}: {len(found)} packages, every one pinned, wheels present")
    missing = sorted(name for name in source_names if name not in pins_for(locked))
    if missing:
        print(f"source packages not pinned: {', '.join(missing)}")
        status = 1
    return status


_BUILD_PIN = re.compile(r'^(requires = \["setuptools)[^"]*("\])', re.MULTILINE)


def pin_build_backend(version: str) -> None:
    """``[build-system] requires`` takes the lock's setuptools exactly: pip builds the editable install in an
    isolated environment that ``-c`` does not reach, so the pin must be in pyproject.toml itself."""
    text = PYPROJECT.read_text()
    pinned, count = _BUILD_PIN.subn(rf"\g<1>=={version}\g<2>", text)
    if count != 1:
        raise SystemExit("lock: pyproject.toml's [build-system] requires is not one setuptools line")
    PYPROJECT.write_text(pinned)


def _step(title: str, command: Sequence[str]) -> int:
    print(f"== {title}: {' '.join(command)}", flush=True)
    return subprocess.run(list(command), cwd=ROOT, check=False).returncode


def move_forward(work: Path, suite: bool, keep: bool = False) -> int:
    pi = lock_pi(work, keep)
    if pi is None:
        return 1
    CONSTRAINTS.write_text(render(pi))
    print(f"wrote {CONSTRAINTS.relative_to(ROOT)}: {len(pi)} pins, wheels for Python "
          f"{' and '.join(PYTHONS)} on {PLATFORM}")
    desktop = lock_desktop(work, keep)
    DESKTOP_CONSTRAINTS.write_text(desktop)
    locked = parse_desktop(desktop)
    print(f"wrote {DESKTOP_CONSTRAINTS.name}: {len(pins_for(locked))} packages for this interpreter, "
          f"{len(locked)} lines for CPython {DESKTOP_PYTHONS[0]}–{DESKTOP_PYTHONS[-1]} on "
          f"{' and '.join(DESKTOP_MACHINES)}")
    pin_build_backend(pins_for(locked)["setuptools"])
    python = sys.executable
    extras = ",".join(DESKTOP_EXTRAS)
    for title, command in (
            ("install the new pins here", [python, "-m", "pip", "install", "-q", "-c", str(DESKTOP_CONSTRAINTS),
                                           "-e", f".[{extras}]"]),
            ("recompile the catalogues", [python, "-m", "tools.catalogues"]),
    ):
        if _step(title, command) != 0:
            return 1
    if not suite:
        return 0
    failed = [title for title, command in (("ruff", [python, "-m", "ruff", "check", "."]),
                                           ("mypy", [python, "-m", "mypy"]),
                                           ("the suite", [python, "-m", "pytest"]))
              if _step(title, command) != 0]
    if failed:
        print(f"lock: the new pins fail {', '.join(failed)}: mend or pin back before committing")
        return 1
    print("lock: green with the new pins; commit pyproject.toml, constraints.txt, systemd/pi-constraints.txt "
          "and any recompiled catalogue")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.lock", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="resolve the project under both locks for every target; write nothing")
    parser.add_argument("--no-suite", action="store_true", help="move the pins forward but do not run the suite")
    parser.add_argument("--keep", action="store_true",
                        help="keep every pin the files hold and resolve only what is new (a dependency just added)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bornes-lock-") as tmp:
        work = Path(tmp)
        if args.check:
            return max(check(work), check_desktop(work))
        return move_forward(work, suite=not args.no_suite, keep=args.keep)


if __name__ == "__main__":
    sys.exit(main())
