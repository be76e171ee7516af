"""Sample views of a game in progress: every screen, for ``bornes screens`` and the golden tests.

Hand-written on purpose: the running table builds its views from the engine in
``bornes.firmware.table.present``; these fixed views pin down what each screen looks like in the golden
tests (team names, a coup fourré, a speed limit, an empty draw pile...).
"""

from __future__ import annotations

from bornes.engine import EDITIONS
from bornes.firmware.language.i18n import _, ngettext
from bornes.firmware.language.rule_labels import edition_short, option_lines, rules_hint
from bornes.firmware.screens.model import (
    NEEDS_ROLL,
    NOT_STARTED,
    ROLLING,
    CoupFourrePrompt,
    ExtensionPrompt,
    FeedbackView,
    GameOverView,
    LegendView,
    MenuView,
    NameEditView,
    PartnerPrompt,
    ScoreSheetView,
    ScreenView,
    SetupSummaryView,
    SideView,
    StatusView,
    TableView,
    TargetPrompt,
    UndoPrompt,
)

_FOUR: tuple[SideView, ...] = (
    SideView("Ann", 625, 1000, ROLLING, safeties=(("RIGHTOFWAY", True), ("DRIVINGACE", False)),
             score=2350, hand_points=1125, is_turn=True),
    SideView("Bob", 300, 1000, "ACCIDENT", limited=True, safeties=(("EXTRATANK", False),), score=1875,
             hand_points=400),
    SideView("Chloé", 1000, 1000, ROLLING, safeties=(("PUNCTUREPROOF", True),), score=4200, hand_points=1400),
    SideView("Dmitri", 0, 1000, NOT_STARTED, score=0),
)
_FOUR_TEAMS: tuple[SideView, ...] = (  # eight players, four partnerships (Dujardin)
    SideView("Ann+Eve", 625, 1000, ROLLING, safeties=(("RIGHTOFWAY", True), ("DRIVINGACE", False)),
             score=2350, hand_points=1125),
    SideView("Bob+Fay", 300, 1000, "ACCIDENT", limited=True, safeties=(("EXTRATANK", False),), score=1875,
             hand_points=400, is_turn=True),
    SideView("Chloé+Gus", 1000, 1000, ROLLING, safeties=(("PUNCTUREPROOF", True),), score=4200,
             hand_points=1400),
    SideView("Dmitri+Hélène", 0, 1000, "FLATTIRE", score=0),
)
_THREE: tuple[SideView, ...] = (
    SideView("Ann", 475, 700, "STOP", limited=True, safeties=(("DRIVINGACE", True),), score=1200, hand_points=875),
    SideView("Bob", 700, 700, ROLLING, safeties=(("RIGHTOFWAY", False), ("EXTRATANK", False)), score=950,
             hand_points=900, is_turn=True),
    SideView("Chloé", 150, 700, "OUTOFGAS", score=2100, hand_points=150),
)
_THREE_TEAMS: tuple[SideView, ...] = (  # six players, three partnerships
    SideView("Ann+Dmitri", 475, 1000, "STOP", limited=True, safeties=(("DRIVINGACE", True),), score=1200,
             hand_points=875),
    SideView("Bob+Eve", 700, 1000, ROLLING, safeties=(("RIGHTOFWAY", False), ("EXTRATANK", False)), score=950,
             hand_points=900, is_turn=True),
    SideView("Chloé+Fay", 150, 1000, "OUTOFGAS", score=2100, hand_points=150),
)
_TWO: tuple[SideView, ...] = (
    SideView("Ann", 850, 1000, "FLATTIRE", limited=True, safeties=(("EXTRATANK", True), ("RIGHTOFWAY", False)),
             score=3150, hand_points=1350),
    SideView("Bob", 1000, 1000, ROLLING, safeties=(("PUNCTUREPROOF", False),), score=2875, hand_points=1100,
             is_turn=True),
)
_TWO_TEAMS: tuple[SideView, ...] = (  # four players, two partnerships
    SideView("Ann+Chloé", 850, 1000, "FLATTIRE", limited=True, safeties=(("EXTRATANK", True),
             ("RIGHTOFWAY", False), ("DRIVINGACE", False), ("PUNCTUREPROOF", False)), score=3150, hand_points=1650),
    SideView("Bob+Dmitri", 1000, 1000, ROLLING, score=2875, hand_points=1000, is_turn=True),
)
_SIX: tuple[SideView, ...] = (
    SideView("Ann", 625, 1000, ROLLING, safeties=(("RIGHTOFWAY", True),), score=350, hand_points=1025),
    SideView("Bob", 300, 1000, "ACCIDENT", limited=True, score=100, hand_points=300, is_turn=True),
    SideView("Chloé", 1000, 1000, ROLLING, safeties=(("PUNCTUREPROOF", False), ("EXTRATANK", False)), score=200,
             hand_points=1200),
    SideView("Dmitri", 0, 1000, NOT_STARTED),
    SideView("Eve", 450, 1000, "STOP", safeties=(("DRIVINGACE", True),), score=400, hand_points=850),
    SideView("Fay", 75, 1000, NEEDS_ROLL, limited=True, hand_points=75),
)


