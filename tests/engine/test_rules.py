"""One test per rule, each naming the rulebook sentence it checks (docs/rules.md cites the same).

Sources: 000 Winning Moves, 001 2016 edition, 002 "1000 Bornes", 003 Parker 1988, 004 Dujardin,
all in shared/rulebooks/. D-numbers are the Decisions of docs/rules.md.
"""

from __future__ import annotations

import pytest

from bornes.engine.actions import Leftover, Play, parse_action
from bornes.engine.cards import Card, CardKind
from bornes.engine.game import Game
from bornes.engine.reasons import Refusal
from bornes.engine.rules import legal_actions
from bornes.engine.state import Phase
from tests.engine.helpers import ANY_KINDS, filler, miles, new_game, play, refused, run_down, seat, side, turn, until


def phase_of(game: Game) -> Phase:
    """The phase as of now (mypy keeps an asserted phase narrowed across the plays that change it)."""
    return game.state.phase


# -- Roll, Right of Way and distance -----------------------------------------------------------


def test_roll_needed_before_distance_000_6A() -> None:
    """000 §6A: "A ROLL! CARD (Green Light) must be displayed on your Battle Pile before your
    team can play any Distance Cards." """
    game = new_game()
    refused(game, "A play MB-D100-01", "not-rolling")
    play(game, "A play MB-ROLL-01", "B discard MB-D25-10", "A play MB-D100-01")
    assert miles(game, "A") == 100


def test_right_of_way_replaces_the_roll_000_6B() -> None:
    """000 §6B: Right of Way "permits you to play Distance Cards even though you do not have a
    Roll Card exposed"; 004 "Précision": "vous êtes dispensé de poser un Feu Vert". """
    for edition in ("winning-moves", "dujardin"):
        game = new_game(edition)
        play(game, "A play MB-RIGHTOFWAY-01", "A play MB-D100-01")
        assert miles(game, "A") == 100


def test_roll_on_roll_is_refused_D14() -> None:
    """D14: a Roll on a Roll changes nothing and is refused."""
    game = new_game()
    play(game, "A play MB-ROLL-01", "B discard MB-D25-10")
    refused(game, "A play MB-ROLL-02", "already-rolling")


def test_only_25_and_50_under_a_speed_limit_000_6A() -> None:
    """000 §6A: "While it is exposed, your opponents can only play 25 mile or 50 mile cards." """
    game = new_game()
    play(game, "A play MB-ROLL-01", "B play MB-SPEEDLIMIT-01 > A")
    for code in ("MB-D75-01", "MB-D100-01", "MB-D200-01"):
        refused(game, f"A play {code}", "speed-limit")
    play(game, "A play MB-D50-01", "B discard MB-D25-10", "A play MB-D25-01")
    assert miles(game, "A") == 75


def test_right_of_way_ignores_a_speed_limit_000_6B() -> None:
    """000 §6B: "You may also play 75, 100, and 200 mile cards even though a Speed Limit Card is
    exposed on top of your Speed Pile." (003 Right of Way use 1)"""
    game = new_game()
    play(game, "A play MB-ROLL-01", "B play MB-SPEEDLIMIT-01 > A", "A play MB-RIGHTOFWAY-01", "A play MB-D200-01")
    assert miles(game, "A") == 200
    assert not side(game, "A").limited


def test_at_most_two_200s_000_6C() -> None:
    """000 §6C: "no more than two 200 Mile Cards may be used." (004, 002 the same)"""
    game = new_game("winning-moves", 4)
    play(game, "A play MB-ROLL-01")
    until(game, "C")
    play(game, "C play MB-D200-01")
    until(game, "A")
    play(game, "A play MB-D200-02")
    until(game, "C")
    refused(game, "C play MB-D200-03", "too-many-200")
    assert side(game, "A").two_hundreds == 2


# -- hazards ------------------------------------------------------------------------------------


def test_hazard_needs_a_rolling_opponent_000_2() -> None:
    """000 §2: hazards "are played onto your opponents' Battle Pile on top of Roll Cards";
    004 Règle standard 3: "La Limite de Vitesse est la seule carte Attaque que vous pouvez
    placer devant un adversaire qui n'a pas encore démarré." """
    for edition in ("winning-moves", "dujardin", "hasbro-2016"):
        game = new_game(edition)
        for hazard in ("MB-STOP-01", "MB-OUTOFGAS-01", "MB-FLATTIRE-01", "MB-ACCIDENT-01"):
            refused(game, f"A play {hazard} > B", "needs-rolling-target")
        play(game, "A discard MB-D25-10", "B play MB-ROLL-01", "A play MB-STOP-01 > B")
        assert side(game, "B").active_hazard is CardKind.STOP


def test_hazard_not_on_a_remedy_without_right_of_way_000_6B() -> None:
    """000 §6B: the Right of Way case "is also the only time an opponent can play a Hazard Card
    directly on-top of any Remedy Card other than a Roll! Card" — so without it, no."""
    game = new_game()
    play(game, "A play MB-ROLL-01", "B play MB-OUTOFGAS-01 > A", "A play MB-GASOLINE-01")
    refused(game, "B play MB-FLATTIRE-01 > A", "needs-rolling-target")


def test_hazard_on_a_remedy_with_right_of_way_000_6B() -> None:
    """000 §6B: with Right of Way down "you do not need to play another Roll! Card but only the
    proper Remedy Card", and a hazard may then go directly on that remedy."""
    game = new_game()
    play(game, "A play MB-RIGHTOFWAY-01", "A play MB-D100-01", "B play MB-OUTOFGAS-01 > A", "A play MB-GASOLINE-01")
    play(game, "B play MB-FLATTIRE-01 > A")
    assert side(game, "A").active_hazard is CardKind.FLAT_TIRE
    play(game, "A play MB-SPARETIRE-01", "B discard MB-D25-10", "A play MB-D100-02")
    assert miles(game, "A") == 200


def test_hazard_on_an_empty_battle_pile_with_right_of_way_000_6B() -> None:
    """000 §6B: "Your opponents may, of course, stop you by playing OUT OF GAS, FLAT TIRE, or
    ACCIDENT CARDS" on a side that rolls on Right of Way with no Roll."""
    game = new_game()
    play(game, "A play MB-RIGHTOFWAY-01", "A play MB-D50-01", "B play MB-ACCIDENT-01 > A")
    assert side(game, "A").active_hazard is CardKind.ACCIDENT
    refused(game, "A play MB-D50-02", "stopped")


def test_speed_limit_before_the_first_roll_000_5C() -> None:
    """000 §5C: "he may play it in front of an opponent, even though his opponent has not yet had a
    chance to play and thus has no Roll Card exposed." (003 Playing C, 004 Règle standard 3)"""
    for edition in ("winning-moves", "parker-1988", "hasbro-2016", "dujardin", "1000-bornes"):
        game = new_game(edition)
        play(game, "A play MB-SPEEDLIMIT-01 > B")
        assert side(game, "B").limited


