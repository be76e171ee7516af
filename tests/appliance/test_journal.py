"""The journal keeps every acknowledged action through crashes and reports damage instead of replaying it."""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from bornes.firmware.storage.journal import (
    FILENAME,
    CurrentGame,
    Journal,
    JournalCorrupt,
    JournalError,
)

REPO = Path(__file__).resolve().parents[2]
HEADER = "[Edition winning-moves]\n[Players 4]\n[Names Anne,Bruno,Chloe,David]"


def action(seq: int) -> str:
    return f"{'ABCD'[seq % 4]} play MB-D{25 * (1 + seq % 4)}-{seq:04d}"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fill(state: Path, count: int, *, finish_first: bool = False) -> list[str]:
    """A journal with (optionally) one finished game and one game in progress of ``count`` actions."""
    with Journal.open(state) as journal:
        if finish_first:
            old = journal.new_game("[Edition dujardin]\n[Players 2]")
            journal.append(old, 0, "A play MB-ROLL-01")
            journal.finish(old, json.dumps({"winner": "A", "totals": [700, 0]}))
        game = journal.new_game(HEADER)
        lines = [action(seq) for seq in range(count)]
        for seq, line in enumerate(lines):
            journal.append(game, seq, line)
    return lines


# -- the API ----------------------------------------------------------------------------------------


def test_round_trip_resume_undo_finish_and_history(tmp_path: Path) -> None:
    journal = Journal.open(tmp_path)
    assert journal.current_game() is None
    game = journal.new_game(HEADER)
    for seq in range(6):
        journal.append(game, seq, action(seq))
    assert journal.truncate(game, 4) == 2
    journal.append(game, 4, "B discard MB-STOP-01")
    journal.close()
    journal.close()  # idempotent

    with Journal.open(tmp_path) as journal:
        game_id, header, lines = journal.current_game() or CurrentGame(0, "", [])
        assert (game_id, header) == (game, HEADER)
        assert lines == [action(0), action(1), action(2), action(3), "B discard MB-STOP-01"]
        journal.finish(game, json.dumps({"winner": "B", "totals": [1200, 3400]}))
        assert journal.current_game() is None
        second = journal.new_game("[Edition hasbro-2016]")
        assert second == game + 1

    with Journal.open(tmp_path, readonly=True) as journal:
        rows = journal.history()
        assert [(r.game_id, r.status, r.actions) for r in rows] == [(game, "finished", 5), (second, "in-progress", 0)]
        assert json.loads(rows[0].summary or "")["winner"] == "B"
        assert rows[0].finished is not None and rows[1].finished is None
        record = journal.load(game)
        assert record is not None and record.lines[-1] == "B discard MB-STOP-01"
        assert journal.load(999) is None
        assert journal.verify() == 2
        with pytest.raises(ValueError, match="read-only"):
            journal.append(second, 0, "A play MB-ROLL-01")


def test_durability_settings(tmp_path: Path) -> None:
    with Journal.open(tmp_path) as journal:
        db = journal._connection()
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert db.execute("SELECT version FROM schema_version").fetchone()[0] == 2
    assert not list(tmp_path.glob(".bornes.sqlite3.new-*")), "the temporary creation file is gone"


def test_misuse_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    with Journal.open(tmp_path) as journal:
        game = journal.new_game(HEADER)
        journal.append(game, 0, action(0))
        with pytest.raises(ValueError, match="out of order; the next one is 1"):
            journal.append(game, 2, action(2))
        with pytest.raises(ValueError, match="out of order"):
            journal.append(game, 0, action(0))
        with pytest.raises(ValueError, match="line break"):
            journal.append(game, 1, "A play\nB play")
        with pytest.raises(JournalError, match="still in progress"):
            journal.new_game(HEADER)
        with pytest.raises(ValueError):
            journal.finish(game, "{not json")
        with pytest.raises(ValueError, match="no game 42"):
            journal.append(42, 0, action(0))
        assert journal.current_game() == (game, HEADER, [action(0)])
        journal.abandon(game)
        with pytest.raises(ValueError, match="abandoned, not in progress"):
            journal.append(game, 1, action(1))
        assert [r.status for r in journal.history()] == ["abandoned"]
    journal.close()
    with pytest.raises(ValueError, match="closed"):
        journal.current_game()


