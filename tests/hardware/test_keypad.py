"""The USB keypad as the table's buttons: the key map, holds, bursts, the grab and unplugs.

The decoder is pure, so these replay recorded evdev events (python-evdev's own ``InputEvent``, as
the kernel delivers them: SYN reports, autorepeat while a key is held). The reader thread runs on
a port that hands out recorded sessions and then vanishes as an unplugged device does; the last
test drives a real kernel input device through ``evdev.UInput`` wherever ``/dev/uinput`` works.
"""

from __future__ import annotations

import errno
import os
import queue
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import evdev
import pytest
from evdev import InputEvent, ecodes
from hypothesis import given, settings
from hypothesis import strategies as st

from bornes.drivers.events import CONTROL_NAMES, KEYPAD, ButtonPressed, ReaderBack, ReaderLost, ReaderProblem
from bornes.drivers.keypad import (
    BURST_GAP,
    DEFAULT_HOLDS,
    KEYMAPS,
    Hold,
    KeyMapError,
    KeypadDecoder,
    KeypadProblem,
    holds_of,
    keymap_from,
    open_keypad,
)
from bornes.drivers.keys import KEY_CODES, key_code, key_label
from bornes.drivers.pins import load
from tests.hardware.keypad_scenario import HEARD, SCENARIO, Clock, Stroke, recorded, through
from tests.readers.fakes import wait_for
from tests.readers.test_hid import Clock as ScannerClock
from tests.readers.test_hid import typed

NUMPAD = KEYMAPS["numpad"]


def presses(out: list[ButtonPressed | KeypadProblem]) -> list[ButtonPressed]:
    return [item for item in out if isinstance(item, ButtonPressed)]


def replay(events: list[InputEvent], decoder: KeypadDecoder | None = None) -> list[ButtonPressed | KeypadProblem]:
    """Everything the decoder says for ``events``, polled as the link polls (after each event and at the end)."""
    decoder = decoder or KeypadDecoder(NUMPAD)
    out: list[ButtonPressed | KeypadProblem] = []
    for event in events:
        out += decoder.feed([event])
        out += decoder.poll(event.timestamp())
    last = events[-1].timestamp() if events else 0.0
    return out + decoder.poll(last + 10.0)


# -- the key map ------------------------------------------------------------------------------------


def test_the_key_codes_are_the_kernels() -> None:
    for name, code in KEY_CODES.items():
        assert ecodes.ecodes[f"KEY_{name}"] == code, name


@pytest.mark.parametrize("name", sorted(KEYMAPS))
def test_every_default_map_gives_each_table_button_one_key(name: str) -> None:
    keymap = KEYMAPS[name]
    buttons = [button for _code, button in keymap.pairs]
    assert sorted(set(buttons) & set(CONTROL_NAMES)) == sorted(CONTROL_NAMES)
    assert len(buttons) == len(set(buttons)) and len(keymap.buttons) == len(keymap.pairs)
    assert keymap_from(name, {}) == keymap


def test_the_legends_of_the_default_maps_say_what_is_printed_on_the_keys() -> None:
    assert NUMPAD.legend() == (("0", "CF"), (".", "DISCARD"), ("*", "UNDO"), ("Enter", "OK"), ("+", "NEXT"),
                               ("-", "BACK"), ("1-8", "SEAT1-SEAT8"))
    assert KEYMAPS["pad6"].legend() == (("1", "CF"), ("2", "DISCARD"), ("3", "UNDO"), ("6", "OK"), ("5", "NEXT"),
                                        ("4", "BACK"))
    assert key_label(KEY_CODES["F13"]) == "F13" and key_label(KEY_CODES["VOLUMEUP"]) == "Vol +"
    assert key_code("key_kpenter") == key_code("KPENTER") == ecodes.KEY_KPENTER and key_code("KP_ENTER") is None


def test_the_config_offers_exactly_these_key_maps() -> None:
    from bornes.drivers.parts import KEYMAP_NAMES

    assert tuple(KEYMAPS) == KEYMAP_NAMES


def test_a_change_moves_a_button_to_another_key() -> None:
    changed = keymap_from("numpad", {"kpslash": "UNDO", "KP9": "none", "F13": "SEAT8"})
    assert changed.key_of("UNDO") == ecodes.KEY_KPSLASH and changed.button(ecodes.KEY_KPASTERISK) is None
    assert changed.key_of("SEAT8") == ecodes.KEY_F13 and changed.button(ecodes.KEY_KP8) is None
    assert keymap_from("pad6", {"F13": "ok"}).key_of("OK") == ecodes.KEY_F13


