"""The project's build backend: setuptools', asking for mypy only for a compiling build.

``BORNES_COMPILE=1 pip install .`` builds the rules engine with mypyc (setup.py,
docs/engine-speed.md), which needs mypy in the isolated build environment. A plain build, the
Pi's default, asks for nothing more than setuptools, so it stays light.
"""

from __future__ import annotations

import os

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403 - every hook setuptools offers; three are wrapped below

#: What a compiling build adds; mypyc comes with mypy. The floor is the mypy the engine is checked with.
COMPILE_REQUIRES = ["mypy>=1.10"]


def compiling() -> bool:
    """Whether this build compiles the engine: ``BORNES_COMPILE`` set to 1, yes or true (setup.py asks too)."""
    return os.environ.get("BORNES_COMPILE", "").strip().lower() in {"1", "yes", "true"}


def get_requires_for_build_wheel(config_settings: dict[str, object] | None = None) -> list[str]:
    if not compiling():
        return _setuptools.get_requires_for_build_wheel(config_settings)
    # setuptools answers by running setup.py, which would compile already: it is asked as for a plain build.
    asked = os.environ.pop("BORNES_COMPILE")
    try:
        return [*_setuptools.get_requires_for_build_wheel(config_settings), *COMPILE_REQUIRES]
    finally:
        os.environ["BORNES_COMPILE"] = asked


def get_requires_for_build_editable(config_settings: dict[str, object] | None = None) -> list[str]:
    _refuse_compiled_editable()
    return _setuptools.get_requires_for_build_editable(config_settings)


def _refuse_compiled_editable() -> None:
    if compiling():
        raise SystemExit("BORNES_COMPILE builds a wheel (pip install .), not an editable install: "
                         "a compiled engine in the checkout would hide every later edit of its sources")


def build_editable(wheel_directory: str, config_settings: dict[str, object] | None = None,
                   metadata_directory: str | None = None) -> str:
    """An editable install of the sources; never compiled, where an extension built beside the
    sources would go on answering for them after they are edited."""
    _refuse_compiled_editable()
    return _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)
