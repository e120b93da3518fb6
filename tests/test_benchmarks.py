"""Every benchmark still runs: a smoke run with tiny sizes, whose table has every part."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.__main__ import names

ROOT = Path(__file__).resolve().parents[1]


def test_every_row_of_the_issue_is_benchmarked() -> None:
    assert {
        "benchmarks.bench_core",
        "benchmarks.bench_import",
        "benchmarks.bench_memory",
        "benchmarks.bench_server",
        "benchmarks.bench_stamp",
        "benchmarks.bench_yaml",
    } <= set(names())


@pytest.mark.parametrize("module", names())
def test_benchmark_smoke_run_prints_its_table(module: str) -> None:
    run = subprocess.run(
        [sys.executable, "-m", module, "--smoke"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert "| path | baseline |" in run.stdout
    assert "x |" in run.stdout  # a ratio
    assert f"reproduce: python -m {module} --smoke" in run.stdout
