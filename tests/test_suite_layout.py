"""The suite's own layout (issue 12, item 5): it mirrors the source, and bench/ needs none of it.

- every source package has its test folder: ``firmware_host/<pkg>`` is tested in ``tests/<pkg>``,
  ``drivers/<pkg>`` and ``sim/<pkg>`` in ``tests/drivers/<pkg>`` and ``tests/sim/<pkg>``;
- every folder of tests is a package and no two test files share a name;
- shared helpers live in ``tests/support`` (or a conftest): no module imports a test module;
- ``bench/`` imports no test code (what the soak and the tests share is :mod:`bench.soak`).
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from tests.support.paths import REPO

TESTS = REPO / "tests"
#: The source roots and where their packages' tests go.
SOURCES = {"firmware_host": TESTS, "drivers": TESTS / "drivers", "sim": TESTS / "sim"}


def _packages(root: Path) -> Iterator[Path]:
    """The packages below ``root`` (not ``root`` itself), as paths relative to it."""
    for init in sorted(root.rglob("__init__.py")):
        if init.parent != root:
            yield init.parent.relative_to(root)


def _imports(path: Path) -> Iterator[tuple[int, str]]:
    """``(line, module)`` of every import in a Python file (a relative one as written, dots first)."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            yield node.lineno, "." * node.level + (node.module or "")


def _test_files() -> list[Path]:
    return sorted(TESTS.rglob("test_*.py"))


def test_every_source_package_has_its_test_folder() -> None:
    missing = [f"{source}/{package} has no {(tests / package).relative_to(REPO)}/"
               for source, tests in SOURCES.items() for package in _packages(REPO / source)
               if not (tests / package / "__init__.py").is_file()]  # fmt: skip
    assert missing == []


def test_every_folder_of_tests_is_a_package_and_no_two_test_files_share_a_name() -> None:
    folders = {path.parent for path in _test_files()}
    assert sorted(str(f.relative_to(REPO)) for f in folders if not (f / "__init__.py").is_file()) == []
    names = Counter(path.name for path in _test_files())
    assert sorted(name for name, count in names.items() if count > 1) == []


def test_no_module_imports_a_test_module_shared_helpers_live_in_tests_support() -> None:
    found = [f"{path.relative_to(REPO)}:{line} imports {module}"
             for path in sorted(TESTS.rglob("*.py")) for line, module in _imports(path)
             if module.rpartition(".")[2].startswith("test_")]  # fmt: skip
    assert found == []


def test_bench_imports_no_test_code() -> None:
    found = [f"{path.relative_to(REPO)}:{line} imports {module}"
             for path in sorted((REPO / "bench").rglob("*.py")) for line, module in _imports(path)
             if module == "tests" or module.startswith("tests.")]  # fmt: skip
    assert found == []