def test_speed_limit_on_a_stopped_opponent_000_12H() -> None:
    """000 §12H: "even when he has a Hazard Card showing on his Battle Pile"; 004 "La carte Limite
    de Vitesse peut se cumuler avec chacune des 4 autres attaques"; 001 the one exception."""
    for edition in ("winning-moves", "hasbro-2016", "dujardin"):
        game = new_game(edition)
        play(game, "A discard MB-D25-10", "B play MB-ROLL-01", "A play MB-STOP-01 > B", "B discard MB-D25-09")
        play(game, "A play MB-SPEEDLIMIT-01 > B")
        assert side(game, "B").active_hazard is CardKind.STOP and side(game, "B").limited


@pytest.mark.parametrize(
    ("edition", "allowed"),
    [
        ("winning-moves", True),
        ("parker-1988", True),
        ("1000-bornes", True),
        ("hasbro-2016", False),
        ("dujardin", False),
    ],
)
def test_speed_limit_on_a_limited_opponent_000_12H_vs_001_004(edition: str, allowed: bool) -> None:
    """000 §12H "or when he has a Speed Limit Card showing on his Speed Pile" (yes; 002 silent → D20);
    001 "Only one Hazard card can impact each player at a time" and 004 "cumuler avec chacune des
    4 autres attaques" (no)."""
    game = new_game(edition)
    play(game, "A play MB-SPEEDLIMIT-01 > B", "B discard MB-D25-10")
    if allowed:
        play(game, "A play MB-SPEEDLIMIT-02 > B")
        assert len(side(game, "B").speed) == 2
    else:
        refused(game, "A play MB-SPEEDLIMIT-02 > B", "already-limited")


def test_no_hazard_on_hazard_000_2() -> None:
    """000 §2: "Under no circumstances may one Hazard Card be played directly on top of another
    Hazard Card." (001 and 004 "ne peut pas être attaqué simultanément avec 2 attaques")"""
    for edition in ("winning-moves", "hasbro-2016", "dujardin", "1000-bornes"):
        game = new_game(edition)
        play(game, "A play MB-ROLL-01", "B play MB-OUTOFGAS-01 > A", "A discard MB-D25-10")
        refused(game, "B play MB-FLATTIRE-01 > A", "already-stopped")


def test_hazard_on_hazard_only_top_counts_003_note_G() -> None:
    """003 "Special Notes" G: "You are allowed to place a Hazard Card directly on top of another
    Hazard Card that's not yet remedied. [...] Only the Hazard Card that's on top of the pile
    counts." Remedying the top hazard then needs a Roll, as always in 003 ("Roll": "after playing a
    Gasoline, Spare Tire or Repair Card, you must first play a Roll Card")."""
    game = new_game("parker-1988")
    play(game, "A play MB-ROLL-01", "B play MB-OUTOFGAS-01 > A", "A discard MB-D25-10")
    play(game, "B play MB-FLATTIRE-01 > A")
    assert side(game, "A").active_hazard is CardKind.FLAT_TIRE
    refused(game, "A play MB-GASOLINE-01", "nothing-to-remedy")
    play(game, "A play MB-SPARETIRE-01", "B discard MB-D25-09")
    refused(game, "A play MB-D100-01", "not-rolling")
    play(game, "A play MB-ROLL-02", "B discard MB-D25-08", "A play MB-D100-01")
    assert miles(game, "A") == 100


def test_hazard_never_on_own_side() -> None:
    """000 §6A: "Hazard Cards are played onto your opponents' pile"."""
    game = new_game("winning-moves", 4)
    play(game, "A play MB-ROLL-01", "B discard MB-D25-10")
    refused(game, "C play MB-STOP-01 > A", "target-own-side")


def test_hazard_needs_a_target_with_two_possible_opponents() -> None:
    """With three sides the referee asks which opponent a hazard goes on, unless only one can take it."""
    game = new_game("winning-moves", 3)
    refused(game, "A play MB-SPEEDLIMIT-01", "target-needed")
    play(game, "A play MB-ROLL-01", "B discard MB-D25-10", "C play MB-ROLL-02")
    # B has not started, C rolls: the Stop can only go on C, no target needed.
    play(game, "A play MB-STOP-01")
    assert side(game, "B").battle == ()
    assert side(game, "C").active_hazard is CardKind.STOP
    # Now nobody can take a Stop: A rolls but B has not started and C is stopped... A is B's only
    # rolling opponent, so B needs no target either.
    play(game, "B play MB-STOP-02")
    assert side(game, "A").active_hazard is CardKind.STOP
    refused(game, "C play MB-STOP-03", "no-target")


@pytest.mark.parametrize("card", ["MB-D100-01", "MB-ROLL-01", "MB-RIGHTOFWAY-01"])
def test_target_on_a_card_that_never_goes_on_an_opponent_000_piles(card: str) -> None:
    """000, the layout paragraphs "BATTLE PILES", "SAFETY AREAS", "DISTANCE PILES": "Remedy Cards on your
    own Battle Pile"; Safety Cards "are never played on your opponents' Safety Area"; Distance Cards "are
    never played onto the opponents' piles". The
    notation "A play CARD > B" says the card goes on B's side; the referee accepts it and lays the card
    on A's own side, so the game record no longer says what happened at the table. It should refuse."""
    game = new_game()
    if card.startswith("MB-D"):
        play(game, "A play MB-ROLL-02", "B discard MB-D25-10")
    verdict = game.push(parse_action(f"A play {card} > B"))
    assert isinstance(verdict, Refusal)


def test_attack_needs_own_roll_option_001_FAQ() -> None:
    """001 "FAQ": "several versions of the game mention that you can't play a Hazard card before
    you play your first Roll/Drive card" — `attack_needs_own_roll=yes`; default no (000 §5)."""
    game = new_game("hasbro-2016", attack_needs_own_roll=True)
    play(game, "A play MB-ROLL-01")
    refused(game, "B play MB-STOP-01 > A", "attacker-not-started")
    refused(game, "B play MB-ACCIDENT-01 > A", "attacker-not-started")
    game = new_game("hasbro-2016")
    play(game, "A play MB-ROLL-01", "B play MB-STOP-01 > A")


def test_speed_limit_before_ones_own_roll_with_attack_needs_own_roll_001_FAQ() -> None:
    """001 "FAQ", "Can you play Hazard/Speed Limit cards on other players when you can't play a
    Distance card yourself?": "It seems like most versions of Mille Bornes allow you to play Speed
    Limit cards against other players even when you can’t play Distance cards yourself. This
    includes when you haven’t played a Drive/Roll card to start the round, or a Hazard card is
    impacting you." So `attack_needs_own_roll=yes` stops hazards, never a Speed Limit (D29)."""
    game = new_game("hasbro-2016", attack_needs_own_roll=True)
    play(game, "A play MB-ROLL-01")
    refused(game, "B play MB-STOP-01 > A", "attacker-not-started")
    held = [Card(CardKind.SPEED_LIMIT, 1), Card(CardKind.STOP, 1)]
    plays = [a.notation() for a in legal_actions(game.state, seat("B"), held) if isinstance(a, Play)]
    assert plays == ["B play MB-SPEEDLIMIT-01 > A"]  # the generator asks the same check
    play(game, "B play MB-SPEEDLIMIT-01 > A")
    assert side(game, "A").limited
    assert side(game, "B").battle == ()