@pytest.mark.parametrize(("changes", "key", "words"), [
    ({"KP_ENTER": "OK"}, "KP_ENTER", "is no key"),
    ({"KPENTER": "PLAY"}, "KPENTER", "is not a button"),
    ({"KP9": "OK", "KP7": "OK"}, "KP7", "names OK twice (KP9 and KP7)"),
    ({"KP0": "OK"}, "", "leaves CF without a key (KP0 is OK now)"),
    ({"KPENTER": "none"}, "", "leaves OK without a key (KPENTER is none now)"),
])
def test_a_bad_key_map_is_one_line_naming_the_key(changes: dict[str, str], key: str, words: str) -> None:
    with pytest.raises(KeyMapError) as caught:
        keymap_from("numpad", changes)
    assert words in str(caught.value) and "\n" not in str(caught.value) and caught.value.key == key


def test_the_default_holds_are_the_shipped_pin_maps() -> None:
    shipped = load(Path(__file__).resolve().parents[2] / "wiring" / "pins.toml")
    assert holds_of(shipped) == dict(DEFAULT_HOLDS)
    assert holds_of(None) == dict(DEFAULT_HOLDS)


# -- presses and holds, on recorded events ----------------------------------------------------------


def test_a_hand_of_strokes_is_heard_as_the_buttons_with_autorepeat_ignored() -> None:
    events = recorded(SCENARIO)
    assert any(event.value == 2 for event in events)  # the held OK repeats, as the kernel does
    out = replay(events)
    assert out == list(HEARD)


def test_a_press_is_sent_once_it_is_sure_and_not_before() -> None:
    clock = Clock()
    decoder = KeypadDecoder(NUMPAD)
    down = clock.event(ecodes.KEY_KPPLUS, 1, 1.0)
    assert decoder.feed([down]) == []
    assert decoder.poll(down.timestamp() + BURST_GAP * 0.9) == []
    assert decoder.next_deadline() == pytest.approx(down.timestamp() + BURST_GAP)
    assert decoder.poll(down.timestamp() + BURST_GAP) == [ButtonPressed("NEXT")]
    assert decoder.feed([clock.event(ecodes.KEY_KPPLUS, 0, 0.1)]) == [] and decoder.next_deadline() is None


def test_a_hold_is_measured_between_the_kernels_down_and_up_stamps_however_late_they_arrive() -> None:
    clock = Clock()
    late = [clock.event(ecodes.KEY_KPENTER, 1, 1.0), clock.event(ecodes.KEY_KPENTER, 0, 1.2)]
    assert KeypadDecoder(NUMPAD).feed(late) == [ButtonPressed("OK", long=True)]  # one read, 1.2 s apart
    short = [clock.event(ecodes.KEY_KPENTER, 1, 1.0), clock.event(ecodes.KEY_KPENTER, 0, 0.8)]
    assert replay(short) == [ButtonPressed("OK")]


def test_a_hold_fires_while_the_key_is_still_down_and_its_release_sends_nothing() -> None:
    clock = Clock()
    decoder = KeypadDecoder(NUMPAD)
    down = clock.event(ecodes.KEY_KPMINUS, 1, 1.0)
    decoder.feed([down])
    assert decoder.poll(down.timestamp() + 0.99) == []
    assert decoder.next_deadline() == pytest.approx(down.timestamp() + 1.0)
    assert decoder.poll(down.timestamp() + 1.0) == [ButtonPressed("BACK", long=True)]
    assert decoder.feed([clock.event(ecodes.KEY_KPMINUS, 0, 3.0)]) + decoder.poll(clock.now + 1) == []


def test_the_pin_maps_holds_apply_to_the_keys(tmp_path: Path) -> None:
    pins = tmp_path / "pins.toml"
    pins.write_text('[buttons.BACK]\npin = 21\nlong = "BACK"\nhold_time = 2.0\n'
                    '[buttons.DISCARD]\npin = 6\nlong = "UNDO"\nhold_time = 0.5\n[buttons.OK]\npin = 19\n')
    holds = holds_of(load(pins))
    assert holds["BACK"] == Hold("BACK", 2.0) and holds["DISCARD"] == Hold("UNDO", 0.5) and "OK" not in holds
    decoder = KeypadDecoder(NUMPAD, holds)
    strokes = [Stroke("KPMINUS", held=1.5), Stroke("KPDOT", held=0.7), Stroke("KPENTER", held=3.0)]
    assert replay(recorded(strokes), decoder) == [ButtonPressed("BACK"), ButtonPressed("UNDO"), ButtonPressed("OK")]


