"""validate_job and the test API server agree on what a Job's ``spec.scheduling`` may hold.

Two independent implementations of the API server's rules (``workloadbuilder.job.rules`` and
``workloadbuilder.testing.rules``), checked against each other over real HTTP: every cause the
server answers for a Job create is an error ``validate_job`` reports, field and message alike.
"""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import pytest

import workloadbuilder as wb
from workloadbuilder.testing import FakeAPIServer

ZONE = "topology.kubernetes.io/zone"
SCHEDULING: list[dict[str, Any]] = [
    {"schedulingPolicy": {"gang": {"minCount": 0}}},
    {"schedulingPolicy": {"gang": {"minCount": 9}}},
    {"schedulingPolicy": {"basic": {}, "gang": {}}},
    {"schedulingPolicy": {}},
    {"disruptionMode": {}},
    {"disruptionMode": {"single": {}, "all": {}}},
    {"schedulingConstraints": {"topology": [{"key": ZONE}, {"key": "rack"}]}},
    {"schedulingConstraints": {"topology": [{"key": "not a key"}]}},
    {"resourceClaims": [{"name": "gpus"}]},
    {"resourceClaims": [{"name": "Gpus", "resourceClaimName": "x"}]},
    {"resourceClaims": [{"name": f"c{i}", "resourceClaimName": "x"} for i in range(5)]},
    {"schedulingPolicy": {"gang": {"minCount": 4}}, "disruptionMode": {"all": {}}},
    {"schedulingPolicy": {"basic": {}}, "disruptionMode": {"all": {}}},
    {"disruptionMode": {"all": {}}},
]


def job(name: str, scheduling: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "parallelism": 4,
            "scheduling": scheduling,
            "template": {
                "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}
            },
        },
    }


@pytest.mark.parametrize("index", range(len(SCHEDULING)))
async def test_every_server_cause_is_reported_by_validate_job(index: int) -> None:
    doc = job(f"j{index}", SCHEDULING[index])
    mine = {(e.field, e.error_body()) for e in wb.validate_job(doc)}
    async with FakeAPIServer() as server, aiohttp.ClientSession() as http:
        url = f"{server.url}/apis/batch/v1/namespaces/default/jobs"
        async with http.post(
            url, data=json.dumps(doc), headers={"Content-Type": "application/json"}
        ) as r:
            body = await r.json()
    causes = {(c["field"], c["message"]) for c in (body.get("details") or {}).get("causes", [])}
    assert causes == mine
    assert bool(causes) == (r.status == 422)
