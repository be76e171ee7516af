"""The ``bornes`` command line: one table of commands, and only the chosen command imported."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

from bornes.firmware import cli, commands


def test_the_table_names_every_command_module_and_nothing_else() -> None:
    modules = {info.name for info in pkgutil.iter_modules(commands.__path__) if not info.name.startswith("_")}
    assert {commands.module_name(name).rsplit(".", 1)[1] for name in commands.COMMANDS} == modules
    for name in commands.COMMANDS:
        module = importlib.import_module(commands.module_name(name))
        assert callable(module.add_arguments), name
        assert callable(module.run), name


def _imported_after(argv: list[str]) -> set[str]:
    """The modules loaded by building the parser for ``argv`` in a fresh interpreter."""
    code = (
        "import sys\n"
        "from bornes.firmware import cli\n"
        f"cli.build_parser({argv!r})\n"
        "print('\\n'.join(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_help_imports_no_command() -> None:
    loaded = _imported_after(["--help"])
    assert not {m for m in loaded if m.startswith("bornes.firmware.commands.")}
    assert "PIL" not in loaded
    assert "gpiozero" not in loaded


def test_replay_imports_only_replay_and_the_engine() -> None:
    loaded = _imported_after(["replay", "game.record"])
    assert {m for m in loaded if m.startswith("bornes.firmware.commands.")} == {"bornes.firmware.commands.replay"}
    for heavy in ("PIL", "gpiozero", "serial", "sqlite3", "bornes.engine.simulate", "bornes.firmware.table.flow"):
        assert heavy not in loaded, heavy


def _commands_built(parser: argparse.ArgumentParser) -> set[str]:
    (sub,) = (action for action in parser._actions if isinstance(action, argparse._SubParsersAction))
    return set(sub.choices)


def test_a_command_line_that_names_a_command_builds_only_its_parser(capsys: pytest.CaptureFixture[str]) -> None:
    """The other commands' parsers are a start-up cost nobody reads; a line that names none, or a wrong one,
    still lists them all."""
    assert _commands_built(cli.build_parser(["--lang", "fr", "replay", "game.record"])) == {"replay"}
    assert _commands_built(cli.build_parser(["--help"])) == set(commands.COMMANDS)
    with pytest.raises(SystemExit) as refused:
        cli.main(["replya"])
    said = capsys.readouterr().err
    assert refused.value.code == 64 and all(f"'{name}'" in said for name in commands.COMMANDS)


@pytest.mark.parametrize("argv", [["--debug", "scan-test", "--help"], ["scan-test", "--help"]])
def test_a_command_after_global_options_gets_its_arguments(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        cli.main(argv)
    assert stopped.value.code == 0
    assert "--protocol" in capsys.readouterr().out


def test_no_command_prints_help_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([]) == 64
    assert "replay" in capsys.readouterr().out


def test_lang_before_the_command_is_the_commands_own(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Issue 40: ``bornes --lang fr --help`` failed ("invalid choice: 'fr'"). ``--lang`` goes before the
    command as after it; the help itself is English by design (docs/languages.md)."""
    with pytest.raises(SystemExit) as done:
        cli.main(["--lang", "fr", "--help"])
    assert done.value.code == 0 and "docs/languages.md" in capsys.readouterr().out
    script = tmp_path / "one.feed"
    script.write_text("setup edition=winning-moves names=Ann,Bob\nscan MB-D25-01\n", encoding="utf-8")
    assert cli.main(["--lang", "fr", "feed", str(script)]) == 1
    assert "Posez d'abord un Feu Vert" in capsys.readouterr().out  # French, though the edition is English
    assert cli.main(["--lang", "fr", "feed", str(script), "--lang", "en"]) == 1  # the command's own wins
    assert "Play a Roll first" in capsys.readouterr().out
    with pytest.raises(SystemExit) as refused:
        cli.main(["--lang", "xx", "feed", str(script)])
    assert refused.value.code == 64 and "'xx' is not a language" in capsys.readouterr().err
