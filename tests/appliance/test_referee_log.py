"""What the referee's journal says of each input (``[log] level``).

At ``info`` journald gets the accepted actions, the refusals and the reader coming and going; a
tap that only prompts (a discard asked for, a menu step) says nothing there. At ``debug`` every
input gets one line of its own, after any other line it makes, so a person checking a reader sees
each tap and its verdict (and the kernel tier waits for that line before the next tap).
"""

from __future__ import annotations

import logging

import pytest

from bornes.drivers.events import ReaderProblem
from bornes.drivers.readers.resolver import CardResolver
from bornes.firmware.appliance.referee import Referee
from bornes.firmware.table.flow import TableFlow


def _taps(caplog: pytest.LogCaptureFixture, level: int) -> list[str]:
    flow = TableFlow(players=2, names=("Anne", "Bruno"))
    referee = Referee(flow, None, watchdog=False)  # type: ignore[arg-type]
    resolver = CardResolver()
    with caplog.at_level(level, logger="bornes"):
        for payload in ("MB-CMD-OK",) * 6 + ("MB-CMD-DISCARD", "MB-D100-01"):
            referee.step(resolver.resolve(payload))
        referee.step(ReaderProblem("garbled", "keys were lost (the reader was read too late): scan it again"))
    return [record.getMessage() for record in caplog.records if record.name == "bornes"]


def test_at_debug_every_input_has_one_line_after_the_others(caplog: pytest.LogCaptureFixture) -> None:
    said = _taps(caplog, logging.DEBUG)
    assert said == [*["input MB-CMD-OK control OK: prompt"] * 5, "input MB-CMD-OK control OK: accepted",
                    "input MB-CMD-DISCARD control DISCARD: prompt",
                    "accepted B discard MB-D100-01", "input MB-D100-01 100 miles (#1): accepted",
                    "refused [garbled] The reader did not get that card: scan it again",
                    "input garbled: keys were lost (the reader was read too late): scan it again: refused"]


def test_at_info_a_prompt_says_nothing(caplog: pytest.LogCaptureFixture) -> None:
    said = _taps(caplog, logging.INFO)
    assert said == ["accepted B discard MB-D100-01",
                    "refused [garbled] The reader did not get that card: scan it again"]


def test_debug_is_the_referees_own_lines_not_every_librarys() -> None:
    """At debug, Pillow would log every PNG chunk it reads (``STREAM b'IHDR'``) into the journal."""
    from bornes.firmware.commands.run import setup_logging

    root, ours = logging.getLogger(), logging.getLogger("bornes")
    saved = (root.level, list(root.handlers), ours.level)
    try:
        setup_logging("debug")
        assert ours.isEnabledFor(logging.DEBUG) and logging.getLogger("bornes.control").isEnabledFor(logging.DEBUG)
        assert not logging.getLogger("PIL.PngImagePlugin").isEnabledFor(logging.DEBUG)
        assert logging.getLogger("PIL.PngImagePlugin").isEnabledFor(logging.INFO)
        setup_logging("warning")
        assert not ours.isEnabledFor(logging.INFO) and not logging.getLogger("PIL").isEnabledFor(logging.INFO)
    finally:
        for handler in root.handlers:
            if handler not in saved[1]:
                root.removeHandler(handler)
        for handler in saved[1]:
            if handler not in root.handlers:
                root.addHandler(handler)
        root.setLevel(saved[0])
        ours.setLevel(saved[2])


def test_a_camera_that_cannot_see_is_a_journal_line_each_way(caplog: pytest.LogCaptureFixture) -> None:
    """Like a reader lost and back: journald shows when the camera could not see, and why (issue 41)."""
    from bornes.drivers.events import CameraBlind, CameraSees

    referee = Referee(TableFlow(players=2, names=("Anne", "Bruno")), None, watchdog=False)  # type: ignore[arg-type]
    with caplog.at_level(logging.INFO, logger="bornes"):
        referee.step(CameraBlind("unsteady", "no steady picture (a light wavering, the camera moving?)"))
        referee.step(CameraSees())
    said = [record.getMessage() for record in caplog.records if record.name == "bornes"]
    assert said == ["camera cannot see (unsteady): no steady picture (a light wavering, the camera moving?)",
                    "camera sees again"]
