"""Damage in a schema-1 journal is reported, never laundered by the upgrade; damage is exit 65 (issue 19, 2-3).

The fixture was written by schema-1 bornes. Adding 16 to byte 38643 turns the game number of the
last row of game 4 (in progress, 20 actions) into 20: ``PRAGMA quick_check`` said ok, so history
showed game 4 with 19 actions and the referee resumed it, signed the shorter game into schema 2
and played on. The upgrade now runs ``integrity_check`` (which sees a row out of key order, as at
bytes 16204 or 25756) and checks that every action row belongs to a game and the games are numbered
in order, before it converts anything.
"""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from bench.driver import REPO, bornes_command
from bornes.firmware.cli import main
from bornes.firmware.storage.journal import FILENAME, Journal, JournalCorrupt, JournalError
from tests.faults.unsaved import CI, in_memory

FIXTURE = Path(__file__).parent.parent / "appliance" / "data" / "journal-v1.sqlite"
BYTE = 38643
#: Bytes where +16 fooled quick_check before issue 19 (found by the sweep below run on the old code).
KNOWN = (16204, 25756, 29417, BYTE)


def damaged(where: Path, byte: int = BYTE) -> Path:
    data = bytearray(FIXTURE.read_bytes())
    data[byte] = (data[byte] + 16) % 256
    where.mkdir(parents=True, exist_ok=True)
    (where / FILENAME).write_bytes(data)
    return where


def test_the_old_journal_flip_is_reported_by_history_export_resume_and_doctor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = damaged(tmp_path / "state")
    before = (state / FILENAME).read_bytes()
    config = tmp_path / "config.toml"
    config.write_text(f'[state]\ndir = "{state}"\n')
    assert main(["history", "--config", str(config)]) == 65
    out = capsys.readouterr()
    assert out.out == "" and "is damaged (1 action rows belong to no game)" in out.err
    assert out.err.count("\n") == 1
    assert main(["export", "4", "--config", str(config)]) == 65
    out = capsys.readouterr()
    assert out.out == "" and "is damaged" in out.err
    assert main(["doctor", "--config", str(config)]) == 1
    assert "FAIL journal: journal" in capsys.readouterr().out
    with pytest.raises(JournalCorrupt, match="belong to no game"):
        Journal.open(state)
    damaged(tmp_path / "other", 16204)
    with pytest.raises(JournalCorrupt, match="row not in PRIMARY KEY order"):
        Journal.open(tmp_path / "other", readonly=True)  # the referee's resume: refuses to upgrade
    assert (state / FILENAME).read_bytes() == before  # not signed into schema 2, not touched at all


def test_the_referee_offers_to_set_the_damaged_old_journal_aside(tmp_path: Path) -> None:
    state = damaged(tmp_path / "state")
    config = tmp_path / "config.toml"
    config.write_text(f'[display]\npanel = "dummy"\n[pins]\nfactory = "mock"\n[state]\ndir = "{state}"\n')
    run = subprocess.run([*bornes_command(), "run", "--emulate", "--display", "dummy", "--config", str(config)],
                         input="long ok\n", capture_output=True, text=True, timeout=60, cwd=REPO)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "is damaged (1 action rows belong to no game)" in run.stdout
    assert "damaged journal moved to" in run.stdout
    [aside] = [p for p in state.iterdir() if ".corrupt-" in p.name and not p.name.endswith(("-wal", "-shm"))]
    assert aside.read_bytes() == damaged(tmp_path / "again").joinpath(FILENAME).read_bytes()
    with Journal.open(state, readonly=True) as journal:
        assert journal.game_count() == 0  # a new journal; the old one is kept aside for a person


def _everything(state: Path) -> object:
    with Journal.open(state, readonly=True) as journal:
        history = journal.history()
        return journal.current_game(), history, [journal.load(g.game_id) for g in history]


@pytest.mark.usefixtures("files_nobody_writes")
@pytest.mark.parametrize("whole", [pytest.param(True, marks=pytest.mark.slow, id="sweep"),
                                   pytest.param(False, id="sample")])
