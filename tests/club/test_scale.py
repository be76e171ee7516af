"""Scale in a test: one real Mosquitto carries the peak load of 1000 tables, and nothing is lost.

The rates and sizes are docs/club.md's: at its busiest a table accepts one action every 2 s, and
each action costs one action message (~130 B) and one retained live message (~1.2 KB). So 1000
tables send 500 action + 500 live messages a second. Here 1000 simulated tables do that for three
seconds through one broker to one board-like subscriber, with QoS 1, and every message arrives.
The CPU the broker used is printed (docs/club.md turns it into Pi 4 figures); it is not asserted.
"""

from __future__ import annotations

import shutil
import subprocess
import threading
import time
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from bench.club import cpu_seconds, free_port, wait_port
from tests.club.conftest import require_mosquitto

TABLES = 1000
SECONDS = 3
PACE = 2.0  # one action per table every 2 s: the peak in docs/club.md
ACTION = b'{"v":1,"type":"action","game":12,"created":"2026-11-24T03:21:06+00:00","seq":41,"line":"A play MB-D75-03"}'
LIVE = b'{"v":1,"type":"live","status":"in-progress"' + b" " * 1150 + b"}"


@pytest.mark.slow
def test_one_broker_carries_a_thousand_tables_at_peak(tmp_path: Path) -> None:
    require_mosquitto()
    port = free_port()
    conf = tmp_path / "mosquitto.conf"
    import getpass

    conf.write_text(f"user {getpass.getuser()}\nlistener {port} 127.0.0.1\nallow_anonymous true\n"
                    "persistence false\nmax_queued_messages 100000\n")
    broker = subprocess.Popen([shutil.which("mosquitto") or "/usr/sbin/mosquitto", "-c", str(conf)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_port(port)
        received = {"action": 0, "live": 0}
        lock = threading.Lock()

        def got(client: mqtt.Client, userdata: object, message: mqtt.MQTTMessage) -> None:
            with lock:
                received[message.topic.rsplit("/", 1)[1]] += 1

        board = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="board", protocol=mqtt.MQTTv5)
        board.on_message = got
        board.connect("127.0.0.1", port)
        board.subscribe("bornes/scale/+/+", qos=1)
        board.loop_start()
        bridges = []
        for index in range(10):  # ten connections, a hundred tables' topics each
            client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"bridges-{index}", protocol=mqtt.MQTTv5)
            client.max_inflight_messages_set(200)
            client.connect("127.0.0.1", port)
            client.loop_start()
            bridges.append(client)
        time.sleep(0.3)
        per_second = int(TABLES / PACE)
        cpu_before, started = cpu_seconds(broker.pid), time.perf_counter()
        sent = 0
        for second in range(SECONDS):
            for n in range(per_second):
                table = (second * per_second + n) % TABLES
                client = bridges[table % 10]
                client.publish(f"bornes/scale/t{table}/live", LIVE, qos=0, retain=True)
                client.publish(f"bornes/scale/t{table}/action", ACTION, qos=1)
                sent += 1
            time.sleep(max(0.0, started + second + 1 - time.perf_counter()))  # hold the pace
        deadline = time.monotonic() + 20
        while received["action"] < sent and time.monotonic() < deadline:
            time.sleep(0.05)
        elapsed = time.perf_counter() - started
        used = cpu_seconds(broker.pid) - cpu_before
        for client in (*bridges, board):
            client.disconnect()
            client.loop_stop()
        assert received["action"] == sent, f"{sent - received['action']} of {sent} QoS 1 actions lost"
        assert received["live"] >= sent * 0.99  # QoS 0 on loopback: practically all
        print(f"\n1000 tables at peak: {2 * sent / elapsed:.0f} msg/s in, mosquitto used "
              f"{used / elapsed * 100:.1f} % of a core here")
    finally:
        broker.terminate()
        broker.wait(5)
