"""Import time of ``workloadbuilder`` next to the official client's ``kubernetes.client``.

Run: ``python tests/conformance/bench_import_time.py [--runs N]``

Every sample is a fresh interpreter. Two measures per module, each the median of N samples
(runs of the two modules and of a bare interpreter are interleaved, after one warm-up each so
that bytecode caches exist):

* wall clock of ``python -c "import X"`` minus the median of a bare ``python -c "pass"``;
* the interpreter's own account (``-X importtime``): the cumulative time of every top-level
  import that the statement triggered.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

MODULES = ("workloadbuilder", "kubernetes.client")


def _wall(code: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - start


def _importtime(module: str) -> float:
    """Seconds spent importing ``module`` and everything it pulled in, per ``-X importtime``."""
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        check=True,
        capture_output=True,
        text=True,
    )
    total_us = 0
    seen_start = False
    for line in run.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = line.removeprefix("import time:").split("|")
        if not cumulative.strip().isdigit():
            continue  # the header line
        # Interpreter start-up imports (site, encodings, ...) come first; the statement's own
        # imports follow. Top-level entries have no indentation in the name column.
        seen_start = seen_start or name.strip() == "site"
        if seen_start and name.strip() != "site" and not name.startswith("  "):
            total_us += int(cumulative)
    return total_us / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="samples per module (default 9)")
    args = parser.parse_args()
    if args.runs < 7:
        parser.error("use at least 7 runs")

    for module in MODULES:  # warm-up: compile and cache bytecode
        _wall(f"import {module}")
    bare: list[float] = []
    wall: dict[str, list[float]] = {m: [] for m in MODULES}
    own: dict[str, list[float]] = {m: [] for m in MODULES}
    for _ in range(args.runs):
        bare.append(_wall("pass"))
        for module in MODULES:
            wall[module].append(_wall(f"import {module}"))
            own[module].append(_importtime(module))

    base = statistics.median(bare)
    print(f"python {sys.version.split()[0]}, {args.runs} runs each, median values")
    print(f"bare interpreter start: {base * 1000:7.1f} ms")
    wall_ms = {m: (statistics.median(wall[m]) - base) * 1000 for m in MODULES}
    own_ms = {m: statistics.median(own[m]) * 1000 for m in MODULES}
    for module in MODULES:
        print(
            f"import {module:<18} {wall_ms[module]:7.1f} ms wall (minus start)"
            f"   {own_ms[module]:7.1f} ms (-X importtime)"
        )
    first, second = MODULES
    print(
        f"ratio {first} / {second}: {wall_ms[first] / wall_ms[second]:.2f} (wall)"
        f"   {own_ms[first] / own_ms[second]:.2f} (-X importtime)"
    )


if __name__ == "__main__":
    main()