def test_a_key_outside_the_map_says_so_and_presses_nothing() -> None:
    out = replay(recorded([Stroke("KP9"), Stroke("NUMLOCK"), Stroke("KPPLUS")]))
    assert out == [KeypadProblem("unknown-key", "9 (KP9)"), KeypadProblem("unknown-key", "Num Lock (NUMLOCK)"),
                   ButtonPressed("NEXT")]


def test_two_keys_at_once_press_neither() -> None:
    clock = Clock()
    chord = [clock.event(ecodes.KEY_KP0, 1, 1.0), clock.event(ecodes.KEY_KPDOT, 1, 0.02),
             clock.event(ecodes.KEY_KP0, 0, 0.1), clock.event(ecodes.KEY_KPDOT, 0, 0.01)]
    out = replay(chord + recorded([Stroke("KPPLUS")], clock))
    assert [type(item).__name__ for item in out] == ["KeypadProblem", "ButtonPressed"]
    assert out[0].kind == "keys-at-once" and out[1] == ButtonPressed("NEXT")  # type: ignore[union-attr]


def _keypad_typing(digits: str, clock: ScannerClock) -> list[InputEvent]:
    """A USB RFID reader that types on the keypad, a key every 10 ms, then keypad Enter."""
    events = []
    for code in [getattr(ecodes, f"KEY_KP{digit}") for digit in digits] + [ecodes.KEY_KPENTER]:
        events.append(InputEvent(*clock.tick(0.010), ecodes.EV_KEY, code, 1))
        events.append(InputEvent(*clock.tick(0.002), ecodes.EV_KEY, code, 0))
    return events


@pytest.mark.parametrize(("name", "burst"), [
    ("numpad", lambda clock: typed("MB-CMD-OK", "fr", clock)),  # a control label: Shift, letters, Enter
    ("numpad", lambda clock: _keypad_typing("0012345678", clock)),  # digits and Enter, all in the numpad map
    ("pad6", lambda clock: typed("0012345678", "us", clock, gap=0.02)),  # the number row, 1 to 6 in the map
    ("pad6", lambda clock: typed("MB-D100-07", "us", clock, gap=0.04)),  # a slow low-speed USB scanner
], ids=["control-label", "rfid-on-keypad", "number-row", "slow-scanner"])
def test_a_scanner_on_the_keypads_port_never_presses_a_button(name: str, burst: Any) -> None:
    """A keyboard-mode scanner types its code and Enter in a burst: whichever of its keys are in the
    map, none is a press; the keypad hears the person who presses a key after it."""
    clock = ScannerClock()
    decoder = KeypadDecoder(KEYMAPS[name])
    out = replay(burst(clock), decoder)
    assert presses(out) == []
    assert out and all(isinstance(item, KeypadProblem) and item.kind == "keys-at-once" for item in out)
    key = KEYMAPS[name].key_of("OK")
    assert key is not None
    then = [InputEvent(*clock.tick(1.0), ecodes.EV_KEY, key, 1), InputEvent(*clock.tick(0.1), ecodes.EV_KEY, key, 0)]
    assert replay(then, decoder) == [ButtonPressed("OK")]


_CODES = sorted({*KEY_CODES.values(), 0, 249, 300})


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_CODES), st.sampled_from([0, 1, 2]), st.floats(0, 2)), max_size=200),
       st.sampled_from(sorted(KEYMAPS)))
def test_any_key_stream_gives_known_buttons_or_problems(stream: list[tuple[int, int, float]], name: str) -> None:
    clock = Clock()
    decoder = KeypadDecoder(KEYMAPS[name])
    out = replay([clock.event(code, value, after) for code, value, after in stream], decoder)
    allowed = {button for _code, button in KEYMAPS[name].pairs} | {hold.sends for hold in DEFAULT_HOLDS.values()}
    for item in out:
        if isinstance(item, ButtonPressed):
            assert item.name in allowed and (not item.long or item.name in DEFAULT_HOLDS)
        else:
            assert item.kind in ("unknown-key", "keys-at-once") and "\n" not in item.detail
    assert len(decoder._down) <= len(_CODES)