# -- remedies -----------------------------------------------------------------------------------


def test_remedies_only_on_their_hazard_003_B() -> None:
    """003 "How to Play the Cards" B: "Play one onto the corresponding hazard an opponent has played
    against you." A Roll on Out of Gas/Flat/Accident is refused: the remedy first (000 §6A, D14)."""
    game = new_game()
    refused(game, "A play MB-GASOLINE-01", "nothing-to-remedy")
    play(game, "A play MB-ROLL-01", "B play MB-FLATTIRE-01 > A")
    refused(game, "A play MB-GASOLINE-01", "nothing-to-remedy")
    refused(game, "A play MB-REPAIRS-01", "nothing-to-remedy")
    refused(game, "A play MB-ROLL-02", "remedy-first")
    play(game, "A play MB-SPARETIRE-01")


def test_roll_cures_a_stop_000_6A() -> None:
    """000 §6A: a Stop holds "until they can cover it with another ROLL! Card"."""
    game = new_game()
    play(game, "A play MB-ROLL-01", "B play MB-STOP-01 > A")
    refused(game, "A play MB-D25-01", "stopped")
    play(game, "A play MB-ROLL-02", "B discard MB-D25-10", "A play MB-D25-01")


def test_end_of_limit_only_on_a_speed_limit_000_6A() -> None:
    """000 §6A: "An END OF LIMIT CARD is played onto your own team's Speed Pile, on top of a SPEED
    LIMIT Card"; D15: refused when Right of Way already cancelled the limit."""
    game = new_game()
    refused(game, "A play MB-ENDOFLIMIT-01", "no-limit")
    play(game, "A play MB-ROLL-01", "B play MB-SPEEDLIMIT-01 > A", "A play MB-ENDOFLIMIT-01")
    play(game, "B discard MB-D25-10", "A play MB-D100-01")
    play(game, "B play MB-SPEEDLIMIT-02 > A", "A play MB-RIGHTOFWAY-01")
    refused(game, "A play MB-ENDOFLIMIT-02", "no-limit")


@pytest.mark.parametrize(
    ("edition", "options", "roll_needed"),
    [
        ("winning-moves", {}, True),
        ("parker-1988", {}, True),
        ("1000-bornes", {}, True),
        ("hasbro-2016", {}, False),
        ("dujardin", {}, False),
        ("dujardin", {"roll_after_remedy": "yes"}, True),
    ],
)
def test_roll_after_remedy(edition: str, options: dict[str, str], roll_needed: bool) -> None:
    """000 §6A "until they have first played a GASOLINE CARD and then a ROLL!"; 002 "they must always
    start their next turn with a "green light""; 001 "You do not have to play a Drive card."; 004
    Règle standard 4 "vous n'avez pas besoin de poser un Feu Vert", and its "Variante" (règle
    originelle) "vous devez poser une carte Feu Vert pour pouvoir redémarrer après une attaque"."""
    game = new_game(edition, rule_options=options)
    play(game, "A play MB-ROLL-01", "B play MB-OUTOFGAS-01 > A", "A play MB-GASOLINE-01", "B discard MB-D25-10")
    if roll_needed:
        refused(game, "A play MB-D100-01", "not-rolling")
        play(game, "A play MB-ROLL-02", "B discard MB-D25-09")
    else:
        refused(game, "A play MB-ROLL-02", "already-rolling")
    play(game, "A play MB-D100-01")


def test_hazard_on_a_remedy_where_no_roll_is_needed_D27() -> None:
    """D27, 004 "Pour stopper un adversaire qui roule": with no Roll needed after a remedy, the
    remedy means rolling, so a hazard may go on it."""
    game = new_game("dujardin")
    play(game, "A play MB-ROLL-01", "B play MB-OUTOFGAS-01 > A", "A play MB-GASOLINE-01", "B play MB-STOP-01 > A")
    assert side(game, "A").active_hazard is CardKind.STOP


# -- safeties -----------------------------------------------------------------------------------


def test_safety_any_time_and_extra_turn_000_5B() -> None:
    """000 §5B: "The play of a Safety Card at any time during the game entitles a player to another
    turn. He immediately draws another card from the draw pile and makes another play." """
    game = new_game()
    pile = game.state.hand.draw_pile
    play(game, "A play MB-EXTRATANK-01")
    assert turn(game) == "A" and game.state.hand.hands == (6, 6) and game.state.hand.draw_pile == pile - 1
    play(game, "A play MB-DRIVINGACE-01", "A play MB-ROLL-01")
    assert turn(game) == "B" and game.state.hand.hands == (6, 6) and game.state.hand.draw_pile == pile - 3


def test_safety_protects_000_6B() -> None:
    """000 §6B: Safety Cards "prevent your team from being stopped by the corresponding Hazard Cards
    for the balance of the hand"; Right of Way covers Stop and Speed Limit."""
    game = new_game()
    play(game, "A play MB-EXTRATANK-01", "A play MB-RIGHTOFWAY-01", "A play MB-D25-01")
    refused(game, "B play MB-OUTOFGAS-01 > A", "protected")
    refused(game, "B play MB-STOP-01 > A", "protected")
    refused(game, "B play MB-SPEEDLIMIT-01 > A", "protected")
    play(game, "B play MB-ACCIDENT-01 > A")


@pytest.mark.parametrize(("edition", "roll_needed"), [("winning-moves", True), ("hasbro-2016", False),
                                                      ("dujardin", False), ("1000-bornes", True)])
def test_safety_cancels_the_attack_in_progress_000_6B_D2(edition: str, roll_needed: bool) -> None:
    """000 §6B: "As soon as a Safety Card is played, it prevents any further attack and cancels the
    attack in progress." Whether a Roll is then needed is `roll_after_safety` (D2; 001 "fix the
    Hazard card with the corresponding Remedy or Safety card")."""
    game = new_game(edition)
    play(game, "A play MB-ROLL-01", "B play MB-FLATTIRE-01 > A", "A discard MB-D25-10", "B discard MB-D25-09")
    play(game, "A play MB-PUNCTUREPROOF-01")
    assert side(game, "A").active_hazard is None
    assert turn(game) == "A"
    if roll_needed:
        refused(game, "A play MB-D100-01", "not-rolling")
        play(game, "A play MB-ROLL-02", "B discard MB-D25-08")
    play(game, "A play MB-D100-01")


