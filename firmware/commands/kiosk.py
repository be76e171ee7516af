"""``bornes kiosk``: the TV page full screen on the Pi's own HDMI screen, when the panel is the TV.

``bornes-kiosk.service`` (``systemd/install.sh --tv``, or ``--kit``) runs this at boot and with
every start of the referee. With ``[display] panel = "tv"`` it becomes the kiosk: cage (a Wayland
compositor that shows one application full screen, nothing else) running Chromium on
``http://127.0.0.1:<web port>/tv``, with the page allowed to play its sounds. With any other
panel it says so in one line and ends, so one line of the config decides whether the TV shows the
table. docs/tv.md has the details.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import tempfile

from bornes.drivers.errors import EX_UNAVAILABLE, UserError
from bornes.firmware.appliance.config import Config, add_config_argument, load_config

#: The browsers tried, in order: Debian's name, then Raspberry Pi OS's older one.
BROWSERS = ("chromium", "chromium-browser")
#: Chromium as a kiosk: full screen, no bars or bubbles, no first-run or update prompts, no swipe back,
#: and sound allowed without a tap (nobody taps a TV).
CHROMIUM_FLAGS = (
    "--kiosk", "--noerrdialogs", "--disable-infobars", "--no-first-run", "--disable-session-crashed-bubble",
    "--disable-features=Translate,MediaRouter", "--check-for-update-interval=31536000",
    "--overscroll-history-navigation=0", "--disable-pinch", "--password-store=basic",
    "--autoplay-policy=no-user-gesture-required", "--ozone-platform=wayland",
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser)
    parser.add_argument("--print", action="store_true", help="print the command that would run, and run nothing")
    parser.add_argument("--browser", metavar="PATH", help="the browser (default: chromium, else chromium-browser)")


def page_url(config: Config) -> str:
    """The TV page on this machine: the web pages' port, on loopback unless they listen elsewhere only."""
    host = config.web.host
    if host in ("", "0.0.0.0", "::", "localhost"):
        host = "127.0.0.1"
    elif ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{config.web.port}/tv"


def kiosk_command(url: str, browser: str, profile: str) -> list[str]:
    """cage (``-d``: no window decorations; ``-s``: Ctrl+Alt+F2 still reaches a console) running the browser."""
    return ["cage", "-d", "-s", "--", browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", url]


def run(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    if config.display.panel != "tv":
        print(f"[display] panel is {config.display.panel}, not tv: the HDMI screen has nothing to show "
              "(set panel = \"tv\" to show the table there; docs/tv.md)", flush=True)
        return 0
    browser = args.browser or next((name for name in BROWSERS if shutil.which(name)), BROWSERS[0])
    profile = os.environ.get("STATE_DIRECTORY") or os.path.join(tempfile.gettempdir(), "bornes-kiosk")
    command = kiosk_command(page_url(config), browser, profile)
    if args.print:
        print(shlex.join(command), flush=True)
        return 0
    for program in (command[0], browser):
        if shutil.which(program) is None:
            raise UserError(f"{program} is not installed: sudo systemd/install.sh --tv installs the kiosk "
                            "(cage and chromium)", EX_UNAVAILABLE)
    print(f"kiosk: {page_url(config)} full screen", flush=True)
    os.execvp(command[0], command)  # the unit's process becomes cage: systemd follows and stops it
