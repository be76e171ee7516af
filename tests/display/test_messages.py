"""Every text the table flow can show, in players' words, fitting both panels, from the catalogue.

The messages are collected from the flow itself: whole bot games for every edition and table
(accepted plays, refusals, prompts, undo, coups fourrés, hand ends), plus the inputs a game
rarely meets (reader lost and back, a garbled read, an unknown card, a typed word, every
button in every state). Each is rendered where the table shows it, on both panels, and must
name players and cards in words (never ``A play MB-D75-3``), never be cut, overlap or leave
the panel.
"""

from __future__ import annotations

import gettext
import re
from pathlib import Path

import pytest

from bornes.drivers.events import (
    KEYPAD,
    ButtonPressed,
    CameraBlind,
    CameraSees,
    KeyTyped,
    ReaderBack,
    ReaderLost,
    ReaderProblem,
    UnknownScanned,
)
from bornes.drivers.readers.resolver import CardResolver
from bornes.engine.options import EDITIONS
from bornes.engine.state import GameSetup
from bornes.firmware.commands.screens import game_screens
from bornes.firmware.language import i18n
from bornes.firmware.screens import SMALL, WIDE
from bornes.firmware.screens.model import FeedbackView, ScreenView, StatusView, TableView, UndoPrompt
from bornes.firmware.screens.render import layout_problems, render
from bornes.firmware.screens.samples import sample_tables
from bornes.firmware.table.flow import TableFlow

#: Record notation: a seat letter and a verb, or a card code, as the journal writes them.
NOTATION = re.compile(r"\b[A-H] (play|discard|cf|take|swap|roll|extension|leftover|fast)\b|\bMB-[A-Z0-9]+-\d+\b")
ROOT = Path(__file__).resolve().parents[2]


def _flow_messages() -> list[FeedbackView]:
    """The flow's messages for inputs outside the bots' games, in every state that answers them."""
    found: list[FeedbackView] = []
    resolver = CardResolver()
    flow = TableFlow(edition="hasbro-2016", players=3, names=("Ann", "Bob", "Chloé"))

    def send(event: object) -> None:
        flow.handle(event)  # type: ignore[arg-type]
        if flow.ui.message:
            found.append(FeedbackView(flow.ui.message, flow.ui.refused, flow.ui.short))

    send(resolver.resolve("MB-D100-01"))  # a card before the game
    fast = EDITIONS["hasbro-2016"].options.with_strings({"fast_play": "yes"})  # so DISCARD held swaps
    flow.start_game(GameSetup.create("hasbro-2016", ("Ann", "Bob", "Chloé"), options=fast))
    found.append(FeedbackView(flow.ui.message or "", False, flow.ui.short))
    keypad = (ReaderLost("gone", KEYPAD), ReaderProblem("unknown-key", "Num Lock (NUMLOCK)", KEYPAD),
              ReaderProblem("keys-at-once", "two keys 3 ms apart", KEYPAD), ReaderBack("05a4:9840", KEYPAD))
    camera = (CameraBlind("unsteady", "no steady picture"), CameraSees(), CameraBlind("black", "it sees black"),
              CameraBlind("overexposed", "dazzled"), CameraSees())
    for event in (*keypad, *camera, ReaderLost("cable"), ReaderBack("/dev/ttyUSB0"),
                  ReaderProblem("one-card-at-a-time", "2 tags"), ReaderProblem("checksum", "bad"),
                  UnknownScanned("MB-XYZ-01", "unknown"), KeyTyped("help"),
                  KeyTyped("MB-NOPE"), ButtonPressed("UNDO"), ButtonPressed("CF"), ButtonPressed("CF"),
                  ButtonPressed("DISCARD"), ButtonPressed("DISCARD"), ButtonPressed("SEAT2"), ButtonPressed("BACK"),
                  ButtonPressed("SEAT8"), ButtonPressed("BACK", long=True), ButtonPressed("BACK"),
                  ButtonPressed("DISCARD", long=True), ButtonPressed("BACK")):
        send(event)
    for payload in ("MB-ROLL-01", "MB-STOP-01", "MB-ROLL-02"):
        send(resolver.resolve(payload))
    send(ButtonPressed("UNDO"))
    send(ButtonPressed("OK"))
    send(ButtonPressed("UNDO"))
    send(ButtonPressed("BACK"))
    flow.announce_resume()  # what a restart mid-game says
    found.append(FeedbackView(flow.ui.message or "", False, flow.ui.short))
    found += _partner_and_name_messages()
    return found


def _partner_and_name_messages() -> list[FeedbackView]:
    """The partner question (both partners of a stopped side hold the safety), the coup fourré it
    ends in, and a name typed in the setup's name editor."""
    found: list[FeedbackView] = []
    resolver = CardResolver()
    flow = TableFlow()
    flow.start_game(GameSetup.create("winning-moves", ("Ann", "Bob", "Cid", "Dee"), dealer=3))

    def send(event: object) -> None:
        flow.handle(event)  # type: ignore[arg-type]
        if flow.ui.message:
            found.append(FeedbackView(flow.ui.message, flow.ui.refused, flow.ui.short))

    for payload in ("MB-ROLL-01", "MB-ROLL-02", "MB-D100-01", "MB-STOP-01"):  # Dee stops Ann and Cid
        send(resolver.resolve(payload))
    send(ButtonPressed("CF"))
    send(resolver.resolve("MB-RIGHTOFWAY-01"))
    assert flow.ui.message is not None and flow.ui.message.startswith("Who called it?")
    send(ButtonPressed("NEXT"))  # Cid called it
    names = TableFlow(edition="winning-moves", players=2, names=("Ann", "Bob"))
    for button in ("OK", "OK", "OK", "NEXT", "OK"):  # New game, edition, players, then Ann's name
        names.handle(ButtonPressed(button))
    for button in ("NEXT", "OK", "OK", "OK", "OK"):  # "Bnn", ended by the blank after it
        names.handle(ButtonPressed(button))
        if names.ui.message:
            found.append(FeedbackView(names.ui.message, names.ui.refused, names.ui.short))
    found += _blocked_hand_messages()
    return found


