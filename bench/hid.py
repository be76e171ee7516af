"""Keyboard-mode decoding, timed: how long the HID decoder takes per scanned code.

``python -m bench.hid`` types 2000 card codes as a scanner set to each layout would (Shift
around each capital, 2 ms between keys, Enter), as python-evdev ``InputEvent`` values, and
decodes them with the layout set and with ``auto``. It prints microseconds per code: the
decoder runs in the reader thread, so this is the time a tap spends there before its event
is on the queue.
"""

from __future__ import annotations

import sys
import time

from bornes.drivers.readers.hid import LAYOUTS, HidDecoder, keys_for
from bornes.engine.cards import full_deck

CODES = 2000


def stream(layout: str, codes: int = CODES) -> list[object]:
    from evdev import InputEvent, ecodes

    events: list[object] = []
    now = 1000.0
    deck = [card.code() for card in full_deck()]

    def put(code: int, value: int) -> None:
        sec = int(now)
        events.append(InputEvent(sec, int((now - sec) * 1_000_000), ecodes.EV_KEY, code, value))

    for i in range(codes):
        for code, shift in [*keys_for(deck[i % len(deck)], layout), (ecodes.KEY_ENTER, False)]:
            now += 0.002
            if shift:
                put(ecodes.KEY_LEFTSHIFT, 1)
            put(code, 1)
            put(code, 0)
            if shift:
                put(ecodes.KEY_LEFTSHIFT, 0)
    return events


def measure(codes: int = CODES) -> list[tuple[str, str, float, int]]:
    """(scanner layout, decoder layout, best µs per code of 3 runs, codes read) for every layout."""
    found: list[tuple[str, str, float, int]] = []
    for layout in LAYOUTS:
        events = stream(layout, codes)
        for configured in (layout, "auto"):
            best, read = float("inf"), 0
            for _ in range(3):
                decoder = HidDecoder(configured)
                started = time.perf_counter()
                read = len(decoder.feed(events))  # type: ignore[arg-type]
                best = min(best, time.perf_counter() - started)
            found.append((layout, configured, best / codes * 1e6, read))
    return found


def rows(codes: int = CODES) -> list[tuple[str, str, str, bool | None]]:
    """The bench table's rows: the slowest decoding per layout, and whether every code was read."""
    found = measure(codes)
    return [(f"HID decoder: a {layout} scanner's code decoded as {configured} ({codes} codes, best of 3)",
             f"{micros:.1f} µs", f"{codes} of {codes} read", read == codes)
            for layout, configured, micros, read in found]


def main() -> int:
    print(f"HID decoder, {CODES} codes per run (best of 3)")
    print("| scanner layout | decoder layout | µs per code | codes read |")
    print("|---|---|---:|---:|")
    found = measure()
    for layout, configured, micros, read in found:
        print(f"| {layout} | {configured} | {micros:.1f} | {read} |")
    return 0 if all(read == CODES for *_, read in found) else 1


if __name__ == "__main__":
    sys.exit(main())
