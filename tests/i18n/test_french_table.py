"""A French table reads French: every verdict of ``bornes feed`` on a Dujardin table, and the
phrasing layer's French typography (no-break space before : ; ! ?, elision, km)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bornes.engine.actions import Discard, EndHand, Play
from bornes.engine.cards import Card, CardKind
from bornes.engine.reasons import Reason
from bornes.engine.state import GameSetup
from bornes.firmware.cli import main
from bornes.firmware.language import i18n, words

SCRIPT = Path(__file__).resolve().parents[1] / "flow" / "games" / "dujardin-french.feed"
NBSP = "\u00a0"
#: Words that only an English sentence of the table would hold (none is French).
ENGLISH = frozenset(
    [
        "the",
        "on",
        "play",
        "plays",
        "first",
        "your",
        "roll",
        "rolls",
        "stop",
        "stopped",
        "miles",
        "mile",
        "hand",
        "game",
        "over",
        "wins",
        "win",
        "not",
        "card",
        "cards",
        "already",
        "extend",
        "extends",
        "deals",
        "starts",
        "new",
        "discards",
        "takes",
        "only",
        "speed",
        "limit",
        "trip",
        "turn",
        "answers",
        "with",
        "lays",
        "choose",
        "target",
        "safety",
        "hazard",
        "scan",
        "tie",
    ]
)


def _feed(capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, object]:
    assert main(["feed", "--json", str(SCRIPT), *extra]) == 1  # some inputs are refused (docs/exit-codes.md)
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def _inputs(out: dict[str, object]) -> list[dict[str, str]]:
    """The feed's per-input verdicts (JSON objects of words)."""
    inputs = out["inputs"]
    assert isinstance(inputs, list) and all(isinstance(entry, dict) for entry in inputs)
    return inputs


def _messages(out: dict[str, object]) -> list[str]:
    return [str(entry["message"]) for entry in _inputs(out) if "message" in entry]


def test_a_dujardin_table_feeds_no_english_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    """Refusals, plays, a coup fourré and an extension (tests/flow/games/dujardin-french.feed),
    with the language left to the edition: every verdict and label is French."""
    out = _feed(capsys)
    english = _feed(capsys, "--lang", "en")
    verdicts = [entry["verdict"] for entry in _inputs(out)]
    reasons = {entry.get("reason") for entry in _inputs(out)}
    assert {"refused", "accepted", "prompt"} <= set(verdicts)
    assert {"not-rolling", "on-table", "unknown-card", "speed-limit"} <= reasons
    actions = [entry.get("action", "") for entry in _inputs(out)]
    assert any(" coup " in a for a in actions) and any("extension yes" in a for a in actions)
    said = _messages(out)
    assert len(said) == len(_messages(english))
    for french, source in zip(said, _messages(english), strict=True):
        tokens = {word.lower() for word in re.findall(r"[A-Za-zÀ-ÿ]+", french)}
        assert not tokens & ENGLISH, french
        if re.search(r"[a-z]{3}", source.replace("Anaïs", "").replace("Jérôme", "")):
            assert french != source, f"not translated: {source!r}"
    labels = out["labels"]
    assert isinstance(labels, dict) and labels["Milestones"] != "Milestones"
    assert (
        "partie" in said[0]
        and any("prolonge" in s for s in said)
        and any("Coup fourré" + NBSP + "!" in s for s in said)
    )


def test_french_typography_no_break_space_and_elision() -> None:
    setup = GameSetup.create("dujardin", ["Anaïs", "Bob"])
    assert words.action_words(setup, Play(0, Card(CardKind.ROLL, 1)), "fr")[0] == f"Anaïs{NBSP}: Feu Vert"
    assert words.action_words(setup, Discard(1, Card(CardKind.D50, 1)), "fr")[0] == "Bob défausse 50 km"
    assert words.taken_back(setup, Play(0, Card(CardKind.D50, 2)), "fr")[0] == "50 km d'Anaïs"
    assert words.taken_back(setup, Play(1, Card(CardKind.D50, 2)), "fr")[0] == "50 km de Bob"
    assert words.fill("{card} de {name}", "fr", card="25 km", name="Hélène") == "25 km d'Hélène"
    assert words.fill("de {name}", "fr", name="Eve") == "d'Eve"
    assert words.fill("{card} de {name}", "en", card="x", name="Anaïs") == "x de Anaïs"  # English never elides
    assert words.distance(700, "fr") == "700 km" and words.distance(700, "en") == "700 miles"
    assert words.edition_title("dujardin", "fr").startswith("1000 Bornes Dujardin")
    assert words.card_name(CardKind.DRIVING_ACE, "dujardin", "fr") == "As du Volant"
    assert words.card_name(CardKind.SPARE_TIRE, "dujardin", "fr") == "Roue de Secours"


