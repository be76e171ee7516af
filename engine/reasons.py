"""Why the referee refuses an action: stable codes, their parameters, and an English line for logs.

What a player reads is written from the code and the parameters by the phrasing layer
(``bornes.firmware.language.words.refusal_words``), in the table's language; the engine's own line is
English for logs and records only.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping

#: What a refusal is about, as data: seats and sides as indexes, cards as ``Card``/``CardKind``,
#: numbers as ints, and a few words that tell variants of one reason apart ("phase", "action").
Params = Mapping[str, object]
_NO_PARAMS: Params = {}


class Reason(enum.Enum):
    """A stable refusal code. The value is what logs, JSON and tests compare."""

    # the card itself
    NOT_IN_DECK = "not-in-deck"
    ON_TABLE = "on-table"
    DUPLICATE_CARD = "duplicate-card"
    # whose move it is
    GAME_OVER = "game-over"
    WRONG_PHASE = "wrong-phase"
    NOT_YOUR_TURN = "not-your-turn"
    NO_SUCH_SEAT = "no-such-seat"
    HAND_EMPTY = "hand-empty"
    # distance
    NOT_ROLLING = "not-rolling"
    STOPPED = "stopped"
    SPEED_LIMIT = "speed-limit"
    TOO_MANY_200 = "too-many-200"
    PAST_TRIP = "past-trip"
    # hazards
    TARGET_NEEDED = "target-needed"
    TARGET_OWN_SIDE = "target-own-side"
    NOT_A_HAZARD = "not-a-hazard"
    NO_TARGET = "no-target"
    PROTECTED = "protected"
    NEEDS_ROLLING_TARGET = "needs-rolling-target"
    ALREADY_STOPPED = "already-stopped"
    ALREADY_LIMITED = "already-limited"
    ATTACKER_NOT_STARTED = "attacker-not-started"
    # remedies
    NOTHING_TO_REMEDY = "nothing-to-remedy"
    REMEDY_FIRST = "remedy-first"
    ALREADY_ROLLING = "already-rolling"
    NO_LIMIT = "no-limit"
    # discards and draws
    SAFETY_DISCARD = "safety-discard"
    DISCARD_EMPTY = "discard-empty"
    NOT_TOP_DISCARD = "not-top-discard"
    ALREADY_DREW = "already-drew"
    OPTION_OFF = "option-off"
    # coup fourré and fast remedies
    NO_WINDOW = "no-window"
    WRONG_SAFETY = "wrong-safety"
    NOT_ATTACKED = "not-attacked"
    WRONG_REMEDY = "wrong-remedy"
    # start, extension, end of hand
    NOT_A_ROLL = "not-a-roll"
    ALREADY_STARTED = "already-started"
    PLAY_CONTINUES = "play-continues"
    SWAP_SIZE = "swap-size"
    # the table itself
    BAD_NAME = "bad-name"
    DUPLICATE_NAME = "duplicate-name"


class Refusal:
    """A refused action: the stable code, its parameters, and an English line for logs.

    The line and the parameters are worked out only when someone reads them: the legal-move
    generator asks the same checks as ``validate`` many times a turn and only wants to know
    *whether* a move is refused, so a check hands over functions instead of the values.
    """

    __slots__ = ("_message", "_params", "reason")

    def __init__(
        self, reason: Reason, message: str | Callable[[], str], params: Params | Callable[[], Params] | None = None
    ) -> None:
        self.reason = reason
        self._message = message
        self._params = _NO_PARAMS if params is None else params

    @property
    def message(self) -> str:
        """The English line (logs, records, tests); players read ``words.refusal_words``."""
        message = self._message
        if not isinstance(message, str):
            message = self._message = message()
        return message

    @property
    def params(self) -> Params:
        """What the refusal is about (see :data:`Params`): what the phrasing layer words."""
        params = self._params
        if callable(params):
            params = self._params = params()
        return params

    @property
    def code(self) -> str:
        return self.reason.value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Refusal):
            return NotImplemented
        return self.reason is other.reason and self.message == other.message

    def __hash__(self) -> int:
        return hash((self.reason, self.message))

    def __repr__(self) -> str:
        return f"Refusal({self.reason!r}, {self.message!r})"

    def __str__(self) -> str:
        return f"{self.reason.value}: {self.message}"
