"""The worked example of docs/apply.md runs as a test, so it cannot rot."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from workloadbuilder.testing import FakeAPIServer

DOC = Path(__file__).resolve().parents[3] / "docs" / "apply.md"


def example() -> dict[str, Any]:
    match = re.search(r"<!-- example -->\n```python\n(.*?)```", DOC.read_text(), re.S)
    assert match, f"{DOC} lost its <!-- example --> python block"
    namespace: dict[str, Any] = {}
    exec(compile(match.group(1), str(DOC), "exec"), namespace)
    return namespace


async def test_docs_example(fake_apiserver: FakeAPIServer) -> None:
    async with fake_apiserver.api_client() as api:
        await example()["launch"](api)
    assert fake_apiserver.list_objects("scheduling.k8s.io", "v1beta1", "workloads", "ml") == []
