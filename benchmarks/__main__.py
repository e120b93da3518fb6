"""Run every benchmark (``benchmarks/bench_*.py``), each in a fresh interpreter.

Run: ``python -m benchmarks [--smoke]`` (what ``nox -s bench`` does); arguments are passed to
every benchmark, so only the common ones (``--smoke``, ``--repeats N``) make sense here.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def names() -> list[str]:
    """The module names of every benchmark, in file-name order."""
    here = Path(__file__).resolve().parent
    return [f"benchmarks.{path.stem}" for path in sorted(here.glob("bench_*.py"))]


def main() -> int:
    failed = []
    for name in names():
        if subprocess.run([sys.executable, "-m", name, *sys.argv[1:]], check=False).returncode:
            failed.append(name)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
