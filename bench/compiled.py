"""This checkout's engine compiled with mypyc, built into a temporary folder for a bench or a test.

``BORNES_COMPILE=1 pip wheel`` compiles the engine's modules into C extensions beside their
sources (setup.py). Here the wheel is built offline (``--no-build-isolation``: mypy, mypyc and
setuptools come from the dev venv) from a copy of the checkout's source (tools/checkout.py: what
git tracks or would track, so no stale ``build/`` folder can leak in), then installed with
``pip install --target`` into a folder of its own. That folder, put first on ``sys.path``
(``PYTHONPATH`` or ``sys.path.insert``), wins over the venv's editable install, whose finder
comes after the path finder; :func:`bornes.engine.engine_build` says which one answered.

A test, and the bench's smoke run, may share one compile (``cache=``): the C extensions are kept under a
key made of the bytes of everything the compile reads (:data:`COMPILE_INPUTS`: the engine, the build's
files, the mypy settings), the interpreter and mypy's version, so they are reused only for exactly the
inputs that made them. The rest of the package is this checkout's own at every call: its plain wheel,
installed with the kept extensions dropped in beside the engine's sources. A change outside the engine
(every commit but a few) no longer pays a minute of mypyc and gcc (issue 39: 58 s of a CI worker). A
timed bench run always builds afresh.
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


#: What a compiled build reads besides the interpreter and mypy (paths in the checkout): the engine it
#: compiles (it imports nothing of the rest of the package), the links mypy names its modules by, the build
#: backend and setup.py that drive mypyc, and pyproject.toml (mypy's settings, the build's metadata).
COMPILE_INPUTS = ("engine", ".mypy/bornes/engine", "build_support", "setup.py", "pyproject.toml",
                  "mypy.ini", ".mypy.ini", "setup.cfg")  # the last three: mypy would read them before pyproject.toml
#: Compiles kept in the shared cache, the most recently used first: a few branches' engines.
COMPILES_KEPT = 4


def build(into: Path, cache: Path | None = None) -> CompiledBuild:
    """Build this checkout's compiled wheel in ``into`` and install it into ``into/root``; with ``cache``, the
    extensions compiled from exactly this engine are reused (or compiled and left there for the next caller),
    and the rest of ``into/root`` is this checkout's plain wheel."""
    problem = missing_tool()
    if problem:
        raise CompileUnavailable(f"cannot build the compiled engine: {problem}")
    from tools.checkout import copy_source

    source = copy_source(into / "source")
    if cache is None:
        return _build(source, into)
    kept = cache / _compile_key(source)  # before any build writes its bytecode into the copy
    root = _install(_wheel(source, into / "dist"), into)
    cache.mkdir(parents=True, exist_ok=True)
    with _exclusive(kept.with_suffix(".lock")):  # two test workers asking at once build it once
        done = kept / "seconds"
        if not done.is_file() or not _extensions(kept / "root"):  # never built, or emptied (a /tmp cleaner)
            shutil.rmtree(kept, ignore_errors=True)
            kept.mkdir()
            done.write_text(f"{_build(source, kept).seconds}\n")
        os.utime(kept)  # recently used: kept by the pruning
        for path in _extensions(kept / "root"):  # beside the engine's sources, which they win over at import
            target = root / path.relative_to(kept / "root")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
        seconds = float(done.read_text())
    _prune(cache)
    _check_compiled(root, f"the extensions kept in {kept}")
    return CompiledBuild(root, seconds)


def shared_cache() -> Path:
    """Where tests and smoke runs on this machine keep the builds they share."""
    # "-2": the cache of extensions alone; an older checkout's whole builds, in bornes-compiled-UID, are not pruned
    # from under it.
    return Path(tempfile.gettempdir()) / f"bornes-compiled-2-{os.getuid()}"


def _compile_key(source: Path) -> str:
    from importlib.metadata import version

    digest = hashlib.sha256(f"{sys.version}\0{version('mypy')}\0".encode())
    for name in COMPILE_INPUTS:
        top = source / name
        paths = [top] if top.is_file() or top.is_symlink() else sorted(top.rglob("*"))
        for path in paths:
            if (path.is_symlink() or path.is_file()) and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(source)).encode() + b"\0")
                digest.update(os.readlink(path).encode() if path.is_symlink() else path.read_bytes())
    return digest.hexdigest()[:32]


def _extensions(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and p.name.endswith(tuple(EXTENSION_SUFFIXES)))


def _prune(cache: Path) -> None:
    """All but the :data:`COMPILES_KEPT` most recently used compiles (one a commit filled /tmp before)."""
    def used(build: Path) -> float:
        try:
            return build.stat().st_mtime
        except OSError:  # another caller's prune removed it meanwhile
            return 0.0

    builds = sorted((p for p in cache.iterdir() if p.is_dir()), key=used, reverse=True)
    for stale in builds[COMPILES_KEPT:]:
        lock = stale.with_suffix(".lock")
        with lock.open("w") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:  # another caller is building or reading it
                continue
            shutil.rmtree(stale, ignore_errors=True)  # its empty lock file stays: a waiter may hold it open
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextlib.contextmanager
def _exclusive(lock: Path) -> Iterator[None]:
    with lock.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _build(source: Path, into: Path) -> CompiledBuild:
    """``BORNES_COMPILE=1 pip wheel`` of ``source`` into ``into/dist``, installed into ``into/root``."""
    started = time.perf_counter()
    wheel = _wheel(source, into / "dist", BORNES_COMPILE="1")
    seconds = time.perf_counter() - started
    root = _install(wheel, into)
    _check_compiled(root, f"{wheel.name} (is BORNES_COMPILE read by setup.py?)")
    return CompiledBuild(root, seconds)


def _wheel(source: Path, dist: Path, **env: str) -> Path:
    built = _pip(["wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", str(dist), str(source)],
                 dist.parent, **env)
    if built.returncode != 0:
        what = "BORNES_COMPILE=1 pip wheel" if env else "pip wheel"
        raise CompileFailed(f"{what} failed:\n{_last_lines(built.stderr + built.stdout)}")
    (wheel,) = dist.glob("bornes-*.whl")
    return wheel


def _install(wheel: Path, into: Path) -> Path:
    root = into / "root"
    installed = _pip(["install", "--no-deps", "--no-index", "--target", str(root), str(wheel)], into)
    if installed.returncode != 0:
        raise CompileFailed(f"pip install --target {root} failed:\n{_last_lines(installed.stderr)}")
    return root


def _check_compiled(root: Path, what: str) -> None:
    if not any((root / "bornes" / "engine" / f"rules{suffix}").is_file() for suffix in EXTENSION_SUFFIXES):
        raise CompileFailed(f"no compiled engine in {root}: {what}")
