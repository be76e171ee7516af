"""The bridge's and board's settings are checked as the referee's config is (firmware/appliance/tomlcheck.py):
one line naming the file, the key, the value and what is wanted; command-line values are checked too."""

from __future__ import annotations

from pathlib import Path

import pytest

from bornes.firmware.appliance.config import parse_config
from bornes.firmware.appliance.tomlcheck import ConfigError
from bornes.firmware.club.settings import SettingsError, load_board, load_bridge

GOOD = "[bridge]\nclub = 'lyon'\ntable = 't1'\n"


def _write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "bridge.toml"
    path.write_text(text)
    return str(path)


def test_one_error_and_one_wording_for_the_config_and_the_settings(tmp_path: Path) -> None:
    assert SettingsError is ConfigError
    path = _write(tmp_path, GOOD + "[broker]\nport = 70000\n")
    with pytest.raises(SettingsError) as settings:
        load_bridge(path)
    with pytest.raises(ConfigError) as config:
        parse_config("[web]\nport = 70000\n", "config.toml")
    assert str(settings.value) == f"bridge settings {path}: broker.port = 70000 is out of range; allowed 1 to 65535"
    assert str(config.value) == "config config.toml: web.port = 70000 is out of range; allowed 1 to 65535"
    assert settings.value.exit_code == config.value.exit_code == 78


@pytest.mark.parametrize("text, words", [
    ("[bridge]\nclub = 'lyon'\n[brokr]\n", "unknown section [brokr]; known sections: bridge, broker"),
    (GOOD + "all_history = 'yes'\n", 'bridge.all_history = "yes" is not true or false'),
    (GOOD + "language = 'de'\n", 'bridge.language = "de" is not a language the club speaks; choose en (English) or '
                                  'fr (Français)'),
    (GOOD + "[broker]\nkeepalive = 1\n", "broker.keepalive = 1 is out of range; allowed 5 to 3600"),
    (GOOD + "[broker]\nhost = 5\n", "broker.host = 5 is a whole number, not a string"),
    ("", "is empty; restore it, or copy config/bridge.sample.toml there"),
])
def test_bad_files_are_one_line(tmp_path: Path, text: str, words: str) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(SettingsError) as caught:
        load_bridge(path)
    assert str(caught.value).startswith(f"bridge settings {path}: ") and words in str(caught.value)


def test_command_line_values_are_checked_like_the_files(tmp_path: Path) -> None:
    resend = r"^bridge settings: bridge\.resend = -1\.0 is out of range; allowed 0\.1 to 3600 seconds$"
    with pytest.raises(SettingsError, match=resend):
        load_bridge(None, club="lyon", table="t1", resend=-1.0)
    with pytest.raises(SettingsError, match=r"^club settings: broker\.port = 0 is out of range"):
        load_board(None, club="lyon", broker={"port": 0})
    with pytest.raises(SettingsError, match=r"^club settings: club\.url = \"club\.local\" must start with http"):
        load_board(None, club="lyon", url="club.local")


def test_a_password_comes_from_its_file_and_the_command_line_wins(tmp_path: Path) -> None:
    secret = tmp_path / "password"
    secret.write_text("from-the-file\n")
    path = _write(tmp_path, GOOD + f"[broker]\npassword = 'in-the-toml'\npassword_file = '{secret.name}'\n")
    assert load_bridge(path).broker.password == "from-the-file", "the file, named relative to the settings"
    assert load_bridge(path, broker={"password": "typed"}).broker.password == "typed"
    assert load_bridge(path).broker.username == "t1", "a table's broker user is its id"


def test_a_short_organiser_password_is_refused_without_showing_it() -> None:
    with pytest.raises(SettingsError) as caught:
        load_board(None, club="lyon", organiser_password="abc123")
    assert "at least 10 characters" in str(caught.value) and "abc123" not in str(caught.value)


@pytest.mark.parametrize("written", ["fr", "FR", "fr_FR.UTF-8", "French", "français"])
def test_the_club_takes_a_language_as_the_referee_does(tmp_path: Path, written: str) -> None:
    """Issue 29, item 6, for the club: `language = "French"` or `"FR"` is French, as in the table's config."""
    assert load_bridge(_write(tmp_path, GOOD + f"language = '{written}'\n")).language == "fr"
    board = tmp_path / "club.toml"
    board.write_text(f"[club]\nclub = 'lyon'\nlanguage = '{written}'\n")
    assert load_board(str(board)).language == "fr"
