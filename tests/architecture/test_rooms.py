"""Rooms a newcomer can hold (issue 31, item 5): no class over about 300 lines, and a table's
collaborators speak to their facade through its named interface, never its underscore methods."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.paths import REPO

#: The longest a class may be, in lines (its ``class`` line to its last line). No class is
#: allowed more: a longer one moves a whole concern into a collaborator.
LONGEST_CLASS = 300


def _modules(*roots: str) -> list[Path]:
    return sorted(path for root in roots for path in (REPO / root).rglob("*.py"))


def _class_lines(source: str, where: str) -> dict[str, int]:
    """Every class in ``source`` (nested ones too) and its length in lines."""
    return {
        f"{where}:{node.name}": (node.end_lineno or node.lineno) - node.lineno + 1
        for node in ast.walk(ast.parse(source, where))
        if isinstance(node, ast.ClassDef)
    }


def test_no_class_is_longer_than_300_lines() -> None:
    lines: dict[str, int] = {}
    for path in _modules("firmware_host", "drivers", "sim"):
        lines.update(_class_lines(path.read_text(encoding="utf-8"), str(path.relative_to(REPO))))
    assert len(lines) > 100, "the walk found the classes"
    long = {name: count for name, count in lines.items() if count > LONGEST_CLASS}
    assert not long, f"classes over {LONGEST_CLASS} lines (move a concern into a collaborator): {long}"


def test_the_measure_counts_a_class_from_its_line_to_its_last() -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(LONGEST_CLASS))
    source = f"class Long:\n{body}\n\nclass Short:\n    pass\n"
    assert _class_lines(source, "m.py") == {"m.py:Long": LONGEST_CLASS + 1, "m.py:Short": 2}


def _underscore_uses(source: str, where: str) -> list[str]:
    """``x._name`` (a call ``x._name(...)``, or any other use) in ``source`` where ``x`` is neither
    ``self`` nor ``cls`` (nor ``super()``)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source, where)):
        if not isinstance(node, ast.Attribute):
            continue
        name, owner = node.attr, node.value
        if not name.startswith("_") or name.startswith("__"):
            continue
        if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
            continue
        if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super":
            continue
        found.append((node.lineno, f"{where}:{node.lineno}: {ast.unparse(node)}"))
    return [text for _, text in sorted(found)]


def test_no_table_module_calls_or_reads_another_objects_underscore_names() -> None:
    modules = _modules("firmware_host/tables")
    assert len(modules) > 20
    calls = [c for path in modules for c in _underscore_uses(path.read_text(encoding="utf-8"), str(path))]
    assert not calls, "call the facade's TableServices interface (tables/services.py) instead: " + "; ".join(calls)


def test_the_check_finds_underscore_names_of_others_and_passes_self_and_super() -> None:
    source = "def f(table, self):\n    table._alert('x')\n    self._ok()\n    super()._ok()\n    table.__len__()\n    table._out\n"
    assert _underscore_uses(source, "sample.py") == ["sample.py:2: table._alert", "sample.py:6: table._out"]
