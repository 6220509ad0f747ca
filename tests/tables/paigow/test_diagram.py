"""The state diagram in docs/ is generated from the machine as declared (no drift)."""

from __future__ import annotations

import importlib.util

from firmware_host.tables.paigow import PaiGowTable
from tests.support.paths import REPO

DOCS = REPO / "docs"


def test_docs_state_paigow_is_generated_from_the_machine() -> None:
    spec = importlib.util.spec_from_file_location("generate_diagrams", DOCS / "generate_diagrams.py")
    assert spec is not None and spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    title, note = next((t, n) for name, t, cls, n in generator.DIAGRAMS if cls is PaiGowTable)
    text = (DOCS / "state-paigow.md").read_text(encoding="utf-8")
    assert text == generator.document(title, PaiGowTable, note)
    for transition in PaiGowTable.TRANSITIONS:
        assert f": {transition['trigger']}" in text
