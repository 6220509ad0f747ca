"""The floor feed: every table's journal, published over MQTT to the casino's systems.

- :mod:`firmware_host.feed.schema` — pure: which journal records are published, the message
  schema and its SHA-256 chain (docs/feed.md);
- :mod:`firmware_host.feed.cursor` — the durable cursor (last ``seq`` the broker acknowledged)
  in the journal's database;
- :mod:`firmware_host.feed.broker` — broker URLs, credentials and TLS for a paho-mqtt client;
- :mod:`firmware_host.feed.publisher` — :class:`FeedPublisher`, an Output on its own thread.
"""
