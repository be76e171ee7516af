"""Power cut in the middle of a write: the journal cut at seeded random byte offsets, then ``bornes run``.

A cut main file must be reported as damaged (the daemon says so, shows it and waits for a person)
and left byte for byte as it was, or, if the cut spared every page in use, resume the whole game:
never a shorter game passed off as the real one. A power cut tears only the write under way: the
commit of the card being tapped, whose frames follow everything already synced in the WAL (cards
the referee copied into the main file after their chirp, or acknowledged cards still only in the
WAL with the pending note counting them). The daemon resumes every acknowledged action, with or
without the one in flight.
"""

from __future__ import annotations

import hashlib
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from bench.driver import Daemon, Pty, Script, script_games, write_config
from bornes.engine.actions import parse_action
from bornes.engine.game import Game
from bornes.firmware.storage.journal import FILENAME, PENDING, Journal
from bornes.firmware.storage.store import JournalStore
from bornes.firmware.table.flow import TableFlow
from tests.tiers import tiered

WAL = f"{FILENAME}-wal"
_RESUMED = re.compile(r"resumed game in progress: hand \d+, (\d+) actions")


def _write_game(
    state: Path, script: Script, upto: int, *, then: int = 0, in_flight: int = 0, upkeep: bool = True
) -> dict[str, bytes]:
    """A journal holding the first ``upto`` actions written and closed, then ``then`` more acknowledged by a
    writer still open (each followed by the referee's upkeep, or none of them: still only in the WAL),
    then ``in_flight`` committed but not yet acknowledged (the power fails before the note is written).

    Returns the files as a power cut would find them (the writer still open).
    """
    lines = script.notations()
    setup = script.setup
    with Journal.open(state) as journal:
        flow = TableFlow(players=setup.seats, names=setup.names, store=JournalStore(journal))
        flow.start_game(setup)
        game = flow.game
        assert game is not None
        for line in lines[:upto]:
            action = parse_action(line)
            flow.store.append(game, action)
            game.push(action)
    journal = Journal.open(state)
    store = JournalStore(journal)
    game = store.resume()
    assert game is not None
    for number, line in enumerate(lines[upto : upto + then + in_flight]):
        if number == then:
            journal._record_note = lambda *args, **kwargs: None  # type: ignore[method-assign]  # power fails
        action = parse_action(line)
        store.append(game, action)
        game.push(action)
        if upkeep and number < then:
            journal.upkeep(force=True)
    files = {name: (state / name).read_bytes() for name in (FILENAME, WAL, PENDING) if (state / name).exists()}
    journal.close()
    return files


def _boot(where: Path, files: dict[str, bytes]) -> tuple[str, int | None, dict[str, str]]:
    """Start the daemon on a state dir holding ``files``; ("damaged" | "resumed" | "fresh", actions, digests)."""
    shutil.rmtree(where, ignore_errors=True)
    state = where / "state"
    state.mkdir(parents=True)
    for name, data in files.items():
        (state / name).write_bytes(data)
    pty = Pty(where / "reader")
    daemon = Daemon(write_config(where, pty.link, players=2, state=state))
    try:
        line = daemon.wait_for(lambda text: "is damaged" in text or text.endswith("referee up"))
        if "is damaged" in line:
            assert "\n" not in line and "Traceback" not in line
            outcome, actions = "damaged", None
        else:
            found = [m for m in map(_RESUMED.search, daemon.log) if m]
            outcome, actions = ("resumed", int(found[-1].group(1))) if found else ("fresh", None)
    finally:
        try:
            code = daemon.stop()
        except subprocess.TimeoutExpired:
            daemon.kill()
            code = -1
        pty.close()
    assert code == 0, f"exit status {code}: {daemon.log[-5:]}"  # SIGTERM at any moment is a clean stop
    digests = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in state.iterdir() if p.is_file()}
    return outcome, actions, digests


