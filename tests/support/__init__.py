"""Helpers shared by several test folders (import as ``tests.support.<module>``).

* :mod:`.device_events`: driver timings for tests and waiting for a driver's events;
* :mod:`.codec_chunks`: a byte stream fed to a codec in pieces, as a serial port delivers it;
* :mod:`.table_driver`: a table controller fed events on a test clock, with its decisions;
* :mod:`.journal_forge`: journals built and tampered with, for the verify tests;
* :mod:`.paths`: where the repository's files are;
* :mod:`.cutfs`: a FUSE file system that keeps only what was fsynced, and cuts the power;
* :mod:`.cutfs_forks`: each cutfs forked from a warm server (no interpreter start per mount);
* :mod:`.power_cuts`: ``tablehost run`` cut on it, restarted on the disk left, and checked.
"""
