"""The Pi's pinned install: systemd/pi-constraints.txt pins every library a Pi installs, and
install.sh installs wheels only, at those versions.

Whether each pin really has a cp311 and a cp313 aarch64 wheel needs PyPI: ``python -m tools.lock
--check`` downloads them (docs/system.md); the arm64 check (tools/arm64-check.sh) installs them.
"""

from __future__ import annotations

import importlib.util
import subprocess
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tools.lock import BUILD_TOOLS, CONSTRAINTS, EXTRAS, render

REPO = Path(__file__).resolve().parents[2]
INSTALL = REPO / "systemd" / "install.sh"


def _pins() -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in CONSTRAINTS.read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"not an exact pin: {line}"
            pins[canonicalize_name(name)] = version
    return pins


def test_every_library_a_pi_installs_is_pinned_within_what_pyproject_allows() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = list(project["dependencies"])
    for extra in EXTRAS.split(","):
        wanted += project["optional-dependencies"][extra]
    pins = _pins()
    for text in wanted:
        requirement = Requirement(text)
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{name} is not in {CONSTRAINTS.name}: run python -m tools.lock"
        assert requirement.specifier.contains(pins[name]), f"{name}=={pins[name]} does not meet {text}"


def _compile_requires() -> list[str]:
    """What a compiling build (BORNES_COMPILE=1) asks for, from the project's own build backend."""
    spec = importlib.util.spec_from_file_location("bornes_build", REPO / "build_support" / "bornes_build.py")
    assert spec is not None and spec.loader is not None
    backend = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(backend)
    return list(backend.COMPILE_REQUIRES)


def test_what_a_compiling_build_asks_for_is_pinned_too() -> None:
    """install.sh --compile-engine builds with mypy from the constraints: the lock resolves it, so it is pinned."""
    build = tomllib.loads((REPO / "pyproject.toml").read_text())["build-system"]["requires"]
    pins = _pins()
    wanted = _compile_requires()
    assert {canonicalize_name(Requirement(text).name) for text in wanted} <= set(BUILD_TOOLS)
    for text in [*build, *wanted]:
        requirement = Requirement(text)
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{name} (a build requirement) is not in {CONSTRAINTS.name}: run python -m tools.lock"
        assert requirement.specifier.contains(pins[name]), f"{name}=={pins[name]} does not meet {text}"


def test_the_file_is_what_the_lock_tool_writes() -> None:
    """Sorted, one exact pin a line, with the header saying how to refresh it."""
    text = CONSTRAINTS.read_text()
    raw = dict(line.split("==") for line in text.splitlines() if line and not line.startswith("#"))
    assert text == render(raw)
    assert "python -m tools.lock" in CONSTRAINTS.read_text()


def test_the_license_is_an_spdx_expression() -> None:
    assert tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["license"] == "MIT"


def test_install_takes_wheels_only_at_the_pinned_versions_and_offline_from_a_folder(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    done = subprocess.run(["bash", str(INSTALL), "--dry-run", "--no-pi", "--wheels", str(wheels)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    [pip] = [line for line in done.stdout.splitlines() if "/venv/bin/pip install" in line]
    assert f"--only-binary :all: --no-binary bornes -c {CONSTRAINTS}" in pip
    assert f"--no-index --find-links {wheels}" in pip
    assert "skipped: not a Pi (--no-pi): no GPIO" in done.stdout
    assert "skipped: not a Pi (--no-pi): no I2C" in done.stdout
    assert "raspi-config" not in done.stdout.replace("no I2C; use", "")
    missing = subprocess.run(["bash", str(INSTALL), "--dry-run", "--wheels", str(tmp_path / "nowhere")],
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode == 64 and "--wheels needs a folder of wheels" in missing.stderr


def _dry_run(*options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(INSTALL), "--dry-run", "--no-pi", *options],
                          capture_output=True, text=True, timeout=60)


def test_install_compiles_the_engine_only_when_asked(tmp_path: Path) -> None:
    """--compile-engine adds the compiler and headers from apt and builds with BORNES_COMPILE=1, mypy pinned
    through PIP_CONSTRAINT (pip does not hand -c to the build's isolated install); the default has neither."""
    plain = _dry_run()
    assert plain.returncode == 0, plain.stderr
    assert "gcc" not in plain.stdout and "BORNES_COMPILE" not in plain.stdout and "mypyc" not in plain.stdout
    compiled = _dry_run("--compile-engine")
    assert compiled.returncode == 0, compiled.stderr
    [apt] = [line for line in compiled.stdout.splitlines() if "apt-get install" in line]
    assert apt.endswith("python3-venv python3-evdev gcc libc6-dev python3-dev")
    [pip] = [line for line in compiled.stdout.splitlines() if "/venv/bin/pip install" in line]
    assert pip.startswith(f"    would run: env BORNES_COMPILE=1 PIP_CONSTRAINT={CONSTRAINTS} /opt/bornes/venv/bin/pip ")
    assert f"--only-binary :all: --no-binary bornes -c {CONSTRAINTS}" in pip
    assert "built as C with mypyc (--compile-engine, docs/engine-speed.md)" in compiled.stdout
    help_text = subprocess.run(["bash", str(INSTALL), "--help"], capture_output=True, text=True, timeout=60).stdout
    assert "--compile-engine" in help_text and "its wheels in DIR" in help_text and "450 MB" in help_text
    assert help_text.rstrip().endswith("/var/lib/bornes."), "the help is the script's whole header"


def test_install_offline_compiling_needs_mypy_among_the_wheels(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    refused = _dry_run("--compile-engine", "--wheels", str(wheels))
    assert refused.returncode == 64 and refused.stdout == ""
    assert refused.stderr.startswith(f"install.sh: --compile-engine with --wheels needs mypy's wheel and its "
                                     f"dependencies in {wheels}")
    assert len(refused.stderr.strip().splitlines()) == 1
    (wheels / "mypy-2.4.1-cp313-cp313-manylinux_2_17_aarch64.whl").touch()
    done = _dry_run("--compile-engine", "--wheels", str(wheels))
    assert done.returncode == 0, done.stderr
    [pip] = [line for line in done.stdout.splitlines() if "/venv/bin/pip install" in line]
    assert "env BORNES_COMPILE=1 PIP_CONSTRAINT=" in pip and f"--no-index --find-links {wheels}" in pip
    assert _dry_run("--wheels", str(tmp_path / "wheels")).returncode == 0, "without compiling, mypy is not needed"