def test_right_of_way_prevention_cancels_a_stop_000_6B() -> None:
    """000 §6B: Right of Way cancels the Stop in progress and needs no Roll (D2 last sentence)."""
    game = new_game()
    play(game, "A play MB-ROLL-01", "B play MB-STOP-01 > A", "A discard MB-D25-10", "B discard MB-D25-09")
    play(game, "A play MB-RIGHTOFWAY-01", "A play MB-D100-01")


# -- trip -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("edition", "players", "teams", "trip"),
    [
        ("winning-moves", 2, None, 700),
        ("winning-moves", 3, None, 700),
        ("winning-moves", 4, None, 1000),
        ("winning-moves", 6, None, 700),
        ("parker-1988", 2, None, 700),
        ("parker-1988", 4, None, 1000),
        ("parker-1988", 6, None, 700),
        ("hasbro-2016", 2, None, 1000),
        ("hasbro-2016", 6, True, 1000),
        ("dujardin", 2, None, 1000),
        ("1000-bornes", 3, None, 1000),
    ],
)
def test_trip_length_000_10B_11B(edition: str, players: int, teams: bool | None, trip: int) -> None:
    """000 §10B "shortened from 1000 miles to 700 miles" (2, 3), §11B (6); 4 players race 1000;
    001, 002 and 004 always 1000."""
    game = new_game(edition, players, teams=teams)
    assert game.state.hand.trip == trip


def _drive_a_to(game_edition: str, players: int = 2, **options: object) -> Game:
    """A (alone or with C) rolls and drives 200+200+100+100+100+100+50 = 850, the others discard."""
    game = new_game(game_edition, players, rule_options=options)
    play(game, "A play MB-ROLL-01")
    for code in ("MB-D200-01", "MB-D200-02", "MB-D100-01", "MB-D100-02", "MB-D100-03", "MB-D100-04", "MB-D50-01"):
        until(game, "A")
        play(game, f"A play {code}")
    until(game, "A")
    return game


def test_never_past_the_trip_000_6C() -> None:
    """000 §6C: "Under no circumstances may you play Distance Cards that will bring your total over
    the 1000 mile mark, i.e. if you have exposed [...] 950 miles, the 75, 100, and 200 Mile Cards are
    of no use to you." (D19, D28)"""
    game = _drive_a_to("winning-moves", 4)
    play(game, "A play MB-D100-05")
    until(game, "A")
    assert miles(game, "A") == 950
    refused(game, "A play MB-D75-01", "past-trip")
    refused(game, "A play MB-D100-06", "past-trip")
    play(game, "A play MB-D50-02")
    assert game.state.hand.phase is Phase.HAND_OVER and game.state.hand.finisher == 0


def test_never_past_700_before_the_extension_000_10C() -> None:
    """000 §10C: the player "who first succeeds in playing cards totaling exactly 700 miles" —
    passing 700 is refused like passing 1000 (D28)."""
    game = new_game()
    play(game, "A play MB-ROLL-01")
    for code in ("MB-D200-01", "MB-D200-02", "MB-D100-01", "MB-D100-02", "MB-D75-01"):
        until(game, "A")
        play(game, f"A play {code}")
    until(game, "A")
    assert miles(game, "A") == 675
    refused(game, "A play MB-D100-03", "past-trip")
    refused(game, "A play MB-D50-01", "past-trip")
    play(game, "A play MB-D25-01")
    assert game.state.hand.phase is Phase.EXTENSION


def test_1000_or_more_in_2016_001_End() -> None:
    """001 "End of Mille Bornes": "ends once one of the players play Distance cards totaling 1,000 or
    more miles." 950 + 100 = 1050 is accepted and ends the hand and the (one-hand) game."""
    game = _drive_a_to("hasbro-2016")
    play(game, "A play MB-D100-05")
    until(game, "A")
    play(game, "A play MB-D100-06")
    state = game.state
    assert miles(game, "A") == 1050
    assert state.over and state.winner == 0 and state.hand.finisher == 0
    sheet = state.sheets[-1]
    assert sheet.row("Milestones") == (1050, 0)
    assert sheet.total_for_deal == (1050, 0)


# -- extension --------------------------------------------------------------------------------------


def _reach_700(edition: str = "winning-moves", players: int = 2, **options: object) -> Game:
    game = new_game(edition, players, rule_options=options)
    play(game, "A play MB-ROLL-01")
    for code in ("MB-D200-01", "MB-D200-02", "MB-D100-01", "MB-D100-02", "MB-D100-03"):
        until(game, "A")
        play(game, f"A play {code}")
    return game


def test_extension_is_decided_by_the_player_who_reaches_700_000_10C() -> None:
    """000 §10C: "he must call "Extension" exactly at the time he reaches 700." Nobody else can act
    until he decides."""
    game = _reach_700()
    state = game.state
    assert state.phase is Phase.EXTENSION and state.to_act() == (0,)
    refused(game, "B discard MB-D25-01", "wrong-phase")
    refused(game, "B extension yes", "not-your-turn")


def test_extension_yes_makes_the_trip_1000_000_10C() -> None:
    """000 §10C: "Once the extension is asked for the hand is played as though it had always been for
    a trip of 1000 miles." Play goes on to the caller's left."""
    game = _reach_700()
    play(game, "A extension yes")
    hand = game.state.hand
    assert hand.trip == 1000 and hand.extension_by == 0 and hand.phase is Phase.PLAY and turn(game) == "B"
    until(game, "A")
    play(game, "A play MB-D100-04")
    assert miles(game, "A") == 800


def test_extension_no_ends_the_hand_at_700_000_10D() -> None:
    """A player who does not call the extension completes the 700 trip and scores it (000 §10D)."""
    game = _reach_700()
    play(game, "A extension no")
    sheet = game.state.sheets[-1]
    assert sheet.row("Trip completed") == (400, 0)
    assert sheet.row("Extension") == (0, 0)


def test_no_extension_where_the_trip_is_1000() -> None:
    """The extension only exists for the 700 trip (000 §10C, §11C): a 4-player game ends at 1000."""
    game = _drive_a_to("winning-moves", 4)
    play(game, "A play MB-D100-05")
    until(game, "A")
    refused(game, "A extension yes", "wrong-phase")


# -- discards and card identity --------------------------------------------------------------------


def test_discard_any_card_000_5D_D6() -> None:
    """000 §5D "he must discard one card face up"; D6: the referee accepts any discard, a safety too."""
    game = new_game()
    play(game, "A discard MB-RIGHTOFWAY-01", "B discard MB-D200-01")
    assert [c.code() for c in game.state.hand.discard] == ["MB-RIGHTOFWAY-01", "MB-D200-01"]


def test_discard_safety_option_refuses_a_safety_D6() -> None:
    """D6 alternative: `discard_safety=no` (some computer versions) refuses a safety on the discard pile."""
    game = new_game(discard_safety=False)
    refused(game, "A discard MB-RIGHTOFWAY-01", "safety-discard")
    play(game, "A discard MB-D25-01")


