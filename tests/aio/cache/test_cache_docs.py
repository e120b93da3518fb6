"""docs/observe.md's cache example runs against the test server, as pasted."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from cache_support import NS, SCHEDULING, job, server

DOC = Path(__file__).resolve().parents[3] / "docs" / "observe.md"


def _example() -> str:
    found = re.search(r"<!-- cache-example -->\n```python\n(.*?)^```", DOC.read_text(), re.S | re.M)
    assert found is not None, "docs/observe.md has no cache example"
    return found.group(1)


async def test_the_cache_example_reconciles_every_job_once() -> None:
    scope: dict[str, Any] = {}
    exec(compile(_example(), str(DOC), "exec"), scope)
    async with server() as srv, srv.api_client() as api:
        for name in ("a", "b"):
            srv.create_object("batch", "v1", "jobs", job(name))
        results = await scope["resync"](api, NS)
        assert [[r.kind for r in result.created] for result in results] == [
            ["Workload", "PodGroup"],
            ["Workload", "PodGroup"],
        ]
        assert len(srv.list_objects(SCHEDULING, "v1beta1", "podgroups", NS)) == 2
