"""One flipped bit anywhere in the state directory never loses an acknowledged card silently (issues 19, 34).

SQLite stops replaying a WAL at the first frame whose checksum fails; a referee killed with 50
acknowledged cards in the WAL came back with 0-49 of them and every reader said all was well.
Round three keeps acknowledged cards in the WAL until the chirp has sounded, so the journal walks
the WAL itself before SQLite opens it (firmware/storage/wal.py) and the pending note counts what
the WAL's final frame must hold (firmware/storage/note.py).

The sweeps flip bits of every frame; under CI=true every bit of the headers and one bit of every
third byte, locally one bit of every few bytes. Flips inside the WAL's final frame are counted apart.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterable
from pathlib import Path

import pytest

from bornes.firmware.storage.journal import FILENAME, PENDING, Journal, JournalCorrupt
from bornes.firmware.storage.note import read_note
from tests.faults.unsaved import (
    CI,
    HEADER,
    current_lines,
    flips,
    in_memory,
    judge_against,
    killed,
    last_frame,
    line,
    sweep,
)

WAL, SHM = f"{FILENAME}-wal", f"{FILENAME}-shm"
FRAME_HEADER, WAL_HEADER = 24, 32


def test_after_the_upkeep_every_acknowledged_card_is_in_the_main_file(tmp_path: Path) -> None:
    """The referee's upkeep after each chirp copies the WAL into the main file: the main file alone
    then holds every card, and the WAL holds one primer frame."""
    journal = Journal.open(tmp_path)
    game = journal.new_game(HEADER)
    for seq in range(50):
        journal.append(game, seq, line(seq))
        assert journal.upkeep(force=True)
        assert (tmp_path / WAL).stat().st_size == WAL_HEADER + FRAME_HEADER + 4096  # the primer
    main = (tmp_path / FILENAME).read_bytes()  # what a SIGKILL leaves: the files as they are now
    journal.close()
    (tmp_path / "copy").mkdir()
    (tmp_path / "copy" / FILENAME).write_bytes(main)  # the main file alone, no WAL at all
    assert current_lines(tmp_path / "copy") == [line(seq) for seq in range(50)]


def test_at_the_chirp_the_wal_and_the_note_hold_the_card(tmp_path: Path) -> None:
    journal = Journal.open(tmp_path)
    game = journal.new_game(HEADER)
    for seq in range(5):
        journal.append(game, seq, line(seq))
        note = read_note(tmp_path)
        assert note.whole and note.acknowledged is not None
        assert (note.acknowledged.game, note.acknowledged.actions) == (game, seq + 1)
    files = {name: (tmp_path / name).read_bytes() for name in (FILENAME, WAL, PENDING)}
    journal.close()
    for name, data in files.items():
        (tmp_path / "copy").mkdir(exist_ok=True)
        (tmp_path / "copy" / name).write_bytes(data)
    assert current_lines(tmp_path / "copy") == [line(seq) for seq in range(5)]


#: The sweeps below run in the whole suite; the fast tier keeps one of them at a sample of its density.
SWEEP_OR_SAMPLE = [pytest.param(True, marks=pytest.mark.slow, id="sweep"), pytest.param(False, id="sample")]


@pytest.mark.usefixtures("files_nobody_writes")
@pytest.mark.parametrize("whole", SWEEP_OR_SAMPLE)
def test_wal_flips_over_every_frame_lose_no_acknowledged_card_silently(tmp_path: Path, whole: bool) -> None:
    with in_memory(tmp_path) as scratch:
        snapshot = killed(scratch / "live", saved=20, deferred=6, in_flight=1)
        wal = snapshot.files[WAL]
        page = 512
        frames = (len(wal) - WAL_HEADER) // (FRAME_HEADER + page)
        note = read_note(scratch / "live")
        assert frames >= 12 and note.acknowledged is not None and note.acknowledged.actions == 26
        heads = [WAL_HEADER + k * (FRAME_HEADER + page) + d for k in range(frames) for d in range(FRAME_HEADER)]
        # CI: every bit of every header, one bit of every third page byte (tests/appliance/test_wal_walker.py
        # flips every header bit of SQLite's own WALs without opening them, in a tenth of the time)
        targets: Iterable[tuple[int, int]]
        if whole:
            targets = flips(len(wal), random.Random(19), 3 if CI else 13, [*range(WAL_HEADER), *heads] if CI else ())
        else:  # the fast tier: one bit of every 127th byte, and of every 4th byte of the headers
            rng = random.Random(19)
            targets = sorted({*flips(len(wal), rng, 127), *((b, rng.randrange(8)) for b in [*range(WAL_HEADER),
                                                                                          *heads][::4])})
        result = sweep(snapshot, WAL, scratch / "flip", targets, judge_against(snapshot), last_frame(wal, page))
    print(result.line(f"WAL, {frames} frames"))
    assert result.silent == [] and result.last is not None and result.last.silent == []
    assert result.reported > 0 and result.last.identical > 0  # the final frame commits the card in flight


@pytest.mark.usefixtures("files_nobody_writes")
@pytest.mark.slow
def test_wal_flips_when_the_last_card_is_acknowledged_are_all_reported(tmp_path: Path) -> None:
    """No card in flight: the final frame commits the last acknowledged card. A flip there looks like a
    power cut to the WAL walker; the note says the card was acknowledged, so it is reported."""
    with in_memory(tmp_path) as scratch:
        snapshot = killed(scratch / "live", saved=10, deferred=4, in_flight=0)
        wal = snapshot.files[WAL]
        final = last_frame(wal, 512)
        # every bit of the final frame under CI (the first sweep covers the rest of a WAL byte by byte)
        targets = flips(len(wal), random.Random(23), 3 if CI else 7, final if CI else range(final.start, final.stop, 3))
        result = sweep(snapshot, WAL, scratch / "flip", targets, judge_against(snapshot), final)
    print(result.line("WAL, last card acknowledged"))
    assert result.silent == [] and result.last is not None and result.last.silent == []
    assert result.last.reported > 0  # the note caught the final frame's flips


@pytest.mark.usefixtures("files_nobody_writes")
@pytest.mark.slow
def test_main_file_flips_with_unsaved_frames_lose_no_acknowledged_card_silently(tmp_path: Path) -> None:
    with in_memory(tmp_path) as scratch:
        snapshot = killed(scratch / "live", saved=20, deferred=6, in_flight=1)
        main = snapshot.files[FILENAME]
        result = sweep(snapshot, FILENAME, scratch / "flip", flips(len(main), random.Random(20), 1 if CI else 5,
                                                                   range(100) if CI else ()), judge_against(snapshot))
    print(result.line("main file beside an unsaved WAL"))
    assert result.silent == []
    assert result.reported > 0


@pytest.mark.usefixtures("files_nobody_writes")
@pytest.mark.slow
def test_shm_and_pending_note_flips_lose_nothing_and_stop_nothing(tmp_path: Path) -> None:
    """The -shm index is rebuilt from the WAL by the first opener. The note holds two copies with their
    own CRCs, and a damaged one beside a WAL whose chain proves the count is a warning (issue 34,
    item 3): no flip of the note stops the table."""
    with in_memory(tmp_path) as scratch:
        snapshot = killed(scratch / "live", saved=5, deferred=3, in_flight=1)
        judge = judge_against(snapshot)
        shm, note = snapshot.files[SHM], snapshot.files[PENDING]
        shm_result = sweep(snapshot, SHM, scratch / "flip", flips(len(shm), random.Random(21), 16 if CI else 97,
                                                                  range(136) if CI else ()), judge)
        text = [k for k, byte in enumerate(note) if byte != 0x20]  # every bit of what the copies say
        note_result = sweep(snapshot, PENDING, scratch / "flip", flips(len(note), random.Random(22), 1, text), judge)
    print(shm_result.line("-shm"), ";", note_result.line(PENDING))
    assert shm_result.silent == [] and note_result.silent == []
    assert note_result.reported == 0 and note_result.identical > 8 * 100


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
    said = "WAL frame 3 of"
    assert main(["history", "--config", str(config)]) == 65
    assert said in capsys.readouterr().err
    assert main(["export", "2", "--config", str(config)]) == 65
    out = capsys.readouterr()
    assert out.out == "" and said in out.err
    assert main(["doctor", "--config", str(config)]) == 1
    assert "FAIL journal: journal" in capsys.readouterr().out
    with pytest.raises(JournalCorrupt, match=said):
        Journal.open(state)  # what run's resume opens: it offers "hold OK to set it aside"
    from bornes.firmware.storage.live import open_readonly

    with pytest.raises(JournalCorrupt):
        open_readonly(state)  # the web pages and the MQTT bridge
    before = {p.name: p.read_bytes() for p in state.iterdir()}
    moved = Journal.quarantine(state)
    assert moved is not None
    after = {p.name.replace(moved.name, FILENAME): p.read_bytes() for p in state.iterdir()}
    assert after == before  # set aside whole: the note, the WAL, the -shm index and the main file, none deleted
    assert not (state / PENDING).exists()


def test_a_flip_in_the_last_frame_is_caught_by_the_note(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from bornes.firmware.cli import main

    snapshot = killed(tmp_path / "live", saved=20, deferred=6, in_flight=0)
    wal = bytearray(snapshot.files[WAL])
    wal[last_frame(bytes(wal), 512).start + FRAME_HEADER + 7] ^= 0x01
    state = tmp_path / "state"
    snapshot.write(state, {WAL: bytes(wal)})
    config = tmp_path / "config.toml"
    config.write_text(f'[state]\ndir = "{state}"\n')
    assert main(["history", "--config", str(config)]) == 65
    assert "holds 25 actions but 26 were acknowledged (the WAL lost some)" in capsys.readouterr().err


def test_a_slow_reader_holds_the_checkpoint_and_the_note_counts_what_the_wal_holds(tmp_path: Path) -> None:
    journal = Journal.open(tmp_path)
    game = journal.new_game(HEADER)
    journal.append(game, 0, line(0))
    assert journal.upkeep(force=True)
    reader = sqlite3.connect(f"{(tmp_path / FILENAME).as_uri()}?mode=ro", uri=True, isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM actions").fetchone()  # doctor's integrity_check, say
    for seq in (1, 2):
        journal.append(game, seq, line(seq))
        assert not journal.upkeep(force=True)  # the checkpoint waits for the reader; the card is acknowledged anyway
        note = read_note(tmp_path).acknowledged
        assert note is not None and (note.game, note.actions) == (game, seq + 1)
    journal.truncate(game, 2)  # an undo while the checkpoint waits: the note follows it down
    note = read_note(tmp_path).acknowledged
    assert note is not None and note.actions == 2 and note.undo_from is None
    reader.close()
    journal.append(game, 2, line(2))
    assert journal.upkeep(force=True)
    journal.close()
    assert current_lines(tmp_path) == [line(seq) for seq in range(3)]


@pytest.mark.slow
def test_the_real_referee_killed_after_50_cards_keeps_them_all(tmp_path: Path) -> None:
    """The issue's case with the daemon itself: 50 acknowledged cards, SIGKILL at once; then the same
    daemon left idle a moment has copied them into the main file."""
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
        at_chirp = {name: (state / name).read_bytes() for name in (FILENAME, WAL, PENDING)}
    finally:
        daemon.kill()
        pty.close()
    (tmp_path / "at-chirp").mkdir()
    for name, data in at_chirp.items():
        (tmp_path / "at-chirp" / name).write_bytes(data)
    assert current_lines(tmp_path / "at-chirp") == script.notations()[:50]


def _round_two_note(game: int, actions: int, digest: int) -> bytes:
    """The note round two wrote while a reader held the checkpoint (one line, its own CRC)."""
    import zlib

    crc = zlib.crc32(f"pending|{game}|{actions}|{digest}".encode())
    return f"bornes-pending {game} {actions} {digest} {crc}\n".encode()


@pytest.mark.slow
def test_every_flip_of_a_round_two_note_beside_a_whole_wal_is_a_warning_not_a_stopped_table(tmp_path: Path) -> None:
    """Issue 34, item 3: round two stopped the table for 84 of 84 flips of its note although the WAL
    still proved every acknowledged card. Now: no flip stops it, doctor warns, run writes a new note."""
    from bornes.firmware.storage.wal import walk

    with in_memory(tmp_path) as scratch:
        snapshot = killed(scratch / "live", saved=20, deferred=6, in_flight=0)
        assert walk(snapshot.files[WAL]).whole
        acknowledged = read_note(scratch / "live").acknowledged
        assert acknowledged is not None
        old = _round_two_note(acknowledged.game, acknowledged.actions, acknowledged.digest)
        snapshot.write(scratch / "sound", {PENDING: old})
        assert current_lines(scratch / "sound") == snapshot.acknowledged  # round two's note still reads
        result = sweep(snapshot, PENDING, scratch / "flip", ((byte, bit) for byte in range(len(old) - 1)
                                                             for bit in range(8)), judge_against(snapshot))
    print(result.line(f"round two's {PENDING}, every bit"))
    assert result.silent == [] and result.reported == 0


def test_a_damaged_note_is_a_doctor_warning_and_the_referee_writes_a_new_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bornes.firmware.cli import main

    snapshot = killed(tmp_path / "live", saved=20, deferred=6, in_flight=0)
    note = bytearray(snapshot.files[PENDING])
    note[20] ^= 0x02  # the first copy
    note[512 + 20] ^= 0x02  # and the second: no sound copy is left
    state = tmp_path / "state"
    snapshot.write(state, {PENDING: bytes(note)})
    config = tmp_path / "config.toml"
    config.write_text(f'[state]\ndir = "{state}"\n')
    assert main(["history", "--config", str(config)]) == 0
    capsys.readouterr()
    main(["doctor", "--config", str(config)])  # (this machine has no reader: that FAIL is not the journal's)
    said = capsys.readouterr().out.splitlines()
    assert not [line for line in said if line.startswith("FAIL journal")]
    [warning] = [line for line in said if line.startswith("WARN journal")]
    assert "2 of its 2 copies fail their checksum, but the WAL proves it lost nothing" in warning
    with Journal.open(state) as journal:  # what run opens: it warns in its log and makes the note whole
        assert journal.current_game() is not None
    fresh = read_note(state)
    assert fresh.whole and fresh.acknowledged is not None and fresh.acknowledged.actions == 26
