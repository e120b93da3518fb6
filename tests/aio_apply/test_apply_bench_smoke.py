"""The apply benchmark runs (tiny sizes), so it cannot rot; its figures come from a real run."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_aio_apply.py"


def test_bench_aio_apply_smoke() -> None:
    spec = importlib.util.spec_from_file_location("bench_aio_apply", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        output = module.main(["--smoke"])
    finally:
        del sys.modules[spec.name]
    for label in (module.CEILING, module.CLIENT_SESSION, module.OURS, module.OFFICIAL):
        assert f"| {label} |" in output
    assert "command: python -m benchmarks.bench_aio_apply --smoke" in output
