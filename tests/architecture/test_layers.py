"""The layer contract (pyproject.toml, ``[tool.importlinter]``; docs/architecture.md) holds, and breaks
when an arrow points up.

The contract is checked by import-linter on the installed package. To prove it can fail, the
sources are copied beside the test with one import added, and the same contract is run on the copy.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT = [sys.executable, "-c",
        "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"]


LAYERS = "rooms import only the rooms below them"
NO_CYCLE = "no cycle between the modules of a room"
TABLE = "the table's modes never reach back to the flow that routes to them"


def lint(cwd: Path, python_path: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if python_path is not None:
        env["PYTHONPATH"] = str(python_path)
    return subprocess.run([*LINT, "--no-cache", str(ROOT / "pyproject.toml")], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_every_arrow_points_down() -> None:
    done = lint(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    assert f"{len(contracts)} kept, 0 broken" in done.stdout


def copy_of_the_sources(tmp_path: Path) -> Path:
    for folder in ("engine", "drivers", "firmware"):
        shutil.copytree(ROOT / folder, tmp_path / "bornes" / folder, ignore=shutil.ignore_patterns(
            "__pycache__", "*.mo", "*.po", "*.png", "*.pil", "*.pbm", "*.bdf"))
    return tmp_path


#: One import added to a copy of the sources, and the contract it must break. Each is a lint of its own copy
#: (seconds each): the fast tier proves the contract can break with the first arrow that ever pointed up, the
#: whole suite with all of them.
ARROWS: list[tuple[str, str, str]] = [
    # The two arrows that pointed up before the rooms (issue 21): phone pages -> a command, club board -> bridge.
    ("firmware/web/games.py", "from bornes.firmware.commands import export", LAYERS),
    ("firmware/table/flow.py", "from bornes.firmware.appliance import control", LAYERS),
    ("drivers/display/__init__.py", "from bornes.firmware.screens import render", LAYERS),
    ("firmware/club/board.py", "from bornes.firmware.club.bridge import make_client",
     "the club's two programs (bridge, board) share only the modules below them"),
    ("firmware/storage/journal.py", "from bornes.firmware.storage import live", NO_CYCLE),
    ("firmware/table/modes/game.py", "from bornes.firmware.table import flow", TABLE),
    # Allowed by the ladder, but the web process would load the whole flow (over its 40 MB budget).
    ("firmware/appliance/control_client.py", "from bornes.firmware.table import flow",
     "the phone pages and the club never load the table flow"),
    ("firmware/web/phones.py", "from bornes.firmware.appliance import control",
     "the phone pages and the club never load the table flow or the control listener"),
    ("firmware/table/modes/names.py", "from bornes.engine.state import check_names",
     "the firmware uses the engine's public API (bornes.engine), never its modules"),
    ("engine/rules.py", "import PIL", "the engine is pure: the standard library only"),
    ("drivers/events.py", "from bornes.engine import rules", "drivers know a card, never a rule"),
]


@pytest.mark.parametrize(("module", "added", "contract"), [
    arrow if n == 0 else pytest.param(*arrow, marks=pytest.mark.slow) for n, arrow in enumerate(ARROWS)])
def test_an_arrow_up_breaks_the_contract(tmp_path: Path, module: str, added: str, contract: str) -> None:
    copy = copy_of_the_sources(tmp_path)
    source = copy / "bornes" / module
    source.write_text(source.read_text() + f"\n{added}  # noqa\n")
    done = lint(copy, python_path=copy)
    assert done.returncode == 1, done.stdout + done.stderr
    broken = done.stdout.split("Broken contracts", 1)[1]
    assert contract in broken, done.stdout


def test_the_copy_is_what_the_contract_reads(tmp_path: Path) -> None:
    """Unchanged, the copy keeps every contract: the failures above come from the added import alone."""
    done = lint(copy_of_the_sources(tmp_path), python_path=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_module_of_the_firmware_is_in_a_room_that_says_what_it_may_import() -> None:
    """A module dropped in the hall (``firmware/foo.py``) would sit on no rung of the ladder, unchecked."""
    firmware = ROOT / "firmware"
    assert sorted(path.name for path in firmware.glob("*.py")) == ["__init__.py", "cli.py"]
    layers = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"][0]["layers"]
    on_the_ladder = {name.strip() for layer in layers for name in layer.split("|")}
    rooms = sorted(path.parent.name for path in firmware.glob("*/__init__.py"))
    assert rooms and all(f"bornes.firmware.{room}" in on_the_ladder for room in rooms), (rooms, on_the_ladder)
    for room in rooms:
        docstring = ast.get_docstring(ast.parse((firmware / room / "__init__.py").read_text()))
        said = " ".join((docstring or "").split())
        assert "May import" in said, f"firmware/{room}/__init__.py says what it may import"


def _imported_modules(source: str) -> set[str]:
    """Every module a Python source names in an import, at any depth (lazy imports in functions too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def test_the_bench_and_the_tools_never_import_the_tests() -> None:
    """The bench measures and the tools build; neither may depend on the tests (issue 28: bench/compiled.py
    borrowed tests.checkout). What both need lives in tools/."""
    offenders = sorted(f"{path.relative_to(ROOT)}: {name}"
                       for folder in ("bench", "tools") for path in (ROOT / folder).rglob("*.py")
                       for name in _imported_modules(path.read_text(encoding="utf-8"))
                       if name == "tests" or name.startswith("tests."))
    assert offenders == []
    assert "tests.checkout" in _imported_modules("def f():\n    from tests.checkout import copy_source\n")