@pytest.mark.slow  # a daemon per cut; the fast tier's power-cut check is the WAL's edges below
@pytest.mark.parametrize("sweep", [True, False], ids=["sweep", "edges"])
def test_cut_main_file_is_reported_and_left_untouched_or_whole(tmp_path: Path, sweep: bool) -> None:
    """The sweep: the edges and 24 seeded offsets (slow: a daemon per cut); the fast tier cuts at the edges."""
    script = script_games(players=2, seed=9, games=1)
    count = script.ends[0] - 1
    main = _write_game(tmp_path / "live", script, count)[FILENAME]
    rng = random.Random(230)
    seeded = {rng.randrange(len(main)) for _ in range(24 if sweep else 0)}
    offsets = sorted({0, 1, 99, 100, 4096, len(main) - 1} | seeded)
    seen = {"damaged": 0, "resumed": 0, "fresh": 0}
    for offset in offsets:
        cut = main[:offset]
        outcome, actions, digests = _boot(tmp_path / "run", {FILENAME: cut})
        seen[outcome] += 1
        assert outcome != "fresh", f"cut at {offset}: the damaged journal was replaced by a new one"
        if outcome == "damaged":
            assert digests[FILENAME] == hashlib.sha256(cut).hexdigest(), f"cut at {offset}: the file was changed"
            assert not [name for name in digests if name.startswith(f"{FILENAME}.corrupt")], "moved without asking"
        else:
            assert actions == count, f"cut at {offset}: resumed {actions} of {count} actions, silently"
    print(f"\npower cut, main file: {len(offsets)} cuts of {len(main)} bytes: {seen}")
    assert seen["damaged"] > len(offsets) // 2


@pytest.mark.parametrize(("sweep", "upkeep"), tiered([(True, True), (True, False), (False, True), (False, False)],
                                                   {"in the WAL-edges"},
                                                   ids=["upkept-sweep", "in the WAL-sweep", "upkept-edges",
                                                        "in the WAL-edges"]))
def test_cut_wal_resumes_every_acknowledged_action(tmp_path: Path, sweep: bool, upkeep: bool) -> None:
    """The WAL cut inside the commit under way: every frame boundary of it and 6 seeded offsets (the fast
    tier: none of it, one frame, all of it). ``upkeep``: the 150 acknowledged cards were copied into
    the main file after their chirps; else they are still only in the WAL, before the card in flight."""
    script = script_games(players=2, seed=9, games=1)
    acknowledged = 80 + 150
    files = _write_game(tmp_path / "live", script, 80, then=150, in_flight=1, upkeep=upkeep)
    wal = files[WAL]
    before = _write_game(tmp_path / "acked", script, 80, then=150, upkeep=upkeep)[WAL]
    assert len(wal) > len(before) + 4096  # the commit of the card being tapped (salts differ: only sizes compare)
    if upkeep:
        assert len(before) == 32 + 24 + 4096, "every acknowledged card was copied into the main file"
    rng = random.Random(231)
    frame = 4096 + 24
    start = len(before)
    boundaries = {start + frame * k for k in range((len(wal) - start) // frame + 1)}
    seeded = {rng.randrange(start, len(wal)) for _ in range(6)}
    offsets = sorted({start, len(wal)} | boundaries | seeded) if sweep else [start, start + frame, len(wal)]
    counts = []
    lines = script.notations()
    for offset in offsets:
        outcome, actions, _digests = _boot(tmp_path / "run", {**files, WAL: wal[:offset]})
        assert outcome == "resumed", f"a WAL cut at {offset} is an ordinary power cut: {outcome}"
        assert actions in (acknowledged, acknowledged + 1), f"WAL cut at {offset}: {actions} of {acknowledged}"
        with Journal.open(tmp_path / "run" / "state", readonly=True) as journal:
            current = journal.current_game()
        assert current is not None and current.lines == lines[:actions], f"WAL cut at {offset}: not the game"
        assert Game(script.setup, [parse_action(line) for line in current.lines]).log
        counts.append(actions)
    print(f"\npower cut, WAL ({'upkept' if upkeep else 'acknowledged cards in it'}): {len(offsets)} cuts of "
          f"{len(wal) - start} bytes of the commit under way resumed {sorted(set(counts))} actions")
    assert set(counts) == {acknowledged, acknowledged + 1}