def test_readonly_without_a_journal_and_unusable_state_dir(tmp_path: Path) -> None:
    with pytest.raises(JournalError, match="does not exist yet"):
        Journal.open(tmp_path, readonly=True)
    assert not (tmp_path / FILENAME).exists()
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(JournalError, match="cannot create") as caught:
        Journal.open(blocker / "state")
    assert "\n" not in str(caught.value)


# -- damage is detected, reported on one line and never overwritten ----------------------------------


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"", "empty"),
        (b"hello, this is not a database" * 40, "not a database"),
        (b"SQLite format 3\x00" + b"\x00" * 200, "damaged"),
    ],
)
def test_garbage_file_is_reported_and_left_alone(tmp_path: Path, content: bytes, problem: str) -> None:
    path = tmp_path / FILENAME
    path.write_bytes(content)
    before = digest(path)
    with pytest.raises(JournalCorrupt, match=problem) as caught:
        Journal.open(tmp_path)
    message = str(caught.value)
    assert "\n" not in message and str(path) in message and caught.value.exit_code == 65
    assert digest(path) == before
    moved = Journal.quarantine(tmp_path)
    assert moved is not None and moved.name.startswith(f"{FILENAME}.corrupt-") and moved.read_bytes() == content
    with Journal.open(tmp_path) as journal:
        assert journal.history() == []


def test_foreign_database_and_orphan_wal_and_newer_schema(tmp_path: Path) -> None:
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    with sqlite3.connect(foreign / FILENAME) as db:
        db.execute("CREATE TABLE notes (text TEXT)")
    db.close()
    with pytest.raises(JournalCorrupt, match="not a bornes journal"):
        Journal.open(foreign)

    orphan = tmp_path / "orphan"
    orphan.mkdir()
    (orphan / f"{FILENAME}-wal").write_bytes(b"\x37\x7f\x06\x82" + b"\x00" * 60)
    with pytest.raises(JournalCorrupt, match="holds data"):
        Journal.open(orphan)
    assert not (orphan / FILENAME).exists()
    Journal.quarantine(orphan)
    assert len(list(orphan.glob(f"{FILENAME}.corrupt-*-wal"))) == 1

    newer = tmp_path / "newer"
    fill(newer, 1)
    with sqlite3.connect(newer / FILENAME) as db:
        db.execute("UPDATE schema_version SET version = 99")
    db.close()
    with pytest.raises(JournalError, match="newer bornes") as caught:
        Journal.open(newer)
    assert not isinstance(caught.value, JournalCorrupt)


def test_bit_rot_in_an_action_is_caught_by_its_checksum(tmp_path: Path) -> None:
    lines = fill(tmp_path, 40)
    path = tmp_path / FILENAME
    data = bytearray(path.read_bytes())
    victim = action(17).encode()
    at = data.find(victim)
    assert at > 0, "the action text is stored verbatim in the page"
    data[at + len(victim) - 1] ^= 0x01  # "…0017" becomes "…0016": still valid text, wrong content
    path.write_bytes(bytes(data))
    before = digest(path)
    with pytest.raises(JournalCorrupt, match="action 17 fails its checksum"):
        Journal.open(tmp_path)
    assert digest(path) == before
    assert lines[17] != data[at : at + len(victim)].decode()


