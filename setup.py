"""Installs the folders engine/, drivers/, firmware/ (and the data folder wiring/) under the
one import name ``bornes``: ``bornes.engine``, ``bornes.drivers``, ``bornes.firmware``.

The folders stay at the top of the checkout, where the design puts them; only the names they
are installed under change, so no other distribution's ``engine`` can overwrite them. Every
sub-folder is found here, so a new one needs no edit. Metadata lives in pyproject.toml.

``BORNES_COMPILE=1`` at build time also compiles the rules engine with mypyc into C extensions
that sit beside its sources in the wheel (docs/engine-speed.md). The engine's Python is the same
either way, the extensions are picked first by the import system, and without the variable
nothing is compiled: the Pi's install needs no compiler unless asked.
"""

from pathlib import Path

from bornes_build import compiling  # the project's build backend (pyproject's backend-path), which runs this file
from setuptools import find_namespace_packages, setup

FOLDERS = ("engine", "drivers", "firmware", "wiring")

#: The engine modules mypyc compiles. Left as Python: ``__init__`` (its names load lazily, PEP
#: 562) and ``cards`` (an Enum with a mix-in of per-member facts, which mypyc cannot build).
COMPILED = ("actions", "game", "options", "reasons", "record", "rules", "scoring", "simulate", "state", "values",
            "views")


def compiled_engine() -> list:
    """The engine's C extensions, through the symlinks that name its modules ``bornes.engine.*``
    (``.mypy/bornes/engine``, as mypy checks them); mypy's settings come from pyproject.toml."""
    from mypyc.build import mypycify  # only a compiling build needs mypy (build_support/bornes_build.py asks for it)

    folder = Path(".mypy", "bornes", "engine")
    return mypycify([str(folder / f"{name}.py") for name in COMPILED], opt_level="3", debug_level="0",
                    group_name="bornes_engine")


setup(
    packages=[f"bornes.{name}" for name in find_namespace_packages(
        include=[pattern for folder in FOLDERS for pattern in (folder, f"{folder}.*")],
        exclude=["*.__pycache__", "*.__pycache__.*"])],
    package_dir={f"bornes.{folder}": folder for folder in FOLDERS},
    ext_modules=compiled_engine() if compiling() else [],
)
