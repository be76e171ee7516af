"""This checkout's engine compiled with mypyc, built into a temporary folder for a bench or a test.

``BORNES_COMPILE=1 pip wheel`` compiles the engine's modules into C extensions beside their
sources (setup.py). Here the wheel is built offline (``--no-build-isolation``: mypy, mypyc and
setuptools come from the dev venv) from a copy of the checkout's source (tools/checkout.py: what
git tracks or would track, so no stale ``build/`` folder can leak in), then installed with
``pip install --target`` into a folder of its own. That folder, put first on ``sys.path``
(``PYTHONPATH`` or ``sys.path.insert``), wins over the venv's editable install, whose finder
comes after the path finder; :func:`bornes.engine.engine_build` says which one answered.

A test, and the bench's smoke run, may share one build of the same source (``cache=``): it is kept
under a key made of every source file's bytes, the interpreter and mypy's version, so a build is
reused only for exactly the inputs that made it. A timed bench run always builds afresh.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path


class CompileUnavailable(RuntimeError):
    """This machine lacks what a compiled build needs (mypy, a C compiler, Python's headers)."""


class CompileFailed(RuntimeError):
    """The tools are there and the build or the install failed anyway: a bug, never a skip."""


@dataclass(frozen=True)
class CompiledBuild:
    root: Path  # the ``--target`` folder: put it first on sys.path
    wheel: Path
    seconds: float  # wall time of ``pip wheel`` (the mypyc and C compile), install left out


def require_python_engine(measurement: str) -> None:
    """Stop a measurement that wraps engine functions by patching them when the compiled engine
    answers: compiled callers call each other directly, so the wrappers would count nothing."""
    from bornes.engine import engine_build

    if engine_build() != "python":
        raise RuntimeError(f"{measurement} patches engine functions, which the compiled engine never calls "
                           "through the module: run it on the Python engine (no compiled build on PYTHONPATH)")


def missing_tool() -> str | None:
    """What this venv or machine lacks to compile the engine, in a few words, or None."""
    if importlib.util.find_spec("mypyc") is None:
        return f"mypy (which brings mypyc) is not installed in {sys.prefix}: pip install -e '.[dev]'"
    if importlib.util.find_spec("setuptools") is None:
        return f"setuptools is not installed in {sys.prefix}: pip install -e '.[dev]'"
    compiler = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler}) on PATH: apt-get install gcc libc6-dev"
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not headers.is_file():
        return f"no Python headers ({headers} is missing): apt-get install python3-dev"
    return None


def _pip(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    # The build must not see a compiled engine put on PYTHONPATH by whoever runs it.
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "BORNES_COMPILE")}
    return subprocess.run([sys.executable, "-m", "pip", *args, "--disable-pip-version-check", "-q"], cwd=cwd,
                          env={**clean, **env}, capture_output=True, text=True, timeout=900, check=False)


def _last_lines(text: str, count: int = 15) -> str:
    return "\n".join(text.strip().splitlines()[-count:])


def build(into: Path, cache: Path | None = None) -> CompiledBuild:
    """Build this checkout's compiled wheel in ``into`` and install it into ``into/root``; with ``cache``, reuse
    (or leave there for the next caller) the build of exactly this source."""
    problem = missing_tool()
    if problem:
        raise CompileUnavailable(f"cannot build the compiled engine: {problem}")
    from tools.checkout import copy_source

    source = copy_source(into / "source")
    if cache is None:
        return _build(source, into)
    cache.mkdir(parents=True, exist_ok=True)
    kept = cache / _source_key(source)
    with _exclusive(kept.with_suffix(".lock")):  # two test workers asking at once build it once
        done = kept / "seconds"
        if not done.is_file():
            shutil.rmtree(kept, ignore_errors=True)
            kept.mkdir()
            made = _build(source, kept)
            done.write_text(f"{made.seconds}\n")
        (wheel,) = (kept / "dist").glob("bornes-*.whl")
        return CompiledBuild(kept / "root", wheel, float(done.read_text()))


def shared_cache() -> Path:
    """Where tests and smoke runs on this machine keep the builds they share."""
    return Path(tempfile.gettempdir()) / f"bornes-compiled-{os.getuid()}"


def _source_key(source: Path) -> str:
    from importlib.metadata import version

    digest = hashlib.sha256(f"{sys.version}\0{version('mypy')}\0".encode())
    for path in sorted(p for p in source.rglob("*") if p.is_file() or p.is_symlink()):
        digest.update(str(path.relative_to(source)).encode() + b"\0")
        digest.update(os.readlink(path).encode() if path.is_symlink() else path.read_bytes())
    return digest.hexdigest()[:32]


@contextlib.contextmanager
def _exclusive(lock: Path) -> Iterator[None]:
    with lock.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _build(source: Path, into: Path) -> CompiledBuild:
    dist = into / "dist"
    started = time.perf_counter()
    built = _pip(["wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", str(dist), str(source)], into,
                 BORNES_COMPILE="1")
    seconds = time.perf_counter() - started
    if built.returncode != 0:
        raise CompileFailed(f"BORNES_COMPILE=1 pip wheel failed:\n{_last_lines(built.stderr + built.stdout)}")
    (wheel,) = dist.glob("bornes-*.whl")
    root = into / "root"
    installed = _pip(["install", "--no-deps", "--no-index", "--target", str(root), str(wheel)], into)
    if installed.returncode != 0:
        raise CompileFailed(f"pip install --target {root} failed:\n{_last_lines(installed.stderr)}")
    if not any((root / "bornes" / "engine" / f"rules{suffix}").is_file() for suffix in EXTENSION_SUFFIXES):
        raise CompileFailed(f"{wheel.name} holds no compiled engine (is BORNES_COMPILE read by setup.py?)")
    return CompiledBuild(root, wheel, seconds)
