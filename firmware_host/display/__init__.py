"""The web display: the dealer display and the player scoreboard, served from inside the service.

:mod:`.view` (the table as the decisions show it), :mod:`.hub` (the Output, its thread and the
streams), :mod:`.app` (the Starlette app), :mod:`.server` (uvicorn in a thread), :mod:`.actions`
and :mod:`.pins` (what a dealer may do, and with which PIN); the pages in ``static/``. Built by
:mod:`firmware_host.wiring.display`; see docs/display.md.
"""
