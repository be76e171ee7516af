"""Power cut in the middle of a write: the journal cut at seeded random byte offsets, then ``bornes run``.

A cut main file must be reported as damaged (the daemon says so, shows it and waits for a person)
and left byte for byte as it was, or, if the cut spared every page in use, resume the whole game:
never a shorter game passed off as the real one. Every acknowledged action is checkpointed into the
main file before its chirp (issue 19), so a cut write-ahead log is what a power cut during the
commit of the card being tapped leaves: the daemon resumes every acknowledged action, with or
without that one.
"""

from __future__ import annotations

import hashlib
import random
import re
import shutil
import subprocess
from pathlib import Path

from bench.driver import Daemon, Pty, Script, script_games, write_config
from bornes.engine.actions import parse_action
from bornes.engine.game import Game
from bornes.firmware.storage.journal import FILENAME, Journal
from bornes.firmware.storage.store import JournalStore
from bornes.firmware.table.flow import TableFlow

_RESUMED = re.compile(r"resumed game in progress: hand \d+, (\d+) actions")


def _write_game(
    state: Path, script: Script, upto: int, *, then: int = 0, in_flight: int = 0
) -> tuple[bytes, bytes]:
    """A journal holding the first ``upto`` actions written and closed, then ``then`` more acknowledged
    by a writer still open, then ``in_flight`` committed but not yet acknowledged (not checkpointed).

    Returns the main file and WAL bytes as a power cut would find them (the writer still open).
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
            journal._settle = lambda: None  # type: ignore[method-assign]  # the power fails after COMMIT
        action = parse_action(line)
        store.append(game, action)
        game.push(action)
    main = (state / FILENAME).read_bytes()
    wal_path = state / f"{FILENAME}-wal"
    wal = wal_path.read_bytes() if wal_path.exists() else b""
    journal.close()
    return main, wal


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


def test_cut_main_file_is_reported_and_left_untouched_or_whole(tmp_path: Path) -> None:
    script = script_games(players=2, seed=9, games=1)
    count = script.ends[0] - 1
    main, wal = _write_game(tmp_path / "live", script, count)
    assert not wal, "closing checkpointed everything"
    rng = random.Random(230)
    offsets = sorted({0, 1, 99, 100, 4096, len(main) - 1} | {rng.randrange(len(main)) for _ in range(24)})
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


def test_cut_wal_resumes_every_acknowledged_action(tmp_path: Path) -> None:
    script = script_games(players=2, seed=9, games=1)
    acknowledged = 80 + 150
    main, wal = _write_game(tmp_path / "acked", script, 80, then=150)
    assert wal == b"", "every acknowledged action is in the main file: the WAL is empty"
    main, wal = _write_game(tmp_path / "live", script, 80, then=150, in_flight=1)
    assert len(wal) > 4096  # the commit of the card being tapped
    rng = random.Random(231)
    frame = 4096 + 24
    offsets = sorted({0, 32, len(wal)} | {32 + frame * k for k in range(len(wal) // frame + 1)}
                     | {rng.randrange(len(wal)) for _ in range(6)})
    counts = []
    lines = script.notations()
    for offset in offsets:
        outcome, actions, _digests = _boot(tmp_path / "run", {FILENAME: main, f"{FILENAME}-wal": wal[:offset]})
        assert outcome == "resumed", f"a WAL cut at {offset} is an ordinary power cut: {outcome}"
        assert actions in (acknowledged, acknowledged + 1), f"WAL cut at {offset}: {actions} of {acknowledged}"
        with Journal.open(tmp_path / "run" / "state", readonly=True) as journal:
            current = journal.current_game()
        assert current is not None and current.lines == lines[:actions], f"WAL cut at {offset}: not the game"
        assert Game(script.setup, [parse_action(line) for line in current.lines]).log
        counts.append(actions)
    print(f"\npower cut, WAL: {len(offsets)} cuts of {len(wal)} bytes resumed {sorted(set(counts))} actions")
    assert set(counts) == {acknowledged, acknowledged + 1}