def sample_tables() -> dict[str, TableView]:
    """The table for every shape of game (2 to 6 sides, partnerships too), plus messages and warnings."""
    return _sample_tables()


def _sample_tables() -> dict[str, TableView]:
    from bornes.firmware.language.words import ROLL, card_name

    classic, hasbro = _("Classic"), edition_short("hasbro-2016")
    four = TableView(_FOUR, draw_pile=42, hand_number=3, edition_title=hasbro, turn_name="Ann")
    three = TableView(_THREE, draw_pile=17, hand_number=2, edition_title=classic, turn_name="Bob")
    two = TableView(_TWO, draw_pile=0, play_out=True, hand_number=4, edition_title=classic, turn_name="Bob")
    coup = {"name": "Chloé", "card": card_name("PUNCTUREPROOF")}
    return {
        "table-2": two,
        "table-2-teams": TableView(_TWO_TEAMS, draw_pile=38, hand_number=2, edition_title=classic,
                                   turn_name="Bob"),
        "table-3": three,
        "table-3-teams": TableView(_THREE_TEAMS, draw_pile=55, hand_number=1, edition_title=classic,
                                   turn_name="Bob"),
        "table-4": four,
        "table-4-teams": TableView(_FOUR_TEAMS, draw_pile=12, hand_number=5, edition_title=edition_short("dujardin"),
                                   turn_name="Bob"),
        "table-5": TableView(_SIX[:5], draw_pile=31, edition_title=edition_short("1000-bornes"), turn_name="Bob"),
        "table-6": TableView(_SIX, draw_pile=23, edition_title=hasbro, turn_name="Bob"),
        "table-6-page2": TableView(_SIX, draw_pile=23, edition_title=hasbro, turn_name="Bob", page=1),
        "table-2-needs-roll": TableView(
            (SideView("Ann", 200, 700, NEEDS_ROLL, score=0, hand_points=200, is_turn=True),
             SideView("Bob", 75, 700, "STOP", hand_points=75)),
            draw_pile=61, turn_name="Ann", edition_title=classic),
        "table-4-accepted": TableView(_FOUR, draw_pile=41, hand_number=3, edition_title=classic, turn_name="Bob",
                                      message=FeedbackView(
                                          ngettext("Coup fourré! {name}: {card}; {lost} loses the turn",
                                                   "Coup fourré! {name}: {card}; {lost} lose their turn", 1).format(
                                              lost="Dmitri", **coup),
                                          short=(_("Coup fourré! {name}: {card}").format(**coup),
                                                 _("Coup fourré! {name}").format(**coup), _("Coup fourré!")))),
        "table-3-status": TableView(_THREE, draw_pile=17, hand_number=2, turn_name="Bob", status=_("Reader lost")),
        "refused": TableView(_FOUR, draw_pile=42, hand_number=3, turn_name="Ann",
                             message=FeedbackView(_("Play a {roll} first").format(roll=card_name(ROLL)),
                                                  refused=True, card=True)),
        "refused-short": TableView(_TWO, draw_pile=9, turn_name="Bob",
                                   message=FeedbackView(_("Not your turn"), refused=True, card=True)),
        # a button refused (a long BACK while the draw pile has cards): no card to take back (issue 40)
        "refused-button": TableView(_TWO, draw_pile=76, turn_name="Bob",
                                    message=FeedbackView(_("The hand goes on: the draw pile has cards"),
                                                         refused=True)),
    }


