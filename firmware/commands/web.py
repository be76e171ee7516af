"""``bornes web``: the phone pages (live table, score sheets, history, statistics), read-only.

A separate process from the referee: it reads the journal as a reader and proposes setups through
the referee's control socket. systemd runs it as ``bornes-web.service`` (docs/web.md).
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from bornes.drivers.errors import EX_CONFIG, UserError
from bornes.firmware.appliance.config import ControlConfig, add_config_argument, load_config, table_language, tv_file
from bornes.firmware.commands import serve

log = logging.getLogger("bornes.web")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser)
    parser.add_argument("--host", help="address to listen on (default: [web] host)")
    parser.add_argument("--port", type=int, help="port (default: [web] port)")
    parser.add_argument("--state-dir", help="read the journal here (default: [state] dir)")
    parser.add_argument("--control-socket", help="the referee's socket (default: [control] socket)")


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from bornes.firmware.web.app import Settings, create_app, pages_url
        from bornes.firmware.web.connections import server_config
    except ImportError as error:
        raise UserError(f"bornes web needs the web extra ({error.name} is missing): pip install 'bornes[web]'",
                        EX_CONFIG) from None
    config = load_config(args.config)
    logging.basicConfig(level=config.log.level.upper(), format="%(levelname)s %(name)s: %(message)s")
    g = config.game
    state_dir = Path(args.state_dir or config.state.dir)
    control_socket = Path(args.control_socket or config.control.socket)
    emulated = state_dir / "control.sock"  # where `bornes run --emulate` puts it on a laptop
    if not args.control_socket and config.control.socket == ControlConfig().socket and emulated.is_socket():
        control_socket = emulated
    settings = Settings(
        state_dir=state_dir,
        control_socket=control_socket,
        language=table_language(config),
        defaults={"edition": g.edition, "players": g.players, "names": list(g.names), "dealer": g.dealer,
                  "options": dict(g.options)},
    )
    from bornes.firmware.language import i18n

    i18n.use(settings.language)  # rule names in the setup form come from the table's catalogue
    host = args.host or config.web.host
    port = args.port if args.port is not None else config.web.port
    if not 0 < port < 65536:
        raise UserError(f"--port {port} is not a port (1 to 65535)", EX_CONFIG)
    settings.url, settings.port, settings.host = config.web.url, port, host
    if config.buttons.source == "hid":
        settings.keys = config.buttons.key_map.legend()
    settings.tv_folder = tv_file(config, control_socket).parent  # the TV page's screen (docs/tv.md)
    settings.tv_sound = config.sound.output == "page"
    if settings.url and not settings.url.startswith(("http://", "https://")):
        raise UserError(f"[web] url {config.web.url!r} must start with http:// or https://", EX_CONFIG)
    server = uvicorn.Server(server_config(create_app(settings), host, port, log_level=config.log.level))
    warning = ""
    if _loopback(host) and not settings.url:
        warning = f"listening on {host} only: phones cannot reach these pages (--host 0.0.0.0 serves the network)"
    listening = f"serving {settings.state_dir} on http://{host}:{port}/; the QR code names {pages_url(settings)}"
    return serve(server, host, port, "bornes web", listening, warning)


def _loopback(host: str) -> bool:
    """Whether ``host`` is this machine only (``127.0.0.1``, ``::1``, ``localhost``)."""
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
