"""What every protocol decoder shares: the decoded reading and the error counters.

Decoders are pure and incremental: bytes in, readings out, no I/O and no clocks, so they
can be fuzzed on their own and reused by any transport.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Reading:
    """One decoded value: a printed payload (``MB-…``) or a tag UID in upper-case hex."""

    raw: str
    is_uid: bool = False


@dataclass(slots=True)
class DecoderStats:
    """Counters a person can be shown (``bornes scan-test``) to judge a reader and its wiring."""

    good: int = 0
    garbage_bytes: int = 0
    bad_checksums: int = 0
    overflows: int = 0

    def copy(self) -> DecoderStats:
        return DecoderStats(self.good, self.garbage_bytes, self.bad_checksums, self.overflows)


class Decoder(Protocol):
    """A bounded incremental decoder for a passive (push-only) reader."""

    stats: DecoderStats

    def feed(self, data: bytes) -> list[Reading]: ...

    def reset(self) -> None: ...
