"""The rules engine: pure, deterministic, replayable. No I/O, no clock, no hardware."""
