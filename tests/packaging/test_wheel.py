"""The wheel stands on its own: built, installed (not editable) into a fresh venv, and run from
a folder outside the checkout, it finds everything it reads at run time in its own files.

Offline and quick: the wheel is built without build isolation (the dev venv has setuptools and
wheel, from the ``dev`` extra) from a copy of the checkout's source (what git tracks or would
track, tools/checkout.py), so neither a stale ``build/`` folder nor the runtime state of a
checkout in use (the emulator's ``.bornes-desktop/`` with its control socket, ``.venv/``) can
leak into it; the fresh venv gets only the wheel, installed with ``--no-deps --no-index``; the
third-party libraries it needs are borrowed from the test's own venv through a plain path entry
(not a site dir, so the checkout's editable-install hook is never run there). The test checks
that the bornes code it runs comes from the fresh venv and that every requirement is met.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest

from tools.checkout import copy_source, source_files

#: A wheel built and a venv made, then four commands started from it: the whole suite's. The packaging's fast
#: checks are the pins (test_dev_lock.py, test_constraints.py).
pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
RECORD = REPO / "tests" / "engine" / "records" / "winning-moves-2p.record"


def _run(argv: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    return subprocess.run(argv, cwd=cwd, env={**clean, **env}, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The ``bin`` folder of a fresh venv holding only the bornes wheel."""
    root = tmp_path_factory.mktemp("wheel")
    source = root / "source"
    copy_source(source)
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                  "--disable-pip-version-check", "-q", "-w", str(root / "dist"), str(source)], cwd=root)
    assert built.returncode == 0, built.stderr
    (wheel,) = (root / "dist").glob("bornes-*.whl")
    fresh = root / "venv"
    venv.EnvBuilder(with_pip=False).create(fresh)
    site = Path(_run([str(fresh / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                     cwd=root).stdout.strip())
    (site / "borrowed-dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n", encoding="utf-8")
    install = _run([sys.executable, "-m", "pip", "--python", str(fresh / "bin" / "python"), "install", "--no-deps",
                    "--no-index", "--disable-pip-version-check", "-q", str(wheel)], cwd=root)
    assert install.returncode == 0, install.stderr
    yield fresh / "bin"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A working folder outside the checkout, with a config for a desktop (mock pins, dummy panel)."""
    (tmp_path / "config.toml").write_text(
        f'[display]\npanel = "dummy"\n[pins]\nfactory = "mock"\n[state]\ndir = "{tmp_path / "state"}"\n',
        encoding="utf-8")
    return tmp_path


def test_the_code_comes_from_the_wheel_and_its_requirements_are_met(installed: Path, outside: Path) -> None:
    probe = (
        "import importlib, importlib.metadata as md, json, re\n"
        "names = ('bornes.engine.rules', 'bornes.drivers.pins', 'bornes.firmware.cli')\n"
        "files = {n: importlib.import_module(n).__file__ for n in names}\n"
        "dist = md.distribution('bornes')\n"
        "missing = [r for r in dist.requires or [] if 'extra ==' not in r\n"
        "           and not md.distributions(name=re.split(r'[<>=!~ ;\\\\[]', r)[0])]\n"
        "print(json.dumps({'files': files, 'missing': missing, 'data': [str(f) for f in dist.files]}))\n"
    )
    found = _run([str(installed / "python"), "-c", probe], cwd=outside)
    assert found.returncode == 0, found.stderr
    report = json.loads(found.stdout)
    venv_root = str(installed.parent)
    assert all(path.startswith(venv_root) for path in report["files"].values()), report["files"]
    assert not any(name.startswith(str(REPO)) for name in report["files"].values())
    assert report["missing"] == []
    assert any(name.endswith("pins.toml") for name in report["data"])
    assert any(name.endswith(".mo") for name in report["data"])
    for module_file in report["files"].values():  # every module and data file of each folder is installed
        installed_folder = Path(module_file).parent
        wanted = {p.relative_to(installed_folder.name) for p in source_files()
                  if p.parts[0] == installed_folder.name and p.suffix not in (".po", ".md")}
        got = {p.relative_to(installed_folder) for p in installed_folder.rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
        assert wanted <= got, f"missing from the wheel: {sorted(map(str, wanted - got))}"


def test_doctor_runs_from_outside_the_checkout(installed: Path, outside: Path) -> None:
    result = _run([str(installed / "bornes"), "doctor", "--config", "config.toml"], cwd=outside)
    out = result.stdout + result.stderr
    assert "Traceback" not in out and "internal error" not in out, out
    pins = [line for line in out.splitlines() if "pins" in line]
    assert pins and all(line.startswith("OK") for line in pins), out


def test_screens_renders_every_screen_from_outside_the_checkout(installed: Path, outside: Path) -> None:
    result = _run([str(installed / "bornes"), "screens", "--out", "shots"], cwd=outside)
    assert result.returncode == 0, result.stderr
    pngs = list((outside / "shots").glob("*.png"))
    assert len(pngs) >= 20
    assert all(png.read_bytes().startswith(b"\x89PNG") for png in pngs)


def test_replay_from_outside_the_checkout(installed: Path, outside: Path) -> None:
    shutil.copy(RECORD, outside / "game.record")
    result = _run([str(installed / "bornes"), "replay", "game.record", "--json"], cwd=outside)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip(), "replay printed nothing"
    assert "accepted" in result.stdout
