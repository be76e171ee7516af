"""One flipped bit anywhere in the state directory never loses an acknowledged card silently (issue 19, item 1).

SQLite stops replaying a WAL at the first frame whose checksum fails; a referee killed with 50
acknowledged cards in the WAL came back with 0-49 of them and every reader said all was well. Now
every commit is checkpointed into the main file before it is acknowledged (the WAL is empty after
a kill), and when a reader blocks that checkpoint the pending note says what the WAL must hold.

The sweeps flip bits of every frame; under CI=true every bit, locally one bit of every few bytes.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bornes.firmware.storage.journal import FILENAME, PENDING, Journal, JournalCorrupt
from tests.faults.unsaved import CI, HEADER, current_lines, flips, in_memory, judge_against, killed, line, sweep

WAL, SHM = f"{FILENAME}-wal", f"{FILENAME}-shm"
FRAME_HEADER, WAL_HEADER = 24, 32


def test_a_killed_referee_leaves_every_acknowledged_card_in_the_main_file(tmp_path: Path) -> None:
    """The issue's case: killed after 50 acknowledged cards, the WAL holds none of them."""
    journal = Journal.open(tmp_path)
    game = journal.new_game(HEADER)
    for seq in range(50):
        journal.append(game, seq, line(seq))
        assert (tmp_path / WAL).stat().st_size == 0  # checked before the chirp, every card
    main = (tmp_path / FILENAME).read_bytes()  # what a SIGKILL leaves: the files as they are now
    journal.close()
    (tmp_path / "copy").mkdir()
    (tmp_path / "copy" / FILENAME).write_bytes(main)  # the main file alone, no WAL at all
    assert current_lines(tmp_path / "copy") == [line(seq) for seq in range(50)]


def test_wal_flips_over_every_frame_lose_no_acknowledged_card_silently(tmp_path: Path) -> None:
    with in_memory(tmp_path) as scratch:
        snapshot = killed(scratch / "live", saved=20, deferred=6, in_flight=1)
        wal = snapshot.files[WAL]
        page = 512
        frames = (len(wal) - WAL_HEADER) // (FRAME_HEADER + page)
        assert frames >= 12 and snapshot.files[PENDING].startswith(b"bornes-pending 2 26 ")
        heads = [WAL_HEADER + k * (FRAME_HEADER + page) + d for k in range(frames) for d in range(FRAME_HEADER)]
        targets = flips(len(wal), random.Random(19), 1 if CI else 13, [*range(WAL_HEADER), *heads] if CI else ())
        result = sweep(snapshot, WAL, scratch / "flip", targets, judge_against(snapshot))
    print(result.line(f"WAL, {frames} frames"))
    assert result.silent == []
    assert result.reported > 0 and result.identical > 0


def test_main_file_flips_with_unsaved_frames_lose_no_acknowledged_card_silently(tmp_path: Path) -> None:
    with in_memory(tmp_path) as scratch:
        snapshot = killed(scratch / "live", saved=20, deferred=6, in_flight=1)
        main = snapshot.files[FILENAME]
        result = sweep(snapshot, FILENAME, scratch / "flip", flips(len(main), random.Random(20), 1 if CI else 5,
                                                                   range(100) if CI else ()), judge_against(snapshot))
    print(result.line("main file beside an unsaved WAL"))
    assert result.silent == []
    assert result.reported > 0


def test_shm_and_pending_note_flips_lose_nothing_silently(tmp_path: Path) -> None:
    """The -shm index is rebuilt from the WAL by the first opener; the note carries its own CRC."""
    with in_memory(tmp_path) as scratch:
        snapshot = killed(scratch / "live", saved=5, deferred=3, in_flight=1)
        judge = judge_against(snapshot)
        shm, note = snapshot.files[SHM], snapshot.files[PENDING]
        shm_result = sweep(snapshot, SHM, scratch / "flip", flips(len(shm), random.Random(21), 16 if CI else 97,
                                                                  range(136) if CI else ()), judge)
        every_bit = flips(len(note), random.Random(22), 1, range(len(note)))
        note_result = sweep(snapshot, PENDING, scratch / "flip", every_bit, judge)
    print(shm_result.line("-shm"), ";", note_result.line(PENDING))
    assert shm_result.silent == [] and note_result.silent == []
    assert note_result.reported > 0


