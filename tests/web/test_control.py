"""The control socket: a real Unix socket, the real referee loop, a setup proposed and refused."""

from __future__ import annotations

import json
import queue
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bornes.drivers.events import ButtonPressed
from bornes.firmware.appliance.control import ControlListener, parse_message
from bornes.firmware.appliance.control_client import MAX_LINE, ControlError, ControlUnreachable, send
from bornes.firmware.appliance.referee import STOP, Referee
from bornes.firmware.table.flow import Mode, TableFlow

DEFAULTS: dict[str, Any] = {
    "edition": "winning-moves", "players": 4, "names": ["Anne", "Bruno", "Chloe", "David", "Emma", "Felix"],
    "dealer": 0, "options": {},
}


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[Path, Referee, queue.Queue[Any]]]:
    events: queue.Queue[Any] = queue.Queue()
    referee = Referee(TableFlow(), events, watchdog=False)
    listener = ControlListener(tmp_path / "control.sock", events, DEFAULTS)
    stop = threading.Event()
    loop = threading.Thread(target=referee.run, args=(stop,))
    loop.start()
    try:
        yield tmp_path / "control.sock", referee, events
    finally:
        events.put(STOP)
        loop.join(5)
        listener.close()
        listener.close()  # idempotent


def _raw(path: Path, data: bytes) -> dict[str, Any]:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(5)
        client.connect(str(path))
        client.sendall(data)
        answer = b""
        while not answer.endswith(b"\n"):
            chunk = client.recv(4096)
            if not chunk:
                break
            answer += chunk
    result = json.loads(answer)
    assert isinstance(result, dict)
    return result


def ask(path: Path, message: dict[str, Any]) -> str | None:
    """Through the one client (firmware/appliance/control_client.py): None when accepted, else the one line."""
    return send(path, message).refusal


def test_a_setup_with_accented_names_is_shown_and_one_ok_starts_it(table: tuple[Path, Referee, Any]) -> None:
    path, referee, events = table
    message = {"type": "setup", "edition": "dujardin", "players": 3, "names": ["Zoé", "Jérôme", "Anaïs"],
               "dealer": 1, "options": {"hazard_on_hazard": True}}
    assert ask(path, message) is None
    flow = referee.flow
    assert flow.ui.mode is Mode.SETUP and flow.draft.names == ["Zoé", "Jérôme", "Anaïs"]
    done = threading.Event()
    referee.on_outcome = lambda event, outcome: done.set()
    events.put(ButtonPressed("OK"))
    assert done.wait(5)
    assert flow.state is not None
    assert flow.state.setup.names == ("Zoé", "Jérôme", "Anaïs") and flow.state.setup.dealer == 1
    assert flow.state.setup.edition == "dujardin" and flow.state.options.hazard_on_hazard
    # A game is being played: a phone cannot replace it (the table keeps it for the game's end).
    assert ask(path, {"type": "setup", "edition": "winning-moves"}) == "busy until this game ends"
    assert flow.state.setup.names == ("Zoé", "Jérôme", "Anaïs")


def test_bad_messages_get_one_line_and_change_nothing(table: tuple[Path, Referee, Any]) -> None:
    path, referee, _events = table
    before = referee.flow.ui.mode, referee.flow.draft
    assert _raw(path, b"not json\n") == {"v": 1, "ok": False, "error": "not a JSON object on one line"}
    assert _raw(path, b'{"v": 2, "type": "setup"}\n')["error"].startswith("unknown protocol version")
    assert _raw(path, b'{"v": 1, "type": "play", "card": "MB-D100-01"}\n')["error"] == (
        "cards are played with cards, not from the socket"
    )
    assert _raw(path, b"x" * (MAX_LINE + 10))["error"] == f"message longer than {MAX_LINE} bytes"
    assert _raw(path, b'{"v":1,"type":"setup","edition":"dujardin","players":9}\n')["ok"] is False
    assert "same name" in _raw(path, b'{"v":1,"type":"setup","names":["A","A","B","C"]}\n')["error"]
    assert "characters" in _raw(path, b'{"v":1,"type":"setup","names":["a;b","B","C","D"]}\n')["error"]
    assert (referee.flow.ui.mode, referee.flow.draft) == before


def test_pairing_pin_is_shown_spent_once_and_void_after_five_wrong(table: tuple[Path, Referee, Any]) -> None:
    path, referee, _events = table
    assert ask(path, {"type": "pair", "url": "http://127.0.0.1:8080/"}) is None
    pin = referee.pairing.pin
    assert pin is not None and len(pin) == 6 and referee.pairing_shown
    wrong = "000000" if pin != "000000" else "111111"
    assert ask(path, {"type": "pin", "pin": wrong}) == "wrong PIN"
    assert ask(path, {"type": "pin", "pin": pin}) is None
    assert ask(path, {"type": "pin", "pin": pin}) == "no PIN is shown: ask for a new one"  # spent
    assert ask(path, {"type": "pair", "url": "http://127.0.0.1:8080/"}) is None
    for _ in range(4):
        assert ask(path, {"type": "pin", "pin": "abc"}) == "a PIN is 6 digits"
    pin = referee.pairing.pin
    wrong = "000000" if pin != "000000" else "111111"
    answers = [ask(path, {"type": "pin", "pin": wrong}) for _ in range(5)]
    assert answers[-1] == "wrong PIN; too many tries: ask for a new one"
    assert ask(path, {"type": "pin", "pin": pin}) == "no PIN is shown: ask for a new one"


