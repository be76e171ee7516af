"""The upgrade path (issue 34, item 2): the state an older referee leaves, read by today's code.

44cd1eb committed to the WAL and left the copy into the main file to SQLite's automatic checkpoint,
and wrote no pending note. Its own daemon (``git archive`` of that commit, run from a temporary
folder with this venv) is killed after 50 acknowledged cards: the WAL then holds about 102 frames
and every one of those cards. A Pi that loses power mid-game and is upgraded before the next game
is exactly this state. Today's code must read it whole, and with one bit flipped anywhere in the
WAL it must say so (exit 65, every file kept) rather than resume a shorter game, except in the
final frame, where a flip looks like a power cut and 44cd1eb left no note to tell them apart:
those are counted apart.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bench.driver import Daemon, Pty, script_games, tree_command, write_config
from bornes.firmware.storage.journal import FILENAME, Journal, JournalError
from bornes.firmware.storage.wal import FRAME_HEADER_SIZE, HEADER_SIZE, walk
from tests.faults.unsaved import CI, Snapshot, Sweep, in_memory

OLD = "44cd1eb"  # before checkpoint-every-write (issue 19): the WAL held the acknowledged cards
WAL = f"{FILENAME}-wal"
CARDS = 50


@dataclass(frozen=True)
class Upgrade:
    snapshot: Snapshot
    frames: int
    page_size: int


@pytest.fixture(scope="module")
def upgrade(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Upgrade]:
    """44cd1eb's referee killed after 50 acknowledged cards: its files, exactly as the kill left them."""
    from bench.baseline import BaselineError, materialise

    where = tmp_path_factory.mktemp("upgrade")
    try:
        tree = Path(materialise(OLD, where / "tree").root)
    except BaselineError as error:  # a shallow clone: the test needs the project's history
        pytest.fail(f"{error}: the upgrade test runs {OLD}'s own referee (git fetch --unshallow)")
    script = script_games(players=2, seed=3, games=1)
    state = where / "state"
    pty = Pty(where / "reader")
    config = write_config(where, pty.link, players=2, state=state)
    daemon = Daemon(config, command=tree_command(tree), cwd=where)  # 44cd1eb's own referee
    try:
        daemon.wait_up()
        if not any("reader back" in text for text in daemon.log):
            daemon.wait_for(lambda text: "reader back" in text)
        for step in script.steps[:CARDS]:
            for payload in step.taps:
                pty.tap(payload)
            assert daemon.wait_accepted() == step.notation
        files = {p.name: p.read_bytes() for p in state.iterdir()
                 if p.name.startswith(FILENAME) and p.is_file()}
    finally:
        daemon.kill()
        pty.close()
    walked = walk(files[WAL])
    assert walked.whole and walked.frames > 90, walked.describe()  # about 102 frames, every card in them
    yield Upgrade(Snapshot(files, script.notations()[:CARDS], []), walked.frames, walked.page_size)


def judge(where: Path, acknowledged: list[str]) -> str:
    """Today's reader on the state: identical (all 50 cards), reported (one line), or a silent loss."""
    try:
        with Journal.open(where, readonly=True) as journal:
            current = journal.current_game()
            journal.history()
    except JournalError as error:
        return "reported" if "\n" not in str(error) else f"a message of several lines: {error!r}"
    got = [] if current is None else current.lines
    return "identical" if got == acknowledged else f"{len(got)} of {len(acknowledged)} cards, silently"


def test_todays_referee_resumes_the_old_state_whole(upgrade: Upgrade, tmp_path: Path) -> None:
    upgrade.snapshot.write(tmp_path / "state")
    assert judge(tmp_path / "state", upgrade.snapshot.acknowledged) == "identical"
    with Journal.open(tmp_path / "state") as journal:  # the upgraded referee: its upkeep copies the WAL in
        current = journal.current_game()
    assert current is not None and current.lines == upgrade.snapshot.acknowledged
    (tmp_path / "main-only").mkdir()
    (tmp_path / "main-only" / FILENAME).write_bytes((tmp_path / "state" / FILENAME).read_bytes())
    assert judge(tmp_path / "main-only", upgrade.snapshot.acknowledged) == "identical"