def test_a_lost_wal_is_reported_by_every_reader_and_the_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """history, export, doctor and run's resume all say so; none shows the shorter game as fine."""
    from bornes.firmware.cli import main

    snapshot = killed(tmp_path / "live", saved=20, deferred=6, in_flight=0)
    wal = bytearray(snapshot.files[WAL])
    wal[WAL_HEADER + 2 * (FRAME_HEADER + 512) + 100] ^= 0x10  # the third frame: SQLite replays two
    state = tmp_path / "state"
    snapshot.write(state, {WAL: bytes(wal)})
    config = tmp_path / "config.toml"
    config.write_text(f'[state]\ndir = "{state}"\n')
    assert main(["history", "--config", str(config)]) == 65
    assert "actions but 26 were acknowledged (the WAL lost some)" in capsys.readouterr().err
    assert main(["export", "2", "--config", str(config)]) == 65
    out = capsys.readouterr()
    assert out.out == "" and "were acknowledged" in out.err
    assert main(["doctor", "--config", str(config)]) == 1
    assert "FAIL journal: journal" in capsys.readouterr().out
    with pytest.raises(JournalCorrupt, match="the WAL lost some"):
        Journal.open(state)  # what run's resume opens: it offers "hold OK to set it aside"
    from bornes.firmware.storage.live import open_readonly

    with pytest.raises(JournalCorrupt):
        open_readonly(state)  # the web pages and the MQTT bridge
    moved = Journal.quarantine(state)
    assert moved is not None and Path(f"{moved}-pending").exists()  # the note goes with the file it names
    assert not (state / PENDING).exists()


def test_a_slow_reader_defers_the_checkpoint_behind_a_note_that_goes_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sqlite3

    from bornes.firmware.storage import journal as journal_module

    monkeypatch.setattr(journal_module, "CHECKPOINT_WAIT_MS", 0)
    journal = Journal.open(tmp_path)
    game = journal.new_game(HEADER)
    journal.append(game, 0, line(0))
    assert not (tmp_path / PENDING).exists() and (tmp_path / WAL).stat().st_size == 0
    reader = sqlite3.connect(f"{(tmp_path / FILENAME).as_uri()}?mode=ro", uri=True, isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM actions").fetchone()  # doctor's integrity_check, say
    for seq in (1, 2):
        journal.append(game, seq, line(seq))
        assert (tmp_path / PENDING).read_text().startswith(f"bornes-pending {game} {seq + 1} ")
    journal.truncate(game, 2)  # an undo while deferred: the note follows it down
    assert (tmp_path / PENDING).read_text().startswith(f"bornes-pending {game} 2 ")
    reader.close()
    journal.append(game, 2, line(2))
    assert not (tmp_path / PENDING).exists() and (tmp_path / WAL).stat().st_size == 0
    journal.close()
    assert current_lines(tmp_path) == [line(seq) for seq in range(3)]


def test_the_real_referee_killed_after_50_cards_leaves_them_all_in_the_main_file(tmp_path: Path) -> None:
    """The issue's case with the daemon itself: 50 acknowledged cards, SIGKILL, and the WAL holds none."""
    from bench.driver import Daemon, Pty, script_games, write_config

    script = script_games(players=2, seed=3, games=1)
    state = tmp_path / "state"
    pty = Pty(tmp_path / "reader")
    daemon = Daemon(write_config(tmp_path, pty.link, players=2, state=state))
    try:
        daemon.wait_up()
        if not any("reader back" in text for text in daemon.log):
            daemon.wait_for(lambda text: "reader back" in text)
        for step in script.steps[:50]:
            for payload in step.taps:
                pty.tap(payload)
            assert daemon.wait_accepted() == step.notation
        wal = (state / WAL).read_bytes()  # the 50th chirp has sounded: nothing more to write
        main = (state / FILENAME).read_bytes()
    finally:
        daemon.kill()
        pty.close()
    assert wal == b""
    (tmp_path / "main-only").mkdir()
    (tmp_path / "main-only" / FILENAME).write_bytes(main)
    assert current_lines(tmp_path / "main-only") == script.notations()[:50]
