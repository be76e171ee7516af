"""The chirps without a buzzer: the patterns as WAV through ALSA's aplay, or named for the TV page.

The WAVs are read back with the standard library's ``wave`` and measured (length, pitch, no click,
no clipping); aplay is Debian's (alsa-utils), playing on ALSA's ``null`` device, which every
alsa-lib has and needs no sound card.
"""

from __future__ import annotations

import io
import itertools
import json
import logging
import os
import shutil
import struct
import time
import wave
from pathlib import Path

import pytest

from bornes.drivers.feedback import Feedback, Pattern
from bornes.drivers.pins import parse
from bornes.drivers.sound import RATE, AlsaChirps, PageSounds, frequency, wav
from bornes.drivers.tvfile import SOUND_FORMAT
from bornes.firmware.appliance.assembly import sound_output
from bornes.firmware.appliance.config import parse_config


def read(data: bytes) -> tuple[int, list[int]]:
    with wave.open(io.BytesIO(data)) as found:
        assert (found.getnchannels(), found.getsampwidth()) == (1, 2)
        frames = found.readframes(found.getnframes())
        return found.getframerate(), list(struct.unpack(f"<{len(frames) // 2}h", frames))


def aplay_or_skip() -> str:
    found = shutil.which("aplay")
    if found is None:
        message = "aplay is not installed (apt-get install alsa-utils)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return found


def test_pitches_are_the_buzzers_notes() -> None:
    assert frequency("A4") == 440.0 and round(frequency("C6"), 1) == 1046.5 and round(frequency("A2"), 1) == 110.0
    assert round(frequency("C#5"), 2) == round(frequency("Db5"), 2) == 554.37


@pytest.mark.parametrize("pattern", list(Pattern), ids=lambda p: p.name)
def test_each_pattern_is_a_wav_of_its_notes_that_neither_clicks_nor_clips(pattern: Pattern) -> None:
    rate, samples = read(wav(pattern.steps))
    assert rate == RATE
    assert abs(len(samples) - round(pattern.duration * RATE)) <= len(pattern.steps)
    assert max(abs(s) for s in samples) < 32767 * 0.5
    start = 0
    for step in pattern.steps:
        count = round(step.seconds * RATE)
        note = samples[start:start + count]
        start += count
        if step.note is None:
            assert not any(note)
            continue
        assert abs(note[0]) < 200 and abs(note[-1]) < 200  # faded in and out
        middle = note[len(note) // 4: 3 * len(note) // 4]
        rising = sum(1 for a, b in itertools.pairwise(middle) if a < 0 <= b)
        heard = rising * RATE / len(middle)
        assert abs(heard - frequency(step.note)) < 0.06 * frequency(step.note) + 10, (step, heard)


def test_the_patterns_sound_different() -> None:
    assert len({wav(pattern.steps) for pattern in Pattern}) == len(Pattern)


def test_aplay_plays_each_pattern(tmp_path: Path) -> None:
    aplay_or_skip()
    chirps = AlsaChirps(list(Pattern), device="null")
    try:
        for pattern in (Pattern.ACCEPT, Pattern.REFUSE, Pattern.COUP_FOURRE):
            chirps.start(pattern)
            assert chirps.playing is not None
            assert chirps.playing.wait(10) == 0
        chirps.stop()
        assert chirps.started == 3 and not chirps.failed
        assert chirps.file(Pattern.ACCEPT).read_bytes() == wav(Pattern.ACCEPT.steps)
    finally:
        chirps.close()
    assert not chirps.folder.exists()


def test_a_sound_device_that_is_not_there_is_one_line_and_the_table_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    aplay_or_skip()
    chirps = AlsaChirps([Pattern.ACCEPT], device="no-such-device")
    try:
        with caplog.at_level(logging.WARNING, logger="bornes.drivers.sound"):
            for _ in range(3):
                chirps.start(Pattern.ACCEPT)
                assert chirps.playing is not None
                chirps.playing.wait(10)
            chirps.stop()
    finally:
        chirps.close()
    lines = [record.getMessage() for record in caplog.records]
    assert len(lines) == 1 and "no-such-device" in lines[0] and "without sound" in lines[0]
    assert chirps.failed


def test_no_aplay_at_all_is_one_line_too(caplog: pytest.LogCaptureFixture) -> None:
    chirps = AlsaChirps([Pattern.ACCEPT], program="/nonexistent/aplay")
    try:
        with caplog.at_level(logging.WARNING, logger="bornes.drivers.sound"):
            chirps.start(Pattern.ACCEPT)
            chirps.start(Pattern.ACCEPT)
    finally:
        chirps.close()
    assert len(caplog.records) == 1 and "No such file" in caplog.records[0].getMessage()


def test_the_page_gets_each_chirp_by_name(tmp_path: Path) -> None:
    sounds = PageSounds(tmp_path / "tv-sound.json")
    feedback = Feedback(parse({}), chirps=sounds, thread=False, wait=lambda event, seconds: False)
    feedback.play_now(Pattern.COUP_FOURRE)
    said = json.loads((tmp_path / "tv-sound.json").read_text())
    assert said == {"format": SOUND_FORMAT, "seq": 1, "pattern": "COUP_FOURRE"}
    feedback.muted = True
    feedback.play_now(Pattern.REFUSE)
    assert json.loads((tmp_path / "tv-sound.json").read_text())["seq"] == 1  # muted: nothing
    feedback.close()
    assert not (tmp_path / "tv-sound.json").exists()


def test_a_cut_pattern_stops_aplay(tmp_path: Path) -> None:
    aplay_or_skip()
    chirps = AlsaChirps([Pattern.HAND_END], device="null")
    cut = Feedback(parse({}), chirps=chirps, thread=False, wait=lambda event, seconds: True)  # cut at once
    try:
        started = time.monotonic()
        cut.play_now(Pattern.HAND_END)
        assert chirps.playing is None and chirps.started == 1 and time.monotonic() - started < 5
    finally:
        cut.close()
    assert not chirps.folder.exists()  # closed with the feedback


def test_without_the_buzzer_its_pin_is_left_alone(tmp_path: Path) -> None:
    from gpiozero.pins.mock import MockFactory

    pins = parse({"buzzer": {"pin": 12}})
    factory = MockFactory()
    try:
        feedback = Feedback(pins, pin_factory=factory, buzzer=False, thread=False)
        assert feedback._buzzer is None
        factory.pin(12)  # nobody holds it
        feedback.close()
    finally:
        factory.close()


def test_auto_is_the_buzzer_when_wired_else_the_pis_audio_else_silence(monkeypatch: pytest.MonkeyPatch) -> None:
    from bornes.drivers import sound

    auto = parse_config("")
    assert sound_output(auto, parse({"buzzer": {"pin": 12}})) == "buzzer"
    monkeypatch.setattr(sound, "sound_card_problem", lambda: None)
    assert sound_output(auto, parse({})) == "audio"
    monkeypatch.setattr(sound, "sound_card_problem", lambda: "no sound card")
    assert sound_output(auto, parse({})) == "none"
    assert sound_output(parse_config('[sound]\noutput = "page"\n'), parse({"buzzer": {"pin": 12}})) == "page"