def test_card_already_on_the_table() -> None:
    """One physical card, one place: a card already played or discarded is refused ("That card is
    already on the table")."""
    game = new_game()
    play(game, "A play MB-ROLL-01", "B discard MB-D25-01")
    verdict = refused(game, "A play MB-ROLL-01", "on-table")
    assert "already on the table" in verdict.message
    refused(game, "A discard MB-D25-01", "on-table")
    refused(game, "A play MB-D25-01", "on-table")


@pytest.mark.parametrize("players", [2, 3])
def test_short_deck_cards_not_in_deck_000_10A(players: int) -> None:
    """000 §10A: "remove one each of the following cards: Stop! (Red Light), Accident, Out of Gas,
    Flat Tire, and Speed Limit." The highest copy of each is the one out: 101 cards."""
    game = new_game("winning-moves", players)
    assert game.setup.deck_size == 101
    for code in ("MB-STOP-05", "MB-ACCIDENT-03", "MB-OUTOFGAS-03", "MB-FLATTIRE-03", "MB-SPEEDLIMIT-04"):
        verdict = refused(game, f"A discard {code}", "not-in-deck")
        assert "taken out" in verdict.message
    play(game, "A discard MB-STOP-04")


def test_full_deck_106_cards_000_2() -> None:
    """000 §2: 106 playing cards; 4 and 6 players (and every other edition) keep them all."""
    for edition, players, teams in (("winning-moves", 4, None), ("winning-moves", 6, None), ("hasbro-2016", 2, None),
                                    ("dujardin", 3, None), ("1000-bornes", 2, None), ("parker-1988", 4, None)):
        game = new_game(edition, players, teams=teams)
        assert game.setup.deck_size == 106
        assert game.state.hand.draw_pile == 106 - 6 * players
        play(game, "A discard MB-STOP-05")
    game = new_game("winning-moves", 2)
    assert game.state.hand.draw_pile == 101 - 12
    refused(game, "A discard MB-STOP-06", "not-in-deck")
    refused(game, "A discard MB-D200-05", "not-in-deck")


# -- turn order -----------------------------------------------------------------------------------


def test_turn_order_left_of_dealer_and_deal_rotates_000_5() -> None:
    """000 §5: "The player to the left of the dealer plays first."; play passes to the left (D23: the
    deal passes to the left each hand)."""
    game = new_game("winning-moves", 4, dealer="C")
    assert turn(game) == "D"
    refused(game, "A discard MB-D25-01", "not-your-turn")
    order = []
    for _ in range(5):
        order.append(turn(game))
        filler(game)
    assert order == ["D", "A", "B", "C", "D"]
    assert game.state.hand.dealer == seat("C")


def test_next_hand_passes_the_deal_left_D23() -> None:
    """D23: the next hand is dealt by the player left of the previous dealer; his left neighbour starts."""
    game = _reach_700()
    play(game, "A extension no")
    refused(game, "A discard MB-D25-01", "wrong-phase")
    play(game, "next")
    hand = game.state.hand
    assert hand.number == 2 and hand.dealer == 0 and turn(game) == "B"
    assert hand.hands == (6, 6) and hand.draw_pile == 89 and hand.seen == frozenset()


def test_partners_share_piles_000_5() -> None:
    """000 §5: "partners play one set of piles": C drives on A's Roll; 6 players A&D, B&E, C&F (000 §11A)."""
    game = new_game("winning-moves", 4)
    play(game, "A play MB-ROLL-01", "B discard MB-D25-10", "C play MB-D100-01")
    assert miles(game, "A") == 100 and side(game, "C") is side(game, "A")
    six = new_game("winning-moves", 6)
    assert [six.setup.side_of(s) for s in range(6)] == [0, 1, 2, 0, 1, 2]
    assert six.setup.side_letters(0) == "AD" and six.setup.side_letters(2) == "CF"


def test_wrong_seat_and_unknown_seat() -> None:
    game = new_game()
    refused(game, "B play MB-ROLL-01", "not-your-turn")
    refused(game, "C play MB-ROLL-01", "no-such-seat")


# -- coup fourré --------------------------------------------------------------------------------------


def test_coup_fourre_restores_the_roll_000_7() -> None:
    """000 §7: the hazard goes "on the discard pile" and "If you had a Roll Card on top of your Battle
    Pile it will again be exposed"; the caller draws a replacement, then takes another turn."""
    game = new_game()
    play(game, "A play MB-ROLL-01", "B play MB-STOP-01 > A")
    pile = game.state.hand.draw_pile
    assert game.state.to_act() == (0,)
    events = play(game, "A coup MB-RIGHTOFWAY-01")[0].events
    hand = game.state.hand
    assert [e.code for e in events if e.code == "coup-fourre"] == ["coup-fourre"]
    assert [c.code() for c in hand.discard] == ["MB-STOP-01"]
    assert side(game, "A").battle_top is CardKind.ROLL and side(game, "A").coups == (CardKind.RIGHT_OF_WAY,)
    assert hand.hands == (6, 6) and hand.draw_pile == pile - 1 and turn(game) == "A"
    play(game, "A play MB-D100-01")
    assert game.state.hand.draw_pile == pile - 2 and game.state.hand.hands == (6, 6) and turn(game) == "B"


def test_coup_fourre_against_a_speed_limit_000_7() -> None:
    """000 §7: the hazard is removed "from your Battle Pile, or Speed Pile in the case of the Right of
    Way Card"."""
    game = new_game()
    play(game, "A play MB-ROLL-01", "B play MB-SPEEDLIMIT-01 > A", "A coup MB-RIGHTOFWAY-01")
    assert side(game, "A").speed == () and not side(game, "A").limited
    play(game, "A play MB-D200-01")


def test_coup_fourre_keeps_right_of_way_rolling_000_7() -> None:
    """000 §7: "If you were in a position to play Distance Cards because you had previously played the
    Right of Way Card, you may continue to do so." """
    game = new_game()
    play(game, "A play MB-RIGHTOFWAY-01", "A play MB-D100-01", "B play MB-FLATTIRE-01 > A")
    play(game, "A coup MB-PUNCTUREPROOF-01", "A play MB-D100-02")
    assert miles(game, "A") == 200


def test_coup_fourre_window_closes_with_the_next_card_000_7_D12() -> None:
    """000 §7: "you must make it BEFORE you draw a card and before any other player draws a card";
    D12: the window closes when the next card is played or discarded."""
    game = new_game("winning-moves", 3)
    play(game, "A play MB-ROLL-01", "B play MB-STOP-01 > A")
    assert game.state.to_act() == (2, 0)
    play(game, "C discard MB-D25-10")
    refused(game, "A coup MB-RIGHTOFWAY-01", "no-window")