def sample_screens() -> dict[str, ScreenView]:
    """Every screen, named for its PNG file, its words from the catalogue in the language in use."""
    from bornes.firmware.language.words import card_name, edition_title

    screens: dict[str, ScreenView] = dict(sample_tables())
    sheet = _("Hand {hand}").format(hand=3)
    screens.update({
        "prompt-coup-fourre": CoupFourrePrompt("Bob", "ACCIDENT", seconds_left=5),
        "prompt-target": TargetPrompt(card_name("STOP"), ("Bob", "Chloé", "Dmitri"), selected=1, hazard="STOP"),
        "prompt-partner": PartnerPrompt(("Bob", "Dmitri"), selected=0,
                                        hint=(_("OK {first}   NEXT {second}").format(first="Bob", second="Dmitri"),)),
        "prompt-extension": ExtensionPrompt("Ann", selected_yes=True),
        "prompt-undo": UndoPrompt(_("{card} by {name}").format(card=card_name("ACCIDENT"), name="Bob")),
        "menu-edition": MenuView(_("Edition"), tuple(edition_title(name) for name in EDITIONS), selected=1),
        "menu-players": MenuView(_("Players"), (*(_("{count} players").format(count=n) for n in (2, 3)),
                                                _("{count} in teams").format(count=4),
                                                _("{count} players").format(count=5),
                                                _("{count} in teams").format(count=6)), selected=2),
        "menu-names": NameEditView(_("Name of seat {letter}").format(letter="C"), "Chloé", cursor=2),
        "menu-dealer": MenuView(_("Who deals?"), ("Ann", "Bob", "Chloé", "Dmitri"), selected=3),
        # The same labels as the appliance's Rules menu (firmware/language/rule_labels.py), one house rule changed.
        "menu-options": MenuView(_("Rules"), (_("Start the game"), *option_lines(
            EDITIONS["parker-1988"].options.replace(hazard_on_hazard=False), "parker-1988")), selected=1,
                                 hint=rules_hint()),
        "setup-summary": SetupSummaryView("Ann, Bob, Chloé", edition_short("winning-moves"),
                                          _("{name} deals").format(name="Ann")),
        "setup-summary-teams": SetupSummaryView("Ann+Chloé, Bob+Dmitri", edition_short("parker-1988"),
                                                _("{name} deals").format(name="Bob")),
        "score-sheet-p1": ScoreSheetView(
            columns=(("Ann+Chloé", (625, 200, 300, 400, 0, 300, 0, 0, 1825, 2350, 4175)),
                     ("Bob+Dmitri", (300, 100, 0, 0, 0, 0, 0, 0, 400, 1875, 2275))),
            page=0, title=sheet),
        "score-sheet-p2": ScoreSheetView(
            columns=(("Ann+Chloé", (625, 200, 300, 400, 0, 300, 0, 0, 1825, 2350, 4175)),
                     ("Bob+Dmitri", (300, 100, 0, 0, 0, 0, 0, 0, 400, 1875, 2275))),
            page=1, title=sheet),
        "score-sheet-4": ScoreSheetView(
            columns=(("Ann", (1000, 100, 300, 400, 300, 300, 500, 200, 3100, 2350, 5450)),
                     ("Bob", (300, 0, 0, 0, 0, 0, 0, 0, 300, 1875, 2175)),
                     ("Chloé", (575, 200, 0, 0, 0, 0, 0, 0, 775, 4200, 4975)),
                     ("Dmitri", (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))),
            page=1, title=sheet),
        "score-sheet-teams-8": ScoreSheetView(  # eight players, four partnerships, a game of several hands
            columns=(("Léa+Maëlle", (1000, 200, 400, 400, 300, 300, 0, 0, 2600, 1900, 4500)),
                     ("Marc+Jean-Mathieu", (450, 100, 0, 0, 0, 0, 0, 0, 550, 2350, 2900)),
                     ("Chloé+Wim", (775, 0, 300, 0, 0, 0, 0, 0, 1075, 1275, 2350)),
                     ("Hugo+Élodie", (300, 100, 0, 0, 0, 0, 0, 0, 400, 800, 1200))),
            page=0, title=sheet),
        "game-over": GameOverView("Ann", (("Ann", 5450), ("Bob", 2175), ("Chloé", 4975), ("Dmitri", 0))),
        "status-reader-lost": StatusView(_("Reader lost"), _("Check the reader's cable; play waits for it.")),
        "status-reader-back": StatusView(_("Reader back"), _("Scan the next card.")),
        "status-unknown-card": StatusView(_("Unknown card"),
                                          _("{code} is not a Mille Bornes card.").format(code="MB-XYZ-01")),
        "status-display": StatusView(_("Display problem"), _("The OLED did not answer; retrying.")),
        "status-config": StatusView(_("Config problem"), _("{file}: GPIO {pin} is used twice ({first} and {second}).")
                                    .format(file="pins.toml", pin=2, first="SDA", second="OK")),
        "legend": LegendView(page=0),
        "legend-last": LegendView(page=-1),
        # a table whose buttons are a numeric keypad: its keys come first (drivers/keypad.py's numpad map)
        "legend-keys": LegendView(page=0, keys=(("0", "CF"), (".", "DISCARD"), ("*", "UNDO"), ("Enter", "OK"),
                                                ("+", "NEXT"), ("-", "BACK"), ("1-8", "SEAT1-SEAT8"))),
    })
    return screens
