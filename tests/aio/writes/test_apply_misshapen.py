"""Answers whose fields have the wrong JSON type: ``diagnose``, ``audit``, ``delete`` and
``reconcile_job`` refuse them with a typed error naming the list, the item and the field.

The types expected are the 1.37 OpenAPI schemas' (``kubernetes-validate``): ``metadata`` an
``ObjectMeta`` object, ``spec.schedulingGroup`` an object, ``minCount`` an int32, a container's
``resources.requests`` a map of quantities (string or number), ``status.conditions`` a list of
objects, an Event's ``involvedObject`` an ``ObjectReference``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from apply_support import NS
from hostile_servers import DISCOVERY, kubeconfig, serve

from workloadbuilder import aio

SCHEDULING = "/apis/scheduling.k8s.io"
CORE = "/api/v1"
JOB_UID = "job-uid-1"


def _item(kind: str, version: str, name: str, **fields: Any) -> dict[str, Any]:
    meta = {"name": name, "namespace": NS, "uid": f"uid-{name}", "resourceVersion": "5"}
    return {"apiVersion": version, "kind": kind, "metadata": meta, **fields}


def namespace() -> dict[str, list[dict[str, Any]]]:
    """A small namespace: a Workload, its gang of two and one member, an event."""
    gang = {"gang": {"minCount": 2}}
    return {
        f"{SCHEDULING}/v1beta1/namespaces/{NS}/workloads": [
            _item(
                "Workload",
                "scheduling.k8s.io/v1beta1",
                "train",
                spec={"podGroupTemplates": [{"name": "workers", "schedulingPolicy": gang}]},
            )
        ],
        f"{SCHEDULING}/v1beta1/namespaces/{NS}/podgroups": [
            _item(
                "PodGroup",
                "scheduling.k8s.io/v1beta1",
                "pg-a",
                spec={
                    "schedulingPolicy": gang,
                    "workloadRef": {"workloadName": "train", "templateName": "workers"},
                },
            )
        ],
        f"{SCHEDULING}/v1alpha3/namespaces/{NS}/compositepodgroups": [],
        f"{CORE}/namespaces/{NS}/pods": [
            _item(
                "Pod",
                "v1",
                "worker-0",
                spec={
                    "schedulingGroup": {"podGroupName": "pg-a"},
                    "containers": [
                        {"name": "m", "image": "x", "resources": {"requests": {"cpu": "1"}}}
                    ],
                },
                status={"phase": "Pending", "conditions": [{"type": "PodScheduled"}]},
            )
        ],
        f"{CORE}/namespaces/{NS}/events": [
            _item(
                "Event",
                "v1",
                "worker-0.1",
                involvedObject={"kind": "Pod", "name": "worker-0", "namespace": NS},
                reason="FailedScheduling",
                message="0/1 nodes are available",
                type="Warning",
            )
        ],
    }


def _set(doc: dict[str, Any], path: str, value: Any) -> None:
    *parents, last = path.split(".")
    for key in parents:
        doc = doc[int(key)] if isinstance(doc, list) else doc[key]
    doc[last] = value


# (id, the list, the field, its wrong value, what the error says of it)
MISSHAPEN: list[tuple[str, str, str, Any, str]] = [
    ("pod metadata a string", "pods", "metadata", "worker-0",
     "items[0] whose metadata is a JSON string, not an object"),
    ("schedulingGroup a string", "pods", "spec.schedulingGroup", "pg-a",
     "items[0] whose spec.schedulingGroup is a JSON string, not an object"),
    ("podGroupName an object", "pods", "spec.schedulingGroup.podGroupName", {"name": "pg-a"},
     "items[0] whose spec.schedulingGroup.podGroupName is a JSON object, not a string"),
    ("a request an object", "pods", "spec.containers.0.resources.requests.cpu", {"m": 1},
     "items[0] whose spec.containers[0].resources.requests[cpu] is a JSON object, not a string"
     " or an integer or a number"),
    ("pod status a list", "pods", "status", [],
     "items[0] whose status is a JSON list, not an object"),
    ("a condition a string", "pods", "status.conditions", ["PodScheduled"],
     "items[0] whose status.conditions[0] is a JSON string, not an object"),
    ("a condition null", "pods", "status.conditions", [None],
     "items[0] whose status.conditions[0] is a JSON null, not an object"),
    ("minCount a string", "podgroups", "spec.schedulingPolicy.gang.minCount", "2",
     "items[0] whose spec.schedulingPolicy.gang.minCount is a JSON string, not an integer"),
    ("workloadRef a string", "podgroups", "spec.workloadRef", "train",
     "items[0] whose spec.workloadRef is a JSON string, not an object"),
    ("a template a string", "workloads", "spec.podGroupTemplates", ["workers"],
     "items[0] whose spec.podGroupTemplates[0] is a JSON string, not an object"),
    ("ownerReferences an object", "workloads", "metadata.ownerReferences", {"uid": "x"},
     "items[0] whose metadata.ownerReferences is a JSON object, not a list"),
    ("involvedObject a string", "events", "involvedObject", "Pod/worker-0",
     "items[0] whose involvedObject is a JSON string, not an object"),
    ("a PodGroup without a name", "podgroups", "metadata.name", "",
     "items[0] whose metadata.name is missing or empty"),
]  # fmt: skip


def serving(lists: dict[str, list[dict[str, Any]]]) -> Callable[..., Any]:
    async def answer(request: web.Request) -> web.StreamResponse:
        if request.path in DISCOVERY:
            return web.json_response(DISCOVERY[request.path])
        if request.path in lists:
            kind = request.path.rsplit("/", 1)[1]
            return web.json_response(
                {"kind": "List", "metadata": {"resourceVersion": "9"}, "items": lists[request.path]}
                | {"kind": _LIST_KINDS[kind]}
            )
        status = {"kind": "Status", "status": "Failure", "reason": "NotFound", "code": 404}
        return web.json_response(status, status=404)

    return answer


_LIST_KINDS = {
    "workloads": "WorkloadList",
    "podgroups": "PodGroupList",
    "compositepodgroups": "CompositePodGroupList",
    "pods": "PodList",
    "events": "EventList",
}


async def test_the_namespace_as_served_is_read(tmp_path: Path) -> None:
    """The unchanged namespace is read without error (the cases below change one field)."""
    async with serve(serving(namespace())) as server:
        client = await aio.new_client(kubeconfig(tmp_path, server.url))
        try:
            verdict = await aio.diagnose(client, aio.ObjectRef("PodGroup", NS, "pg-a"))
            await aio.audit(client, NS)
        finally:
            await client.close()
    assert verdict.present == 1 and verdict.required == 2


@pytest.mark.parametrize(
    ("plural", "path", "value", "said"), [m[1:] for m in MISSHAPEN], ids=[m[0] for m in MISSHAPEN]
)
async def test_a_field_of_the_wrong_json_type_is_a_typed_error_naming_it(
    tmp_path: Path, plural: str, path: str, value: Any, said: str
) -> None:
    lists = copy.deepcopy(namespace())
    (where,) = (k for k in lists if k.endswith(f"/{plural}"))
    _set(lists[where][0], path, value)
    api_version = where.split("/namespaces/")[0].removeprefix(CORE).removeprefix("/apis/")
    listing = f"listing {plural}.{api_version or 'v1'} in namespace {NS}: the server answered"
    listing += " HTTP 200 with "
    async with serve(serving(lists)) as server:
        client = await aio.new_client(kubeconfig(tmp_path, server.url))
        try:
            calls = [
                aio.diagnose(client, aio.ObjectRef("PodGroup", NS, "pg-a")),
                aio.audit(client, NS),
            ]
            errors = []
            for call in calls:
                with pytest.raises(aio.APIError) as caught:
                    await call
                errors.append(caught.value)
        finally:
            await client.close()
    for error in errors:
        assert type(error) is aio.APIError and error.status == 200
        assert listing in str(error) and said in str(error)
        assert str(error).endswith(f"{said}; nothing of it was used")
