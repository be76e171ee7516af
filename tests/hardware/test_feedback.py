"""Buzzer and LED patterns on gpiozero's mock pins: distinct, non-blocking, mutable."""

from __future__ import annotations

import threading
from dataclasses import replace

import pytest
from gpiozero.pins.mock import MockFactory

from bornes.drivers.feedback import GREEN, RED, Feedback, Pattern
from bornes.drivers.pins import BuzzerPin, LedPins, load


def _no_wait(event: threading.Event, seconds: float) -> bool:
    return event.is_set()


def test_patterns_are_distinct_by_ear_on_both_buzzer_kinds() -> None:
    melodies = {tuple((s.note, s.seconds) for s in p.steps) for p in Pattern}
    rhythms = {tuple((s.note is not None, s.seconds) for s in p.steps) for p in Pattern}
    assert len(melodies) == len(Pattern)  # a passive piezo plays different tunes
    assert len(rhythms) == len(Pattern)  # an active buzzer still beeps different rhythms
    assert Pattern.ACCEPT.duration < 0.2  # a chirp, not a tune
    assert Pattern.REFUSE.steps[0].note == "A2"  # low
    assert Pattern.HAND_END.duration > Pattern.COUP_FOURRE.duration > Pattern.REFUSE.duration


def test_tonal_buzzer_plays_the_notes_and_led_shows_colours(factory: MockFactory) -> None:
    heard: list[tuple[float, tuple[float, float, float]]] = []
    feedback = Feedback(load(), wait=lambda event, seconds: _no_wait(event, seconds), thread=False)
    buzzer_pin = factory.pin(12)
    original = feedback._sound

    def spy(step):  # type: ignore[no-untyped-def]
        original(step)
        heard.append((buzzer_pin.frequency or 0.0, feedback._led.color))

    feedback._sound = spy  # type: ignore[method-assign]
    feedback.play_now(Pattern.ACCEPT)
    assert [round(f) for f, _ in heard] == [1047, 1568]
    assert heard[0][1] == GREEN
    heard.clear()
    feedback.play_now(Pattern.REFUSE)
    assert [round(f) for f, _ in heard] == [110] and heard[0][1] == RED
    assert feedback._led.color == (0, 0, 0) and not feedback._buzzer.is_active  # silent afterwards
    feedback.close()
    feedback.close()


def test_muted_keeps_the_light_but_not_the_sound(factory: MockFactory) -> None:
    feedback = Feedback(load(), muted=True, wait=_no_wait, thread=False)
    sounds: list[bool] = []
    colours = []
    original = feedback._sound

    def spy(step):  # type: ignore[no-untyped-def]
        original(step)
        sounds.append(feedback._buzzer.is_active)
        colours.append(feedback._led.color)

    feedback._sound = spy  # type: ignore[method-assign]
    feedback.play_now(Pattern.COUP_FOURRE)
    assert not any(sounds) and any(c != (0, 0, 0) for c in colours)
    feedback.close()


def test_active_buzzer_and_led_pair(factory: MockFactory) -> None:
    pin_map = replace(load(), buzzer=BuzzerPin(12, tonal=False), leds=LedPins("pair", red=17, green=27))
    feedback = Feedback(pin_map, wait=_no_wait, thread=False)
    states = []
    original = feedback._sound

    def spy(step):  # type: ignore[no-untyped-def]
        original(step)
        states.append((factory.pin(12).state, factory.pin(17).state, factory.pin(27).state))

    feedback._sound = spy  # type: ignore[method-assign]
    feedback.play_now(Pattern.ATTENTION)
    assert states == [(1, 1, 1), (0, 0, 0), (1, 1, 1)]  # amber = red + green
    feedback.close()


def test_play_never_blocks_and_latest_pattern_wins(factory: MockFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    feedback = Feedback(load())
    # The first step of a pattern is held until the test lets it go: play() returning meanwhile, and every
    # step sounding on another thread, is what "never blocks" means, with no stopwatch.
    inside, release = threading.Event(), threading.Event()
    sounded_on: list[threading.Thread] = []

    def held(step: object) -> None:
        sounded_on.append(threading.current_thread())
        inside.set()
        release.wait(60)

    monkeypatch.setattr(feedback, "_sound", held)
    feedback.play(Pattern.HAND_END)
    assert inside.wait(60), "the pattern never started"
    feedback.play(Pattern.REFUSE)  # both return while HAND_END is held in its first step
    feedback.play(Pattern.ACCEPT)
    release.set()
    assert feedback.wait_idle(60)
    assert threading.current_thread() not in sounded_on
    assert feedback.played[-1] is Pattern.ACCEPT
    assert Pattern.REFUSE not in feedback.played[1:]  # cut before it started
    feedback.close()
    feedback.play(Pattern.ACCEPT)  # after close: ignored, no error


def test_no_buzzer_no_leds(factory: MockFactory) -> None:
    """A table without buzzer or LEDs: patterns play silently and no GPIO is claimed."""
    pin_map = load()
    assert pin_map.buzzer is not None and pin_map.leds is not None
    feedback = Feedback(replace(pin_map, buzzer=None, leds=None), wait=_no_wait, thread=False)
    feedback.play_now(Pattern.ACCEPT)
    feedback.play_now(Pattern.REFUSE)
    assert factory.pins == {}, "a pin was claimed for a part the pin map does not have"
    feedback.close()
    feedback.close()
