"""One way to write a kept file (GUIDE rule 3, issue 27 item 1): production code renames or
creates a file only through :mod:`firmware_host.durable`.

An AST scan of ``firmware_host/`` finds every call that renames a file (``os.rename``,
``os.replace``, ``os.link``, ``Path.rename``, ``Path.replace``, ``shutil.move``), writes one
whole (``Path.write_text``, ``Path.write_bytes``, ``shutil.copy*``) or creates one
(``open`` in a writing mode, ``os.open`` with ``O_CREAT``). Each must be in
``firmware_host/durable.py`` or on :data:`ALLOWED`, which says why the file is not kept.
SQLite's own files are SQLite's (it fsyncs them and, creating a rollback journal or a
write-ahead log, their directory); the journal's file is made under a temporary name and
published by :func:`firmware_host.durable.publish` (``host/genesis.py``).
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from tests.support.paths import REPO

PACKAGE = REPO / "firmware_host"
#: The module that is the one way.
HELPER = PACKAGE / "durable.py"

#: (module, enclosing function, call) -> why the file is not a kept file. Each entry must still
#: be found: one that is not is stale and fails the test too.
ALLOWED: dict[tuple[str, str, str], str] = {
    ("host/journal_lock.py", "lock_for_writing", "os.open(O_CREAT)"): (
        "the writer's lock file: an empty file only flock'ed, never read; a cut loses nothing"
    ),
    ("wiring/salvage.py", "_replace", "os.link"): (
        "the damaged journal kept under a second name (.damaged): a hard link to the same inode, "
        "its directory fsynced before the salvaged file takes the name (durable.publish)"
    ),
    ("cli/webface.py", "_autogroup_nice", "open(w)"): (
        "/proc/self/autogroup, the kernel's scheduling setting of the web face's group, not a file"
    ),
    ("display/face_file.py", "_connect_writer", "os.open(O_CREAT)"): (
        "the face file made empty with its mode before SQLite opens it: derived from the journal, "
        "rebuilt at every start of the service, never kept (SQLite writes it, synchronous=NORMAL)"
    ),
    ("host/segments.py", "opened", "open(w)"): (
        "a compressed segment decompressed into a temporary directory to be read, deleted after"
    ),
}

_RENAMES = {"rename", "replace", "link", "symlink"}
_WRITERS = {"write_text", "write_bytes"}


def _call_name(node: ast.Call) -> str | None:
    """What ``node`` does to a file, named as :data:`ALLOWED` names it, or None."""
    func = node.func
    if isinstance(func, ast.Name) and func.id == "open":
        mode = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "mode"), None)
        if isinstance(mode, ast.Constant) and isinstance(mode.value, str) and set(mode.value) & set("wax+"):
            return "open(w)"
        return None
    if not isinstance(func, ast.Attribute):
        return None
    owner = func.value.id if isinstance(func.value, ast.Name) else None
    if owner == "os" and func.attr in _RENAMES:
        return f"os.{func.attr}"
    if owner == "os" and func.attr == "open":
        flags = [n.attr if isinstance(n, ast.Attribute) else getattr(n, "id", "") for n in ast.walk(node)]
        return "os.open(O_CREAT)" if "O_CREAT" in flags else None
    if owner == "shutil" and (func.attr == "move" or func.attr.startswith("copy")) and func.attr != "copyfileobj":
        return f"shutil.{func.attr}"
    if func.attr in _WRITERS:
        return f"Path.{func.attr}"
    if func.attr == "rename" and owner != "os":
        return "Path.rename"
    # str.replace and bytes.replace take two arguments, dataclasses.replace keywords: Path.replace takes one.
    if func.attr == "replace" and owner not in ("os", "dataclasses") and len(node.args) == 1 and not node.keywords:
        return "Path.replace"
    return None


def found_calls(root: Path = PACKAGE) -> Counter[tuple[str, str, str]]:
    """Every call of :func:`_call_name` in production code outside the helper, by (module, function, call)."""
    found: Counter[tuple[str, str, str]] = Counter()
    for path in sorted(root.rglob("*.py")):
        if path == HELPER:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for function in [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]:
            name = getattr(function, "name", "<module>")
            for node in _own_nodes(function):
                call = _call_name(node) if isinstance(node, ast.Call) else None
                if call is not None:
                    found[(path.relative_to(root).as_posix(), name, call)] += 1
    return found


def _own_nodes(scope: ast.AST) -> list[ast.AST]:
    """The nodes of ``scope`` outside the functions nested in it (each is scanned as its own scope)."""
    nodes, pending = [], list(ast.iter_child_nodes(scope))
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        nodes.append(node)
        pending.extend(ast.iter_child_nodes(node))
    return nodes


def test_production_code_writes_kept_files_only_through_the_helper() -> None:
    found = found_calls()
    unexplained = sorted(key for key in found if key not in ALLOWED)
    assert not unexplained, (
        "a file renamed or created outside firmware_host.durable (use durable.write_file or "
        f"durable.publish, or add it to ALLOWED with why it is not kept): {unexplained}"
    )
    stale = sorted(key for key in ALLOWED if key not in found)
    assert not stale, f"ALLOWED names calls that are gone: {stale}"


def test_the_scan_finds_each_way_of_renaming_or_creating_a_file(tmp_path: Path) -> None:
    """The scan on a module that does each thing the wrong way finds every one of them."""
    (tmp_path / "careless.py").write_text(
        "import os, shutil\n"
        "from pathlib import Path\n"
        "def save(path: Path, text: str) -> None:\n"
        "    path.write_text(text)\n"
        "    path.with_suffix('.b').write_bytes(b'')\n"
        "    os.rename(path, 'x')\n"
        "    os.replace(path, 'y')\n"
        "    path.rename('z')\n"
        "    path.replace('w')\n"
        "    shutil.move(path, 'v')\n"
        "    with open(path, 'w') as out:\n"
        "        out.write(text)\n"
        "    os.close(os.open(path, os.O_WRONLY | os.O_CREAT))\n"
        "    text.replace('a', 'b')\n"  # a string's: not a file
        "    with open(path) as source:\n"  # reading: not a creation
        "        source.read()\n"
    )
    calls = sorted(call for (_, _, call), n in found_calls(tmp_path).items() for _ in range(n))
    assert calls == sorted(
        [
            "Path.write_text",
            "Path.write_bytes",
            "os.rename",
            "os.replace",
            "Path.rename",
            "Path.replace",
            "shutil.move",
            "open(w)",
            "os.open(O_CREAT)",
        ]
    )
