"""The TV page on the Pi's HDMI screen: ``bornes kiosk``, its unit, and the install options that set it up.

The last test runs the very command ``bornes kiosk`` starts (cage with Chromium) on cage's headless
backend, as an unprivileged user (cage refuses root), and waits until that browser has the TV page
open on a real ``bornes web``.
"""

from __future__ import annotations

import json
import os
import pwd
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from bornes.firmware.appliance.config import parse_config
from bornes.firmware.commands.kiosk import page_url
from tests.appliance.test_systemd import INSTALL, needs_analyze, run_install

REPO = Path(__file__).resolve().parents[2]
KIOSK_UNIT = REPO / "systemd" / "bornes-kiosk.service"
BORNES = [sys.executable, "-m", "bornes.firmware.cli"]


def kiosk(config: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*BORNES, "kiosk", "--config", str(config), *args], capture_output=True, text=True,
                          timeout=60, cwd=REPO, env=env)


def test_the_kiosk_shows_the_tv_page_only_when_the_panel_is_the_tv(tmp_path: Path) -> None:
    tv = tmp_path / "tv.toml"
    tv.write_text('[display]\npanel = "tv"\n[web]\nport = 8090\n')
    shown = kiosk(tv, "--print", env={**os.environ, "STATE_DIRECTORY": "/var/lib/bornes-kiosk"})
    assert shown.returncode == 0, shown.stderr
    command = shlex.split(shown.stdout)
    assert command[:4] == ["cage", "-d", "-s", "--"] and command[-1] == "http://127.0.0.1:8090/tv"
    assert {"--kiosk", "--autoplay-policy=no-user-gesture-required", "--noerrdialogs",
            "--user-data-dir=/var/lib/bornes-kiosk"} <= set(command)
    oled = tmp_path / "oled.toml"
    oled.write_text('[display]\npanel = "ssd1306"\n')
    idle = kiosk(oled)
    assert idle.returncode == 0 and idle.stdout.count("\n") == 1
    assert idle.stdout.startswith("[display] panel is ssd1306, not tv: the HDMI screen has nothing to show")
    bare = kiosk(tv, env={**os.environ, "PATH": str(tmp_path)})  # no cage here
    assert bare.returncode == 69 and bare.stderr.strip().count("\n") == 0
    assert "cage is not installed: sudo systemd/install.sh --tv installs the kiosk" in bare.stderr


def test_the_page_is_on_loopback_unless_the_web_listens_elsewhere_only() -> None:
    assert page_url(parse_config("")) == "http://127.0.0.1:8080/tv"
    assert page_url(parse_config('[web]\nhost = "192.168.1.20"\nport = 80\n')) == "http://192.168.1.20:80/tv"
    assert page_url(parse_config('[web]\nhost = "fd00::20"\n')) == "http://[fd00::20]:8080/tv"