def test_a_sweep_of_the_old_journal_finds_no_silent_change(tmp_path: Path, whole: bool) -> None:
    """+16 at every 9th byte (CI) or every 53rd (locally); the fast tier every 401st and the known places: each
    is reported by every reader or changes nothing."""
    with in_memory(tmp_path) as scratch:
        shutil.copy(FIXTURE, scratch / FILENAME)
        baseline = _everything(scratch)
        size = FIXTURE.stat().st_size
        step = (9 if CI else 53) if whole else 401
        chosen = sorted({*range(random.Random(2).randrange(step), size, step), *KNOWN})
        identical = reported = 0
        silent: list[str] = []
        for byte in chosen:
            damaged(scratch, byte)
            try:
                seen = _everything(scratch)
            except JournalError as error:
                assert "\n" not in str(error)
                reported += 1
                continue
            if seen == baseline:
                identical += 1
            else:
                silent.append(f"byte {byte}")
    print(f"old journal, {len(chosen)} bytes +16: {identical} identical, {reported} reported, {len(silent)} silent")
    assert silent == [] and reported > 0


def test_random_damage_is_exit_65_in_one_line_never_raw_sqlite_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 3: 'Could not decode to UTF-8 column' and 'no such column' came out with exit 74 (restarted)."""
    from bench.journal import build

    made = tmp_path / "made"
    build(made, 4)
    with Journal.open(made) as journal:
        game = journal.new_game('[Edition "winning-moves"]\n[Players "Anne; Bruno"]')
        for seq in range(30):
            journal.append(game, seq, f"A play MB-D100-{seq:02d}")
    original = (made / FILENAME).read_bytes()
    state = tmp_path / "state"
    state.mkdir()
    config = tmp_path / "config.toml"
    config.write_text(f'[state]\ndir = "{state}"\n')
    rng = random.Random(19)
    flips = 300 if CI else 60
    schema = range(100, 4096)  # page 1: the table definitions, where 'no such column' comes from
    codes: dict[int, int] = {}
    for k in range(flips):
        byte = rng.choice(schema) if k % 3 == 0 else rng.randrange(len(original))
        data = bytearray(original)
        data[byte] ^= 1 << rng.randrange(8)
        (state / FILENAME).write_bytes(data)
        for command in (["history", "--all"], ["export", "5"]):
            code = main([*command, "--config", str(config)])
            err = capsys.readouterr().err
            codes[code] = codes.get(code, 0) + 1
            assert code in (0, 65), f"byte {byte}: exit {code}: {err}"
            assert code == 0 or (err.count("\n") == 1 and "is damaged" in err), f"byte {byte}: {err}"
    print(f"{flips} random flips, history and export: exit codes {codes}")
    assert codes.get(65, 0) > 0


@pytest.mark.parametrize("text", [
    "Could not decode to UTF-8 column 'line' with text 'A play \udcff'",
    "no such column: finished",
    "no such table: main.ledger",
])
def test_sqlite_errors_that_mean_damage_are_damage(tmp_path: Path, text: str) -> None:
    import sqlite3

    from bornes.firmware.storage.journal import classify

    error = sqlite3.OperationalError(text)
    error.sqlite_errorcode = sqlite3.SQLITE_ERROR
    found = classify(tmp_path / FILENAME, error)
    assert isinstance(found, JournalCorrupt) and found.exit_code == 65


def test_a_damaged_table_definition_is_damage_at_open_not_mid_game(tmp_path: Path) -> None:
    """A flip in sqlite_master turned 'finished' into 'finishec': 'no such column' at the first card."""
    import sqlite3

    with Journal.open(tmp_path) as journal:
        journal.new_game('[Edition "winning-moves"]')
    data = bytearray((tmp_path / FILENAME).read_bytes())
    at = data.index(b"finished TEXT")
    data[at + 7] ^= 0x07  # 'd' -> 'c': still a valid schema to SQLite, no longer bornes's
    (tmp_path / FILENAME).write_bytes(data)
    with sqlite3.connect(tmp_path / FILENAME) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.close()
    for readonly in (True, False):
        with pytest.raises(JournalCorrupt, match="table definitions are not the ones bornes wrote"):
            Journal.open(tmp_path, readonly=readonly)
