"""Why the floor's redundant collectors do not use an MQTT 5 shared subscription: what
Mosquitto does with a dead member's messages (docs/feed.md, "Redundant collectors").

Two persistent members A and B of ``$share/floor/t/#`` (clean start off, QoS 1); A never
acknowledges, then dies without a DISCONNECT; 20 messages are published before and 20 after.
It prints what B received, what B never received, and what A receives when it comes back.

    .venv/bin/python bench/floor/shared_subscription.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from bench.feed.broker import Broker


def member(port: int, client_id: str, ack: bool, got: list[int]) -> mqtt.Client:
    """A persistent member of the shared subscription, collecting what it receives in ``got``."""
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
    client.manual_ack_set(True)

    def on_message(made: mqtt.Client, userdata: object, message: mqtt.MQTTMessage) -> None:
        got.append(int(message.payload))
        if ack:
            made.ack(message.mid, message.qos)

    client.on_message = on_message
    properties = Properties(PacketTypes.CONNECT)
    properties.SessionExpiryInterval = 3600
    client.connect("127.0.0.1", port, clean_start=False, properties=properties)
    client.subscribe("$share/floor/t/#", qos=1)
    client.loop_start()
    return client


def main() -> int:
    with tempfile.TemporaryDirectory() as directory, Broker(Path(directory) / "broker") as broker:
        a_got: list[int] = []
        b_got: list[int] = []
        a, b = member(broker.port, "A", False, a_got), member(broker.port, "B", True, b_got)
        time.sleep(0.5)
        publisher = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        publisher.connect("127.0.0.1", broker.port)
        publisher.loop_start()
        for n in range(20):
            publisher.publish("t/x", str(n), qos=1).wait_for_publish(5)
        time.sleep(1)
        print(f"A received {len(a_got)} (never acknowledged), B received {len(b_got)}")
        a.loop_stop()
        a.socket().close()  # A dies: no DISCONNECT
        time.sleep(3)
        print(f"3 s after A died, B has received {len(b_got)} (A's unacknowledged ones not redispatched)")
        for n in range(20, 40):
            publisher.publish("t/x", str(n), qos=1).wait_for_publish(5)
        time.sleep(1.5)
        print(
            f"20 more published while A is dead: B has received {len(b_got)} in all; never at B: "
            f"{sorted(set(range(40)) - set(b_got))}"
        )
        back: list[int] = []
        again = member(broker.port, "A", True, back)
        time.sleep(2)
        print(f"A back: it receives {sorted(back)}")
        for client in (again, b, publisher):
            client.loop_stop()
            client.disconnect()
    return 0


if __name__ == "__main__":
    sys.exit(main())
