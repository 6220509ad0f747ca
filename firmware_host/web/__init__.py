"""The hardened web layer every HTTP face of the table stands on (the display; the floor dashboard).

:mod:`.parse` (outside input: queries, headers, JSON bodies, never a 500), :mod:`.guard` (the
ASGI middleware: Host, Origin, content type, body size, the catch-all), :mod:`.lockout` (wrong
secrets counted per address and in all, checked a few at a time in threads), :mod:`.refusals`
(refusals journaled as one summary per address per minute), :mod:`.streams` (live streams
capped), :mod:`.logs` (logging at a rate limit), :mod:`.server` (uvicorn in a thread, with its
timeouts, its connection cap and no proxy headers unless a proxy is trusted), :mod:`.headers`
(the browsers' security headers on every response). It imports no other part of tablehost but
:mod:`firmware_host.errors` and :mod:`firmware_host.text`; see docs/security.md.

A face stands on it in three lines (as :mod:`firmware_host.display.app` does)::

    refusals = Refusals(journal_sink)                      # one record per address a minute
    app = Starlette(routes=..., middleware=[Middleware(Guard, policy=Policy(hosts=...),
                                                       refused=refusals.note)])
    server = WebServer(app, host, port, tls, ConnectionLimits(trusted_proxies=...), name="floor")

and reads its queries with :func:`.parse.query_value`, its bodies with :func:`.parse.parse_json`,
checks secrets through one :class:`.lockout.Lockout`, and takes a :class:`.streams.StreamSlots`
slot for every live stream.
"""
