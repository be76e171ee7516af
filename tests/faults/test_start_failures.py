"""Start-up against a full disk, odd side files and configs, and what systemd makes of the exit (issue 19, items 4-6).

Each case runs ``bornes run`` in a subprocess as systemd would. The referee either runs on (and
says what it did about the odd file) or stops with exactly one line and a status listed in
``RestartPreventExitStatus`` of systemd/bornes.service, so it is not restarted in a loop; and
``bornes doctor`` agrees with it about every one of them.
"""

from __future__ import annotations

import configparser
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bench.driver import REPO, bornes_command
from bornes.firmware.storage.journal import FILENAME, Journal, JournalFull
from tests.tiers import tiered
from tests.tmpfs import fill, mounted_tmpfs

SERVICE = REPO / "systemd" / "bornes.service"


def not_restarted() -> set[int]:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.read(SERVICE)
    return {int(code) for code in parser["Service"]["RestartPreventExitStatus"].split()}


def config_for(tmp: Path, state: Path | str, extra: str = "") -> Path:
    path = tmp / "config.toml"
    path.write_text(f'[display]\npanel = "dummy"\n[pins]\nfactory = "mock"\n[state]\ndir = "{state}"\n{extra}')
    return path


def run(config: Path, keys: str = "") -> subprocess.CompletedProcess[str]:
    """``bornes run --emulate``: the typed ``keys``, then end of input stops it (exit 0 if it started)."""
    return subprocess.run([*bornes_command(), "run", "--emulate", "--display", "dummy", "--config", str(config)],
                          input=keys, capture_output=True, text=True, timeout=60, cwd=REPO)


def doctor(config: Path) -> tuple[int, list[str]]:
    done = subprocess.run([*bornes_command(), "doctor", "--config", str(config)], capture_output=True, text=True,
                          timeout=60, cwd=REPO)
    return done.returncode, done.stdout.splitlines() + done.stderr.splitlines()


def one_line_not_restarted(done: subprocess.CompletedProcess[str], words: str) -> None:
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert len(lines) == 1, lines  # no "starting with" first, no traceback after
    assert words in lines[0], lines[0]
    assert done.returncode in not_restarted(), f"exit {done.returncode} is restarted by systemd: {lines[0]}"


# -- a full disk ------------------------------------------------------------------------------------


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    with mounted_tmpfs(tmp_path / "mnt", "256k") as where:
        fill(where)
        yield where


def test_starting_on_a_full_disk_is_one_line_and_no_restart_loop(tmp_path: Path, full_disk: Path) -> None:
    state = full_disk / "state"
    state.mkdir()
    config = config_for(tmp_path, state)
    one_line_not_restarted(run(config), "the storage is full")
    assert [p.name for p in state.iterdir()] == []  # no .bornes.sqlite3.new-<pid>, no write test left
    code, lines = doctor(config)
    assert code == 1 and any(line.startswith("FAIL storage: ") and "not enough to record" in line for line in lines)


def test_creating_a_journal_on_a_full_disk_leaves_no_temporary_file(full_disk: Path) -> None:
    with pytest.raises(JournalFull, match="storage is full"):
        Journal.open(full_disk)
    assert sorted(p.name for p in full_disk.iterdir()) == ["filler"]


def test_doctor_says_how_many_cards_and_games_fit(tmp_path: Path) -> None:
    _, lines = doctor(config_for(tmp_path, tmp_path / "state"))
    [line] = [line for line in lines if line.startswith(("OK   storage", "WARN storage"))]
    assert "free: room for about" in line and " cards (" in line and " games)" in line, line


def test_the_panel_warns_while_the_disk_is_nearly_full(tmp_path: Path) -> None:
    from bornes.firmware.appliance import assembly as appliance_module
    from bornes.firmware.table.flow import TableFlow

    with mounted_tmpfs(tmp_path / "mnt", "3m") as disk:
        flow = TableFlow()
        watch = appliance_module.StorageWatch(disk, flow)
        try:
            assert flow.ui.status == "Storage nearly full"  # 3 MiB < 4 MiB: warn
            (disk / "filler").unlink(missing_ok=True)
        finally:
            watch.close()
    flow = TableFlow()
    watch = appliance_module.StorageWatch(tmp_path, flow)
    watch.close()
    assert flow.ui.status is None  # a disk with room says nothing


# -- side files -------------------------------------------------------------------------------------


def _lock_folder(state: Path) -> None:
    (state / "bornes.lock").mkdir()


def _lock_dangling(state: Path) -> None:
    (state / "bornes.lock").symlink_to(state / "nowhere")


@pytest.mark.parametrize("odd", tiered([_lock_folder, _lock_dangling], {"a folder"},
                                       ids=["a folder", "a dangling symlink"]))
