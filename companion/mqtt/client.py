"""A paho-mqtt client set up for our broker: credentials, TLS, last will, reconnecting with back-off.

paho's own network thread (`loop_start`) connects in the background, retries
with a delay doubling from `backoff[0]` to `backoff[1]` seconds while the broker
is down, and calls back on connect and disconnect; nothing here ever blocks
the caller on the network.
"""

import logging

import paho.mqtt.client as mqtt

from companion.mqtt.settings import BrokerSettings
from companion.mqtt.topics import QOS

log = logging.getLogger(__name__)

BACKOFF_S = (1, 60)  # first and longest wait between reconnection tries
KEEPALIVE_S = 30  # the broker declares a silent client gone (and sends its will) after 1.5 times this


def make_client(settings: BrokerSettings, client_id: str, *, will: tuple[str, str] | None = None,
                backoff: tuple[float, float] = BACKOFF_S) -> mqtt.Client:
    """A client for `settings` (not yet connected); the password file is read now."""
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv311)
    if will is not None:
        client.will_set(will[0], will[1], qos=QOS, retain=True)
    if settings.username is not None:
        client.username_pw_set(settings.username, settings.password())
    if settings.tls:
        # No CA file: the system's store (ca-certificates), as for any https site.
        client.tls_set(ca_certs=str(settings.ca_file) if settings.ca_file else None)
    client.reconnect_delay_set(*backoff)
    client.on_connect_fail = lambda client, userdata: log.warning(
        "cannot reach the broker at %s (or it is not who it claims to be); trying again", settings.url)
    return client


def start(client: mqtt.Client, settings: BrokerSettings) -> None:
    """Connect in the background and keep connecting: paho's thread runs until `client.loop_stop()`."""
    client.connect_async(settings.host, settings.port, keepalive=KEEPALIVE_S)
    client.loop_start()
