"""Whether the rules run compiled or as Python.

A wheel built with ``BORNES_COMPILE=1`` carries the engine's modules twice: as C extensions
compiled by mypyc from the very same sources, and as those sources. The import system picks the
extension; this says which one answered, so a figure or a bug report names the engine it came from.
"""

from __future__ import annotations

from importlib.machinery import EXTENSION_SUFFIXES


def engine_build() -> str:
    """``"mypyc"`` when the rules were loaded from a compiled extension, ``"python"`` otherwise."""
    from bornes.engine import rules

    return "mypyc" if (rules.__file__ or "").endswith(tuple(EXTENSION_SUFFIXES)) else "python"