@needs_analyze
def test_the_kiosk_unit_verifies_silently_and_follows_the_referee(tmp_path: Path) -> None:
    true = shutil.which("true")
    text = KIOSK_UNIT.read_text()
    entries = dict(line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith("#"))
    assert entries["ExecStart"] == "/opt/bornes/venv/bin/bornes kiosk --config /etc/bornes/config.toml"
    assert entries["PartOf"] == "bornes.service" and entries["WantedBy"] == "bornes.service"
    assert entries["User"] == "bornes-kiosk" and entries["PAMName"] == "bornes-kiosk"
    assert entries["TTYPath"] == "/dev/tty1" and entries["Restart"] == "on-failure"
    copy = tmp_path / "bornes-kiosk.service"
    copy.write_text(text.replace(entries["ExecStart"], f"{true} kiosk"))
    result = subprocess.run(["systemd-analyze", "verify", "--man=no", "--generators=no", str(copy)],
                            capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert (result.stdout + result.stderr).strip() == "" and result.returncode == 0
    pam = (REPO / "systemd" / "bornes-kiosk.pam").read_text()
    assert "pam_systemd.so" in pam and "auth" not in pam.split("\n", 3)[-1], "no password is asked"


@pytest.mark.slow  # four runs of install.sh: the fast tier's is tests/appliance/test_systemd.py's dry run
def test_install_tv_and_kit_set_the_table_up_in_one_option(tmp_path: Path) -> None:
    tv = run_install(tmp_path, "--dry-run", "--tv")
    assert tv.returncode == 0, tv.stderr
    [apt] = [line for line in tv.stdout.splitlines() if "apt-get install" in line and "python3-venv" in line]
    assert apt.endswith("cage xwayland")  # cage does not start without Xwayland
    for step in ("install -D -m 0644 " + str(REPO / "systemd/bornes-kiosk.pam") + " /etc/pam.d/bornes-kiosk",
                 "systemctl enable bornes-kiosk.service", "systemctl enable bornes-web.service",
                 "useradd --system --user-group --no-create-home --home-dir /var/lib/bornes-kiosk"):
        assert step in tv.stdout, step
    kit = run_install(tmp_path, "--dry-run", "--kit", "--hid", "0c2e:0b61", "--keypad", "1189:8890")
    assert kit.returncode == 0, kit.stderr
    assert "alsa-utils" in kit.stdout and "cage xwayland" in kit.stdout and "bornes-kiosk.service" in kit.stdout
    assert ('would write /etc/bornes/config.toml from config/kit.sample.toml with reader.port = "0c2e:0b61", '
            'buttons.port = "1189:8890"') in kit.stdout
    assert 'ATTRS{idVendor}=="1189", ATTRS{idProduct}=="8890", GROUP="bornes", MODE="0660"' in kit.stdout
    asked = run_install(tmp_path, "--dry-run", "--kit")
    assert "scan-test --identify (scan a label, then press a key on the keypad)" in asked.stdout
    gone = run_install(tmp_path, "--dry-run", "--uninstall")
    assert "/etc/systemd/system/bornes-kiosk.service /etc/pam.d/bornes-kiosk" in gone.stdout
    assert INSTALL.exists()


def test_the_kits_config_is_a_whole_table_once_its_devices_are_named() -> None:
    text = (REPO / "config" / "kit.sample.toml").read_text()
    assert text.count("@SCANNER@") == 1 and text.count("@KEYPAD@") == 1
    config = parse_config(text.replace("@SCANNER@", "/dev/input/by-id/usb-Netum_Scanner-event-kbd")
                          .replace("@KEYPAD@", "/dev/input/by-id/usb-Numeric_Keypad-event-kbd"))
    assert (config.reader.protocol, config.buttons.source, config.display.panel, config.sound.output) == \
        ("hid", "hid", "tv", "audio")
    assert config.buttons.key_map.legend()[3] == ("Enter", "OK")


# -- the kiosk for real, on cage's headless backend -------------------------------------------------------


def _kiosk_parts() -> str | None:
    missing = [name for name in ("cage", "Xwayland", "chromium") if shutil.which(name) is None]
    return f"{', '.join(missing)} not installed (apt-get install cage xwayland chromium)" if missing else None


@pytest.mark.slow
def test_the_kiosk_command_opens_the_tv_page_in_a_real_browser(tmp_path: Path) -> None:
    problem = _kiosk_parts()
    if problem is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(problem)
        pytest.skip(problem)
    from tests.web.server import web_server

    run = tmp_path / "run"
    run.mkdir()
    with web_server(tmp_path / "state", run / "control.sock", sections='[display]\npanel = "tv"\n') as web:
        config = tmp_path / "kiosk.toml"
        config.write_text(f'[display]\npanel = "tv"\n[web]\nport = {web.url.rsplit(":", 1)[1]}\n')
        runtime, profile = Path(tempfile.mkdtemp(prefix="bornes-xdg-")), Path(tempfile.mkdtemp(prefix="bornes-k-"))
        user = []
        if os.geteuid() == 0:  # cage refuses to run as root: the kiosk's own user is unprivileged too
            nobody = pwd.getpwnam("nobody")
            for folder in (runtime, profile):
                os.chown(folder, nobody.pw_uid, nobody.pw_gid)
            user = ["setpriv", f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups"]
        shown = kiosk(config, "--print", env={**os.environ, "STATE_DIRECTORY": str(profile)})
        assert shown.returncode == 0, shown.stderr
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(profile), "XDG_RUNTIME_DIR": str(runtime),
               "WLR_BACKENDS": "headless", "WLR_RENDERER": "pixman", "WLR_LIBINPUT_NO_DEVICES": "1"}
        log = tmp_path / "kiosk.log"
        with log.open("w") as out:
            browser = subprocess.Popen([*user, *shlex.split(shown.stdout)], env=env, stdout=out, stderr=out,
                                       start_new_session=True)
        try:
            deadline = time.monotonic() + 90
            connected = 0
            while time.monotonic() < deadline and browser.poll() is None:
                connected = json.loads(web.get("/api/health")[2])["tv_pages_connected"]
                if connected:
                    break
                time.sleep(0.5)
            assert connected == 1, (browser.poll(), log.read_text()[-2000:])
        finally:
            os.killpg(browser.pid, 15)
            browser.wait(20)
        shutil.rmtree(runtime, ignore_errors=True)
        shutil.rmtree(profile, ignore_errors=True)