@pytest.mark.parametrize("every", [pytest.param(1, marks=pytest.mark.slow, id="every frame"),
                                   pytest.param(27, id="every 27th frame")])
@pytest.mark.usefixtures("files_nobody_writes")
def test_one_bit_flipped_at_every_frame_is_never_silent_outside_the_last_frame(
    upgrade: Upgrade, tmp_path: Path, every: int
) -> None:
    """One bit in each frame's header and one in its page (seeded); every bit of the WAL header under
    CI=true, one per byte locally; every bit of the final two frame headers (the fast tier: the stored
    checksum of the one before the last). The fast tier flips every 9th frame and always the last two."""
    wal = upgrade.snapshot.files[WAL]
    frame = FRAME_HEADER_SIZE + upgrade.page_size
    rng = random.Random(34)
    last = range(HEADER_SIZE + (upgrade.frames - 1) * frame, HEADER_SIZE + upgrade.frames * frame)
    targets = [(byte, bit) for byte in range(HEADER_SIZE) for bit in (range(8) if CI else [rng.randrange(8)])]
    for k in sorted({*range(0, upgrade.frames, every), upgrade.frames - 2, upgrade.frames - 1}):
        start = HEADER_SIZE + k * frame
        targets.append((start + rng.randrange(FRAME_HEADER_SIZE), rng.randrange(8)))
        targets.append((start + FRAME_HEADER_SIZE + rng.randrange(upgrade.page_size), rng.randrange(8)))
    before_last = HEADER_SIZE + (upgrade.frames - 2) * frame
    closing = range(before_last, before_last + 2 * frame) if every == 1 else range(before_last + 16, before_last + 24)
    targets += [(byte, bit) for byte in closing if (byte - HEADER_SIZE) % frame < FRAME_HEADER_SIZE for bit in range(8)]
    result = Sweep(last=Sweep())
    assert result.last is not None
    with in_memory(tmp_path) as scratch:
        for byte, bit in targets:
            changed = bytearray(wal)
            changed[byte] ^= 1 << bit
            upgrade.snapshot.write(scratch / "flip", {WAL: bytes(changed)})
            verdict = judge(scratch / "flip", upgrade.snapshot.acknowledged)
            (result.last if byte in last else result).add(verdict, f"WAL byte {byte} bit {bit}")
    print(f"\n{result.line(f'{OLD} killed after {CARDS} cards, {upgrade.frames} WAL frames, {len(targets)} flips')}")
    assert result.silent == [], result.silent[:5]
    assert result.reported == len(targets) - (result.last.identical + result.last.reported + len(result.last.silent))


def test_a_flipped_old_wal_is_reported_by_every_reader_and_kept_whole_by_run(
    upgrade: Upgrade, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One bit in the WAL header's checksum: before round three history said "no games yet" with exit 0
    and run deleted the 420 KB WAL that held all 50 cards."""
    from bornes.firmware.cli import main
    from tests.faults.test_start_failures import config_for, run

    wal = bytearray(upgrade.snapshot.files[WAL])
    wal[HEADER_SIZE - 1] ^= 0x04  # the header's checksum
    state = tmp_path / "state"
    upgrade.snapshot.write(state, {WAL: bytes(wal)})
    config = config_for(tmp_path, state)
    before = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in state.iterdir()}
    for command in (["history"], ["export", "1"]):
        assert main([*command, "--config", str(config)]) == 65
        err = capsys.readouterr().err
        assert "its WAL header fails its checksum while" in err and len(err.splitlines()) == 1
    assert main(["doctor", "--config", str(config)]) == 1
    assert "FAIL journal" in capsys.readouterr().out
    done = run(config)  # the referee: the panel asks a person; end of input stops it, nothing moved
    assert "is damaged (its WAL header fails its checksum" in done.stdout + done.stderr
    after = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in state.iterdir() if p.name in before}
    assert after == before and (state / WAL).exists()
