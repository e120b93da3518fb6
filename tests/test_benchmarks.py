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


# Each target row: its module, what its line names, the target it prints.
TARGET_ROWS = {
    "benchmarks.bench_stamp": [
        ("hand-written dicts", "<= 1.5x"),
        ("lightkube 1.37 models", "<= 1x"),
    ],
    "benchmarks.bench_core": [
        ("release Workload (1 composite + 2 leaves): validate + build + stamp", "<= 3x"),
        ("widest 4-level tree (73 composites, 512 leaves): validate + build + stamp", "<= 3x"),
    ],
    "benchmarks.bench_import": [
        ("import lightkube.resources.scheduling_v1beta1", "<= 0.8x"),
        ("import kubernetes.client", "<= 0.4x"),
    ],
    "benchmarks.bench_memory": [("each used once (validated)", "<= 1.5x")],
    "benchmarks.bench_aio_apply": [("apply() through aio.new_client()", "<= 1.25x")],
    "benchmarks.bench_workqueue": [("aio.WorkQueue, 8 workers", "<= 2x")],
    "benchmarks.bench_cache": [
        ("steady reconcile_job per Job through aio.Cache", "<= 1.5x"),
        ("aio.Cache memory per 1,000 PodGroups", "<= 1.5x"),
    ],
    "benchmarks.bench_controller": [("aio.Controller, kind Job", "<= 2x")],
    "benchmarks.bench_cache_scale": [("steady reconcile_job per Job through aio.Cache", "<= 1.2x")],
}


@pytest.mark.slow
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
    lines = run.stdout.splitlines()
    for named, target in TARGET_ROWS.get(module, []):
        rows = [line for line in lines if named in line and f"| {target} |" in line]
        assert rows, (named, target)
        assert all(row.endswith(("| met |", "| MISSED |")) for row in rows), rows