def test_coup_fourre_only_by_the_attacked_side_D21() -> None:
    """D21 (003 "on you or any other player" read as one's own side): only the attacked side answers."""
    game = new_game("winning-moves", 3)
    play(game, "A play MB-ROLL-01", "B play MB-STOP-01 > A")
    refused(game, "C coup MB-RIGHTOFWAY-01", "not-attacked")
    refused(game, "B coup MB-RIGHTOFWAY-01", "not-attacked")
    refused(game, "A coup MB-EXTRATANK-01", "wrong-safety")
    play(game, "A coup MB-RIGHTOFWAY-01")


def test_coup_fourre_without_a_hazard_is_refused() -> None:
    game = new_game()
    refused(game, "A coup MB-RIGHTOFWAY-01", "no-window")


def test_coup_fourre_skips_the_players_in_between_4_players_000_7() -> None:
    """000 §7: "Any players between you and the player who played the Attack Card that made the "Coup
    Fourré" possible lose their turns." A attacks the B–D side, D calls: B and C lose their turns, D
    plays, then A (docs/rules.md §4.6 example)."""
    game = new_game("winning-moves", 4)
    play(game, "A discard MB-D25-10", "B play MB-ROLL-01", "C discard MB-D25-09", "D discard MB-D25-08")
    pile = game.state.hand.draw_pile
    play(game, "A play MB-ACCIDENT-01 > B")
    assert game.state.to_act() == (1, 3)
    events = play(game, "D coup MB-DRIVINGACE-01")[0].events
    coup = next(e for e in events if e.code == "coup-fourre")
    assert coup.seats == (seat("B"), seat("C"))
    assert turn(game) == "D"
    assert game.state.hand.hands == (6, 6, 6, 6) and game.state.hand.draw_pile == pile - 2
    play(game, "D play MB-D100-01")
    assert turn(game) == "A" and miles(game, "B") == 100


def test_coup_fourre_by_the_next_player_skips_nobody_000_7() -> None:
    game = new_game("winning-moves", 4)
    play(game, "A discard MB-D25-10", "B play MB-ROLL-01", "C discard MB-D25-09", "D discard MB-D25-08")
    play(game, "A play MB-ACCIDENT-01 > B")
    events = play(game, "B coup MB-DRIVINGACE-01")[0].events
    assert next(e for e in events if e.code == "coup-fourre").seats == ()
    play(game, "B play MB-D100-01")
    assert turn(game) == "C"


def test_coup_fourre_in_6_players_skips_four_seats_000_7_11A() -> None:
    """6 players, A&D, B&E, C&F (000 §11A). A lays a Stop on the C–F side and F calls coup fourré:
    between A and F in playing order sit B, C, D and E, and all four lose their turns — C too, though
    he is F's partner. F plays his extra turn, then play passes to F's left, A."""
    game = new_game("winning-moves", 6)
    play(game, "A discard MB-D25-10", "B discard MB-D25-09", "C play MB-ROLL-01")
    until(game, "A")
    pile = game.state.hand.draw_pile
    play(game, "A play MB-STOP-01 > C")
    assert game.state.to_act() == (seat("B"), seat("C"), seat("F"))
    refused(game, "E coup MB-RIGHTOFWAY-01", "not-attacked")
    events = play(game, "F coup MB-RIGHTOFWAY-01")[0].events
    assert next(e for e in events if e.code == "coup-fourre").seats == tuple(seat(x) for x in "BCDE")
    assert turn(game) == "F" and game.state.hand.hands == (6,) * 6 and game.state.hand.draw_pile == pile - 2
    play(game, "F play MB-D200-01")
    assert turn(game) == "A" and miles(game, "C") == 200


def test_coup_fourre_in_end_hand_needs_a_card_D11() -> None:
    """D11: with `empty_draw_pile=end-hand` the hand is over once the last card was drawn and the turn
    played; a hazard on that turn gets no coup fourré."""
    from tests.engine.helpers import run_down

    game = new_game("dujardin")
    play(game, "A play MB-ROLL-01")
    run_down(game, 1, before="B", keep=("MB-STOP-01", "MB-RIGHTOFWAY-01"))
    play(game, "B play MB-STOP-01 > A")
    assert game.state.over
    refused(game, "A coup MB-RIGHTOFWAY-01", "game-over")


# -- draw pile --------------------------------------------------------------------------------------


def test_take_the_top_discard_2016_001_Playing() -> None:
    """001 "Playing Mille Bornes": "You can either draw the top card from the draw pile, or the top
    card from the discard pile." The draw pile is not touched."""
    game = new_game("hasbro-2016")
    play(game, "A discard MB-ROLL-05", "B discard MB-D25-10")
    pile = game.state.hand.draw_pile
    refused(game, "A take MB-ROLL-05", "not-top-discard")
    play(game, "A take MB-D25-10")
    assert game.state.hand.hands == (7, 6) and game.state.hand.draw_pile == pile
    refused(game, "A take MB-ROLL-05", "already-drew")
    play(game, "A play MB-ROLL-01", "B discard MB-D50-10", "A play MB-D25-10")
    assert game.state.hand.hands == (6, 6) and game.state.hand.draw_pile == pile - 2


def test_no_taking_from_the_discard_pile_in_classic_000_5D() -> None:
    """000 §5D: "other players may not pick them up on their turn." """
    game = new_game()
    play(game, "A discard MB-ROLL-05")
    refused(game, "B take MB-ROLL-05", "option-off")


def test_take_from_an_empty_discard_pile() -> None:
    game = new_game("hasbro-2016")
    refused(game, "A take MB-ROLL-05", "discard-empty")


def test_play_out_when_the_draw_pile_is_empty_000_6C_D22() -> None:
    """000 §6C: "players must play out or discard in turn the remaining cards in their hands"; D22:
    no more draws, empty hands are skipped, the hand ends when every hand is empty."""
    from tests.engine.helpers import run_down

    game = new_game()
    run_down(game, 0)
    hand = game.state.hand
    assert hand.exhausted and hand.phase is Phase.PLAY and hand.hands == (6, 6)
    filler_count = 0
    while game.state.hand.phase is Phase.PLAY:
        before = game.state.hand.hands
        t = game.state.hand.turn
        from tests.engine.helpers import ANY_KINDS

        filler(game, ANY_KINDS)
        filler_count += 1
        assert game.state.hand.hands[t] == before[t] - 1
    assert filler_count == 12 and game.state.hand.phase is Phase.HAND_OVER
    assert game.state.sheets[-1].row("Trip completed") == (0, 0)


def test_end_of_hand_by_agreement_only_after_the_draw_pile_runs_out_D17_D22() -> None:
    """D17/D22: `end` is the table ending a blocked hand; it is refused while the draw pile has cards."""
    from tests.engine.helpers import run_down

    game = new_game()
    refused(game, "end", "play-continues")
    run_down(game, 0)
    play(game, "end")
    assert game.state.hand.phase is Phase.HAND_OVER and game.state.hand.blocked


