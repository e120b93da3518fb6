"""``delete``: remove one execution's runtime objects and their Workload, children first."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from typing import Any, Literal, cast

from ..api._base import K8sModel
from ..api.scheduling_v1beta1 import Workload
from ._queries import list_documents
from ._resources import (
    COMPOSITE_POD_GROUPS,
    POD_GROUPS,
    WORKLOADS,
    SchedulingObject,
    as_document,
    ref_of,
    resource_of,
)
from ._transport import RetryPolicy, Transport
from .apply import DEFAULT_CONCURRENCY, levels
from .errors import APIError, ObjectRef
from .preflight import served_resources

__all__ = ["delete"]

PropagationPolicy = Literal["Background", "Foreground", "Orphan"]


async def _workload_members(
    transport: Transport, namespace: str, workload_name: str
) -> list[dict[str, Any]]:
    """The Workload itself and every PodGroup/CompositePodGroup whose workloadRef names it."""
    members: list[dict[str, Any]] = [
        {
            "apiVersion": WORKLOADS.api_version,
            "kind": WORKLOADS.kind,
            "metadata": {"name": workload_name, "namespace": namespace},
        }
    ]
    for resource in (COMPOSITE_POD_GROUPS, POD_GROUPS):
        if resource.plural not in await served_resources(transport, resource):
            continue
        for doc in await list_documents(transport, resource, namespace):
            if ((doc.get("spec") or {}).get("workloadRef") or {}).get(
                "workloadName"
            ) == workload_name:
                members.append(doc)
    return members


def _documents(
    target: Workload | SchedulingObject | Mapping[str, Any] | str | Iterable[Any],
    namespace: str | None,
) -> tuple[list[dict[str, Any]], tuple[str, str] | None]:
    """The objects to delete, or the (namespace, name) of a Workload to expand."""
    if isinstance(target, str):
        if not namespace:
            raise ValueError("delete needs namespace=... with a Workload name")
        return [], (namespace, target)
    if isinstance(target, K8sModel | Mapping):
        doc = as_document(target)
        if doc.get("kind") != "Workload":
            return [doc], None
        meta = doc.get("metadata") or {}
        ns, name = namespace or str(meta.get("namespace") or ""), str(meta.get("name") or "")
        if not ns or not name:
            raise ValueError("delete needs the Workload's metadata.name and metadata.namespace")
        return [], (ns, name)
    return [as_document(o) for o in cast(Iterable[Any], target)], None


async def delete(
    api_client: Any,
    workload_or_objects: Workload | SchedulingObject | Mapping[str, Any] | str | Iterable[Any],
    *,
    namespace: str | None = None,
    propagation_policy: PropagationPolicy = "Background",
    concurrency: int = DEFAULT_CONCURRENCY,
    retry: RetryPolicy | None = None,
) -> list[ObjectRef]:
    """Delete runtime objects and Workloads, children before parents; idempotent.

    Given a Workload (model, dict, or its name with ``namespace``), every PodGroup and
    CompositePodGroup whose ``spec.workloadRef`` names it goes first, then the composite groups
    deepest first, then the Workload. Given objects, they go in the reverse of ``apply()``'s
    order. An object already gone is skipped. Returns the objects this call deleted, in the
    order they went.
    """
    docs, workload = _documents(workload_or_objects, namespace)
    transport = Transport(api_client, retry)
    if workload is not None:
        docs = await _workload_members(transport, *workload)
    gate = asyncio.Semaphore(concurrency)
    body = {"apiVersion": "v1", "kind": "DeleteOptions", "propagationPolicy": propagation_policy}
    deleted: list[ObjectRef] = []

    async def one(doc: Mapping[str, Any]) -> None:
        ref = ref_of(doc)
        if namespace and not ref.namespace:
            ref = ObjectRef(ref.kind, namespace, ref.name, ref.api_version)
        path = resource_of(doc).path(ref.namespace, ref.name)
        async with gate:
            try:
                await transport.request("DELETE", path, body=body, target=ref)
            except APIError as exc:
                if exc.status == 404:
                    return
                raise
        deleted.append(ref)

    for level in reversed(levels(docs)):
        await asyncio.gather(*(one(docs[i]) for i in level))
    return deleted
