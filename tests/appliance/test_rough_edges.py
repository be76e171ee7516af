"""The rough edges of issue 9, each through the real CLI: counts, no-such-card, --json, desktop doctor,
--version, progress bars only on a terminal, local times in history."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bornes.firmware import cli
from bornes.firmware.appliance import progress
from bornes.firmware.commands.history import local_time
from tests.appliance.test_commands import journal_with_games, write_config
from tests.flow.helpers import drive, table

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("command", ["demo", "simulate"])
@pytest.mark.parametrize("players", [9, 1, 5])
def test_a_wrong_player_count_names_the_allowed_counts(
    command: str, players: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main([command, "--players", str(players)]) == 64
    err = capsys.readouterr().err
    assert err == f"bornes: winning-moves is for 2, 3, 4, 6 players, not {players}\n"


def test_a_copy_no_deck_has_is_no_such_card_not_a_short_deck_removal() -> None:
    flow = table("winning-moves", "Ann,Bob")
    out = drive(flow, "scan MB-D100-99")[0]
    assert (out.verdict, out.reason) == ("refused", "not-in-deck")
    assert out.message == "No such card: 100 miles #99 (a deck has 12)"
    removed = drive(flow, "scan MB-STOP-05")[0]  # the one copy that really is taken out for two players
    assert "taken out for 2–3 players" in removed.message


def test_export_has_json_and_format_json_still_works_with_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path, "/dev/null")
    journal_with_games(tmp_path / "state")
    assert cli.main(["export", "1", "--json", "--config", str(config)]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["summary"]["winner"] == "Anne" and captured.err == ""
    assert cli.main(["export", "1", "--format", "json", "--config", str(config)]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["game"] == 1
    assert "deprecated" in captured.err and "--json" in captured.err
    assert cli.main(["export", "1", "--json", "--format", "record", "--config", str(config)]) == 64


def test_doctor_passes_on_the_desktop_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The shipped file, unchanged, in a folder of its own: its state dir ("../.bornes-desktop", relative to
    # the file) is then this test's, never the checkout's, where the README's emulator may be running.
    (tmp_path / "config").mkdir()
    config = shutil.copy(REPO / "config" / "desktop.toml", tmp_path / "config" / "desktop.toml")
    status = cli.main(["doctor", "--config", str(config)])
    out = capsys.readouterr().out
    assert "FAIL" not in out, out
    assert status == 0
    assert "not expected on a desktop" in out and "desktop:" in out


def test_doctor_still_fails_a_missing_reader_on_a_pi_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write_config(tmp_path, str(tmp_path / "no-reader"))  # pins.factory stays "auto": a Pi
    assert cli.main(["doctor", "--config", str(config)]) == 1
    assert f"FAIL reader {tmp_path / 'no-reader'}: does not exist" in capsys.readouterr().out


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--version"])
    assert exit_.value.code == 0
    from importlib.metadata import version

    assert capsys.readouterr().out == f"bornes {version('bornes')}\n"


def test_the_readme_first_command_installs_what_more_to_try_needs() -> None:
    """`bornes labels` needs reportlab, `run --emulate` luma.emulator: the first command's extra has both."""
    import tomllib

    readme = (REPO / "README.md").read_text()
    first = next(line for line in readme.splitlines() if "/pip install " in line)
    extra = first.split("'.[")[1].split("]'")[0]
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = project["optional-dependencies"][extra]
    assert any(dep.startswith("reportlab") for dep in wanted) and any(dep.startswith("luma.emulator") for dep in wanted)
    more = readme.split("## More to try without a Pi")[1].split("##")[0]
    assert "bornes labels" in more and "run --emulate" in more


@pytest.fixture
def paris(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TZ", "Europe/Paris")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_history_shows_local_times(tmp_path: Path, paris: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert local_time("2026-01-15T09:30:00+00:00") == "2026-01-15 10:30"  # CET in winter
    assert local_time("2026-07-15T09:30:00+00:00") == "2026-07-15 11:30"  # CEST in summer
    assert local_time("2026-07-15T09:30:00") == "2026-07-15 11:30"  # an old row without an offset is UTC
    config = write_config(tmp_path, "/dev/null")
    journal_with_games(tmp_path / "state")
    assert cli.main(["history", "--config", str(config)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:3] in (["game", "started", "(CET)"], ["game", "started", "(CEST)"])


def _run_with_stderr(argv: list[str], tty: bool) -> tuple[int, str, str]:
    """The real command in a child process, its standard error a pty (a terminal) or a pipe."""
    env = {**os.environ, "COLUMNS": "100"}
    if not tty:
        done = subprocess.run([sys.executable, "-m", "bornes.firmware.cli", *argv], capture_output=True, text=True,
                              env=env, timeout=120, stdin=subprocess.DEVNULL)
        return done.returncode, done.stdout, done.stderr
    master, slave = os.openpty()
    try:
        child = subprocess.Popen([sys.executable, "-m", "bornes.firmware.cli", *argv], stdout=subprocess.PIPE,
                                 stderr=slave, stdin=subprocess.DEVNULL, env=env)
        os.close(slave)
        chunks = []
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        out = child.stdout.read().decode() if child.stdout else ""
        child.wait(timeout=120)
        return child.returncode, out, b"".join(chunks).decode(errors="replace")
    finally:
        os.close(master)


# Two runs of a command each, on a pty and in a pipe: the fast tier runs simulate, the suite the demo too.
@pytest.mark.parametrize("argv", [["simulate", "--players", "2", "--hands", "60", "--seed", "3"],
                                  pytest.param(["demo", "--players", "2", "--hands", "2", "--display", "dummy",
                                                "--pace", "0"], marks=pytest.mark.slow)])
def test_progress_bar_on_a_terminal_and_none_in_a_pipe(argv: list[str]) -> None:
    status, out, err = _run_with_stderr(argv, tty=True)
    assert status == 0, err
    assert "hand" in err and "%|" in err  # tqdm's bar: "  50%|█████     | 1/2 [...hand/s]"
    assert "%|" not in out
    status, out, err = _run_with_stderr(argv, tty=False)
    assert status == 0 and err == ""  # no bar, no escape codes in a log


def test_progress_is_off_for_a_pipe_and_counts_without_drawing() -> None:
    read, write = os.pipe()
    with os.fdopen(write, "w") as stream:
        assert not progress.wanted(stream)
    os.close(read)
    with progress.bar(10, "hand", enabled=False) as bar:
        bar.update(3)
        assert bar.n == 3
