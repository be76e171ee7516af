"""A keypad table tried on a laptop (issue 40): ``bornes run --emulate`` with ``[buttons] source = "hid"``.

Its keys are typed as printed or by their kernel names (``+``, ``enter``, ``KP0``, ``long enter``) and
act as the keypad would; ``help`` lists them; the console speaks the table's language and calls the
keypad the keypad; the panel's footers and messages name the keys, not buttons the table lacks; the
legend and the TV page say the buttons in the table's language.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bornes.drivers.events import KEYPAD, ButtonPressed, ReaderBack, ReaderLost
from bornes.drivers.keypad import DEFAULT_HOLDS, KEYMAPS, KeypadProblem, keymap_from, typed_press
from bornes.firmware.appliance.console import input_words
from bornes.firmware.appliance.referee import _reader_news
from bornes.firmware.language.buttons import keyed, legend_words, using_keys
from bornes.firmware.language.i18n import speaking
from bornes.firmware.screens.legend import keys_html
from bornes.firmware.screens.model import LegendView, MenuView, StatusView
from bornes.firmware.screens.render import draw
from bornes.firmware.table.flow import TableFlow
from bornes.firmware.table.present import screen
from tests.emulator.test_emulator import BORNES, REPO, quiet_env
from tests.engine.helpers import new_game, run_down
from tests.flow.helpers import drive

NUMPAD = KEYMAPS["numpad"]


@pytest.mark.parametrize(("line", "pressed"), [
    ("+", ButtonPressed("NEXT")), ("kpplus", ButtonPressed("NEXT")), ("-", ButtonPressed("BACK")),
    ("enter", ButtonPressed("OK")), ("Enter", ButtonPressed("OK")), ("kpenter", ButtonPressed("OK")),
    ("KPENTER", ButtonPressed("OK")), ("0", ButtonPressed("CF")), ("KP0", ButtonPressed("CF")),
    (".", ButtonPressed("DISCARD")), ("*", ButtonPressed("UNDO")), ("3", ButtonPressed("SEAT3")),
    ("long enter", ButtonPressed("OK", long=True)), ("long -", ButtonPressed("BACK", long=True)),
    ("long *", ButtonPressed("UNDO", long=True)), ("long +", ButtonPressed("NEXT")),  # NEXT has no hold
    ("9", KeypadProblem("unknown-key", "9")), ("f5", KeypadProblem("unknown-key", "F5")),
])
def test_a_typed_key_presses_what_the_keypad_would(line: str, pressed: object) -> None:
    assert typed_press(NUMPAD, DEFAULT_HOLDS, line) == pressed


@pytest.mark.parametrize("line", ["ok", "next", "back", "undo", "discard", "cf", "seat2", "long ok", "MB-ROLL-01",
                                  "@B MB-STOP-01", "hello", "", "long", "+ +"])
def test_buttons_cards_and_words_are_no_keys(line: str) -> None:
    """The kernel has KEY_NEXT, KEY_BACK and KEY_UNDO: typed, they stay the buttons they were (``help``
    never gets here: the console answers it)."""
    assert typed_press(NUMPAD, DEFAULT_HOLDS, line) is None


def test_the_key_map_the_config_names_is_the_one_typed() -> None:
    pad6 = KEYMAPS["pad6"]
    assert typed_press(pad6, DEFAULT_HOLDS, "6") == ButtonPressed("OK")
    assert typed_press(pad6, DEFAULT_HOLDS, "1") == ButtonPressed("CF")
    assert typed_press(pad6, DEFAULT_HOLDS, "+") == KeypadProblem("unknown-key", "+ (EQUAL)") or \
        typed_press(pad6, DEFAULT_HOLDS, "+") is None  # "+" is no kernel key name: not a key here
    changed = keymap_from("numpad", {"F13": "OK"})
    assert typed_press(changed, DEFAULT_HOLDS, "f13") == ButtonPressed("OK")
    assert typed_press(changed, DEFAULT_HOLDS, "enter") == KeypadProblem("unknown-key", "Enter (ENTER)")


def test_help_lists_the_keys_of_a_keypad_table_in_its_language() -> None:
    assert "0=CF" not in input_words("winning-moves")  # wired buttons: no keys
    english = input_words("winning-moves", NUMPAD)
    assert "0=CF  .=DISCARD  *=UNDO  Enter=OK  +=NEXT  -=BACK  1-8=SEAT1-SEAT8" in english
    assert "(enter, +, -)" in english and "(kpenter, kpplus, kpminus)" in english and "long enter" in english
    with speaking("fr"):
        french = input_words("dujardin", NUMPAD)
    assert "Entrée=OK" in french and ".=DÉFAUSSE" in french and "*=ANNULER" in french
    assert "1-8=PLACE1-PLACE8" in french and "long entrée" in french


def test_the_keypad_is_the_keypad_on_the_console() -> None:
    with speaking("fr"):
        assert str(_reader_news(ReaderLost("cannot open 05a4:9840: gone", KEYPAD))).startswith("pavé perdu")
        assert str(_reader_news(ReaderBack("05a4:9840", KEYPAD))) == "pavé revenu sur 05a4:9840"
        assert str(_reader_news(ReaderLost("cable"))).startswith("lecteur perdu")


def _texts(view: object) -> list[str]:
    return [box.text for box in draw(view).boxes if box.kind == "text"]  # type: ignore[arg-type]


def test_footers_and_messages_name_the_keys_a_keypad_table_has() -> None:
    keys = NUMPAD.labels()
    menu = MenuView(title="Edition", items=("Winning Moves", "Dujardin"))
    assert any("NEXT" in text for text in _texts(menu))  # wired buttons: named as printed on them
    with using_keys(keys):
        texts = _texts(menu)
        assert not any("NEXT" in text or "OK" in text for text in texts), texts
        assert any(text.startswith("+/-") and "Enter" in text for text in texts), texts
        with speaking("fr"):
            assert any("Entrée" in text for text in _texts(menu))
    game = new_game("winning-moves", 2)
    run_down(game, 0)
    flow = TableFlow(game=game)
    flow.keys = keys
    assert drive(flow, "press BACK long")[0].message == "End this blocked hand? Enter / -"
    view = screen(flow)
    assert isinstance(view, StatusView)
    with using_keys(keys):
        assert "Enter ends, - plays on" in " ".join(_texts(view))
    assert keyed("hold MB-CMD-OK, NEXTS, OK", keys) == "hold MB-CMD-OK, NEXTS, Enter"  # whole words only


def test_the_legend_and_the_tv_page_say_the_keys_in_the_tables_language() -> None:
    legend = NUMPAD.legend()
    assert legend_words(legend, "en") == legend
    french = dict(legend_words(legend, "fr"))
    assert french == {"0": "CF", ".": "DÉFAUSSE", "*": "ANNULER", "Entrée": "OK", "+": "SUIVANT", "-": "RETOUR",
                      "1-8": "PLACE1-PLACE8"}
    with speaking("fr"):
        texts = _texts(LegendView(keys=legend)) + _texts(LegendView(page=1, keys=legend))
    for word in ("Entrée", "DÉFAUSSE", "ANNULER", "PLACE1-PLACE8"):
        assert word in texts, texts
    page = keys_html(legend, "fr")
    assert "Entrée" in page and "DÉFAUSSE" in page and "DISCARD" not in page and "Enter<" not in page


def test_the_tv_page_band_says_the_keys_in_the_tables_language() -> None:
    pytest.importorskip("jinja2")
    from bornes.firmware.language.i18n import WEB_DOMAIN, translations
    from bornes.firmware.web.templating import Words
    from bornes.firmware.web.views import tv_page

    html = tv_page(None, Words("fr", translations("fr", WEB_DOMAIN)), NUMPAD.legend(), sound=False)
    assert "<kbd>Entrée</kbd> OK" in html and "<kbd>.</kbd> DÉFAUSSE" in html and "SEAT1" not in html


def test_a_keypad_table_on_a_laptop(tmp_path: Path) -> None:
    """The issue's table: French, four players, a numeric keypad; its keys typed on the console."""
    config = tmp_path / "keypad.toml"
    config.write_text('[display]\npanel = "ssd1306"\n[pins]\nfactory = "mock"\n'
                      f'[state]\ndir = "{tmp_path / "state"}"\n'
                      '[game]\nedition = "dujardin"\nplayers = 4\nnames = ["Françoise", "Bob", "Maëlle", "Élodie"]\n'
                      '[buttons]\nsource = "hid"\nport = "05a4:9840"\nkeymap = "numpad"\n', encoding="utf-8")
    # help, OK (starts the configured table), Bob rolls, a key of no button, Maëlle stops Bob, CF, the
    # safety, OK (Bob called it, not Élodie), DISCARD, the card, BACK held (end the hand?)
    typed = "help\nentrée\nMB-ROLL-01\n9\nMB-STOP-01\n0\nMB-RIGHTOFWAY-01\nenter\n.\nMB-D25-01\nlong -\n"
    done = subprocess.run([*BORNES, "run", "--emulate", "--config", str(config)], input=typed, capture_output=True,
                          text=True, timeout=90, cwd=REPO, env=quiet_env())
    assert done.returncode == 0, done.stderr
    out = done.stdout
    logged = [line.removeprefix("bornes: ") for line in out.splitlines() if line.startswith("bornes: ")]
    assert out.count("Entrée=OK  +=SUIVANT  -=RETOUR") == 2  # at start and on help
    assert "Pavé 05a4:9840 non ouvert avec --emulate" in out
    nbsp = "\u00a0"
    assert f"accepté{nbsp}: Bob{nbsp}: Feu Vert (MB-ROLL-01)" in logged  # "entrée" started the configured table
    assert f"refusé{nbsp}: Touche 9{nbsp}: pas un bouton, tenez Entrée pour les touches" in logged
    assert f"accepté{nbsp}: Coup fourré{nbsp}! Bob{nbsp}: Véhicule Prioritaire (MB-RIGHTOFWAY-01)" in logged
    assert f"accepté{nbsp}: Bob défausse 25 km (MB-D25-01)" in logged
    assert f"refusé{nbsp}: La manche continue{nbsp}: la pioche n'est pas vide" in logged  # held "-": not ended
    for wrong in ("Ni carte ni bouton", "lecteur", "buttons:", "keypad "):
        assert not any(wrong in line for line in logged), (wrong, logged)


@pytest.mark.parametrize("language", ["en", "fr"])
def test_every_screen_fits_with_the_keys_named(language: str) -> None:
    """"Entrée" is longer than "OK": named by its keys, every footer still fits (a shorter phrasing)."""
    from bornes.firmware.screens import SMALL, WIDE
    from bornes.firmware.screens.render import layout_problems
    from bornes.firmware.screens.samples import sample_screens

    failures = []
    for keymap in KEYMAPS.values():
        with speaking(language), using_keys(keymap.labels()):
            for name, view in sample_screens().items():
                for size in (SMALL, WIDE):
                    failures += [f"{name} {size}: {problem}" for problem in layout_problems(view, size)]
    assert failures == []
