"""The developer's lock (constraints.txt, issue 28): the README's two commands and CI install every
package at a pinned version, so a release upstream cannot turn main red.

Whether every pin still resolves, with its wheel, for each Python and machine the lock covers needs
PyPI: ``python -m tools.lock --check``. These tests need nothing but the checkout and this venv.
"""

from __future__ import annotations

import re
import sys
import sysconfig
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tools.lock import (
    CONSTRAINTS,
    DESKTOP_CONSTRAINTS,
    DESKTOP_HEADER,
    DESKTOP_MACHINES,
    DESKTOP_PYTHONS,
    PYTHONS,
    desktop_requirements,
    parse_desktop,
    pins_for,
)

REPO = Path(__file__).resolve().parents[2]
#: Installed in every venv by Python itself, not by the README's commands.
BUNDLED = {"pip"}


def _locked() -> list[Requirement]:
    return parse_desktop(DESKTOP_CONSTRAINTS.read_text())


def test_the_readme_commands_and_ci_install_through_the_lock() -> None:
    readme = (REPO / "README.md").read_text().split("---")[0]
    commands = [line for line in readme.splitlines() if line.startswith("python3 -m venv")]
    assert len(commands) == 2, "the README starts with two one-line commands"
    for command in commands:
        assert "/pip install -c constraints.txt -e '.[" in command, command
    ci = (REPO / ".ci" / "run").read_text()
    assert re.search(r"^\.venv/bin/pip install .*-c constraints\.txt -e '\.\[dev\]'$", ci, re.MULTILINE)
    assert ".venv/bin/python -m tools.lock" in (REPO / "README.md").read_text(), \
        "the README says how to move the pins forward"


def test_every_requirement_of_the_two_commands_is_pinned_within_what_pyproject_allows() -> None:
    for python in DESKTOP_PYTHONS:
        for machine in DESKTOP_MACHINES:
            environment = {"python_version": python, "platform_machine": machine}
            pins = pins_for(_locked(), environment)
            for text in desktop_requirements():
                requirement = Requirement(text)
                if requirement.marker is not None and not requirement.marker.evaluate(environment):
                    continue
                name = canonicalize_name(requirement.name)
                assert name in pins, f"{name} ({python}, {machine}) is not in constraints.txt: run python -m tools.lock"
                assert requirement.specifier.contains(pins[name], prereleases=True), \
                    f"{name}=={pins[name]} does not meet {text}"


def test_the_build_backend_is_pinned_to_the_locks_setuptools() -> None:
    """pip builds the editable install in an isolated environment that -c does not reach: the pin is in
    pyproject.toml itself, and the lock tool keeps it equal to the lock's."""
    [backend] = tomllib.loads((REPO / "pyproject.toml").read_text())["build-system"]["requires"]
    assert backend == f"setuptools=={pins_for(_locked())['setuptools']}"


def test_this_venv_is_the_lock() -> None:
    """The suite runs against exactly the pinned set: every distribution installed in this venv is pinned, at its
    pin. Only the venv's own site-packages count: once imported, setuptools puts the packages it vendors (with
    their metadata) on sys.path too."""
    pins = pins_for(_locked())
    site = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})
    installed = {str(canonicalize_name(d.metadata["Name"])): d.version for d in metadata.distributions(path=site)}
    installed.pop("bornes", None)
    stray = sorted(f"{name} {version}" for name, version in installed.items()
                   if name not in BUNDLED and pins.get(name) != version)
    assert stray == [], (f"{sys.prefix} differs from constraints.txt (installed, not at its pin): "
                         f"{', '.join(stray)}; reinstall with the README's command, or run python -m tools.lock "
                         "after changing pyproject.toml")


def test_a_library_the_pi_also_installs_is_tested_at_the_pis_version() -> None:
    pi = dict(line.split("==") for line in CONSTRAINTS.read_text().splitlines() if line and not line.startswith("#"))
    for python in PYTHONS:
        pins = pins_for(_locked(), {"python_version": python, "platform_machine": "aarch64"})
        differ = sorted(f"{name} {pins[name]} (Pi {version})" for name, version in pi.items()
                        if name in pins and pins[name] != version)
        assert differ == [], f"Python {python}: {', '.join(differ)}"


def test_the_file_is_what_the_lock_tool_writes() -> None:
    """The tool's header, then one exact pin a line, sorted by name, markers only where targets differ."""
    text = DESKTOP_CONSTRAINTS.read_text()
    assert text.startswith(DESKTOP_HEADER)
    names = [canonicalize_name(r.name) for r in _locked()]
    assert names == sorted(names)
    for requirement in _locked():
        assert str(requirement.specifier).startswith("=="), f"not an exact pin: {requirement}"
