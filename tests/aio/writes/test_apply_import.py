"""``import workloadbuilder`` leaves the async layer and its dependencies alone."""

from __future__ import annotations

import subprocess
import sys


def test_importing_the_core_does_not_import_aio() -> None:
    probe = (
        "import sys, workloadbuilder;"
        "print(sorted(m for m in ('workloadbuilder.aio', 'tenacity', 'kubernetes_asyncio',"
        " 'aiohttp') if m in sys.modules))"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert run.stdout.strip() == "[]"
