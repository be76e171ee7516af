"""Several readers at one table (pile pads): real pyserial on pseudo-terminals, one queue.

Four pads tap at once from four threads: every tap arrives, each pad's taps in the order they
were made, each with its pad; one card seen by two pads within the double-read window is one
card. The readers come from a config file, as the appliance opens them.
"""

from __future__ import annotations

import queue
import threading
from pathlib import Path
from typing import Any

import pytest

from bornes.drivers.events import CardScanned, ReaderBack
from bornes.engine.cards import full_deck
from bornes.firmware.appliance.config import ConfigError, parse_config
from bornes.firmware.appliance.reader_options import open_table_readers
from tests.readers.fakes import PtyDevice, drain, wait_for


def pads_config(devices: dict[str, PtyDevice], table_reader: bool = False) -> str:
    text = "[reader]\nport = \"/dev/null-table\"\n" if table_reader else ""
    for place, device in devices.items():
        text += f"[pads.{place}]\nprotocol = \"lines\"\nport = \"{device.path}\"\nmax_backoff = 0.2\n"
    return text


def test_four_pads_tapping_at_once_lose_and_reorder_nothing() -> None:
    devices = {place: PtyDevice() for place in ("A", "B", "C", "discard")}
    config = parse_config(pads_config(devices))
    assert not config.table_reader and [p.place for p in config.pads] == ["A", "B", "C", "discard"]
    deck = [card.code() for card in full_deck()]
    share = {place: deck[i::4][:25] for i, place in enumerate(devices)}
    events: queue.Queue[Any] = queue.Queue()
    readers = open_table_readers(config, events, None)
    try:
        for _ in devices:
            wait_for(events, lambda e: isinstance(e, ReaderBack))
        start = threading.Barrier(len(devices))

        def tap_all(place: str) -> None:
            start.wait()
            for code in share[place]:
                devices[place].write(code.encode() + b"\r\n")

        threads = [threading.Thread(target=tap_all, args=(place,)) for place in devices]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        got: list[CardScanned] = []
        while len(got) < 100:
            got += [e for e in wait_for(events, lambda e: isinstance(e, CardScanned)) if isinstance(e, CardScanned)]
        got += [e for e in drain(events) if isinstance(e, CardScanned)]
    finally:
        for reader in readers:
            reader.close()
        for device in devices.values():
            device.unplug()
    assert len(got) == 100
    for place, codes in share.items():
        assert [e.card.code() for e in got if e.pad == place] == codes  # all of them, in order


