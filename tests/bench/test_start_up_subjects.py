"""What the start-up figures stand on (issue 28): bytecode as an install has it, and two trees started alike.

The start to READY the bench judged was 0.5 s, 0.12 s of it compiling modules from source: this
machine's environment says PYTHONDONTWRITEBYTECODE, so a checkout's stale bytecode was never
rewritten, which no referee installed by pip ever meets. ``compile_bytecode`` writes it first, and
the READY budget compares this tree with an older one, each started by ``tree_command``.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path

from bench.baseline import materialise
from bench.driver import compile_bytecode, tree_command
from bench.startup import READY_REFERENCE


def test_stale_bytecode_is_rewritten_even_where_the_environment_forbids_writing_it(tmp_path: Path) -> None:
    module = tmp_path / "firmware" / "clock.py"
    module.parent.mkdir()
    module.write_text("HOUR = 1\n", encoding="utf-8")
    cached = Path(importlib.util.cache_from_source(str(module)))
    compile_bytecode(tmp_path)
    first = cached.read_bytes()
    module.write_text("HOUR = 2  # changed, as a checkout's files do\n", encoding="utf-8")
    later = time.time() + 5  # the bytecode records the source's mtime, in whole seconds
    os.utime(module, (later, later))
    compile_bytecode.cache_clear()
    environment = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    subprocess.run([sys.executable, "-c", "import clock"], cwd=module.parent, env=environment, check=True)
    assert cached.read_bytes() == first, "the environment let Python rewrite it after all: the test proves nothing"
    compile_bytecode(tmp_path)
    assert cached.read_bytes() != first
    assert int.from_bytes(cached.read_bytes()[8:12], "little") == int(later)  # the mtime CPython checks


def test_this_tree_and_an_older_one_start_alike_and_each_runs_its_own_code(tmp_path: Path) -> None:
    root = Path(materialise(READY_REFERENCE, tmp_path).root)
    where = "import bornes.firmware.cli as cli; print(cli.__file__)"
    for tree, expected in ((None, Path(__file__).resolve().parents[2] / "firmware"), (root, tmp_path / "firmware")):
        argv = tree_command(tree)
        argv[-1] = argv[-1].replace("from bornes.firmware.cli import main; sys.exit(main())", where)
        shown = subprocess.run(argv, capture_output=True, text=True, check=True, cwd=tmp_path).stdout.strip()
        assert Path(shown).resolve().parent == expected.resolve(), shown