def test_rot_in_a_finished_game_is_found_by_verify_and_load(tmp_path: Path) -> None:
    fill(tmp_path, 3, finish_first=True)
    with sqlite3.connect(tmp_path / FILENAME) as db:
        db.execute("UPDATE actions SET line = 'A play MB-ROLL-02' WHERE game_id = 1")
    db.close()
    with Journal.open(tmp_path) as journal:  # the open check covers the game in progress only
        with pytest.raises(JournalCorrupt, match="game 1 action 0"):
            journal.verify()
        with pytest.raises(JournalCorrupt):
            journal.load(1)
    with sqlite3.connect(tmp_path / FILENAME) as db:
        db.execute('UPDATE games SET summary = \'{"winner": "B"}\' WHERE id = 1')
    db.close()
    # opening is O(game in progress); the list checks every row
    with Journal.open(tmp_path) as journal, pytest.raises(JournalCorrupt, match="game 1 fails its checksum"):
        journal.history()


def test_missing_action_in_the_middle_is_caught(tmp_path: Path) -> None:
    fill(tmp_path, 10)
    with sqlite3.connect(tmp_path / FILENAME) as db:
        db.execute("DELETE FROM actions WHERE seq = 4")
    db.close()
    with pytest.raises(JournalCorrupt, match="missing action 4"):
        Journal.open(tmp_path)


def _open_copy(files: dict[str, bytes], where: Path) -> list[str] | None:
    """Open a copied journal: its action lines, or None when it is reported as damaged."""
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir()
    for name, data in files.items():
        (where / name).write_bytes(data)
    try:
        with Journal.open(where) as journal:
            current = journal.current_game()
            return current.lines if current else []
    except JournalCorrupt as error:
        assert "\n" not in str(error)
        return None


