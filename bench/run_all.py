"""Run every benchmark script in bench/ (``bench_*.py``) in turn and print their figures.

Usage: ``python bench/run_all.py [NAME ...]`` (names without ``bench_`` and ``.py``).
Each script is a plain program that prints its own figures; the README quotes them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    scripts = sorted(HERE.glob("bench_*.py"))
    if argv:
        scripts = [s for s in scripts if s.stem.removeprefix("bench_") in argv]
    failed = []
    for script in scripts:
        print(f"== {script.stem}", flush=True)
        if subprocess.run([sys.executable, str(script)], cwd=HERE.parent).returncode != 0:
            failed.append(script.stem)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