def test_a_pin_is_made_only_when_someone_touched_the_table(table: tuple[Path, Referee, Any]) -> None:
    """Round two, finding 5: with no budget shared by every phone, guesses from many addresses must not
    get a PIN a minute each at night: a PIN is shown only within 10 minutes of a button or a card."""
    import time

    from bornes.firmware.appliance.control import PRESENCE_SECONDS

    path, referee, events = table
    referee.touched = time.monotonic() - PRESENCE_SECONDS - 1  # the table idle for longer
    url = "http://127.0.0.1:8080/"
    assert ask(path, {"type": "pair", "url": url, "asker": "10.0.0.2"}) == \
        "nobody is at the table: press a button there, then ask again"
    assert referee.pairing.pin is None and not referee.pairing_shown
    done = threading.Event()
    referee.on_outcome = lambda event, outcome: done.set()
    events.put(ButtonPressed("NEXT"))
    assert done.wait(5)
    assert ask(path, {"type": "pair", "url": url, "asker": "10.0.0.2"}) is None and referee.pairing.pin


def test_guesses_from_many_addresses_leave_each_pin_one_try() -> None:
    """Round two, finding 5: every phone's PIN is its own, so guessing scales with the addresses a
    network has; after 20 wrong PINs from everyone in 10 minutes, a PIN is void at its first wrong try,
    and a phone whose user reads the panel still pairs at the first try."""
    from bornes.firmware.appliance.control import LAN_WRONG, Pairing

    pairing = Pairing(seconds=120)
    for guesser in range(LAN_WRONG):
        pin = pairing.start("http://x/", now=1000.0, asker=f"10.0.0.{guesser}")
        assert pairing.check(f"{(int(pin) + 1) % 10**6:06d}", now=1001.0, asker=f"10.0.0.{guesser}") == "wrong PIN"
    pin = pairing.start("http://x/", now=1002.0, asker="10.0.0.200")
    assert pairing.check(f"{(int(pin) + 1) % 10**6:06d}", now=1003.0, asker="10.0.0.200") \
        == "wrong PIN; too many tries: ask for a new one"
    assert pairing.check(pin, now=1004.0, asker="10.0.0.200") == "no PIN is shown: ask for a new one"
    pin = pairing.start("http://x/", now=1005.0, asker="10.0.0.201")
    assert pairing.check(pin, now=1006.0, asker="10.0.0.201") is None
    # Ten minutes on, the wrong tries are forgotten: five tries a PIN again.
    pin = pairing.start("http://x/", now=1700.0, asker="10.0.0.202")
    assert pairing.check(f"{(int(pin) + 1) % 10**6:06d}", now=1701.0, asker="10.0.0.202") == "wrong PIN"


def test_a_phones_pin_is_checked_against_that_phone_only() -> None:
    from bornes.firmware.appliance.control import Pairing

    pairing = Pairing(seconds=120)
    first = pairing.start("http://x/", now=1000.0, asker="10.0.0.2")
    assert pairing.check(first, now=1001.0, asker="10.0.0.3") == "no PIN is shown: ask for a new one"
    second = pairing.start("http://x/", now=1002.0, asker="10.0.0.3")
    assert pairing.pin == second  # the panel shows the newest…
    for _ in range(5):
        pairing.check(f"{(int(first) + 1) % 10**6:06d}", now=1003.0, asker="10.0.0.3")
    assert pairing.check(first, now=1004.0, asker="10.0.0.2") is None  # …and the first still pairs its phone
    assert pairing.check(second, now=1005.0, asker="10.0.0.3") == "no PIN is shown: ask for a new one"


def test_parse_message_refuses_a_url_that_is_not_a_web_address() -> None:
    with pytest.raises(ControlError):
        parse_message(b'{"v":1,"type":"pair","url":"javascript:alert(1)"}', DEFAULTS)


def test_a_pin_of_superscript_digits_is_refused_in_one_line_not_a_dead_referee() -> None:
    """"¹²³⁴⁵⁶".isdigit() is True, and hmac.compare_digest raises TypeError on it: the referee's loop
    died on a PIN any device on the network could send. The socket refuses it like any bad PIN."""
    with pytest.raises(ControlError, match="digits"):
        parse_message('{"v":1,"type":"pin","pin":"¹²³⁴⁵⁶"}'.encode(), DEFAULTS)


def test_sending_to_no_referee_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ControlUnreachable, match=r"not reachable at .*absent\.sock"):
        send(tmp_path / "absent.sock", {"type": "setup"})


def test_a_pin_expires_and_a_new_request_makes_a_new_one() -> None:
    from bornes.firmware.appliance.control import Pairing

    pairing = Pairing(seconds=120)
    first = pairing.start("http://x/", now=1000.0)
    assert pairing.active(now=1119.0) and not pairing.active(now=1120.0)
    assert pairing.check(first, now=1121.0) == "no PIN is shown: ask for a new one"
    second = pairing.start("http://x/", now=2000.0)
    assert pairing.check(second, now=2001.0) is None


def test_a_silent_client_does_not_hold_up_the_others(table: tuple[Path, Referee, Any]) -> None:
    path, _referee, _events = table
    silent = [socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) for _ in range(2)]
    try:
        for client in silent:
            client.connect(str(path))  # connects and never sends a line
        assert ask(path, {"type": "pair", "url": "http://127.0.0.1:8080/"}) is None
    finally:
        for client in silent:
            client.close()
