"""The worked example of docs/testing.md runs as a test, so it cannot rot."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from server_helpers import bounded

from workloadbuilder.testing import FakeAPIServer

DOC = Path(__file__).resolve().parents[2] / "docs" / "testing.md"


def example() -> dict[str, Any]:
    """Execute the ``<!-- example -->`` code block of the guide."""
    match = re.search(r"<!-- example -->\n```python\n(.*?)```", DOC.read_text(), re.S)
    assert match, f"{DOC} lost its <!-- example --> python block"
    namespace: dict[str, Any] = {}
    exec(compile(match.group(1), str(DOC), "exec"), namespace)
    return namespace


@bounded()
async def test_docs_example(fake_apiserver: FakeAPIServer) -> None:
    await example()["test_launch_gang"](fake_apiserver)
