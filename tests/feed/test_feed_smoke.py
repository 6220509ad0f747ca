from pathlib import Path

from tests.support.broker import Broker
from tests.support.floor_run import collecting, floor_export, journal_export, run_table, table_profile, wait_for, floor_seq


def test_smoke(tmp_path: Path, broker: Broker) -> None:
    profile = table_profile(tmp_path)
    journal = tmp_path / "table.sqlite"
    db = tmp_path / "floor.sqlite"
    with collecting(db, broker.url):
        done = run_table(profile, journal, 5, broker.url)
        print(done.stderr[-2000:])
        wait_for(lambda: floor_export(db) == journal_export(journal) if floor_seq(db) else False, 20)
    assert floor_export(db) == journal_export(journal)
