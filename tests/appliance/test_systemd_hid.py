"""Keyboard-mode readers in the appliance: the unit reaches input devices, the udev rule gives
the referee only the reader(s) it names, and bornes.service keeps its security score."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.appliance.test_systemd import EXEC_START, INSTALL, UDEV_TOKEN, UNIT, run_install, values

REPO = Path(__file__).resolve().parents[2]
HID_RULES = REPO / "systemd" / "99-bornes-hid.rules"
ANALYZE = shutil.which("systemd-analyze")


def tokens(line: str) -> dict[str, tuple[str, str]]:
    found, at = {}, 0
    while at < len(line):
        match = UDEV_TOKEN.match(line, at)
        assert match, f"udev syntax error near: {line[at:]!r}"
        found[match.group(1)] = (match.group(2), match.group(3))
        at = match.end()
    return found


def test_the_unit_allows_input_devices_and_no_input_group() -> None:
    assert "char-input rw" in values("DeviceAllow")
    assert "input" not in values("SupplementaryGroups")[0].split(), "group input would give it every keyboard"


def test_the_hid_rule_template_matches_nothing_until_install_fills_it(tmp_path: Path) -> None:
    active = [line for line in HID_RULES.read_text().splitlines() if line.strip() and not line.startswith("#")]
    assert all("idVendor" not in line for line in active), "the template names no device"
    for line in active:
        tokens(line)
    result = run_install(tmp_path, "--dry-run", "--hid", "0C2E:0b61", "--hid", "1a2b:3c4d")
    assert result.returncode == 0, result.stderr
    written = [tokens(line) for line in result.stdout.splitlines() if line.startswith("ATTRS{idVendor}")]
    assert len(written) == 4  # per device: its key devices to group bornes, its keyboard a stable name
    access, name = written[0], written[1]
    assert access["ATTRS{idVendor}"] == ("==", "0c2e") and access["ATTRS{idProduct}"] == ("==", "0b61")
    assert access["GROUP"] == ("=", "bornes") and access["MODE"] == ("=", "0660") and "SYMLINK" not in access
    assert name["ATTRS{idProduct}"] == ("==", "0b61") and name["ENV{ID_INPUT_KEYBOARD}"] == ("==", "1")
    assert name["SYMLINK"] == ("+=", "input/bornes-0c2e-0b61")
    header = [tokens(line) for line in HID_RULES.read_text().splitlines() if line.startswith("ENV{ID_INPUT")]
    assert header == [{"ENV{ID_INPUT_KEY}": ("!=", "1"), "GOTO": ("=", "bornes_hid_end")}], \
        "a numeric keypad with only keypad keys is ID_INPUT_KEY, not ID_INPUT_KEYBOARD, for udev"
    keypad = run_install(tmp_path, "--dry-run", "--keypad", "1189:8890")
    assert keypad.returncode == 0, keypad.stderr
    assert 'ATTRS{idVendor}=="1189", ATTRS{idProduct}=="8890", GROUP="bornes", MODE="0660"' in keypad.stdout
    refused = subprocess.run(["bash", str(INSTALL), "--dry-run", "--keypad", "pad"], capture_output=True, text=True,
                             timeout=60)
    assert refused.returncode == 64 and refused.stderr == "install.sh: --keypad takes the keypad's USB " \
        "vendor:product, like 0c2e:0b61\n"
    assert "udevadm trigger --subsystem-match=input --action=add" in result.stdout
    assert "python3-evdev" in result.stdout, "Debian's evdev: no compiler on the Pi"
    bad = subprocess.run(["bash", str(INSTALL), "--dry-run", "--hid", "scanner"], capture_output=True, text=True,
                         timeout=60)
    assert bad.returncode == 64 and "vendor:product" in bad.stderr
    gone = run_install(tmp_path, "--dry-run", "--uninstall")
    assert "/etc/udev/rules.d/99-bornes-hid.rules" in gone.stdout


@pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze is not installed")
def test_bornes_service_security_exposure_stays_at_1_0_or_better(tmp_path: Path) -> None:
    copy = tmp_path / "bornes.service"
    copy.write_text(UNIT.read_text().replace(f"ExecStart={EXEC_START}", f"ExecStart={shutil.which('true')}"))
    result = subprocess.run([str(ANALYZE), "security", "--offline=yes", "--no-pager", str(copy)],
                            capture_output=True, text=True, timeout=60, cwd=tmp_path)
    match = re.search(r"Overall exposure level for \S+: (\d+\.\d)", result.stdout + result.stderr)
    assert match is not None, result.stdout + result.stderr
    assert float(match.group(1)) <= 1.0, result.stdout