def test_every_french_msgstr_has_a_no_break_space_before_double_punctuation() -> None:
    """French puts a (no-break) space before : ; ! ? — never a plain one, which a panel could wrap."""
    from babel.messages.pofile import read_po

    wrong = []
    for po in sorted((Path(i18n.LOCALE_DIR) / "fr" / "LC_MESSAGES").glob("*.po")):
        with po.open("rb") as handle:
            catalogue = read_po(handle)
        for message in catalogue:
            if not message.id:
                continue
            for text in message.string if isinstance(message.string, (list, tuple)) else [message.string or ""]:
                bare = re.sub(r"\{[^}]*\}", "{}", text)  # a format field's !r or :>3 is not punctuation
                bare = re.sub(r"https?://\S+", "", bare)
                if re.search(r"[^\u00a0\d/(\"'\n]([:;!?])", bare) or re.search(r" [:;!?]", bare):
                    wrong.append(f"{po.name}: {text!r}")
    assert wrong == []


def test_every_refusal_reason_is_worded_in_both_languages() -> None:
    """No reason falls through to the engine's English line: each has its own French words."""
    from bornes.engine.reasons import Refusal

    setup = GameSetup.create("dujardin", ["Anaïs", "Bob", "Chloé"])
    params: dict[str, object] = {
        "seat": 1,
        "side": 1,
        "sides": (1, 2),
        "card": Card(CardKind.ROLL, 3),
        "hazard": CardKind.STOP,
        "safety": CardKind.RIGHT_OF_WAY,
        "remedy": CardKind.ROLL,
        "trip": 700,
        "miles": 650,
        "card_miles": 100,
        "held": 6,
        "name": "Anaïs",
        "longest": 12,
    }
    for reason in Reason:
        refusal = Refusal(reason, "ENGLISH LINE", params)
        english = words.refusal_words(setup, refusal, "en")
        french = words.refusal_words(setup, refusal, "fr")
        assert "ENGLISH LINE" not in english + french, reason
        assert english[0] != french[0], reason


def test_dujardin_labels_print_the_french_card_names_in_km(tmp_path: Path) -> None:
    """``bornes labels --edition dujardin`` speaks the edition's language: "25 km n° 1", not "25 miles"."""
    import base64
    import zlib

    pytest.importorskip("reportlab")
    from bornes.firmware.deck.labels import label_title

    with i18n.speaking("fr"):
        assert label_title("MB-D25-01", "dujardin") == "25 km n° 1"
        assert label_title("MB-ROLL-02", "dujardin") == "Feu Vert n° 2"
    assert label_title("MB-D25-01", "winning-moves") == "25 miles #1"
    out = tmp_path / "labels.pdf"
    assert main(["labels", "--edition", "dujardin", "--card", "MB-D25-01", "--out", str(out)]) == 0
    pdf = out.read_bytes()
    streams = re.findall(rb"stream\r?\n(.*?)~>", pdf, re.S)
    text = b"".join(zlib.decompress(base64.a85decode(s.strip())) for s in streams)
    assert b"(25 km n\\260 1)" in text and b"miles" not in text


def test_a_blocked_hand_is_one_nobody_can_play_on() -> None:
    """Issue 40: the French question to end a blocked hand said "Plus personne ne roule" (nobody is rolling,
    the word of a Feu Vert), where the English says nobody can go on: nobody can play any more."""
    from bornes.firmware.screens.model import StatusView
    from bornes.firmware.table.present import screen
    from tests.engine.helpers import new_game, run_down
    from tests.flow.helpers import drive, game_flow

    game = new_game("winning-moves", 2)
    run_down(game, 0)
    flow = game_flow(game)
    with i18n.speaking("fr"):
        drive(flow, "press BACK long")
        view = screen(flow)
        assert isinstance(view, StatusView)
        assert view.detail.startswith("Personne ne peut plus jouer") and "roule" not in view.detail
        assert words.action_words(game.state.setup, EndHand(), "fr")[0].endswith("personne ne peut plus jouer")


def test_the_sheets_a_person_reads_are_in_the_tables_words(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 40: ``feed`` printed each hand's sheet as JSON with English keys ("Milestones") on a French
    table. A person reads the text output: the sheet as the table names its rows. ``--json`` is an API:
    its keys stay the rows' stable names, and ``labels`` says how the table names them."""
    capsys.readouterr()
    main(["feed", str(SCRIPT)])
    out = capsys.readouterr().out.splitlines()
    sheet = out[out.index(next(line for line in out if line.startswith("Manche 1"))):]
    assert sheet[0].split() == ["Manche", "1", "Anaïs", "Jérôme"]
    assert [line.rsplit(None, 2)[0] for line in sheet[1:]] == ["Kilomètres", "Total manche", "Report", "Total cumulé"]
    assert not any(line.startswith("{") for line in out) and "Milestones" not in "\n".join(out)
    main(["feed", str(SCRIPT), "--json"])
    document = json.loads(capsys.readouterr().out)
    assert "Milestones" in document["sheets"][0]["sides"]["Anaïs"] and document["labels"]["Milestones"] == "Kilomètres"
