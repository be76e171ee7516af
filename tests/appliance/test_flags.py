"""One meaning per flag across the network commands: ``--host/--port`` is where the process itself
listens, ``--broker-host/--broker-port`` is the MQTT broker (issue 24). The old spellings work for
one release, hidden from ``--help``, and say which flag replaces them."""

from __future__ import annotations

import argparse

import pytest

from bornes.firmware.commands import bridge, club, web


def _parser(module: object) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    module.add_arguments(parser)  # type: ignore[attr-defined]
    return parser


def test_host_and_port_are_where_the_process_listens() -> None:
    for module in (web, club):
        args = _parser(module).parse_args(["--host", "127.0.0.1", "--port", "8099"])
        assert (args.host, args.port) == ("127.0.0.1", 8099)
    args = _parser(club).parse_args(["--broker-host", "broker.lan", "--broker-port", "1884"])
    assert (args.host, args.port, args.broker_host, args.broker_port) == (None, None, "broker.lan", 1884)


def test_the_bridge_names_its_broker_as_the_board_does() -> None:
    args = _parser(bridge).parse_args(["--broker-host", "broker.lan", "--broker-port", "1884"])
    assert (args.broker_host, args.broker_port) == ("broker.lan", 1884)
    assert "--broker-host" in _parser(bridge).format_help()
    assert "--host" not in _parser(bridge).format_help().replace("--broker-host", "")


@pytest.mark.parametrize(("module", "old", "value", "dest", "new"), [
    (club, "--listen", "0.0.0.0", "host", "--host"),
    (bridge, "--host", "broker.lan", "broker_host", "--broker-host"),
    (bridge, "--port", "1884", "broker_port", "--broker-port"),
])
def test_old_spellings_still_work_and_say_so(module: object, old: str, value: str, dest: str, new: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    parser = _parser(module)
    args = parser.parse_args([old, value])
    assert str(getattr(args, dest)) == value
    assert capsys.readouterr().err == f"bornes: {old} is deprecated and goes in the next release: use {new}\n"
    assert f"{old} " not in parser.format_help().replace(new, "")  # hidden from --help