@pytest.mark.parametrize("edition", ["dujardin", "1000-bornes"])
def test_hand_ends_when_the_draw_pile_is_empty_004_002(edition: str) -> None:
    """004: "ou bien dès qu'il n'y a plus de carte Bornes dans le sabot" (D18); 002 "until a player
    reaches 1000 kilometers or the deck is exhausted": the turn that draws the last card ends the hand."""
    from tests.engine.helpers import run_down

    game = new_game(edition)
    run_down(game, 1)
    assert game.state.hand.phase is Phase.PLAY
    filler(game, ANY_KINDS)
    if edition == "dujardin":
        assert game.state.over
    else:
        assert game.state.phase is Phase.LEFTOVERS


def test_reshuffle_the_discards_2016_001_Playing() -> None:
    """001 "Playing Mille Bornes": "Should the draw pile ever run out of cards, shuffle the discard pile
    to form a new draw pile." The discarded cards become unseen cards of the new pile."""
    from tests.engine.helpers import run_down

    game = new_game("hasbro-2016")
    run_down(game, 0)
    discards = len(game.state.hand.discard)
    assert discards == 94 and game.state.hand.phase is Phase.PLAY
    first = game.state.hand.discard[0].code()
    events = play(game, f"{turn(game)} discard MB-ACCIDENT-03")[0].events
    hand = game.state.hand
    assert "reshuffled" in [e.code for e in events]
    assert hand.draw_pile == discards - 1 and [c.code() for c in hand.discard] == ["MB-ACCIDENT-03"]
    play(game, f"{turn(game)} discard {first}")  # back from the reshuffled pile


# -- variants ----------------------------------------------------------------------------------------


def test_youngest_start_rolling_004_pour_les_plus_jeunes() -> None:
    """004 "Pour les plus jeunes": "donnez à chacun une carte Feu Vert, qu'ils posent tout de suite
    dans leurs Zones de Jeu respectives." Each seat lays a Roll (besides its 6 cards), then play."""
    game = new_game("dujardin", youngest_start_rolling=True)
    assert game.state.phase is Phase.START_ROLLS and game.state.hand.draw_pile == 106 - 12 - 2
    refused(game, "A play MB-ROLL-01", "wrong-phase")
    refused(game, "A start MB-STOP-01", "not-a-roll")
    play(game, "B start MB-ROLL-02")
    refused(game, "B start MB-ROLL-03", "already-started")
    play(game, "A start MB-ROLL-01")
    state = game.state
    assert state.phase is Phase.PLAY and state.hand.hands == (6, 6) and turn(game) == "A"
    play(game, "A play MB-D100-01", "B play MB-D100-02")
    refused(game, "A start MB-ROLL-03", "wrong-phase")


def test_fast_remedy_2016_001_Fast_Play() -> None:
    """001 "Fast Play": "you can immediately play the corresponding Remedy card [...] You will
    immediately draw a new card to replace the card that you played. Using this action does not
    count as a Coup Fourre. Play will then return to normal continuing with the player to the left of
    the one that played the Hazard card." """
    game = new_game("hasbro-2016", 3, fast_play=True)
    play(game, "A play MB-ROLL-01", "B play MB-FLATTIRE-01 > A")
    pile = game.state.hand.draw_pile
    refused(game, "A fast MB-GASOLINE-01", "wrong-remedy")
    refused(game, "C fast MB-SPARETIRE-01", "not-attacked")
    play(game, "A fast MB-SPARETIRE-01")
    hand = game.state.hand
    assert turn(game) == "C" and hand.hands == (6, 6, 6) and hand.draw_pile == pile - 1
    assert side(game, "A").coups == () and side(game, "A").active_hazard is None
    play(game, "C discard MB-D25-10", "A play MB-D100-01")


def test_fast_remedy_of_the_last_card_passes_the_turn_001_Fast_Play_D22() -> None:
    """001 "Fast Play": after the immediate remedy "Play will then return to normal continuing with the
    player to the left of the one that played the Hazard card"; D22 (000 §6C play-out): "a player with no
    cards left is skipped; the hand ends when every hand is empty".

    3 players, winning-moves with `fast_play=yes`, draw pile empty: A 1 card, B 2, C 1. A discards,
    B lays a Flat Tire on C, C answers at once with his last card, a Spare Tire. C now holds nothing, so
    the turn must go on to A (who still holds a card). The engine leaves the turn on C: C is refused
    "hand-empty" and A "not-your-turn" — the table is stuck."""
    keep = frozenset({"MB-FLATTIRE-01", "MB-SPARETIRE-01"})
    game = new_game("winning-moves", 3, fast_play=True)
    play(game, "A discard MB-D25-01", "B discard MB-D25-02", "C play MB-ROLL-01")
    run_down(game, 0, before="A", keep=tuple(keep))
    for _ in range(4 * 3):
        filler(game, ANY_KINDS, keep)
    assert game.state.hand.hands == (2, 2, 1) and turn(game) == "A"
    filler(game, ANY_KINDS, keep)
    play(game, "B play MB-FLATTIRE-01 > C", "C fast MB-SPARETIRE-01")
    assert game.state.hand.hands == (1, 1, 0)
    assert turn(game) == "A"


def test_fast_play_off_by_default_001() -> None:
    game = new_game("hasbro-2016")
    play(game, "A play MB-ROLL-01", "B play MB-FLATTIRE-01 > A")
    refused(game, "A fast MB-SPARETIRE-01", "option-off")
    refused(game, "A swap MB-D25-01", "option-off")


def test_swap_2016_001_Fast_Play() -> None:
    """001 "Fast Play": "on any turn you can choose to discard as many cards as you want from your
    hand. You will then draw the corresponding number of cards [...] you will skip the rest of your
    turn." """
    game = new_game("hasbro-2016", fast_play=True)
    pile = game.state.hand.draw_pile
    refused(game, "A swap MB-D25-01 MB-D25-01", "duplicate-card")
    refused(game, "A swap " + " ".join(f"MB-D25-{i:02d}" for i in range(1, 8)), "swap-size")
    play(game, "A swap MB-D25-01 MB-D50-01 MB-STOP-01")
    hand = game.state.hand
    assert hand.hands == (6, 6) and hand.draw_pile == pile - 3 and len(hand.discard) == 3 and turn(game) == "B"


