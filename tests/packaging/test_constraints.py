"""The Pi's pinned install: systemd/pi-constraints.txt pins every library a Pi installs, and
install.sh installs wheels only, at those versions.

Whether each pin really has a cp311 and a cp313 aarch64 wheel needs PyPI: ``python -m tools.lock
--check`` downloads them (docs/system.md); the arm64 check (tools/arm64-check.sh) installs them.
"""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tools.lock import CONSTRAINTS, EXTRAS, render

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
