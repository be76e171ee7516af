"""A real Mosquitto is needed: skipped with a reason on a developer's machine without it, a failure in CI."""

from __future__ import annotations

import os
import shutil

import pytest

MOSQUITTO = shutil.which("mosquitto") or ("/usr/sbin/mosquitto" if os.path.exists("/usr/sbin/mosquitto") else None)


def require_mosquitto() -> None:
    if MOSQUITTO and shutil.which("mosquitto_passwd"):
        return
    message = "mosquitto and mosquitto_passwd are needed (apt-get install mosquitto mosquitto-clients)"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture
def mosquitto_available() -> None:
    require_mosquitto()
