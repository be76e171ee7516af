"""The MQTT connection both club programs open: the bridge on each table and the board."""

from __future__ import annotations

import ssl

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from bornes.firmware.club.settings import BrokerSettings


def make_client(client_id: str, broker: BrokerSettings) -> mqtt.Client:
    """A paho 2.x client (callback API version 2, MQTT 5) with the settings' credentials and TLS."""
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
    if broker.username:
        client.username_pw_set(broker.username, broker.password or None)
    if broker.tls_ca:
        client.tls_set(ca_certs=broker.tls_ca, tls_version=ssl.PROTOCOL_TLS_CLIENT)
    client.reconnect_delay_set(1, 5)
    return client
