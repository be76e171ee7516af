"""The unit passes systemd-analyze verify silently; the udev rule and install script are sound."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
UNIT = REPO / "systemd" / "bornes.service"
RULES = REPO / "systemd" / "99-bornes-reader.rules"
INSTALL = REPO / "systemd" / "install.sh"
EXEC_START = "/opt/bornes/venv/bin/bornes run --config /etc/bornes/config.toml"

ANALYZE = shutil.which("systemd-analyze")
needs_analyze = pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze is not installed")


def unit_entries() -> list[tuple[str, str, str]]:
    """(section, key, value) for every assignment; systemd allows a key several times."""
    entries, section = [], ""
    for raw in UNIT.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, _, value = line.partition("=")
        entries.append((section, key.strip(), value.strip()))
    return entries


def values(key: str) -> list[str]:
    return [v for _, k, v in unit_entries() if k == key]


def verify(unit_text: str, where: Path) -> str:
    """Run systemd-analyze verify on the unit text with ExecStart pointed at a binary that exists."""
    true = shutil.which("true")
    assert true is not None
    copy = where / "bornes.service"
    copy.write_text(unit_text.replace(f"ExecStart={EXEC_START}", f"ExecStart={true} run --config /x"))
    assert f"ExecStart={true}" in copy.read_text()
    result = subprocess.run(
        [str(ANALYZE), "verify", "--man=no", "--generators=no", str(copy)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=where,
    )
    return (result.stdout + result.stderr).strip() + ("" if result.returncode == 0 else f"\nexit {result.returncode}")


@needs_analyze
def test_systemd_analyze_verify_is_silent(tmp_path: Path) -> None:
    assert verify(UNIT.read_text(), tmp_path) == ""


@needs_analyze
def test_verify_would_catch_a_mistake(tmp_path: Path) -> None:
    """The check above can fail: a misspelt key is reported."""
    broken = UNIT.read_text().replace("ProtectHome=yes", "ProtectHom=yes")
    assert "ProtectHom" in verify(broken, tmp_path)


def test_unit_is_a_hardened_notify_service() -> None:
    entries = {(s, k): v for s, k, v in unit_entries()}
    service = {k: v for (s, k), v in entries.items() if s == "Service"}
    assert service["ExecStart"] == EXEC_START
    assert service["Type"] == "notify" and service["NotifyAccess"] == "main"
    assert 2 <= int(service["WatchdogSec"]) <= 60
    assert service["Restart"] == "on-failure"
    assert service["User"] == "bornes"
    assert set(service["SupplementaryGroups"].split()) == {"gpio", "i2c", "dialout", "audio"}
    assert service["StateDirectory"] == "bornes" and service["RuntimeDirectory"] == "bornes"
    assert service["WorkingDirectory"] == "/run/bornes"
    assert "LG_WD=/run/bornes" in values("Environment"), "lgpio puts its FIFO in the runtime directory"
    assert service["ProtectSystem"] == "strict" and service["ProtectHome"] == "yes"
    assert service["PrivateTmp"] == "yes" and service["NoNewPrivileges"] == "yes"
    assert "PrivateDevices" not in service, "it would hide the GPIO, I2C and serial devices"
    assert service["DevicePolicy"] == "closed"
    allowed = {v.split()[0] for v in values("DeviceAllow")}
    assert {"char-gpiochip", "char-i2c", "char-spi", "char-ttyUSB", "char-ttyACM", "char-ttyAMA"} <= allowed
    assert "78" in service["RestartPreventExitStatus"].split(), "a bad config is not retried forever"
    assert entries[("Install", "WantedBy")] == "multi-user.target"


UDEV_TOKEN = re.compile(r'\s*([A-Z_]+(?:\{[^{}]+\})?)\s*(==|!=|\+=|-=|:=|=)\s*"([^"]*)"\s*(?:,|$)')
UDEV_KEYS = {"ACTION", "SUBSYSTEM", "SUBSYSTEMS", "KERNEL", "ATTRS", "PROGRAM", "RESULT", "SYMLINK", "GROUP", "MODE"}
UDEV_KEYS |= {"GOTO", "LABEL", "ENV"}


def udev_rules(enable_uart: bool) -> list[list[tuple[str, str, str]]]:
    rules = []
    for raw in RULES.read_text().splitlines():
        line = raw.removeprefix("#UART# ") if enable_uart else raw
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        tokens: list[tuple[str, str, str]] = []
        at = 0
        while at < len(line):
            match = UDEV_TOKEN.match(line, at)
            assert match, f"udev syntax error near: {line[at:]!r}"
            key, operator, value = match.group(1, 2, 3)
            tokens.append((key, operator, value))
            at = match.end()
        rules.append(tokens)
    return rules


@pytest.mark.parametrize("enable_uart", [False, True])
def test_udev_rule_syntax(enable_uart: bool) -> None:
    rules = udev_rules(enable_uart)
    labels = {v for rule in rules for k, _, v in rule if k == "LABEL"}
    naming = 0
    for rule in rules:
        for key, op, value in rule:
            assert key.split("{")[0] in UDEV_KEYS, key
            if key.startswith("ATTRS{idVendor") or key.startswith("ATTRS{idProduct"):
                assert op == "==" and re.fullmatch(r"[0-9a-f]{4}", value), (key, value)
            if key == "GOTO":
                assert value in labels
        assigned = {k: (op, v) for k, op, v in rule}
        if "SYMLINK" in assigned:
            naming += 1
            assert assigned["SYMLINK"] == ("+=", "bornes-reader")
            assert assigned["GROUP"] == ("=", "dialout") and assigned["MODE"] == ("=", "0660")
            assert any(op in ("==", "!=") for _, op, _ in rule), "every naming rule matches something"
    vendors = {v for rule in rules for k, _, v in rule if k == "ATTRS{idVendor}"}
    assert {"1a86", "10c4", "0403"} <= vendors, "CH340, CP210x and FTDI are named"
    assert any(k == "KERNEL" and "ttyAMA" in v for rule in rules for k, _, v in rule) == enable_uart
    assert naming >= 8


def test_udev_uart_program_is_valid_shell(tmp_path: Path) -> None:
    line = next(x for x in RULES.read_text().splitlines() if x.startswith("#UART# "))
    match = re.search(r"PROGRAM=\"/bin/sh -c '(.*?)'\"", line)
    assert match
    script = tmp_path / "program.sh"
    script.write_text(match.group(1).replace("$$", "$").replace("%k", "ttyS0"))
    assert subprocess.run(["sh", "-n", str(script)], capture_output=True).returncode == 0
    result = subprocess.run(["sh", str(script)], capture_output=True, text=True)
    assert result.stdout == "", "on a machine that is not a Pi nothing is named the reader"


def test_install_script_is_valid_bash_and_strict() -> None:
    assert subprocess.run(["bash", "-n", str(INSTALL)], capture_output=True).returncode == 0
    assert "set -euo pipefail" in INSTALL.read_text()
    assert os.access(INSTALL, os.X_OK)


def run_install(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run install.sh with fake system tools that leave a mark if anything is really executed."""
    fake = tmp_path / "bin"
    fake.mkdir(exist_ok=True)
    marker = tmp_path / "executed"
    for tool in ("apt-get", "raspi-config", "udevadm", "systemctl", "useradd", "usermod", "groupadd", "install"):
        (fake / tool).write_text(f'#!/bin/sh\necho {tool} "$@" >> {marker}\nexit 1\n')
        (fake / tool).chmod(0o755)
    env = {**os.environ, "PATH": f"{fake}:{os.environ['PATH']}"}
    return subprocess.run(["bash", str(INSTALL), *args], capture_output=True, text=True, env=env, timeout=60)


