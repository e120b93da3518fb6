"""``delete``: remove one execution's runtime objects and their Workload, children first."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, cast

from ...api import K8sModel
from ...api.scheduling_v1beta1 import Workload
from ..cache.cache import Cache, CacheIndex
from ..cache.members import active
from ..cache.reader import Reads, reader_for
from ..cache.snapshot import pod_group_of
from ..errors import APIError, ObjectRef
from ..wire.resources import (
    COMPOSITE_POD_GROUPS,
    POD_GROUPS,
    PODS,
    WORKLOADS,
    SchedulingObject,
    as_document,
    ref_of,
    resource_of,
)
from ..wire.transport import RetryPolicy, Transport, transport_for
from .apply import DEFAULT_CONCURRENCY, levels
from .preflight import served_resources

__all__ = ["DeleteResult", "Terminating", "delete"]

PropagationPolicy = Literal["Background", "Foreground", "Orphan"]

POD_GROUP_PROTECTION: Final = "scheduling.k8s.io/podgroup-protection"
FOREGROUND_DELETION: Final = "foregroundDeletion"


@dataclass(frozen=True)
class Terminating:
    """An object the server kept after the DELETE: a finalizer holds it until its job is done.

    ``finalizers`` are those left on it; ``why`` says what they wait for (for a PodGroup, the
    pods that still name it); ``action`` what to do.
    """

    object: ObjectRef
    finalizers: tuple[str, ...]
    why: str
    action: str

    def __str__(self) -> str:
        return f"{self.object} is terminating: {self.why}; {self.action}"


class DeleteResult(list[ObjectRef]):
    """The objects a ``delete()`` call asked the server to delete, in the order they went, and
    in ``terminating`` those a finalizer still holds (each with why, and what to do)."""

    terminating: tuple[Terminating, ...] = ()


def _held(ref: ObjectRef, body: Any, pods: Sequence[str]) -> Terminating | None:
    """What keeps an object that the DELETE answered with (``None``: it is gone)."""
    meta = (body.get("metadata") or {}) if isinstance(body, Mapping) else {}
    finalizers = tuple(str(f) for f in meta.get("finalizers") or ())
    if body.get("kind") == "Status" or not meta.get("deletionTimestamp") or not finalizers:
        return None
    if POD_GROUP_PROTECTION in finalizers:
        if not pods and finalizers == (POD_GROUP_PROTECTION,):
            return None  # no active pod names it: the protection controller lets it go
        named = ", ".join(pods) or "pods"
        return Terminating(
            ref,
            finalizers,
            f"{named} still name it (spec.schedulingGroup.podGroupName), and the"
            f" {POD_GROUP_PROTECTION} finalizer keeps it until no active pod does",
            "delete those pods, or let their owner (the Job or your controller) delete them;"
            " the PodGroup then goes by itself",
        )
    if FOREGROUND_DELETION in finalizers:
        return Terminating(
            ref,
            finalizers,
            "foreground deletion: the garbage collector deletes its dependents first",
            "wait for the dependents to go",
        )
    listed = ", ".join(finalizers)
    return Terminating(
        ref,
        finalizers,
        f"held by the finalizer(s) {listed}",
        "the controller that set them removes them when its cleanup is done",
    )


async def _pods_by_group(reader: Reads, namespace: str) -> dict[str, list[str]]:
    """The active pods of ``namespace`` by the PodGroup they name, by name."""
    named: dict[str, list[str]] = {}
    for pod in await reader.list(PODS, namespace):
        group = pod_group_of(pod)
        if group and active(pod):
            named.setdefault(group, []).append(str(pod["metadata"].get("name")))
    return {group: sorted(names) for group, names in named.items()}


async def _workload_members(
    transport: Transport, reader: Reads, namespace: str, workload_name: str
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
        by_workload = f"{namespace}/{workload_name}"
        members += await reader.indexed(resource, namespace, CacheIndex.WORKLOAD, by_workload)
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
    cache: Cache | None = None,
) -> DeleteResult:
    """Delete runtime objects and Workloads, children before parents; idempotent.

    Given a Workload (model, dict, or its name with ``namespace``), every PodGroup and
    CompositePodGroup whose ``spec.workloadRef`` names it goes first, then the composite groups
    deepest first, then the Workload. Given objects, they go in the reverse of ``apply()``'s
    order. An object already gone is skipped. Returns the objects this call asked the server
    to delete, in the order they went; ``.terminating`` lists those a finalizer still holds
    (a PodGroup that pods still name: the PodGroupProtection finalizer; the pods are read once
    per namespace, only then), with why and what to do. A later call asks again for those,
    and lists them again while they are held. With a ``cache`` (or an ``aio.Client``'s), the
    groups and pods are read from it, and what went is remembered until it observes that.
    """
    docs, workload = _documents(workload_or_objects, namespace)
    transport = transport_for(api_client, retry)
    reader = reader_for(api_client, cache, transport)
    if workload is not None:
        docs = await _workload_members(transport, reader, *workload)
    gate = asyncio.Semaphore(concurrency)
    body = {"apiVersion": "v1", "kind": "DeleteOptions", "propagationPolicy": propagation_policy}
    deleted = DeleteResult()
    terminating: list[Terminating] = []
    kept: list[tuple[ObjectRef, Mapping[str, Any]]] = []  # answered with finalizers left

    async def one(doc: Mapping[str, Any]) -> None:
        ref = ref_of(doc)
        if namespace and not ref.namespace:
            ref = ObjectRef(ref.kind, namespace, ref.name, ref.api_version)
        resource = resource_of(doc)
        path = resource.path(ref.namespace, ref.name)
        async with gate:
            try:
                response = await transport.request("DELETE", path, body=body, target=ref)
            except APIError as exc:
                if exc.status == 404:
                    return
                raise
        deleted.append(ref)
        answer = response.body if isinstance(response.body, Mapping) else {}
        if (answer.get("metadata") or {}).get("finalizers"):
            kept.append((ref, answer))
            reader.wrote(resource, answer)
        else:
            reader.deleted(resource, (ref.namespace, ref.name))

    for level in reversed(levels(docs)):
        await asyncio.gather(*(one(docs[i]) for i in level))
    # One list of pods per namespace, only when a PodGroup came back held by its protection.
    naming: dict[str, dict[str, list[str]]] = {}
    for ref, answer in kept:
        protected = POD_GROUP_PROTECTION in (answer["metadata"].get("finalizers") or ())
        if ref.kind == "PodGroup" and protected and ref.namespace not in naming:
            naming[ref.namespace] = await _pods_by_group(reader, ref.namespace)
        pods = naming.get(ref.namespace, {}).get(ref.name, [])
        held = _held(ref, answer, pods)
        if held is not None:
            terminating.append(held)
    deleted.terminating = tuple(terminating)
    return deleted
