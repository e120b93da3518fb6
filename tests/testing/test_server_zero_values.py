"""Zero values a core object's Go struct always writes, in every answer.

Expected values: a real kube-apiserver (``real-apiserver-observed.md``: a bound pod's
``PodScheduled`` condition with "only lastTransitionTime and lastProbeTime null"; a pod
condition written without ``lastTransitionTime`` reads back with it ``null``; a created
Node's status carries ``daemonEndpoints: {kubeletEndpoint: {Port: 0}}`` and a ``nodeInfo`` of
empty strings), ``k8s.io/api``'s types (``JobCondition.lastProbeTime``/``lastTransitionTime``,
``NodeCondition.lastHeartbeatTime``/``lastTransitionTime`` and
``NamespaceCondition.lastTransitionTime`` are ``metav1.Time`` values with ``omitempty``,
which ``metav1.Time.MarshalJSON`` writes ``null`` when zero), and the 1.37 schemas of
kubernetes-validate (``NodeSystemInfo``'s required fields, ``DaemonEndpoint.Port``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aiohttp
import kubernetes_validate
import pytest

from workloadbuilder.testing import FakeAPIServer
from workloadbuilder.testing.common.errors import APIStatusError

SCHEMAS = Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema" / "v1.37.0-local"
MERGE = "application/merge-patch+json"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "p1", "namespace": "default"},
    "spec": {"containers": [{"name": "main", "image": "busybox"}]},
}
WRITTEN = {"type": "Ready", "status": "False", "reason": "Waiting"}
SERVED = {**WRITTEN, "lastProbeTime": None, "lastTransitionTime": None}


async def _call(
    server: FakeAPIServer,
    method: str,
    path: str,
    body: Any = None,
    *,
    content_type: str = "application/json",
    accept: str = "application/json",
) -> tuple[int, Any]:
    headers = {"Accept": accept, "Content-Type": content_type}
    data = None if body is None else json.dumps(body)
    async with (
        aiohttp.ClientSession() as http,
        http.request(method, server.url + path, data=data, headers=headers) as resp,
    ):
        return resp.status, json.loads(await resp.read())


def _pod_conditions(pod: dict[str, Any]) -> list[dict[str, Any]]:
    return list(pod["status"]["conditions"])


async def test_a_pod_condition_without_times_reads_back_with_them_null(
    fake_apiserver: FakeAPIServer,
) -> None:
    fake_apiserver.create_object("", "v1", "pods", POD)
    pods = "/api/v1/namespaces/default/pods"
    status, patched = await _call(
        fake_apiserver,
        "PATCH",
        f"{pods}/p1/status",
        {"status": {"conditions": [WRITTEN]}},
        content_type=MERGE,
    )
    assert status == 200
    assert _pod_conditions(patched) == [SERVED]
    _, read = await _call(fake_apiserver, "GET", f"{pods}/p1")
    assert _pod_conditions(read) == [SERVED]
    _, listed = await _call(fake_apiserver, "GET", pods)
    assert [_pod_conditions(p) for p in listed["items"]] == [[SERVED]]
    _, table = await _call(fake_apiserver, "GET", f"{pods}?includeObject=Object", accept=TABLE)
    assert [_pod_conditions(r["object"]) for r in table["rows"]] == [[SERVED]]
    status, deleted = await _call(fake_apiserver, "DELETE", f"{pods}/p1?dryRun=All")
    assert status == 200
    assert _pod_conditions(deleted) == [SERVED]
    async with (
        aiohttp.ClientSession() as http,
        http.get(f"{fake_apiserver.url}{pods}?watch=1&resourceVersion=0") as resp,
    ):
        event = json.loads(await resp.content.readline())
    assert event["type"] == "ADDED"
    assert _pod_conditions(event["object"]) == [SERVED]


async def test_the_times_given_are_kept(fake_apiserver: FakeAPIServer) -> None:
    fake_apiserver.create_object("", "v1", "pods", POD)
    given = {**WRITTEN, "lastTransitionTime": "2026-01-02T03:04:05Z"}
    fake_apiserver.patch_status("", "v1", "pods", "default", "p1", {"conditions": [given]})
    pod = fake_apiserver.get_object("", "v1", "pods", "default", "p1")
    assert pod is not None
    assert _pod_conditions(pod) == [{**given, "lastProbeTime": None}]


async def test_job_node_and_namespace_conditions(fake_apiserver: FakeAPIServer) -> None:
    fake_apiserver.create_object(
        "batch",
        "v1",
        "jobs",
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": "j1", "namespace": "default"},
            "spec": {
                "template": {
                    "spec": {
                        "restartPolicy": "Never",
                        "containers": [{"name": "main", "image": "busybox"}],
                    }
                }
            },
        },
    )
    fake_apiserver.patch_status(
        "batch",
        "v1",
        "jobs",
        "default",
        "j1",
        {"conditions": [{"type": "Suspended", "status": "False"}]},
    )
    job = fake_apiserver.get_object("batch", "v1", "jobs", "default", "j1")
    assert job is not None
    assert job["status"]["conditions"] == [
        {"type": "Suspended", "status": "False", "lastProbeTime": None, "lastTransitionTime": None}
    ]
    node = fake_apiserver.create_object(
        "",
        "v1",
        "nodes",
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "n1"},
            "status": {"conditions": [{"type": "Ready", "status": "True"}]},
        },
    )
    assert node["status"]["conditions"] == [
        {
            "type": "Ready",
            "status": "True",
            "lastHeartbeatTime": None,
            "lastTransitionTime": None,
        }
    ]
    fake_apiserver.patch_status(
        "", "v1", "namespaces", None, "default", {"conditions": [{"type": "X", "status": "True"}]}
    )
    namespace = fake_apiserver.get_object("", "v1", "namespaces", None, "default")
    assert namespace is not None
    assert namespace["status"]["conditions"] == [
        {"type": "X", "status": "True", "lastTransitionTime": None}
    ]


async def test_a_pod_group_condition_still_needs_its_time(fake_apiserver: FakeAPIServer) -> None:
    """``metav1.Condition.lastTransitionTime`` has no ``omitempty``, and ValidateConditions
    requires it."""
    fake_apiserver.create_object(
        "scheduling.k8s.io",
        "v1beta1",
        "podgroups",
        {
            "apiVersion": "scheduling.k8s.io/v1beta1",
            "kind": "PodGroup",
            "metadata": {"name": "pg", "namespace": "default"},
            "spec": {"schedulingPolicy": {"basic": {}}},
        },
    )
    condition = {"type": "PodGroupInitiallyScheduled", "status": "True", "reason": "Scheduled"}
    with pytest.raises(APIStatusError) as caught:
        fake_apiserver.patch_status(
            "scheduling.k8s.io",
            "v1beta1",
            "podgroups",
            "default",
            "pg",
            {"conditions": [condition]},
        )
    assert caught.value.status["details"]["causes"] == [
        {
            "reason": "FieldValueRequired",
            "message": "Required value: must be set",
            "field": "status.conditions[0].lastTransitionTime",
        }
    ]


async def test_a_node_always_has_its_daemon_endpoints_and_node_info(
    fake_apiserver: FakeAPIServer,
) -> None:
    info_fields = json.loads((SCHEMAS / "nodesysteminfo-v1.json").read_text())["required"]
    endpoint = json.loads((SCHEMAS / "daemonendpoint-v1.json").read_text())["required"]
    expected = {
        "daemonEndpoints": {"kubeletEndpoint": dict.fromkeys(endpoint, 0)},
        "nodeInfo": dict.fromkeys(info_fields, ""),
    }
    created = fake_apiserver.create_object(
        "",
        "v1",
        "nodes",
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "bare"}},
    )
    assert created["status"] == expected
    status, with_capacity = await _call(
        fake_apiserver,
        "POST",
        "/api/v1/nodes",
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "n2"},
            "status": {"capacity": {"cpu": "2"}, "nodeInfo": {"kubeletVersion": "v1.37.0"}},
        },
    )
    assert status == 201
    assert with_capacity["status"]["daemonEndpoints"] == expected["daemonEndpoints"]
    assert with_capacity["status"]["nodeInfo"] == {
        **expected["nodeInfo"],
        "kubeletVersion": "v1.37.0",
    }
    _, patched = await _call(
        fake_apiserver,
        "PATCH",
        "/api/v1/nodes/n2/status",
        {"status": {"allocatable": {"cpu": "1"}}},
        content_type=MERGE,
    )
    _, listed = await _call(fake_apiserver, "GET", "/api/v1/nodes")
    for node in (patched, *listed["items"]):
        assert node["status"]["daemonEndpoints"] == expected["daemonEndpoints"]
        assert set(node["status"]["nodeInfo"]) == set(info_fields)


async def test_a_priority_class_defaults_its_preemption_policy(
    fake_apiserver: FakeAPIServer,
) -> None:
    """``preemptionPolicy``: "Defaults to PreemptLowerPriority if unset" (the 1.37 schema's
    description; upstream-1.37.md §4, ``SetDefaults_PriorityClass``)."""
    description = json.loads((SCHEMAS / "priorityclass-scheduling-v1.json").read_text())[
        "properties"
    ]["preemptionPolicy"]["description"]
    assert "Defaults to PreemptLowerPriority if unset" in description
    created = fake_apiserver.create_object(
        "scheduling.k8s.io",
        "v1",
        "priorityclasses",
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": "hi"},
            "value": 10,
        },
    )
    assert created["preemptionPolicy"] == "PreemptLowerPriority"
    never = fake_apiserver.create_object(
        "scheduling.k8s.io",
        "v1",
        "priorityclasses",
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": "never"},
            "value": 10,
            "preemptionPolicy": "Never",
        },
    )
    assert never["preemptionPolicy"] == "Never"
