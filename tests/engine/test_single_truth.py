r"""No rule outside the engine: firmware/ reads card kinds only to show them.

The grep this test runs, by hand:

    grep -rnE 'is_hazard|is_remedy|is_safety|is_distance|\.safety\b|\.remedy\b|CardKind\.[A-Z]|REMEDY_FOR'\
'|SAFETY_FOR|HAZARD_CURED_BY|can_move|hazard_targets|side_seats\([a-z.]*window' firmware/

must print nothing. Who may act, which card answers a hazard, whether a card needs a target and
what a scan means are asked of the engine (``GameState.acting``, ``window_callers``,
``legal_actions``, ``target_choices``, ``play_action``, ``answer_action``, ``validate``).
"""

from __future__ import annotations

import re
from pathlib import Path

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
RULE_WORDS = re.compile(
    r"is_hazard|is_remedy|is_safety|is_distance|\.safety\b|\.remedy\b|CardKind\.[A-Z]|REMEDY_FOR|SAFETY_FOR"
    r"|HAZARD_CURED_BY|can_move|hazard_targets|side_seats\([a-z.]*window"
)


def test_firmware_decides_no_card_rule() -> None:
    found = [
        f"{path.relative_to(FIRMWARE.parent)}:{number}: {line.strip()}"
        for path in sorted(FIRMWARE.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if RULE_WORDS.search(line)
    ]
    assert found == [], "rules decided outside the engine:\n" + "\n".join(found)


def test_the_grep_finds_what_it_looks_for() -> None:
    """The pattern is not blind: it catches the kind of line it forbids."""
    for line in ("if card.kind.is_hazard:", "kind is window.hazard.kind.safety", "CardKind.ROLL",
                 "hazard_targets(state, seat, kind)", "setup.side_seats(window.side)"):
        assert RULE_WORDS.search(line), line
    for line in ("title=card.kind.title", "hazard=window.hazard.kind.value"):
        assert not RULE_WORDS.search(line), line
