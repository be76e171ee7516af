"""``bornes.engine`` exports the engine's public API: every engine name the drivers and the firmware use."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import subprocess
import sys
from pathlib import Path

import bornes.engine as engine

ROOT = Path(__file__).resolve().parents[2]


def _used_names() -> set[str]:
    """Every name the drivers and the firmware import from the engine's modules or the package."""
    used: set[str] = set()
    for folder in ("drivers", "firmware"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("bornes.engine."):
                    used.update(alias.name for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module == "bornes.engine":  # not a submodule
                    used.update(alias.name for alias in node.names
                                if importlib.util.find_spec(f"bornes.engine.{alias.name}") is None)
    return used


def test_every_name_the_rest_uses_is_public() -> None:
    missing = _used_names() - set(engine.__all__)
    assert not missing, f"used outside the engine but not in bornes.engine.__all__: {sorted(missing)}"


def test_each_public_name_is_the_submodule_object() -> None:
    for name in engine.__all__:
        home = importlib.import_module(f"bornes.engine.{engine._HOMES[name]}")
        assert getattr(engine, name) is getattr(home, name), name
    assert sorted(engine._HOMES) == sorted(engine.__all__)


def test_a_card_alone_does_not_load_the_rules() -> None:
    # The drivers know a card, never a rule: importing the package must not pull the rules in.
    code = "import sys, bornes.engine.cards; print(sorted(m for m in sys.modules if m.startswith('bornes.engine')))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "bornes.engine.rules" not in loaded and "bornes.engine.cards" in loaded