def test_truncated_main_file_after_checkpoint_is_whole_or_reported(tmp_path: Path) -> None:
    lines = fill(tmp_path / "live", 400)
    data = (tmp_path / "live" / FILENAME).read_bytes()
    assert not (tmp_path / "live" / f"{FILENAME}-wal").exists(), "closing checkpoints everything into the file"
    rng = random.Random(1962)
    page = 4096
    offsets = {0, 1, 16, 50, 99, 100, 101, 512, len(data) - 1, len(data) - page}
    offsets |= {k * page + d for k in range(len(data) // page) for d in (0, 1)}
    offsets |= {rng.randrange(len(data)) for _ in range(40)}
    seen = {"whole": 0, "reported": 0}
    for offset in sorted(o for o in offsets if 0 <= o < len(data)):
        got = _open_copy({FILENAME: data[:offset]}, tmp_path / "copy")
        if got is None:
            seen["reported"] += 1
        else:
            assert got == lines, f"cut at {offset}: {len(got)} of {len(lines)} actions, silently"
            seen["whole"] += 1
    assert seen["reported"] > 0


def test_truncated_wal_never_loses_an_acknowledged_action_silently(tmp_path: Path) -> None:
    """Issue 19: a WAL cut short used to resume a prefix of the game, acknowledged actions and all.
    Now the acknowledged actions still in the WAL are counted by the pending note, and the WAL walker
    reads the rest: a cut WAL gives the whole game or is reported, never a shorter one."""
    from tests.faults.unsaved import killed

    snapshot = killed(tmp_path / "live", saved=120, deferred=30, in_flight=1)
    main, wal = snapshot.files[FILENAME], snapshot.files[f"{FILENAME}-wal"]
    note = {name: data for name, data in snapshot.files.items() if name.endswith("-pending")}
    assert len(wal) > 10_000 and note
    acknowledged, everything = snapshot.acknowledged, snapshot.acknowledged + snapshot.in_flight
    rng = random.Random(1000)
    frame = 512 + 24
    offsets = {0, 1, 31, 32, 33, len(wal) - 1, len(wal)}
    offsets |= {32 + k * frame for k in range(len(wal) // frame + 1)}  # every frame boundary
    offsets |= {32 + k * frame + d for k in rng.sample(range(len(wal) // frame), 10) for d in (-1, 1, 24)}
    offsets |= {rng.randrange(len(wal)) for _ in range(30)}
    seen = {"whole": 0, "reported": 0}
    for offset in sorted(o for o in offsets if 0 <= o <= len(wal)):
        got = _open_copy({FILENAME: main, f"{FILENAME}-wal": wal[:offset], **note}, tmp_path / "copy")
        if got is None:
            seen["reported"] += 1
            continue
        assert len(got) >= len(acknowledged) and got == everything[: len(got)], f"WAL cut at {offset}: silent loss"
        seen["whole"] += 1
    assert seen["whole"] > 0 and seen["reported"] > 0
    for offset in sorted(rng.sample(range(len(main)), 15)):  # the main file cut as well: whole or reported
        got = _open_copy({FILENAME: main[:offset], f"{FILENAME}-wal": wal, **note}, tmp_path / "copy")
        assert got is None or (got == everything[: len(got)] and len(got) >= len(acknowledged)), offset


# -- a real crash: SIGKILL at random points ----------------------------------------------------------

CHILD = textwrap.dedent(
    """
    import os, random, sys
    sys.path.insert(0, sys.argv[1])
    from bornes.firmware.storage.journal import Journal

    def say(text):
        # one write(2) below PIPE_BUF: the parent sees the whole line or none of it, never a torn one
        os.write(1, (text + "\\n").encode())

    rng = random.Random(int(sys.argv[3]))
    journal = Journal.open(sys.argv[2])
    current = journal.current_game()
    game = current.game_id if current else journal.new_game("[Edition winning-moves]")
    count = len(current.lines) if current else 0
    say(f"ready {count}")
    while True:
        if count and rng.random() < 0.15:
            keep = count - rng.randint(1, min(3, count))
            say(f"will truncate {keep}")
            journal.truncate(game, keep)
            count = keep
        else:
            line = f"A play MB-D100-{rng.randrange(10**6):06d}"
            say(f"will append {count} {line}")
            journal.append(game, count, line)
            count += 1
        say("ok")
        if rng.random() < 0.3:
            journal.upkeep(force=True)  # the referee's, after the chirp: a kill may land in it too
    """
)


def _apply(model: list[str], op: list[str]) -> list[str]:
    if op[0] == "truncate":
        return model[: int(op[1])]
    assert int(op[1]) == len(model)
    return [*model, " ".join(op[2:])]


@pytest.mark.slow  # 25 processes killed: the fast tier's SIGKILLs are tests/faults/test_crash.py's 8 of the daemon
def test_sigkill_at_random_points_loses_no_acknowledged_action(tmp_path: Path) -> None:
    state = tmp_path / "state"
    rng = random.Random(7)
    model: list[str] = []
    grew = 0
    for run in range(25):
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(REPO), str(state), str(run)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert child.stdout is not None
        first = child.stdout.readline().split()
        assert first[0] == "ready" and int(first[1]) == len(model)
        time.sleep(rng.uniform(0.0, 0.06))
        os.kill(child.pid, signal.SIGKILL)
        output = child.stdout.read()
        rest = output.split("\n")[:-1]  # only whole lines: the last piece never had its newline
        child.wait()
        assert child.returncode == -signal.SIGKILL
        pending: list[str] | None = None
        before = len(model)
        for text in rest:
            words = text.split()
            if words[0] == "will":
                pending = words[1:]
            elif words[0] == "ok" and pending is not None:
                model = _apply(model, pending)
                pending = None
        with Journal.open(state, readonly=True) as journal:
            current = journal.current_game()
            stored = current.lines if current else []
        allowed = [model] + ([_apply(model, pending)] if pending else [])
        assert stored in allowed, f"run {run}: journal has {len(stored)} actions, acknowledged {len(model)}"
        model = stored  # an action made durable but killed before its ack is now part of the game
        grew += len(model) > before
    assert len(model) > 20 and grew > 10, "the kills landed after real work"
