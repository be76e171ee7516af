"""History and statistics from stored games: replayed by the engine, per player and per team."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bornes.engine.game import Game
from bornes.engine.record import read_record, write_header
from bornes.firmware.appliance.config import ConfigError, parse_config, table_language
from bornes.firmware.storage.journal import Journal
from bornes.firmware.storage.store import summary
from bornes.firmware.web import charts
from bornes.firmware.web.games import Library, history_csv, tallies

RECORDS = Path(__file__).resolve().parents[1] / "engine" / "records"


def _store(journal: Journal, name: str) -> Game:
    """A whole recorded game into the journal, as the referee stores it, finished with its summary."""
    setup, lines = read_record((RECORDS / f"{name}.record").read_text())
    game_id = journal.new_game(write_header(setup))
    game = Game(setup)
    for seq, line in enumerate(lines):
        assert line.action is not None
        journal.append(game_id, seq, line.action.notation())
        game.push(line.action)
    assert game.state.over
    journal.finish(game_id, json.dumps(summary(game.state), ensure_ascii=False))
    return game


def test_team_and_player_statistics_follow_the_score_sheets(tmp_path: Path) -> None:
    with Journal.open(tmp_path) as journal:
        teams_game = _store(journal, "hasbro-2016-4p-teams-fast")
        _store(journal, "winning-moves-2p")
    library = Library(tmp_path)
    players, teams = tallies(library.lines())
    expected = json.loads((RECORDS / "hasbro-2016-4p-teams-fast.json").read_text())
    team = {t.name: t for t in teams}
    ann_cy = team["Ann & Cy"]  # the record's expected result: Ann & Cy win 1200 to 1150
    points = expected["sheets"][0]["sides"]["Ann & Cy"]["Total for deal"]
    assert (ann_cy.games, ann_cy.wins, ann_cy.points) == (1, 1, points)
    assert team["Bob & Dee"].wins == 0 and team["Bob & Dee"].points == 1150
    # The coups fourrés of the team are those its players called (200 points each in the 2016 rules).
    coups = sum(1 for a in teams_game.log if type(a).__name__ == "CoupFourre" and a.seat in (0, 2))
    assert ann_cy.coups_fourres == coups == 1
    by_name = {p.name: p for p in players}
    assert by_name["Ann"].games == 2  # Ann played both games
    assert [r[0] for r in by_name["Ann"].results] == [1, 2]
    csv_text = history_csv(library.history(), library)
    assert csv_text.splitlines()[1].startswith("1,") and "Ann & Cy: 1200" in csv_text


def test_charts_are_svg_with_one_mark_per_value() -> None:
    svg = charts.lines("t", ["1", "2", "3"], [("Zoé & <b>", [100, 2500, -50])], [[True, False, True]])
    assert svg.startswith("<svg") and svg.count("<circle") == 3 and "&lt;b&gt;" in svg and "<b>" not in svg
    assert svg.count("ring") == 1
    bars = charts.bars("t", ["1", "2"], [("A", [10, 20]), ("B", [0, 5])])
    assert bars.count("<rect class=\"s") == 4 + 2  # four bars and two legend keys


def test_language_follows_the_edition_unless_the_config_says() -> None:
    assert table_language(parse_config('[game]\nedition = "dujardin"\nplayers = 2\n')) == "fr"
    assert table_language(parse_config('[game]\nedition = "1000-bornes"\nplayers = 2\n')) == "fr"
    assert table_language(parse_config("")) == "en"
    assert table_language(parse_config('[table]\nlanguage = "en"\n[game]\nedition = "dujardin"\nplayers = 2\n')) == "en"
    assert table_language(parse_config('[table]\nlanguage = "fr"\n')) == "fr"
    with pytest.raises(ConfigError, match=r"table\.language"):
        parse_config('[table]\nlanguage = "de"\n')
    with pytest.raises(ConfigError, match=r"web\.port"):
        parse_config("[web]\nport = 0\n")
