"""The soak harness: the real ``tablehost run`` killed and restarted on simulated tables, then audited.

``bench/bench_recovery.py --kills N`` soaks with it for hundreds of kills; the recovery tests
(``tests/recovery``) drive it briefly, and the integration tests share its simulated tables and
Pai Gow round checks. Nothing here imports test code.

- :mod:`bench.soak.profiles`: the simulated tables' profiles, written into a directory;
- :mod:`bench.soak.killloop`: the process, the journal tracker, the kill loops;
- :mod:`bench.soak.forked`: the kill loops' processes, forked from a server warmed by :mod:`bench.soak.warm`;
- :mod:`bench.soak.audit`: the journal's audit and the comparison with an uninterrupted run;
- :mod:`bench.soak.shuffler_audit`: the audit's part at a table with an automatic shuffler.
"""