def _blocked_hand_messages() -> list[FeedbackView]:
    """A hand nobody can finish (the draw pile spent): held BACK asks to end it, BACK plays on."""
    from tests.engine.helpers import new_game, run_down

    game = new_game("winning-moves", 2)
    run_down(game, 0)
    flow = TableFlow(game=game)
    found = []
    for event in (ButtonPressed("BACK", long=True), ButtonPressed("BACK")):
        flow.handle(event)
        if flow.ui.message:
            found.append(FeedbackView(flow.ui.message, flow.ui.refused, flow.ui.short))
    return found


def _game_views() -> list[ScreenView]:
    views: list[ScreenView] = []
    for name, edition in EDITIONS.items():
        for players in (edition.seat_counts[0], edition.seat_counts[-1]):
            views += game_screens(3, name, players, None, every=True, hands=1).values()
    return views


@pytest.fixture(scope="module")
def messages() -> list[FeedbackView]:
    found = _flow_messages()
    for view in _game_views():
        if isinstance(view, TableView) and view.message is not None:
            found.append(view.message)
    return list(dict.fromkeys(found))


def test_every_kind_of_message_is_met(messages: list[FeedbackView]) -> None:
    texts = " | ".join(m.text for m in messages)
    for kind in ("New game", "Undone", "Coup fourré", "Reader lost", "Unknown card", "scan it again",
                 "Scan the card to discard", "chosen", "Nothing to undo", "End this blocked hand", "Swap",
                 "The hand goes on: the draw pile has cards",
                 "Game resumed: hand 1", "Who called it? OK: Ann, NEXT: Cid", "Name: ", "the light flickers",
                 "Camera sees again"):
        assert kind in texts, kind
    assert any(m.refused for m in messages) and any(not m.refused for m in messages)


def test_messages_use_words_not_notation(messages: list[FeedbackView]) -> None:
    for message in messages:
        for text in (message.text, *message.short):
            if text.startswith(("Unknown card:", "Not a card or button:")):
                continue  # they quote what was scanned or typed, so the player can see it
            assert not NOTATION.search(text), text


def test_each_message_fits_both_panels(messages: list[FeedbackView]) -> None:
    tables = sample_tables()
    for message in messages:
        for base in (tables["table-2"], tables["table-6"]):
            view = TableView(base.sides, draw_pile=106, hand_number=12, turn_name="Chloé", message=message,
                             edition_title="Parker Brothers (1962 rules, revised 1988)")
            for size in (SMALL, WIDE):
                assert layout_problems(view, size) == [], (message, size)
        status = StatusView("Refused", message.text)
        undo = UndoPrompt(message.text)
        for size in (SMALL, WIDE):
            assert layout_problems(status, size) == [] and layout_problems(undo, size) == [], (message, size)


def test_every_table_text_is_in_the_catalogue() -> None:
    from babel.messages.extract import extract_from_file
    from babel.messages.pofile import read_po

    keywords = {"_": None, "N_": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2), "NC_": ((1, "c"), 2),
                "en_": None}
    # As firmware/language/locale/README.md extracts them: the phone pages and the club board keep their own
    # catalogues (bornes-web, bornes-club), so their folders are not the table's. The drivers' English lines
    # that bornes doctor says again in the table's language are marked with en_() (drivers/errors.py).
    own_catalogues = {"web", "club"}
    sources = sorted(path for path in (ROOT / "firmware").rglob("*.py")
                     if not own_catalogues & set(path.relative_to(ROOT / "firmware").parts[:-1]))
    sources += sorted((ROOT / "drivers").rglob("*.py"))
    wanted = set()
    for source in sources:
        for _line, message, _comments, context in extract_from_file("python", str(source), keywords=keywords):
            msgid = message[0] if isinstance(message, tuple) else message
            wanted.add((context, msgid))
    with (ROOT / "firmware" / "language" / "locale" / "fr" / "LC_MESSAGES" / "bornes.po").open("rb") as handle:
        catalogue = read_po(handle)
    have = {(m.context, m.id[0] if isinstance(m.id, tuple) else m.id) for m in catalogue if m.id}
    assert len(wanted) > 100
    assert wanted - have == set(), "refresh the catalogue: see firmware/language/locale/README.md"


def test_a_translation_is_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A catalogue with a translation changes what the panel says, without a code change."""
    from babel.messages.catalog import Catalog
    from babel.messages.mofile import write_mo

    catalog = Catalog(locale="fr")
    catalog.add("{name} to play", "À {name} de jouer")
    catalog.add("Hand {hand} · {name} to play", "Manche {hand} · à {name}")
    catalog.add("Right of Way", "Prioritaire", context="card")
    mo = tmp_path / "bornes.mo"
    with mo.open("wb") as handle:
        write_mo(handle, catalog)
    english = render(sample_tables()["table-3"], SMALL)
    with mo.open("rb") as handle:
        monkeypatch.setitem(i18n._current, i18n.TABLE_DOMAIN, gettext.GNUTranslations(handle))
    from bornes.engine.cards import CardKind
    from bornes.firmware.language.words import card_name

    assert card_name(CardKind.RIGHT_OF_WAY) == "Prioritaire"
    french = render(sample_tables()["table-3"], SMALL)
    assert english.tobytes() != french.tobytes()
