"""The host: the service loop that owns a controller, the journal, the outputs, systemd.

* :mod:`.service`: :class:`~firmware_host.host.service.Service`, one thread that journals each
  event with its decisions, then hands them to the outputs;
* :mod:`.journal`: the durable, hash-chained SQLite journal, its verify and export;
* :mod:`.outputs`: what decisions drive (dealer view, lamp, buzzer, feeds);
* :mod:`.systemd`: readiness and watchdog notifications.
"""
