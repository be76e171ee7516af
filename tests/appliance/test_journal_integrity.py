"""Journal integrity beyond one row's CRC: every bit of a real journal flipped, schema upgrade, busy vs damaged."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bornes.firmware.storage import journal as journal_module
from bornes.firmware.storage.journal import (
    FILENAME,
    Journal,
    JournalBusy,
    JournalCorrupt,
    JournalError,
    JournalFull,
    JournalUnwritable,
)
from tests.tmpfs import mounted_tmpfs

DATA = Path(__file__).parent / "data"
HEADER = '[Format "bornes-record 1"]\n[Edition "winning-moves"]\n[Players "Anne; Bruno"]'



def _line(seq: int) -> str:
    return f"{'AB'[seq % 2]} play MB-D{25 * (1 + seq % 4)}-{seq:02d}"


def small_journal(state: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A finished game, an abandoned one and one in progress with 12 actions, on 512-byte pages (SQLite's
    smallest) so that flipping each of its bits stays quick."""
    monkeypatch.setattr(journal_module, "PAGE_SIZE", 512)
    with Journal.open(state) as journal:
        game_id = journal.new_game(HEADER)
        for seq in range(3):
            journal.append(game_id, seq, _line(seq))
        journal.finish(game_id, json.dumps({"winner": "Anne", "totals": {"Anne": 5000, "Bruno": 4000}}))
        journal.abandon(journal.new_game(HEADER))
        game_id = journal.new_game(HEADER)
        for seq in range(13):
            journal.append(game_id, seq, _line(seq))
        journal.truncate(game_id, 12)  # an undo, as a real table makes


def everything(state: Path) -> object:
    """All a reader can get out of the journal, every read API used."""
    with Journal.open(state, readonly=True) as journal:
        history = journal.history()
        return (
            journal.current_game(),
            history,
            journal.recent(2),
            [journal.load(info.game_id) for info in history],
            journal.load(len(history) + 1),
        )