def test_a_lock_that_is_no_file_is_moved_aside_and_the_referee_runs(
    tmp_path: Path, odd: Callable[[Path], None]
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    odd(state)
    config = config_for(tmp_path, state)
    _, lines = doctor(config)
    assert any(line.startswith("WARN lock ") and "moves it aside" in line for line in lines), lines
    done = run(config)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "was not a file; moved aside to bornes.lock.moved-" in done.stdout and "referee up" in done.stdout
    assert (state / "bornes.lock").is_file() and not (state / "bornes.lock").is_symlink()
    assert any(p.name.startswith("bornes.lock.moved-") for p in state.iterdir())


@pytest.mark.slow  # a referee started: the fast tier's start-up checks are the lock above and the full disk
def test_an_archive_that_is_a_file_does_not_stop_the_referee(tmp_path: Path) -> None:
    state = tmp_path / "state"
    with Journal.open(state) as journal:
        for _ in range(3):
            journal.finish(journal.new_game('[Edition "winning-moves"]'), "{}")
    (state / "archive").write_text("not a folder\n")
    config = config_for(tmp_path, state, "keep_games = 1\n")  # still in [state]
    _, lines = doctor(config)
    assert any(line.startswith("WARN archive ") and "archives nothing" in line for line in lines), lines
    done = run(config)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "old games not archived, the journal keeps them all" in done.stdout and "referee up" in done.stdout
    with Journal.open(state, readonly=True) as journal:
        assert journal.game_count() == 3


# -- configs: run and doctor agree -----------------------------------------------------------------


@pytest.mark.parametrize(("name", "text", "words"), tiered([
    ("state dir under /proc", '[state]\ndir = "/proc/nope"\n', "state.dir = /proc/nope"),
    ("empty file", "", "is empty"),
    ("cut short by a power cut", '[state]\ndir = "/tmp"\n' + "\0" * 100, "holds NUL bytes"),
    ("negative game target", '[game.options]\ngame_target = "-5"\n', "game.options.game_target"),
    ("nine seats for a short trip", '[game.options]\nshort_trip_seats = "9"\n', "game.options.short_trip_seats"),
], {"state dir under /proc", "cut short by a power cut"}))
def test_run_and_doctor_agree_on_a_config_run_cannot_use(tmp_path: Path, name: str, text: str, words: str) -> None:
    config = tmp_path / "config.toml"
    config.write_text(text)
    done = subprocess.run([*bornes_command(), "run", "--config", str(config)], capture_output=True, text=True,
                          timeout=60, cwd=REPO)
    one_line_not_restarted(done, words)
    code, lines = doctor(config)
    said = "state /proc/nope: does not exist and cannot be created" if "/proc" in text else words
    assert code != 0 and any(said in line for line in lines), lines


def test_every_start_failure_a_restart_cannot_cure_is_not_restarted() -> None:
    """The unit lists them all: damage (65), a state file it cannot make (73), storage (74), config (78)."""
    from bornes.drivers.errors import EX_CANTCREAT, EX_CONFIG, EX_DATAERR, EX_IOERR, EX_TEMPFAIL
    from bornes.firmware.storage.journal import JournalCorrupt, JournalIOError, JournalUnwritable

    codes = not_restarted()
    assert {EX_DATAERR, EX_CANTCREAT, EX_IOERR, EX_CONFIG} <= codes
    assert EX_TEMPFAIL not in codes  # another writer may stop: a restart can cure that one
    for error in (JournalCorrupt(Path(FILENAME), "x"), JournalFull("x"), JournalIOError("x"), JournalUnwritable("x")):
        assert error.exit_code in codes, type(error).__name__


def test_276_kib_of_free_space_holds_a_thousand_cards_not_thirty(tmp_path: Path) -> None:
    """Item 4: the WAL grew by 9 KiB a card up to SQLite's 1 000-page checkpoint, so 276 KiB took 30 cards.
    The referee copies the WAL into the main file after each chirp (Journal.upkeep): so does this."""
    with mounted_tmpfs(tmp_path / "mnt", "1m") as disk:
        journal = Journal.open(disk)
        game = journal.new_game('[Edition "winning-moves"]\n[Players "Anne; Bruno"]')
        journal.append(game, 0, "A play MB-ROLL-01")
        filler = fill(disk)
        os.truncate(filler, max(0, filler.stat().st_size - 276 * 1024))  # free 276 KiB
        appended = 0
        try:
            for seq in range(1, 1001):
                journal.append(game, seq, f"{'AB'[seq % 2]} play MB-D100-{seq % 100:02d}")
                appended += 1
                journal.upkeep()
        except JournalFull:
            pass
        journal.close()
        assert appended == 1000, f"only {appended} cards fit in 276 KiB"