# -- the reader thread: grab, unplug, replug -----------------------------------------------------------


class RecordedKeypad:
    """Stands in for :class:`HidPort` (our class, not evdev's): hands out recorded batches with the clock
    each leaves the device at, then raises ENODEV as a keypad pulled out does."""

    def __init__(self, batches: Iterator[tuple[list[InputEvent], float]]) -> None:
        self.batches = batches
        self.now = 0.0
        self.closed = False

    def clock(self) -> float:
        return self.now

    def read_events(self, timeout: float) -> list[Any]:
        try:
            events, self.now = next(self.batches)
        except StopIteration:
            raise OSError(errno.ENODEV, "No such device") from None
        return events

    def cancel_read(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True


def sessions_of(*plugged: list[Stroke]) -> tuple[Any, list[RecordedKeypad]]:
    """A port factory: each plug-in plays its strokes, one batch per event, then the keypad is pulled out."""
    clock = Clock()
    runs = []
    for strokes in plugged:
        events = recorded(strokes, clock)
        runs.append(iter([([event], event.timestamp()) for event in events] + [([], clock.now + 5.0)]))
    remaining = iter(runs)
    opened: list[RecordedKeypad] = []

    def factory(port: str, baudrate: int, timeout: float) -> RecordedKeypad:
        try:
            run = next(remaining)
        except StopIteration:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", port) from None
        opened.append(RecordedKeypad(run))
        return opened[-1]

    return factory, opened


def test_the_keypad_thread_puts_presses_and_survives_an_unplug_mid_hand() -> None:
    factory, opened = sessions_of([Stroke("KPPLUS"), Stroke("KPENTER", held=1.3)], [Stroke("KP0"), Stroke("KP2")])
    events: queue.Queue[Any] = queue.Queue()
    keypad = open_keypad("/dev/input/by-id/usb-Keypad-event-kbd", events, NUMPAD, max_backoff=0.1,
                         serial_factory=factory)
    try:
        seen = wait_for(events, lambda e: e == ButtonPressed("SEAT2"))
    finally:
        keypad.close()
    assert [e for e in seen if isinstance(e, ButtonPressed)] == [
        ButtonPressed("NEXT"), ButtonPressed("OK", long=True), ButtonPressed("CF"), ButtonPressed("SEAT2")]
    kinds = [type(e).__name__ for e in seen]
    assert kinds[0] == "ReaderBack" and kinds.count("ReaderBack") == 2 and "ReaderLost" in kinds
    lost = next(e for e in seen if isinstance(e, ReaderLost))
    assert lost.reader == KEYPAD and lost.describe().startswith("keypad lost: ") and "\n" not in str(lost.detail)
    assert all(e.reader == KEYPAD for e in seen if isinstance(e, ReaderBack | ReaderLost | ReaderProblem))
    assert all(port.closed for port in opened)  # every session released its device
    assert keypad.stats.good == 4


def test_a_keypad_not_plugged_in_says_so_once_and_keeps_trying() -> None:
    factory, _opened = sessions_of()
    events: queue.Queue[Any] = queue.Queue()
    keypad = open_keypad("1189:8890", events, NUMPAD, max_backoff=0.1, serial_factory=factory)
    try:
        first = wait_for(events, lambda e: isinstance(e, ReaderLost))
        with pytest.raises(queue.Empty):
            events.get(timeout=0.5)  # retried meanwhile, without saying it again
    finally:
        keypad.close()
    assert first[-1].describe() == "keypad lost: cannot open 1189:8890: No such file or directory"


# -- a real kernel input device ------------------------------------------------------------------------


def _uinput_problem() -> str | None:
    if not os.path.exists("/dev/uinput"):
        return "no /dev/uinput on this machine (the kernel's uinput module is not there)"
    try:
        fd = os.open("/dev/uinput", os.O_WRONLY | os.O_NONBLOCK)
    except OSError as error:
        return f"/dev/uinput does not open: {os.strerror(error.errno or 0)} (no uinput in this kernel?)"
    os.close(fd)
    return None


@pytest.mark.skipif(_uinput_problem() is not None, reason=_uinput_problem() or "")
def test_a_real_uinput_keypad_is_grabbed_heard_and_released() -> None:
    from evdev import UInput

    keys = sorted({code for code, _button in NUMPAD.pairs} | {ecodes.KEY_NUMLOCK})
    capabilities: dict[int, Sequence[int]] = {ecodes.EV_KEY: keys}
    with UInput(capabilities, name="bornes test keypad", vendor=0x05A4, product=0x9840) as pad:
        path = os.fsdecode(pad.device.path)
        events: queue.Queue[Any] = queue.Queue()
        keypad = open_keypad("05a4:9840", events, NUMPAD)
        try:
            wait_for(events, lambda e: isinstance(e, ReaderBack))
            other = evdev.InputDevice(path)
            with pytest.raises(OSError):  # grabbed: no console or program gets these keys
                other.grab()

            def write(code: int, down: bool) -> None:
                pad.write(ecodes.EV_KEY, code, int(down))
                pad.syn()

            through(SCENARIO, write)
            seen = wait_for(events, lambda e: e == HEARD[-1])
            assert [e for e in seen if isinstance(e, ButtonPressed)] == list(HEARD)
        finally:
            keypad.close()
        other.grab()  # released on close
        other.ungrab()
        other.close()


# -- the commands: scan-test knows the keypad, and finds which device is which; doctor checks it --------


class ScriptedDevice:
    """Our HidPort's shape: hands out its key events once, stamped as they go out on the monotonic clock
    (as HidPort sets the device's clock), then waits as an idle device does."""

    def __init__(self, keys: list[tuple[int, int, float]]) -> None:
        self.keys = keys  # (code, value, seconds after the previous one)
        self.clock = time.monotonic
        self.closed = False

    def leds(self) -> set[int]:
        return set()

    def read_events(self, timeout: float) -> list[Any]:
        if not self.keys:
            time.sleep(min(timeout, 0.05))
            return []
        out, at = [], time.monotonic()
        for code, value, after in self.keys:
            at += after
            out.append(InputEvent(int(at), round((at - int(at)) * 1_000_000), ecodes.EV_KEY, code, value))
        self.keys = []
        return out

    def cancel_read(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True


def _scanned(text: str) -> list[tuple[int, int, float]]:
    return [(event.code, event.value, 0.003) for event in typed(text, "us", ScannerClock())
            if event.type == ecodes.EV_KEY]


def test_scan_test_identify_tells_the_scanner_from_the_keypad(monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    from argparse import Namespace

    from bornes.drivers.readers import hid_device
    from bornes.firmware.commands import scan_test

    keyboard = hid_device.InputDeviceInfo("/dev/input/event2", "/dev/input/by-id/usb-Dell_Keyboard-event-kbd",
                                          "Dell Keyboard", 0x413C, 0x2107)
    pad = hid_device.InputDeviceInfo("/dev/input/event5", "/dev/input/by-id/usb-Numeric_Keypad-event-kbd",
                                     "Numeric Keypad", 0x05A4, 0x9840)
    scanner = hid_device.InputDeviceInfo("/dev/input/event7", "/dev/input/by-id/usb-Netum_Scanner-event-kbd",
                                         "Netum Scanner", 0x0C2E, 0x0B61)
    monkeypatch.setattr(hid_device, "keyboard_devices", lambda accept=None: [keyboard, pad, scanner])
    opened: dict[str, list[ScriptedDevice]] = {}
    plays: dict[str, list[list[tuple[int, int, float]]]] = {  # each opening: a code first, then a key
        scanner.path: [_scanned("MB-CMD-OK"), _scanned("MB-D100-07")],  # the scanner scans, and again later
        pad.path: [[(ecodes.KEY_KPENTER, 1, 0.0), (ecodes.KEY_KPENTER, 0, 0.1)]] * 2,  # someone presses Enter
        keyboard.path: [[], []],
    }

    def factory(port: str, baudrate: int, timeout: float) -> ScriptedDevice:
        device = ScriptedDevice(plays[port][len(opened.setdefault(port, []))])
        opened[port].append(device)
        return device

    done = scan_test.run_identify(Namespace(seconds=20.0), port_factory=factory)
    out = capsys.readouterr().out.splitlines()
    assert done == 0
    assert "scanner 0c2e:0b61 /dev/input/by-id/usb-Netum_Scanner-event-kbd" in out
    assert "keypad 05a4:9840 /dev/input/by-id/usb-Numeric_Keypad-event-kbd" in out
    assert len(opened[scanner.path]) == 1, "the scanner is not listened to for the keypad"
    assert all(device.closed for devices in opened.values() for device in devices)


def test_scan_test_buttons_prints_each_press_and_the_name_of_a_stray_key(monkeypatch: pytest.MonkeyPatch,
                                                                         tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    from bornes.drivers import keypad as keypad_module
    from bornes.drivers.readers import hid_device
    from bornes.firmware.cli import main

    config = tmp_path / "config.toml"
    config.write_text(f'[state]\ndir = "{tmp_path}"\n[buttons]\nsource = "hid"\nport = "05a4:9840"\n'
                      '[buttons.keys]\nF13 = "SEAT2"\n', encoding="utf-8")
    monkeypatch.setattr(hid_device, "keyboard_devices", lambda accept=None: [])
    keys = [(ecodes.KEY_KPPLUS, 1, 0.0), (ecodes.KEY_KPPLUS, 0, 0.1), (ecodes.KEY_F5, 1, 0.3), (ecodes.KEY_F5, 0, 0.1),
            (ecodes.KEY_F13, 1, 0.3), (ecodes.KEY_F13, 0, 0.1), (ecodes.KEY_KPMINUS, 1, 0.3),
            (ecodes.KEY_KPMINUS, 0, 1.2)]
    real_open = keypad_module.open_keypad
    monkeypatch.setattr(keypad_module, "open_keypad", lambda port, events, keymap, holds, **options: real_open(
        port, events, keymap, holds, serial_factory=lambda *_: ScriptedDevice(keys), **options))
    assert main(["scan-test", "--buttons", "--count", "3", "--seconds", "20", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert "Listening on the keypad 05a4:9840, keys: 0=CF" in out and "F13=SEAT2" in out
    lines = [" ".join(line.split()) for line in out.splitlines()]
    assert "button NEXT" in lines and "button SEAT2" in lines and "button BACK (held)" in lines
    assert "! unknown-key: F5" in lines
    assert lines[-1] == "3 presses, 0 reconnects"


def test_doctor_says_the_keypad_is_missing_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from bornes.firmware.cli import main

    config = tmp_path / "config.toml"
    config.write_text(f'[state]\ndir = "{tmp_path}"\n[buttons]\nsource = "hid"\n'
                      'port = "/dev/input/by-id/usb-none-event-kbd"\n', encoding="utf-8")
    main(["doctor", "--config", str(config)])
    lines = capsys.readouterr().out.splitlines()
    [line] = [line for line in lines if line.startswith(("OK   buttons", "FAIL buttons", "WARN buttons"))]
    assert line.startswith("FAIL buttons /dev/input/by-id/usb-none-event-kbd: no such keypad; plug it in")
    assert not any("Traceback" in line for line in lines)


@pytest.mark.parametrize(("text", "words"), [
    ('[buttons]\nsource = "hid"\n', 'buttons.source = "hid" needs buttons.port'),
    ('[buttons]\nsource = "hid"\nport = "0c2e:0b61"\n[reader]\nprotocol = "hid"\nport = "0C2E:0B61"\n',
     'buttons.port = "0c2e:0b61" is also reader.port'),
    ('[buttons]\nkeymap = "qwerty"\n', 'buttons.keymap = "qwerty" is not one of numpad, pad6'),
    ('[buttons.keys]\nKP7 = "UNDO"\nKP9 = "UNDO"\n', "buttons.keys.KP9 names UNDO twice (KP7 and KP9)"),
    ('[buttons.keys]\nHYPER = "OK"\n', "buttons.keys.HYPER 'HYPER' is no key"),
    ('[buttons.keys]\nKPENTER = "PAUSE"\n', "buttons.keys.KPENTER 'PAUSE' is not a button"),
    ('[buttons]\nkeys = ["OK"]\n', "buttons.keys = [\"OK\"] should be a table"),
])
def test_a_bad_buttons_section_stops_the_referee_in_one_line(tmp_path: Path, text: str, words: str) -> None:
    config = tmp_path / "config.toml"
    config.write_text(text + f'[state]\ndir = "{tmp_path}"\n[pins]\nfactory = "mock"\n', encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "bornes.firmware.cli", "run", "--config", str(config)],
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 78, done.stderr
    said = done.stderr.strip().splitlines()
    assert len(said) == 1 and words in said[0], said
    assert not (tmp_path / "bornes.sqlite3").exists()  # nothing started, nothing changed
