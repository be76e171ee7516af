"""The checkout's source, without its runtime state: what the tests and the bench build from.

A checkout in use holds more than the project: the README's emulator keeps its journal and its
control socket in ``.bornes-desktop/``, pip put ``.venv/`` there, tools leave caches. A test or a
bench part that builds or installs "the checkout" copies only what git tracks or would track
(``git ls-files``: committed files plus new files that are not ignored), so it sees the same tree on
a developer's laptop with the emulator running as on CI's fresh clone. It lives in ``tools/`` so the
bench, which measures, never depends on the tests.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def source_files(repo: Path = REPO) -> list[Path]:
    """The checkout's files, relative to ``repo``: tracked, or new and not ignored; never runtime state."""
    listed = subprocess.run(["git", "-C", str(repo), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            capture_output=True, timeout=60, check=False)
    if listed.returncode != 0:
        raise RuntimeError(f"copying the checkout's source needs git: {listed.stderr.decode().strip()}")
    names = sorted({name for name in listed.stdout.decode().split("\0") if name})
    # A file deleted in the work tree but not yet in the index is listed by --cached: it is not source any more.
    return [Path(name) for name in names if (repo / name).is_file() or (repo / name).is_symlink()]


def copy_source(destination: Path, repo: Path = REPO) -> Path:
    """Copy the checkout's source files (see :func:`source_files`) into ``destination``; returns it."""
    for relative in source_files(repo):
        target = destination / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(repo / relative, target, follow_symlinks=False)
    return destination