def test_install_dry_run_shows_every_step_and_changes_nothing(tmp_path: Path) -> None:
    result = run_install(tmp_path, "--dry-run")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for expected in (
        "apt-get install -y --no-install-recommends python3-venv",
        "python3-lgpio",
        "--only-binary :all: --no-binary bornes -c " + str(REPO / "systemd" / "pi-constraints.txt"),
        "usermod --append --groups gpio,i2c,dialout,audio bornes",
        "/opt/bornes/venv",
        f"/opt/bornes/venv/bin/pip install --upgrade {REPO}",
        "/etc/bornes/config.toml",
        "/etc/bornes/pins.toml",
        "/etc/udev/rules.d/99-bornes-reader.rules",
        "udevadm control --reload",
        "raspi-config nonint do_i2c 0",
        "sed -i \\$a\\ dtparam=i2c_arm_baudrate=400000 /boot/firmware/config.txt",  # the panel's bus at 400 kHz
        "/etc/systemd/system/bornes.service",
        "systemctl enable bornes.service",
        "systemctl restart bornes.service",
    ):
        assert expected in out, expected
    assert "do_serial_hw" not in out, "the UART is only touched with --uart"
    assert not (tmp_path / "executed").exists(), "a dry run executes nothing"


def test_install_dry_run_with_uart_and_uninstall(tmp_path: Path) -> None:
    uart = run_install(tmp_path, "--dry-run", "--uart")
    assert uart.returncode == 0
    assert "raspi-config nonint do_serial_hw 0" in uart.stdout and "do_serial_cons 1" in uart.stdout
    assert "s/^#UART# //" in uart.stdout
    gone = run_install(tmp_path, "--dry-run", "--uninstall")
    assert gone.returncode == 0
    assert "systemctl disable --now bornes.service" in gone.stdout and "kept: /etc/bornes" in gone.stdout
    assert "/var/lib/bornes" not in "".join(x for x in gone.stdout.splitlines() if "would run" in x)
    assert not (tmp_path / "executed").exists()
    bad = run_install(tmp_path, "--frobnicate")
    assert bad.returncode == 64 and "unknown option --frobnicate" in bad.stderr
