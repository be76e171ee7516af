"""Crash: SIGKILL the daemon at 100 seeded random points of full games; every restart resumes at
exactly the last acknowledged action.

Each cycle starts ``bornes run`` on a fresh pty (a killed daemon's unread taps must not leak into
the next one), taps a random number of scripted actions and reads each ``accepted`` line, then
taps part or all of one more action and kills the daemon a random few milliseconds later, often
in the middle of the durable write. Before the next start the journal is opened read-only: it
must hold every acknowledged action and at most the one in flight. The restarted daemon must
log the same count it resumed.
"""

from __future__ import annotations

import random
import re
import time
from pathlib import Path

import pytest

from bench.driver import Daemon, Pty, Script, script_games, write_config
from bornes.firmware.storage.journal import Journal, JournalError

KILLS = 100
SEED = 1962
_RESUMED = re.compile(r"resumed game in progress: hand \d+, (\d+) actions")


def _durable(state: Path, script: Script) -> tuple[int, list[str], int] | None:
    """(the stored game's first step, its actions, games abandoned), or None if the journal does not open."""
    try:
        with Journal.open(state, readonly=True) as journal:
            current = journal.current_game()
            history = journal.history()
    except JournalError:
        return None
    finished = sum(1 for info in history if info.status == "finished")
    abandoned = sum(1 for info in history if info.status == "abandoned")
    game_start = [0, *script.ends][finished]
    return game_start, current.lines if current else [], abandoned


def test_sigkill_at_100_random_points_loses_nothing(tmp_path: Path) -> None:
    script = script_games(players=2, seed=3, games=2)
    notations = script.notations()
    state = tmp_path / "state"
    rng = random.Random(SEED)
    acked = 0  # steps whose acknowledgement the table heard (or that the journal proved durable)
    lost = unopenable = resumed_wrong = in_flight_kept = 0
    started = time.monotonic()
    kills = 0
    while kills < KILLS and acked < len(script.steps):
        pty = Pty(tmp_path / "reader")
        config = write_config(tmp_path, pty.link, players=2, state=state)
        daemon = Daemon(config)
        try:
            daemon.wait_up()
            if not any("reader back" in line for line in daemon.log):
                # pyserial empties the input when it opens the port: a tap before that is lost
                daemon.wait_for(lambda line: "reader back" in line)
            resumed = [m for m in map(_RESUMED.search, daemon.log) if m]
            in_game = acked - max(s for s in [0, *script.ends] if s <= acked)
            if in_game and (not resumed or int(resumed[-1].group(1)) != in_game):
                resumed_wrong += 1
            # a finished game restarts on the menus: skip the OK that would leave its game-over screen
            skip = 1 if acked in script.ends else 0
            for step in script.steps[acked : acked + rng.randint(0, 6)]:
                for payload in step.taps[skip:]:
                    pty.tap(payload)
                assert daemon.wait_accepted() == step.notation
                acked += 1
                skip = 0
            if acked < len(script.steps):  # one more, killed in flight
                taps = script.steps[acked].taps[skip:]
                for payload in taps[: rng.randint(1, len(taps))]:
                    pty.tap(payload)
            time.sleep(rng.uniform(0.0, 0.004))
        finally:
            daemon.kill()
            pty.close()
        kills += 1
        late = []
        while (line := daemon.lines.get()) is not None:  # acknowledgements printed before the kill landed
            late.append(line)
        heard = acked + (acked < len(notations) and f"bornes: accepted {notations[acked]}" in late)
        stored = _durable(state, script)
        if stored is None:
            unopenable += 1
            break
        game_start, lines, abandoned = stored
        assert abandoned == 0, f"kill {kills}: a game was abandoned by a restart"
        assert lines == notations[game_start : game_start + len(lines)], "the journal is not the scripted game"
        durable = game_start + len(lines)
        lost += max(0, heard - durable)
        assert durable <= heard + 1, f"kill {kills}: the journal holds more than the action in flight"
        in_flight_kept += durable == heard + 1
        acked = durable
    elapsed = time.monotonic() - started
    print(f"\ncrash: {kills} SIGKILLs, {acked} of {len(script.steps)} actions, lost {lost}, "
          f"journals that would not open {unopenable}, wrong resumes {resumed_wrong}, "
          f"in-flight actions kept {in_flight_kept}, {elapsed:.1f} s")
    assert kills == KILLS, f"the script ran out after {kills} kills"
    assert lost == 0
    assert unopenable == 0
    assert resumed_wrong == 0


if __name__ == "__main__":
    pytest.main([__file__, "-s"])
