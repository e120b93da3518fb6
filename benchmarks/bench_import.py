"""Import time of ``workloadbuilder`` next to lightkube's PodGroup and Workload resources
(``lightkube.resources.scheduling_v1beta1``) and the official client's ``kubernetes.client``.

Run: ``python -m benchmarks.bench_import [--runs N]``

Every sample is a fresh interpreter. Two measures per module, each the median of N samples
(runs of the two modules and of a bare interpreter are interleaved, after one warm-up each so
that bytecode caches exist; the interpreters may write them even where ``PYTHONDONTWRITEBYTECODE``
is set, since an installed package has its caches from ``pip install`` and an editable checkout
without them would time the compiler):

* wall clock of ``python -c "import X"`` minus the median of a bare ``python -c "pass"``;
* the same for the child's CPU time (user + system), which other jobs on a shared machine
  disturb less than the wall clock;
* the interpreter's own account (``-X importtime``): the cumulative time of every top-level
  import that the statement triggered.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time

from benchmarks._harness import Row, arguments, print_table

OURS = "workloadbuilder"
# Each baseline with its target ratio.
BASELINES = {"lightkube.resources.scheduling_v1beta1": 0.8, "kubernetes.client": 0.4}
MODULES = (OURS, *BASELINES)
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _wall(code: str) -> tuple[float, float]:
    """Wall-clock and CPU seconds of ``python -c code``."""
    start, cpu = time.perf_counter(), _child_cpu()
    subprocess.run([sys.executable, "-c", code], check=True, env=_ENV)
    return time.perf_counter() - start, _child_cpu() - cpu


def _importtime(module: str) -> float:
    """Seconds spent importing ``module`` and everything it pulled in, per ``-X importtime``."""
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        check=True,
        env=_ENV,
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
    args = arguments(__doc__.splitlines()[0], runs=9)
    runs = args.runs if not args.smoke else 1
    for module in MODULES:  # warm-up: compile and cache bytecode
        _wall(f"import {module}")
    bare: list[tuple[float, float]] = []
    wall: dict[str, list[tuple[float, float]]] = {m: [] for m in MODULES}
    own: dict[str, list[float]] = {m: [] for m in MODULES}
    for run in range(runs):
        bare.append(_wall("pass"))
        shift = run % len(MODULES)
        for module in [*MODULES[shift:], *MODULES[:shift]]:
            wall[module].append(_wall(f"import {module}"))
            own[module].append(_importtime(module))
    base = statistics.median(w for w, _ in bare)
    base_cpu = statistics.median(c for _, c in bare)
    wall_s = {m: statistics.median(w for w, _ in wall[m]) - base for m in MODULES}
    cpu_s = {m: statistics.median(c for _, c in wall[m]) - base_cpu for m in MODULES}
    own_s = {m: statistics.median(own[m]) for m in MODULES}
    rows = []
    for theirs, target in BASELINES.items():
        for what, seconds in (
            ("wall clock minus a bare interpreter's start", wall_s),
            ("CPU time minus a bare interpreter's", cpu_s),
            ("-X importtime cumulative", own_s),
        ):
            rows.append(
                Row(
                    f"import {OURS}, {what}",
                    f"import {theirs}",
                    seconds[theirs],
                    seconds[OURS],
                    target=target,
                )
            )
    print_table(
        "import time",
        rows,
        note=f"{runs} fresh interpreters per module, interleaved; bare interpreter start"
        f" {base * 1e3:.1f} ms",
    )


if __name__ == "__main__":
    main()
