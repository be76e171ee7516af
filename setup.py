"""Installs the folders engine/, drivers/, firmware/ (and the data folder wiring/) under the
one import name ``bornes``: ``bornes.engine``, ``bornes.drivers``, ``bornes.firmware``.

The folders stay at the top of the checkout, where the design puts them; only the names they
are installed under change, so no other distribution's ``engine`` can overwrite them. Every
sub-folder is found here, so a new one needs no edit. Metadata lives in pyproject.toml.
"""

from setuptools import find_namespace_packages, setup

FOLDERS = ("engine", "drivers", "firmware", "wiring")

setup(
    packages=[f"bornes.{name}" for name in find_namespace_packages(
        include=[pattern for folder in FOLDERS for pattern in (folder, f"{folder}.*")],
        exclude=["*.__pycache__", "*.__pycache__.*"])],
    package_dir={f"bornes.{folder}": folder for folder in FOLDERS},
)