def test_1000_bornes_leftovers_and_miles_in_hand_002_Keeping_score() -> None:
    """002 "Keeping score": "Deduct the kilometers remaining in hand. Other cards remaining in hand will
    have no value." (D24: each player shows what is left.)"""
    from tests.engine.helpers import run_down

    game = new_game("1000-bornes")
    play(game, "A play MB-ROLL-01", "B discard MB-D25-10", "A play MB-D100-01")
    run_down(game, 0, keep=("MB-D100-02", "MB-D75-01", "MB-STOP-01", "MB-D200-01", "MB-D25-01", "MB-D50-01"))
    state = game.state
    assert state.phase is Phase.LEFTOVERS and set(state.to_act()) == {0, 1}
    refused(game, "A discard MB-D25-01", "wrong-phase")
    play(game, "A left MB-D100-02", "A left MB-D75-01", "A left MB-STOP-01", "B left MB-D200-01")
    refused(game, "A left MB-D100-02", "on-table")
    while game.state.phase is Phase.LEFTOVERS:
        s = game.state.to_act()[0]
        from tests.engine.helpers import ANY_KINDS, spare_card

        play(game, f"{'AB'[s]} left {spare_card(game, ANY_KINDS).code()}")
    shown = [0, 0]
    for action in game.log:
        if isinstance(action, Leftover):
            shown[action.seat] += action.card.kind.miles
    assert shown[0] >= 175 and shown[1] >= 200
    sheet = game.state.sheets[-1]
    assert sheet.row("Miles in hand") == (-shown[0], -shown[1])
    assert sheet.total_for_deal[0] == 100 + 400 + 200 - shown[0]  # miles, winner, no 200 laid
    assert sheet.row("Trip completed") == (400, 0)  # A is closest to 1000 (D7)


@pytest.mark.parametrize("edition", ["dujardin", "1000-bornes"])
def test_closest_without_passing_wins_004_Precision_002_End(edition: str) -> None:
    """004 Précision: "si personne n'atteint 1 000 Bornes, le joueur qui gagne est celui qui en est le
    plus proche, sans les dépasser." 002 "the player who comes closest to 1000 kilometres wins." A tie
    for closest has no winner (D7, D10)."""
    from tests.engine.helpers import run_down

    game = new_game(edition)
    play(game, "A play MB-ROLL-01", "B play MB-ROLL-02", "A play MB-D100-01", "B play MB-D75-01")
    run_down(game, 0)
    while game.state.phase is Phase.LEFTOVERS:
        from tests.engine.helpers import ANY_KINDS, spare_card

        play(game, f"{'AB'[game.state.to_act()[0]]} left {spare_card(game, ANY_KINDS).code()}")
    assert game.state.over and game.state.winner == 0 and not game.state.tie
    tie = new_game(edition)
    play(tie, "A play MB-ROLL-01", "B play MB-ROLL-02", "A play MB-D100-01", "B play MB-D100-02")
    run_down(tie, 0)
    while tie.state.phase is Phase.LEFTOVERS:
        from tests.engine.helpers import ANY_KINDS, spare_card

        play(tie, f"{'AB'[tie.state.to_act()[0]]} left {spare_card(tie, ANY_KINDS).code()}")
    assert tie.state.over and tie.state.winner is None and tie.state.tie


@pytest.mark.parametrize("edition", ["dujardin", "1000-bornes"])
def test_exactly_1000_wins_at_once_004_002(edition: str) -> None:
    """004 "totalise EXACTEMENT 1 000 Bornes"; 002 "The winner is the first player to reach exactly 1000
    kilometres." The hand ends on the spot."""
    game = _drive_a_to(edition)
    play(game, "A play MB-D100-05")
    until(game, "A")
    refused(game, "A play MB-D75-02", "past-trip")
    play(game, "A play MB-D50-02")
    if edition == "1000-bornes":
        assert game.state.phase is Phase.LEFTOVERS
    else:
        assert game.state.over and game.state.winner == 0


def test_single_hand_editions_end_after_one_hand_001_002_004() -> None:
    """001 "End of Mille Bornes", 002 "End of the game", 004 "But du jeu": one hand is the game
    (`game_target=0`); `next` is refused."""
    from tests.engine.helpers import run_down

    for edition in ("hasbro-2016", "dujardin"):
        game = new_game(edition)
        if edition == "hasbro-2016":
            run_down(game, 0)
            play(game, "end")
        else:
            run_down(game, 0)
        assert game.state.over and len(game.state.sheets) == 1
        refused(game, "next", "game-over")


def test_classic_goes_on_to_another_hand_000_9() -> None:
    """000 §9: "A game will usually consist of several hands." After a hand the table deals again."""
    game = _reach_700()
    play(game, "A extension no")
    assert not game.state.over and game.state.phase is Phase.HAND_OVER
    refused(game, "A play MB-ROLL-01", "wrong-phase")
    play(game, "next")
    assert phase_of(game) is Phase.PLAY  # read again: the line above moved the game on
    assert game.state.sheets[-1].combined == game.state.totals


def test_card_code_parsing_rejects_bad_codes() -> None:
    from bornes.engine.cards import CardCodeError

    assert Card.from_code("MB-D100-07") == Card(CardKind.D100, 7)
    for bad in ("MB-D100-00", "MB-D101-01", "D100-01", "MB-D100-7", "mb-d100-07"):
        with pytest.raises(CardCodeError):
            Card.from_code(bad)


# -- who may act, and what a scan means ----------------------------------------------------------------


def test_acting_names_the_seat_in_turn_and_the_seats_that_may_answer_a_hazard() -> None:
    """OpenSpiel's current player and boardgame.io's active players: the engine says who may act and why."""
    from bornes.engine.actions import ActionKind, CoupFourre, FastRemedy
    from bornes.engine.rules import answer_action, kind_refusal, target_choices
    from bornes.engine.state import Why

    a, b = seat("A"), seat("B")
    game = new_game("winning-moves", 2)
    play(game, "A play MB-ROLL-01", "B play MB-ROLL-02")
    state = game.state
    assert [(x.seat, x.why) for x in state.acting()] == [(a, Why.IN_TURN)]
    assert kind_refusal(state, b, ActionKind.COUP_FOURRE) is not None  # no hazard to answer
    assert target_choices(state, a, Card(CardKind.STOP, 1)) == (1,)
    assert target_choices(state, a, Card(CardKind.D25, 1)) == ()
    play(game, "A play MB-STOP-01")
    state = game.state
    assert [(x.seat, x.why) for x in state.acting()] == [(b, Why.IN_TURN), (b, Why.HAZARD_WINDOW)]
    assert state.window_callers() == (b,) and state.to_act() == (b,)
    ace = Card(CardKind.RIGHT_OF_WAY, 1)
    assert answer_action(state, b, ace) == CoupFourre(b, ace)
    assert answer_action(state, b, Card(CardKind.ROLL, 3)) == CoupFourre(b, Card(CardKind.ROLL, 3))
    fast = new_game("hasbro-2016", 2, fast_play=True)
    play(fast, "A play MB-ROLL-01", "B play MB-STOP-01 > A")
    assert isinstance(answer_action(fast.state, a, Card(CardKind.ROLL, 3)), FastRemedy)
    held = [Card(CardKind.ROLL, 3), ace, Card(CardKind.D25, 1)]
    answers = legal_actions(fast.state, a, held, {ActionKind.COUP_FOURRE, ActionKind.FAST_REMEDY})
    assert [x.notation() for x in answers] == ["A coup MB-RIGHTOFWAY-01", "A fast MB-ROLL-03"]