def test_one_card_seen_by_two_pads_is_one_card() -> None:
    devices = {place: PtyDevice() for place in ("A", "B")}
    config = parse_config(pads_config(devices))
    events: queue.Queue[Any] = queue.Queue()
    readers = open_table_readers(config, events, None)
    try:
        for _ in devices:
            wait_for(events, lambda e: isinstance(e, ReaderBack))
        devices["A"].write(b"MB-STOP-01\r\n")
        first = wait_for(events, lambda e: isinstance(e, CardScanned))[-1]
        devices["B"].write(b"MB-STOP-01\r\nMB-D25-01\r\n")  # the same card, on the pad beside it
        later = [e for e in wait_for(events, lambda e: isinstance(e, CardScanned)) if isinstance(e, CardScanned)]
    finally:
        for reader in readers:
            reader.close()
        for device in devices.values():
            device.unplug()
    assert (first.card.code(), first.pad) == ("MB-STOP-01", "A")
    assert [(e.card.code(), e.pad) for e in later] == [("MB-D25-01", "B")]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('[pads.Q]\nport = "/dev/ttyUSB0"\n', "pads.Q.place"),
        ('[pads.A]\nport = "/dev/x"\n[pads.B]\nport = "/dev/x"\n', "also the port of pads.A"),
        ('[pads.A]\nport = "/dev/x"\nseat = 1\n', "unknown key pads.A.seat"),
        ('[pads.A]\nprotocol = "hid"\nport = "/dev/x"\nlayout = "dvorak"\n', "pads.A.layout"),
        ('pads = 3\n', "pads = 3"),
    ],
)
def test_bad_pad_config_says_which_key_in_one_line(text: str, says: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(text)
    assert says in str(caught.value) and "\n" not in str(caught.value)


def test_pads_may_be_named_and_placed(tmp_path: Path) -> None:
    config = parse_config('[reader]\nport = "/dev/ttyUSB0"\n[pads.ann]\nplace = "a"\nport = "/dev/ttyUSB1"\n'
                          '[pads.pile]\nplace = "Discard"\nprotocol = "hid"\nport = "0c2e:0b61"\nlayout = "fr"\n')
    assert config.table_reader
    assert [(p.name, p.place, p.reader.protocol, p.reader.layout) for p in config.pads] == [
        ("ann", "A", "lines", "auto"), ("pile", "discard", "hid", "fr")]


def test_the_appliance_opens_every_pad_and_the_flow_reads_the_pile(tmp_path: Path) -> None:
    from bornes.firmware.appliance.assembly import Appliance

    devices = {place: PtyDevice() for place in ("A", "B", "C")}
    pads = "".join(f'[pads.{p}]\nport = "{d.path}"\n' for p, d in devices.items())
    config = parse_config(f'[display]\npanel = "dummy"\n[pins]\nfactory = "mock"\n[state]\ndir = "{tmp_path}"\n'
                          f'[game]\nedition = "winning-moves"\nplayers = 3\nnames = ["Ann", "Bob", "Cid"]\n'
                          f'dealer = 2\n{pads}')
    appliance = Appliance(config)
    try:
        assert len(appliance.readers) == 3 and not config.table_reader
        from bornes.engine.state import GameSetup

        appliance.flow.start_game(GameSetup.create("winning-moves", ["Ann", "Bob", "Cid"], dealer=2))
        outcomes = []
        for place, code in (("A", "MB-ROLL-01"), ("B", "MB-ROLL-02"), ("C", "MB-ROLL-03"), ("A", "MB-D100-01"),
                            ("C", "MB-STOP-01")):
            devices[place].write(code.encode() + b"\r\n")
            event = wait_for(appliance.events, lambda e: isinstance(e, CardScanned))[-1]
            outcomes.append(appliance.flow.handle(event))
    finally:
        appliance.close()
        for device in devices.values():
            device.unplug()
    actions = [o.action.notation() for o in outcomes if o.action is not None]
    assert actions == ["A play MB-ROLL-01", "B play MB-ROLL-02", "C play MB-ROLL-03", "A play MB-D100-01",
                       "B play MB-STOP-01 > C"]


def test_a_usb_rfid_number_enrols_and_then_reads_as_its_card(tmp_path: Path) -> None:
    """The 10 digits a keyboard-mode RFID reader types go through bornes enroll's walk."""
    from bornes.drivers.readers import BindingTable, CardResolver
    from bornes.drivers.readers.hid import HidDecoder, keys_for
    from bornes.firmware.deck.enrollment import Enrollment

    class Key:
        def __init__(self, code: int, value: int, when: float) -> None:
            self.type, self.code, self.value, self._when = 1, code, value, when

        def timestamp(self) -> float:
            return self._when

    def typed(text: str) -> list[Key]:
        keys, when = [], 10.0
        for code, _shift in [*keys_for(text, "us"), (28, False)]:
            when += 0.003
            keys += [Key(code, 1, when), Key(code, 0, when)]
        return keys

    table = BindingTable(path=tmp_path / "bindings.json")
    walk = Enrollment(table, ["MB-D100-07", "MB-STOP-01"])
    (reading,) = HidDecoder("auto").feed(typed("0012345678"))
    event = CardResolver(table).resolve(reading.raw, is_uid=reading.is_uid)  # type: ignore[union-attr]
    assert walk.offer_uid(event.raw).bound
    assert BindingTable.load(tmp_path / "bindings.json").lookup("00BC614E") == "MB-D100-07"
    again = CardResolver(table).resolve(reading.raw, is_uid=True)  # type: ignore[union-attr]
    assert isinstance(again, CardScanned) and again.card.code() == "MB-D100-07"