@pytest.mark.usefixtures("files_nobody_writes")
@pytest.mark.slow
def test_every_single_bit_flip_is_reported_or_harmless(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 11, item 1: a flipped bit resumed a shorter game. Now: 0 silent differences, for EVERY bit."""
    if os.access("/dev/shm", os.W_OK):  # tens of thousands of rewrites: in memory, not on the disk
        tmp_path = Path(tempfile.mkdtemp(dir="/dev/shm", prefix="bornes-flip-"))
        monkeypatch.chdir(tmp_path)
    try:
        _flip_every_bit(tmp_path, monkeypatch)
    finally:
        if str(tmp_path).startswith("/dev/shm/"):
            shutil.rmtree(tmp_path, ignore_errors=True)


@pytest.mark.usefixtures("files_nobody_writes")
def test_a_sample_of_bit_flips_is_reported_or_harmless(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast tier's share of the sweep above: every 127th bit (a prime stride, so every bit position of a
    byte and every page of the file), in this process."""
    small_journal(tmp_path / "made", monkeypatch)
    original = (tmp_path / "made" / FILENAME).read_bytes()
    baseline = everything(tmp_path / "made")
    reported, harmless, silent = _flip_range(tmp_path / "flips", original, baseline, range(0, len(original) * 8, 127))
    assert silent == []
    assert reported > 0 and reported + harmless == len(range(0, len(original) * 8, 127))


def _flip_range(where: Path, original: bytes, baseline: object, bits: range) -> tuple[int, int, list[str]]:
    """Flip each bit of ``bits`` in turn in a copy of the journal in ``where``; read everything each time."""
    where.mkdir(exist_ok=True)
    path = where / FILENAME
    flipped = bytearray(original)
    silent: list[str] = []
    reported = harmless = 0
    for bit in bits:
        byte, mask = divmod(bit, 8)
        flipped[byte] ^= 1 << mask
        path.write_bytes(flipped)
        flipped[byte] ^= 1 << mask
        for extra in ("-wal", "-shm"):
            Path(f"{path}{extra}").unlink(missing_ok=True)
        try:
            seen = everything(where)
        except JournalError as error:
            if "\n" in str(error):
                silent.append(f"byte {byte} bit {mask}: a message of several lines: {error!r}")
            reported += 1
            continue
        if seen == baseline:
            harmless += 1
        else:
            silent.append(f"byte {byte} bit {mask}")
    return reported, harmless, silent


def _flip_every_bit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    small_journal(tmp_path / "made", monkeypatch)
    path = tmp_path / "made" / FILENAME
    original = path.read_bytes()
    assert not Path(f"{path}-wal").exists()  # closed cleanly: the whole journal is this one file
    baseline = everything(tmp_path / "made")
    assert len(baseline[0].lines) == 12  # type: ignore[index]
    bits = len(original) * 8
    workers = max(1, min(4, os.cpu_count() or 1))  # each bit is independent: use the cores there are
    pids: list[tuple[int, int]] = []
    for worker in range(workers):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - a worker
            os.close(read)
            code = 0
            try:
                result = _flip_range(tmp_path / f"w{worker}", original, baseline, range(worker, bits, workers))
                os.write(write, json.dumps(result).encode())
            except BaseException as error:  # report anything to the parent
                os.write(write, json.dumps([0, 0, [f"worker crashed: {error!r}"]]).encode())
                code = 1
            os._exit(code)
        os.close(write)
        pids.append((pid, read))
    reported = harmless = 0
    silent: list[str] = []
    for pid, read in pids:
        with os.fdopen(read, "rb") as pipe:
            part_reported, part_harmless, part_silent = json.loads(pipe.read().decode() or '[0, 0, ["no answer"]]')
        os.waitpid(pid, 0)
        reported += part_reported
        harmless += part_harmless
        silent += part_silent
    print(f"{len(original)} bytes: {reported} flips reported, {harmless} harmless, {len(silent)} silent")
    assert reported + harmless + len(silent) == bits  # every bit was flipped once
    assert silent == []
    assert reported > len(original)  # most flips land on data the checks cover


def test_a_journal_written_by_schema_1_opens_resumes_and_keeps_its_games(tmp_path: Path) -> None:
    """The fixture was written by bornes before the integrity fields (commit fe2192c)."""
    shutil.copy(DATA / "journal-v1.sqlite", tmp_path / FILENAME)
    before = (tmp_path / FILENAME).read_bytes()
    with Journal.open(tmp_path, readonly=True) as journal:  # a reader upgrades in memory only
        games = journal.history()
        current = journal.current_game()
    assert (tmp_path / FILENAME).read_bytes() == before
    assert [g.status for g in games] == ["finished", "finished", "abandoned", "in-progress"]
    assert current is not None and current.game_id == 4 and len(current.lines) == 20
    with Journal.open(tmp_path) as journal:  # the referee upgrades the file itself
        assert journal.history() == games
        assert journal.current_game() == current
        finished = journal.load(1)
        assert finished is not None and len(finished.lines) == 295
        journal.append(4, 20, current.lines[0])
        journal.truncate(4, 20)
        assert journal.verify() == 4
    with sqlite3.connect(tmp_path / FILENAME) as db:
        assert db.execute("SELECT version FROM schema_version").fetchone()[0] == 2
    db.close()
    from bornes.firmware.storage.store import JournalStore

    with Journal.open(tmp_path) as journal:
        game = JournalStore(journal).resume()
        assert game is not None and len(game.log) == 20


def test_a_damaged_schema_1_journal_is_not_laundered_by_the_upgrade(tmp_path: Path) -> None:
    shutil.copy(DATA / "journal-v1.sqlite", tmp_path / FILENAME)
    with sqlite3.connect(tmp_path / FILENAME) as db:
        db.execute("UPDATE actions SET line = 'A play MB-ROLL-02' WHERE game_id = 1 AND seq = 3")
    db.close()
    with pytest.raises(JournalCorrupt, match="game 1 action 3"):
        Journal.open(tmp_path)
    with sqlite3.connect(tmp_path / FILENAME) as db:
        assert db.execute("SELECT version FROM schema_version").fetchone()[0] == 1
    db.close()


def test_a_vanished_row_is_damage_never_a_shorter_game(tmp_path: Path) -> None:
    with Journal.open(tmp_path) as journal:
        for _ in range(2):
            game_id = journal.new_game(HEADER)
            journal.append(game_id, 0, _line(0))
            journal.finish(game_id, "{}")
        game_id = journal.new_game(HEADER)
        for seq in range(5):
            journal.append(game_id, seq, _line(seq))
    with sqlite3.connect(tmp_path / FILENAME) as db:  # the last action moves to another game, CRC and all
        db.execute("UPDATE actions SET game_id = 9 WHERE game_id = 3 AND seq = 4")
    db.close()
    with pytest.raises(JournalCorrupt, match="should hold 5 actions but 4"):
        Journal.open(tmp_path)
    with sqlite3.connect(tmp_path / FILENAME) as db:
        db.execute("UPDATE actions SET game_id = 3 WHERE game_id = 9")
        db.execute("DELETE FROM games WHERE id = 1")  # an old game row vanishes
    db.close()
    for readonly in (True, False):
        with pytest.raises(JournalCorrupt, match="ledger lists games 1 to 3 but 2 to 3"):
            Journal.open(tmp_path, readonly=readonly)


HOLD_LOCK = textwrap.dedent(
    """
    import sqlite3, sys, time
    db = sqlite3.connect(sys.argv[1], isolation_level=None)
    db.execute("PRAGMA locking_mode=EXCLUSIVE")
    db.execute("BEGIN EXCLUSIVE")
    print("held", flush=True)
    time.sleep(30)
    """
)


def test_a_locked_journal_is_busy_never_damaged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 11, item 2: another program holding the lock was called 'damaged'."""
    with Journal.open(tmp_path) as journal:
        journal.new_game(HEADER)
    monkeypatch.setattr(journal_module, "BUSY_TIMEOUT", 0.3)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(tmp_path / FILENAME)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        for readonly in (False, True):
            started = time.monotonic()
            with pytest.raises(JournalBusy) as caught:
                Journal.open(tmp_path, readonly=readonly)
            assert time.monotonic() - started >= 0.25  # it waited first
            message = str(caught.value)
            assert f"in use by another program (PID {holder.pid})" in message
            assert "damaged" not in message and not isinstance(caught.value, JournalCorrupt)
    finally:
        holder.kill()
        holder.wait()
    with Journal.open(tmp_path) as journal:  # nothing was set aside; the game is still there
        assert journal.current_game() is not None


def _open_as_nobody(state: Path, readonly: bool = False) -> str:
    """Open the journal for writing in a forked child running as user nobody: root can write anything."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(read)
        try:
            os.setgid(65534)
            os.setuid(65534)
            with Journal.open(state, readonly=readonly) as journal:
                answer = "opened" if not readonly else f"read {len(journal.history())} games"
        except JournalError as error:
            answer = f"{type(error).__name__} {error}"
        except BaseException as error:  # report anything to the parent
            answer = f"crash {error!r}"
        os.write(write, answer.encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        answer = pipe.read().decode()
    os.waitpid(pid, 0)
    return answer


@pytest.fixture
def request_cleanup() -> Iterator[list[Path]]:
    made: list[Path] = []
    yield made
    for where in made:
        shutil.rmtree(where, ignore_errors=True)


def test_unwritable_file_and_folder_get_their_own_words(request_cleanup: list[Path]) -> None:
    """Issue 11, item 5: a journal restored with sudo cp was called OK, then every card was an internal error."""
    if os.geteuid() != 0:
        pytest.skip("needs root to make a file only another user can write")
    outer = Path(tempfile.mkdtemp(prefix="bornes-nobody-"))  # pytest's tmp_path is private to root
    request_cleanup.append(outer)
    os.chmod(outer, 0o755)
    state = outer / "state"
    with Journal.open(state) as journal:
        journal.new_game(HEADER)
    os.chmod(state, 0o777)
    answer = _open_as_nobody(state)
    assert answer.startswith("JournalUnwritable"), answer
    assert "cannot be written by user nobody; fix: sudo chown nobody:" in answer and "damaged" not in answer
    os.chmod(state, 0o755)
    for name in os.listdir(state):
        os.chown(state / name, 65534, 65534)
    answer = _open_as_nobody(state)
    assert answer.startswith("JournalUnwritable") and f"folder {state} is not writable by nobody" in answer, answer
    assert _open_as_nobody(state, readonly=True) == "read 1 games"  # a reader needs no write access at all
    os.chown(state, 65534, 65534)
    assert _open_as_nobody(state) == "opened"


@pytest.fixture
def tiny_tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A real 256 KiB tmpfs: a disk that fills up, and can be remounted read-only."""
    with mounted_tmpfs(tmp_path / "mnt", "256k") as where:
        yield where


def test_a_read_only_mount_is_named_as_such(tiny_tmpfs: Path) -> None:
    with Journal.open(tiny_tmpfs) as journal:
        journal.new_game(HEADER)
    subprocess.run(["mount", "-o", "remount,ro", str(tiny_tmpfs)], check=True)
    with pytest.raises(JournalUnwritable, match="mounted read-only; fix: sudo mount -o remount,rw"):
        Journal.open(tiny_tmpfs)


def test_a_full_disk_is_storage_full_and_keeps_every_acknowledged_action(tiny_tmpfs: Path) -> None:
    with Journal.open(tiny_tmpfs) as journal:
        game_id = journal.new_game(HEADER)
        done = 0
        with pytest.raises(JournalFull, match="storage is full"):
            for seq in range(100_000):
                journal.append(game_id, seq, f"A play MB-D100-{seq:05d} " + "x" * 300)
                done += 1
        kept = journal.current_game()
        assert kept is not None and len(kept.lines) == done > 0
    (tiny_tmpfs / "bornes.sqlite3-wal").stat()  # the WAL holds them; reopening replays it
    with Journal.open(tiny_tmpfs, readonly=True) as journal:
        assert journal.current_game() == kept


def test_disk_full_is_storage_full_not_an_internal_error(tmp_path: Path) -> None:
    """SQLITE_FULL for real: the file may not grow past its pages (max_page_count)."""
    with Journal.open(tmp_path) as journal:
        game_id = journal.new_game(HEADER)
        db = journal._connection()
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {pages}")
        with pytest.raises(JournalFull, match="storage is full"):
            for seq in range(10_000):
                journal.append(game_id, seq, "A play MB-D100-01 " + "x" * 200)
        kept = journal.current_game()
        assert kept is not None and len(kept.lines) == seq  # every acknowledged action is there
    with Journal.open(tmp_path) as journal:
        assert journal.current_game() == kept


def test_doctor_fails_a_journal_the_referee_could_not_write(tiny_tmpfs: Path) -> None:
    """Doctor said OK to a journal the service could not write; now it names the problem and the fix."""
    from bornes.firmware.appliance.config import parse_config
    from bornes.firmware.commands.doctor import check_journal

    with Journal.open(tiny_tmpfs) as journal:
        journal.new_game(HEADER)
    config = parse_config(f'[state]\ndir = "{tiny_tmpfs}"\n')
    [finding] = check_journal(config)
    assert finding.level == "OK"
    subprocess.run(["mount", "-o", "remount,ro", str(tiny_tmpfs)], check=True)
    [finding] = check_journal(config)
    assert finding.level == "FAIL" and "mounted read-only; fix: sudo mount -o remount,rw" in finding.line()


@pytest.mark.parametrize(("code", "kind", "words"), [
    (sqlite3.SQLITE_IOERR | (3 << 8), "JournalIOError", "the storage failed"),  # SQLITE_IOERR_WRITE
    (sqlite3.SQLITE_FULL, "JournalFull", "the storage is full"),
    (sqlite3.SQLITE_BUSY | (1 << 8), "JournalBusy", "in use by another program"),  # SQLITE_BUSY_RECOVERY
    (sqlite3.SQLITE_CORRUPT, "JournalCorrupt", "is damaged"),
    (sqlite3.SQLITE_READONLY, "JournalUnwritable", "journal"),
])
def test_each_sqlite_error_gets_its_true_name(tmp_path: Path, code: int, kind: str, words: str) -> None:
    from bornes.firmware.storage.journal import classify

    error = sqlite3.OperationalError("something went wrong\nover two lines")
    error.sqlite_errorcode = code
    found = classify(tmp_path / FILENAME, error)
    assert type(found).__name__ == kind and words in str(found) and "\n" not in str(found)


def test_export_and_doctor_report_a_game_cut_short_instead_of_printing_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 11, item 1: export exited 0 with a game cut from 36 to 13 actions; doctor said OK."""
    from bornes.firmware.cli import main

    state = tmp_path / "state"
    with Journal.open(state) as journal:
        for _ in range(2):
            game_id = journal.new_game(HEADER)
            for seq in range(36):
                journal.append(game_id, seq, _line(seq))
            journal.finish(game_id, "{}")
    with sqlite3.connect(state / FILENAME) as db:  # rows 13.. of game 1 now claim to be game 9's
        db.execute("UPDATE actions SET game_id = 9 WHERE game_id = 1 AND seq >= 13")
    db.close()
    config = tmp_path / "config.toml"
    config.write_text(f'[state]\ndir = "{state}"\n')
    assert main(["export", "1", "--config", str(config)]) == 65
    captured = capsys.readouterr()
    assert captured.out == "" and "game 1 should hold 36 actions but 13 are readable" in captured.err
    assert main(["export", "2", "--config", str(config)]) == 0  # the sound game still exports
    assert capsys.readouterr().out.count("\n") > 36
    assert main(["doctor", "--config", str(config)]) == 1
    assert "FAIL journal: journal" in capsys.readouterr().out
