"""Print the longest functions of some Python files, with their line counts.

``python -m tools.function_sizes firmware/table`` lists each function as ``lines name``,
longest first: the measure behind issue 21's "largest method under 40 lines" (a method's lines run
from its ``def`` to its last line, decorators and docstring included). Complexity is ruff's to
count: ``ruff check --select C901``.
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path


def functions(path: Path) -> list[tuple[int, str]]:
    """(lines, qualified name) for every function and method in one file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                lines = (child.end_lineno or child.lineno) - first + 1
                found.append((lines, f"{path}:{prefix}{child.name}"))
                visit(child, f"{prefix}{child.name}.")

    visit(tree, "")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path, help="files or folders of Python code")
    parser.add_argument("--top", type=int, default=15, help="how many functions to list (default 15)")
    args = parser.parse_args()
    files = [f for p in args.paths for f in ([p] if p.is_file() else sorted(p.rglob("*.py")))]
    rows = sorted((row for f in files for row in functions(f)), reverse=True)
    for lines, name in rows[: args.top]:
        print(f"{lines:5d}  {name}")


if __name__ == "__main__":
    main()
